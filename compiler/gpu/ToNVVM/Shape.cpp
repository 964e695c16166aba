//===- Shape.cpp - ranges, splats, constants and shape changes -----------===//
#include "compiler/gpu/ToNVVM/Lowering.h"

#include "dialect/BlkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

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
    SmallVector<Value> elements;
    for (int64_t k = 0; k < layout.perThread(); ++k) {
      Value i = elementIndex(rewriter, loc, kernel.threadId, layout, k);
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

/// broadcast: element (i, j) of the result is element (i or 0, j or 0) of
/// the source, which another thread may own: exchanged through shared
/// memory.
struct BroadcastLowering : KernelOpLowering<blk::BroadcastOp> {
  using KernelOpLowering::KernelOpLowering;

  LogicalResult
  matchAndRewrite(blk::BroadcastOp bcast, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = bcast.getLoc();
    RankedTensorType srcType = bcast.getSrc().getType();
    RankedTensorType resultType = bcast.getType();
    Type element = srcType.getElementType();
    Type storage = sharedStorageType(element);
    Value smem = publish(rewriter, loc, kernel, srcType, adaptor.getSrc(),
                         storage, [&](Value v) {
                           return storage == element
                                      ? v
                                      : toLLVMPointer(rewriter, loc, v);
                         });
    Layout1D layout = layoutOf(resultType);
    SmallVector<Value> elements;
    for (int64_t k = 0; k < layout.perThread(); ++k) {
      SmallVector<Value> indices =
          delinearize(rewriter, loc, resultType.getShape(),
                      elementIndex(rewriter, loc, kernel.threadId, layout, k));
      for (auto [d, size] : llvm::enumerate(srcType.getShape()))
        if (size == 1)
          indices[d] = i32Constant(rewriter, loc, 0);
      Value v =
          readShared(rewriter, loc, smem, storage,
                     linearize(rewriter, loc, srcType.getShape(), indices));
      if (storage != element)
        v = UnrealizedConversionCastOp::create(rewriter, loc, element, v)
                .getResult(0);
      elements.push_back(v);
    }
    // The array is not reused, but its next publication (a loop's next
    // iteration) must wait for these reads.
    NVVM::Barrier0Op::create(rewriter, loc);
    rewriter.replaceOpWithMultiple(bcast, {elements});
    return success();
  }
};

} // namespace

void populateShapePatterns(const BlockTypeConverter &converter,
                           RewritePatternSet &patterns, KernelState &kernel) {
  MLIRContext *context = patterns.getContext();
  patterns.add<MakeRangeLowering, BroadcastLowering>(converter, context,
                                                     kernel);
  patterns.add<SplatLowering, SplatConstantLowering, ExpandDimsLowering>(
      converter, context);
}

} // namespace blockjit::nvvm
