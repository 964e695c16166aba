//===- Reduction.cpp - how blk.reduce combines, for every backend --------===//
#include "compiler/Reduction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"

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
  bool isFloat = isa<FloatType>(acc.getType());
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
