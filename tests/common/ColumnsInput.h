//===- ColumnsInput.h - inputs for softmax over dim 0 ----------*- C++ -*-===//
#ifndef BLOCKJIT_TESTS_COMMON_COLUMNSINPUT_H
#define BLOCKJIT_TESTS_COMMON_COLUMNSINPUT_H

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace blockjit {

/// A rows x cols matrix with row stride `stride`: normal values (sd 3), a
/// column of -inf (its softmax is NaN), a column mostly -inf, a NaN and a
/// value near FLT_MAX; 12345 in the padding between rows (never read).
inline std::vector<float> columnsInput(int64_t rows, int64_t cols,
                                       int64_t stride, unsigned seed = 7) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0, 3);
  std::vector<float> x(rows * stride, 12345.0f);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      x[r * stride + c] = normal(rng);
  for (int64_t r = 0; r < rows; ++r) {
    x[r * stride] = -INFINITY;
    if (cols > 2 && r % 3)
      x[r * stride + 2] = -INFINITY;
  }
  if (cols > 3)
    x[(rows / 2) * stride + 3] = NAN;
  if (cols > 4)
    x[(rows - 1) * stride + 4] = 3e38f;
  return x;
}

} // namespace blockjit

#endif // BLOCKJIT_TESTS_COMMON_COLUMNSINPUT_H
