//===- CasesOnlineSoftmax.cpp - the softmax_online example kernel ---------===//
//
// softmax_online (examples/kernels/SoftmaxOnline.cpp) reads each row in
// chunks with a per-lane running max and sum. Its cases: N = 1, 17, 781,
// 4097, 65537 columns with chunks of 256 and 1024 (and the example's 4096
// over 8 warps for the long rows), f32/f16/bf16, rows that stress the
// online update (all -inf; a +inf; a NaN; +-1000; denormals; a maximum that
// grows from chunk to chunk; -inf for the first half and finite after),
// strided rows, +4-byte pointers, in place (output aliasing input), and a
// 16-element chunk over 4 warps (a chunk smaller than the thread count).
//
// Tolerances are softmax's (Cases.cpp): f32 abs 1e-6, f16 abs 2e-3, bf16
// abs 1e-2; the reference is examples::referenceSoftmax, the one softmax
// has, so both kernels give the same special values.
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/Kernels.h"
#include "examples/kernels/Reference.h"
#include "tests/differential/CaseHelpers.h"

namespace blockjit::difftest {

namespace {

enum class Variant { Plain, Unaligned, InPlace };

Case onlineSoftmaxCase(DType t, int64_t cols, int64_t chunk, int numWarps,
                       Variant variant) {
  const int64_t rows = 9, stride = cols + 3;
  Case c{"softmax_online_" + suffix(t) + "_n" + std::to_string(cols) +
             "_chunk" + std::to_string(chunk) + "_w" +
             std::to_string(numWarps) +
             (variant == Variant::Unaligned ? "_unaligned"
              : variant == Variant::InPlace ? "_inplace"
                                            : ""),
         {"example:softmax_online"},
         examples::softmaxOnline()};
  std::vector<double> in =
      floats(t, rows * stride, unsigned(cols + chunk), false);
  auto at = [&](int64_t r, int64_t k) -> double & {
    return in[r * stride + std::min(k, cols - 1)];
  };
  for (int64_t k = 0; k < cols; ++k) {
    at(0, k) = -kInf;                  // all -inf
    at(3, k) = k % 2 ? 1000 : -1000;   // +-1000
    at(4, k) = k % 2 ? 1e-40 : -1e-40; // denormals (f32; 0 in f16/bf16)
    at(5, k) = double(k % 7) - 3;
    // A maximum that grows with every chunk: every lane's running sum is
    // rescaled at every step.
    at(6, k) = double(k % 1024) * 0.01 + double(k / 1024) * 4;
    // -inf for the first half: lanes start at -inf, then turn finite.
    if (k < cols / 2)
      at(7, k) = -kInf;
  }
  at(1, 2) = kInf;        // +inf in a row
  at(2, cols / 2) = kNaN; // NaN in a row
  at(5, 0) = -kInf;       // one -inf
  at(8, cols - 1) = 1000; // the maximum in the masked tail's chunk
  int lead = variant == Variant::Unaligned ? 4 : 0;
  c.buffers = {{t, in, lead}};
  if (variant == Variant::InPlace) {
    c.args = {bufArg(0), bufArg(0)};
  } else {
    c.buffers.push_back({t, sentinel(rows * stride), lead});
    c.args = {bufArg(1), bufArg(0)};
  }
  c.args.push_back(i32Arg(int32_t(stride)));
  c.args.push_back(i32Arg(int32_t(stride)));
  c.args.push_back(i32Arg(int32_t(rows)));
  c.args.push_back(i32Arg(int32_t(cols)));
  c.args.push_back(constArg(chunk));
  c.grid = {4}; // fewer programs than rows: the persistent loop
  c.numWarps = numWarps;
  int out = variant == Variant::InPlace ? 0 : 1;
  c.reference = [cols, stride, out](Buffers &b) {
    std::vector<double> result(b[out].size());
    examples::referenceSoftmax(b[0].data(), result.data(), rows, cols, stride,
                               stride, [](double x) { return x; });
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k = 0; k < cols; ++k)
        b[out][r * stride + k] = result[r * stride + k];
  };
  c.tolerance = t == DType::F32 ? Tolerance{1e-6, 0, "softmax f32: abs 1e-6"}
                : t == DType::F16
                    ? Tolerance{2e-3, 0, "softmax f16: abs 2e-3"}
                    : Tolerance{1e-2, 0, "softmax bf16: abs 1e-2"};
  return c;
}

} // namespace

void addOnlineSoftmaxCases(std::vector<Case> &cases) {
  const int64_t sizes[] = {1, 17, 781, 4097, 65537};
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    for (int64_t cols : sizes) {
      for (int64_t chunk : {256, 1024})
        cases.push_back(onlineSoftmaxCase(t, cols, chunk, 4, Variant::Plain));
      // In place, with the chunk the example uses on long rows.
      if (cols >= 781)
        cases.push_back(onlineSoftmaxCase(
            t, cols, examples::kSoftmaxOnlineBlock,
            examples::kSoftmaxOnlineNumWarps, Variant::InPlace));
    }
    // A 16-element chunk held by 128 threads (each element by several).
    cases.push_back(onlineSoftmaxCase(t, 781, 16, 4, Variant::Plain));
  }
  // Pointers 4 bytes off 16-byte alignment: no vector accesses.
  for (int64_t cols : {int64_t(17), int64_t(4097)})
    cases.push_back(
        onlineSoftmaxCase(DType::F32, cols, 1024, 4, Variant::Unaligned));
}

} // namespace blockjit::difftest
