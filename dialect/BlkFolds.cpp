//===- BlkFolds.cpp - folders and canonicalization patterns of blk ops ---===//
#include "dialect/BlkDialect.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace blockjit::blk;

/// splat(constant) -> dense splat constant.
OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  if (isa_and_nonnull<IntegerAttr, FloatAttr>(adaptor.getSrc()))
    return SplatElementsAttr::get(getType(), adaptor.getSrc());
  return {};
}

/// broadcast to the same shape is a no-op; broadcast of a splat constant is a
/// splat constant of the result shape.
OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  if (auto splat = dyn_cast_or_null<SplatElementsAttr>(adaptor.getSrc()))
    return splat.resizeSplat(getType());
  return {};
}

/// expand_dims of a splat constant is a splat constant of the result shape.
OpFoldResult ExpandDimsOp::fold(FoldAdaptor adaptor) {
  if (auto splat = dyn_cast_or_null<SplatElementsAttr>(adaptor.getSrc()))
    return splat.resizeSplat(getType());
  return {};
}

/// addptr p, 0 -> p.
OpFoldResult AddPtrOp::fold(FoldAdaptor adaptor) {
  if (matchPattern(getOffset(), m_Zero()))
    return getPtr();
  return {};
}

namespace {

/// Reshaping a splat is a splat of the new shape: `op(splat x)` -> `splat x`.
template <typename ReshapeOp>
struct ReshapeOfSplat : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern<ReshapeOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto splat = op.getSrc().template getDefiningOp<SplatOp>();
    if (!splat)
      return failure();
    rewriter.replaceOpWithNewOp<SplatOp>(op, op.getType(), splat.getSrc());
    return success();
  }
};

/// broadcast(broadcast x) -> broadcast x.
struct BroadcastOfBroadcast : OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<BroadcastOp>();
    if (!inner)
      return failure();
    rewriter.replaceOpWithNewOp<BroadcastOp>(op, op.getType(), inner.getSrc());
    return success();
  }
};

} // namespace

void BroadcastOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                              MLIRContext *context) {
  patterns.add<ReshapeOfSplat<BroadcastOp>, BroadcastOfBroadcast>(context);
}

void ExpandDimsOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                               MLIRContext *context) {
  patterns.add<ReshapeOfSplat<ExpandDimsOp>>(context);
}

//===----------------------------------------------------------------------===//
// reshape, permute, split
//===----------------------------------------------------------------------===//

/// reshape to the same type is a no-op; reshape(reshape x) reshapes x once
/// (row-major order composes); a splat constant stays one.
OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  if (auto splat = dyn_cast_or_null<SplatElementsAttr>(adaptor.getSrc()))
    return splat.resizeSplat(getType());
  if (auto inner = getSrc().getDefiningOp<ReshapeOp>()) {
    getSrcMutable().assign(inner.getSrc());
    return getResult();
  }
  return {};
}

/// The identity permutation is a no-op; permute(permute x) permutes x once
/// (result dim i is inner dim order[i], which is x's dim
/// innerOrder[order[i]]); a splat constant stays one.
OpFoldResult PermuteOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int32_t> order = getOrder();
  if (getSrc().getType() == getType() &&
      llvm::all_of(llvm::enumerate(order), [](auto entry) {
        return int64_t(entry.value()) == int64_t(entry.index());
      }))
    return getSrc();
  if (auto splat = dyn_cast_or_null<SplatElementsAttr>(adaptor.getSrc()))
    return splat.resizeSplat(getType());
  if (auto inner = getSrc().getDefiningOp<PermuteOp>()) {
    SmallVector<int32_t> composed;
    for (int32_t d : order)
      composed.push_back(inner.getOrder()[d]);
    getSrcMutable().assign(inner.getSrc());
    setOrder(composed);
    if (getSrc().getType() == getType() &&
        llvm::all_of(llvm::enumerate(composed), [](auto entry) {
          return int64_t(entry.value()) == int64_t(entry.index());
        }))
      return getSrc();
    return getResult();
  }
  return {};
}

/// split(join a, b) is (a, b).
LogicalResult SplitOp::fold(FoldAdaptor adaptor,
                            SmallVectorImpl<OpFoldResult> &results) {
  auto join = getSrc().getDefiningOp<JoinOp>();
  if (!join || join.getLhs().getType() != getLhs().getType())
    return failure();
  results.push_back(join.getLhs());
  results.push_back(join.getRhs());
  return success();
}

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                            MLIRContext *context) {
  patterns.add<ReshapeOfSplat<ReshapeOp>>(context);
}

void PermuteOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                            MLIRContext *context) {
  patterns.add<ReshapeOfSplat<PermuteOp>>(context);
}
