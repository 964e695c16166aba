//===- Reduce.cpp - reductions: in-thread, shuffles, shared memory -------===//
#include "compiler/Reduction.h"
#include "compiler/gpu/ToNVVM/Lowering.h"

#include "dialect/BlkDialect.h"
#include "dialect/gpu/BlkGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace blockjit::nvvm {

/// Lane 0 of each warp writes its tuple to the scratch array (one section
/// per component, indexed by warp), a barrier, then every thread combines
/// the warps' tuples in warp order from `identity()`; a second barrier makes
/// the array's next use (a loop's next iteration) wait for the readers.
SmallVector<Value> combineAcrossWarps(
    OpBuilder &builder, Location loc, KernelState &kernel, ValueRange values,
    function_ref<SmallVector<Value>()> identity,
    function_ref<SmallVector<Value>(ValueRange, ValueRange)> combine) {
  auto i32 = [&](int64_t v) { return i32Constant(builder, loc, v); };
  auto bytesOf = [](Type t) {
    return std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8);
  };
  int64_t tupleBytes = 0;
  for (Value v : values)
    tupleBytes += bytesOf(v.getType());
  Type i8 = builder.getI8Type();
  auto ptrType = LLVM::LLVMPointerType::get(builder.getContext(), 3);
  Value smem =
      kernel.scratch.get(builder, loc, i8, kernel.numWarps * tupleBytes);
  // Section i starts after the sections of components 0..i-1.
  SmallVector<Value> sections{smem};
  int64_t offset = 0;
  for (Value v : values.drop_back()) {
    offset += kernel.numWarps * bytesOf(v.getType());
    sections.push_back(
        LLVM::GEPOp::create(builder, loc, ptrType, i8, smem,
                            ArrayRef<LLVM::GEPArg>{int32_t(offset)}));
  }
  Value threadId = kernel.threadId;
  Value lane =
      arith::AndIOp::create(builder, loc, threadId, i32(kWarpSize - 1));
  Value warp = arith::ShRUIOp::create(builder, loc, threadId,
                                      i32(llvm::Log2_32(kWarpSize)));
  Value isLeader = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                         lane, i32(0));
  {
    OpBuilder::InsertionGuard guard(builder);
    auto ifOp = scf::IfOp::create(builder, loc, isLeader);
    builder.setInsertionPointToStart(ifOp.thenBlock());
    for (auto [v, section] : llvm::zip(values, sections)) {
      Value slot = LLVM::GEPOp::create(builder, loc, ptrType, v.getType(),
                                       section, ValueRange{warp});
      LLVM::StoreOp::create(builder, loc, v, slot);
    }
  }
  NVVM::Barrier0Op::create(builder, loc);
  SmallVector<Value> total = identity();
  for (int w = 0; w < kernel.numWarps; ++w) {
    SmallVector<Value> next;
    for (auto [v, section] : llvm::zip(values, sections)) {
      Value slot = LLVM::GEPOp::create(builder, loc, ptrType, v.getType(),
                                       section, ArrayRef<LLVM::GEPArg>{w});
      next.push_back(LLVM::LoadOp::create(builder, loc, v.getType(), slot));
    }
    total = combine(total, next);
  }
  NVVM::Barrier0Op::create(builder, loc);
  return total;
}

namespace {

/// reduce of a 1-D block to a scalar that every thread gets: combined
/// in-thread, then across the warp with butterfly shuffles, then across
/// warps through shared memory, then (a block split over a cluster) across
/// CTAs through distributed shared memory.
Value reduce1D(OpBuilder &builder, Location loc, KernelState &kernel,
               blk::ReduceOp reduce, ValueRange xs) {
  RankedTensorType srcType = reduce.getSrc().getType();
  Layout1D layout = layoutOf(srcType);
  Type element = srcType.getElementType();
  Type accType = reductionAccumulatorType(element);
  bool widen = accType != element;
  blk::ReduceKind kind = reduce.getKind();
  Value threadId = kernel.threadId;
  auto i32 = [&](int64_t v) { return i32Constant(builder, loc, v); };

  // 1. In-thread; replicas of small blocks contribute the identity.
  Value acc = reductionIdentity(builder, loc, kind, accType);
  for (int64_t k = 0; k < layout.perThread(); ++k) {
    Value x = xs[k];
    if (widen)
      x = arith::ExtFOp::create(builder, loc, accType, x);
    if (layout.replicated()) {
      Value valid = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::slt,
          rawElementIndex(builder, loc, threadId, layout, k), i32(layout.size));
      x = arith::SelectOp::create(
          builder, loc, valid, x,
          reductionIdentity(builder, loc, kind, accType));
    }
    acc = combineReduction(builder, loc, kind, acc, x);
  }
  // 2. Across the warp: butterfly shuffles.
  Value all = i32(-1), clamp = i32(kWarpSize - 1);
  for (int offset = kWarpSize / 2; offset >= 1; offset /= 2) {
    Value other =
        NVVM::ShflOp::create(builder, loc, accType, all, acc, i32(offset),
                             clamp, NVVM::ShflKind::bfly, UnitAttr());
    acc = combineReduction(builder, loc, kind, acc, other);
  }
  // 3. Across warps, then 4. (a block split over a cluster) across CTAs.
  auto identity = [&] {
    return SmallVector<Value>{reductionIdentity(builder, loc, kind, accType)};
  };
  auto combine = [&](ValueRange total, ValueRange next) {
    return SmallVector<Value>{
        combineReduction(builder, loc, kind, total[0], next[0])};
  };
  if (kernel.numWarps > 1)
    acc = combineAcrossWarps(builder, loc, kernel, acc, identity, combine)[0];
  // blkgpu.cta_local: the CTA's piece only (blk-fuse-cluster-softmax).
  if (layout.split() &&
      !reduce->hasAttr(blkgpu::BlkGPUDialect::kCTALocalAttrName))
    acc = combineAcrossCTAs(builder, loc, kernel, acc, identity, combine)[0];
  if (widen)
    acc = arith::TruncFOp::create(builder, loc, element, acc);
  return acc;
}

/// reduce of a 2-D block: every element goes through shared memory, then
/// each thread combines the rows or columns of the result elements it owns.
SmallVector<Value> reduce2D(OpBuilder &builder, Location loc,
                            KernelState &kernel, blk::ReduceOp reduce,
                            ValueRange xs) {
  RankedTensorType srcType = reduce.getSrc().getType();
  Type element = srcType.getElementType();
  Type accType = reductionAccumulatorType(element);
  Value smem =
      publish(builder, loc, kernel, srcType, xs, accType, [&](Value v) {
        return accType == element
                   ? v
                   : Value(arith::ExtFOp::create(builder, loc, accType, v));
      });
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
    auto loop =
        scf::ForOp::create(builder, loc, zero, ub, one,
                           reductionIdentity(builder, loc, kind, accType));
    {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(loop.getBody());
      SmallVector<Value> indices(outer);
      indices.insert(indices.begin() + axis,
                     arith::IndexCastOp::create(builder, loc,
                                                builder.getI32Type(),
                                                loop.getInductionVar()));
      Value x =
          readShared(builder, loc, smem, accType,
                     linearize(builder, loc, srcType.getShape(), indices));
      scf::YieldOp::create(
          builder, loc,
          combineReduction(builder, loc, kind, loop.getRegionIterArgs()[0], x));
    }
    Value acc = loop.getResult(0);
    if (accType != element)
      acc = arith::TruncFOp::create(builder, loc, element, acc);
    result.push_back(acc);
  }
  NVVM::Barrier0Op::create(builder, loc);
  return result;
}

struct ReduceLowering : KernelOpLowering<blk::ReduceOp> {
  using KernelOpLowering::KernelOpLowering;

  LogicalResult
  matchAndRewrite(blk::ReduceOp reduce, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = reduce.getLoc();
    if (reduce.getSrc().getType().getRank() > 1) {
      rewriter.replaceOpWithMultiple(
          reduce, {reduce2D(rewriter, loc, kernel, reduce, adaptor.getSrc())});
      return success();
    }
    rewriter.replaceOp(
        reduce, reduce1D(rewriter, loc, kernel, reduce, adaptor.getSrc()));
    return success();
  }
};

} // namespace

void populateReducePatterns(const BlockTypeConverter &converter,
                            RewritePatternSet &patterns, KernelState &kernel) {
  patterns.add<ReduceLowering>(converter, patterns.getContext(), kernel);
}

} // namespace blockjit::nvvm
