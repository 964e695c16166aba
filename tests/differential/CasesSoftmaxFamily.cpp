//===- CasesSoftmaxFamily.cpp - the row kernels of the softmax family ----===//
//
// log_softmax, softmax_temperature, softmax_scale and softmax_causal
// (examples/kernels/): one input matrix, one output, softmax's persistent
// rows. Each runs N = 1, 17, 781, 4097 over softmax's special rows (all
// -inf, +inf, NaN, +-1000, denormals, a one-hot row of 0 and -inf) and the
// irregular 1823 x 781, in f32, f16 and bf16 in and out and bf16 in with f32
// out, with strided rows (input and output strides differ) and masked tails;
// the references are examples/kernels/ReferenceFamily.h's.
//
// Tolerances (f32; a 16-bit output adds one ulp of its type, ulpOf()):
//   log_softmax          abs 1e-5 + rel 1e-6 (x - max and log(sum) in f32
//                        for |x - max| up to a few thousand);
//   softmax_temperature  abs 1e-6 + rel 1e-5 (x / T rounded to f32 before
//                        the exponential: 6e-8 of |x / T| up to ~100);
//   softmax_scale        abs 1e-6 x |s| + rel 1e-6;
//   softmax_causal       abs 1e-6 (softmax's).
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/Kernels.h"
#include "examples/kernels/ReferenceFamily.h"
#include "tests/differential/SoftmaxFamilyInputs.h"

#include <cmath>
#include <functional>
#include <optional>

namespace blockjit::difftest {

namespace family {

namespace {

/// What differs between the one-input row kernels.
struct RowKernel {
  std::string name;
  std::shared_ptr<KernelDef> kernel;
  /// A Float argument after n_cols (temperature, scale), if the kernel has
  /// one.
  std::optional<float> scalar;
  /// out = reference(in) for a matrix of `shape` with the case's strides.
  std::function<void(const double *in, double *out, Shape shape)> reference;
  Tolerance f32Tolerance;
};

Case rowKernelCase(const RowKernel &k, DType in, DType out, Shape s,
                   const std::string &variant = "") {
  Case c{
      caseName(k.name, in, out, s, variant), {"example:" + k.name}, k.kernel};
  c.buffers = {
      {in, specialRows(in, s, s.inStride(), unsigned(s.cols + s.rows))},
      {out, sentinel(s.rows * s.outStride())}};
  c.args = {bufArg(1),
            bufArg(0),
            i32Arg(int32_t(s.inStride())),
            i32Arg(int32_t(s.outStride())),
            i32Arg(int32_t(s.rows)),
            i32Arg(int32_t(s.cols))};
  if (k.scalar)
    c.args.push_back(f32Arg(*k.scalar));
  c.args.push_back(constArg(next_power_of_2(s.cols)));
  c.grid = {4}; // fewer programs than rows: the persistent loop
  c.numWarps = rowNumWarps(s.cols, in);
  auto reference = k.reference;
  c.reference = [reference, s](Buffers &b) {
    std::vector<double> result(b[1].size());
    reference(b[0].data(), result.data(), s);
    writeRows(b[1], result, s, s.outStride());
  };
  const Tolerance &t = k.f32Tolerance;
  c.tolerance = outputTolerance(out, t.abs, t.rel, t.rule);
  return c;
}

double identity(double x) { return x; }

std::vector<RowKernel> rowKernels() {
  std::vector<RowKernel> kernels;
  kernels.push_back(
      {"log_softmax",
       examples::logSoftmax(),
       std::nullopt,
       [](const double *in, double *out, Shape s) {
         examples::referenceLogSoftmax(in, out, s.rows, s.cols, s.inStride(),
                                       s.outStride(), identity);
       },
       {1e-5, 1e-6,
        "log_softmax f32: abs 1e-5 + rel 1e-6 (+1 ulp of f16/bf16)"}});
  // Temperatures below and above 1 (x / 0.7 rounds) and a negative one
  // (masked lanes must still count as -inf).
  for (float temperature : {0.7f, 4.0f, -2.0f}) {
    RowKernel k{
        "softmax_temperature",
        examples::softmaxTemperature(),
        temperature,
        [temperature](const double *in, double *out, Shape s) {
          examples::referenceSoftmaxTemperature(in, out, s.rows, s.cols,
                                                s.inStride(), s.outStride(),
                                                temperature, identity);
        },
        {1e-6, 1e-5, "softmax_temperature f32: abs 1e-6 + rel 1e-5 (+1 ulp)"}};
    kernels.push_back(std::move(k));
  }
  // A scale that rounds and a negative one.
  for (float scale : {2.5f, -0.3f}) {
    RowKernel k{"softmax_scale",
                examples::softmaxScale(),
                scale,
                [scale](const double *in, double *out, Shape s) {
                  examples::referenceSoftmaxScale(in, out, s.rows, s.cols,
                                                  s.inStride(), s.outStride(),
                                                  scale, identity);
                },
                {2.5e-6, 1e-6,
                 "softmax_scale f32: abs 1e-6 x |scale| + rel 1e-6 (+1 ulp)"}};
    kernels.push_back(std::move(k));
  }
  kernels.push_back(
      {"softmax_causal",
       examples::softmaxCausal(),
       std::nullopt,
       [](const double *in, double *out, Shape s) {
         examples::referenceSoftmaxCausal(in, out, s.rows, s.cols, s.inStride(),
                                          s.outStride(), identity);
       },
       {1e-6, 0, "softmax_causal f32: abs 1e-6 (+1 ulp of f16/bf16)"}});
  return kernels;
}

} // namespace

void addRowKernelCases(std::vector<Case> &cases) {
  for (const RowKernel &k : rowKernels()) {
    // "s7" for 0.7, "sm3" for -0.3.
    std::string variant =
        k.scalar ? std::string(*k.scalar < 0 ? "sm" : "s") +
                       std::to_string(int(std::abs(*k.scalar) * 10))
                 : "";
    for (Shape s : rowShapes())
      for (auto [in, out] : dtypePairs())
        cases.push_back(rowKernelCase(k, in, out, s, variant));
  }
  // Causal with more rows than columns: rows past the last column keep
  // every column.
  cases.push_back(
      rowKernelCase(rowKernels().back(), DType::F32, DType::F32, {40, 17}));
}

} // namespace family

void addSoftmaxFamilyCases(std::vector<Case> &cases) {
  family::addRowKernelCases(cases);
  family::addColumnCases(cases);
  family::addColumnSplitCases(cases);
  family::addMaskedBackwardLayerNormCases(cases);
}

} // namespace blockjit::difftest
