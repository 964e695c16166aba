//===- RowsInput.h - inputs for row softmax --------------------*- C++ -*-===//
#ifndef BLOCKJIT_TESTS_COMMON_ROWSINPUT_H
#define BLOCKJIT_TESTS_COMMON_ROWSINPUT_H

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace blockjit {

/// `rows` x `cols` floats `stride` apart (padding -5): random in [-8, 8], row
/// 0 with a -inf, row 1 a NaN, row 2 3e38 and -3e38, the last row all -inf.
inline std::vector<float> rowsInput(int64_t rows, int64_t cols,
                                    int64_t stride) {
  std::vector<float> x(rows * stride, -5.0f);
  std::mt19937 rng(unsigned(rows * 31 + cols));
  std::uniform_real_distribution<float> dist(-8, 8);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      x[r * stride + c] = dist(rng);
  auto at = [&](int64_t r, int64_t c) -> float & { return x[r * stride + c]; };
  if (rows > 3) {
    at(0, cols / 2) = -INFINITY;
    at(1, cols / 3) = NAN;
    at(2, 0) = 3e38f;
    at(2, cols - 1) = -3e38f;
    for (int64_t c = 0; c < cols; ++c)
      at(rows - 1, c) = -INFINITY;
  }
  return x;
}

} // namespace blockjit

#endif // BLOCKJIT_TESTS_COMMON_ROWSINPUT_H
