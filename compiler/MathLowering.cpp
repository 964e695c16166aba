//===- MathLowering.cpp - math functions each target can run -------------===//
#include "compiler/MathLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace blockjit {
namespace {

/// "math.exp" or "exp" -> "exp".
StringRef mnemonic(StringRef name) {
  name.consume_front("math.");
  return name;
}

/// Ops the NVPTX backend selects directly (instructions such as ex2.approx,
/// sqrt.rn, cvt.rmi, fma.rn, clz, popc); everything else is approximated or
/// expanded first.
bool isNativeOnNVPTX(StringRef name) {
  return llvm::is_contained({"exp2", "sqrt", "rsqrt", "absf", "absi", "floor",
                             "ceil", "trunc", "roundeven", "fma", "copysign",
                             "ctlz", "cttz", "ctpop"},
                            mnemonic(name));
}

/// Ops expanded into others (tanh and the hyperbolics through exp, powf
/// through exp and log, ...) on the GPU, where no library provides them.
constexpr StringRef kExpandedOnNVPTX[] = {"tanh",  "sinh",  "cosh",   "tan",
                                          "asinh", "acosh", "atanh",  "powf",
                                          "fpowi", "ipowi", "clampf", "round"};

/// Unary float functions whose approximation computes fptosi of a value
/// derived from the input: for a NaN input that is poison. Their results
/// are replaced by the input itself when it is NaN.
bool needsNaNGuard(Operation *op) {
  return isa<math::ExpOp, math::Exp2Op, math::ExpM1Op, math::LogOp,
             math::Log2Op, math::Log1pOp, math::TanhOp, math::ErfOp,
             math::SinOp, math::CosOp, math::AtanOp, math::CbrtOp>(op) &&
         op->getNumOperands() == 1 &&
         isa<FloatType>(getElementTypeOrSelf(op->getOperand(0).getType()));
}

void guardNaNs(ModuleOp module, MathTarget target) {
  SmallVector<Operation *> ops;
  module.walk([&](Operation *op) {
    // exp2 stays an instruction on the GPU (NaN in, NaN out).
    if (needsNaNGuard(op) && !(target == MathTarget::NVPTX &&
                               isNativeOnNVPTX(op->getName().getStringRef())))
      ops.push_back(op);
  });
  OpBuilder builder(module.getContext());
  for (Operation *op : ops) {
    builder.setInsertionPointAfter(op);
    Location loc = op->getLoc();
    Value x = op->getOperand(0), result = op->getResult(0);
    Value isNaN =
        arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::UNO, x, x);
    auto select = arith::SelectOp::create(builder, loc, isNaN, x, result);
    result.replaceAllUsesExcept(select, select);
  }
}

/// MLIR's log approximations clamp their input to the smallest normal
/// float, so the log of a denormal came out as log(FLT_MIN) = -87.34. f32
/// inputs below 2^-126 are scaled by 2^24 first, and 24 * log(2) (24 for
/// log2) is taken off the result. Zero, negative and NaN inputs give what
/// they gave (-inf, NaN).
void scaleDenormalLogs(ModuleOp module) {
  SmallVector<Operation *> ops;
  module.walk([&](Operation *op) {
    if (isa<math::LogOp, math::Log2Op>(op) &&
        getElementTypeOrSelf(op->getResult(0).getType()).isF32())
      ops.push_back(op);
  });
  OpBuilder builder(module.getContext());
  for (Operation *op : ops) {
    Location loc = op->getLoc();
    Value x = op->getOperand(0);
    Type type = x.getType();
    auto constant = [&](double v) -> Value {
      TypedAttr attr = builder.getF32FloatAttr(float(v));
      if (auto shaped = dyn_cast<ShapedType>(type))
        attr = DenseElementsAttr::get(shaped, ArrayRef<Attribute>(attr));
      return arith::ConstantOp::create(builder, loc, attr);
    };
    builder.setInsertionPoint(op);
    Value tiny = arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::OLT,
                                       x, constant(0x1p-126));
    Value scaled = arith::MulFOp::create(builder, loc, x, constant(0x1p24));
    op->setOperand(0, arith::SelectOp::create(builder, loc, tiny, scaled, x));
    builder.setInsertionPointAfter(op);
    Value result = op->getResult(0);
    double shift = isa<math::LogOp>(op) ? 24 * 0.69314718055994530942 : 24;
    auto corrected =
        arith::SubFOp::create(builder, loc, result, constant(shift));
    auto select =
        arith::SelectOp::create(builder, loc, tiny, corrected, result);
    SmallPtrSet<Operation *, 2> except = {corrected, select};
    result.replaceAllUsesExcept(select, except);
  }
}

} // namespace

LogicalResult lowerMathForTarget(ModuleOp module, MathTarget target) {
  MLIRContext *context = module.getContext();
  scaleDenormalLogs(module);
  guardNaNs(module, target);
  RewritePatternSet patterns(context);
  if (target == MathTarget::NVPTX) {
    SmallVector<StringRef> expanded(std::begin(kExpandedOnNVPTX),
                                    std::end(kExpandedOnNVPTX));
    math::populateExpansionPatterns(patterns, expanded);
    auto approximate = [](StringRef name) { return !isNativeOnNVPTX(name); };
    populateMathF32ExpansionPatterns(patterns, approximate);
    populateMathPolynomialApproximationPatterns(patterns, approximate);
  } else {
    // Polynomial approximations vectorize; libm calls would not.
    auto all = [](StringRef) { return true; };
    populateMathF32ExpansionPatterns(patterns, all);
    populateMathPolynomialApproximationPatterns(patterns, all);
  }
  if (failed(applyPatternsGreedily(module, std::move(patterns))))
    return module.emitError() << "math approximations did not converge";
  if (target == MathTarget::Host)
    return success(); // the rest are libm calls the host JIT resolves
  bool ok = true;
  module.walk([&](Operation *op) {
    // ex2.approx has no f64 form: an f64 exp2 (block exp becomes exp2 in
    // the NVVM conversion) would end the process in instruction selection
    // ("Cannot select: NVPTXISD::CALL").
    bool f64Exp2 = isa<math::Exp2Op>(op) &&
                   getElementTypeOrSelf(op->getResult(0).getType()).isF64();
    if (!isa<math::MathDialect>(op->getDialect()) ||
        (isNativeOnNVPTX(op->getName().getStringRef()) && !f64Exp2))
      return;
    op->emitOpError() << "has no lowering for the CUDA target (NVPTX has no "
                         "instruction or library call for it)";
    ok = false;
  });
  return success(ok);
}

} // namespace blockjit
