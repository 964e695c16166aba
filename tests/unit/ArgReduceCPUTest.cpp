//===- ArgReduceCPUTest.cpp - argmax/argmin of rank-3 blocks on the CPU ---===//
//
// The differential suite runs argmax and argmin of 1-D and 2-D blocks
// (CasesArgMath.cpp) and of 3-D blocks (CasesRank3.cpp) on both targets.
// Of rank 3 and more, argmax/argmin without an axis take their own path
// (the extreme by max/min, then the smallest row-major index holding it):
// tested here on the CPU as well.
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

/// out[0] = argmax of the 2x4x8 block `in`, out[1] = its argmin.
KernelDef &argReduce3DKernel() {
  static auto kernel = jit("argreduce_3d", [](Ptr<float> in, Ptr<int32_t> out) {
    Tensor i = arange(0, 2).expand_dims(1).expand_dims(2);
    Tensor j = arange(0, 4).expand_dims(0).expand_dims(2);
    Tensor k = arange(0, 8).expand_dims(0).expand_dims(1);
    Tensor x = load(in + (i * 32 + j * 8 + k));
    store(out, argmax(x));
    store(out + 1, argmin(x));
  });
  return *kernel;
}

/// argmax and argmin of 64 elements as the CPU computes them.
std::pair<int, int> run(const std::vector<float> &in) {
  std::vector<int32_t> out = {-7, -7};
  LaunchOptions options;
  options.grid = {1};
  options.target = TargetKind::CPU;
  if (llvm::Error error =
          launch(argReduce3DKernel(), options,
                 {const_cast<float *>(in.data()), out.data()})) {
    ADD_FAILURE() << llvm::toString(std::move(error));
    return {-1, -1};
  }
  return {out[0], out[1]};
}

TEST(ArgReduceCPU, Rank3WithoutAxisGivesTheFirstRowMajorIndex) {
  constexpr float nan = std::numeric_limits<float>::quiet_NaN();
  constexpr float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x(64, 1.0f);
  EXPECT_EQ(run(x), std::make_pair(0, 0)); // all equal: the first
  x[37] = 5;
  x[50] = 5;
  x[12] = -2;
  x[60] = -2;
  EXPECT_EQ(run(x), std::make_pair(37, 12)); // ties: the first
  x[44] = nan;
  x[20] = nan;
  EXPECT_EQ(run(x), std::make_pair(20, 20)); // the first NaN, for both
  std::vector<float> negInf(64, -inf);
  EXPECT_EQ(run(negInf), std::make_pair(0, 0));
  std::vector<float> zeros(64, -1.0f);
  zeros[9] = -0.0f;
  zeros[3] = 0.0f;
  EXPECT_EQ(run(zeros).first, 3); // -0.0 == 0.0: the first of the two
}

} // namespace
