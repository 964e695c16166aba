//===- SoftmaxChecks.h - softmax inputs and checks shared by CPU and GPU --===//
//
// What the CPU and GPU kernel tests both need to check a softmax against the
// double-precision reference: element conversions and tolerances of f32, f16
// and bf16, random row-strided inputs whose padding is NaN, and the
// comparison that reports the first bad elements. A shape is any struct with
// rows, cols, inStride and outStride (each test file adds its own launch
// fields).
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_TESTS_COMMON_SOFTMAXCHECKS_H
#define BLOCKJIT_TESTS_COMMON_SOFTMAXCHECKS_H

#include "dialect/DType.h"
#include "examples/kernels/Reference.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace blockjit::test {

/// A number with enough digits to tell close values apart.
inline std::string num(double x) {
  char text[64];
  std::snprintf(text, sizeof text, "%.9g", x);
  return text;
}

inline bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

template <typename T> double toDouble(T x) { return double(float(x)); }
template <> inline double toDouble<float>(float x) { return x; }
template <typename T> T fromFloat(float x) { return T(x); }

/// Max abs error of a softmax output of each type against the reference.
template <typename T> constexpr double tolerance = 1e-6;
template <> inline constexpr double tolerance<half> = 2e-3;
template <> inline constexpr double tolerance<bfloat16> = 1e-2;

template <typename T> const char *typeName();
template <> inline const char *typeName<float>() { return "f32"; }
template <> inline const char *typeName<half>() { return "f16"; }
template <> inline const char *typeName<bfloat16>() { return "bf16"; }

/// Bitwise equality (sentinels may be NaN).
template <typename T> bool sameBits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// Input with `rows` rows of `cols` random N(0, 3) values, `inStride` apart;
/// the padding between rows holds NaN so that reading it would show. The
/// buffer ends exactly at the last row's last element.
template <typename T, typename Shape>
std::vector<T> makeSoftmaxInput(const Shape &s, unsigned seed) {
  std::vector<T> input((s.rows - 1) * s.inStride + s.cols,
                       fromFloat<T>(std::numeric_limits<float>::quiet_NaN()));
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (int64_t r = 0; r < s.rows; ++r)
    for (int64_t c = 0; c < s.cols; ++c)
      input[r * s.inStride + c] = fromFloat<T>(normal(rng));
  return input;
}

/// Compares `output` with the reference on `input`: NaN where the reference
/// is NaN, else within `tol`. Returns the number of bad elements; describes
/// the first few in `report`.
template <typename Shape, typename In, typename Out>
int64_t checkSoftmax(const Shape &s, const In *input, const Out *output,
                     double tol, std::string &report, double *maxErrorOut) {
  std::vector<double> expected((s.rows - 1) * s.outStride + s.cols);
  examples::referenceSoftmax(input, expected.data(), s.rows, s.cols, s.inStride,
                             s.outStride, [](In x) { return toDouble(x); });
  int64_t bad = 0;
  double maxError = 0;
  for (int64_t r = 0; r < s.rows; ++r)
    for (int64_t c = 0; c < s.cols; ++c) {
      double want = expected[r * s.outStride + c];
      double got = toDouble(output[r * s.outStride + c]);
      bool ok;
      if (std::isnan(want)) {
        ok = std::isnan(got);
      } else {
        double error = std::abs(got - want);
        ok = error <= tol; // false for NaN
        if (ok)
          maxError = std::max(maxError, error);
      }
      if (!ok && ++bad <= 5)
        report += "  [" + std::to_string(r) + "][" + std::to_string(c) +
                  "]: got " + num(got) + ", want " + num(want) + "\n";
    }
  if (maxErrorOut)
    *maxErrorOut = maxError;
  return bad;
}

/// 8 rows of `cols` values for softmax's special cases (row-major, no
/// padding): row 0 some -inf (never all), row 1 all -inf but one (one-hot),
/// row 2 +-1000 (a naive exp overflows and underflows), row 3 all 1000
/// (uniform), row 4 a NaN at the end and row 6 one at the front (all NaN),
/// row 5 all -1000 but one -999, row 7 N(0, 2) values.
inline std::vector<float> specialValueRows(int64_t cols) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 2.0f);
  std::vector<float> values(8 * cols);
  for (float &x : values)
    x = normal(rng);
  auto at = [&](int64_t r, int64_t c) -> float & {
    return values[r * cols + c];
  };
  for (int64_t c = 1; c < cols; c += 3)
    at(0, c) = -inf;
  for (int64_t c = 0; c < cols; ++c) {
    at(1, c) = c == cols / 2 ? 0.5f : -inf;
    at(2, c) = (c % 2 ? 1000.0f : -1000.0f) + float(c % 5);
    at(3, c) = 1000.0f;
    at(5, c) = c == 0 ? -999.0f : -1000.0f;
  }
  at(4, cols - 1) = nan;
  at(6, 0) = nan;
  return values;
}

} // namespace blockjit::test

#endif // BLOCKJIT_TESTS_COMMON_SOFTMAXCHECKS_H
