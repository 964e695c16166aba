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

/// A butterfly shuffle of a 32- or 64-bit value (64 bits as two halves).
Value shuffleXor(OpBuilder &builder, Location loc, Value value, int offset) {
  Value all = i32Constant(builder, loc, -1);
  Value clamp = i32Constant(builder, loc, kWarpSize - 1);
  Value lane = i32Constant(builder, loc, offset);
  Type type = value.getType();
  auto shfl = [&](Value v) -> Value {
    return NVVM::ShflOp::create(builder, loc, v.getType(), all, v, lane, clamp,
                                NVVM::ShflKind::bfly, UnitAttr());
  };
  if (type.getIntOrFloatBitWidth() == 32)
    return shfl(value);
  Type i32 = builder.getI32Type(), i64 = builder.getI64Type();
  Value bits = isa<FloatType>(type)
                   ? Value(arith::BitcastOp::create(builder, loc, i64, value))
                   : value;
  Value c32 = arith::ConstantIntOp::create(builder, loc, 32, 64);
  Value lo = shfl(arith::TruncIOp::create(builder, loc, i32, bits));
  Value hi = shfl(arith::TruncIOp::create(
      builder, loc, i32, arith::ShRUIOp::create(builder, loc, bits, c32)));
  Value joined = arith::OrIOp::create(
      builder, loc, arith::ExtUIOp::create(builder, loc, i64, lo),
      arith::ShLIOp::create(
          builder, loc, arith::ExtUIOp::create(builder, loc, i64, hi), c32));
  return isa<FloatType>(type)
             ? Value(arith::BitcastOp::create(builder, loc, type, joined))
             : joined;
}

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
    Value otherValue = shuffleXor(builder, loc, accValue, offset);
    Value otherIndex = shuffleXor(builder, loc, accIndex, offset);
    std::tie(accValue, accIndex) = combineArgReduction(
        builder, loc, kind, accValue, accIndex, otherValue, otherIndex);
  }
  // 3. Across warps: lane 0 of each warp publishes its pair (values, then
  // indices, in one scratch array), everyone combines them.
  if (kernel.numWarps > 1) {
    int64_t valueBytes = valueType.getIntOrFloatBitWidth() / 8;
    Type i8 = builder.getI8Type(), indexType = builder.getI32Type();
    Value smem = kernel.scratch.get(builder, loc, i8,
                                    kernel.numWarps * (valueBytes + 4));
    auto ptrType = LLVM::LLVMPointerType::get(builder.getContext(), 3);
    Value indices = LLVM::GEPOp::create(
        builder, loc, ptrType, i8, smem,
        ArrayRef<LLVM::GEPArg>{int32_t(kernel.numWarps * valueBytes)});
    Value lane =
        arith::AndIOp::create(builder, loc, threadId, i32(kWarpSize - 1));
    Value warp = arith::ShRUIOp::create(builder, loc, threadId,
                                        i32(llvm::Log2_32(kWarpSize)));
    Value isLeader = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::eq, lane, i32(0));
    {
      OpBuilder::InsertionGuard guard(builder);
      auto ifOp = scf::IfOp::create(builder, loc, isLeader);
      builder.setInsertionPointToStart(ifOp.thenBlock());
      LLVM::StoreOp::create(builder, loc, accValue,
                            LLVM::GEPOp::create(builder, loc, ptrType,
                                                valueType, smem,
                                                ValueRange{warp}));
      LLVM::StoreOp::create(builder, loc, accIndex,
                            LLVM::GEPOp::create(builder, loc, ptrType,
                                                indexType, indices,
                                                ValueRange{warp}));
    }
    NVVM::Barrier0Op::create(builder, loc);
    std::tie(accValue, accIndex) =
        argReductionIdentity(builder, loc, kind, valueType);
    for (int w = 0; w < kernel.numWarps; ++w) {
      Value v = LLVM::LoadOp::create(
          builder, loc, valueType,
          LLVM::GEPOp::create(builder, loc, ptrType, valueType, smem,
                              ArrayRef<LLVM::GEPArg>{w}));
      Value i = LLVM::LoadOp::create(
          builder, loc, indexType,
          LLVM::GEPOp::create(builder, loc, ptrType, indexType, indices,
                              ArrayRef<LLVM::GEPArg>{w}));
      std::tie(accValue, accIndex) =
          combineArgReduction(builder, loc, kind, accValue, accIndex, v, i);
    }
    // The next use of this array (next loop iteration) waits for readers.
    NVVM::Barrier0Op::create(builder, loc);
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
  NVVM::Barrier0Op::create(builder, loc);
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
