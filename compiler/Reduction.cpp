//===- Reduction.cpp - how blk.reduce combines, for every backend --------===//
#include "compiler/Reduction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"

#include <limits>

using namespace mlir;

namespace blockjit {

Type reductionAccumulatorType(Type element) {
  if (isa<FloatType>(element) && element.getIntOrFloatBitWidth() < 32)
    return Float32Type::get(element.getContext());
  return element;
}

Value reductionIdentity(OpBuilder &builder, Location loc, blk::ReduceKind kind,
                        Type type) {
  if (auto f = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = f.getFloatSemantics();
    APFloat init = kind == blk::ReduceKind::Sum
                       ? APFloat::getZero(sem)
                       : APFloat::getInf(sem, kind == blk::ReduceKind::Max);
    return arith::ConstantOp::create(builder, loc, FloatAttr::get(f, init));
  }
  unsigned width = type.getIntOrFloatBitWidth();
  APInt init = kind == blk::ReduceKind::Sum   ? APInt::getZero(width)
               : kind == blk::ReduceKind::Max ? APInt::getSignedMinValue(width)
                                              : APInt::getSignedMaxValue(width);
  return arith::ConstantOp::create(builder, loc, IntegerAttr::get(type, init));
}

Value combineReduction(OpBuilder &builder, Location loc, blk::ReduceKind kind,
                       Value acc, Value x, bool reassociate) {
  bool isFloat = isa<FloatType>(getElementTypeOrSelf(acc.getType()));
  switch (kind) {
  case blk::ReduceKind::Sum: {
    if (!isFloat)
      return arith::AddIOp::create(builder, loc, acc, x);
    auto flags = arith::FastMathFlagsAttr::get(
        builder.getContext(), reassociate ? arith::FastMathFlags::reassoc
                                          : arith::FastMathFlags::none);
    return arith::AddFOp::create(builder, loc, acc, x, flags);
  }
  case blk::ReduceKind::Max:
    return isFloat ? Value(arith::MaximumFOp::create(builder, loc, acc, x))
                   : Value(arith::MaxSIOp::create(builder, loc, acc, x));
  case blk::ReduceKind::Min:
    return isFloat ? Value(arith::MinimumFOp::create(builder, loc, acc, x))
                   : Value(arith::MinSIOp::create(builder, loc, acc, x));
  }
  return {};
}

Value combineInterleaved(OpBuilder &builder, Location loc, blk::ReduceKind kind,
                         ArrayRef<Value> values, int64_t partials,
                         bool reassociate) {
  assert(!values.empty() && partials >= 1 && "nothing to combine");
  auto combine = [&](Value acc, Value x) {
    return combineReduction(builder, loc, kind, acc, x, reassociate);
  };
  SmallVector<Value> acc(values.begin(),
                         values.begin() +
                             std::min<size_t>(values.size(), size_t(partials)));
  for (size_t k = acc.size(); k < values.size(); ++k)
    acc[k % acc.size()] = combine(acc[k % acc.size()], values[k]);
  // Pairwise, neighbours first: (p0 (op) p1) (op) (p2 (op) p3), ...; an odd
  // last partial moves up a level as it is.
  while (acc.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i < acc.size(); i += 2)
      next.push_back(i + 1 < acc.size() ? combine(acc[i], acc[i + 1]) : acc[i]);
    acc = std::move(next);
  }
  return acc.front();
}

//===----------------------------------------------------------------------===//
// blk.arg_reduce: (value, index) pairs
//===----------------------------------------------------------------------===//

Type argReductionValueType(Type element) {
  if (isa<FloatType>(element))
    return reductionAccumulatorType(element);
  if (element.getIntOrFloatBitWidth() < 32)
    return IntegerType::get(element.getContext(), 32);
  return element;
}

Value argReductionValue(OpBuilder &builder, Location loc, Value x) {
  Type type = argReductionValueType(x.getType());
  if (type == x.getType())
    return x;
  if (isa<FloatType>(type))
    return arith::ExtFOp::create(builder, loc, type, x);
  return arith::ExtSIOp::create(builder, loc, type, x);
}

std::pair<Value, Value> argReductionIdentity(OpBuilder &builder, Location loc,
                                             blk::ReduceKind kind,
                                             Type valueType) {
  Value index = arith::ConstantIntOp::create(
      builder, loc, std::numeric_limits<int32_t>::max(), 32);
  return {reductionIdentity(builder, loc, kind, valueType), index};
}

std::pair<Value, Value> combineArgReduction(OpBuilder &builder, Location loc,
                                            blk::ReduceKind kind,
                                            Value accValue, Value accIndex,
                                            Value x, Value xIndex) {
  using FP = arith::CmpFPredicate;
  using IP = arith::CmpIPredicate;
  bool isMax = kind == blk::ReduceKind::Max;
  Value firstIndex =
      arith::CmpIOp::create(builder, loc, IP::slt, xIndex, accIndex);
  Value better;
  if (isa<FloatType>(x.getType())) {
    auto cmp = [&](FP p, Value a, Value b) -> Value {
      return arith::CmpFOp::create(builder, loc, p, a, b);
    };
    Value xNaN = cmp(FP::UNO, x, x), accNaN = cmp(FP::UNO, accValue, accValue);
    Value beyond = cmp(isMax ? FP::OGT : FP::OLT, x, accValue);
    Value tie = arith::AndIOp::create(builder, loc, cmp(FP::OEQ, x, accValue),
                                      firstIndex);
    // x a NaN: better unless acc is an earlier NaN; acc a NaN: never;
    // otherwise beyond acc, or equal with a smaller index.
    Value numberBetter = arith::AndIOp::create(
        builder, loc,
        arith::XOrIOp::create(builder, loc, accNaN,
                              arith::ConstantIntOp::create(builder, loc, 1, 1)),
        arith::OrIOp::create(builder, loc, beyond, tie));
    Value nanBetter = arith::OrIOp::create(
        builder, loc,
        arith::XOrIOp::create(builder, loc, accNaN,
                              arith::ConstantIntOp::create(builder, loc, 1, 1)),
        firstIndex);
    better =
        arith::SelectOp::create(builder, loc, xNaN, nanBetter, numberBetter);
  } else {
    Value beyond = arith::CmpIOp::create(
        builder, loc, isMax ? IP::sgt : IP::slt, x, accValue);
    Value tie = arith::AndIOp::create(
        builder, loc, arith::CmpIOp::create(builder, loc, IP::eq, x, accValue),
        firstIndex);
    better = arith::OrIOp::create(builder, loc, beyond, tie);
  }
  return {arith::SelectOp::create(builder, loc, better, x, accValue),
          arith::SelectOp::create(builder, loc, better, xIndex, accIndex)};
}

Value inlineScanCombine(OpBuilder &builder, blk::ScanOp scan, Value acc,
                        Value x) {
  Block &body = scan.getCombine().front();
  IRMapping mapping;
  mapping.map(body.getArgument(0), acc);
  mapping.map(body.getArgument(1), x);
  for (Operation &op : body.without_terminator())
    builder.clone(op, mapping);
  auto ret = cast<blk::ScanReturnOp>(body.getTerminator());
  return mapping.lookupOrDefault(ret.getResult());
}

} // namespace blockjit
