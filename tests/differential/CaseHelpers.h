//===- CaseHelpers.h - inputs and rules the differential cases share -*- C++
//-*-===//
//
// The input generators (floats with the trial's edge cases, integers with
// extremes), sentinel-filled outputs, the standard sizes and tolerances, and
// the case families: each family lives in its own Cases*.cpp and is listed in
// allCases() (Cases.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_TESTS_DIFFERENTIAL_CASEHELPERS_H
#define BLOCKJIT_TESTS_DIFFERENTIAL_CASEHELPERS_H

#include "tests/differential/Harness.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace blockjit::difftest {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kSentinel = 77;
inline constexpr int64_t kBlock = 256;
inline constexpr int64_t kSizes[] = {1, 17, 781, 4097};

inline const Tolerance kExact = {0, 0, "exact"};
inline const Tolerance kDiv = {0, 2.5e-7, "2 ulp (rel 2.5e-7)"};

inline int64_t blocks(int64_t n, int64_t block = kBlock) {
  return (n + block - 1) / block;
}

/// Wraps an integer result to `type` as two's complement arithmetic does.
inline double wrap(DType type, double v) {
  int64_t x = int64_t(v);
  switch (type) {
  case DType::I8:
    return int8_t(x);
  case DType::I16:
    return int16_t(x);
  case DType::I32:
    return int32_t(x);
  default:
    return double(x);
  }
}

/// Float values with the trial's edge cases mixed into random ones: every
/// third element is 0, -0, +-1, +-1000, +-inf, NaN, a denormal of `type`,
/// a large value or 0.1; the others are normal with standard deviation 10.
inline std::vector<double> floats(DType type, int64_t n, unsigned seed,
                                  bool special = true) {
  double denormal = type == DType::F16 ? 3e-6 : 1e-40;
  double large = type == DType::F16 ? 6e4 : 1e30;
  const double edges[] = {0,     -0.0, 1,        -1,        1000,  -1000,  kInf,
                          -kInf, kNaN, denormal, -denormal, large, -large, 0.1};
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal(0, 10);
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i)
    v[i] = special && i % 3 == 1 ? edges[(i / 3 + seed) % std::size(edges)]
                                 : normal(rng);
  return v;
}

/// Integers of `type` (for i64 within +-2^40), every fifth one an extreme.
inline std::vector<double> ints(DType type, int64_t n, unsigned seed,
                                int64_t limit = 0) {
  int64_t hi = type == DType::I8    ? 127
               : type == DType::I16 ? 32767
               : type == DType::I32 ? 2147483647
                                    : (int64_t(1) << 40);
  if (limit)
    hi = std::min(hi, limit);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> dist(-hi, hi);
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i)
    v[i] = i % 5 == 2 ? (i % 2 ? hi : -hi) : double(dist(rng));
  return v;
}

inline std::vector<double> values(DType type, int64_t n, unsigned seed) {
  return isFloat(type) ? floats(type, n, seed) : ints(type, n, seed);
}

/// A rows x stride buffer of random floats (no special values) whose first
/// six rows are softmax's edge cases: all -inf, a +inf, a NaN, +-1000,
/// denormals, small integers with one -inf. Needs rows >= 6.
inline std::vector<double> softmaxSpecialRows(DType type, int64_t rows,
                                              int64_t cols, int64_t stride) {
  std::vector<double> in = floats(type, rows * stride, unsigned(cols), false);
  auto at = [&](int64_t r, int64_t k) -> double & {
    return in[r * stride + std::min(k, cols - 1)];
  };
  for (int64_t k = 0; k < cols; ++k) {
    at(0, k) = -kInf;                  // all -inf
    at(3, k) = k % 2 ? 1000 : -1000;   // +-1000
    at(4, k) = k % 2 ? 1e-40 : -1e-40; // denormals
    at(5, k) = double(k % 7) - 3;
  }
  at(1, 2) = kInf;        // +inf in a row
  at(2, cols / 2) = kNaN; // NaN in a row
  at(5, 0) = -kInf;       // one -inf
  return in;
}

inline std::vector<double> sentinel(int64_t n) {
  return std::vector<double>(n, kSentinel);
}

inline std::string suffix(DType type) { return std::string(dtypeName(type)); }

/// The arguments of a kernel over a rows x cols tile of buffer 0 into
/// buffer 1: (in, out, n_rows, n_cols, RB, CB), the blocks the next powers
/// of two.
inline std::vector<ArgSpec> tileArgs(int64_t rows, int64_t cols) {
  return {bufArg(0),
          bufArg(1),
          i32Arg(int32_t(rows)),
          i32Arg(int32_t(cols)),
          constArg(next_power_of_2(rows)),
          constArg(next_power_of_2(cols))};
}

/// Appends, after all of `cases`, a changed copy of every `stride`-th
/// one-CTA case whose name starts with `prefix`, for each (prefix, stride)
/// of `picks`: `vary(copy, turn)` changes it, `turn` counting that prefix's
/// picks from 0 (each prefix from its own first case, so that cases added
/// under one prefix leave the others' picks as they were), and drops it by
/// returning false.
inline void
addVariedCopies(std::vector<Case> &cases,
                std::initializer_list<std::pair<const char *, int>> picks,
                const std::function<bool(Case &, int turn)> &vary) {
  std::vector<Case> copies;
  for (auto [prefix, stride] : picks) {
    int seen = 0, turn = 0;
    for (const Case &c : cases) {
      if (c.name.rfind(prefix, 0) != 0 || c.numCTAs > 1)
        continue;
      if (seen++ % stride)
        continue;
      Case copy = c;
      if (vary(copy, turn++))
        copies.push_back(std::move(copy));
    }
  }
  for (Case &c : copies)
    cases.push_back(std::move(c));
}

//===----------------------------------------------------------------------===//
// Case families (one Cases*.cpp each)
//===----------------------------------------------------------------------===//

void addElementwiseCases(std::vector<Case> &cases);
void addMemoryCases(std::vector<Case> &cases);
void addStructureCases(std::vector<Case> &cases);
void addReductionCases(std::vector<Case> &cases);
void addExampleCases(std::vector<Case> &cases);
/// The kernels of issue 12's user trial (CasesTrialKernels.cpp).
void addTrialKernelCases(std::vector<Case> &cases);
/// In-place increments that count each store (CasesStoreOnce.cpp).
void addStoreOnceCases(std::vector<Case> &cases);
/// reshape, trans/permute, join/split; saturating casts (CasesShapes.cpp).
void addShapesCases(std::vector<Case> &cases);
/// argmax/argmin, exact float %, f64 exp/log (CasesArgMath.cpp).
void addArgMathCases(std::vector<Case> &cases);
void addAtomicsCases(std::vector<Case> &cases);
void addScanCases(std::vector<Case> &cases);
/// f64 sin, cos, tanh, erf, pow, sigmoid (CasesF64Math.cpp).
void addF64MathCases(std::vector<Case> &cases);
/// The softmax_online example kernel (CasesOnlineSoftmax.cpp).
void addOnlineSoftmaxCases(std::vector<Case> &cases);
/// log_softmax, softmax_temperature, softmax_scale, softmax_masked,
/// softmax_causal, softmax_columns, softmax_backward and layernorm
/// (CasesSoftmaxFamily.cpp, CasesSoftmaxColumns.cpp,
/// CasesMaskedBackwardLayerNorm.cpp).
void addSoftmaxFamilyCases(std::vector<Case> &cases);
/// layernorm on rows whose hoisted weight and bias blk-stage-in-shared keeps
/// in shared memory; added after the programs-per-CTA copies, so that the
/// cases those copy stay the same.
void addWideLayerNormCases(std::vector<Case> &cases);
/// Blocks of rank 3 and 4: loads, stores, broadcasts, reductions, scans,
/// join/split, permute/reshape, atomics (CasesRank3.cpp).
void addRank3Cases(std::vector<Case> &cases);
/// 2-D tiles reducing along an axis and broadcasting back (CasesTiles2D.cpp).
void addTiles2DCases(std::vector<Case> &cases);
/// Copies of earlier cases with 2, 4 or 8 programs per CTA
/// (CasesProgramsPerCTA.cpp).
void addProgramsPerCTACases(std::vector<Case> &cases);
/// Rows of 2-byte elements on odd strides, on one warp: words shifted by an
/// element where a row starts mid-word (CasesWordPairs.cpp).
void addWordPairsCases(std::vector<Case> &cases);
/// Copies of the row kernels' cases with a config's eviction hints
/// (CasesDefaultEviction.cpp).
void addDefaultEvictionCases(std::vector<Case> &cases);
/// Row loops whose masks have a prefix term that changes with the row
/// (CasesPrefixMasks.cpp).
void addPrefixMasksCases(std::vector<Case> &cases);
/// Hinted loads and stores of every access width (CasesEviction.cpp).
void addEvictionCases(std::vector<Case> &cases);
/// Copies of the row kernels' and columns' cases with a register cap
/// (CasesRegisterCap.cpp).
void addRegisterCapCases(std::vector<Case> &cases);

} // namespace blockjit::difftest

#endif // BLOCKJIT_TESTS_DIFFERENTIAL_CASEHELPERS_H
