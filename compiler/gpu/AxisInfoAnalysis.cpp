//===- AxisInfoAnalysis.cpp - the transfer function of each op family ----===//
//
// Notation: a value's facts are (C, D, K) as in AxisInfo.h, N is the size of
// the result's last dimension. Each rule states why it holds for every
// element; where signedness matters (divisions, remainders, comparisons) the
// rule says which ops it covers.
//
//===----------------------------------------------------------------------===//
#include "compiler/gpu/AxisInfoAnalysis.h"

#include "dialect/BlkDialect.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

#include <numeric>

using namespace mlir;
using namespace blockjit;

namespace {

constexpr int64_t kMaxDivisibility = int64_t(1) << 30;
constexpr unsigned kMaxDivisibilityLog2 = 30;

int64_t gcd(int64_t a, int64_t b) { return std::gcd(a, b); }

int64_t powerOfTwo(unsigned log2) {
  return int64_t(1) << std::min(log2, kMaxDivisibilityLog2);
}

int64_t powerOfTwoDividing(const APInt &value) {
  return value.isZero() ? kMaxDivisibility : powerOfTwo(value.countr_zero());
}

int64_t timesCapped(int64_t a, int64_t b) {
  return std::min(kMaxDivisibility, a * b); // both at most 2^30
}

/// Elements along the last dimension; 1 for a scalar.
int64_t lastDimSize(Type type) {
  auto shape = blk::shapeOf(type);
  return shape.empty() ? 1 : shape.back();
}

/// Every element divisible by `divisibility`, runs of `constancy` equal ones.
AxisInfo uniformRuns(int64_t divisibility, int64_t constancy) {
  return {/*contiguity=*/1, divisibility, constancy};
}

AxisInfo constantFacts(arith::ConstantOp op, int64_t size) {
  Attribute value = op.getValue();
  if (auto integer = dyn_cast<IntegerAttr>(value))
    return uniformRuns(powerOfTwoDividing(integer.getValue()), size);
  if (auto splat = dyn_cast<SplatElementsAttr>(value))
    return uniformRuns(isa<IntegerType>(splat.getElementType())
                           ? powerOfTwoDividing(splat.getSplatValue<APInt>())
                           : 1,
                       size);
  // Distinct elements: only what divides them all.
  int64_t divisibility = kMaxDivisibility;
  if (auto dense = dyn_cast<DenseIntElementsAttr>(value))
    for (const APInt &element : dense)
      divisibility = std::min(divisibility, powerOfTwoDividing(element));
  else
    divisibility = 1;
  return uniformRuns(divisibility, 1);
}

/// a + b and ptr + offset: runs of consecutive values where one side is
/// consecutive and the other constant; they start where both operands'
/// elements at that position are divisible.
AxisInfo sumFacts(const AxisInfo &a, const AxisInfo &b, int64_t unitA = 1,
                  int64_t unitB = 1) {
  AxisInfo result;
  result.contiguity =
      std::max(gcd(a.contiguity, b.constancy), gcd(a.constancy, b.contiguity));
  result.divisibility =
      std::min(a.divisibilityAt(result.contiguity, unitA),
               timesCapped(b.divisibilityAt(result.contiguity), unitB));
  result.constancy = gcd(a.constancy, b.constancy);
  return result;
}

/// a - b: consecutive only where a is and b is constant (constant - range
/// counts down).
AxisInfo differenceFacts(const AxisInfo &a, const AxisInfo &b) {
  AxisInfo result;
  result.contiguity = gcd(a.contiguity, b.constancy);
  result.divisibility = std::min(a.divisibilityAt(result.contiguity),
                                 b.divisibilityAt(result.contiguity));
  result.constancy = gcd(a.constancy, b.constancy);
  return result;
}

/// floor(a / c) for a constant c > 0 with `divisorPower` its largest
/// power-of-two divisor, given the constancy `constancy` known otherwise:
/// aligned groups of g = min(C, D, divisorPower) elements of a run hold
/// x0, ..., x0 + g - 1 with g dividing x0; a multiple of c (where the
/// quotient steps) is a multiple of g, so it can only be x0. Truncating
/// signed division also steps after negative multiples of c: not covered.
int64_t floorQuotientConstancy(const AxisInfo &a, int64_t divisorPower,
                               int64_t constancy) {
  if (a.contiguity == 1)
    return constancy;
  return std::max(constancy,
                  std::min({a.contiguity, a.divisibility, divisorPower}));
}

/// a mod c for a constant c > 0 (unsigned, or `a & (c - 1)` for a power of
/// two c): within the groups of floorQuotientConstancy the quotient is
/// constant, so the remainders are consecutive too.
AxisInfo unsignedRemainderFacts(const AxisInfo &a, const AxisInfo &b,
                                const APInt &divisor, int64_t size) {
  int64_t divisorPower = powerOfTwoDividing(divisor);
  bool powerOfTwoDivisor = divisor.isPowerOf2();
  // x - q * c for x divisible by d: divisible by d and by c's power of two;
  // 0 if c is a power of two dividing x.
  auto remainderDivisibility = [&](int64_t d) {
    if (powerOfTwoDivisor && d >= divisorPower)
      return kMaxDivisibility;
    return std::min(d, divisorPower);
  };
  int64_t group = std::min({a.contiguity, a.divisibility, divisorPower});
  if (group > 1)
    return {group, remainderDivisibility(a.divisibilityAt(group)), 1};
  int64_t divisibility = remainderDivisibility(a.divisibilityAt(1));
  if (divisibility == kMaxDivisibility)
    return uniformRuns(divisibility, size); // all zeros
  return uniformRuns(divisibility, gcd(a.constancy, b.constancy));
}

/// a mod c, truncating (remsi) for a constant c > 0: consecutive negative
/// values wrap differently, so only the divisibility of each element.
AxisInfo signedRemainderFacts(const AxisInfo &a, const AxisInfo &b,
                              const APInt &divisor, int64_t size) {
  int64_t elementDivisibility = a.divisibilityAt(1);
  if (divisor.isPowerOf2() &&
      elementDivisibility >= powerOfTwoDividing(divisor))
    return uniformRuns(kMaxDivisibility, size); // all zeros
  return uniformRuns(std::min(elementDivisibility, powerOfTwoDividing(divisor)),
                     gcd(a.constancy, b.constancy));
}

/// a / c for a constant c > 0 (divsi truncates, divui floors): an exact
/// quotient when a power of two c divides every element.
AxisInfo quotientFacts(const AxisInfo &a, const AxisInfo &b,
                       const APInt &divisor, bool isUnsigned) {
  int64_t constancy = gcd(a.constancy, b.constancy);
  if (isUnsigned)
    constancy =
        floorQuotientConstancy(a, powerOfTwoDividing(divisor), constancy);
  int64_t divisibility = 1;
  if (divisor.isPowerOf2())
    divisibility =
        std::max<int64_t>(1, a.divisibilityAt(1) >> divisor.logBase2());
  return uniformRuns(divisibility, constancy);
}

/// a >> k, signed or not: floor(a / 2^k) (an arithmetic shift floors).
AxisInfo shiftRightFacts(const AxisInfo &a, const AxisInfo &b, unsigned shift) {
  int64_t constancy = floorQuotientConstancy(a, powerOfTwo(shift),
                                             gcd(a.constancy, b.constancy));
  int64_t divisibility = std::max<int64_t>(
      1, shift >= kMaxDivisibilityLog2 ? 1 : a.divisibilityAt(1) >> shift);
  return uniformRuns(divisibility, constancy);
}

/// cmp(a, b) where one side is consecutive and the other constant over
/// aligned groups of g = min(C, K, both divisibilities) elements: the
/// consecutive side holds x0, ..., x0 + g - 1 and the constant side some y,
/// both multiples of g, so `x < y` (false from x = y) and `y <= x` (true
/// from x = y) change only at a group's first element. `x <= y`, `x == y`
/// and their mirrors change inside it.
int64_t comparisonConstancy(arith::CmpIPredicate predicate, const AxisInfo &a,
                            const AxisInfo &b) {
  using P = arith::CmpIPredicate;
  int64_t constancy = gcd(a.constancy, b.constancy);
  auto groups = [](const AxisInfo &runs, const AxisInfo &uniform) {
    if (runs.contiguity == 1 || uniform.constancy == 1)
      return int64_t(1);
    return std::min({runs.contiguity, uniform.constancy, runs.divisibility,
                     uniform.divisibility});
  };
  switch (predicate) {
  case P::slt: // a consecutive: a < y; a constant: not covered
  case P::ult:
  case P::sge:
  case P::uge:
    return std::max(constancy, groups(a, b));
  case P::sle: // b consecutive: y <= b
  case P::ule:
  case P::sgt:
  case P::ugt:
    return std::max(constancy, groups(b, a));
  case P::eq:
  case P::ne:
    return constancy;
  }
  llvm_unreachable("unknown cmpi predicate");
}

} // namespace

//===----------------------------------------------------------------------===//
// AxisInfoState
//===----------------------------------------------------------------------===//

AxisInfoState AxisInfoState::join(const AxisInfoState &lhs,
                                  const AxisInfoState &rhs) {
  if (lhs.isUninitialized())
    return rhs;
  if (rhs.isUninitialized())
    return lhs;
  return AxisInfo::join(lhs.getValue(), rhs.getValue());
}

void AxisInfoState::print(llvm::raw_ostream &os) const {
  if (isUninitialized())
    os << "<uninitialized>";
  else
    getValue().print(os);
}

//===----------------------------------------------------------------------===//
// AxisInfoAnalysis
//===----------------------------------------------------------------------===//

void AxisInfoAnalysis::setToEntryState(AxisInfoLattice *lattice) {
  AxisInfo info;
  auto argument = dyn_cast<BlockArgument>(lattice->getAnchor());
  Block *block = argument ? argument.getOwner() : nullptr;
  if (block && block->isEntryBlock())
    if (auto func = dyn_cast<FunctionOpInterface>(block->getParentOp()))
      if (auto attr = func.getArgAttrOfType<IntegerAttr>(
              argument.getArgNumber(), "blk.divisibility");
          attr && attr.getInt() > 0)
        info.divisibility = powerOfTwoDividing(attr.getValue());
  propagateIfChanged(lattice, lattice->join(info));
}

void AxisInfoAnalysis::visitNonControlFlowArguments(
    Operation *op, const RegionSuccessor &successor,
    ArrayRef<AxisInfoLattice *> arguments, unsigned firstIndex) {
  auto loop = dyn_cast<scf::ForOp>(op);
  if (!loop || successor.getSuccessor() != &loop.getRegion())
    return SparseForwardDataFlowAnalysis::visitNonControlFlowArguments(
        op, successor, arguments, firstIndex);
  // The body's other arguments are the iter_args, which the framework joins
  // from the inits and the yields.
  ProgramPoint *point = getProgramPointBefore(loop.getBody());
  const AxisInfoLattice *lower =
      getLatticeElementFor(point, loop.getLowerBound());
  const AxisInfoLattice *step = getLatticeElementFor(point, loop.getStep());
  if (lower->getValue().isUninitialized() || step->getValue().isUninitialized())
    return; // visited again when they are known
  AxisInfoLattice *inductionVar = arguments[0];
  propagateIfChanged(
      inductionVar, inductionVar->join(uniformRuns(
                        std::min(lower->getValue().getValue().divisibilityAt(1),
                                 step->getValue().getValue().divisibilityAt(1)),
                        1)));
}

std::optional<APInt> AxisInfoAnalysis::constantOf(Operation *user,
                                                  Value value) {
  const auto *lattice =
      getOrCreateFor<dataflow::Lattice<dataflow::ConstantValue>>(
          getProgramPointAfter(user), value);
  if (lattice->getValue().isUninitialized()) {
    waitingForConstants = true;
    return std::nullopt;
  }
  Attribute constant = lattice->getValue().getConstantValue();
  if (auto integer = dyn_cast_if_present<IntegerAttr>(constant))
    return integer.getValue();
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(constant);
      splat && isa<IntegerType>(splat.getElementType()))
    return splat.getSplatValue<APInt>();
  return std::nullopt;
}

std::optional<AxisInfo>
AxisInfoAnalysis::transfer(Operation *op, ArrayRef<AxisInfo> operands) {
  if (op->getNumResults() != 1)
    return std::nullopt;
  int64_t size = lastDimSize(op->getResult(0).getType());
  auto rhsConstant = [&]() { return constantOf(op, op->getOperand(1)); };
  return llvm::TypeSwitch<Operation *, std::optional<AxisInfo>>(op)
      .Case([&](arith::ConstantOp constant) {
        return constantFacts(constant, size);
      })
      .Case([&](blk::MakeRangeOp range) -> AxisInfo {
        return {size, powerOfTwoDividing(range.getStartAttr().getValue()), 1};
      })
      .Case([&](blk::SplatOp) {
        return uniformRuns(operands[0].divisibilityAt(1), size);
      })
      .Case([&](blk::BroadcastOp broadcast) -> AxisInfo {
        // Stretching the last dimension from 1 repeats its one element.
        if (lastDimSize(broadcast.getSrc().getType()) == size)
          return operands[0];
        return uniformRuns(operands[0].divisibilityAt(1), size);
      })
      .Case([&](blk::ExpandDimsOp expand) -> AxisInfo {
        // A new last dimension of size 1 holds single elements.
        if (expand.getAxis() ==
            int64_t(blk::shapeOf(expand.getSrc().getType()).size()))
          return uniformRuns(operands[0].divisibilityAt(1), 1);
        return operands[0];
      })
      .Case([&](blk::AddPtrOp addptr) {
        auto pointee = cast<blk::PtrType>(blk::elementTypeOf(addptr.getType()))
                           .getPointeeType();
        int64_t bytes = blk::elementBytes(pointee);
        return sumFacts(operands[0], operands[1], /*unitA=*/bytes,
                        /*unitB=*/bytes);
      })
      .Case([&](arith::AddIOp) { return sumFacts(operands[0], operands[1]); })
      .Case([&](arith::SubIOp) {
        return differenceFacts(operands[0], operands[1]);
      })
      .Case([&](arith::MulIOp) {
        // Products of runs are not runs; each element's factors multiply.
        return uniformRuns(timesCapped(operands[0].divisibilityAt(1),
                                       operands[1].divisibilityAt(1)),
                           gcd(operands[0].constancy, operands[1].constancy));
      })
      .Case<arith::DivSIOp, arith::DivUIOp>(
          [&](Operation *) -> std::optional<AxisInfo> {
            bool isUnsigned = isa<arith::DivUIOp>(op);
            std::optional<APInt> divisor = rhsConstant();
            if (divisor && divisor->isOne())
              return operands[0];
            if (divisor && (isUnsigned ? !divisor->isZero()
                                       : divisor->isStrictlyPositive()))
              return quotientFacts(operands[0], operands[1], *divisor,
                                   isUnsigned);
            return std::nullopt;
          })
      .Case<arith::RemSIOp, arith::RemUIOp>([&](Operation *)
                                                -> std::optional<AxisInfo> {
        std::optional<APInt> divisor = rhsConstant();
        if (isa<arith::RemUIOp>(op) && divisor && !divisor->isZero())
          return unsignedRemainderFacts(operands[0], operands[1], *divisor,
                                        size);
        if (isa<arith::RemSIOp>(op) && divisor && divisor->isStrictlyPositive())
          return signedRemainderFacts(operands[0], operands[1], *divisor, size);
        return std::nullopt;
      })
      .Case([&](arith::AndIOp) -> AxisInfo {
        std::optional<APInt> mask = rhsConstant();
        if (mask && mask->isAllOnes())
          return operands[0];
        // x & (2^k - 1) is x mod 2^k, unsigned.
        if (mask && mask->isMask())
          return unsignedRemainderFacts(operands[0], operands[1], *mask + 1,
                                        size);
        // Trailing zeros of either side stay zeros.
        return uniformRuns(std::max(operands[0].divisibilityAt(1),
                                    operands[1].divisibilityAt(1)),
                           gcd(operands[0].constancy, operands[1].constancy));
      })
      .Case([&](arith::ShLIOp) -> AxisInfo {
        std::optional<APInt> shift = rhsConstant();
        int64_t constancy = gcd(operands[0].constancy, operands[1].constancy);
        if (!shift || shift->uge(shift->getBitWidth()))
          return uniformRuns(operands[0].divisibilityAt(1), constancy);
        if (shift->isZero())
          return operands[0];
        return uniformRuns(timesCapped(operands[0].divisibilityAt(1),
                                       powerOfTwo(shift->getZExtValue())),
                           constancy);
      })
      .Case<arith::ShRSIOp, arith::ShRUIOp>(
          [&](Operation *) -> std::optional<AxisInfo> {
            std::optional<APInt> shift = rhsConstant();
            if (!shift || shift->uge(shift->getBitWidth()))
              return std::nullopt;
            if (shift->isZero())
              return operands[0];
            return shiftRightFacts(operands[0], operands[1],
                                   shift->getZExtValue());
          })
      .Case([&](arith::SelectOp select) -> AxisInfo {
        if (std::optional<APInt> condition =
                constantOf(op, select.getCondition()))
          return operands[condition->isZero() ? 2 : 1];
        // A scalar condition picks one side for the whole block.
        int64_t conditionConstancy =
            blk::isBlock(select.getCondition().getType())
                ? operands[0].constancy
                : size;
        AxisInfo result;
        result.contiguity =
            gcd(conditionConstancy,
                gcd(operands[1].contiguity, operands[2].contiguity));
        result.divisibility =
            std::min(operands[1].divisibilityAt(result.contiguity),
                     operands[2].divisibilityAt(result.contiguity));
        result.constancy = gcd(conditionConstancy, gcd(operands[1].constancy,
                                                       operands[2].constancy));
        return result;
      })
      // A scalar min or max is one of its operands (a mask bound clamped to
      // its specialization's range keeps its divisibility).
      .Case<arith::MinSIOp, arith::MaxSIOp, arith::MinUIOp, arith::MaxUIOp>(
          [&](Operation *) -> AxisInfo {
            if (blk::isBlock(op->getResult(0).getType()))
              return uniformRuns(
                  1, gcd(operands[0].constancy, operands[1].constancy));
            return AxisInfo::join(operands[0], operands[1]);
          })
      .Case([&](arith::CmpIOp cmp) {
        return uniformRuns(1, comparisonConstancy(cmp.getPredicate(),
                                                  operands[0], operands[1]));
      })
      // Runs stay runs, assuming (as the frontend's offsets do) that they do
      // not wrap past the narrow type's range.
      .Case<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(
          [&](Operation *) { return operands[0]; })
      .Default([&](Operation *) -> std::optional<AxisInfo> {
        if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumOperands() == 0)
          return std::nullopt;
        // Uniform wherever every block operand is; scalars are uniform.
        int64_t constancy = size;
        for (auto [operand, info] : llvm::zip(op->getOperands(), operands))
          if (blk::isBlock(operand.getType()))
            constancy = gcd(constancy, info.constancy);
        return uniformRuns(1, constancy);
      });
}

LogicalResult
AxisInfoAnalysis::visitOperation(Operation *op,
                                 ArrayRef<const AxisInfoLattice *> operands,
                                 ArrayRef<AxisInfoLattice *> results) {
  // An operand not reached yet (an iter_arg on the first visit): the op is
  // visited again when it is.
  if (llvm::any_of(operands, [](const AxisInfoLattice *operand) {
        return operand->getValue().isUninitialized();
      }))
    return success();
  SmallVector<AxisInfo> operandInfos =
      llvm::map_to_vector(operands, [](const AxisInfoLattice *operand) {
        return operand->getValue().getValue();
      });
  waitingForConstants = false;
  std::optional<AxisInfo> result = transfer(op, operandInfos);
  if (waitingForConstants)
    return success();
  if (!result) {
    setAllToEntryStates(results);
    return success();
  }
  propagateIfChanged(results[0], results[0]->join(*result));
  return success();
}
