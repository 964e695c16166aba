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

/// softmax's reductions of a block split over the cluster: on a 1-D f32
/// block, sum = reduce sum (exp (x - splat (reduce max x))) (`splat` set);
/// along an axis of a 2-D (or higher) f32 block whose lines cross the
/// cluster (softmax over columns: the strip's rows split over the CTAs),
/// sum = all_reduce sum (exp (x - all_reduce max x)), every element holding
/// its line's max and sum (`axis` set). The difference is used only by the
/// exp.
struct SoftmaxReductions {
  Operation *max, *sum;
  blk::SplatOp splat;
  arith::SubFOp difference;
  math::ExpOp exp;
  std::optional<uint32_t> axis;
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

/// The exp and difference of sum's operand exp(x - m), both without fast-math
/// flags, the difference used only by the exp; `max` (m's reduction, whose
/// source must be x) completes the match.
std::optional<SoftmaxReductions> matchExpOfDifference(Operation *sum,
                                                      Value operand) {
  auto exp = operand.getDefiningOp<math::ExpOp>();
  if (!exp || exp.getFastmathAttr().getValue() != arith::FastMathFlags::none)
    return std::nullopt;
  auto difference = exp.getOperand().getDefiningOp<arith::SubFOp>();
  if (!difference || !difference->hasOneUse() ||
      difference.getFastmathAttr().getValue() != arith::FastMathFlags::none)
    return std::nullopt;
  return SoftmaxReductions{nullptr, sum, {}, difference, exp, std::nullopt};
}

/// Whether `max` reduces the difference's x, is used once, lies in the sum's
/// block with the exp, and the exp's other uses follow the sum.
bool completes(SoftmaxReductions s, Operation *max, Value source) {
  return source == s.difference.getLhs() &&
         !max->hasAttr(blkgpu::BlkGPUDialect::kCTALocalAttrName) &&
         max->hasOneUse() && max->getBlock() == s.sum->getBlock() &&
         s.exp->getBlock() == s.sum->getBlock() &&
         usedOnlyAfter(s.exp.getResult(), s.sum, s.sum);
}

std::optional<SoftmaxReductions> match(blk::ReduceOp sum) {
  if (sum.getKind() != blk::ReduceKind::Sum || sum->hasAttr(
          blkgpu::BlkGPUDialect::kCTALocalAttrName) ||
      !isSplitBlock(sum.getSrc()) ||
      cast<RankedTensorType>(sum.getSrc().getType()).getRank() != 1 ||
      !sum.getType().isF32())
    return std::nullopt;
  std::optional<SoftmaxReductions> s = matchExpOfDifference(sum, sum.getSrc());
  if (!s)
    return std::nullopt;
  auto splat = s->difference.getRhs().getDefiningOp<blk::SplatOp>();
  if (!splat || !splat->hasOneUse())
    return std::nullopt;
  auto max = splat.getSrc().getDefiningOp<blk::ReduceOp>();
  if (!max || max.getKind() != blk::ReduceKind::Max ||
      !completes(*s, max, max.getSrc()))
    return std::nullopt;
  s->max = max;
  s->splat = splat;
  return s;
}

/// Whether `value` is a block whose lines along `axis` cross the CTAs.
bool linesCrossCTAs(Value value, int64_t axis) {
  auto type = cast<RankedTensorType>(value.getType());
  std::optional<Layout1D> layout = linearLayoutOf(type);
  return layout && axisBitsOf(type.getShape(), *layout, axis).ctaMask;
}

std::optional<SoftmaxReductions> matchLines(blkgpu::AllReduceOp sum) {
  if (sum.getKind() != blk::ReduceKind::Sum ||
      sum->hasAttr(blkgpu::BlkGPUDialect::kCTALocalAttrName) ||
      !sum.getType().getElementType().isF32() ||
      !linesCrossCTAs(sum.getSrc(), sum.getAxis()))
    return std::nullopt;
  std::optional<SoftmaxReductions> s = matchExpOfDifference(sum, sum.getSrc());
  if (!s)
    return std::nullopt;
  auto max = s->difference.getRhs().getDefiningOp<blkgpu::AllReduceOp>();
  if (!max || max.getKind() != blk::ReduceKind::Max ||
      max.getAxis() != sum.getAxis() || !completes(*s, max, max.getSrc()))
    return std::nullopt;
  s->max = max;
  s->axis = sum.getAxis();
  return s;
}

void fuse(SoftmaxReductions s) {
  OpBuilder builder(s.sum);
  Location loc = s.sum->getLoc();
  Value x = s.difference.getLhs();
  auto type = cast<RankedTensorType>(x.getType());
  Type f32 = builder.getF32Type();
  StringRef local = blkgpu::BlkGPUDialect::kCTALocalAttrName;
  // A 1-D block's statistics are scalars, splat where the block needs them;
  // lines' statistics are blocks already.
  Type statType = s.axis ? Type(type) : f32;
  auto broadcast = [&](Value v) -> Value {
    return s.axis ? v : blk::SplatOp::create(builder, loc, type, v);
  };
  auto constant = [&](double v) -> Value {
    TypedAttr value = builder.getFloatAttr(f32, v);
    if (s.axis)
      value = DenseElementsAttr::get(type, value);
    return arith::ConstantOp::create(builder, loc, value);
  };
  auto localReduce = [&](blk::ReduceKind kind, Value source,
                         Location at) -> Value {
    Operation *reduce =
        s.axis ? blkgpu::AllReduceOp::create(builder, at, type, kind, source,
                                             *s.axis)
                     .getOperation()
               : blk::ReduceOp::create(builder, at, kind, source, /*axis=*/0)
                     .getOperation();
    reduce->setAttr(local, builder.getUnitAttr());
    return reduce->getResult(0);
  };

  // The CTA's own max (or line maxima), where the program's was.
  builder.setInsertionPoint(s.max);
  Value localMax = localReduce(blk::ReduceKind::Max, x, s.max->getLoc());

  builder.setInsertionPoint(s.sum);
  Value zero = constant(0);
  Value allMinusInf =
      arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::OEQ, localMax,
                            constant(-std::numeric_limits<double>::infinity()));
  Value offset =
      arith::SelectOp::create(builder, loc, allMinusInf, zero, localMax);
  Value localExp = math::ExpOp::create(
      builder, loc, arith::SubFOp::create(builder, loc, x, broadcast(offset)));
  Value localSum = localReduce(blk::ReduceKind::Sum, localExp, loc);
  auto stats = blkgpu::ClusterSoftmaxStatsOp::create(
      builder, loc, statType, statType, localMax, localSum,
      s.axis ? builder.getI32IntegerAttr(*s.axis) : IntegerAttr());
  Value rescale = arith::SelectOp::create(
      builder, loc, allMinusInf, zero,
      math::ExpOp::create(
          builder, loc,
          arith::SubFOp::create(builder, loc, localMax, stats.getMax())));
  Value exp = arith::MulFOp::create(builder, loc, localExp, broadcast(rescale));

  // softmax's own division, exp(x - max) / sum: one multiply per element,
  // by rescale / sum (a value per row or line), instead of the rescale and
  // then the reciprocal.
  Value sum = s.sum->getResult(0);
  for (OpOperand &use : llvm::make_early_inc_range(s.exp->getUses())) {
    auto div = dyn_cast<arith::DivFOp>(use.getOwner());
    if (!div || use.getOperandNumber() != 0 ||
        div.getFastmathAttr().getValue() != arith::FastMathFlags::none)
      continue;
    auto divisorSplat = div.getRhs().getDefiningOp<blk::SplatOp>();
    Value divisor = s.axis         ? div.getRhs()
                    : divisorSplat ? divisorSplat.getSrc()
                                   : Value();
    if (divisor != sum)
      continue;
    builder.setInsertionPoint(div);
    Value factor = arith::DivFOp::create(builder, loc, rescale, stats.getSum());
    div.replaceAllUsesWith(
        arith::MulFOp::create(builder, loc, localExp, broadcast(factor))
            .getResult());
    div->erase();
    if (!s.axis && divisorSplat->use_empty())
      divisorSplat->erase();
  }
  sum.replaceAllUsesWith(stats.getSum());
  s.sum->erase();
  // The exp's other uses (softmax(x) * scale multiplies it by a splat of
  // scale / sum) take the rescaled local exp; it goes if none is left. This
  // is decided once the uses have moved: before, it has none.
  s.exp.getResult().replaceAllUsesWith(exp);
  s.exp->erase();
  if (exp.use_empty()) {
    Operation *rescaled = exp.getDefiningOp();
    Operation *factor = rescaled->getOperand(1).getDefiningOp();
    rescaled->erase();
    if (!s.axis && factor->use_empty())
      factor->erase();
  }
  s.difference->erase();
  if (s.splat)
    s.splat->erase();
  s.max->erase();
}

struct BlkFuseClusterSoftmax
    : blockjit::impl::BlkFuseClusterSoftmaxBase<BlkFuseClusterSoftmax> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (numCTAsOf(module) < 2)
      return;
    SmallVector<SoftmaxReductions> found;
    module.walk([&](Operation *op) {
      std::optional<SoftmaxReductions> s;
      if (auto sum = dyn_cast<blk::ReduceOp>(op))
        s = match(sum);
      else if (auto sum = dyn_cast<blkgpu::AllReduceOp>(op))
        s = matchLines(sum);
      if (s)
        found.push_back(*s);
    });
    for (SoftmaxReductions &s : found)
      fuse(s);
  }
};

} // namespace
