//===- MathLowering.cpp - math functions each target can run -------------===//
#include "compiler/MathLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
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
Value expF64(OpBuilder &builder, Location loc, Value x, bool base2) {
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

/// f64 log(x) (base2 = false) or log2(x) (base2 = true): x = 2^e m with m in
/// [sqrt(1/2), sqrt(2)] (subnormals scaled by 2^54 first), log(m) =
/// 2 atanh(s) with s = (m - 1) / (m + 1), |s| <= 0.1716, a series in s^2
/// to degree 11 (truncation below 1e-18); then e ln 2 + log(m), or e +
/// log(m) log2(e), with the constants in two parts. log(0) = -inf, log of
/// a negative or NaN = NaN, log(inf) = inf.
Value logF64(OpBuilder &builder, Location loc, Value x, bool base2) {
  ScalarMath m(builder, loc, cast<FloatType>(x.getType()));
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

/// math.exp/exp2/log/log2 of f64 on the GPU (ex2.approx and MLIR's
/// approximations are f32 only).
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
    else
      result = logF64(rewriter, loc, x, /*base2=*/true);
    rewriter.replaceOp(op, result);
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
    patterns.add<ExactRemF, F64Math<math::ExpOp>, F64Math<math::Exp2Op>,
                 F64Math<math::LogOp>, F64Math<math::Log2Op>>(context,
                                                              /*benefit=*/3);
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
