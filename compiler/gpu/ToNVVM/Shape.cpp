//===- Shape.cpp - ranges, splats, constants and shape changes -----------===//
#include "compiler/gpu/ToNVVM/Lowering.h"

#include "dialect/BlkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/MathExtras.h"

#include <optional>

using namespace mlir;

namespace blockjit::nvvm {
namespace {

/// make_range: element k is start + its index.
struct MakeRangeLowering : KernelOpLowering<blk::MakeRangeOp> {
  using KernelOpLowering::KernelOpLowering;

  LogicalResult
  matchAndRewrite(blk::MakeRangeOp range, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = range.getLoc();
    Layout1D layout = layoutOf(range.getType());
    Value base = threadElementBaseFor(rewriter, loc, kernel, layout, range);
    SmallVector<Value> elements;
    for (int64_t k = 0; k < layout.perThread(); ++k) {
      Value i = blockElementIndex(rewriter, loc, base, layout, k);
      if (range.getStartAttr().getInt() != 0)
        i = arith::AddIOp::create(
            rewriter, loc, i,
            i32Constant(rewriter, loc, range.getStartAttr().getInt()));
      elements.push_back(i);
    }
    rewriter.replaceOpWithMultiple(range, {elements});
    return success();
  }
};

/// splat: every element is the scalar.
struct SplatLowering : OpConversionPattern<blk::SplatOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(blk::SplatOp splat, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> elements(layoutOf(splat.getType()).perThread(),
                                llvm::getSingleElement(adaptor.getSrc()));
    rewriter.replaceOpWithMultiple(splat, {elements});
    return success();
  }
};

/// A splat block constant: every element is one scalar constant (other
/// constants are rejected by checkGPULowering).
struct SplatConstantLowering : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arith::ConstantOp constant, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto splat = dyn_cast<SplatElementsAttr>(constant.getValue());
    if (!splat)
      return rewriter.notifyMatchFailure(constant, "not a splat");
    Value scalar = arith::ConstantOp::create(
        rewriter, constant.getLoc(),
        cast<TypedAttr>(splat.getSplatValue<Attribute>()));
    SmallVector<Value> elements(
        layoutOf(cast<RankedTensorType>(constant.getType())).perThread(),
        scalar);
    rewriter.replaceOpWithMultiple(constant, {elements});
    return success();
  }
};

/// expand_dims: same element count, same layout: the same elements.
struct ExpandDimsLowering : OpConversionPattern<blk::ExpandDimsOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(blk::ExpandDimsOp expand, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithMultiple(expand, {adaptor.getSrc()});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Shape changes that move elements between threads, through shared memory
//===----------------------------------------------------------------------===//

/// An element as kept in shared memory (pointers as LLVM pointers), and back.
Value toStorage(OpBuilder &builder, Location loc, Value element, Type storage) {
  return storage == element.getType() ? element
                                      : toLLVMPointer(builder, loc, element);
}
Value fromStorage(OpBuilder &builder, Location loc, Value stored,
                  Type element) {
  if (stored.getType() == element)
    return stored;
  return UnrealizedConversionCastOp::create(builder, loc, element, stored)
      .getResult(0);
}

/// Every element this thread owns of a block of `type`, each read from the
/// published array `smem` at the slot `slotOf` gives for its linear index;
/// a barrier follows, so that the array may be published again (a loop's
/// next iteration) only once every thread has read it.
SmallVector<Value> gatherShared(OpBuilder &builder, Location loc,
                                KernelState &kernel, Value smem, Type storage,
                                RankedTensorType type,
                                function_ref<Value(Value)> slotOf) {
  Layout1D layout = layoutOf(type);
  SmallVector<Value> elements;
  for (int64_t k = 0; k < layout.perThread(); ++k) {
    Value linear = blockElementIndex(builder, loc, kernel, layout, k);
    elements.push_back(fromStorage(
        builder, loc, readShared(builder, loc, smem, storage, slotOf(linear)),
        type.getElementType()));
  }
  programBarrier(builder, loc, kernel);
  return elements;
}

/// Publishes a block's elements (indexed by linear index; a barrier follows).
Value publishBlock(OpBuilder &builder, Location loc, KernelState &kernel,
                   RankedTensorType type, ValueRange elements, Type storage) {
  return publish(builder, loc, kernel, type, elements, storage,
                 [&](Value v) { return toStorage(builder, loc, v, storage); });
}

/// The broadcast of a range: each element is start + its coordinate along
/// the range's dimension, which every thread computes from its elements'
/// linear indices, so nothing moves.
SmallVector<Value> broadcastRange(OpBuilder &builder, Location loc,
                                  KernelState &kernel, blk::BroadcastOp bcast,
                                  const RangeBroadcast &range) {
  RankedTensorType resultType = bcast.getType();
  int64_t stride = 1;
  for (int64_t size : resultType.getShape().drop_front(range.dim + 1))
    stride *= size;
  Layout1D layout = layoutOf(resultType);
  Value base = threadElementBaseFor(builder, loc, kernel, layout, bcast);
  SmallVector<Value> indices;
  for (int64_t k = 0; k < layout.perThread(); ++k) {
    Value linear = blockElementIndex(builder, loc, base, layout, k);
    Value along = arith::AndIOp::create(
        builder, loc,
        arith::ShRUIOp::create(builder, loc, linear,
                               i32Constant(builder, loc, llvm::Log2_64(stride))),
        i32Constant(builder, loc, range.size - 1));
    indices.push_back(range.start == 0
                          ? along
                          : Value(arith::AddIOp::create(
                                builder, loc, along,
                                i32Constant(builder, loc, range.start))));
  }
  return indices;
}

/// broadcast: element (i, j) of the result is element (i or 0, j or 0) of
/// the source, which another thread may own: exchanged through shared
/// memory (a broadcast range is computed in place). A result split over a
/// cluster gathers its CTA's piece from the source each CTA holds whole.
struct BroadcastLowering : KernelOpLowering<blk::BroadcastOp> {
  using KernelOpLowering::KernelOpLowering;

  LogicalResult
  matchAndRewrite(blk::BroadcastOp bcast, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = bcast.getLoc();
    RankedTensorType srcType = bcast.getSrc().getType();
    RankedTensorType resultType = bcast.getType();
    auto range = kernel.rangeBroadcasts.find(bcast);
    if (range != kernel.rangeBroadcasts.end()) {
      rewriter.replaceOpWithMultiple(
          bcast, {broadcastRange(rewriter, loc, kernel, bcast, range->second)});
      return success();
    }
    Type storage = sharedStorageType(srcType.getElementType());
    Value smem =
        publishBlock(rewriter, loc, kernel, srcType, adaptor.getSrc(), storage);
    auto slotOf = [&](Value linear) {
      SmallVector<Value> indices =
          delinearize(rewriter, loc, resultType.getShape(), linear);
      for (auto [d, size] : llvm::enumerate(srcType.getShape()))
        if (size == 1)
          indices[d] = i32Constant(rewriter, loc, 0);
      return linearize(rewriter, loc, srcType.getShape(), indices);
    };
    rewriter.replaceOpWithMultiple(bcast,
                                   {gatherShared(rewriter, loc, kernel, smem,
                                                 storage, resultType, slotOf)});
    return success();
  }
};

/// reshape keeps the row-major linear index of every element. Blocks are
/// distributed by that index (Layout1D), so when the source and the result
/// have the same 1-D layout (always, as blk-assign-layouts gives every
/// block of one element count the same vector) each thread already holds
/// its result elements, in order: no data moves. Otherwise (a layout this
/// pass does not expect) the elements go through shared memory.
struct ReshapeLowering : KernelOpLowering<blk::ReshapeOp> {
  using KernelOpLowering::KernelOpLowering;

  LogicalResult
  matchAndRewrite(blk::ReshapeOp reshape, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType srcType = reshape.getSrc().getType();
    Layout1D from = layoutOf(srcType), to = layoutOf(reshape.getType());
    if (from.size == to.size && from.vector == to.vector &&
        from.threads == to.threads) {
      rewriter.replaceOpWithMultiple(reshape, {adaptor.getSrc()});
      return success();
    }
    Location loc = reshape.getLoc();
    Type storage = sharedStorageType(srcType.getElementType());
    Value smem =
        publishBlock(rewriter, loc, kernel, srcType, adaptor.getSrc(), storage);
    rewriter.replaceOpWithMultiple(
        reshape,
        {gatherShared(rewriter, loc, kernel, smem, storage, reshape.getType(),
                      [](Value linear) { return linear; })});
    return success();
  }
};

/// permute: result element (i_0, ..., i_n) is source element j with
/// j[order[d]] = i_d, which another thread may own: exchanged through shared
/// memory.
struct PermuteLowering : KernelOpLowering<blk::PermuteOp> {
  using KernelOpLowering::KernelOpLowering;

  LogicalResult
  matchAndRewrite(blk::PermuteOp permute, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = permute.getLoc();
    RankedTensorType srcType = permute.getSrc().getType();
    RankedTensorType resultType = permute.getType();
    Type storage = sharedStorageType(srcType.getElementType());
    Value smem =
        publishBlock(rewriter, loc, kernel, srcType, adaptor.getSrc(), storage);
    ArrayRef<int32_t> order = permute.getOrder();
    auto slotOf = [&](Value linear) {
      SmallVector<Value> indices =
          delinearize(rewriter, loc, resultType.getShape(), linear);
      SmallVector<Value> srcIndices(indices.size());
      for (auto [d, from] : llvm::enumerate(order))
        srcIndices[from] = indices[d];
      return linearize(rewriter, loc, srcType.getShape(), srcIndices);
    };
    rewriter.replaceOpWithMultiple(permute,
                                   {gatherShared(rewriter, loc, kernel, smem,
                                                 storage, resultType, slotOf)});
    return success();
  }
};

/// join: element i of lhs (rhs) is element 2i (2i + 1) of the result. Each
/// thread stores its operand elements at those slots, then reads its result
/// elements.
struct JoinLowering : KernelOpLowering<blk::JoinOp> {
  using KernelOpLowering::KernelOpLowering;

  LogicalResult
  matchAndRewrite(blk::JoinOp join, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = join.getLoc();
    RankedTensorType halfType = join.getLhs().getType();
    Type storage = sharedStorageType(halfType.getElementType());
    Value smem = kernel.scratch.get(rewriter, loc, storage,
                                    join.getType().getNumElements());
    auto ptrType = LLVM::LLVMPointerType::get(rewriter.getContext(), 3);
    Layout1D half = layoutOf(halfType);
    Value one = i32Constant(rewriter, loc, 1);
    for (int64_t k = 0; k < half.perThread(); ++k) {
      Value even = arith::ShLIOp::create(
          rewriter, loc, elementIndex(rewriter, loc, kernel.threadId, half, k),
          one);
      Value odd = arith::OrIOp::create(rewriter, loc, even, one);
      for (auto [slot, operand] : {std::pair(even, adaptor.getLhs()),
                                   std::pair(odd, adaptor.getRhs())}) {
        Value address = LLVM::GEPOp::create(rewriter, loc, ptrType, storage,
                                            smem, ValueRange{slot});
        LLVM::StoreOp::create(rewriter, loc,
                              toStorage(rewriter, loc, operand[k], storage),
                              address);
      }
    }
    programBarrier(rewriter, loc, kernel);
    rewriter.replaceOpWithMultiple(
        join,
        {gatherShared(rewriter, loc, kernel, smem, storage, join.getType(),
                      [](Value linear) { return linear; })});
    return success();
  }
};

/// split: element i of the lhs (rhs) result is element 2i (2i + 1) of the
/// source.
struct SplitLowering : KernelOpLowering<blk::SplitOp> {
  using KernelOpLowering::KernelOpLowering;

  LogicalResult
  matchAndRewrite(blk::SplitOp split, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = split.getLoc();
    RankedTensorType srcType = split.getSrc().getType();
    Type storage = sharedStorageType(srcType.getElementType());
    Value smem =
        publishBlock(rewriter, loc, kernel, srcType, adaptor.getSrc(), storage);
    Layout1D half = layoutOf(split.getLhs().getType());
    Value one = i32Constant(rewriter, loc, 1);
    SmallVector<Value> lhs, rhs;
    for (int64_t k = 0; k < half.perThread(); ++k) {
      Value even = arith::ShLIOp::create(
          rewriter, loc, elementIndex(rewriter, loc, kernel.threadId, half, k),
          one);
      Value odd = arith::OrIOp::create(rewriter, loc, even, one);
      Type element = srcType.getElementType();
      lhs.push_back(fromStorage(rewriter, loc,
                                readShared(rewriter, loc, smem, storage, even),
                                element));
      rhs.push_back(fromStorage(rewriter, loc,
                                readShared(rewriter, loc, smem, storage, odd),
                                element));
    }
    programBarrier(rewriter, loc, kernel);
    rewriter.replaceOpWithMultiple(split, {lhs, rhs});
    return success();
  }
};

} // namespace

DenseMap<Operation *, RangeBroadcast> rangeBroadcasts(func::FuncOp func) {
  DenseMap<Operation *, RangeBroadcast> ranges;
  func.walk([&](blk::BroadcastOp bcast) {
    if (std::optional<RangeBroadcast> range = blk::rangeBroadcastOf(bcast))
      ranges[bcast] = *range;
  });
  return ranges;
}

void populateShapePatterns(const BlockTypeConverter &converter,
                           RewritePatternSet &patterns, KernelState &kernel) {
  MLIRContext *context = patterns.getContext();
  patterns.add<MakeRangeLowering, BroadcastLowering, ReshapeLowering,
               PermuteLowering, JoinLowering, SplitLowering>(converter, context,
                                                             kernel);
  patterns.add<SplatLowering, SplatConstantLowering, ExpandDimsLowering>(
      converter, context);
}

} // namespace blockjit::nvvm
