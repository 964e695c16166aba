//===- MaskTerms.cpp - masks of loads and stores, split into terms -------===//
#include "compiler/MaskTerms.h"

#include "dialect/BlkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

#include <limits>

#include <optional>

using namespace mlir;

namespace blockjit {
namespace {

llvm::SmallBitVector
variesAlongMemo(Value value, llvm::DenseMap<Value, llvm::SmallBitVector> &memo);
llvm::SmallBitVector
computeVariesAlong(Value value,
                   llvm::DenseMap<Value, llvm::SmallBitVector> &memo);

int64_t rankOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getRank();
}

/// Every dimension of `value` longer than 1.
llvm::SmallBitVector longDimensions(Value value) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(value.getType()).getShape();
  llvm::SmallBitVector dims(shape.size());
  for (auto [d, size] : llvm::enumerate(shape))
    if (size > 1)
      dims.set(d);
  return dims;
}

/// An index expression along the innermost dimension: make_range (seen
/// through broadcasts, expand_dims and sign extensions) plus terms constant
/// along that dimension.
struct IndexExpression {
  int64_t start = 0;
  Value offset; // null, or a block constant along the innermost dimension
  /// The bits of the integers `offset` is added in (PrefixTerm).
  unsigned offsetWidth = 0;
  /// The axes of the expression's value that `offset` lacks (PrefixTerm).
  llvm::SmallVector<int64_t, 2> offsetDroppedAxes;
};

std::optional<IndexExpression> matchIndex(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto range = dyn_cast<blk::MakeRangeOp>(def))
    return IndexExpression{range.getStart(), Value()};
  // The innermost dimension of a broadcast (or expand_dims, not at the
  // innermost axis) varying along it is its source's innermost dimension.
  if (auto bcast = dyn_cast<blk::BroadcastOp>(def))
    return matchIndex(bcast.getSrc());
  if (auto expand = dyn_cast<blk::ExpandDimsOp>(def)) {
    if (expand.getAxis() == rankOf(value) - 1)
      return std::nullopt;
    std::optional<IndexExpression> inner = matchIndex(expand.getSrc());
    // An offset found below lacks the new axis.
    if (inner && inner->offset)
      inner->offsetDroppedAxes.insert(inner->offsetDroppedAxes.begin(),
                                      expand.getAxis());
    return inner;
  }
  if (isa<arith::ExtSIOp>(def))
    return matchIndex(def->getOperand(0));
  if (auto add = dyn_cast<arith::AddIOp>(def)) {
    int64_t last = rankOf(value) - 1;
    Value lhs = add.getLhs(), rhs = add.getRhs();
    if (variesAlong(lhs).test(last) == variesAlong(rhs).test(last))
      return std::nullopt;
    if (variesAlong(rhs).test(last))
      std::swap(lhs, rhs);
    std::optional<IndexExpression> inner = matchIndex(lhs);
    // One offset block at most (enough for `start + arange`).
    if (!inner || inner->offset)
      return std::nullopt;
    inner->offset = rhs;
    inner->offsetWidth =
        getElementTypeOrSelf(add.getType()).getIntOrFloatBitWidth();
    return inner;
  }
  return std::nullopt;
}

/// The predicate `b p a` for `a p' b`, when p' is a greater-than.
std::optional<arith::CmpIPredicate> mirrored(arith::CmpIPredicate predicate) {
  switch (predicate) {
  case arith::CmpIPredicate::sgt:
    return arith::CmpIPredicate::slt;
  case arith::CmpIPredicate::sge:
    return arith::CmpIPredicate::sle;
  case arith::CmpIPredicate::ugt:
    return arith::CmpIPredicate::ult;
  case arith::CmpIPredicate::uge:
    return arith::CmpIPredicate::ule;
  default:
    return std::nullopt;
  }
}

/// `term` as a prefix of the innermost dimension, if it is one.
std::optional<PrefixTerm> matchPrefix(Value term) {
  // A compare of a smaller block (a row of column indices against n) that
  // the mask broadcasts along other dimensions than the innermost one.
  if (auto bcast = term.getDefiningOp<blk::BroadcastOp>()) {
    ArrayRef<int64_t> from = bcast.getSrc().getType().getShape();
    if (from.back() != cast<RankedTensorType>(term.getType()).getShape().back())
      return std::nullopt;
    std::optional<PrefixTerm> prefix = matchPrefix(bcast.getSrc());
    if (prefix)
      prefix->term = term;
    return prefix;
  }
  auto cmp = term.getDefiningOp<arith::CmpIOp>();
  if (!cmp)
    return std::nullopt;
  int64_t last = rankOf(term) - 1;
  Value index = cmp.getLhs(), bound = cmp.getRhs();
  arith::CmpIPredicate predicate = cmp.getPredicate();
  // n > i is i < n.
  if (std::optional<arith::CmpIPredicate> lessThan = mirrored(predicate)) {
    predicate = *lessThan;
    std::swap(index, bound);
  }
  if (variesAlong(bound).test(last))
    return std::nullopt;
  std::optional<IndexExpression> expression = matchIndex(index);
  if (!expression)
    return std::nullopt;
  PrefixTerm prefix{term, bound, expression->offset, expression->start};
  prefix.offsetWidth = expression->offsetWidth;
  prefix.offsetDroppedAxes = expression->offsetDroppedAxes;
  switch (predicate) {
  case arith::CmpIPredicate::slt:
    return prefix;
  case arith::CmpIPredicate::sle:
    prefix.inclusive = true;
    return prefix;
  case arith::CmpIPredicate::ult:
  case arith::CmpIPredicate::ule:
    // i + start (>= 0, below 2^31) against n read as unsigned.
    if (prefix.offset || prefix.start < 0)
      return std::nullopt;
    prefix.inclusive = predicate == arith::CmpIPredicate::ule;
    prefix.isUnsigned = true;
    return prefix;
  default:
    return std::nullopt;
  }
}

void collectTerms(Value mask, MaskTerms &terms) {
  if (auto conjunction = mask.getDefiningOp<arith::AndIOp>()) {
    collectTerms(conjunction.getLhs(), terms);
    collectTerms(conjunction.getRhs(), terms);
    return;
  }
  int64_t last = rankOf(mask) - 1;
  if (!variesAlong(mask).test(last))
    terms.perLine.push_back(mask);
  else if (std::optional<PrefixTerm> prefix = matchPrefix(mask))
    terms.prefixes.push_back(*prefix);
  else
    terms.perElement.push_back(mask);
}

} // namespace

namespace {

llvm::SmallBitVector
variesAlongMemo(Value value,
                llvm::DenseMap<Value, llvm::SmallBitVector> &memo) {
  if (auto it = memo.find(value); it != memo.end())
    return it->second;
  llvm::SmallBitVector dims = computeVariesAlong(value, memo);
  memo[value] = dims;
  return dims;
}

llvm::SmallBitVector
computeVariesAlong(Value value,
                   llvm::DenseMap<Value, llvm::SmallBitVector> &memo) {
  auto type = cast<RankedTensorType>(value.getType());
  llvm::SmallBitVector none(type.getRank());
  Operation *def = value.getDefiningOp();
  if (!def)
    return longDimensions(value);
  if (isa<blk::SplatOp, arith::ConstantOp>(def))
    return none;
  if (isa<blk::MakeRangeOp>(def))
    return longDimensions(value);
  if (auto bcast = dyn_cast<blk::BroadcastOp>(def)) {
    // Equal ranks: a dimension of size 1 in the source does not vary.
    llvm::SmallBitVector dims = variesAlongMemo(bcast.getSrc(), memo);
    for (auto [d, size] : llvm::enumerate(bcast.getSrc().getType().getShape()))
      if (size == 1)
        dims.reset(d);
    return dims;
  }
  if (auto expand = dyn_cast<blk::ExpandDimsOp>(def)) {
    llvm::SmallBitVector src = variesAlongMemo(expand.getSrc(), memo);
    for (unsigned d = 0, r = 0; d < type.getRank(); ++d) {
      if (int64_t(d) == expand.getAxis())
        continue;
      if (src.test(r++))
        none.set(d);
    }
    return none;
  }
  // Elementwise ops (and addptr): the union of their block operands.
  if (def->getNumResults() == 1 &&
      (def->hasTrait<OpTrait::Elementwise>() || isa<blk::AddPtrOp>(def))) {
    for (Value operand : def->getOperands()) {
      auto operandType = dyn_cast<RankedTensorType>(operand.getType());
      if (!operandType)
        continue;
      if (operandType.getShape() != type.getShape())
        return longDimensions(value);
      none |= variesAlongMemo(operand, memo);
    }
    return none;
  }
  return longDimensions(value);
}

} // namespace

llvm::SmallBitVector variesAlong(Value value) {
  llvm::DenseMap<Value, llvm::SmallBitVector> memo;
  return variesAlongMemo(value, memo);
}

llvm::SmallVector<Value> readIndices(Value value, ValueRange indices,
                                     ArrayRef<int64_t> droppedAxes,
                                     Value zeroIndex) {
  llvm::SmallVector<Value> result(indices);
  for (int64_t axis : droppedAxes)
    result.erase(result.begin() + axis);
  ArrayRef<int64_t> shape = cast<RankedTensorType>(value.getType()).getShape();
  assert(shape.size() == result.size() && "indices of the value's rank");
  for (auto [d, size] : llvm::enumerate(shape))
    if (size == 1)
      result[d] = zeroIndex;
  return result;
}

Value prefixIndexWraps(OpBuilder &builder, Location loc,
                       const PrefixTerm &prefix, Value offset, int64_t size) {
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(builder, loc, v, 64);
  };
  if (!prefix.offset)
    return arith::ConstantIntOp::create(builder, loc, 0, 1);
  // The width the offset is added in: the compare may be wider (an i32
  // `start + cols` sign-extended against an i64 bound), the wrap is not.
  unsigned width = prefix.offsetWidth;
  int64_t highest = width >= 64 ? std::numeric_limits<int64_t>::max()
                                : (int64_t(1) << (width - 1)) - 1;
  int64_t lowest = -highest - 1;
  int64_t last = prefix.start + size - 1;
  // start + offset >= lowest and last + offset <= highest, written so that
  // no constant overflows (a bound past the type's is never crossed).
  Value wraps = arith::ConstantIntOp::create(builder, loc, 0, 1);
  if (last >= 0)
    wraps = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sgt,
                                  offset, constant(highest - last));
  if (prefix.start < 0)
    wraps = arith::OrIOp::create(
        builder, loc, wraps,
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, offset,
                              constant(lowest - prefix.start)));
  return wraps;
}

MaskTerms splitMask(Value mask) {
  MaskTerms terms;
  collectTerms(mask, terms);
  return terms;
}

} // namespace blockjit
