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
#include <utility>
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

  /// Convert elements to `type` (int<->float, widen, narrow; to i1 is != 0);
  /// the rounding and saturation rules are those of cast() below.
  Tensor to(DType type, SourceLoc loc = SourceLoc::current()) const;
  /// Insert a size-1 dimension at `axis` (Triton's x[:, None] is axis 1).
  Tensor expand_dims(int axis, SourceLoc loc = SourceLoc::current()) const;
  /// Stretch size-1 dimensions (and splat scalars) to `shape`.
  Tensor broadcast_to(std::vector<int64_t> shape,
                      SourceLoc loc = SourceLoc::current()) const;
  /// Same as the free functions reshape(x, shape), trans(x) and
  /// permute(x, dims) below.
  Tensor reshape(std::vector<int64_t> shape,
                 SourceLoc loc = SourceLoc::current()) const;
  Tensor trans(SourceLoc loc = SourceLoc::current()) const;
  Tensor permute(std::vector<int> dims,
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

/// Triton's eviction_policy: a hint on where an access's lines go in the
/// caches, which changes no result. First: lines read or written once and
/// not again soon (a row's second read, a streamed output), so that the
/// lines that are kept stay; Last: lines read again soon. On the GPU L1 and
/// L2 evict them first or last (PTX 7.4 and later: sm_87, sm_89, sm_90 and
/// newer); older targets and the CPU ignore it.
enum class Eviction { Normal, First, Last };

Tensor load(const Tensor &ptrs, SourceLoc loc = SourceLoc::current());
Tensor load(const Tensor &ptrs, Eviction eviction,
            SourceLoc loc = SourceLoc::current());
/// Lanes where `mask` is false read nothing and give `other`.
Tensor load(const Tensor &ptrs, const Tensor &mask, Operand other,
            SourceLoc loc = SourceLoc::current());
Tensor load(const Tensor &ptrs, const Tensor &mask, Operand other,
            Eviction eviction, SourceLoc loc = SourceLoc::current());
Tensor load(const Tensor &ptrs, const Tensor &mask,
            SourceLoc loc = SourceLoc::current());
/// `value` is converted to the pointee type; lanes where `mask` is false
/// write nothing.
void store(const Tensor &ptrs, Operand value,
           SourceLoc loc = SourceLoc::current());
void store(const Tensor &ptrs, Operand value, Eviction eviction,
           SourceLoc loc = SourceLoc::current());
void store(const Tensor &ptrs, Operand value, const Tensor &mask,
           SourceLoc loc = SourceLoc::current());
void store(const Tensor &ptrs, Operand value, const Tensor &mask,
           Eviction eviction, SourceLoc loc = SourceLoc::current());

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
/// Elementwise type conversion (same as x.to(type); Triton's x.to(dtype)),
/// defined for every input on both targets:
/// - float -> integer truncates toward zero (-0.5 and 0.5 give 0); values
///   past the integer type's range saturate to its minimum or maximum
///   (+-inf too), and NaN gives 0 (LLVM's fptosi.sat; never poison);
/// - float -> narrower float and integer -> float round to nearest, ties to
///   even (past the float type's range: +-inf); float -> wider float is
///   exact; f16 <-> bf16 goes through f32 (exact, then one rounding);
/// - integer -> integer: widening sign-extends (i1 zero-extends: true is 1),
///   narrowing keeps the low bits (two's complement wrap);
/// - anything -> i1 is `x != 0` (NaN gives true).
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

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

/// How an atomic is ordered with the thread's other memory accesses
/// (Triton's sem), and relative to which threads (Triton's scope: Cta the
/// program's, Gpu every thread of the device).
enum class AtomicSem { Relaxed, Acquire, Release, AcqRel };
enum class AtomicScope { Cta, Gpu };

/// Atomic read-modify-writes of global memory (Triton's tl.atomic_add,
/// tl.atomic_max, tl.atomic_min, tl.atomic_xchg), on a block of pointers or
/// a scalar pointer: for every element, atomically `old = *ptr; *ptr =
/// op(old, value)`, and the result (the pointee type, the pointers' shape)
/// holds the old values. `value` is converted to the pointee type and
/// broadcast to the pointers' shape; `mask` (broadcast likewise) false
/// leaves that element's memory untouched and gives 0.
///
/// Each element's atomic executes exactly once per program, also on a GPU
/// where a block smaller than the program's threads is held by several
/// threads; an atomic on a scalar pointer executes once per program and
/// every thread gets its old value. Programs run concurrently on both
/// targets, so the order of the atomics of different programs is
/// unspecified. `sem` and `scope` (the overloads that take them; Triton's
/// sem and scope) order an atomic with the thread's other memory accesses:
/// by default acq_rel, relative to every thread of the GPU (AtomicScope::Gpu);
/// AtomicScope::Cta only to the program's threads. Triton's scope="sys" is not
/// offered (NVPTX cannot emit a system-scope atom.add). The CPU orders for
/// the whole system, whatever the scope.
///
/// dtypes: i32, i64, f32 and f64 for every operation; f16 and bf16 for
/// atomic_add only (other dtypes are trace errors). Integers are signed:
/// atomic_add wraps, atomic_max/min compare as signed. Float atomic_add
/// rounds like + (to nearest even), except that on the GPU an f32
/// atomic_add flushes subnormal operands and results to zero (PTX
/// atom.add.f32; f16, bf16 and f64 do not flush). Float atomic_max/min follow
/// C's fmax/fmin (LLVM's maxnum/minnum, not Triton's integer-reinterpretation
/// trick): a NaN operand is ignored, so a NaN value leaves memory as it was and
/// a NaN in memory is replaced by the value (NaN only when both are NaN); which
/// of -0 and +0 results from comparing them is unspecified.
Tensor atomic_add(const Tensor &ptr, Operand value,
                  SourceLoc loc = SourceLoc::current());
Tensor atomic_add(const Tensor &ptr, Operand value, const Tensor &mask,
                  SourceLoc loc = SourceLoc::current());
Tensor atomic_add(const Tensor &ptr, Operand value, const Tensor &mask,
                  AtomicSem sem, AtomicScope scope = AtomicScope::Gpu,
                  SourceLoc loc = SourceLoc::current());
Tensor atomic_max(const Tensor &ptr, Operand value,
                  SourceLoc loc = SourceLoc::current());
Tensor atomic_max(const Tensor &ptr, Operand value, const Tensor &mask,
                  SourceLoc loc = SourceLoc::current());
Tensor atomic_max(const Tensor &ptr, Operand value, const Tensor &mask,
                  AtomicSem sem, AtomicScope scope = AtomicScope::Gpu,
                  SourceLoc loc = SourceLoc::current());
Tensor atomic_min(const Tensor &ptr, Operand value,
                  SourceLoc loc = SourceLoc::current());
Tensor atomic_min(const Tensor &ptr, Operand value, const Tensor &mask,
                  SourceLoc loc = SourceLoc::current());
Tensor atomic_min(const Tensor &ptr, Operand value, const Tensor &mask,
                  AtomicSem sem, AtomicScope scope = AtomicScope::Gpu,
                  SourceLoc loc = SourceLoc::current());
/// Stores `value` and returns the old contents.
Tensor atomic_xchg(const Tensor &ptr, Operand value,
                   SourceLoc loc = SourceLoc::current());
Tensor atomic_xchg(const Tensor &ptr, Operand value, const Tensor &mask,
                   SourceLoc loc = SourceLoc::current());
Tensor atomic_xchg(const Tensor &ptr, Operand value, const Tensor &mask,
                   AtomicSem sem, AtomicScope scope = AtomicScope::Gpu,
                   SourceLoc loc = SourceLoc::current());
/// Compare-and-swap (Triton's tl.atomic_cas): atomically `old = *ptr; if
/// (old == cmp) *ptr = value`, returning the old values. i32, i64, f32 and
/// f64; floats compare by their bits (a NaN matches the same NaN bits, -0
/// does not match +0). Masks, conversion, broadcasting, sem, scope and the
/// once-per-element rule as above; a failed compare orders as acquire for
/// AtomicSem::Acquire and AtomicSem::AcqRel, else as relaxed.
Tensor atomic_cas(const Tensor &ptr, Operand cmp, Operand value,
                  SourceLoc loc = SourceLoc::current());
Tensor atomic_cas(const Tensor &ptr, Operand cmp, Operand value,
                  const Tensor &mask, SourceLoc loc = SourceLoc::current());
Tensor atomic_cas(const Tensor &ptr, Operand cmp, Operand value,
                  const Tensor &mask, AtomicSem sem,
                  AtomicScope scope = AtomicScope::Gpu,
                  SourceLoc loc = SourceLoc::current());

//===----------------------------------------------------------------------===//
// Scans
//===----------------------------------------------------------------------===//

/// Inclusive scans of a block along `axis` (negative counts from the end);
/// the result has the operand's shape and type. Element i along the axis
/// combines elements 0..i in order (with `reverse`, elements n-1 down to i,
/// combined from the end). Integers wrap on overflow; inf and NaN propagate
/// as in IEEE arithmetic.
///
/// Triton's tl.cumsum: a running sum. An i1 block counts its true elements,
/// in i32 (as sum does); f16/bf16 accumulate in f32 and round once per
/// element at the end, so cumsum(x)[i] is the f32 sum of x[0..i] rounded.
/// Otherwise the result keeps the operand's type, like sum: i8/i16 sums
/// wrap in their type and bf16 results are bf16 (Triton widens i8/i16 to
/// i32 and returns f32 for bf16).
/// The grouping of the additions is unspecified: float results may differ
/// from a left-to-right sum by reassociation (a few ulp of the magnitudes
/// summed), and differ between targets by as much.
Tensor cumsum(const Tensor &x, int axis = 0, bool reverse = false,
              SourceLoc loc = SourceLoc::current());
/// Triton's tl.cumprod: a running product (i1: a running `and`); f16/bf16
/// accumulate in f32 like cumsum; the grouping is unspecified likewise.
Tensor cumprod(const Tensor &x, int axis = 0, bool reverse = false,
               SourceLoc loc = SourceLoc::current());
/// Triton's tl.associative_scan with one operand and a combine_fn:
/// `combine(acc, next)` is called once, while tracing, on two scalars of the
/// element type (no f16 widening here), and must return a scalar of that
/// type computed from them (and from scalars of the kernel, constants
/// included) without loads, stores, loops or blocks. It must be associative:
/// each target groups the combinations differently (the GPU combines
/// per-thread, per-warp and per-program partial results), so a combine that
/// is not associative gives results that depend on the target. It need not
/// be commutative: the left operand always holds earlier elements (in scan
/// order) than the right one, e.g. "keep the left unless it is 0" gives the
/// first nonzero element so far. There is no identity element: the first
/// element of each scan is passed through unchanged.
Tensor associative_scan(const Tensor &x, int axis,
                        const std::function<Tensor(Tensor, Tensor)> &combine,
                        bool reverse = false,
                        SourceLoc loc = SourceLoc::current());

//===----------------------------------------------------------------------===//
// Block shapes: reshape, trans/permute, join/split
//===----------------------------------------------------------------------===//

/// The elements of block `x` in row-major order, laid out in `shape`
/// (Triton's tl.reshape, without can_reorder): element i in row-major order
/// stays element i. Any element type; `shape` has powers of two and the same
/// element count as `x`. Free on the GPU (a thread keeps its elements).
Tensor reshape(const Tensor &x, std::vector<int64_t> shape,
               SourceLoc loc = SourceLoc::current());
/// The transpose of a 2-D block: result[i, j] = x[j, i] (Triton's tl.trans of
/// a 2-D block). Any element type, pointers included (a transposed store is
/// `store(trans(ptrs), trans(values))`).
Tensor trans(const Tensor &x, SourceLoc loc = SourceLoc::current());
/// Reorders the dimensions of a block: dimension i of the result is dimension
/// dims[i] of `x` (Triton's tl.permute); `dims` is a permutation of
/// 0..rank-1. trans(x) is permute(x, {1, 0}). Both targets run blocks of any
/// rank; on the GPU the elements move through shared memory.
Tensor permute(const Tensor &x, std::vector<int> dims,
               SourceLoc loc = SourceLoc::current());
/// Stacks two blocks along a new last dimension of size 2 (Triton's tl.join):
/// result[..., 0] = a, result[..., 1] = b. a and b are broadcast to one shape
/// and must have the same element type (convert one with to() first).
Tensor join(const Tensor &a, const Tensor &b,
            SourceLoc loc = SourceLoc::current());
/// The inverse of join (Triton's tl.split): a block whose last dimension is 2
/// gives its halves x[..., 0] and x[..., 1]. x has rank 2 or more (splitting
/// a block of shape [2] into scalars is not supported: use a 2-D block).
std::pair<Tensor, Tensor> split(const Tensor &x,
                                SourceLoc loc = SourceLoc::current());

} // namespace blockjit

#endif // BLOCKJIT_FRONTEND_TENSOR_H
