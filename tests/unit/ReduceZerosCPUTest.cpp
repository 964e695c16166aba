//===- ReduceZerosCPUTest.cpp - float max/min reductions on the CPU -------===//
//
// The CPU loops take float max and min reductions without signed zeros (a
// vector max is then one instruction) and recompute a zero result exactly
// (compiler/cpu/BlkToLoops.cpp, finishReduction). IEEE maximum(-0, +0) is
// +0 and minimum is -0 whatever the order, NaN wins, and ties of other
// values are plain: checked here on blocks whose reduction is fused into
// the load (1-D, any length) and on rows of a 2-D block.
//
//===----------------------------------------------------------------------===//
#include "frontend/blockjit.h"
#include "runtime/Launch.h"

#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

using namespace blockjit;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

/// out[0] = max, out[1] = min of in[0, n) (a masked 1-D block of 64).
KernelDef &reduce1DKernel() {
  static auto kernel =
      jit("reduce_zeros_1d", [](Ptr<float> in, Ptr<float> out, Int n) {
        Tensor i = arange(0, 64);
        Tensor x = load(in + i, i < n, -INFINITY);
        Tensor y = load(in + i, i < n, INFINITY);
        store(out, max(x));
        store(out + 1, min(y));
      });
  return *kernel;
}

/// out[r] = max of row r, out[4 + r] = min of row r of a 4 x 16 block.
KernelDef &reduceRowsKernel() {
  static auto kernel =
      jit("reduce_zeros_rows", [](Ptr<float> in, Ptr<float> out) {
        Tensor r = arange(0, 4);
        Tensor c = arange(0, 16);
        Tensor x = load(in + (r.expand_dims(1) * 16 + c.expand_dims(0)));
        store(out + r, max(x, 1));
        store(out + 4 + r, min(x, 1));
      });
  return *kernel;
}

LaunchOptions cpu() {
  LaunchOptions options;
  options.grid = {1};
  options.target = TargetKind::CPU;
  return options;
}

/// {max, min} of `in` through the 1-D kernel.
std::vector<float> reduce1D(std::vector<float> in) {
  std::vector<float> out = {7, 7};
  int32_t n = int32_t(in.size());
  in.resize(64, 0.0f);
  if (llvm::Error error =
          launch(reduce1DKernel(), cpu(), {in.data(), out.data(), n}))
    ADD_FAILURE() << llvm::toString(std::move(error));
  return out;
}

/// Bitwise equality, so that -0 and +0 differ and NaN equals NaN.
::testing::AssertionResult sameFloat(float got, float want) {
  bool same = std::isnan(got)
                  ? std::isnan(want)
                  : std::signbit(got) == std::signbit(want) && got == want;
  if (same)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "got " << got << " (sign " << std::signbit(got) << "), want "
         << want;
}

TEST(ReduceZerosCPU, MaxPrefersPositiveZeroAndMinNegative) {
  for (int n : {2, 17, 33, 64})
    for (int positive = 0; positive < n; positive += 7) {
      std::vector<float> x(n, -0.0f);
      x[positive] = 0.0f;
      std::vector<float> out = reduce1D(x);
      EXPECT_TRUE(sameFloat(out[0], 0.0f)) << "max, n = " << n;
      EXPECT_TRUE(sameFloat(out[1], -0.0f)) << "min, n = " << n;
    }
}

TEST(ReduceZerosCPU, AllZerosOfOneSign) {
  std::vector<float> out = reduce1D(std::vector<float>(33, -0.0f));
  EXPECT_TRUE(sameFloat(out[0], -0.0f));
  EXPECT_TRUE(sameFloat(out[1], -0.0f));
  out = reduce1D(std::vector<float>(33, 0.0f));
  EXPECT_TRUE(sameFloat(out[0], 0.0f));
  EXPECT_TRUE(sameFloat(out[1], 0.0f));
}

TEST(ReduceZerosCPU, NaNAndOrdinaryValues) {
  std::vector<float> x = {-3, 5, -0.0f, 2, 0.0f, -7, 5};
  std::vector<float> out = reduce1D(x);
  EXPECT_TRUE(sameFloat(out[0], 5.0f));
  EXPECT_TRUE(sameFloat(out[1], -7.0f));
  x[3] = kNaN;
  out = reduce1D(x);
  EXPECT_TRUE(sameFloat(out[0], kNaN));
  EXPECT_TRUE(sameFloat(out[1], kNaN));
  // A NaN beside zeros: NaN, not a zero.
  out = reduce1D({0.0f, kNaN, -0.0f});
  EXPECT_TRUE(sameFloat(out[0], kNaN));
  EXPECT_TRUE(sameFloat(out[1], kNaN));
}

TEST(ReduceZerosCPU, RowsOfA2DBlock) {
  std::vector<float> in(64, -0.0f), out(8, 7.0f);
  in[16 + 9] = 0.0f; // row 1: a +0 among -0
  for (int c = 0; c < 16; ++c)
    in[32 + c] = 0.0f; // row 2: all +0
  in[48 + 3] = kNaN;   // row 3: NaN
  if (llvm::Error error =
          launch(reduceRowsKernel(), cpu(), {in.data(), out.data()}))
    FAIL() << llvm::toString(std::move(error));
  EXPECT_TRUE(sameFloat(out[0], -0.0f));
  EXPECT_TRUE(sameFloat(out[1], 0.0f));
  EXPECT_TRUE(sameFloat(out[2], 0.0f));
  EXPECT_TRUE(sameFloat(out[3], kNaN));
  EXPECT_TRUE(sameFloat(out[4], -0.0f));
  EXPECT_TRUE(sameFloat(out[5], -0.0f));
  EXPECT_TRUE(sameFloat(out[6], 0.0f));
  EXPECT_TRUE(sameFloat(out[7], kNaN));
}

} // namespace
