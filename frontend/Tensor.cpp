//===- Tensor.cpp - tracing DSL operations into blk/arith/math IR --------===//
#include "frontend/Tensor.h"
#include "frontend/TraceContext.h"

#include "dialect/BlkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <limits>

using namespace mlir;

namespace blockjit {

//===----------------------------------------------------------------------===//
// TraceContext
//===----------------------------------------------------------------------===//

static thread_local TraceContext *currentTrace = nullptr;

TraceContext::TraceContext(OpBuilder &builder, std::string kernelName)
    : builder_(builder), kernelName_(std::move(kernelName)),
      previous_(currentTrace) {
  currentTrace = this;
}

TraceContext::~TraceContext() { currentTrace = previous_; }

TraceContext *TraceContext::current() { return currentTrace; }

Location TraceContext::location(const SourceLoc &loc) {
  return FileLineColLoc::get(builder_.getContext(), loc.file_name(), loc.line(),
                             loc.column());
}

Tensor TraceContext::fail(const SourceLoc &loc, const llvm::Twine &message) {
  if (!error_)
    error_ = llvm::formatv("kernel '{0}': {1}:{2}: {3}", kernelName_,
                           loc.file_name(), loc.line(), message.str())
                 .str();
  return Tensor();
}

namespace {

/// Every DSL entry point starts here: the trace to emit into, or null (after
/// telling the user) when called outside of a kernel being traced.
TraceContext *trace(const SourceLoc &loc) {
  TraceContext *context = TraceContext::current();
  if (!context)
    llvm::errs() << "blockjit: " << loc.file_name() << ":" << loc.line()
                 << ": DSL operation used outside of a kernel being traced\n";
  return context;
}

std::string typeString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

std::string shapeString(ArrayRef<int64_t> shape) {
  std::string text = "[";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(shape, os);
  os << "]";
  return text;
}

Type withShape(ArrayRef<int64_t> shape, Type element) {
  if (shape.empty())
    return element;
  return RankedTensorType::get(shape, element);
}

bool isFloatType(Type t) { return isa<FloatType>(t); }

/// The wider of two element types under the DSL's promotion rules: floats win
/// over integers; mixed 16-bit floats promote to f32.
Type promote(Type a, Type b) {
  if (a == b)
    return a;
  bool fa = isFloatType(a), fb = isFloatType(b);
  if (fa != fb)
    return fa ? a : b;
  unsigned wa = a.getIntOrFloatBitWidth(), wb = b.getIntOrFloatBitWidth();
  if (fa && wa == wb) // f16 with bf16
    return Float32Type::get(a.getContext());
  return wa > wb ? a : b;
}

/// i32/i64 `v` converted to bf16 with one rounding (to nearest, ties to
/// even). Through f32 alone that rounds twice (x86 has no direct
/// conversion: 2^24 + 2^16 + 1 would give 2^24): the f32 value is made the
/// round-to-odd one (an inexact, even result steps one ulp toward `v`),
/// which then rounds to bf16 exactly as `v` would (f32 keeps more than
/// bf16's 8 bits + 2).
Value integerToBF16(OpBuilder &b, Location loc, Value v) {
  using P = arith::CmpIPredicate;
  auto like = [&](Type element) {
    return blk::withShapeOf(v.getType(), element);
  };
  auto constant = [&](Type element, int64_t value) -> Value {
    Value c =
        arith::ConstantOp::create(b, loc, IntegerAttr::get(element, value));
    if (isa<RankedTensorType>(v.getType()))
      c = blk::SplatOp::create(b, loc, like(element), c);
    return c;
  };
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value a = arith::SIToFPOp::create(b, loc, like(b.getF32Type()), v);
  Value wide = blk::elementTypeOf(v.getType()) == i64
                   ? v
                   : Value(arith::ExtSIOp::create(b, loc, like(i64), v));
  // a is an integer; out of i64's range it saturates (only for x near
  // INT64_MAX, which bf16 rounds to 2^63 either way).
  Value back = arith::FPToSIOp::create(b, loc, like(i64), a);
  Value bits = arith::BitcastOp::create(b, loc, like(i32), a);
  Value inexact = arith::CmpIOp::create(b, loc, P::ne, back, wide);
  Value even = arith::CmpIOp::create(
      b, loc, P::eq, arith::AndIOp::create(b, loc, bits, constant(i32, 1)),
      constant(i32, 0));
  // Sign and magnitude: bits + 1 is one ulp larger in magnitude.
  Value overshoot = arith::XOrIOp::create(
      b, loc, arith::CmpIOp::create(b, loc, P::sgt, back, wide),
      arith::CmpIOp::create(b, loc, P::slt, wide, constant(i64, 0)));
  Value step = arith::SelectOp::create(b, loc, overshoot, constant(i32, -1),
                                       constant(i32, 1));
  Value adjusted = arith::SelectOp::create(
      b, loc, arith::AndIOp::create(b, loc, inexact, even),
      arith::AddIOp::create(b, loc, bits, step), bits);
  Value odd = arith::BitcastOp::create(b, loc, like(b.getF32Type()), adjusted);
  return arith::TruncFOp::create(b, loc, like(b.getBF16Type()), odd);
}

Value castValue(OpBuilder &b, Location loc, Value v, Type toElement) {
  Type from = blk::elementTypeOf(v.getType());
  if (from == toElement)
    return v;
  Type to = blk::withShapeOf(v.getType(), toElement);
  bool ff = isFloatType(from), ft = isFloatType(toElement);
  if (toElement.isInteger(1)) { // nonzero is true (as in Triton)
    Value zero =
        arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(from)));
    if (isa<RankedTensorType>(v.getType()))
      zero = blk::SplatOp::create(b, loc, v.getType(), zero);
    if (ff)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
  }
  unsigned wf = from.getIntOrFloatBitWidth(),
           wt = toElement.getIntOrFloatBitWidth();
  if (!ff && !ft) {
    if (wf == 1)
      return arith::ExtUIOp::create(b, loc, to, v);
    return wt > wf ? Value(arith::ExtSIOp::create(b, loc, to, v))
                   : Value(arith::TruncIOp::create(b, loc, to, v));
  }
  if (!ff && toElement.isBF16() && wf >= 32)
    return integerToBF16(b, loc, v);
  if (!ff && ft)
    return wf == 1 ? Value(arith::UIToFPOp::create(b, loc, to, v))
                   : Value(arith::SIToFPOp::create(b, loc, to, v));
  if (ff && !ft)
    return arith::FPToSIOp::create(b, loc, to, v);
  if (wf == wt) { // f16 <-> bf16 goes through f32
    Value wide = castValue(b, loc, v, Float32Type::get(b.getContext()));
    return castValue(b, loc, wide, toElement);
  }
  return wt > wf ? Value(arith::ExtFOp::create(b, loc, to, v))
                 : Value(arith::TruncFOp::create(b, loc, to, v));
}

Value scalarConstant(OpBuilder &b, Location loc, Type element, double real,
                     std::optional<int64_t> integer) {
  if (auto f = dyn_cast<FloatType>(element))
    return arith::ConstantOp::create(
        b, loc, FloatAttr::get(f, integer ? double(*integer) : real));
  return arith::ConstantOp::create(
      b, loc, IntegerAttr::get(element, integer ? *integer : int64_t(real)));
}

/// `v` stretched to `shape`: splat for scalars, leading size-1 dimensions for
/// lower ranks, then blk.broadcast. Fails if the shapes are incompatible.
FailureOr<Value> broadcastTo(OpBuilder &b, Location loc, Value v,
                             ArrayRef<int64_t> shape) {
  ArrayRef<int64_t> from = blk::shapeOf(v.getType());
  if (from == shape && (shape.empty() == !isa<RankedTensorType>(v.getType())))
    return v;
  Type element = blk::elementTypeOf(v.getType());
  if (!isa<RankedTensorType>(v.getType()))
    return Value(blk::SplatOp::create(b, loc, withShape(shape, element), v));
  if (from.size() > shape.size())
    return failure();
  while (blk::shapeOf(v.getType()).size() < shape.size())
    v = blk::ExpandDimsOp::create(b, loc, v, 0);
  from = blk::shapeOf(v.getType());
  for (auto [f, t] : llvm::zip(from, shape))
    if (f != t && f != 1)
      return failure();
  if (from == shape)
    return v;
  return Value(blk::BroadcastOp::create(b, loc, withShape(shape, element), v));
}

/// The numpy-style broadcast of two shapes, or nothing if incompatible.
std::optional<std::vector<int64_t>> broadcastShape(ArrayRef<int64_t> a,
                                                   ArrayRef<int64_t> b) {
  std::vector<int64_t> result(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < result.size(); ++i) {
    int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1)
      return std::nullopt;
    result[result.size() - 1 - i] = std::max(da, db);
  }
  return result;
}

const char *opSymbol(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::Rem:
    return "%";
  case BinaryOp::And:
    return "&";
  case BinaryOp::Or:
    return "|";
  case BinaryOp::Xor:
    return "^";
  case BinaryOp::Lt:
    return "<";
  case BinaryOp::Le:
    return "<=";
  case BinaryOp::Gt:
    return ">";
  case BinaryOp::Ge:
    return ">=";
  case BinaryOp::Eq:
    return "==";
  case BinaryOp::Ne:
    return "!=";
  case BinaryOp::Max:
    return "maximum";
  case BinaryOp::Min:
    return "minimum";
  }
  return "?";
}

/// Turns an operand into a value of element type `element` (numbers become
/// constants of that type; tensors are converted).
Value materialize(OpBuilder &b, Location loc, const Operand &x, Type element) {
  if (x.tensor)
    return castValue(b, loc, x.tensor->value(), element);
  return scalarConstant(b, loc, element, x.real.value_or(0), x.integer);
}

/// Whether `x` holds a value. An empty tensor comes from an earlier error
/// (already reported: the operation is skipped quietly) or was never assigned,
/// which is reported here rather than dropping the operation silently.
bool usable(TraceContext &t, const SourceLoc &where, const Tensor &x) {
  if (x.valid())
    return true;
  if (!t.failed())
    t.fail(where, "use of an empty Tensor (one that was never assigned a "
                  "value)");
  return false;
}
bool usable(TraceContext &t, const SourceLoc &where, const Operand &x) {
  return !x.tensor || usable(t, where, *x.tensor);
}

/// Element type an operand asks for, or null for a C++ number.
Type operandElementType(const Operand &x) {
  return x.tensor ? blk::elementTypeOf(x.tensor->type()) : Type();
}

/// A constant of `like`'s type (splat for blocks).
Value constantLike(OpBuilder &b, Location loc, Value like, int64_t value) {
  Type element = blk::elementTypeOf(like.getType());
  Value c = arith::ConstantOp::create(b, loc, IntegerAttr::get(element, value));
  if (isa<RankedTensorType>(like.getType()))
    c = blk::SplatOp::create(b, loc, like.getType(), c);
  return c;
}

/// C's truncating l / r or l % r, defined everywhere: a zero divisor acts as
/// 1 (x / 0 == x, x % 0 == 0) and a divisor of -1 as negation (INT_MIN / -1
/// wraps to INT_MIN, remainder 0). arith.divsi leaves both undefined, and x86
/// traps on them; the selects cost little next to a division.
Value integerDivRem(OpBuilder &b, Location loc, bool remainder, Value l,
                    Value r) {
  using P = arith::CmpIPredicate;
  Value zero = constantLike(b, loc, r, 0), one = constantLike(b, loc, r, 1),
        minusOne = constantLike(b, loc, r, -1);
  Value isZero = arith::CmpIOp::create(b, loc, P::eq, r, zero);
  Value isMinusOne = arith::CmpIOp::create(b, loc, P::eq, r, minusOne);
  Value special = arith::OrIOp::create(b, loc, isZero, isMinusOne);
  Value safe = arith::SelectOp::create(b, loc, special, one, r);
  if (remainder) {
    Value rem = arith::RemSIOp::create(b, loc, l, safe);
    return arith::SelectOp::create(b, loc, special, zero, rem);
  }
  Value quotient = arith::DivSIOp::create(b, loc, l, safe);
  Value negated = arith::SubIOp::create(b, loc, zero, l);
  return arith::SelectOp::create(b, loc, isMinusOne, negated, quotient);
}

Value emitArith(OpBuilder &b, Location loc, BinaryOp op, Value l, Value r) {
  bool isFloat = isFloatType(blk::elementTypeOf(l.getType()));
  using P = arith::CmpIPredicate;
  using F = arith::CmpFPredicate;
  auto cmp = [&](P ip, F fp) -> Value {
    if (isFloat)
      return arith::CmpFOp::create(b, loc, fp, l, r);
    return arith::CmpIOp::create(b, loc, ip, l, r);
  };
  switch (op) {
  case BinaryOp::Add:
    return isFloat ? Value(arith::AddFOp::create(b, loc, l, r))
                   : Value(arith::AddIOp::create(b, loc, l, r));
  case BinaryOp::Sub:
    return isFloat ? Value(arith::SubFOp::create(b, loc, l, r))
                   : Value(arith::SubIOp::create(b, loc, l, r));
  case BinaryOp::Mul:
    return isFloat ? Value(arith::MulFOp::create(b, loc, l, r))
                   : Value(arith::MulIOp::create(b, loc, l, r));
  case BinaryOp::Div:
    return isFloat ? Value(arith::DivFOp::create(b, loc, l, r))
                   : integerDivRem(b, loc, /*remainder=*/false, l, r);
  case BinaryOp::Rem:
    return isFloat ? Value(arith::RemFOp::create(b, loc, l, r))
                   : integerDivRem(b, loc, /*remainder=*/true, l, r);
  case BinaryOp::And:
    return arith::AndIOp::create(b, loc, l, r);
  case BinaryOp::Or:
    return arith::OrIOp::create(b, loc, l, r);
  case BinaryOp::Xor:
    return arith::XOrIOp::create(b, loc, l, r);
  case BinaryOp::Lt:
    return cmp(P::slt, F::OLT);
  case BinaryOp::Le:
    return cmp(P::sle, F::OLE);
  case BinaryOp::Gt:
    return cmp(P::sgt, F::OGT);
  case BinaryOp::Ge:
    return cmp(P::sge, F::OGE);
  case BinaryOp::Eq:
    return cmp(P::eq, F::OEQ);
  case BinaryOp::Ne:
    return cmp(P::ne, F::UNE);
  case BinaryOp::Max:
    return isFloat ? Value(arith::MaximumFOp::create(b, loc, l, r))
                   : Value(arith::MaxSIOp::create(b, loc, l, r));
  case BinaryOp::Min:
    return isFloat ? Value(arith::MinimumFOp::create(b, loc, l, r))
                   : Value(arith::MinSIOp::create(b, loc, l, r));
  }
  return {};
}

/// pointer +/- integer offsets: blk.addptr after broadcasting both sides.
Tensor pointerArith(TraceContext &t, BinaryOp op, const Operand &ptrSide,
                    const Operand &offsetSide, const SourceLoc &where) {
  OpBuilder &b = t.builder();
  Location loc = t.location(where);
  if (op != BinaryOp::Add && op != BinaryOp::Sub)
    return t.fail(where, llvm::Twine("operator ") + opSymbol(op) +
                             " is not defined on pointers (only + and - "
                             "integer offsets)");
  Type offsetElement = operandElementType(offsetSide);
  if (offsetSide.real || (offsetElement && !isa<IntegerType>(offsetElement)))
    return t.fail(where, "pointer offsets must be integers, got " +
                             (offsetElement ? typeString(offsetElement)
                                            : std::string("a C++ float")));
  Value ptr = ptrSide.tensor->value();
  Value offset = materialize(
      b, loc, offsetSide, offsetElement ? offsetElement : Type(b.getI32Type()));
  auto shape = broadcastShape(blk::shapeOf(ptr.getType()),
                              blk::shapeOf(offset.getType()));
  if (!shape)
    return t.fail(where, "cannot add offsets of shape " +
                             shapeString(blk::shapeOf(offset.getType())) +
                             " to pointers of shape " +
                             shapeString(blk::shapeOf(ptr.getType())));
  ptr = *broadcastTo(b, loc, ptr, *shape);
  offset = *broadcastTo(b, loc, offset, *shape);
  if (op == BinaryOp::Sub) {
    Value zero = scalarConstant(b, loc, blk::elementTypeOf(offset.getType()), 0,
                                int64_t(0));
    zero = *broadcastTo(b, loc, zero, *shape);
    offset = arith::SubIOp::create(b, loc, zero, offset);
  }
  return Tensor(blk::AddPtrOp::create(b, loc, ptr.getType(), ptr, offset));
}

} // namespace

//===----------------------------------------------------------------------===//
// Tensor
//===----------------------------------------------------------------------===//

Type Tensor::type() const { return value_ ? value_.getType() : Type(); }
Type Tensor::elementType() const {
  return value_ ? blk::elementTypeOf(value_.getType()) : Type();
}
std::vector<int64_t> Tensor::shape() const {
  if (!value_)
    return {};
  auto shape = blk::shapeOf(value_.getType());
  return {shape.begin(), shape.end()};
}
bool Tensor::isPointer() const {
  return value_ && isa<blk::PtrType>(elementType());
}

Tensor Tensor::to(DType type, SourceLoc where) const {
  return cast(*this, type, where);
}

Tensor Tensor::expand_dims(int axis, SourceLoc where) const {
  TraceContext *t = trace(where);
  if (!t || !usable(*t, where, *this))
    return {};
  int64_t rank = shape().size();
  if (!isBlock())
    return t->fail(where, "expand_dims needs a block, got a scalar");
  int64_t index = axis < 0 ? axis + rank + 1 : axis;
  if (index < 0 || index > rank)
    return t->fail(where, llvm::formatv("expand_dims axis {0} is out of range "
                                        "for a rank-{1} block ({2}..{1})",
                                        axis, rank, -(rank + 1)));
  return Tensor(blk::ExpandDimsOp::create(t->builder(), t->location(where),
                                          value_, int32_t(index)));
}

Tensor Tensor::broadcast_to(std::vector<int64_t> shape, SourceLoc where) const {
  TraceContext *t = trace(where);
  if (!t || !usable(*t, where, *this))
    return {};
  for (int64_t d : shape)
    if (d <= 0 || !llvm::isPowerOf2_64(d))
      return t->fail(where, "broadcast_to: block dimensions must be powers of "
                            "two, got " +
                                shapeString(shape));
  auto result = broadcastTo(t->builder(), t->location(where), value_, shape);
  if (failed(result))
    return t->fail(where, "cannot broadcast a block of shape " +
                              shapeString(this->shape()) + " to " +
                              shapeString(shape));
  return Tensor(*result);
}

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

Tensor binary(BinaryOp op, const Operand &lhs, const Operand &rhs) {
  const SourceLoc &where = lhs.tensor ? lhs.loc : rhs.loc;
  TraceContext *t = trace(where);
  if (!t)
    return {};
  if (!usable(*t, where, lhs) || !usable(*t, where, rhs))
    return {};
  if (lhs.tensor && lhs.tensor->isPointer()) {
    if (rhs.tensor && rhs.tensor->isPointer())
      return t->fail(where, llvm::Twine("operator ") + opSymbol(op) +
                                " between two pointers is not supported");
    return pointerArith(*t, op, lhs, rhs, where);
  }
  if (rhs.tensor && rhs.tensor->isPointer()) {
    if (op != BinaryOp::Add)
      return t->fail(where, "only pointer + offset and offset + pointer are "
                            "defined on pointers");
    return pointerArith(*t, op, rhs, lhs, where);
  }

  OpBuilder &b = t->builder();
  Location loc = t->location(where);
  Type le = operandElementType(lhs), re = operandElementType(rhs);
  Type element;
  if (le && re)
    element = promote(le, re);
  else {
    element = le ? le : re;
    const Operand &number = le ? rhs : lhs;
    if (number.real && !isFloatType(element))
      element = b.getF32Type();
  }
  bool logical =
      op == BinaryOp::And || op == BinaryOp::Or || op == BinaryOp::Xor;
  if (logical && isFloatType(element))
    return t->fail(where, llvm::Twine("operator ") + opSymbol(op) +
                              " needs integer or i1 operands, got " +
                              typeString(element));
  Value l = materialize(b, loc, lhs, element);
  Value r = materialize(b, loc, rhs, element);
  auto shape =
      broadcastShape(blk::shapeOf(l.getType()), blk::shapeOf(r.getType()));
  if (!shape)
    return t->fail(where, llvm::Twine("shape mismatch in '") + opSymbol(op) +
                              "': " + shapeString(blk::shapeOf(l.getType())) +
                              " and " + shapeString(blk::shapeOf(r.getType())) +
                              " cannot be broadcast together");
  l = *broadcastTo(b, loc, l, *shape);
  r = *broadcastTo(b, loc, r, *shape);
  return Tensor(emitArith(b, loc, op, l, r));
}

Tensor operator-(TensorOperand x) { return binary(BinaryOp::Sub, 0, x); }

static Tensor &compound(BinaryOp op, Tensor &x, const Operand &y) {
  x = binary(op, Operand(x, y.loc), y);
  return x;
}
Tensor &operator+=(Tensor &x, Operand y) {
  return compound(BinaryOp::Add, x, y);
}
Tensor &operator-=(Tensor &x, Operand y) {
  return compound(BinaryOp::Sub, x, y);
}
Tensor &operator*=(Tensor &x, Operand y) {
  return compound(BinaryOp::Mul, x, y);
}
Tensor &operator/=(Tensor &x, Operand y) {
  return compound(BinaryOp::Div, x, y);
}

/// Fails (with the user's line) unless both operands are integers.
static bool integerOperands(const Operand &a, const Operand &b,
                            const char *name) {
  TraceContext *t = trace(a.loc);
  if (!t || !usable(*t, a.loc, a) || !usable(*t, a.loc, b))
    return false;
  for (const Operand *x : {&a, &b}) {
    Type e = operandElementType(*x);
    if (x->real || (e && (!isa<IntegerType>(e) || e.isInteger(1)))) {
      t->fail(a.loc, llvm::Twine(name) + " needs integer operands, got " +
                         (x->tensor ? typeString(x->tensor->type())
                                    : std::string("a C++ float")));
      return false;
    }
  }
  return true;
}

Tensor floordiv(TensorOperand a, Operand b) {
  if (!integerOperands(a, b, "floordiv"))
    return {};
  return binary(BinaryOp::Div, a, b);
}

Tensor cdiv(TensorOperand a, Operand b) {
  if (!integerOperands(a, b, "cdiv"))
    return {};
  Tensor numerator = binary(BinaryOp::Add, a, b);
  numerator = binary(BinaryOp::Sub, Operand(numerator, a.loc),
                     Operand(int64_t(1), a.loc));
  return binary(BinaryOp::Div, Operand(numerator, a.loc), b);
}

Tensor operator!(TensorOperand x) {
  TraceContext *t = trace(x.loc);
  if (!t || !usable(*t, x.loc, x))
    return {};
  if (!x.tensor->elementType().isInteger(1))
    return t->fail(x.loc, "operator ! needs an i1 (boolean) tensor, got " +
                              typeString(x.tensor->type()));
  return binary(BinaryOp::Xor, x, Operand(int64_t(1), x.loc));
}

Tensor maximum(TensorOperand a, Operand b) {
  return binary(BinaryOp::Max, a, b);
}
Tensor minimum(TensorOperand a, Operand b) {
  return binary(BinaryOp::Min, a, b);
}

//===----------------------------------------------------------------------===//
// Geometry
//===----------------------------------------------------------------------===//

template <typename GridOp>
static Int gridQuery(int axis, const SourceLoc &where, const char *name) {
  TraceContext *t = trace(where);
  if (!t)
    return {};
  if (axis < 0 || axis > 2)
    return t->fail(where, llvm::formatv("{0}(axis): axis must be 0, 1 or 2, "
                                        "got {1}",
                                        name, axis));
  return Int(GridOp::create(t->builder(), t->location(where), axis));
}

Int program_id(int axis, SourceLoc where) {
  return gridQuery<blk::ProgramIdOp>(axis, where, "program_id");
}
Int num_programs(int axis, SourceLoc where) {
  return gridQuery<blk::NumProgramsOp>(axis, where, "num_programs");
}

Tensor arange(int64_t start, int64_t end, SourceLoc where) {
  TraceContext *t = trace(where);
  if (!t)
    return {};
  if (end <= start)
    return t->fail(where, llvm::formatv("arange({0}, {1}): end must be greater "
                                        "than start",
                                        start, end));
  if (!llvm::isPowerOf2_64(end - start))
    return t->fail(where, llvm::formatv("arange({0}, {1}): the length {2} "
                                        "must be a power of two (use "
                                        "next_power_of_2 and a mask)",
                                        start, end, end - start));
  if (start < INT32_MIN || end > INT32_MAX)
    return t->fail(where, "arange bounds must fit in i32");
  if (end - start > blk::kMaxBlockElements)
    return t->fail(where, llvm::formatv("arange({0}, {1}): a block holds at "
                                        "most {2} (2^24) elements",
                                        start, end, blk::kMaxBlockElements));
  return Tensor(blk::MakeRangeOp::create(t->builder(), t->location(where),
                                         int32_t(start), int32_t(end)));
}

Tensor full(std::vector<int64_t> shape, double value, DType type,
            SourceLoc where) {
  TraceContext *t = trace(where);
  if (!t)
    return {};
  for (int64_t d : shape)
    if (d <= 0 || !llvm::isPowerOf2_64(d))
      return t->fail(where, "full: block dimensions must be powers of two, "
                            "got " +
                                shapeString(shape));
  int64_t elements = 1;
  for (int64_t d : shape)
    if (d > blk::kMaxBlockElements / elements || (elements *= d, false))
      return t->fail(where,
                     llvm::formatv("full: a block holds at most {0} "
                                   "(2^24) elements, got {1}",
                                   blk::kMaxBlockElements, shapeString(shape)));
  OpBuilder &b = t->builder();
  Location loc = t->location(where);
  Type element = toMLIRType(b.getContext(), type);
  Value scalar = scalarConstant(
      b, loc, element, value,
      isFloat(type) ? std::nullopt : std::optional<int64_t>(int64_t(value)));
  if (shape.empty())
    return Tensor(scalar);
  return Tensor(
      blk::SplatOp::create(b, loc, withShape(shape, element), scalar));
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

namespace {

/// Checks that `ptrs` are pointers and brings `mask` to their shape.
FailureOr<Value> prepareMask(TraceContext &t, const Tensor &ptrs,
                             const Tensor *mask, const SourceLoc &where,
                             const char *what) {
  if (!ptrs.isPointer()) {
    t.fail(where, llvm::Twine(what) + " needs pointers, got " +
                      typeString(ptrs.type()));
    return failure();
  }
  if (!mask)
    return Value();
  if (!mask->elementType().isInteger(1)) {
    t.fail(where, llvm::Twine(what) + " mask must be i1 (a comparison), got " +
                      typeString(mask->type()));
    return failure();
  }
  auto result =
      broadcastTo(t.builder(), t.location(where), mask->value(), ptrs.shape());
  if (failed(result)) {
    t.fail(where, llvm::Twine(what) + " mask of shape " +
                      shapeString(mask->shape()) +
                      " does not broadcast to the pointers' shape " +
                      shapeString(ptrs.shape()));
    return failure();
  }
  return result;
}

/// Why the C++ number `x` cannot be stored exactly as an `element`, or "" if
/// it can (tensors and float elements always can: floats round, infinities
/// and NaN exist). -INFINITY as the `other` of an i32 load would otherwise
/// become 0 and silently change a reduction.
std::string unrepresentable(const Operand &x, Type element) {
  auto integer = dyn_cast<IntegerType>(element);
  if (x.tensor || !integer)
    return "";
  unsigned bits = integer.getWidth();
  // i1 holds 0 and 1; wider integers are signed.
  double lo = bits == 1 ? 0 : -std::ldexp(1.0, int(bits) - 1);
  double hi = bits == 1 ? 1 : std::ldexp(1.0, int(bits) - 1) - 1;
  std::string shown;
  bool ok;
  if (x.integer) {
    ok = bits >= 64 || (double(*x.integer) >= lo && double(*x.integer) <= hi);
    shown = std::to_string(*x.integer);
  } else {
    double v = x.real.value_or(0);
    ok = std::isfinite(v) && v == std::trunc(v) && v >= lo && v <= hi;
    char text[32];
    std::snprintf(text, sizeof(text), "%g", v);
    shown = text;
  }
  if (ok)
    return "";
  return shown + " is not representable as " + typeString(element) +
         ", the pointee type; pass a value of that type (e.g. its lowest "
         "value for a max reduction)";
}

/// Brings a value operand to the pointee type and the pointers' shape.
FailureOr<Value> prepareValue(TraceContext &t, const Tensor &ptrs,
                              const Operand &value, const SourceLoc &where,
                              const char *what) {
  OpBuilder &b = t.builder();
  Location loc = t.location(where);
  if (value.tensor && value.tensor->isPointer()) {
    t.fail(where, llvm::Twine(what) + " must be numbers, not pointers (got " +
                      typeString(value.tensor->type()) + ")");
    return failure();
  }
  Type pointee = cast<blk::PtrType>(ptrs.elementType()).getPointeeType();
  if (std::string problem = unrepresentable(value, pointee); !problem.empty()) {
    t.fail(where, llvm::Twine(what) + " " + problem);
    return failure();
  }
  Value v = materialize(b, loc, value, pointee);
  auto result = broadcastTo(b, loc, v, ptrs.shape());
  if (failed(result)) {
    t.fail(where, llvm::Twine(what) + " of shape " +
                      shapeString(blk::shapeOf(v.getType())) +
                      " does not broadcast to the pointers' shape " +
                      shapeString(ptrs.shape()));
    return failure();
  }
  return result;
}

/// The dialect's attribute for `eviction` (none for the default).
blk::EvictionAttr evictionAttr(TraceContext &t, Eviction eviction) {
  if (eviction == Eviction::Normal)
    return {};
  return blk::EvictionAttr::get(
      t.builder().getContext(),
      eviction == Eviction::First ? blk::Eviction::First : blk::Eviction::Last);
}

Tensor loadImpl(const Tensor &ptrs, const Tensor *mask, const Operand *other,
                Eviction eviction, const SourceLoc &where) {
  TraceContext *t = trace(where);
  if (!t || !usable(*t, where, ptrs) || (mask && !usable(*t, where, *mask)) ||
      (other && !usable(*t, where, *other)))
    return {};
  auto maskValue = prepareMask(*t, ptrs, mask, where, "load");
  if (failed(maskValue))
    return {};
  Value otherValue;
  if (other) {
    auto prepared = prepareValue(*t, ptrs, *other, where, "load 'other'");
    if (failed(prepared))
      return {};
    otherValue = *prepared;
  }
  return Tensor(blk::LoadOp::create(t->builder(), t->location(where),
                                    ptrs.value(), *maskValue, otherValue,
                                    evictionAttr(*t, eviction)));
}

void storeImpl(const Tensor &ptrs, const Operand &value, const Tensor *mask,
               Eviction eviction, const SourceLoc &where) {
  TraceContext *t = trace(where);
  if (!t || !usable(*t, where, ptrs) || (mask && !usable(*t, where, *mask)) ||
      !usable(*t, where, value))
    return;
  auto maskValue = prepareMask(*t, ptrs, mask, where, "store");
  if (failed(maskValue))
    return;
  auto stored = prepareValue(*t, ptrs, value, where, "stored value");
  if (failed(stored))
    return;
  blk::StoreOp::create(t->builder(), t->location(where), ptrs.value(), *stored,
                       *maskValue, evictionAttr(*t, eviction));
}

} // namespace

Tensor load(const Tensor &ptrs, SourceLoc where) {
  return loadImpl(ptrs, nullptr, nullptr, Eviction::Normal, where);
}
Tensor load(const Tensor &ptrs, Eviction eviction, SourceLoc where) {
  return loadImpl(ptrs, nullptr, nullptr, eviction, where);
}
Tensor load(const Tensor &ptrs, const Tensor &mask, Operand other,
            SourceLoc where) {
  return loadImpl(ptrs, &mask, &other, Eviction::Normal, where);
}
Tensor load(const Tensor &ptrs, const Tensor &mask, Operand other,
            Eviction eviction, SourceLoc where) {
  return loadImpl(ptrs, &mask, &other, eviction, where);
}
Tensor load(const Tensor &ptrs, const Tensor &mask, SourceLoc where) {
  return loadImpl(ptrs, &mask, nullptr, Eviction::Normal, where);
}
void store(const Tensor &ptrs, Operand value, SourceLoc where) {
  storeImpl(ptrs, value, nullptr, Eviction::Normal, where);
}
void store(const Tensor &ptrs, Operand value, Eviction eviction,
           SourceLoc where) {
  storeImpl(ptrs, value, nullptr, eviction, where);
}
void store(const Tensor &ptrs, Operand value, const Tensor &mask,
           SourceLoc where) {
  storeImpl(ptrs, value, &mask, Eviction::Normal, where);
}
void store(const Tensor &ptrs, Operand value, const Tensor &mask,
           Eviction eviction, SourceLoc where) {
  storeImpl(ptrs, value, &mask, eviction, where);
}

//===----------------------------------------------------------------------===//
// Reductions, maths, casts
//===----------------------------------------------------------------------===//

static Tensor reduce(blk::ReduceKind kind, const Tensor &x, int axis,
                     const SourceLoc &where, const char *name) {
  TraceContext *t = trace(where);
  if (!t || !usable(*t, where, x))
    return {};
  if (!x.isBlock())
    return t->fail(where, llvm::Twine(name) +
                              " reduces a block, got a scalar "
                              "of type " +
                              typeString(x.type()));
  if (x.isPointer())
    return t->fail(where, llvm::Twine(name) + " cannot reduce pointers");
  int64_t rank = x.shape().size();
  int64_t index = axis < 0 ? axis + rank : axis;
  if (index < 0 || index >= rank)
    return t->fail(where, llvm::formatv("{0}: axis {1} is out of range for a "
                                        "rank-{2} block ({3}..{4})",
                                        name, axis, rank, -rank, rank - 1));
  Value v = x.value();
  // A sum of booleans counts them (in i32, as in Triton), rather than xor-ing.
  if (kind == blk::ReduceKind::Sum && x.elementType().isInteger(1))
    v = castValue(t->builder(), t->location(where), v,
                  t->builder().getI32Type());
  return Tensor(blk::ReduceOp::create(t->builder(), t->location(where), kind, v,
                                      int32_t(index)));
}

/// `reduced` (x reduced along `axis`) with that axis put back with size 1,
/// for the keep_dims forms of the reductions.
static Tensor keepReducedAxis(const Tensor &reduced, const Tensor &x, int axis,
                              const SourceLoc &where) {
  if (!reduced.valid())
    return reduced;
  TraceContext *t = trace(where);
  OpBuilder &b = t->builder();
  Location loc = t->location(where);
  int64_t rank = x.shape().size();
  int64_t index = axis < 0 ? axis + rank : axis;
  if (!reduced.isBlock())
    return Tensor(blk::SplatOp::create(
        b, loc, RankedTensorType::get({1}, reduced.type()), reduced.value()));
  return Tensor(
      blk::ExpandDimsOp::create(b, loc, reduced.value(), int32_t(index)));
}

/// `reduce`, then the reduced axis put back with size 1.
static Tensor reduceKeepDims(blk::ReduceKind kind, const Tensor &x, int axis,
                             const SourceLoc &where, const char *name) {
  return keepReducedAxis(reduce(kind, x, axis, where, name), x, axis, where);
}

/// Every axis, last first, down to a scalar.
static Tensor reduceAll(blk::ReduceKind kind, const Tensor &x,
                        const SourceLoc &where, const char *name) {
  Tensor result = reduce(kind, x, -1, where, name);
  while (result.isBlock())
    result = reduce(kind, result, -1, where, name);
  return result;
}

Tensor max(const Tensor &x, int axis, SourceLoc where) {
  return reduce(blk::ReduceKind::Max, x, axis, where, "max");
}
Tensor min(const Tensor &x, int axis, SourceLoc where) {
  return reduce(blk::ReduceKind::Min, x, axis, where, "min");
}
Tensor sum(const Tensor &x, int axis, SourceLoc where) {
  return reduce(blk::ReduceKind::Sum, x, axis, where, "sum");
}
Tensor max(const Tensor &x, int axis, bool keepDims, SourceLoc where) {
  return keepDims ? reduceKeepDims(blk::ReduceKind::Max, x, axis, where, "max")
                  : max(x, axis, where);
}
Tensor min(const Tensor &x, int axis, bool keepDims, SourceLoc where) {
  return keepDims ? reduceKeepDims(blk::ReduceKind::Min, x, axis, where, "min")
                  : min(x, axis, where);
}
Tensor sum(const Tensor &x, int axis, bool keepDims, SourceLoc where) {
  return keepDims ? reduceKeepDims(blk::ReduceKind::Sum, x, axis, where, "sum")
                  : sum(x, axis, where);
}
Tensor max(const Tensor &x, SourceLoc where) {
  return reduceAll(blk::ReduceKind::Max, x, where, "max");
}
Tensor min(const Tensor &x, SourceLoc where) {
  return reduceAll(blk::ReduceKind::Min, x, where, "min");
}
Tensor sum(const Tensor &x, SourceLoc where) {
  return reduceAll(blk::ReduceKind::Sum, x, where, "sum");
}

template <typename MathOp>
static Tensor unaryFloat(const Tensor &x, const SourceLoc &where,
                         const char *name) {
  TraceContext *t = trace(where);
  if (!t || !usable(*t, where, x))
    return {};
  if (x.isPointer())
    return t->fail(where, llvm::Twine(name) + " is not defined on pointers");
  Value v = x.value();
  // Integers are converted to f32 first, as in Triton.
  if (!isFloatType(x.elementType()))
    v = castValue(t->builder(), t->location(where), v,
                  t->builder().getF32Type());
  return Tensor(MathOp::create(t->builder(), t->location(where), v));
}

Tensor exp(const Tensor &x, SourceLoc where) {
  return unaryFloat<math::ExpOp>(x, where, "exp");
}
Tensor exp2(const Tensor &x, SourceLoc where) {
  return unaryFloat<math::Exp2Op>(x, where, "exp2");
}
Tensor log(const Tensor &x, SourceLoc where) {
  return unaryFloat<math::LogOp>(x, where, "log");
}
Tensor sqrt(const Tensor &x, SourceLoc where) {
  return unaryFloat<math::SqrtOp>(x, where, "sqrt");
}
Tensor rsqrt(const Tensor &x, SourceLoc where) {
  return unaryFloat<math::RsqrtOp>(x, where, "rsqrt");
}

Tensor log2(const Tensor &x, SourceLoc where) {
  return unaryFloat<math::Log2Op>(x, where, "log2");
}
Tensor sin(const Tensor &x, SourceLoc where) {
  return unaryFloat<math::SinOp>(x, where, "sin");
}
Tensor cos(const Tensor &x, SourceLoc where) {
  return unaryFloat<math::CosOp>(x, where, "cos");
}
Tensor tanh(const Tensor &x, SourceLoc where) {
  return unaryFloat<math::TanhOp>(x, where, "tanh");
}
Tensor erf(const Tensor &x, SourceLoc where) {
  return unaryFloat<math::ErfOp>(x, where, "erf");
}
Tensor floor(const Tensor &x, SourceLoc where) {
  return unaryFloat<math::FloorOp>(x, where, "floor");
}
Tensor ceil(const Tensor &x, SourceLoc where) {
  return unaryFloat<math::CeilOp>(x, where, "ceil");
}

Tensor sigmoid(const Tensor &x, SourceLoc where) {
  // 1 / (1 + exp(-x)): exp(-x) overflows to +inf for x < -88 and gives 0,
  // the right limit; NaN stays NaN.
  Tensor e =
      exp(binary(BinaryOp::Sub, Operand(0, where), Operand(x, where)), where);
  if (!e.valid())
    return e;
  Tensor denominator =
      binary(BinaryOp::Add, Operand(e, where), Operand(1, where));
  return binary(BinaryOp::Div, Operand(1, where), Operand(denominator, where));
}

/// Brings float operands to one element type and shape: integers and C++
/// numbers become the promoted float type (f32 at least).
static std::optional<SmallVector<Value>>
floatOperands(TraceContext &t, ArrayRef<const Operand *> xs,
              const SourceLoc &where, const char *name) {
  OpBuilder &b = t.builder();
  Location loc = t.location(where);
  Type element;
  for (const Operand *x : xs) {
    if (!usable(t, where, *x))
      return std::nullopt;
    if (x->tensor && x->tensor->isPointer()) {
      t.fail(where, llvm::Twine(name) + " is not defined on pointers");
      return std::nullopt;
    }
    Type e = operandElementType(*x);
    if (!e)
      continue;
    if (!isFloatType(e))
      e = b.getF32Type();
    element = element ? promote(element, e) : e;
  }
  if (!element)
    element = b.getF32Type();
  SmallVector<Value> values;
  std::vector<int64_t> shape;
  for (const Operand *x : xs) {
    values.push_back(materialize(b, loc, *x, element));
    auto joined = broadcastShape(shape, blk::shapeOf(values.back().getType()));
    if (!joined) {
      t.fail(where, llvm::Twine("shape mismatch in ") + name + ": " +
                        shapeString(shape) + " and " +
                        shapeString(blk::shapeOf(values.back().getType())) +
                        " cannot be broadcast together");
      return std::nullopt;
    }
    shape = *joined;
  }
  bool block = llvm::any_of(
      values, [](Value v) { return isa<RankedTensorType>(v.getType()); });
  if (block)
    for (Value &v : values)
      v = *broadcastTo(b, loc, v, shape);
  return values;
}

Tensor pow(TensorOperand x, Operand y) {
  TraceContext *t = trace(x.loc);
  if (!t)
    return {};
  auto values = floatOperands(*t, {&x, &y}, x.loc, "pow");
  if (!values)
    return {};
  return Tensor(math::PowFOp::create(t->builder(), t->location(x.loc),
                                     (*values)[0], (*values)[1]));
}

Tensor fma(TensorOperand a, Operand b, Operand c) {
  TraceContext *t = trace(a.loc);
  if (!t)
    return {};
  auto values = floatOperands(*t, {&a, &b, &c}, a.loc, "fma");
  if (!values)
    return {};
  return Tensor(math::FmaOp::create(t->builder(), t->location(a.loc),
                                    (*values)[0], (*values)[1], (*values)[2]));
}

Tensor abs(const Tensor &x, SourceLoc where) {
  TraceContext *t = trace(where);
  if (!t || !usable(*t, where, x))
    return {};
  if (x.isPointer())
    return t->fail(where, "abs is not defined on pointers");
  if (isFloatType(x.elementType()))
    return Tensor(
        math::AbsFOp::create(t->builder(), t->location(where), x.value()));
  return Tensor(
      math::AbsIOp::create(t->builder(), t->location(where), x.value()));
}

Tensor where(const Tensor &cond, Operand a, Operand b, SourceLoc where) {
  TraceContext *t = trace(where);
  if (!t || !usable(*t, where, cond) || !usable(*t, where, a) ||
      !usable(*t, where, b))
    return {};
  if (!cond.elementType().isInteger(1))
    return t->fail(where, "where: the condition must be i1 (a comparison), "
                          "got " +
                              typeString(cond.type()));
  OpBuilder &builder = t->builder();
  Location loc = t->location(where);
  Type ae = operandElementType(a), be = operandElementType(b);
  if (((ae && isa<blk::PtrType>(ae)) || (be && isa<blk::PtrType>(be))) &&
      ae != be)
    return t->fail(where, "where: pointer values need pointers of one type on "
                          "both sides, got " +
                              (a.tensor ? typeString(a.tensor->type())
                                        : std::string("a C++ number")) +
                              " and " +
                              (b.tensor ? typeString(b.tensor->type())
                                        : std::string("a C++ number")));
  Type element = ae && be             ? promote(ae, be)
                 : ae                 ? ae
                 : be                 ? be
                 : (a.real || b.real) ? Type(builder.getF32Type())
                                      : Type(builder.getI32Type());
  // A C++ floating-point number with an integer tensor gives f32, as for the
  // binary operators.
  if ((a.real || b.real) && !isFloatType(element))
    element = builder.getF32Type();
  Value av = materialize(builder, loc, a, element);
  Value bv = materialize(builder, loc, b, element);
  auto shape = broadcastShape(cond.shape(), blk::shapeOf(av.getType()));
  if (shape)
    shape = broadcastShape(*shape, blk::shapeOf(bv.getType()));
  if (!shape)
    return t->fail(where, "where: condition " + shapeString(cond.shape()) +
                              " and values " +
                              shapeString(blk::shapeOf(av.getType())) + ", " +
                              shapeString(blk::shapeOf(bv.getType())) +
                              " cannot be broadcast together");
  Value c = *broadcastTo(builder, loc, cond.value(), *shape);
  av = *broadcastTo(builder, loc, av, *shape);
  bv = *broadcastTo(builder, loc, bv, *shape);
  return Tensor(arith::SelectOp::create(builder, loc, c, av, bv));
}

Tensor cast(const Tensor &x, DType type, SourceLoc where) {
  TraceContext *t = trace(where);
  if (!t || !usable(*t, where, x))
    return {};
  if (x.isPointer())
    return t->fail(where, "cannot convert pointers to " +
                              std::string(dtypeName(type)));
  Type element = toMLIRType(t->builder().getContext(), type);
  return Tensor(
      castValue(t->builder(), t->location(where), x.value(), element));
}

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

void for_range(Operand start, Operand end, Operand step,
               const std::function<void(Int)> &body) {
  for_range(start, end, step, {},
            [&](Int i, std::vector<Tensor>) -> std::vector<Tensor> {
              body(i);
              return {};
            });
}

std::vector<Tensor> for_range(
    Operand start, Operand end, Operand step, std::vector<Tensor> init,
    const std::function<std::vector<Tensor>(Int, std::vector<Tensor>)> &body) {
  const SourceLoc &where = start.loc;
  // Every early return gives one (empty) tensor per carried value, so that
  // code using the results does not index past the end.
  std::vector<Tensor> empty(init.size());
  TraceContext *t = trace(where);
  if (!t)
    return empty;
  for (const Operand *bound : {&start, &end, &step}) {
    if (!usable(*t, bound->loc, *bound))
      return empty;
    Type e = operandElementType(*bound);
    if (bound->real ||
        (e && (!isa<IntegerType>(e) || bound->tensor->isBlock())))
      return t->fail(bound->loc, "for_range bounds and step must be integer "
                                 "scalars"),
             std::vector<Tensor>(init.size());
  }
  for (const Tensor &v : init)
    if (!usable(*t, where, v))
      return empty;
  OpBuilder &b = t->builder();
  Location loc = t->location(where);
  // Bounds share one integer type: i64 if any is, else i32.
  Type indexType = b.getI32Type();
  for (const Operand *bound : {&start, &end, &step})
    if (Type e = operandElementType(*bound); e && e.isInteger(64))
      indexType = b.getI64Type();
  Value lb = materialize(b, loc, start, indexType);
  Value ub = materialize(b, loc, end, indexType);
  Value st = materialize(b, loc, step, indexType);
  // A step known here (a constant, or an argument specialized as 0) must be
  // positive: scf.for's rule, and a loop that would never end otherwise.
  if (APInt known; matchPattern(st, m_ConstantInt(&known)) &&
                   !known.isStrictlyPositive())
    return t->fail(step.loc,
                   llvm::formatv("for_range step must be positive, got {0}",
                                 known.getSExtValue())
                       .str()),
           std::vector<Tensor>(init.size());
  SmallVector<Value> initValues;
  for (const Tensor &v : init)
    initValues.push_back(v.value());

  auto loop = scf::ForOp::create(b, loc, lb, ub, st, initValues);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  std::vector<Tensor> carried;
  for (Value arg : loop.getRegionIterArgs())
    carried.emplace_back(arg);
  std::vector<Tensor> next = body(Int(loop.getInductionVar()), carried);
  if (t->failed())
    return std::vector<Tensor>(init.size());
  if (next.size() != init.size())
    return t->fail(where, llvm::formatv("for_range body returned {0} values "
                                        "but the loop carries {1}",
                                        next.size(), init.size())),
           std::vector<Tensor>(init.size());
  SmallVector<Value> yielded;
  for (auto [i, v] : llvm::enumerate(next)) {
    if (!usable(*t, where, v))
      return empty;
    if (v.type() != init[i].type())
      return t->fail(where, llvm::formatv("for_range carried value #{0} "
                                          "changes type from {1} to {2}",
                                          i, typeString(init[i].type()),
                                          typeString(v.type()))),
             std::vector<Tensor>(init.size());
    yielded.push_back(v.value());
  }
  // Without carried values scf.for already ends in an empty yield.
  if (!loop.getBody()->mightHaveTerminator())
    scf::YieldOp::create(b, loc, yielded);
  std::vector<Tensor> results;
  for (Value r : loop.getResults())
    results.emplace_back(r);
  return results;
}

//===----------------------------------------------------------------------===//
// argmax, argmin
//===----------------------------------------------------------------------===//

static Tensor argReduce(blk::ReduceKind kind, const Tensor &x, int axis,
                        const SourceLoc &where, const char *name) {
  TraceContext *t = trace(where);
  if (!t || !usable(*t, where, x))
    return {};
  if (!x.isBlock())
    return t->fail(where, llvm::Twine(name) +
                              " reduces a block, got a scalar of type " +
                              typeString(x.type()));
  if (x.isPointer())
    return t->fail(where, llvm::Twine(name) + " cannot reduce pointers");
  if (x.elementType().isInteger(1))
    return t->fail(where, llvm::Twine(name) +
                              " of an i1 block: convert it first "
                              "(x.to(DType::I32))");
  int64_t rank = x.shape().size();
  int64_t index = axis < 0 ? axis + rank : axis;
  if (index < 0 || index >= rank)
    return t->fail(where, llvm::formatv("{0}: axis {1} is out of range for a "
                                        "rank-{2} block ({3}..{4})",
                                        name, axis, rank, -rank, rank - 1));
  return Tensor(blk::ArgReduceOp::create(t->builder(), t->location(where), kind,
                                         x.value(), int32_t(index)));
}

static Tensor argReduceKeepDims(blk::ReduceKind kind, const Tensor &x, int axis,
                                const SourceLoc &where, const char *name) {
  return keepReducedAxis(argReduce(kind, x, axis, where, name), x, axis,
                         where);
}

/// Without an axis: the row-major index into the whole block. A 1-D block
/// is one arg_reduce. A 2-D block: the first row whose extreme (max/min
/// along axis 1, NaN propagating) is the block's, by arg_reduce of the row
/// extremes, then that row's arg_reduce along axis 1 (so no 1-D value
/// reduction is needed, which the GPU lacks for 64-bit types). Larger
/// ranks find the extreme with max/min, then the smallest linear index
/// holding it (a NaN for a NaN).
static Tensor argReduceAll(blk::ReduceKind kind, const Tensor &x,
                           const SourceLoc &where, const char *name) {
  TraceContext *t = trace(where);
  if (!t || !usable(*t, where, x))
    return {};
  if (!x.isBlock() || x.shape().size() == 1 || x.isPointer() ||
      x.elementType().isInteger(1))
    return argReduce(kind, x, 0, where, name); // its errors
  std::vector<int64_t> shape = x.shape();
  int64_t rank = shape.size();
  bool isMax = kind == blk::ReduceKind::Max;
  if (rank == 2) {
    Tensor extremes = isMax ? max(x, 1, where) : min(x, 1, where);
    Tensor bestRow = argReduce(kind, extremes, 0, where, name);
    Tensor columns = argReduce(kind, x, 1, where, name);
    Tensor rows = arange(0, shape[0], where);
    Tensor chosen =
        binary(BinaryOp::Eq, Operand(rows, where), Operand(bestRow, where));
    Tensor column = sum(blockjit::where(chosen, Operand(columns, where),
                                        Operand(int64_t(0), where), where),
                        where);
    return binary(BinaryOp::Add,
                  Operand(binary(BinaryOp::Mul, Operand(bestRow, where),
                                 Operand(shape[1], where)),
                          where),
                  Operand(column, where));
  }
  Tensor extreme = isMax ? max(x, where) : min(x, where);
  Tensor linear;
  int64_t stride = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    Tensor range = arange(0, shape[d], where);
    for (int64_t e = 0; e < rank; ++e)
      if (e != d)
        range = range.expand_dims(int(e), where);
    range = binary(BinaryOp::Mul, Operand(range, where), Operand(stride, where))
                .broadcast_to(shape, where);
    linear = linear.valid() ? binary(BinaryOp::Add, Operand(linear, where),
                                     Operand(range, where))
                            : range;
    stride *= shape[d];
  }
  Tensor hit = binary(BinaryOp::Eq, Operand(x, where), Operand(extreme, where));
  if (isFloatType(x.elementType())) {
    Tensor nan = binary(BinaryOp::Ne, Operand(x, where), Operand(x, where));
    Tensor extremeNaN =
        binary(BinaryOp::Ne, Operand(extreme, where), Operand(extreme, where));
    hit = binary(BinaryOp::Or, Operand(hit, where),
                 Operand(binary(BinaryOp::And, Operand(nan, where),
                                Operand(extremeNaN, where)),
                         where));
  }
  Tensor candidates = blockjit::where(
      hit, Operand(linear, where),
      Operand(int64_t(std::numeric_limits<int32_t>::max()), where), where);
  return min(candidates, where);
}

Tensor argmax(const Tensor &x, int axis, SourceLoc where) {
  return argReduce(blk::ReduceKind::Max, x, axis, where, "argmax");
}
Tensor argmin(const Tensor &x, int axis, SourceLoc where) {
  return argReduce(blk::ReduceKind::Min, x, axis, where, "argmin");
}
Tensor argmax(const Tensor &x, int axis, bool keepDims, SourceLoc where) {
  return keepDims
             ? argReduceKeepDims(blk::ReduceKind::Max, x, axis, where, "argmax")
             : argmax(x, axis, where);
}
Tensor argmin(const Tensor &x, int axis, bool keepDims, SourceLoc where) {
  return keepDims
             ? argReduceKeepDims(blk::ReduceKind::Min, x, axis, where, "argmin")
             : argmin(x, axis, where);
}
Tensor argmax(const Tensor &x, SourceLoc where) {
  return argReduceAll(blk::ReduceKind::Max, x, where, "argmax");
}
Tensor argmin(const Tensor &x, SourceLoc where) {
  return argReduceAll(blk::ReduceKind::Min, x, where, "argmin");
}

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

namespace {

/// An atomic read-modify-write (`kind`) or, without a kind, a
/// compare-and-swap with `cmp`.
Tensor atomicImpl(const char *name, std::optional<blk::AtomicRMWKind> kind,
                  const Tensor &ptrs, const Operand *cmp, const Operand &value,
                  const Tensor *mask, const SourceLoc &where,
                  AtomicSem sem = AtomicSem::AcqRel,
                  AtomicScope scope = AtomicScope::Gpu) {
  TraceContext *t = trace(where);
  if (!t || !usable(*t, where, ptrs) || (mask && !usable(*t, where, *mask)) ||
      (cmp && !usable(*t, where, *cmp)) || !usable(*t, where, value))
    return {};
  auto maskValue = prepareMask(*t, ptrs, mask, where, name);
  if (failed(maskValue))
    return {};
  Type pointee = cast<blk::PtrType>(ptrs.elementType()).getPointeeType();
  bool supported = pointee.isInteger(32) || pointee.isInteger(64) ||
                   pointee.isF32() || pointee.isF64() ||
                   (kind == blk::AtomicRMWKind::Add &&
                    (pointee.isF16() || pointee.isBF16()));
  if (!supported)
    return t->fail(where, llvm::Twine(name) + " of " + typeString(pointee) +
                              " is not supported (i32, i64, f32 and f64; "
                              "f16 and bf16 for atomic_add only)");
  std::string what = std::string(name) + " value";
  auto valueOperand = prepareValue(*t, ptrs, value, where, what.c_str());
  if (failed(valueOperand))
    return {};
  OpBuilder &b = t->builder();
  Location loc = t->location(where);
  blk::MemSem memSem = sem == AtomicSem::Relaxed   ? blk::MemSem::Relaxed
                       : sem == AtomicSem::Acquire ? blk::MemSem::Acquire
                       : sem == AtomicSem::Release ? blk::MemSem::Release
                                                   : blk::MemSem::AcqRel;
  blk::MemScope memScope =
      scope == AtomicScope::Cta ? blk::MemScope::Cta : blk::MemScope::Gpu;
  if (kind)
    return Tensor(blk::AtomicRMWOp::create(b, loc, *kind, ptrs.value(),
                                           *valueOperand, *maskValue, memSem,
                                           memScope));
  auto cmpOperand = prepareValue(*t, ptrs, *cmp, where, "atomic_cas cmp");
  if (failed(cmpOperand))
    return {};
  return Tensor(blk::AtomicCASOp::create(b, loc, ptrs.value(), *cmpOperand,
                                         *valueOperand, *maskValue, memSem,
                                         memScope));
}

} // namespace

Tensor atomic_add(const Tensor &ptr, Operand value, SourceLoc where) {
  return atomicImpl("atomic_add", blk::AtomicRMWKind::Add, ptr, nullptr, value,
                    nullptr, where);
}
Tensor atomic_add(const Tensor &ptr, Operand value, const Tensor &mask,
                  SourceLoc where) {
  return atomicImpl("atomic_add", blk::AtomicRMWKind::Add, ptr, nullptr, value,
                    &mask, where);
}
Tensor atomic_max(const Tensor &ptr, Operand value, SourceLoc where) {
  return atomicImpl("atomic_max", blk::AtomicRMWKind::Max, ptr, nullptr, value,
                    nullptr, where);
}
Tensor atomic_max(const Tensor &ptr, Operand value, const Tensor &mask,
                  SourceLoc where) {
  return atomicImpl("atomic_max", blk::AtomicRMWKind::Max, ptr, nullptr, value,
                    &mask, where);
}
Tensor atomic_min(const Tensor &ptr, Operand value, SourceLoc where) {
  return atomicImpl("atomic_min", blk::AtomicRMWKind::Min, ptr, nullptr, value,
                    nullptr, where);
}
Tensor atomic_min(const Tensor &ptr, Operand value, const Tensor &mask,
                  SourceLoc where) {
  return atomicImpl("atomic_min", blk::AtomicRMWKind::Min, ptr, nullptr, value,
                    &mask, where);
}
Tensor atomic_xchg(const Tensor &ptr, Operand value, SourceLoc where) {
  return atomicImpl("atomic_xchg", blk::AtomicRMWKind::Xchg, ptr, nullptr,
                    value, nullptr, where);
}
Tensor atomic_xchg(const Tensor &ptr, Operand value, const Tensor &mask,
                   SourceLoc where) {
  return atomicImpl("atomic_xchg", blk::AtomicRMWKind::Xchg, ptr, nullptr,
                    value, &mask, where);
}
Tensor atomic_cas(const Tensor &ptr, Operand cmp, Operand value,
                  SourceLoc where) {
  return atomicImpl("atomic_cas", std::nullopt, ptr, &cmp, value, nullptr,
                    where);
}
Tensor atomic_cas(const Tensor &ptr, Operand cmp, Operand value,
                  const Tensor &mask, SourceLoc where) {
  return atomicImpl("atomic_cas", std::nullopt, ptr, &cmp, value, &mask, where);
}

Tensor atomic_add(const Tensor &ptr, Operand value, const Tensor &mask,
                  AtomicSem sem, AtomicScope scope, SourceLoc where) {
  return atomicImpl("atomic_add", blk::AtomicRMWKind::Add, ptr, nullptr, value,
                    &mask, where, sem, scope);
}
Tensor atomic_max(const Tensor &ptr, Operand value, const Tensor &mask,
                  AtomicSem sem, AtomicScope scope, SourceLoc where) {
  return atomicImpl("atomic_max", blk::AtomicRMWKind::Max, ptr, nullptr, value,
                    &mask, where, sem, scope);
}
Tensor atomic_min(const Tensor &ptr, Operand value, const Tensor &mask,
                  AtomicSem sem, AtomicScope scope, SourceLoc where) {
  return atomicImpl("atomic_min", blk::AtomicRMWKind::Min, ptr, nullptr, value,
                    &mask, where, sem, scope);
}
Tensor atomic_xchg(const Tensor &ptr, Operand value, const Tensor &mask,
                   AtomicSem sem, AtomicScope scope, SourceLoc where) {
  return atomicImpl("atomic_xchg", blk::AtomicRMWKind::Xchg, ptr, nullptr,
                    value, &mask, where, sem, scope);
}
Tensor atomic_cas(const Tensor &ptr, Operand cmp, Operand value,
                  const Tensor &mask, AtomicSem sem, AtomicScope scope,
                  SourceLoc where) {
  return atomicImpl("atomic_cas", std::nullopt, ptr, &cmp, value, &mask, where,
                    sem, scope);
}

//===----------------------------------------------------------------------===//
// Scans
//===----------------------------------------------------------------------===//

namespace {

/// An inclusive scan of `x` along `axis`; `combine` is traced once, on two
/// scalars of `element`, into the region of one blk.scan.
Tensor scanImpl(const Tensor &x, int axis, bool reverse, const SourceLoc &where,
                const char *name,
                const std::function<Tensor(Tensor, Tensor)> &combine,
                bool widen) {
  TraceContext *t = trace(where);
  if (!t || !usable(*t, where, x))
    return {};
  if (!x.isBlock())
    return t->fail(where, llvm::Twine(name) +
                              " scans a block, got a scalar of type " +
                              typeString(x.type()));
  if (x.isPointer())
    return t->fail(where, llvm::Twine(name) + " cannot scan pointers");
  int64_t rank = x.shape().size();
  int64_t index = axis < 0 ? axis + rank : axis;
  if (index < 0 || index >= rank)
    return t->fail(where, llvm::formatv("{0}: axis {1} is out of range for a "
                                        "rank-{2} block ({3}..{4})",
                                        name, axis, rank, -rank, rank - 1));
  OpBuilder &b = t->builder();
  Location loc = t->location(where);
  Value v = x.value();
  Type element = x.elementType();
  // cumsum/cumprod accumulate f16/bf16 in f32, like sum (one rounding at
  // the end); the result keeps the operand's type.
  Type accType = element;
  if (widen && isa<FloatType>(element) && element.getIntOrFloatBitWidth() < 32)
    accType = b.getF32Type();
  if (accType != element)
    v = castValue(b, loc, v, accType);
  auto type = cast<RankedTensorType>(v.getType());
  auto scan = blk::ScanOp::create(b, loc, type, v, int32_t(index), reverse);
  {
    OpBuilder::InsertionGuard guard(b);
    Block *body =
        b.createBlock(&scan.getCombine(), {}, {accType, accType}, {loc, loc});
    Tensor combined =
        combine(Tensor(body->getArgument(0)), Tensor(body->getArgument(1)));
    if (t->failed())
      return {};
    if (!combined.valid())
      return t->fail(where, llvm::Twine(name) +
                                ": the combine function returned no value");
    if (combined.type() != accType)
      return t->fail(where, llvm::Twine(name) +
                                ": the combine function must return a " +
                                typeString(accType) +
                                " scalar (the type of "
                                "its operands), got " +
                                typeString(combined.type()));
    for (Operation &op : *body)
      if (blk::hasBlocks(&op) || !isMemoryEffectFree(&op) ||
          op.getNumRegions() > 0)
        return t->fail(where, llvm::Twine(name) +
                                  ": the combine function may only compute "
                                  "on its two scalar operands (and scalars "
                                  "from outside): it used a block, a load or "
                                  "a loop");
    blk::ScanReturnOp::create(b, loc, combined.value());
  }
  Value result = scan.getResult();
  if (accType != element)
    result = castValue(b, loc, result, element);
  return Tensor(result);
}

} // namespace

Tensor cumsum(const Tensor &x, int axis, bool reverse, SourceLoc where) {
  TraceContext *t = trace(where);
  if (!t || !usable(*t, where, x))
    return {};
  Tensor operand = x;
  // A cumulative sum of booleans counts them (in i32, as sum does).
  if (!x.isPointer() && x.elementType().isInteger(1))
    operand = Tensor(castValue(t->builder(), t->location(where), x.value(),
                               t->builder().getI32Type()));
  return scanImpl(
      operand, axis, reverse, where, "cumsum",
      [&](Tensor a, Tensor b) -> Tensor {
        OpBuilder &builder = t->builder();
        Location loc = t->location(where);
        if (isa<FloatType>(a.type()))
          return Tensor(
              arith::AddFOp::create(builder, loc, a.value(), b.value()));
        return Tensor(
            arith::AddIOp::create(builder, loc, a.value(), b.value()));
      },
      /*widen=*/true);
}

Tensor cumprod(const Tensor &x, int axis, bool reverse, SourceLoc where) {
  TraceContext *t = trace(where);
  if (!t)
    return {};
  return scanImpl(
      x, axis, reverse, where, "cumprod",
      [&](Tensor a, Tensor b) -> Tensor {
        OpBuilder &builder = t->builder();
        Location loc = t->location(where);
        if (isa<FloatType>(a.type()))
          return Tensor(
              arith::MulFOp::create(builder, loc, a.value(), b.value()));
        return Tensor(
            arith::MulIOp::create(builder, loc, a.value(), b.value()));
      },
      /*widen=*/true);
}

Tensor associative_scan(const Tensor &x, int axis,
                        const std::function<Tensor(Tensor, Tensor)> &combine,
                        bool reverse, SourceLoc where) {
  if (!combine) {
    TraceContext *t = trace(where);
    return t ? t->fail(where, "associative_scan: no combine function")
             : Tensor();
  }
  return scanImpl(x, axis, reverse, where, "associative_scan", combine,
                  /*widen=*/false);
}

//===----------------------------------------------------------------------===//
// Block shapes: reshape, trans/permute, join/split
//===----------------------------------------------------------------------===//

Tensor reshape(const Tensor &x, std::vector<int64_t> shape, SourceLoc where) {
  TraceContext *t = trace(where);
  if (!t || !usable(*t, where, x))
    return {};
  if (!x.isBlock())
    return t->fail(where, "reshape needs a block, got a scalar of type " +
                              typeString(x.type()));
  if (shape.empty())
    return t->fail(where, "reshape needs a target shape with at least one "
                          "dimension");
  int64_t elements = 1;
  for (int64_t d : shape) {
    if (d <= 0 || !llvm::isPowerOf2_64(d) || d > blk::kMaxBlockElements)
      return t->fail(where, "reshape: block dimensions must be powers of two, "
                            "got " +
                                shapeString(shape));
    elements *= d;
    if (elements > blk::kMaxBlockElements)
      break;
  }
  auto type = cast<RankedTensorType>(x.type());
  if (elements != type.getNumElements())
    return t->fail(where,
                   llvm::formatv("cannot reshape a block of shape {0} "
                                 "({1} elements) to {2}: the element "
                                 "count must stay",
                                 shapeString(x.shape()), type.getNumElements(),
                                 shapeString(shape)));
  return Tensor(blk::ReshapeOp::create(
      t->builder(), t->location(where),
      RankedTensorType::get(shape, type.getElementType()), x.value()));
}

Tensor permute(const Tensor &x, std::vector<int> dims, SourceLoc where) {
  TraceContext *t = trace(where);
  if (!t || !usable(*t, where, x))
    return {};
  if (!x.isBlock())
    return t->fail(where, "permute needs a block, got a scalar of type " +
                              typeString(x.type()));
  int64_t rank = x.shape().size();
  std::vector<bool> seen(rank, false);
  bool valid = int64_t(dims.size()) == rank;
  for (int d : dims) {
    if (!valid || d < 0 || d >= rank || seen[d]) {
      valid = false;
      break;
    }
    seen[d] = true;
  }
  if (!valid) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "[";
    llvm::interleaveComma(dims, os);
    os << "]";
    return t->fail(where,
                   llvm::formatv("permute dims {0} must be a permutation of "
                                 "0..{1} (the block has rank {2})",
                                 text, rank - 1, rank));
  }
  SmallVector<int32_t> order(dims.begin(), dims.end());
  return Tensor(blk::PermuteOp::create(t->builder(), t->location(where),
                                       x.value(), order));
}

Tensor trans(const Tensor &x, SourceLoc where) {
  TraceContext *t = trace(where);
  if (!t || !usable(*t, where, x))
    return {};
  if (x.shape().size() != 2)
    return t->fail(
        where, llvm::formatv("trans transposes a 2-D block, got {0}; use "
                             "permute(x, dims) for other ranks",
                             x.isBlock() ? "the block " + shapeString(x.shape())
                                         : "a scalar"));
  return permute(x, {1, 0}, where);
}

Tensor join(const Tensor &a, const Tensor &b, SourceLoc where) {
  TraceContext *t = trace(where);
  if (!t || !usable(*t, where, a) || !usable(*t, where, b))
    return {};
  if (!a.isBlock() && !b.isBlock())
    return t->fail(where, "join needs at least one block, got two scalars");
  if (a.elementType() != b.elementType())
    return t->fail(where, "join needs two blocks of one element type, got " +
                              typeString(a.elementType()) + " and " +
                              typeString(b.elementType()) +
                              " (convert one with to() first)");
  std::optional<std::vector<int64_t>> shape =
      broadcastShape(a.shape(), b.shape());
  if (!shape)
    return t->fail(where, "join: cannot broadcast blocks of shapes " +
                              shapeString(a.shape()) + " and " +
                              shapeString(b.shape()) + " to one shape");
  int64_t elements = 1;
  for (int64_t d : *shape)
    elements *= d;
  if (2 * elements > blk::kMaxBlockElements)
    return t->fail(where,
                   llvm::formatv("join of two blocks of shape {0} "
                                 "makes more than {1} (2^24) elements",
                                 shapeString(*shape), blk::kMaxBlockElements));
  OpBuilder &builder = t->builder();
  Location loc = t->location(where);
  Value lhs = *broadcastTo(builder, loc, a.value(), *shape);
  Value rhs = *broadcastTo(builder, loc, b.value(), *shape);
  return Tensor(blk::JoinOp::create(builder, loc, lhs, rhs));
}

std::pair<Tensor, Tensor> split(const Tensor &x, SourceLoc where) {
  TraceContext *t = trace(where);
  if (!t || !usable(*t, where, x))
    return {};
  std::vector<int64_t> shape = x.shape();
  if (shape.size() < 2 || shape.back() != 2)
    return {t->fail(where, "split needs a block of rank 2 or more whose last "
                           "dimension is 2, got " +
                               (x.isBlock() ? "the block " + shapeString(shape)
                                            : std::string("a scalar"))),
            Tensor()};
  auto op = blk::SplitOp::create(t->builder(), t->location(where), x.value());
  return {Tensor(op.getLhs()), Tensor(op.getRhs())};
}

Tensor Tensor::reshape(std::vector<int64_t> shape, SourceLoc where) const {
  return blockjit::reshape(*this, std::move(shape), where);
}
Tensor Tensor::trans(SourceLoc where) const {
  return blockjit::trans(*this, where);
}
Tensor Tensor::permute(std::vector<int> dims, SourceLoc where) const {
  return blockjit::permute(*this, std::move(dims), where);
}

} // namespace blockjit
