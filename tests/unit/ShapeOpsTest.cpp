//===- ShapeOpsTest.cpp - reshape, trans/permute, join/split --------------===//
//
// The trace-time errors of the block shape operations (each naming the
// user's line), a rank-3 permute run on the CPU (any rank there), and the
// GPU's rank limit reported at specialization, naming the op and the target.
// Their numbers on both targets are in the differential suite
// (tests/differential/CasesShapes.cpp).
//
//===----------------------------------------------------------------------===//
#include "tests/unit/TraceTestUtil.h"

#include "compiler/Compile.h"
#include "compiler/Registration.h"
#include "runtime/Launch.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <functional>

using namespace blockjit;
using namespace blockjit::test;

namespace {

using Body = std::function<void(Ptr<float>, Ptr<int32_t>, Int)>;

class ShapeOpsTest : public TraceFixture {
protected:
  /// Traces `body` as kernel `name`(x: f32*, y: i32*, n: i32), which must
  /// fail; the error's text.
  std::string errorOf(const std::string &name, Body body) {
    auto kernel = jit(
        name, [body](Ptr<float> x, Ptr<int32_t> y, Int n) { body(x, y, n); },
        {"x", "y", "n"});
    return traceError(*kernel, makeKey({DType::F32, DType::I32, DType::I32}));
  }

  /// Whether `error` names this file, line `line` and says `message` there.
  static ::testing::AssertionResult reported(const std::string &error,
                                             const std::string &kernel,
                                             int line,
                                             const std::string &message) {
    std::string where = "kernel '" + kernel + "': " + __FILE__ + ":" +
                        std::to_string(line) + ": " + message;
    if (!contains(error, where))
      return ::testing::AssertionFailure()
             << "expected '" << where << "' in: " << error;
    return ::testing::AssertionSuccess();
  }

  int line = 0;
};

TEST_F(ShapeOpsTest, ReshapeChangesTheElementCount) {
  std::string error = errorOf("reshape_count", [&](auto x, auto, auto) {
    Tensor v = load(x + arange(0, 32));
    line = __LINE__ + 1;
    reshape(v, {4, 4});
  });
  EXPECT_TRUE(reported(error, "reshape_count", line,
                       "cannot reshape a block of shape [32] (32 elements) "
                       "to [4, 4]: the element count must stay"));
}

TEST_F(ShapeOpsTest, ReshapeToANonPowerOfTwo) {
  std::string error = errorOf("reshape_pow2", [&](auto x, auto, auto) {
    Tensor v = load(x + arange(0, 32));
    line = __LINE__ + 1;
    v.reshape({3, 8});
  });
  EXPECT_TRUE(
      reported(error, "reshape_pow2", line,
               "reshape: block dimensions must be powers of two, got [3, 8]"));
}

TEST_F(ShapeOpsTest, ReshapeOfAScalar) {
  std::string error = errorOf("reshape_scalar", [&](auto, auto, Int n) {
    line = __LINE__ + 1;
    reshape(n, {1});
  });
  EXPECT_TRUE(reported(error, "reshape_scalar", line,
                       "reshape needs a block, got a scalar of type i32"));
}

TEST_F(ShapeOpsTest, PermuteDimsAreNotAPermutation) {
  std::string error = errorOf("permute_dims", [&](auto x, auto, auto) {
    Tensor r = arange(0, 4).expand_dims(1) * 8 + arange(0, 8).expand_dims(0);
    Tensor v = load(x + r);
    line = __LINE__ + 1;
    permute(v, {1, 1});
  });
  EXPECT_TRUE(reported(error, "permute_dims", line,
                       "permute dims [1, 1] must be a permutation of 0..1 "
                       "(the block has rank 2)"));
  error = errorOf("permute_rank", [&](auto x, auto, auto) {
    Tensor v = load(x + arange(0, 8));
    line = __LINE__ + 1;
    v.permute({1, 0});
  });
  EXPECT_TRUE(reported(error, "permute_rank", line,
                       "permute dims [1, 0] must be a permutation of 0..0 "
                       "(the block has rank 1)"));
}

TEST_F(ShapeOpsTest, TransOfA1DBlock) {
  std::string error = errorOf("trans_1d", [&](auto x, auto, auto) {
    Tensor v = load(x + arange(0, 8));
    line = __LINE__ + 1;
    trans(v);
  });
  EXPECT_TRUE(reported(error, "trans_1d", line,
                       "trans transposes a 2-D block, got the block [8]; use "
                       "permute(x, dims) for other ranks"));
  error = errorOf("trans_scalar", [&](auto, auto, Int n) {
    line = __LINE__ + 1;
    n.trans();
  });
  EXPECT_TRUE(reported(error, "trans_scalar", line,
                       "trans transposes a 2-D block, got a scalar"));
}

TEST_F(ShapeOpsTest, JoinOfDifferentTypesOrShapes) {
  std::string error = errorOf("join_types", [&](auto x, auto y, auto) {
    Tensor a = load(x + arange(0, 8)), b = load(y + arange(0, 8));
    line = __LINE__ + 1;
    join(a, b);
  });
  EXPECT_TRUE(reported(error, "join_types", line,
                       "join needs two blocks of one element type, got f32 "
                       "and i32 (convert one with to() first)"));
  error = errorOf("join_shapes", [&](auto x, auto, auto) {
    Tensor a = load(x + arange(0, 8)), b = load(x + arange(0, 16));
    line = __LINE__ + 1;
    join(a, b);
  });
  EXPECT_TRUE(reported(error, "join_shapes", line,
                       "join: cannot broadcast blocks of shapes [8] and [16] "
                       "to one shape"));
  error = errorOf("join_scalars", [&](auto, auto, Int n) {
    line = __LINE__ + 1;
    join(n, n);
  });
  EXPECT_TRUE(reported(error, "join_scalars", line,
                       "join needs at least one block, got two scalars"));
}

TEST_F(ShapeOpsTest, JoinBroadcastsAScalar) {
  auto kernel = jit("join_scalar", [](Ptr<float> x, Int n) {
    Tensor v = load(x + arange(0, 8));
    Tensor j = join(v, n.to(DType::F32));
    store(x + arange(0, 8).expand_dims(1) * 2 + arange(0, 2).expand_dims(0), j);
  });
  auto module = traceOk(*kernel, makeKey({DType::F32, DType::I32}));
  ASSERT_TRUE(module);
  EXPECT_EQ(onlyResultType(*module, "blk.join"), "tensor<8x2xf32>");
}

TEST_F(ShapeOpsTest, SplitNeedsALastDimensionOf2) {
  std::string error = errorOf("split_last", [&](auto x, auto, auto) {
    Tensor r = arange(0, 4).expand_dims(1) * 8 + arange(0, 8).expand_dims(0);
    Tensor v = load(x + r);
    line = __LINE__ + 1;
    split(v);
  });
  EXPECT_TRUE(reported(error, "split_last", line,
                       "split needs a block of rank 2 or more whose last "
                       "dimension is 2, got the block [4, 8]"));
  error = errorOf("split_1d", [&](auto x, auto, auto) {
    Tensor v = load(x + arange(0, 2));
    line = __LINE__ + 1;
    auto [a, b] = split(v);
    store(x + arange(0, 2), a + b); // the failed values stay quiet
  });
  EXPECT_TRUE(reported(error, "split_1d", line,
                       "split needs a block of rank 2 or more whose last "
                       "dimension is 2, got the block [2]"));
}

// Any rank on the CPU: out[k][i][j] = x[i][j][k] for a 2x4x8 block.
TEST(ShapeOpsCPU, Rank3Permute) {
  auto kernel = jit("permute3d", [](Ptr<float> x, Ptr<float> out) {
    Tensor i = arange(0, 2).expand_dims(1).expand_dims(2);
    Tensor j = arange(0, 4).expand_dims(0).expand_dims(2);
    Tensor k = arange(0, 8).expand_dims(0).expand_dims(0);
    Tensor v = load(x + i * 32 + j * 8 + k); // [2, 4, 8]
    Tensor p = permute(v, {2, 0, 1});        // [8, 2, 4]
    Tensor oi = arange(0, 8).expand_dims(1).expand_dims(2);
    Tensor oj = arange(0, 2).expand_dims(0).expand_dims(2);
    Tensor ok = arange(0, 4).expand_dims(0).expand_dims(0);
    store(out + oi * 8 + oj * 4 + ok, p);
  });
  std::vector<float> x(64), out(64, -1);
  for (int e = 0; e < 64; ++e)
    x[e] = float(e);
  LaunchOptions options;
  options.grid = {1};
  options.target = TargetKind::CPU;
  llvm::Error error = launch(*kernel, options, {x.data(), out.data()});
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 8; ++k)
        EXPECT_EQ(out[k * 8 + i * 4 + j], x[i * 32 + j * 8 + k])
            << i << "," << j << "," << k;
}

// The GPU lays out blocks of any rank: a join of 2-D blocks (rank 3)
// compiles for CUDA to PTX, exchanging the halves through shared memory (the
// differential suite, CasesRank3.cpp, runs it).
TEST(ShapeOpsGPU, Rank3JoinCompilesForCUDA) {
  auto kernel = jit("join2d", [](Ptr<float> x) {
    Tensor r = arange(0, 4).expand_dims(1) * 8 + arange(0, 8).expand_dims(0);
    Tensor v = load(x + r);
    store(x + join(r, r + 32), join(v, v * 2));
  });
  mlir::DialectRegistry registry;
  registerDialects(registry);
  mlir::MLIRContext context(registry);
  auto module = kernel->trace(context, {DType::F32}, {}, 0);
  ASSERT_TRUE(bool(module)) << llvm::toString(module.takeError());
  CompileOptions options;
  options.target = Target::cuda(90);
  auto artifact = compileModule(**module, options, {}, "ptx");
  ASSERT_TRUE(bool(artifact)) << llvm::toString(artifact.takeError());
  EXPECT_TRUE(contains(artifact->binary, ".shared")) << artifact->binary;
  EXPECT_TRUE(contains(artifact->binary, "bar.sync")) << artifact->binary;
  // The joined 4x8x2 block goes through shared memory: at least its 64
  // elements of 4 bytes.
  EXPECT_GE(artifact->sharedMemoryBytes, 4 * 8 * 2 * 4);
}

} // namespace
