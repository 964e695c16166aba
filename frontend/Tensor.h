//===- Tensor.h - values of the blockjit DSL and their operators -*- C++
//-*-===//
//
// A `Tensor` is a traced value: a scalar or a block (a ranked tensor with a
// static power-of-two shape) of numbers or pointers. Operators and functions on
// tensors emit blk/arith/math IR into the kernel being traced; they compute
// nothing themselves. Mistakes (shape or type mismatches) are recorded with the
// user's source line and reported when the trace ends; later operations on the
// failed value are no-ops, so one mistake gives one message.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_FRONTEND_TENSOR_H
#define BLOCKJIT_FRONTEND_TENSOR_H

#include "dialect/DType.h"

#include "mlir/IR/Value.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <source_location>
#include <vector>

namespace blockjit {

using SourceLoc = std::source_location;

class Tensor {
public:
  Tensor() = default;
  explicit Tensor(mlir::Value value) : value_(value) {}

  /// False after a trace-time error produced this value, and for a Tensor
  /// that was never assigned one (using such a Tensor is an error).
  bool valid() const { return bool(value_); }
  mlir::Value value() const { return value_; }
  mlir::Type type() const;
  /// Element type (the pointee's for pointers is not it: see isPointer()).
  mlir::Type elementType() const;
  std::vector<int64_t> shape() const;
  bool isBlock() const { return !shape().empty(); }
  bool isPointer() const;

  /// Convert elements to `type` (int<->float, widen, narrow; to i1 is != 0).
  Tensor to(DType type, SourceLoc loc = SourceLoc::current()) const;
  /// Insert a size-1 dimension at `axis` (Triton's x[:, None] is axis 1).
  Tensor expand_dims(int axis, SourceLoc loc = SourceLoc::current()) const;
  /// Stretch size-1 dimensions (and splat scalars) to `shape`.
  Tensor broadcast_to(std::vector<int64_t> shape,
                      SourceLoc loc = SourceLoc::current()) const;

private:
  mlir::Value value_;
};

/// Scalar kernel parameters: `Int` (i32), `Int64` (i64) and `Float` (f32).
struct Int : Tensor {
  using Tensor::Tensor;
  Int(const Tensor &t) : Tensor(t) {}
};
struct Int64 : Tensor {
  using Tensor::Tensor;
  Int64(const Tensor &t) : Tensor(t) {}
};
struct Float : Tensor {
  using Tensor::Tensor;
  Float(const Tensor &t) : Tensor(t) {}
};

/// Marks a `Ptr` whose element type is taken from the launch argument.
struct AnyType {};

/// A pointer kernel parameter to elements of T (`float`, `half`, `bfloat16`,
/// `int32_t`, ...), or of the argument's type for `Ptr<AnyType>`.
template <typename T = AnyType> struct Ptr : Tensor {
  using Tensor::Tensor;
  Ptr(const Tensor &t) : Tensor(t) {}
};

/// A pointer parameter that may be null at launch (for example an optional
/// bias the kernel does not read when a flag says so). Other pointer
/// parameters are checked: a null one is an error naming the parameter.
template <typename T = AnyType> struct NullablePtr : Ptr<T> {
  using Ptr<T>::Ptr;
  NullablePtr(const Tensor &t) : Ptr<T>(t) {}
};

/// A compile-time constant parameter (BLOCK_SIZE): a plain integer while the
/// kernel is traced, and part of the specialization key.
struct Constexpr {
  int64_t value = 0;
  constexpr Constexpr() = default;
  constexpr Constexpr(int64_t v) : value(v) {}
  constexpr operator int64_t() const { return value; }
};

/// The smallest power of two >= n (1 for n <= 1).
constexpr int64_t next_power_of_2(int64_t n) {
  int64_t p = 1;
  while (p < n)
    p <<= 1;
  return p;
}

/// An operand of a DSL operator: a tensor, or a C++ number that takes the
/// other operand's type. Constructing one records where the user wrote it.
struct Operand {
  Operand(const Tensor &t, SourceLoc loc = SourceLoc::current())
      : tensor(t), loc(loc) {}
  Operand(int v, SourceLoc loc = SourceLoc::current()) : integer(v), loc(loc) {}
  Operand(int64_t v, SourceLoc loc = SourceLoc::current())
      : integer(v), loc(loc) {}
  Operand(Constexpr v, SourceLoc loc = SourceLoc::current())
      : integer(v.value), loc(loc) {}
  Operand(double v, SourceLoc loc = SourceLoc::current()) : real(v), loc(loc) {}
  Operand(float v, SourceLoc loc = SourceLoc::current()) : real(v), loc(loc) {}

  std::optional<Tensor> tensor;
  std::optional<int64_t> integer;
  std::optional<double> real;
  SourceLoc loc;
};

/// The tensor side of a binary operator; records the user's source line.
struct TensorOperand : Operand {
  TensorOperand(const Tensor &t, SourceLoc loc = SourceLoc::current())
      : Operand(t, loc) {}
};
/// The C++-number side of a binary operator.
struct NumberOperand : Operand {
  NumberOperand(int v, SourceLoc loc = SourceLoc::current())
      : Operand(v, loc) {}
  NumberOperand(int64_t v, SourceLoc loc = SourceLoc::current())
      : Operand(v, loc) {}
  NumberOperand(Constexpr v, SourceLoc loc = SourceLoc::current())
      : Operand(v, loc) {}
  NumberOperand(double v, SourceLoc loc = SourceLoc::current())
      : Operand(v, loc) {}
  NumberOperand(float v, SourceLoc loc = SourceLoc::current())
      : Operand(v, loc) {}
};

enum class BinaryOp {
  Add,
  Sub,
  Mul,
  Div,
  Rem,
  And,
  Or,
  Xor,
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne,
  Max,
  Min
};
Tensor binary(BinaryOp op, const Operand &lhs, const Operand &rhs);

#define BLOCKJIT_BINARY_OPERATOR(SYMBOL, KIND)                                 \
  inline Tensor operator SYMBOL(TensorOperand a, Operand b) {                  \
    return binary(BinaryOp::KIND, a, b);                                       \
  }                                                                            \
  inline Tensor operator SYMBOL(NumberOperand a, TensorOperand b) {            \
    return binary(BinaryOp::KIND, a, b);                                       \
  }
BLOCKJIT_BINARY_OPERATOR(+, Add)
BLOCKJIT_BINARY_OPERATOR(-, Sub)
BLOCKJIT_BINARY_OPERATOR(*, Mul)
BLOCKJIT_BINARY_OPERATOR(/, Div)
/// Integer `/` and `%` follow C (and Triton): the quotient is truncated
/// toward zero and the remainder takes the sign of the dividend
/// (-7 / 2 == -3, -7 % 2 == -1, 7 % -2 == 1). Dividing by zero gives
/// x / 0 == x and x % 0 == 0, and INT_MIN / -1 wraps to INT_MIN with
/// remainder 0, on both targets (C leaves these undefined and the host CPU
/// would trap). Float `%` is C's fmod (the sign of the dividend).
BLOCKJIT_BINARY_OPERATOR(%, Rem)
BLOCKJIT_BINARY_OPERATOR(&, And)
BLOCKJIT_BINARY_OPERATOR(|, Or)
BLOCKJIT_BINARY_OPERATOR(^, Xor)
BLOCKJIT_BINARY_OPERATOR(<, Lt)
BLOCKJIT_BINARY_OPERATOR(<=, Le)
BLOCKJIT_BINARY_OPERATOR(>, Gt)
BLOCKJIT_BINARY_OPERATOR(>=, Ge)
BLOCKJIT_BINARY_OPERATOR(==, Eq)
BLOCKJIT_BINARY_OPERATOR(!=, Ne)
#undef BLOCKJIT_BINARY_OPERATOR

/// `x += y` is `x = x + y`, with the same promotion and broadcasting rules
/// (so x may change type or shape, as in Triton).
Tensor &operator+=(Tensor &x, Operand y);
Tensor &operator-=(Tensor &x, Operand y);
Tensor &operator*=(Tensor &x, Operand y);
Tensor &operator/=(Tensor &x, Operand y);

/// Integer division (Triton's `//`): truncates toward zero like `/` on
/// integers; integer operands only (Triton rejects `//` on floats).
Tensor floordiv(TensorOperand a, Operand b);
/// Ceiling division of integers, (a + b - 1) / b, for grid and block counts
/// (meant for a >= 0, b > 0).
Tensor cdiv(TensorOperand a, Operand b);
/// cdiv of two C++ integers, for host code computing grids.
constexpr int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

Tensor operator-(TensorOperand x);
/// Logical not of an i1 tensor.
Tensor operator!(TensorOperand x);

//===----------------------------------------------------------------------===//
// Program geometry and ranges
//===----------------------------------------------------------------------===//

Int program_id(int axis, SourceLoc loc = SourceLoc::current());
Int num_programs(int axis, SourceLoc loc = SourceLoc::current());
/// The i32 block [start, end); end - start must be a power of two.
Tensor arange(int64_t start, int64_t end, SourceLoc loc = SourceLoc::current());
/// A block of `shape` filled with `value` of type `type`.
Tensor full(std::vector<int64_t> shape, double value, DType type,
            SourceLoc loc = SourceLoc::current());

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

Tensor load(const Tensor &ptrs, SourceLoc loc = SourceLoc::current());
/// Lanes where `mask` is false read nothing and give `other`.
Tensor load(const Tensor &ptrs, const Tensor &mask, Operand other,
            SourceLoc loc = SourceLoc::current());
Tensor load(const Tensor &ptrs, const Tensor &mask,
            SourceLoc loc = SourceLoc::current());
/// `value` is converted to the pointee type; lanes where `mask` is false
/// write nothing.
void store(const Tensor &ptrs, Operand value,
           SourceLoc loc = SourceLoc::current());
void store(const Tensor &ptrs, Operand value, const Tensor &mask,
           SourceLoc loc = SourceLoc::current());

//===----------------------------------------------------------------------===//
// Reductions and elementwise maths
//===----------------------------------------------------------------------===//

Tensor max(const Tensor &x, int axis, SourceLoc loc = SourceLoc::current());
Tensor min(const Tensor &x, int axis, SourceLoc loc = SourceLoc::current());
/// The sum of an i1 block counts its true elements, in i32.
Tensor sum(const Tensor &x, int axis, SourceLoc loc = SourceLoc::current());
/// With keep_dims the reduced axis stays, with size 1 (a 1-D block gives a
/// block of shape [1]).
Tensor max(const Tensor &x, int axis, bool keep_dims,
           SourceLoc loc = SourceLoc::current());
Tensor min(const Tensor &x, int axis, bool keep_dims,
           SourceLoc loc = SourceLoc::current());
Tensor sum(const Tensor &x, int axis, bool keep_dims,
           SourceLoc loc = SourceLoc::current());
/// Without an axis (Triton's axis=None): every element, to a scalar.
Tensor max(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor min(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor sum(const Tensor &x, SourceLoc loc = SourceLoc::current());

/// argmax / argmin (Triton's tl.argmax / tl.argmin with tie_break_left):
/// the i32 index along `axis` of the largest / smallest element of a block
/// of any integer or float type (not i1: convert it first); a 1-D block
/// gives a scalar, a 2-D block one index per row (axis 1) or column (axis
/// 0). Ties give the first (smallest) index; a NaN counts as the extreme
/// for both, so the first NaN's index comes back, as in numpy and torch;
/// -0.0 == 0.0 (a tie). A row of -inf (argmax) gives 0. Masked-off lanes
/// take part like any element: load them as -inf (argmax) or +inf (argmin)
/// and an all-masked-off row gives 0.
Tensor argmax(const Tensor &x, int axis, SourceLoc loc = SourceLoc::current());
Tensor argmin(const Tensor &x, int axis, SourceLoc loc = SourceLoc::current());
/// With keep_dims the reduced axis stays, with size 1.
Tensor argmax(const Tensor &x, int axis, bool keep_dims,
              SourceLoc loc = SourceLoc::current());
Tensor argmin(const Tensor &x, int axis, bool keep_dims,
              SourceLoc loc = SourceLoc::current());
/// Without an axis (Triton's axis=None): the row-major index into the whole
/// block, as a scalar (for a 2-D block of C columns, row * C + column).
Tensor argmax(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor argmin(const Tensor &x, SourceLoc loc = SourceLoc::current());

Tensor exp(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor exp2(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor log(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor sqrt(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor rsqrt(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor abs(const Tensor &x, SourceLoc loc = SourceLoc::current());
/// Float functions of blocks and scalars (integers are converted to f32
/// first). Their precision per target is in compiler/MathLowering.h.
/// f64 on CUDA (expanded, NVPTX has no f64 math): sin and cos within 2 ulp
/// for every finite x, tanh, erf and pow within 4 ulp;
/// NaN in gives NaN, sin(+-inf) = NaN, tanh/erf(+-inf) = +-1, -0 kept by
/// the odd functions. Triton: tl.sin, tl.cos, tl.erf, tl.sigmoid,
/// libdevice tanh and pow.
Tensor log2(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor sin(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor cos(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor tanh(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor erf(const Tensor &x, SourceLoc loc = SourceLoc::current());
/// 1 / (1 + exp(-x)).
Tensor sigmoid(const Tensor &x, SourceLoc loc = SourceLoc::current());
/// Rounding to an integral value, keeping the float type.
Tensor floor(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor ceil(const Tensor &x, SourceLoc loc = SourceLoc::current());
/// x^y for floats (C's powf; integers are converted to f32), broadcast.
Tensor pow(TensorOperand x, Operand y);
/// a * b + c with one rounding, for floats, broadcast.
Tensor fma(TensorOperand a, Operand b, Operand c);
Tensor maximum(TensorOperand a, Operand b);
Tensor minimum(TensorOperand a, Operand b);
/// Elementwise `cond ? a : b`, with broadcasting.
Tensor where(const Tensor &cond, Operand a, Operand b,
             SourceLoc loc = SourceLoc::current());
/// Elementwise type conversion (same as x.to(type)).
Tensor cast(const Tensor &x, DType type, SourceLoc loc = SourceLoc::current());

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

/// `for (i = start; i < end; i += step) body(i)` with runtime bounds, traced as
/// one scf.for (the body is traced once).
void for_range(Operand start, Operand end, Operand step,
               const std::function<void(Int)> &body);

/// The same with loop-carried values: `body(i, carried)` returns the next
/// values (same types and shapes as `init`); the final values are returned.
std::vector<Tensor> for_range(
    Operand start, Operand end, Operand step, std::vector<Tensor> init,
    const std::function<std::vector<Tensor>(Int, std::vector<Tensor>)> &body);

} // namespace blockjit

#endif // BLOCKJIT_FRONTEND_TENSOR_H
