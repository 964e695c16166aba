//===- MathLowering.cpp - math functions each target can run -------------===//
#include "compiler/MathLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <numbers>
#include <type_traits>

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

/// Ops expanded into others (the hyperbolics through exp, powf through exp
/// and log, ...) on both targets, so that they compute the same way on each
/// (the host would otherwise call libm). tanh is not among them: its
/// polynomial approximation is more precise near 0 than the expansion.
constexpr StringRef kExpanded[] = {"sinh",  "cosh",   "tan",  "asinh",
                                   "acosh", "atanh",  "powf", "fpowi",
                                   "ipowi", "clampf", "round"};

/// exp(x) = exp2(x * log2(e)) and log(x) = log2(x) * ln(2) on the GPU, for
/// scalars and block elements alike: exp2 is the ex2.approx instruction
/// (faster than the polynomial, and what softmax uses), log2 the polynomial.
template <typename Op> struct ThroughBase2 : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;
  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getType();
    bool isExp = std::is_same_v<Op, math::ExpOp>;
    // f16 and bf16 compute in f32: x * log2(e) rounded to 11 (or 8) bits
    // would be off by up to 0.5% (or 4%) after exp2.
    if (getElementTypeOrSelf(type).getIntOrFloatBitWidth() < 32) {
      Type wide = rewriter.getF32Type();
      if (auto shaped = dyn_cast<ShapedType>(type))
        wide = shaped.clone(wide);
      Value x = arith::ExtFOp::create(rewriter, loc, wide, op.getOperand());
      Value result = Op::create(rewriter, loc, x);
      rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, type, result);
      return success();
    }
    auto constant =
        FloatAttr::get(getElementTypeOrSelf(type),
                       isExp ? std::numbers::log2e : std::numbers::ln2);
    Value c = isa<ShapedType>(type)
                  ? Value(arith::ConstantOp::create(
                        rewriter, loc,
                        SplatElementsAttr::get(cast<ShapedType>(type),
                                               Attribute(constant))))
                  : Value(arith::ConstantOp::create(rewriter, loc, constant));
    if (isExp) {
      Value scaled = arith::MulFOp::create(rewriter, loc, op.getOperand(), c);
      rewriter.replaceOpWithNewOp<math::Exp2Op>(op, scaled);
    } else {
      Value log2 = math::Log2Op::create(rewriter, loc, op.getOperand());
      rewriter.replaceOpWithNewOp<arith::MulFOp>(op, log2, c);
    }
    return success();
  }
};

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
    // exp2 stays an instruction on the GPU (NaN in, NaN out), and exp
    // becomes it (ThroughBase2).
    bool nativeOnGPU =
        target == MathTarget::NVPTX &&
        (isNativeOnNVPTX(op->getName().getStringRef()) || isa<math::ExpOp>(op));
    if (needsNaNGuard(op) && !nativeOnGPU)
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

/// pow(x, y) = exp2(y * log2(|x|)) on both targets, with C's special cases
/// (powf): pow(x, 0) = 1 and pow(1, y) = 1 even for NaN, pow(-1, +-inf) = 1,
/// a negative base gives NaN unless y is an integer (then the sign of x^y
/// is that of x for odd y), and NaN otherwise propagates. MLIR's own
/// expansion gives NaN for every negative base and poison for NaN inputs.
struct PowLowering : OpRewritePattern<math::PowFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::PowFOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getType();
    // f16 and bf16 compute in f32: y * log2|x| rounded to 11 (or 8) bits
    // would be off by up to 0.5% (or 4%) after exp2.
    if (getElementTypeOrSelf(type).getIntOrFloatBitWidth() < 32) {
      Type wide = rewriter.getF32Type();
      if (auto shaped = dyn_cast<ShapedType>(type))
        wide = shaped.clone(wide);
      Value x = arith::ExtFOp::create(rewriter, loc, wide, op.getLhs());
      Value y = arith::ExtFOp::create(rewriter, loc, wide, op.getRhs());
      Value pow = math::PowFOp::create(rewriter, loc, x, y);
      rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, type, pow);
      return success();
    }
    auto constant = [&](double value) -> Value {
      auto attr = FloatAttr::get(getElementTypeOrSelf(type), value);
      if (auto shaped = dyn_cast<ShapedType>(type))
        return arith::ConstantOp::create(
            rewriter, loc, SplatElementsAttr::get(shaped, Attribute(attr)));
      return arith::ConstantOp::create(rewriter, loc, attr);
    };
    auto cmp = [&](arith::CmpFPredicate p, Value a, Value b) -> Value {
      return arith::CmpFOp::create(rewriter, loc, p, a, b);
    };
    auto select = [&](Value c, Value a, Value b) -> Value {
      return arith::SelectOp::create(rewriter, loc, c, a, b);
    };
    using P = arith::CmpFPredicate;
    Value x = op.getLhs(), y = op.getRhs();
    Value zero = constant(0), one = constant(1), half = constant(0.5);
    Value ax = math::AbsFOp::create(rewriter, loc, x);
    Value log2 = math::Log2Op::create(rewriter, loc, ax);
    Value scaled = arith::MulFOp::create(rewriter, loc, y, log2);
    Value magnitude = math::Exp2Op::create(rewriter, loc, scaled);
    // y is an integer when trunc(y) == y (false for infinities and NaN
    // through the finite check); odd when y / 2 is not.
    Value ay = math::AbsFOp::create(rewriter, loc, y);
    Value finiteY = cmp(P::OLT, ay, constant(INFINITY));
    Value integral = arith::AndIOp::create(
        rewriter, loc, finiteY,
        cmp(P::OEQ, math::TruncOp::create(rewriter, loc, y), y));
    Value halfY = arith::MulFOp::create(rewriter, loc, y, half);
    Value odd = arith::AndIOp::create(
        rewriter, loc, integral,
        cmp(P::ONE, math::TruncOp::create(rewriter, loc, halfY), halfY));
    // The sign of x^y is x's for odd y, -0 and -inf included (C's
    // pow(-0, -1) = -inf, pow(-inf, 3) = -inf).
    Value signOfX = math::CopySignOp::create(rewriter, loc, one, x);
    Value negativeSign = cmp(P::OLT, signOfX, zero);
    Value negated = arith::NegFOp::create(rewriter, loc, magnitude);
    Value signedResult =
        select(arith::AndIOp::create(rewriter, loc, negativeSign, odd), negated,
               magnitude);
    Value result = signedResult;
    Value nan = constant(NAN);
    // A finite negative base with a finite non-integral exponent has no real
    // power (pow(-inf, 0.5) = +inf and pow(-0, 0.5) = +0, as C says).
    Value finiteNegative =
        arith::AndIOp::create(rewriter, loc, cmp(P::OLT, x, zero),
                              cmp(P::OLT, ax, constant(INFINITY)));
    Value notIntegral = cmp(P::UNE, math::TruncOp::create(rewriter, loc, y), y);
    result = select(
        arith::AndIOp::create(
            rewriter, loc,
            arith::AndIOp::create(rewriter, loc, finiteNegative, finiteY),
            notIntegral),
        nan, result);
    // NaN in, NaN out (the approximations alone would give poison) ...
    Value anyNaN = arith::OrIOp::create(rewriter, loc, cmp(P::UNO, x, x),
                                        cmp(P::UNO, y, y));
    result = select(anyNaN, nan, result);
    // ... except pow(x, 0) = 1, pow(1, y) = 1 and pow(-1, +-inf) = 1.
    Value yIsZero = cmp(P::OEQ, y, zero);
    Value xIsOne = cmp(P::OEQ, x, one);
    Value minusOneToInf =
        arith::AndIOp::create(rewriter, loc, cmp(P::OEQ, x, constant(-1)),
                              cmp(P::OEQ, ay, constant(INFINITY)));
    Value isOne = arith::OrIOp::create(
        rewriter, loc, arith::OrIOp::create(rewriter, loc, yIsZero, xIsOne),
        minusOneToInf);
    rewriter.replaceOp(op, select(isOne, one, result));
    return success();
  }
};

} // namespace

LogicalResult lowerMathForTarget(ModuleOp module, MathTarget target) {
  MLIRContext *context = module.getContext();
  scaleDenormalLogs(module);
  guardNaNs(module, target);
  RewritePatternSet patterns(context);
  SmallVector<StringRef> expanded(std::begin(kExpanded), std::end(kExpanded));
  math::populateExpansionPatterns(patterns, expanded);
  patterns.add<PowLowering>(context, /*benefit=*/2);
  if (target == MathTarget::NVPTX) {
    patterns.add<ThroughBase2<math::ExpOp>, ThroughBase2<math::LogOp>>(
        context, /*benefit=*/2);
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
