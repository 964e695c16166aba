//===- TileKernel.h - a 2-D block kernel and its check, for every target -*- C++ -*-===//
//
// Tile transpose plus max/sum along both axes of each BM x BN tile: 2-D
// ranges through expand_dims and broadcasting, 2-D masks, 2-D loads and
// stores, and reductions along axis 0 and 1. Shared by the CPU and GPU
// tests; the caller runs the kernel on a TileData's buffers.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_TESTS_COMMON_TILEKERNEL_H
#define BLOCKJIT_TESTS_COMMON_TILEKERNEL_H

#include "frontend/blockjit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace blockjit::tests {

inline void tile_kernel(Ptr<float> in, Ptr<float> out_t, Ptr<float> row_max,
                        Ptr<float> row_sum, Ptr<float> col_max,
                        Ptr<float> col_sum, Int M, Int N, Int in_stride,
                        Int out_stride, Constexpr BM, Constexpr BN) {
  Int pid_m = program_id(0);
  Int pid_n = program_id(1);
  Tensor rows = pid_m * BM + arange(0, BM); // (BM)
  Tensor cols = pid_n * BN + arange(0, BN); // (BN)
  Tensor r2 = rows.expand_dims(1);          // (BM, 1)
  Tensor c2 = cols.expand_dims(0);          // (1, BN)
  Tensor mask = (r2 < M) & (c2 < N);        // (BM, BN)
  Tensor x = load(in + r2 * in_stride + c2, mask, 0.0);
  // out_t is N x M: out_t[c][r] = in[r][c].
  store(out_t + c2 * out_stride + r2, x, mask);
  Tensor masked = where(mask, x, -INFINITY);
  // Partial reductions of this tile: row ones per column tile, column ones
  // per row tile.
  store(row_max + pid_n * M + rows, max(masked, 1), rows < M);
  store(row_sum + pid_n * M + rows, sum(x, 1), rows < M);
  store(col_max + pid_m * N + cols, max(masked, 0), cols < N);
  store(col_sum + pid_m * N + cols, sum(x, 0), cols < N);
}

inline const KernelDef &tileKernel() {
  static auto kernel =
      jit("tile_2d", tile_kernel,
          {"in", "out_t", "row_max", "row_sum", "col_max", "col_sum", "M", "N",
           "in_stride", "out_stride", "BM", "BN"});
  return *kernel;
}

/// Inputs, sentinel-filled outputs and the launch geometry of one check.
struct TileData {
  static constexpr float kSentinel = 4242.0f;
  int64_t M, N, BM, BN, inStride, outStride, tilesM, tilesN;
  std::vector<float> in, outT, rowMax, rowSum, colMax, colSum;

  TileData(int64_t M, int64_t N, int64_t BM, int64_t BN)
      : M(M), N(N), BM(BM), BN(BN), inStride(N + 3), outStride(M + 5),
        tilesM((M + BM - 1) / BM), tilesN((N + BN - 1) / BN) {
    // Multiples of 1/8 in [-8, 8]: every partial sum is exact in f32.
    std::mt19937 rng(M * 1000 + N);
    std::uniform_int_distribution<int> k(-64, 64);
    in.assign(M * inStride, std::numeric_limits<float>::quiet_NaN());
    for (int64_t r = 0; r < M; ++r)
      for (int64_t c = 0; c < N; ++c)
        in[r * inStride + c] = float(k(rng)) / 8.0f;
    outT.assign(N * outStride, kSentinel);
    rowMax.assign(tilesN * M, kSentinel);
    rowSum.assign(tilesN * M, kSentinel);
    colMax.assign(tilesM * N, kSentinel);
    colSum.assign(tilesM * N, kSentinel);
  }
  Grid grid() const { return {int(tilesM), int(tilesN)}; }
  /// The scalar and constexpr arguments after the six pointers.
  std::vector<Arg> tail() const {
    return {int32_t(M),        int32_t(N),   int32_t(inStride),
            int32_t(outStride), Constexpr(BM), Constexpr(BN)};
  }

  /// Compares every output with a plain C++ reference (exact sums).
  void check() const {
    int64_t bad = 0;
    auto expectValue = [&](const char *what, int64_t i, int64_t j, double got,
                           double want) {
      if (!(std::abs(got - want) <= 1e-6) && ++bad <= 8)
        ADD_FAILURE() << what << "[" << i << "][" << j << "] = " << got
                      << ", want " << want;
    };
    for (int64_t c = 0; c < N; ++c)
      for (int64_t r = 0; r < outStride; ++r) {
        if (r < M)
          expectValue("out_t", c, r, outT[c * outStride + r],
                      in[r * inStride + c]);
        else if (outT[c * outStride + r] != kSentinel && ++bad <= 8)
          ADD_FAILURE() << "out_t padding [" << c << "][" << r << "] written";
      }
    for (int64_t tn = 0; tn < tilesN; ++tn)
      for (int64_t r = 0; r < M; ++r) {
        double maximum = -INFINITY, total = 0;
        for (int64_t c = tn * BN; c < std::min(N, (tn + 1) * BN); ++c) {
          maximum = std::max(maximum, double(in[r * inStride + c]));
          total += in[r * inStride + c];
        }
        expectValue("row_max", tn, r, rowMax[tn * M + r], maximum);
        expectValue("row_sum", tn, r, rowSum[tn * M + r], total);
      }
    for (int64_t tm = 0; tm < tilesM; ++tm)
      for (int64_t c = 0; c < N; ++c) {
        double maximum = -INFINITY, total = 0;
        for (int64_t r = tm * BM; r < std::min(M, (tm + 1) * BM); ++r) {
          maximum = std::max(maximum, double(in[r * inStride + c]));
          total += in[r * inStride + c];
        }
        expectValue("col_max", tm, c, colMax[tm * N + c], maximum);
        expectValue("col_sum", tm, c, colSum[tm * N + c], total);
      }
    EXPECT_EQ(bad, 0);
  }
};

/// The shapes both backends are checked on: M x N with BM x BN tiles.
inline const std::vector<std::array<int64_t, 4>> &tileShapes() {
  static const std::vector<std::array<int64_t, 4>> shapes = {
      {50, 70, 16, 32}, {16, 32, 16, 32}, {1, 1, 16, 32},
      {33, 5, 8, 4},    {7, 130, 4, 64},  {100, 100, 64, 64}};
  return shapes;
}

} // namespace blockjit::tests

#endif // BLOCKJIT_TESTS_COMMON_TILEKERNEL_H
