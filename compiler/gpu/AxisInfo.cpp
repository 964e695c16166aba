//===- AxisInfo.cpp - contiguity, divisibility and constancy of values ---===//
#include "compiler/gpu/AxisInfo.h"

#include "dialect/BlkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace blockjit {
namespace {

constexpr int64_t kMaxDivisibility = int64_t(1) << 30;

int64_t powerOfTwoDividing(int64_t value) {
  if (value == 0)
    return kMaxDivisibility;
  return std::min<int64_t>(kMaxDivisibility,
                           int64_t(1) << llvm::countr_zero(uint64_t(value)));
}

int64_t sizeOf(Type type) {
  auto shape = blk::shapeOf(type);
  return shape.empty() ? 1 : shape[0];
}

int64_t gcd(int64_t a, int64_t b) { return std::gcd(a, b); }

/// The power of two known to divide *every* element. `divisibility` holds
/// for the first element of each contiguous run; inside a run of consecutive
/// integers only 1 divides them all.
int64_t elementDivisibility(const AxisInfo &x) {
  return x.contiguity > 1 ? 1 : x.divisibility;
}

/// The divisibility of a sum-like result: of its runs' first elements when
/// it has runs (they line up with the operands' runs), else of every
/// element.
int64_t sumDivisibility(const AxisInfo &result, const AxisInfo &a,
                        const AxisInfo &b) {
  if (result.contiguity > 1)
    return std::min(a.divisibility, b.divisibility);
  return std::min(elementDivisibility(a), elementDivisibility(b));
}

} // namespace

AxisAnalysis::AxisAnalysis(func::FuncOp func) {
  for (BlockArgument arg : func.getArguments()) {
    AxisInfo info;
    if (auto attr = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(),
                                                       "blk.divisibility"))
      info.divisibility = attr.getInt();
    infos[arg] = info;
  }
  func.walk([&](Operation *op) {
    for (OpResult result : op->getResults())
      infos[result] = compute(op, result);
  });
}

AxisInfo AxisAnalysis::get(Value value) const {
  auto it = infos.find(value);
  return it == infos.end() ? AxisInfo() : it->second;
}

AxisInfo AxisAnalysis::compute(Operation *op, Value result) {
  int64_t size = sizeOf(result.getType());
  auto operand = [&](unsigned i) { return get(op->getOperand(i)); };
  AxisInfo info;
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    info.constancy = size;
    if (auto integer = dyn_cast<IntegerAttr>(constant.getValue()))
      info.divisibility = powerOfTwoDividing(integer.getInt());
    else if (auto splat = dyn_cast<SplatElementsAttr>(constant.getValue());
             splat && isa<IntegerType>(splat.getElementType()))
      info.divisibility =
          powerOfTwoDividing(splat.getSplatValue<APInt>().getSExtValue());
    return info;
  }
  if (auto range = dyn_cast<blk::MakeRangeOp>(op)) {
    info.contiguity = size;
    info.divisibility = powerOfTwoDividing(range.getStartAttr().getInt());
    return info;
  }
  if (isa<blk::SplatOp>(op)) {
    info = operand(0);
    info.contiguity = 1;
    info.constancy = size;
    return info;
  }
  if (auto addptr = dyn_cast<blk::AddPtrOp>(op)) {
    AxisInfo ptr = operand(0), offset = operand(1);
    unsigned bytes =
        std::max(1u, cast<blk::PtrType>(blk::elementTypeOf(addptr.getType()))
                             .getPointeeType()
                             .getIntOrFloatBitWidth() /
                         8);
    info.contiguity = std::max(gcd(ptr.constancy, offset.contiguity),
                               gcd(ptr.contiguity, offset.constancy));
    AxisInfo offsetBytes = offset;
    offsetBytes.divisibility =
        std::min(kMaxDivisibility, offset.divisibility * int64_t(bytes));
    info.divisibility = sumDivisibility(info, ptr, offsetBytes);
    if (info.contiguity == 1 && offset.contiguity > 1)
      info.divisibility = std::min(ptr.divisibility, int64_t(bytes));
    info.constancy = gcd(ptr.constancy, offset.constancy);
    return info;
  }
  if (isa<arith::AddIOp, arith::SubIOp>(op)) {
    AxisInfo a = operand(0), b = operand(1);
    info.contiguity = std::max(gcd(a.contiguity, b.constancy),
                               gcd(a.constancy, b.contiguity));
    info.divisibility = sumDivisibility(info, a, b);
    info.constancy = gcd(a.constancy, b.constancy);
    return info;
  }
  if (isa<arith::MulIOp>(op)) {
    AxisInfo a = operand(0), b = operand(1);
    // Products lose contiguity: every element's divisibility multiplies.
    info.divisibility = std::min(kMaxDivisibility, elementDivisibility(a) *
                                                       elementDivisibility(b));
    info.constancy = gcd(a.constancy, b.constancy);
    return info;
  }
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(op))
    return operand(0);
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    AxisInfo a = operand(0), b = operand(1);
    info.constancy = gcd(a.constancy, b.constancy);
    // contiguous < uniform: equal over aligned runs of both divisibilities.
    if (b.constancy > 1 && a.contiguity > 1)
      info.constancy =
          std::max(info.constancy, gcd(gcd(a.contiguity, b.constancy),
                                       gcd(a.divisibility, b.divisibility)));
    if (a.constancy > 1 && b.contiguity > 1)
      info.constancy =
          std::max(info.constancy, gcd(gcd(b.contiguity, a.constancy),
                                       gcd(a.divisibility, b.divisibility)));
    return info;
  }
  if (op->getNumOperands() > 0 && op->hasTrait<OpTrait::Elementwise>()) {
    // Elementwise results are uniform wherever all operands are.
    info.constancy = size;
    for (Value v : op->getOperands())
      info.constancy = gcd(info.constancy, get(v).constancy);
    return info;
  }
  return info;
}

} // namespace blockjit
