//===- FuseClusterSoftmax.cpp - one cluster exchange for softmax ----------===//
//
// In a program on a thread-block cluster, softmax's two reductions of a split
// block (the max, then the sum of exp(x - max)) each cross the cluster: two
// exchanges and two cluster barriers per row. The online form needs one:
// each CTA reduces its own piece,
//
//   mloc = max(x)                 over the CTA's piece
//   off  = mloc == -inf ? 0 : mloc
//   el   = exp(x - off),  sloc = sum(el)
//   m, s = blkgpu.cluster_softmax_stats mloc, sloc   (the one exchange)
//   e    = el * (mloc == -inf ? 0 : exp(mloc - m))
//
// and the program's uses of the max, of exp(x - max) and of the sum get m, e
// and s; exp(x - max) / sum becomes el * (rescale / s), one multiply. `off` keeps a piece that is all -inf (a masked tail) from making
// -inf - -inf; mloc <= m keeps the rescale at most 1. Special rows give what
// the two-exchange form gives: NaN or +inf anywhere, or -inf everywhere,
// make every output NaN. e differs from exp(x - m) by rounding (a product of
// two correctly rounded-ish exponentials instead of one).
//
//===----------------------------------------------------------------------===//
#include "compiler/Passes.h"
#include "compiler/gpu/Layout.h"

#include "dialect/BlkDialect.h"
#include "dialect/gpu/BlkGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"

#include <limits>

namespace blockjit {
#define GEN_PASS_DEF_BLKFUSECLUSTERSOFTMAX
#include "compiler/Passes.h.inc"
} // namespace blockjit

using namespace mlir;
using namespace blockjit;

namespace {

/// Whether `value` is a block cut over the CTAs of a cluster.
bool isSplitBlock(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  std::optional<Layout1D> layout =
      type ? linearLayoutOf(type) : std::nullopt;
  return layout && layout->split();
}

/// softmax's reductions: sum = reduce sum (exp (x - splat (reduce max x)))
/// on a split 1-D f32 block, the difference used only by the exp.
struct SoftmaxReductions {
  blk::ReduceOp max, sum;
  blk::SplatOp splat;
  arith::SubFOp difference;
  math::ExpOp exp;
};

/// Whether every use of `value` but `except` comes after `op` (in its block),
/// where the fused value is defined.
bool usedOnlyAfter(Value value, Operation *op, Operation *except) {
  for (Operation *user : value.getUsers()) {
    if (user == except)
      continue;
    Operation *ancestor = op->getBlock()->findAncestorOpInBlock(*user);
    if (!ancestor || !op->isBeforeInBlock(ancestor))
      return false;
  }
  return true;
}

std::optional<SoftmaxReductions> match(blk::ReduceOp sum) {
  if (sum.getKind() != blk::ReduceKind::Sum || sum->hasAttr(
          blkgpu::BlkGPUDialect::kCTALocalAttrName) ||
      !isSplitBlock(sum.getSrc()) ||
      cast<RankedTensorType>(sum.getSrc().getType()).getRank() != 1 ||
      !sum.getType().isF32())
    return std::nullopt;
  auto exp = sum.getSrc().getDefiningOp<math::ExpOp>();
  if (!exp || exp.getFastmathAttr().getValue() != arith::FastMathFlags::none)
    return std::nullopt;
  auto difference = exp.getOperand().getDefiningOp<arith::SubFOp>();
  if (!difference || !difference->hasOneUse() ||
      difference.getFastmathAttr().getValue() != arith::FastMathFlags::none)
    return std::nullopt;
  auto splat = difference.getRhs().getDefiningOp<blk::SplatOp>();
  if (!splat || !splat->hasOneUse())
    return std::nullopt;
  auto max = splat.getSrc().getDefiningOp<blk::ReduceOp>();
  if (!max || max.getKind() != blk::ReduceKind::Max ||
      max.getSrc() != difference.getLhs() ||
      max->hasAttr(blkgpu::BlkGPUDialect::kCTALocalAttrName) ||
      !max->hasOneUse() || max->getBlock() != sum->getBlock() ||
      exp->getBlock() != sum->getBlock() ||
      !usedOnlyAfter(exp.getResult(), sum, sum))
    return std::nullopt;
  return SoftmaxReductions{max, sum, splat, difference, exp};
}

void fuse(SoftmaxReductions s) {
  OpBuilder builder(s.sum);
  Location loc = s.sum.getLoc();
  Value x = s.max.getSrc();
  auto type = cast<RankedTensorType>(x.getType());
  Type f32 = builder.getF32Type();
  StringRef local = blkgpu::BlkGPUDialect::kCTALocalAttrName;
  auto splat = [&](Value scalar) {
    return blk::SplatOp::create(builder, loc, type, scalar);
  };
  auto constant = [&](double v) {
    return arith::ConstantOp::create(builder, loc, builder.getFloatAttr(f32, v));
  };

  // The CTA's own max, where the program's max was.
  builder.setInsertionPoint(s.max);
  auto localMax = blk::ReduceOp::create(builder, s.max.getLoc(),
                                        blk::ReduceKind::Max, x, /*axis=*/0);
  localMax->setAttr(local, builder.getUnitAttr());

  builder.setInsertionPoint(s.sum);
  Value minusInf = constant(-std::numeric_limits<double>::infinity());
  Value allMinusInf = arith::CmpFOp::create(
      builder, loc, arith::CmpFPredicate::OEQ, localMax, minusInf);
  Value offset =
      arith::SelectOp::create(builder, loc, allMinusInf, constant(0), localMax);
  Value localExp = math::ExpOp::create(
      builder, loc, arith::SubFOp::create(builder, loc, x, splat(offset)));
  auto localSum = blk::ReduceOp::create(builder, loc, blk::ReduceKind::Sum,
                                        localExp, /*axis=*/0);
  localSum->setAttr(local, builder.getUnitAttr());
  auto stats = blkgpu::ClusterSoftmaxStatsOp::create(
      builder, loc, f32, f32, localMax, localSum, /*axis=*/IntegerAttr());
  Value rescale = arith::SelectOp::create(
      builder, loc, allMinusInf, constant(0),
      math::ExpOp::create(
          builder, loc,
          arith::SubFOp::create(builder, loc, localMax, stats.getMax())));
  Value exp = arith::MulFOp::create(builder, loc, localExp, splat(rescale));

  // softmax's own division, exp(x - max) / sum: one multiply per element,
  // by rescale / sum, instead of the rescale and then the reciprocal.
  for (OpOperand &use : llvm::make_early_inc_range(s.exp->getUses())) {
    auto div = dyn_cast<arith::DivFOp>(use.getOwner());
    auto divisor = div ? div.getRhs().getDefiningOp<blk::SplatOp>()
                       : blk::SplatOp();
    if (!div || use.getOperandNumber() != 0 || !divisor ||
        divisor.getSrc() != s.sum.getResult() ||
        div.getFastmathAttr().getValue() != arith::FastMathFlags::none)
      continue;
    builder.setInsertionPoint(div);
    Value factor =
        arith::DivFOp::create(builder, loc, rescale, stats.getSum());
    div.replaceAllUsesWith(
        arith::MulFOp::create(builder, loc, localExp, splat(factor))
            .getResult());
    div->erase();
    if (divisor->use_empty())
      divisor->erase();
  }
  s.sum.getResult().replaceAllUsesWith(stats.getSum());
  s.sum->erase();
  // The exp's other uses (softmax(x) * scale multiplies it by a splat of
  // scale / sum) take the rescaled local exp; it goes if none is left. This
  // is decided once the uses have moved: before, it has none.
  s.exp.getResult().replaceAllUsesWith(exp);
  s.exp->erase();
  if (exp.use_empty()) {
    Operation *rescaled = exp.getDefiningOp(), *splatOp =
        rescaled->getOperand(1).getDefiningOp();
    rescaled->erase();
    if (splatOp->use_empty())
      splatOp->erase();
  }
  s.difference->erase();
  s.splat->erase();
  s.max->erase();
}

/// The same along an axis of a 2-D (or higher) block whose lines cross the
/// cluster (softmax over columns: the strip's rows split over the CTAs):
/// sum = all_reduce sum (exp (x - all_reduce max x)), every element holding
/// its line's max and sum.
struct LineSoftmaxReductions {
  blkgpu::AllReduceOp max, sum;
  arith::SubFOp difference;
  math::ExpOp exp;
};

/// Whether `value` is a block whose lines along `axis` cross the CTAs.
bool linesCrossCTAs(Value value, int64_t axis) {
  auto type = cast<RankedTensorType>(value.getType());
  std::optional<Layout1D> layout = linearLayoutOf(type);
  return layout && axisBitsOf(type.getShape(), *layout, axis).ctaMask;
}

std::optional<LineSoftmaxReductions> matchLines(blkgpu::AllReduceOp sum) {
  StringRef local = blkgpu::BlkGPUDialect::kCTALocalAttrName;
  if (sum.getKind() != blk::ReduceKind::Sum || sum->hasAttr(local) ||
      !sum.getType().getElementType().isF32() ||
      !linesCrossCTAs(sum.getSrc(), sum.getAxis()))
    return std::nullopt;
  auto exp = sum.getSrc().getDefiningOp<math::ExpOp>();
  if (!exp || exp.getFastmathAttr().getValue() != arith::FastMathFlags::none)
    return std::nullopt;
  auto difference = exp.getOperand().getDefiningOp<arith::SubFOp>();
  if (!difference || !difference->hasOneUse() ||
      difference.getFastmathAttr().getValue() != arith::FastMathFlags::none)
    return std::nullopt;
  auto max = difference.getRhs().getDefiningOp<blkgpu::AllReduceOp>();
  if (!max || max.getKind() != blk::ReduceKind::Max ||
      max.getAxis() != sum.getAxis() || max.getSrc() != difference.getLhs() ||
      max->hasAttr(local) || !max->hasOneUse() ||
      max->getBlock() != sum->getBlock() ||
      exp->getBlock() != sum->getBlock() ||
      !usedOnlyAfter(exp.getResult(), sum, sum))
    return std::nullopt;
  return LineSoftmaxReductions{max, sum, difference, exp};
}

void fuseLines(LineSoftmaxReductions s) {
  OpBuilder builder(s.sum);
  Location loc = s.sum.getLoc();
  Value x = s.max.getSrc();
  auto type = cast<RankedTensorType>(x.getType());
  uint32_t axis = s.sum.getAxis();
  StringRef local = blkgpu::BlkGPUDialect::kCTALocalAttrName;
  auto constant = [&](double v) {
    return arith::ConstantOp::create(
        builder, loc,
        DenseElementsAttr::get(type, builder.getF32FloatAttr(float(v))));
  };

  // The CTA's own line maxima, where the program's were.
  builder.setInsertionPoint(s.max);
  auto localMax = blkgpu::AllReduceOp::create(builder, s.max.getLoc(), type,
                                              blk::ReduceKind::Max, x, axis);
  localMax->setAttr(local, builder.getUnitAttr());

  builder.setInsertionPoint(s.sum);
  Value zero = constant(0);
  Value allMinusInf =
      arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::OEQ, localMax,
                            constant(-std::numeric_limits<double>::infinity()));
  Value offset =
      arith::SelectOp::create(builder, loc, allMinusInf, zero, localMax);
  Value localExp = math::ExpOp::create(
      builder, loc, arith::SubFOp::create(builder, loc, x, offset));
  auto localSum = blkgpu::AllReduceOp::create(
      builder, loc, type, blk::ReduceKind::Sum, localExp, axis);
  localSum->setAttr(local, builder.getUnitAttr());
  auto stats = blkgpu::ClusterSoftmaxStatsOp::create(
      builder, loc, type, type, localMax, localSum,
      builder.getI32IntegerAttr(axis));
  Value rescale = arith::SelectOp::create(
      builder, loc, allMinusInf, zero,
      math::ExpOp::create(
          builder, loc,
          arith::SubFOp::create(builder, loc, localMax, stats.getMax())));
  Value exp = arith::MulFOp::create(builder, loc, localExp, rescale);

  // exp(x - max) / sum: the local exp times rescale / sum, a value per line.
  for (OpOperand &use : llvm::make_early_inc_range(s.exp->getUses())) {
    auto div = dyn_cast<arith::DivFOp>(use.getOwner());
    if (!div || use.getOperandNumber() != 0 ||
        div.getRhs() != s.sum.getResult() ||
        div.getFastmathAttr().getValue() != arith::FastMathFlags::none)
      continue;
    builder.setInsertionPoint(div);
    Value factor = arith::DivFOp::create(builder, loc, rescale, stats.getSum());
    div.replaceAllUsesWith(
        arith::MulFOp::create(builder, loc, localExp, factor).getResult());
    div->erase();
  }
  s.sum.getResult().replaceAllUsesWith(stats.getSum());
  s.sum->erase();
  s.exp.getResult().replaceAllUsesWith(exp);
  s.exp->erase();
  if (exp.use_empty())
    exp.getDefiningOp()->erase();
  s.difference->erase();
  s.max->erase();
}

struct BlkFuseClusterSoftmax
    : blockjit::impl::BlkFuseClusterSoftmaxBase<BlkFuseClusterSoftmax> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (numCTAsOf(module) < 2)
      return;
    SmallVector<SoftmaxReductions> found;
    SmallVector<LineSoftmaxReductions> foundLines;
    module.walk([&](Operation *op) {
      if (auto sum = dyn_cast<blk::ReduceOp>(op))
        if (auto s = match(sum))
          found.push_back(*s);
      if (auto sum = dyn_cast<blkgpu::AllReduceOp>(op))
        if (auto s = matchLines(sum))
          foundLines.push_back(*s);
    });
    for (SoftmaxReductions &s : found)
      fuse(s);
    for (LineSoftmaxReductions &s : foundLines)
      fuseLines(s);
  }
};

} // namespace
