//===- ArgReduce.cpp - argmax/argmin: (value, index) pairs ---------------===//
//
// blk.arg_reduce carries (value, index) pairs through the steps of
// blk.reduce (Reduce.cpp): in-thread, butterfly shuffles of both halves of
// the pair across the warp, then across warps through shared memory for a
// 1-D block; through shared memory for a 2-D block. combineArgReduction
// (compiler/Reduction.h) picks the better pair and, on a tie, the smaller
// index, so the combining order does not matter. Replicas of a block smaller
// than the threads compete as the identity pair (index INT32_MAX), so they
// never win.
//
//===----------------------------------------------------------------------===//
#include "compiler/Reduction.h"
#include "compiler/gpu/ToNVVM/Lowering.h"

#include "dialect/BlkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace blockjit::nvvm {
namespace {

/// The index of a 1-D block's extreme, which every thread gets.
Value argReduce1D(OpBuilder &builder, Location loc, KernelState &kernel,
                  blk::ArgReduceOp reduce, ValueRange xs) {
  RankedTensorType srcType = reduce.getSrc().getType();
  Layout1D layout = layoutOf(srcType);
  Type valueType = argReductionValueType(srcType.getElementType());
  blk::ReduceKind kind = reduce.getKind();
  Value threadId = kernel.threadId;
  auto i32 = [&](int64_t v) { return i32Constant(builder, loc, v); };

  // 1. In-thread, in index order; replicas compete as the identity.
  auto [accValue, accIndex] =
      argReductionIdentity(builder, loc, kind, valueType);
  for (int64_t k = 0; k < layout.perThread(); ++k) {
    Value x = argReductionValue(builder, loc, xs[k]);
    Value index = elementIndex(builder, loc, threadId, layout, k);
    if (layout.replicated()) {
      auto [idValue, idIndex] =
          argReductionIdentity(builder, loc, kind, valueType);
      Value valid = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::slt,
          rawElementIndex(builder, loc, threadId, layout, k), i32(layout.size));
      x = arith::SelectOp::create(builder, loc, valid, x, idValue);
      index = arith::SelectOp::create(builder, loc, valid, index, idIndex);
    }
    std::tie(accValue, accIndex) =
        combineArgReduction(builder, loc, kind, accValue, accIndex, x, index);
  }
  // 2. Across the warp: butterfly shuffles of both halves of the pair.
  for (int offset = kWarpSize / 2; offset >= 1; offset /= 2) {
    Value otherValue =
        warpShuffle(builder, loc, accValue, offset, NVVM::ShflKind::bfly);
    Value otherIndex =
        warpShuffle(builder, loc, accIndex, offset, NVVM::ShflKind::bfly);
    std::tie(accValue, accIndex) = combineArgReduction(
        builder, loc, kind, accValue, accIndex, otherValue, otherIndex);
  }
  // 3. Across warps, as value and index arrays.
  if (kernel.numWarps > 1) {
    SmallVector<Value> total = combineAcrossWarps(
        builder, loc, kernel, {accValue, accIndex},
        [&] {
          auto [value, index] =
              argReductionIdentity(builder, loc, kind, valueType);
          return SmallVector<Value>{value, index};
        },
        [&](ValueRange acc, ValueRange next) {
          auto [value, index] = combineArgReduction(builder, loc, kind, acc[0],
                                                    acc[1], next[0], next[1]);
          return SmallVector<Value>{value, index};
        });
    accIndex = total[1];
  }
  return accIndex;
}

/// The indices of a 2-D block's extremes along an axis: every element goes
/// through shared memory, then each thread scans, in index order, the rows
/// or columns of the result elements it holds.
SmallVector<Value> argReduce2D(OpBuilder &builder, Location loc,
                               KernelState &kernel, blk::ArgReduceOp reduce,
                               ValueRange xs) {
  RankedTensorType srcType = reduce.getSrc().getType();
  Type valueType = argReductionValueType(srcType.getElementType());
  Value smem =
      publish(builder, loc, kernel, srcType, xs, valueType,
              [&](Value v) { return argReductionValue(builder, loc, v); });
  auto resultType = cast<RankedTensorType>(reduce.getType());
  Layout1D layout = layoutOf(resultType);
  int64_t axis = reduce.getAxis();
  blk::ReduceKind kind = reduce.getKind();
  SmallVector<Value> result;
  for (int64_t k = 0; k < layout.perThread(); ++k) {
    SmallVector<Value> outer =
        delinearize(builder, loc, resultType.getShape(),
                    elementIndex(builder, loc, kernel.threadId, layout, k));
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    Value ub =
        arith::ConstantIndexOp::create(builder, loc, srcType.getDimSize(axis));
    auto [initValue, initIndex] =
        argReductionIdentity(builder, loc, kind, valueType);
    auto loop = scf::ForOp::create(builder, loc, zero, ub, one,
                                   ValueRange{initValue, initIndex});
    {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(loop.getBody());
      Value index = arith::IndexCastOp::create(
          builder, loc, builder.getI32Type(), loop.getInductionVar());
      SmallVector<Value> indices(outer);
      indices.insert(indices.begin() + axis, index);
      Value x =
          readShared(builder, loc, smem, valueType,
                     linearize(builder, loc, srcType.getShape(), indices));
      auto [value, best] =
          combineArgReduction(builder, loc, kind, loop.getRegionIterArgs()[0],
                              loop.getRegionIterArgs()[1], x, index);
      scf::YieldOp::create(builder, loc, ValueRange{value, best});
    }
    result.push_back(loop.getResult(1));
  }
  programBarrier(builder, loc, kernel);
  return result;
}

struct ArgReduceLowering : KernelOpLowering<blk::ArgReduceOp> {
  using KernelOpLowering::KernelOpLowering;

  LogicalResult
  matchAndRewrite(blk::ArgReduceOp reduce, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = reduce.getLoc();
    if (reduce.getSrc().getType().getRank() > 1) {
      rewriter.replaceOpWithMultiple(
          reduce,
          {argReduce2D(rewriter, loc, kernel, reduce, adaptor.getSrc())});
      return success();
    }
    rewriter.replaceOp(
        reduce, argReduce1D(rewriter, loc, kernel, reduce, adaptor.getSrc()));
    return success();
  }
};

} // namespace

void populateArgReducePatterns(const BlockTypeConverter &converter,
                               RewritePatternSet &patterns,
                               KernelState &kernel) {
  patterns.add<ArgReduceLowering>(converter, patterns.getContext(), kernel);
}

} // namespace blockjit::nvvm
