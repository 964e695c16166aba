//===- CombineInterleavedTest.cpp - a thread's registers combined --------===//
//
// combineInterleaved (compiler/Reduction.h), which the GPU lowering uses to
// combine the registers a thread holds: every value enters the result
// exactly once, for any count of values and partials, and the longest
// chain of dependent combines is values / partials - 1 + log2(partials).
// The values are i64 constants 2^k, so a sum shows any value dropped or
// counted twice; the built ops are evaluated here.
//
//===----------------------------------------------------------------------===//
#include "compiler/Reduction.h"
#include "compiler/Registration.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MathExtras.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace mlir;
using namespace blockjit;

namespace {

class CombineInterleavedTest : public ::testing::Test {
protected:
  CombineInterleavedTest() : builder(&context) {
    DialectRegistry registry;
    registerDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module.getBody());
  }
  ~CombineInterleavedTest() override { module.erase(); }

  /// The value `v` computes: constants, and the adds and maxes combines
  /// build. `depth` receives the longest chain of combines below it.
  static int64_t evaluate(Value v, int64_t &depth) {
    Operation *op = v.getDefiningOp();
    if (auto constant = dyn_cast<arith::ConstantIntOp>(op)) {
      depth = 0;
      return constant.value();
    }
    int64_t lhsDepth, rhsDepth;
    int64_t lhs = evaluate(op->getOperand(0), lhsDepth);
    int64_t rhs = evaluate(op->getOperand(1), rhsDepth);
    depth = 1 + std::max(lhsDepth, rhsDepth);
    if (isa<arith::AddIOp>(op))
      return lhs + rhs;
    if (isa<arith::MaxSIOp>(op))
      return std::max(lhs, rhs);
    ADD_FAILURE() << "unexpected op " << op->getName().getStringRef().str();
    return 0;
  }

  MLIRContext context;
  OpBuilder builder;
  ModuleOp module;
};

TEST_F(CombineInterleavedTest, EveryValueOnceAndShortChains) {
  Location loc = builder.getUnknownLoc();
  for (int64_t count = 1; count <= 40; ++count)
    for (int64_t partials = 1; partials <= 9; ++partials) {
      SmallVector<Value> values;
      for (int64_t k = 0; k < count; ++k)
        values.push_back(
            arith::ConstantIntOp::create(builder, loc, int64_t(1) << k, 64));
      int64_t depth;
      Value sum = combineInterleaved(builder, loc, blk::ReduceKind::Sum,
                                     values, partials);
      EXPECT_EQ(evaluate(sum, depth), (int64_t(1) << count) - 1)
          << count << " values, " << partials << " partials";
      int64_t used = std::min(count, partials);
      int64_t longest = llvm::divideCeil(count, used) - 1 +
                        int64_t(llvm::Log2_64_Ceil(uint64_t(used)));
      EXPECT_EQ(depth, longest)
          << count << " values, " << partials << " partials";
      Value max = combineInterleaved(builder, loc, blk::ReduceKind::Max,
                                     values, partials);
      EXPECT_EQ(evaluate(max, depth), int64_t(1) << (count - 1));
    }
}

// 128 registers in 4 partials (a bf16 row of 262144 on 16 CTAs of 4 warps):
// 33 dependent combines instead of 127.
TEST_F(CombineInterleavedTest, ARowOf128RegistersIsAChainOf33) {
  Location loc = builder.getUnknownLoc();
  SmallVector<Value> values;
  for (int64_t k = 0; k < 128; ++k)
    values.push_back(arith::ConstantIntOp::create(builder, loc, k, 64));
  int64_t depth;
  Value sum =
      combineInterleaved(builder, loc, blk::ReduceKind::Sum, values, 4);
  EXPECT_EQ(evaluate(sum, depth), 127 * 128 / 2);
  EXPECT_EQ(depth, 33);
}

} // namespace
