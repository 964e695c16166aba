//===- CasesMaskedBackwardLayerNorm.cpp - family kernels of several inputs
//-===//
//
// softmax_masked (an additive mask per row, or one row shared through
// mask_row_stride = 0, of its own dtype), softmax_backward (y, dy -> dx) and
// layernorm (x, weight, bias -> out) over the shapes and dtypes of the
// family's row kernels (SoftmaxFamilyInputs.h): N = 1, 17, 781, 4097 and
// 1823 x 781, softmax's special rows, strided rows with a different stride
// per matrix, NaN padding between rows, masked tails.
//
// Tolerances (f32; a 16-bit output adds one ulp of its type):
//   softmax_masked    abs 1e-6 + rel 1.5e-4 (x + mask is rounded to f32
//                     before the exponential: half an ulp of |x + mask|,
//                     up to 1000 in the +-1000 row, in each of x + mask
//                     and the row's max, 2^-23 x 1000 = 1.2e-4 in all);
//   softmax_backward  abs 1e-6 + rel 1e-5 (sum(y * dy) in f32, whose error,
//                     a few 2^-24 x sum|y dy|, reaches dx times y <= 1;
//                     measured on the CPU within abs 1e-6 + rel 2e-6, the
//                     rest a margin for the GPU's order of summation);
//   layernorm         abs 1e-5 + rel 1e-5 (mean and variance in f32).
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/Kernels.h"
#include "examples/kernels/ReferenceFamily.h"
#include "tests/differential/SoftmaxFamilyInputs.h"

#include <random>

namespace blockjit::difftest::family {

namespace {

double identity(double x) { return x; }

/// An additive mask: mostly 0, every 5th element -inf, every 3rd a bias
/// (normal, sd 2); column 0 always finite, except all of row 7 (a row the
/// mask removes entirely: NaN, as torch gives).
std::vector<double> additiveMask(int64_t rows, int64_t cols, int64_t stride,
                                 unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> bias(0, 2);
  std::vector<double> mask(std::max<int64_t>(rows * stride, cols), kNaN);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < cols; ++k)
      mask[r * stride + k] = r == 7       ? -kInf
                             : k == 0     ? 0
                             : k % 5 == 4 ? -kInf
                             : k % 3 == 1 ? bias(rng)
                                          : 0;
  return mask;
}

/// softmax_masked: `shared` gives one mask row to all rows (stride 0).
Case maskedCase(DType in, DType out, DType maskType, Shape s, bool shared) {
  std::string variant = std::string(shared ? "shared" : "rows") +
                        (maskType != in ? "_mask" + suffix(maskType) : "");
  Case c{caseName("softmax_masked", in, out, s, variant),
         {"example:softmax_masked"},
         examples::softmaxMasked()};
  int64_t maskStride = shared ? 0 : s.cols + 1;
  unsigned seed = unsigned(s.rows + s.cols);
  c.buffers = {
      {in, specialRows(in, s, s.inStride(), seed)},
      {maskType, additiveMask(shared ? 1 : s.rows, s.cols, s.cols + 1, seed)},
      {out, sentinel(s.rows * s.outStride())}};
  c.args = {bufArg(2),
            bufArg(0),
            bufArg(1),
            i32Arg(int32_t(s.inStride())),
            i32Arg(int32_t(s.outStride())),
            i32Arg(int32_t(maskStride)),
            i32Arg(int32_t(s.rows)),
            i32Arg(int32_t(s.cols)),
            constArg(next_power_of_2(s.cols))};
  c.grid = {4};
  c.numWarps = rowNumWarps(s.cols, in);
  c.reference = [s, maskStride](Buffers &b) {
    std::vector<double> result(b[2].size());
    examples::referenceSoftmaxMasked(b[0].data(), b[1].data(), result.data(),
                                     s.rows, s.cols, s.inStride(), maskStride,
                                     s.outStride(), identity);
    writeRows(b[2], result, s, s.outStride());
  };
  c.tolerance = outputTolerance(
      out, 1e-6, 1.5e-4, "softmax_masked f32: abs 1e-6 + rel 1.5e-4 (+1 ulp)");
  return c;
}

/// softmax's outputs y for the backward: the softmax of random rows (row 0
/// one-hot, row 1 uniform), NaN padding.
std::vector<double> softmaxOutputs(Shape s, unsigned seed) {
  std::vector<double> y =
      floats(DType::F32, s.rows * s.inStride(), seed, false);
  std::vector<double> row(s.cols);
  for (int64_t r = 0; r < s.rows; ++r) {
    for (int64_t k = 0; k < s.cols; ++k)
      row[k] = r == 0   ? (k == s.cols / 3 ? 0 : -kInf)
               : r == 1 ? 0
                        : y[r * s.inStride() + k] / 4;
    examples::reference::softmax(row);
    for (int64_t k = 0; k < s.inStride(); ++k)
      y[r * s.inStride() + k] = k < s.cols ? row[k] : kNaN;
  }
  return y;
}

Case backwardCase(DType in, DType out, Shape s) {
  Case c{caseName("softmax_backward", in, out, s),
         {"example:softmax_backward"},
         examples::softmaxBackward()};
  // dy's rows are 1 element longer than a row: three different strides.
  Shape dyShape = {s.rows, s.cols};
  int64_t dyStride = s.cols + 1;
  std::vector<double> dy =
      specialRows(in, dyShape, dyStride, unsigned(s.rows * 3 + s.cols));
  c.buffers = {{in, softmaxOutputs(s, unsigned(s.cols))},
               {in, dy},
               {out, sentinel(s.rows * s.outStride())}};
  c.args = {bufArg(2),
            bufArg(0),
            bufArg(1),
            i32Arg(int32_t(s.outStride())),
            i32Arg(int32_t(s.inStride())),
            i32Arg(int32_t(dyStride)),
            i32Arg(int32_t(s.rows)),
            i32Arg(int32_t(s.cols)),
            constArg(next_power_of_2(s.cols))};
  c.grid = {4};
  c.numWarps = rowNumWarps(s.cols, in);
  c.reference = [s, dyStride](Buffers &b) {
    std::vector<double> result(b[2].size());
    examples::referenceSoftmaxBackward(b[0].data(), b[1].data(), result.data(),
                                       s.rows, s.cols, s.inStride(), dyStride,
                                       s.outStride(), identity);
    writeRows(b[2], result, s, s.outStride());
  };
  c.tolerance = outputTolerance(
      out, 1e-6, 1e-5, "softmax_backward f32: abs 1e-6 + rel 1e-5 (+1 ulp)");
  return c;
}

/// Normal values of mean `mean` and standard deviation `sd`.
std::vector<double> normals(int64_t n, double mean, double sd, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal(mean, sd);
  std::vector<double> v(n);
  for (double &x : v)
    x = normal(rng);
  return v;
}

Case layerNormCase(DType in, DType out, Shape s, int64_t chunk) {
  Case c{
      caseName(chunk ? "layernorm_chunk" + std::to_string(chunk) : "layernorm",
               in, out, s),
      {"example:layernorm"},
      examples::layerNorm()};
  std::vector<double> x = specialRows(in, s, s.inStride(), unsigned(s.cols));
  // A constant row: variance 0, the output is the bias.
  if (s.rows > 7)
    for (int64_t k = 0; k < s.cols; ++k)
      x[7 * s.inStride() + k] = 3;
  const float eps = 1e-5f;
  c.buffers = {{in, x},
               {in, normals(s.cols, 1, 0.5, unsigned(s.cols + 1))},
               {in, normals(s.cols, 0, 1, unsigned(s.cols + 2))},
               {out, sentinel(s.rows * s.outStride())}};
  c.args = {bufArg(3),
            bufArg(0),
            bufArg(1),
            bufArg(2),
            i32Arg(int32_t(s.inStride())),
            i32Arg(int32_t(s.outStride())),
            i32Arg(int32_t(s.rows)),
            i32Arg(int32_t(s.cols)),
            f32Arg(eps),
            constArg(next_power_of_2(s.cols)),
            constArg(chunk)};
  c.grid = {4};
  c.numWarps = rowNumWarps(s.cols, in);
  c.reference = [s, eps](Buffers &b) {
    std::vector<double> result(b[3].size());
    examples::referenceLayerNorm(b[0].data(), b[1].data(), b[2].data(),
                                 result.data(), s.rows, s.cols, s.inStride(),
                                 s.outStride(), double(eps), identity);
    writeRows(b[3], result, s, s.outStride());
  };
  c.tolerance = outputTolerance(out, 1e-5, 1e-5,
                                "layernorm f32: abs 1e-5 + rel 1e-5 (+1 ulp)");
  return c;
}

} // namespace

void addMaskedBackwardLayerNormCases(std::vector<Case> &cases) {
  for (Shape s : rowShapes()) {
    for (auto [in, out] : dtypePairs()) {
      for (bool shared : {false, true})
        cases.push_back(maskedCase(in, out, in, s, shared));
      cases.push_back(backwardCase(in, out, s));
      cases.push_back(layerNormCase(in, out, s, 0));
      // The row in chunks of a quarter of its block: Welford per lane, the
      // lanes combined, the row read a second time to write (the masked
      // tail in the last chunk); 1823 x 781 also with the chunks loaded
      // ahead.
      if (s.cols >= 17) {
        cases.push_back(layerNormCase(in, out, s, next_power_of_2(s.cols) / 4));
        if (s.rows > 9) {
          Case ahead = layerNormCase(in, out, s, next_power_of_2(s.cols) / 4);
          ahead.name += "_stages2";
          ahead.numStages = 2;
          cases.push_back(std::move(ahead));
        }
      }
      // Pipelined: the weights and bias are loaded once, before the row
      // loop (blk-pipeline-loads hoists loads that do not depend on the
      // row), the rows two ahead.
      Case pipelined = layerNormCase(in, out, s, 0);
      pipelined.name += "_stages3";
      pipelined.numStages = 3;
      cases.push_back(std::move(pipelined));
    }
  }
  // A mask of another type than the input: bf16 over f32.
  for (bool shared : {false, true})
    cases.push_back(
        maskedCase(DType::F32, DType::F32, DType::BF16, {9, 781}, shared));
}

} // namespace blockjit::difftest::family

namespace blockjit::difftest {

void addWideLayerNormCases(std::vector<Case> &cases) {
  // Rows wide enough (16384-element blocks on 8 warps, the next row in
  // flight) that blk-stage-in-shared keeps the hoisted weight and bias in
  // shared memory, widened inside the row loop for 16-bit types.
  for (auto [in, out] : family::dtypePairs()) {
    Case wide = family::layerNormCase(in, out, {9, 12289}, 0);
    wide.name += "_stages2_warps8";
    wide.numStages = 2;
    wide.numWarps = 8;
    cases.push_back(std::move(wide));
    // Inductor's shape of the loop: chunks of 2048 on 16 warps.
    Case chunked = family::layerNormCase(in, out, {9, 12289}, 2048);
    chunked.name += "_warps16";
    chunked.numWarps = 16;
    cases.push_back(std::move(chunked));
  }
}

} // namespace blockjit::difftest
