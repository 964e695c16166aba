//===- SoftmaxFamilyInputs.h - what the softmax family's cases share -*- C++
//-*-===//
//
// The matrices, strides, launch shape and tolerances of the cases of the
// softmax family's kernels (CasesSoftmaxFamily*.cpp): softmax's special
// rows (Cases.cpp), rows strided apart with different input and output
// strides, persistent grids of fewer programs than rows, and tolerances of
// an f32 computation plus one unit in the last place of a 16-bit output.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_TESTS_DIFFERENTIAL_SOFTMAXFAMILYINPUTS_H
#define BLOCKJIT_TESTS_DIFFERENTIAL_SOFTMAXFAMILYINPUTS_H

#include "examples/kernels/Kernels.h"
#include "tests/differential/CaseHelpers.h"

#include <string>
#include <vector>

namespace blockjit::difftest::family {

/// A matrix shape and the strides its cases use: input rows 3 elements
/// longer than a row, output rows 5 longer (both masked tails and
/// different strides show).
struct Shape {
  int64_t rows, cols;
  int64_t inStride() const { return cols + 3; }
  int64_t outStride() const { return cols + 5; }
};

/// The shapes every row kernel runs: N = 1, 17, 781, 4097 (2^12 + 1) over
/// 9 rows (one per special row), and the irregular 1823 x 781.
inline std::vector<Shape> rowShapes() {
  std::vector<Shape> shapes;
  for (int64_t cols : kSizes)
    shapes.push_back({9, cols});
  shapes.push_back({1823, 781});
  return shapes;
}

/// rows x stride values, random normal (sd 10) with softmax's special rows
/// where there are enough rows: 0 all -inf; 1 a +inf; 2 a NaN; 3 +-1000;
/// 4 denormals (0 in f16); 5 small integers and one -inf; 6 a one-hot row
/// of 0 and -inf; the rest random. The padding after each row is NaN.
inline std::vector<double> specialRows(DType t, Shape s, int64_t stride,
                                       unsigned seed) {
  std::vector<double> v = floats(t, s.rows * stride, seed, false);
  auto at = [&](int64_t r, int64_t k) -> double & {
    return v[r * stride + std::min(k, s.cols - 1)];
  };
  auto special = [&](int64_t r) { return r < s.rows; };
  for (int64_t k = 0; k < s.cols; ++k) {
    if (special(0))
      at(0, k) = -kInf;
    if (special(3))
      at(3, k) = k % 2 ? 1000 : -1000;
    if (special(4))
      at(4, k) = k % 2 ? 1e-40 : -1e-40;
    if (special(5))
      at(5, k) = double(k % 7) - 3;
    if (special(6))
      at(6, k) = k == s.cols / 3 ? 0 : -kInf;
  }
  if (special(1))
    at(1, 2) = kInf;
  if (special(2))
    at(2, s.cols / 2) = kNaN;
  if (special(5))
    at(5, 0) = -kInf;
  // NaN in the padding between rows: a read past n_cols shows.
  for (int64_t r = 0; r < s.rows; ++r)
    for (int64_t k = s.cols; k < stride; ++k)
      v[r * stride + k] = kNaN;
  return v;
}

/// specialRows() with lines as columns, for the column softmax kernels:
/// column c of the rows x cols matrix (stride s.inStride()) is line c of
/// specialRows over a cols x rows shape (a column of -inf, a one-hot
/// column, ...); NaN in the padding.
inline std::vector<double> specialColumns(DType t, Shape s, unsigned seed) {
  std::vector<double> lines = specialRows(t, {s.cols, s.rows}, s.rows, seed);
  std::vector<double> v(s.rows * s.inStride(), kNaN);
  for (int64_t r = 0; r < s.rows; ++r)
    for (int64_t k = 0; k < s.cols; ++k)
      v[r * s.inStride() + k] = lines[k * s.rows + r];
  return v;
}

/// One unit in the last place of `t`, relative (1.5 x for margin): where
/// the kernel's f32 result and the double reference round apart.
inline double ulpOf(DType t) {
  return t == DType::F16 ? 1.5e-3 : t == DType::BF16 ? 1.2e-2 : 0;
}

/// An f32 bound `abs` + `rel` x |want| widened by one ulp of the output
/// type (and f16's subnormal step).
inline Tolerance outputTolerance(DType out, double abs, double rel,
                                 const char *rule) {
  return {abs + (out == DType::F16 ? 1e-7 : 0), rel + ulpOf(out), rule};
}

/// The case's name: kernel, input and output types, shape, variant.
inline std::string caseName(const std::string &kernel, DType in, DType out,
                            Shape s, const std::string &variant = "") {
  // Appended piece by piece (operator+ on a literal trips GCC 12's
  // -Wrestrict false positive).
  std::string name = kernel;
  name.append("_").append(suffix(in));
  if (out != in)
    name.append("_to_").append(suffix(out));
  name.append("_").append(std::to_string(s.rows));
  name.append("x").append(std::to_string(s.cols));
  if (!variant.empty())
    name.append("_").append(variant);
  return name;
}

/// The best-ranked num_warps of a row of `cols` elements of `in` (what an
/// untimed launch of the kernel's tuner runs on CUDA).
inline int rowNumWarps(int64_t cols, DType in) {
  return examples::softmaxRankedConfigs(next_power_of_2(cols),
                                        int(dtypeBytes(in)), Target::cuda(80))
      .front()
      .numWarps;
}

/// The dtype pairs every kernel runs: f32, f16 and bf16 in and out, and
/// bf16 in with f32 out (the output's type, not the input's, is stored).
inline std::vector<std::pair<DType, DType>> dtypePairs() {
  return {{DType::F32, DType::F32},
          {DType::F16, DType::F16},
          {DType::BF16, DType::BF16},
          {DType::BF16, DType::F32}};
}

/// Writes the `rows` x `cols` result `result` (stride `outStride`) into
/// buffer `out`, leaving the stride's padding (the sentinel) as it was.
inline void writeRows(std::vector<double> &out,
                      const std::vector<double> &result, Shape s,
                      int64_t outStride) {
  for (int64_t r = 0; r < s.rows; ++r)
    for (int64_t k = 0; k < s.cols; ++k)
      out[r * outStride + k] = result[r * outStride + k];
}

void addRowKernelCases(std::vector<Case> &cases);
void addColumnCases(std::vector<Case> &cases);
void addColumnSplitCases(std::vector<Case> &cases);
void addMaskedBackwardLayerNormCases(std::vector<Case> &cases);

} // namespace blockjit::difftest::family

#endif // BLOCKJIT_TESTS_DIFFERENTIAL_SOFTMAXFAMILYINPUTS_H
