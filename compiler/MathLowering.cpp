//===- MathLowering.cpp - math functions each target can run -------------===//
#include "compiler/MathLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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
/// powf is PowLowering's (f64 powf on the host stays a libm call).
constexpr StringRef kExpanded[] = {"sinh",   "cosh",  "tan",   "asinh",
                                   "acosh",  "atanh", "fpowi", "ipowi",
                                   "clampf", "round"};

/// exp(x) = exp2(x * log2(e)) and log(x) = log2(x) * ln(2) on the GPU, for
/// scalars and block elements alike: exp2 is the ex2.approx.ftz instruction
/// (Exp2FlushToZero; faster than the polynomial, and what softmax uses),
/// log2 the polynomial.
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

/// f32 exp2 on the GPU, scalars only (blocks are elements by now): the
/// ex2.approx.ftz instruction, one MUFU.EX2. For plain ex2.approx.f32,
/// which keeps subnormal results, ptxas (sm_90) adds a compare and two
/// predicated multiplies to each (halve arguments below -126, square the
/// result); LANGUAGE.md lets results below 2^-126 flush to 0. Kernels that
/// issue many instructions per byte gain: bf16 softmax of 200000-wide rows
/// on the H200 went from 3390 to 3985 GB/s (bf16 5000: 3750 -> 3937; f32
/// rows unchanged).
struct Exp2FlushToZero : OpRewritePattern<math::Exp2Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::Exp2Op op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return rewriter.notifyMatchFailure(op, "not a scalar f32");
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, op.getType(),
        rewriter.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32"),
        ValueRange{op.getOperand()});
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
///
/// f64: on the host, libm's pow (C's semantics, within 1 ulp); on NVPTX,
/// |x|^y by powMagnitudeF64 (double-double log), signs and special cases as
/// for f32.
Value powMagnitudeF64(OpBuilder &builder, Location loc, Value ax, Value y);

struct PowLowering : OpRewritePattern<math::PowFOp> {
  PowLowering(MLIRContext *context, MathTarget target, PatternBenefit benefit)
      : OpRewritePattern(context, benefit), target(target) {}
  LogicalResult matchAndRewrite(math::PowFOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getType();
    bool isF64 = getElementTypeOrSelf(type).isF64();
    if (isF64 && (target == MathTarget::Host || !isa<FloatType>(type)))
      return failure();
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
    Value magnitude;
    if (isF64) {
      magnitude = powMagnitudeF64(rewriter, loc, ax, y);
    } else {
      Value log2 = math::Log2Op::create(rewriter, loc, ax);
      Value scaled = arith::MulFOp::create(rewriter, loc, y, log2);
      magnitude = math::Exp2Op::create(rewriter, loc, scaled);
    }
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

private:
  MathTarget target;
};

//===----------------------------------------------------------------------===//
// Exact fmod and f64 exp/exp2/log/log2 for NVPTX
//===----------------------------------------------------------------------===//

/// Scalar arithmetic of one float type and its same-width integer, for the
/// expansions below (they only meet scalars: on the GPU, blocks are
/// per-thread scalars by the time math is lowered).
class ScalarMath {
public:
  ScalarMath(OpBuilder &builder, Location loc, FloatType type)
      : b(builder), loc(loc), type(type),
        intType(builder.getIntegerType(type.getWidth())) {}

  Value f(double v) {
    return arith::ConstantOp::create(b, loc, FloatAttr::get(type, v));
  }
  Value i(Type t, uint64_t v) {
    return arith::ConstantOp::create(
        b, loc, IntegerAttr::get(t, APInt(t.getIntOrFloatBitWidth(), v)));
  }
  Value i64(uint64_t v) { return i(b.getI64Type(), v); }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value fma(Value x, Value y, Value z) {
    return math::FmaOp::create(b, loc, x, y, z);
  }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value icmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value bitsOf(Value x) { return arith::BitcastOp::create(b, loc, intType, x); }
  Value fromBits(Value x) { return arith::BitcastOp::create(b, loc, type, x); }
  /// Horner's scheme: c[0] + x * (c[1] + x * (...)).
  Value polynomial(Value x, ArrayRef<double> c) {
    Value acc = f(c.back());
    for (double coefficient : llvm::reverse(c.drop_back()))
      acc = fma(acc, x, f(coefficient));
    return acc;
  }
  /// 2^n for an i64 n in [-1022, 1023], as an f64.
  Value pow2(Value n) {
    Value biased = arith::AddIOp::create(b, loc, n, i64(1023));
    return fromBits(arith::ShLIOp::create(b, loc, biased, i64(52)));
  }

  OpBuilder &b;
  Location loc;
  FloatType type;
  Type intType;
};

/// fmod(x, y) exactly, as C: the integer mantissas divided long-hand, 64 - p
/// bits per step (p = 24 or 53 significant bits), so at most 7 steps for f32
/// and 191 for f64. NaN for a zero or NaN divisor and for an infinite or NaN
/// dividend, x itself when |x| < |y| (y = inf included), and a zero result
/// keeps the sign of x. f16/bf16 compute in f32, where their fmod is exact.
Value exactFmod(OpBuilder &builder, Location loc, Value x, Value y) {
  auto type = cast<FloatType>(x.getType());
  ScalarMath m(builder, loc, type);
  using IP = arith::CmpIPredicate;
  unsigned width = type.getWidth();
  int64_t p = type.getFPMantissaWidth();
  Type i64 = builder.getI64Type();
  Value ux = m.bitsOf(x), uy = m.bitsOf(y);
  uint64_t signBit = uint64_t(1) << (width - 1);
  uint64_t infBits = ((uint64_t(1) << (width - p)) - 1) << (p - 1);
  Value sign = arith::AndIOp::create(builder, loc, ux, m.i(m.intType, signBit));
  Value ax =
      arith::AndIOp::create(builder, loc, ux, m.i(m.intType, signBit - 1));
  Value ay =
      arith::AndIOp::create(builder, loc, uy, m.i(m.intType, signBit - 1));
  Value inf = m.i(m.intType, infBits);
  Value nanResult = arith::OrIOp::create(
      builder, loc, m.icmp(IP::eq, ay, m.i(m.intType, 0)),
      arith::OrIOp::create(builder, loc, m.icmp(IP::uge, ax, inf),
                           m.icmp(IP::ugt, ay, inf)));
  Value xResult = m.icmp(IP::ult, ax, ay);
  Value zeroResult = m.icmp(IP::eq, ax, ay);
  Value special = arith::OrIOp::create(
      builder, loc, nanResult,
      arith::OrIOp::create(builder, loc, xResult, zeroResult));

  // |x| = mx * 2^ex and |y| = my * 2^ey in units of the smallest subnormal
  // (shifted by p - 1), subnormals taking exponent 1 without the hidden bit.
  auto widen = [&](Value v) -> Value {
    return width == 64 ? v
                       : Value(arith::ExtUIOp::create(builder, loc, i64, v));
  };
  auto split = [&](Value a) -> std::pair<Value, Value> {
    Value a64 = widen(a);
    Value e = arith::ShRUIOp::create(builder, loc, a64, m.i64(p - 1));
    Value mant = arith::AndIOp::create(builder, loc, a64,
                                       m.i64((uint64_t(1) << (p - 1)) - 1));
    Value normal = m.icmp(IP::ne, e, m.i64(0));
    mant = m.select(
        normal,
        arith::OrIOp::create(builder, loc, mant, m.i64(uint64_t(1) << (p - 1))),
        mant);
    return {m.select(normal, e, m.i64(1)), mant};
  };
  auto [ex, mx] = split(ax);
  auto [ey, my] = split(ay);
  // Special inputs run no steps and divide by 1 (their result is selected
  // below); otherwise |x| > |y|, so ex >= ey.
  my = m.select(special, m.i64(1), my);
  Value steps =
      m.select(special, m.i64(0), arith::SubIOp::create(builder, loc, ex, ey));
  Value r0 = arith::RemUIOp::create(builder, loc, mx, my);
  int64_t chunk = 64 - p;
  auto loop = scf::WhileOp::create(
      builder, loc, TypeRange{i64, i64}, ValueRange{r0, steps},
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value more = arith::CmpIOp::create(b, l, IP::ugt, args[1], m.i64(0));
        scf::ConditionOp::create(b, l, more, args);
      },
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value s = arith::MinUIOp::create(b, l, args[1], m.i64(chunk));
        Value shifted = arith::ShLIOp::create(b, l, args[0], s);
        Value r = arith::RemUIOp::create(b, l, shifted, my);
        Value left = arith::SubIOp::create(b, l, args[1], s);
        scf::YieldOp::create(b, l, ValueRange{r, left});
      });
  Value r = loop.getResult(0);
  // r < my, in units of 2^ey: normalize (the hidden bit at p - 1) as far
  // as the exponent allows; what stays below is a subnormal. Adding the
  // shifted exponent to a normalized r carries its hidden bit into the
  // exponent field.
  Value lz = math::CountLeadingZerosOp::create(builder, loc, r);
  Value shift = arith::SubIOp::create(builder, loc, lz, m.i64(64 - p));
  shift = arith::MinUIOp::create(
      builder, loc, shift, arith::SubIOp::create(builder, loc, ey, m.i64(1)));
  Value mant = arith::ShLIOp::create(builder, loc, r, shift);
  Value e = arith::SubIOp::create(builder, loc, ey, shift);
  Value bits = arith::AddIOp::create(
      builder, loc, mant,
      arith::ShLIOp::create(builder, loc,
                            arith::SubIOp::create(builder, loc, e, m.i64(1)),
                            m.i64(p - 1)));
  if (width != 64)
    bits = arith::TruncIOp::create(builder, loc, m.intType, bits);
  bits = arith::OrIOp::create(builder, loc, bits, sign);
  Value signedZero = m.fromBits(sign);
  Value isZero = arith::OrIOp::create(builder, loc, zeroResult,
                                      m.icmp(IP::eq, r, m.i64(0)));
  Value result = m.select(isZero, signedZero, m.fromBits(bits));
  result = m.select(xResult, x, result);
  return m.select(nanResult, m.f(NAN), result);
}

/// arith.remf on the GPU: exact (NVPTX's frem is x - trunc(x / y) * y).
struct ExactRemF : OpRewritePattern<arith::RemFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::RemFOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<FloatType>(op.getType());
    if (!type)
      return failure();
    Location loc = op.getLoc();
    if (type.getWidth() < 32) {
      Type f32 = rewriter.getF32Type();
      Value x = arith::ExtFOp::create(rewriter, loc, f32, op.getLhs());
      Value y = arith::ExtFOp::create(rewriter, loc, f32, op.getRhs());
      Value r = exactFmod(rewriter, loc, x, y);
      rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, type, r);
      return success();
    }
    if (type.getWidth() != 32 && type.getWidth() != 64)
      return failure();
    rewriter.replaceOp(op, exactFmod(rewriter, loc, op.getLhs(), op.getRhs()));
    return success();
  }
};

/// e^r for |r| <= ln(2)/2 (plus rounding): the Taylor polynomial of degree
/// 13, whose truncation error r^14/14! is below 5e-18.
Value expReduced(ScalarMath &m, Value r) {
  SmallVector<double, 14> c;
  double term = 1;
  for (int n = 0; n <= 13; ++n) {
    c.push_back(term);
    term /= n + 1;
  }
  return m.polynomial(r, c);
}

/// f64 exp(x) (base2 = false) or exp2(x) (base2 = true): x = k ln 2 + r
/// (k = round(x log2 e), r by fma with ln 2 in two parts; for exp2,
/// k = round(x) and r = (x - k) ln 2), e^r by expReduced, times 2^k in two
/// exact steps so that subnormal results round once.
///
/// `lo`, when given, is a small correction to x (|lo| <= ulp(x)) taken into
/// the reduced argument: e^(x + lo), for pow's double-double exponent.
Value expF64(OpBuilder &builder, Location loc, Value x, bool base2,
             Value lo = {}) {
  ScalarMath m(builder, loc, cast<FloatType>(x.getType()));
  using P = arith::CmpFPredicate;
  constexpr double ln2Hi = 0x1.62e42fefa39efp-1, ln2Lo = 0x1.abc9e3b39803fp-56;
  Value k, r;
  if (base2) {
    k = math::RoundEvenOp::create(builder, loc, x);
    Value f = m.sub(x, k); // exact
    r = m.fma(f, m.f(ln2Hi), m.mul(f, m.f(ln2Lo)));
  } else {
    k = math::RoundEvenOp::create(builder, loc,
                                  m.mul(x, m.f(std::numbers::log2e)));
    Value negK = arith::NegFOp::create(builder, loc, k);
    r = m.fma(negK, m.f(ln2Hi), x); // exact: |r| < 1 and a multiple of 2^-53
    r = m.fma(negK, m.f(ln2Lo), r);
    if (lo)
      r = m.add(r, lo);
  }
  Value poly = expReduced(m, r);
  // Clamp k so that the scaling below stays in range; the results of the
  // clamped inputs are chosen afterwards.
  Value kc = arith::MaximumFOp::create(
      builder, loc, arith::MinimumFOp::create(builder, loc, k, m.f(1100)),
      m.f(-1100));
  // NaN and infinities scale by 1 (fptosi of them would be poison).
  Value finite =
      m.cmp(P::OLT, math::AbsFOp::create(builder, loc, x), m.f(INFINITY));
  kc = m.select(finite, kc, m.f(0));
  Value ki = arith::FPToSIOp::create(builder, loc, builder.getI64Type(), kc);
  Value k1 = arith::ShRSIOp::create(builder, loc, ki, m.i64(1));
  Value k2 = arith::SubIOp::create(builder, loc, ki, k1);
  Value result = m.mul(m.mul(poly, m.pow2(k1)), m.pow2(k2));
  double overflow = base2 ? 1024 : 0x1.62e42fefa39efp+9;    // ln(DBL_MAX)
  double underflow = base2 ? -1075 : -0x1.74910d52d3051p+9; // ln(2^-1075)
  result = m.select(m.cmp(P::OGT, x, m.f(overflow)), m.f(INFINITY), result);
  result = m.select(m.cmp(P::OLT, x, m.f(underflow)), m.f(0), result);
  return m.select(m.cmp(P::UNO, x, x), x, result);
}

/// x = 2^e m for f64 x with m in [sqrt(1/2), sqrt(2)] (subnormals scaled by
/// 2^54 first): {m, e as an f64}, the argument reduction of logF64 and
/// logDoubleF64.
std::pair<Value, Value> splitLogArgumentF64(OpBuilder &builder, Location loc,
                                            ScalarMath &m, Value x) {
  using P = arith::CmpFPredicate;
  Value tiny = m.cmp(P::OLT, x, m.f(0x1p-1022));
  Value scaled = m.select(tiny, m.mul(x, m.f(0x1p54)), x);
  Value bits = m.bitsOf(scaled);
  Value biased = arith::ShRUIOp::create(builder, loc, bits, m.i64(52));
  Value mantBits = arith::OrIOp::create(
      builder, loc,
      arith::AndIOp::create(builder, loc, bits, m.i64((uint64_t(1) << 52) - 1)),
      m.i64(uint64_t(1023) << 52));
  Value mant = m.fromBits(mantBits); // [1, 2)
  Value big = m.cmp(P::OGT, mant, m.f(std::numbers::sqrt2));
  mant = m.select(big, m.mul(mant, m.f(0.5)), mant);
  Value e = arith::SubIOp::create(builder, loc, biased, m.i64(1023));
  e = m.select(tiny, arith::SubIOp::create(builder, loc, e, m.i64(54)), e);
  e = m.select(big, arith::AddIOp::create(builder, loc, e, m.i64(1)), e);
  Value ef = arith::SIToFPOp::create(builder, loc, m.type, e);
  return {mant, ef};
}

/// f64 log(x) (base2 = false) or log2(x) (base2 = true): x = 2^e m with m in
/// [sqrt(1/2), sqrt(2)] (subnormals scaled by 2^54 first), log(m) =
/// 2 atanh(s) with s = (m - 1) / (m + 1), |s| <= 0.1716, a series in s^2
/// to degree 11 (truncation below 1e-18); then e ln 2 + log(m), or e +
/// log(m) log2(e), with the constants in two parts. log(0) = -inf, log of
/// a negative or NaN = NaN, log(inf) = inf.
Value logF64(OpBuilder &builder, Location loc, Value x, bool base2) {
  ScalarMath m(builder, loc, cast<FloatType>(x.getType()));
  using P = arith::CmpFPredicate;
  auto [mant, ef] = splitLogArgumentF64(builder, loc, m, x);
  Value f = m.sub(mant, m.f(1)); // exact
  Value s = m.div(f, m.add(mant, m.f(1)));
  Value z = m.mul(s, s);
  SmallVector<double, 12> c;
  for (int n = 0; n <= 11; ++n)
    c.push_back(2.0 / (2 * n + 1));
  // log(m) = 2s + s * z * (2/3 + 2/5 z + ...), the leading term added last.
  Value tail = m.mul(m.mul(s, z), m.polynomial(z, ArrayRef(c).drop_front()));
  Value logM = m.add(m.add(s, s), tail);
  Value result;
  if (base2) {
    constexpr double log2eHi = 0x1.71547652b82fep0,
                     log2eLo = 0x1.777d0ffda0d24p-56;
    result = m.add(ef, m.fma(logM, m.f(log2eHi), m.mul(logM, m.f(log2eLo))));
  } else {
    constexpr double ln2Hi = 0x1.62e42fefa39efp-1,
                     ln2Lo = 0x1.abc9e3b39803fp-56;
    result = m.fma(ef, m.f(ln2Hi), m.fma(ef, m.f(ln2Lo), logM));
  }
  result = m.select(m.cmp(P::OEQ, x, m.f(INFINITY)), x, result);
  result = m.select(m.cmp(P::OEQ, x, m.f(0)), m.f(-INFINITY), result);
  // Negative inputs and NaN (unordered) give NaN.
  return m.select(m.cmp(P::UGE, x, m.f(0)), result, m.f(NAN));
}

/// (a + b) exactly as hi + lo (Knuth's TwoSum: no condition on the
/// magnitudes).
std::pair<Value, Value> twoSum(ScalarMath &m, Value a, Value b) {
  Value s = m.add(a, b);
  Value bv = m.sub(s, a);
  Value av = m.sub(s, bv);
  return {s, m.add(m.sub(a, av), m.sub(b, bv))};
}

/// (a + b) as hi + lo when |a| >= |b| (Fast2Sum).
std::pair<Value, Value> fastTwoSum(ScalarMath &m, Value a, Value b) {
  Value s = m.add(a, b);
  return {s, m.sub(b, m.sub(s, a))};
}

/// The product a * b exactly as hi + lo (fma).
std::pair<Value, Value> twoProduct(ScalarMath &m, Value a, Value b) {
  Value p = m.mul(a, b);
  return {p, m.fma(a, b, arith::NegFOp::create(m.b, m.loc, p))};
}

/// Bit-level sign transfer: |v| with the sign of `sign` flipped in when
/// `sign` is negative (-0 included): v xor signbit(sign).
Value xorSign(ScalarMath &m, Value v, Value sign) {
  Value signBit = arith::AndIOp::create(m.b, m.loc, m.bitsOf(sign),
                                        m.i64(uint64_t(1) << 63));
  return m.fromBits(arith::XOrIOp::create(m.b, m.loc, m.bitsOf(v), signBit));
}

/// Bits of 2/pi, 64 per word, most significant first: word j holds the
/// bits of weights 2^(-64 j + 63) .. 2^(-64 j) (word 0, the integer part,
/// is 0). 1280 bits cover the reduction of every f64.
constexpr uint64_t kTwoOverPiBits[] = {
    0x0000000000000000ULL, 0xa2f9836e4e441529ULL, 0xfc2757d1f534ddc0ULL,
    0xdb6295993c439041ULL, 0xfe5163abdebbc561ULL, 0xb7246e3a424dd2e0ULL,
    0x06492eea09d1921cULL, 0xfe1deb1cb129a73eULL, 0xe88235f52ebb4484ULL,
    0xe99c7026b45f7e41ULL, 0x3991d639835339f4ULL, 0x9c845f8bbdf9283bULL,
    0x1ff897ffde05980fULL, 0xef2f118b5a0a6d1fULL, 0x6d367ecf27cb09b7ULL,
    0x4f463f669e5fea2dULL, 0x7527bac7ebe5f17bULL, 0x3d0739f78a5292eaULL,
    0x6bfb5fb11f8d5d08ULL, 0x56033046fc7b6babULL};

/// The reduced argument of sin/cos: |x| = (4 n + quadrant) pi/2 + y + yLo.
struct Reduced {
  Value quadrant; // i64 (only its two low bits count)
  Value y, yLo;
};

/// Payne-Hanek reduction of a finite a >= 2^50 (a = M 2^E, M < 2^53
/// integral, E >= -2): a 2/pi mod 4 = M V mod 4, where V is the 192 bits
/// of 2/pi from the weight 2^(1-E) on (the bits above give multiples of
/// 4, those below change the result by less than M 2^-190 < 2^-137). The
/// low 192 bits of M V in integer arithmetic (64 x 64 -> 128 products)
/// are 2 quadrant bits and a fraction f; f >= 1/2 becomes f - 1 (and the
/// next quadrant); |f| as a double-double from its 32-bit pieces (exact
/// and of one sign, so their sum has no cancellation), times pi/2 in two
/// parts.
Reduced payneHanek(ScalarMath &m, Value a) {
  OpBuilder &b = m.b;
  Location loc = m.loc;
  using IP = arith::CmpIPredicate;
  auto shl = [&](Value v, Value s) -> Value {
    return arith::ShLIOp::create(b, loc, v, s);
  };
  auto shr = [&](Value v, Value s) -> Value {
    return arith::ShRUIOp::create(b, loc, v, s);
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  auto bitOr = [&](Value x, Value y) -> Value {
    return arith::OrIOp::create(b, loc, x, y);
  };
  auto bitAnd = [&](Value x, Value y) -> Value {
    return arith::AndIOp::create(b, loc, x, y);
  };
  Value bits = m.bitsOf(a);
  Value e = arith::SubIOp::create(b, loc, shr(bits, m.i64(52)), m.i64(1075));
  Value mant = bitOr(bitAnd(bits, m.i64((uint64_t(1) << 52) - 1)),
                     m.i64(uint64_t(1) << 52));
  // The window starts at bit 62 + E of the table (E <= 971: word <= 16).
  Value start = add(e, m.i64(62));
  Value word = shr(start, m.i64(6));
  Value shift = bitAnd(start, m.i64(63));
  constexpr int kLastStart = 16;
  SmallVector<Value> isWord;
  for (int i = 0; i <= kLastStart; ++i)
    isWord.push_back(m.icmp(IP::eq, word, m.i64(i)));
  auto tableWord = [&](int k) { // kTwoOverPiBits[word + k]
    Value v = m.i64(kTwoOverPiBits[k]);
    for (int i = 1; i <= kLastStart; ++i)
      v = m.select(isWord[i], m.i64(kTwoOverPiBits[i + k]), v);
    return v;
  };
  Value t[4] = {tableWord(0), tableWord(1), tableWord(2), tableWord(3)};
  // w_k = t_k << shift | t_(k+1) >> (64 - shift), the second shift split
  // so that shift = 0 stays defined (and gives 0).
  Value back = arith::SubIOp::create(b, loc, m.i64(63), shift);
  Value w[3];
  for (int k = 0; k < 3; ++k)
    w[k] = bitOr(shl(t[k], shift), shr(shr(t[k + 1], m.i64(1)), back));
  // The low 192 bits of M (w0 : w1 : w2).
  auto p2 = arith::MulUIExtendedOp::create(b, loc, mant, w[2]);
  auto p1 = arith::MulUIExtendedOp::create(b, loc, mant, w[1]);
  Value lo0 = arith::MulIOp::create(b, loc, mant, w[0]);
  Value r0 = p2.getLow();
  Value r1 = add(p2.getHigh(), p1.getLow());
  Value carry = arith::ExtUIOp::create(b, loc, b.getI64Type(),
                                       m.icmp(IP::ult, r1, p1.getLow()));
  Value r2 = add(add(p1.getHigh(), lo0), carry);
  Value quadrant = shr(r2, m.i64(62));
  // The fraction, 190 bits shifted to the top of f2 : f1 : f0.
  Value two = m.i64(2), sixtyTwo = m.i64(62);
  Value f2 = bitOr(shl(r2, two), shr(r1, sixtyTwo));
  Value f1 = bitOr(shl(r1, two), shr(r0, sixtyTwo));
  Value f0 = shl(r0, two);
  Value negative = m.icmp(IP::slt, f2, m.i64(0));
  // 1 - f for f >= 1/2: the 192-bit two's complement.
  Value ones = m.i64(~uint64_t(0)), zero = m.i64(0);
  auto notOf = [&](Value v) -> Value {
    return arith::XOrIOp::create(b, loc, v, ones);
  };
  Value c0 = m.icmp(IP::eq, f0, zero);
  Value c1 = arith::AndIOp::create(b, loc, c0, m.icmp(IP::eq, f1, zero));
  auto ext = [&](Value c) -> Value {
    return arith::ExtUIOp::create(b, loc, b.getI64Type(), c);
  };
  Value n0 = add(notOf(f0), m.i64(1));
  Value n1 = add(notOf(f1), ext(c0));
  Value n2 = add(notOf(f2), ext(c1));
  f0 = m.select(negative, n0, f0);
  f1 = m.select(negative, n1, f1);
  f2 = m.select(negative, n2, f2);
  quadrant = add(quadrant, ext(negative));
  // |f| = sum of six exact 32-bit pieces, smallest first.
  Value low32 = m.i64(0xffffffffULL), thirtyTwo = m.i64(32);
  Value words[3] = {f2, f1, f0};
  SmallVector<Value, 6> pieces;
  for (int k = 0; k < 3; ++k) {
    for (int half = 0; half < 2; ++half) {
      Value v = half == 0 ? shr(words[k], thirtyTwo) : bitAnd(words[k], low32);
      Value d = arith::UIToFPOp::create(b, loc, m.type, v);
      pieces.push_back(
          m.mul(d, m.f(std::ldexp(1.0, -32 * (2 * k + half + 1)))));
    }
  }
  Value sum = pieces.back(), err = m.f(0);
  for (int i = int(pieces.size()) - 2; i >= 0; --i) {
    auto [s, e2] = twoSum(m, sum, pieces[i]);
    sum = s;
    err = m.add(err, e2);
  }
  auto [fHi, fLo] = fastTwoSum(m, sum, err);
  constexpr double p1Hi = 0x1.921fb54442d18p+0, p1Lo = 0x1.1a62633145c07p-54;
  auto [yHi, yLo0] = twoProduct(m, fHi, m.f(p1Hi));
  Value yLo = m.add(yLo0, m.fma(fHi, m.f(p1Lo), m.mul(fLo, m.f(p1Hi))));
  auto [y, yRest] = fastTwoSum(m, yHi, yLo);
  Value negY = arith::NegFOp::create(b, loc, y);
  Value negRest = arith::NegFOp::create(b, loc, yRest);
  return {quadrant, m.select(negative, negY, y),
          m.select(negative, negRest, yRest)};
}

/// f64 sin(x) or cos(x) (isCos). Below 2^50, Cody-Waite reduction of |x|
/// by pi/2 in three parts (159 bits): k = round(|x| 2/pi), r1 = |x| - k P1
/// exact by fma (for k < 2^52), k P2 exact as a double-double, k P3
/// rounded, so that y + yLo = |x| - k pi/2 within 2^-100 |k| + ulp; from
/// 2^50 on, Payne-Hanek (payneHanek, in an scf.if). The kernels of
/// |y| <= pi/4 (+ rounding) are Taylor series (sin to y^19, cos to y^20)
/// with yLo's first-order correction, in the arrangement of fdlibm's
/// __kernel_sin/__kernel_cos. The quadrant k mod 4 picks +-sin or +-cos.
/// sin is odd (sin(-0) = -0), cos even; +-inf and NaN give NaN.
Value sinCosF64(OpBuilder &builder, Location loc, Value x, bool isCos) {
  ScalarMath m(builder, loc, cast<FloatType>(x.getType()));
  using P = arith::CmpFPredicate;
  constexpr double twoOverPi = 0x1.45f306dc9c883p-1;
  constexpr double p1 = 0x1.921fb54442d18p+0, p2 = 0x1.1a62633145c07p-54,
                   p3 = -0x1.f1976b7ed8fbcp-110;
  Value a = math::AbsFOp::create(builder, loc, x);
  Value finite = m.cmp(P::OLT, a, m.f(INFINITY));
  // NaN and infinities reduce 0 (their result is chosen at the end).
  Value ar = m.select(finite, a, m.f(0));
  Value k = math::RoundEvenOp::create(builder, loc, m.mul(ar, m.f(twoOverPi)));
  Value negK = arith::NegFOp::create(builder, loc, k);
  Value r1 = m.fma(negK, m.f(p1), ar);
  auto [wHi, wLo] = twoProduct(m, k, m.f(p2));
  auto [t, tErr] = twoSum(m, r1, arith::NegFOp::create(builder, loc, wHi));
  Value lo = m.fma(negK, m.f(p3), m.sub(tErr, wLo));
  auto [yCW, yLoCW] = fastTwoSum(m, t, lo);
  // The quadrant k mod 4 (exact in f64 for k < 2^53).
  Value quarter = math::FloorOp::create(builder, loc, m.mul(k, m.f(0.25)));
  Value q = m.sub(k, m.mul(quarter, m.f(4)));
  Value qCW = arith::FPToSIOp::create(builder, loc, builder.getI64Type(), q);

  // From 2^50 on (r1 above is exact only below 2^52), Payne-Hanek, in a
  // branch of its own: it costs a few times the rest.
  Value large = m.cmp(P::OGE, ar, m.f(0x1p50));
  auto branch = scf::IfOp::create(
      builder, loc, large,
      [&](OpBuilder &b, Location l) {
        ScalarMath inner(b, l, m.type);
        Reduced reduced = payneHanek(inner, ar);
        scf::YieldOp::create(
            b, l, ValueRange{reduced.quadrant, reduced.y, reduced.yLo});
      },
      [&](OpBuilder &b, Location l) {
        scf::YieldOp::create(b, l, ValueRange{qCW, yCW, yLoCW});
      });
  Value qi = branch.getResult(0), y = branch.getResult(1),
        yLo = branch.getResult(2);

  Value z = m.mul(y, y);
  // sin(y + yLo) = y + y^3 S(z) + yLo (1 - z/2): S = S1 + z r.
  SmallVector<double, 10> s, c;
  double term = 1;
  for (int n = 1; n <= 20; ++n) {
    term /= n;
    if (n % 2 == 1 && n >= 5)
      s.push_back(n % 4 == 1 ? term : -term); // y^n / n!, n = 5, 7, ...
    if (n % 2 == 0 && n >= 4)
      c.push_back(n % 4 == 0 ? term : -term); // y^n / n!, n = 4, 6, ...
  }
  constexpr double s1 = -1.0 / 6;
  Value v = m.mul(z, y);
  Value r = m.polynomial(z, s);
  // y - ((z (yLo/2 - v r) - yLo) - v S1)
  Value inner = m.sub(m.mul(z, m.sub(m.mul(m.f(0.5), yLo), m.mul(v, r))), yLo);
  Value sinY = m.sub(y, m.sub(inner, m.mul(v, m.f(s1))));
  // cos(y + yLo) = w + (((1 - w) - z/2) + (z^2 C(z) - y yLo)), w = 1 - z/2.
  Value hz = m.mul(m.f(0.5), z);
  Value w = m.sub(m.f(1), hz);
  Value zr = m.mul(m.mul(z, z), m.polynomial(z, c));
  Value cosY =
      m.add(w, m.add(m.sub(m.sub(m.f(1), w), hz), m.sub(zr, m.mul(y, yLo))));

  // The quadrant, plus one for cos.
  if (isCos)
    qi = arith::AddIOp::create(builder, loc, qi, m.i64(1));
  Value odd =
      m.icmp(arith::CmpIPredicate::ne,
             arith::AndIOp::create(builder, loc, qi, m.i64(1)), m.i64(0));
  Value negate =
      m.icmp(arith::CmpIPredicate::ne,
             arith::AndIOp::create(builder, loc, qi, m.i64(2)), m.i64(0));
  Value result = m.select(odd, cosY, sinY);
  result =
      m.select(negate, arith::NegFOp::create(builder, loc, result), result);
  if (!isCos)
    result = xorSign(m, result, x);
  // inf - inf and NaN - NaN are NaN.
  return m.select(finite, result, m.sub(x, x));
}

/// expm1(t) for f64 t in [-44, 0]: t = k ln 2 + r (|r| <= ln(2)/2, ln 2 in
/// two parts), expm1(r) = r + r^2 (1/2 + r/6 + ... + r^12/14!), then
/// 2^k expm1(r) + (2^k - 1) with one rounding (2^k - 1 is exact).
Value expm1NegativeF64(ScalarMath &m, Value t) {
  constexpr double ln2Hi = 0x1.62e42fefa39efp-1, ln2Lo = 0x1.abc9e3b39803fp-56;
  Value k =
      math::RoundEvenOp::create(m.b, m.loc, m.mul(t, m.f(std::numbers::log2e)));
  Value negK = arith::NegFOp::create(m.b, m.loc, k);
  Value r = m.fma(negK, m.f(ln2Hi), t);
  r = m.fma(negK, m.f(ln2Lo), r);
  SmallVector<double, 14> c;
  double term = 1;
  for (int n = 2; n <= 14; ++n)
    c.push_back(term /= n); // r^n / n!, from n = 2
  Value p = m.fma(m.mul(r, r), m.polynomial(r, c), r);
  Value ki = arith::FPToSIOp::create(m.b, m.loc, m.b.getI64Type(), k);
  Value scale = m.pow2(ki);
  return m.fma(scale, p, m.sub(scale, m.f(1)));
}

/// f64 tanh(x) = sign(x) * -u / (u + 2) with u = expm1(-2|x|) (no
/// cancellation near 0: u ~ -2|x|); +-1 for |x| >= 22 (and +-inf),
/// tanh(-0) = -0, NaN gives NaN.
Value tanhF64(OpBuilder &builder, Location loc, Value x) {
  ScalarMath m(builder, loc, cast<FloatType>(x.getType()));
  using P = arith::CmpFPredicate;
  Value a = math::AbsFOp::create(builder, loc, x);
  // NaN compares false: it computes tanh(22) and is selected below.
  Value small = m.cmp(P::OLT, a, m.f(22));
  Value ac = m.select(small, a, m.f(22));
  Value u = expm1NegativeF64(m, m.mul(ac, m.f(-2)));
  Value th = m.div(arith::NegFOp::create(builder, loc, u), m.add(u, m.f(2)));
  th = m.select(small, th, m.f(1));
  Value result = math::CopySignOp::create(builder, loc, th, x);
  return m.select(m.cmp(P::UNO, x, x), x, result);
}

/// f64 erf(x). |x| < 1: the Taylor series x (2/sqrt(pi)) sum (-1)^n x^2n /
/// (n! (2n + 1)) to n = 19, 2/sqrt(pi) in two parts. 1 <= |x| < 6:
/// 1 - exp(-x^2) R(|x|) with R(a) = erfc(a) e^(a^2) (smooth, ~1/(a
/// sqrt(pi))) a Chebyshev fit (tools: mpmath.chebyfit, relative error below
/// 1e-18) on [1, 2.25] (degree 18) and [2.25, 6] (degree 24) in t = a - the
/// interval's centre, and x^2 as a double-double in exp. |x| >= 6: +-1
/// (erfc(6) < 2^-54). Odd (erf(-0) = -0), erf(+-inf) = +-1, NaN gives NaN.
Value erfF64(OpBuilder &builder, Location loc, Value x) {
  ScalarMath m(builder, loc, cast<FloatType>(x.getType()));
  using P = arith::CmpFPredicate;
  Value a = math::AbsFOp::create(builder, loc, x);

  // |x| < 1.
  constexpr double twoOverSqrtPiHi = 0x1.20dd750429b6dp+0,
                   twoOverSqrtPiLo = 0x1.1ae3a914fed80p-56;
  SmallVector<double, 19> series;
  double factorial = 1;
  for (int n = 1; n <= 19; ++n) {
    factorial *= n;
    double c = twoOverSqrtPiHi / (factorial * (2 * n + 1));
    series.push_back(n % 2 ? -c : c);
  }
  Value z = m.mul(a, a);
  Value tail = m.fma(z, m.polynomial(z, series), m.f(twoOverSqrtPiLo));
  Value small = m.fma(a, m.f(twoOverSqrtPiHi), m.mul(a, tail));

  // 1 <= |x| < 6 (other inputs evaluate at a clamped point).
  static constexpr double r1[] = {
      0x1.3583f6644327bp-2,   -0x1.2b11e6959934cp-3,  0x1.0a15ac2adab35p-4,
      -0x1.ba018e64280adp-6,  0x1.5a142948a9b06p-7,   -0x1.014eae2834108p-8,
      0x1.6d609f6ab4dffp-10,  -0x1.f1b43d35e6074p-12, 0x1.465ecd13589bep-13,
      -0x1.9d6229d7785cap-15, 0x1.fafc90daf2cfdp-17,  -0x1.2db360a43902fp-18,
      0x1.5d230f740f331p-20,  -0x1.89987e5a87eb5p-22, 0x1.b0b4985c0645bp-24,
      -0x1.cd7b6852730a8p-26, 0x1.e4d57d829e647p-28,  -0x1.1984c1a1d7bc4p-29,
      0x1.1a5643e392463p-31};
  static constexpr double r2[] = {
      0x1.10845e1dcb19ap-3,   -0x1.f53cfd5c11186p-6,  0x1.c21d6f4a4921ap-8,
      -0x1.8b46c64f91eefp-10, 0x1.53e39641d559fp-12,  -0x1.1e807be4550b1p-14,
      0x1.d9f64543b652bp-17,  -0x1.810db87cba559p-19, 0x1.33807c15ef2e2p-21,
      -0x1.e3251f959df99p-24, 0x1.75a22fa9aca64p-26,  -0x1.1c9cc2d881a7cp-28,
      0x1.ab587b6132ceap-31,  -0x1.3c5cb0fbf3b45p-33, 0x1.ce1fc344d1649p-36,
      -0x1.4d41b36ee21a1p-38, 0x1.da6ebf6de7d8dp-41,  -0x1.4c1217d4775e6p-43,
      0x1.cdacd626f192dp-46,  -0x1.4ae8c014c64d2p-48, 0x1.c0648dc713f50p-51,
      -0x1.bcb9938af1fc5p-54, 0x1.2be941380641dp-56,  -0x1.cacbff878a134p-58,
      0x1.277502984c469p-60};
  Value inMid = m.cmp(P::OLT, a, m.f(6));
  Value am = m.select(m.cmp(P::OGE, a, m.f(1)), a, m.f(1));
  am = m.select(inMid, am, m.f(6)); // NaN too
  Value first = m.cmp(P::OLT, am, m.f(2.25));
  Value t = m.sub(am, m.select(first, m.f(1.625), m.f(4.125)));
  // One Horner pass, each coefficient chosen by the interval.
  auto coefficient = [&](size_t i) {
    return m.select(first, m.f(i < std::size(r1) ? r1[i] : 0), m.f(r2[i]));
  };
  Value acc = coefficient(std::size(r2) - 1);
  for (size_t i = std::size(r2) - 1; i-- > 0;)
    acc = m.fma(acc, t, coefficient(i));
  auto [sq, sqLo] = twoProduct(m, am, am);
  Value e = expF64(builder, loc, arith::NegFOp::create(builder, loc, sq),
                   /*base2=*/false, arith::NegFOp::create(builder, loc, sqLo));
  Value mid = m.sub(m.f(1), m.mul(e, acc));

  Value result =
      m.select(m.cmp(P::OLT, a, m.f(1)), small, m.select(inMid, mid, m.f(1)));
  result = math::CopySignOp::create(builder, loc, result, x);
  return m.select(m.cmp(P::UNO, x, x), x, result);
}

/// log(a) for f64 a > 0 as a double-double hi + lo (relative error about
/// 2^-65), for pow: a = 2^e m as in logF64, s = (m - 1) / (m + 1) with its
/// rounding error sLo, log(m) = 2 (s + sLo) + (2/3) s^3 (double-double) +
/// 2 s^5 (1/5 + s^2/7 + ...) (double), e ln 2 in three parts. a = 0 gives
/// -inf, a = inf gives inf (lo = 0 for both).
std::pair<Value, Value> logDoubleF64(OpBuilder &builder, Location loc,
                                     Value a) {
  ScalarMath m(builder, loc, cast<FloatType>(a.getType()));
  using P = arith::CmpFPredicate;
  auto [mant, ef] = splitLogArgumentF64(builder, loc, m, a);

  Value f = m.sub(mant, m.f(1)); // exact
  auto [d, dLo] = twoSum(m, mant, m.f(1));
  Value s = m.div(f, d);
  // f - s (d + dLo), exactly up to the last product's rounding.
  Value rem =
      m.sub(m.fma(arith::NegFOp::create(builder, loc, s), d, f), m.mul(s, dLo));
  Value sLo = m.div(rem, d);
  // s^2 and s^3 as double-doubles.
  auto [zHi, zLo0] = twoProduct(m, s, s);
  Value zLo = m.fma(m.add(s, s), sLo, zLo0);
  auto [cHi, cLo0] = twoProduct(m, s, zHi);
  Value cLo = m.add(cLo0, m.fma(s, zLo, m.mul(sLo, zHi)));
  constexpr double twoThirdsHi = 0x1.5555555555555p-1,
                   twoThirdsLo = 0x1.5555555555555p-55;
  auto [t1Hi, t1Lo0] = twoProduct(m, cHi, m.f(twoThirdsHi));
  Value t1Lo =
      m.add(t1Lo0, m.fma(cHi, m.f(twoThirdsLo), m.mul(cLo, m.f(twoThirdsHi))));
  SmallVector<double, 10> c;
  for (int n = 2; n <= 11; ++n)
    c.push_back(2.0 / (2 * n + 1));
  Value rest = m.mul(m.mul(cHi, zHi), m.polynomial(zHi, c));
  auto [mHi, mLo0] = fastTwoSum(m, m.add(s, s), t1Hi);
  Value mLo = m.add(mLo0, m.add(m.add(sLo, sLo), m.add(t1Lo, rest)));

  constexpr double ln2Hi = 0x1.62e42fefa39efp-1, ln2Mid = 0x1.abc9e3b39803fp-56;
  auto [pHi, pLo0] = twoProduct(m, ef, m.f(ln2Hi));
  Value pLo = m.fma(ef, m.f(ln2Mid), pLo0);
  auto [sumHi, sumLo0] = twoSum(m, pHi, mHi);
  Value sumLo = m.add(sumLo0, m.add(pLo, mLo));
  auto [hi, lo] = fastTwoSum(m, sumHi, sumLo);
  Value isZero = m.cmp(P::OEQ, a, m.f(0));
  Value isInf = m.cmp(P::OEQ, a, m.f(INFINITY));
  hi = m.select(isZero, m.f(-INFINITY), m.select(isInf, a, hi));
  lo = m.select(arith::OrIOp::create(builder, loc, isZero, isInf), m.f(0), lo);
  return {hi, lo};
}

/// |x|^y for f64 (the signs and C's special cases are PowLowering's):
/// exp(y log|x|) with log|x| and the product as double-doubles, the low
/// part taken into exp's reduced argument.
Value powMagnitudeF64(OpBuilder &builder, Location loc, Value ax, Value y) {
  ScalarMath m(builder, loc, cast<FloatType>(ax.getType()));
  auto [lHi, lLo] = logDoubleF64(builder, loc, ax);
  auto [yHi, yLo0] = twoProduct(m, y, lHi);
  Value yLo = m.fma(y, lLo, yLo0);
  // Infinite (or NaN) products have no low part.
  Value finite = m.cmp(arith::CmpFPredicate::OLT,
                       math::AbsFOp::create(builder, loc, yHi), m.f(INFINITY));
  yLo = m.select(finite, yLo, m.f(0));
  return expF64(builder, loc, yHi, /*base2=*/false, yLo);
}

/// f32 exp and exp2 on the host, vectorizable: x clamped to where the
/// result is neither inf nor 0 for certain, k = round(x log2 e) (round(x)
/// for exp2), r = x - k ln 2 with ln 2 in two parts (Cody-Waite; (x - k) ln 2
/// for exp2), e^r = 1 + r + r^2 P(r) (Cephes' degree-5 P, 1 ulp on
/// |r| <= ln 2 / 2), times 2^k: with `scalef`, llvm.ldexp, one vscalefps on
/// AVX-512 (about 20 instructions a vector where MLIR's approximation takes
/// 35); without it, in two exact steps of 2^(k >> 1) and 2^(k - (k >> 1)),
/// for exp2 only (exp keeps MLIR's approximation, faster there). Overflow
/// gives inf and results below 2^-126 round once to the subnormal; NaN is
/// the NaN guard's.
template <typename Op> struct HostExpF32 : OpRewritePattern<Op> {
  HostExpF32(MLIRContext *context, bool scalef)
      : OpRewritePattern<Op>(context, /*benefit=*/3), scalef(scalef) {}

  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    constexpr bool base2 = std::is_same_v<Op, math::Exp2Op>;
    if (!op.getType().isF32() || (!base2 && !scalef))
      return failure();
    ScalarMath m(rewriter, op.getLoc(), rewriter.getF32Type());
    Location loc = op.getLoc();
    auto clamp = [&](Value x, double lo, double hi) {
      // select(x < lo, lo, x) is one vmaxps; a NaN passes through.
      Value low = m.f(lo), high = m.f(hi);
      x = m.select(m.cmp(arith::CmpFPredicate::OLT, x, low), low, x);
      return m.select(m.cmp(arith::CmpFPredicate::OGT, x, high), high, x);
    };
    // e^-104 and 2^-151 round to 0, e^89 and 2^129 to inf.
    Value x = base2 ? clamp(op.getOperand(), -151.0, 129.0)
                    : clamp(op.getOperand(), -104.0, 89.0);
    Value k, r;
    if (base2) {
      k = math::RoundEvenOp::create(rewriter, loc, x);
      r = m.mul(m.sub(x, k), m.f(std::numbers::ln2));
    } else {
      k = math::RoundEvenOp::create(rewriter, loc,
                                    m.mul(x, m.f(std::numbers::log2e)));
      r = m.fma(k, m.f(-0.693359375), x);
      r = m.fma(k, m.f(2.12194440e-4), r);
    }
    Value p =
        m.polynomial(r, {5.0000001201e-1, 1.6666665459e-1, 4.1665795894e-2,
                         8.3334519073e-3, 1.3981999507e-3, 1.9875691500e-4});
    Value er = m.add(m.fma(m.mul(r, r), p, r), m.f(1.0));
    // k is in [-151, 129]: LLVM's fptosi, without the saturating selects
    // of arith.fptosi's lowering.
    Type i32 = rewriter.getI32Type();
    Value ki = LLVM::FPToSIOp::create(rewriter, loc, i32, k);
    if (scalef) {
      rewriter.replaceOpWithNewOp<LLVM::LoadExpOp>(op, er.getType(), er, ki);
      return success();
    }
    Value half = arith::ShRSIOp::create(rewriter, loc, ki, m.i(i32, 1));
    Value rest = arith::SubIOp::create(rewriter, loc, ki, half);
    auto pow2 = [&](Value n) {
      Value biased = arith::AddIOp::create(rewriter, loc, n, m.i(i32, 127));
      return m.fromBits(
          arith::ShLIOp::create(rewriter, loc, biased, m.i(i32, 23)));
    };
    rewriter.replaceOp(op, m.mul(m.mul(er, pow2(half)), pow2(rest)));
    return success();
  }

  bool scalef;
};

/// math.exp/exp2/log/log2/sin/cos/tanh/erf of f64 on the GPU (ex2.approx
/// and MLIR's approximations are f32 only).
template <typename Op> struct F64Math : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;
  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF64())
      return failure();
    Location loc = op.getLoc();
    Value x = op.getOperand();
    Value result;
    if constexpr (std::is_same_v<Op, math::ExpOp>)
      result = expF64(rewriter, loc, x, /*base2=*/false);
    else if constexpr (std::is_same_v<Op, math::Exp2Op>)
      result = expF64(rewriter, loc, x, /*base2=*/true);
    else if constexpr (std::is_same_v<Op, math::LogOp>)
      result = logF64(rewriter, loc, x, /*base2=*/false);
    else if constexpr (std::is_same_v<Op, math::Log2Op>)
      result = logF64(rewriter, loc, x, /*base2=*/true);
    else if constexpr (std::is_same_v<Op, math::SinOp>)
      result = sinCosF64(rewriter, loc, x, /*isCos=*/false);
    else if constexpr (std::is_same_v<Op, math::CosOp>)
      result = sinCosF64(rewriter, loc, x, /*isCos=*/true);
    else if constexpr (std::is_same_v<Op, math::TanhOp>)
      result = tanhF64(rewriter, loc, x);
    else
      result = erfF64(rewriter, loc, x);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

LogicalResult lowerMathForTarget(ModuleOp module, MathTarget target,
                                 bool hostScalef) {
  MLIRContext *context = module.getContext();
  scaleDenormalLogs(module);
  guardNaNs(module, target);
  RewritePatternSet patterns(context);
  SmallVector<StringRef> expanded(std::begin(kExpanded), std::end(kExpanded));
  math::populateExpansionPatterns(patterns, expanded);
  patterns.add<PowLowering>(context, target, /*benefit=*/2);
  if (target == MathTarget::NVPTX) {
    patterns.add<ThroughBase2<math::ExpOp>, ThroughBase2<math::LogOp>>(
        context, /*benefit=*/2);
    patterns.add<Exp2FlushToZero>(context, /*benefit=*/2);
    patterns
        .add<ExactRemF, F64Math<math::ExpOp>, F64Math<math::Exp2Op>,
             F64Math<math::LogOp>, F64Math<math::Log2Op>, F64Math<math::SinOp>,
             F64Math<math::CosOp>, F64Math<math::TanhOp>, F64Math<math::ErfOp>>(
            context,
            /*benefit=*/3);
    auto approximate = [](StringRef name) { return !isNativeOnNVPTX(name); };
    populateMathF32ExpansionPatterns(patterns, approximate);
    populateMathPolynomialApproximationPatterns(patterns, approximate);
  } else {
    // LLVM has no erf intrinsic (f64 erf failed to legalize on the host):
    // the host computes it as the GPU does.
    patterns.add<F64Math<math::ErfOp>>(context, /*benefit=*/3);
    patterns.add<HostExpF32<math::ExpOp>, HostExpF32<math::Exp2Op>>(context,
                                                                    hostScalef);
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

bool dividesByReciprocal(Type element) {
  return element.isF32() || element.isF64();
}

Value reciprocalIsNormal(OpBuilder &builder, Location loc, Value magnitude) {
  auto type = cast<FloatType>(magnitude.getType());
  const llvm::fltSemantics &semantics = type.getFloatSemantics();
  APFloat smallest = APFloat::getSmallestNormalized(semantics);
  APFloat largest = APFloat::getOne(semantics); // 1 / smallest, exact
  (void)largest.divide(smallest, APFloat::rmNearestTiesToEven);
  auto constant = [&](const APFloat &value) -> Value {
    return arith::ConstantOp::create(builder, loc,
                                     builder.getFloatAttr(type, value));
  };
  return arith::AndIOp::create(
      builder, loc,
      arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::OGE, magnitude,
                            constant(smallest)),
      arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::OLE, magnitude,
                            constant(largest)));
}

} // namespace blockjit
