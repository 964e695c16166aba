//===- fuzz-dsl.cpp - random DSL kernels on the CPU vs a C++ reference ----===//
//
//   blockjit-fuzz-dsl --seed 1 --runs 200
//   blockjit-fuzz-dsl --seed 1 --index 17 --verbose   # one kernel again
//
// Each kernel is a random expression tree over 1-D blocks, written with the
// public DSL: masked loads of two inputs (masked lanes take `other`, now and
// then -inf), arange, full, the scalar Int/Float arguments, + - * /,
// maximum/minimum, exp exp2 log sqrt rsqrt abs, negation, where over
// comparisons, casts between f32, f16, bf16 and i32, and max/min/sum
// reductions whose scalar result broadcasts back into the block. BLOCK is a
// power of two in 1..4096, n_cols <= BLOCK masks a tail, rows are walked with
// program_id or a for_range over a smaller grid, and the result is stored
// masked into an output of a random float type.
//
// The same tree is evaluated in C++ double, lane by lane and with the same
// masking, with every value carrying a bound on how far the kernel's value
// may be from it: the rounding of each operation to its element type, the
// error of the polynomial exp/log approximations, and how each operation
// propagates the error of its operands. An output must lie within its bound;
// where the bound is unknown (an uncertain comparison, a domain edge such as
// log near 0, an overflow that may or may not happen) the lane is not
// compared; NaN and infinities must match where they are certain. Lanes past
// n_cols and the gaps between rows must keep their sentinel.
//
// Kernel i depends only on --seed and i. A mismatch, or a kernel that fails
// to trace, compile or launch, prints a reproducer and makes the exit status
// 1; a crash kills the fuzzer, which is a failure too.
//
//===----------------------------------------------------------------------===//
#include "frontend/blockjit.h"
#include "runtime/Launch.h"

#include "llvm/Support/Error.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace blockjit;

namespace {

//===----------------------------------------------------------------------===//
// Expression trees
//===----------------------------------------------------------------------===//

enum class Ty { F32, F16, BF16, I32, I1 };

bool isFloatTy(Ty t) { return t == Ty::F32 || t == Ty::F16 || t == Ty::BF16; }

const char *tyName(Ty t) {
  switch (t) {
  case Ty::F32:
    return "F32";
  case Ty::F16:
    return "F16";
  case Ty::BF16:
    return "BF16";
  case Ty::I32:
    return "I32";
  case Ty::I1:
    return "I1";
  }
  return "?";
}

DType toDType(Ty t) {
  switch (t) {
  case Ty::F32:
    return DType::F32;
  case Ty::F16:
    return DType::F16;
  case Ty::BF16:
    return DType::BF16;
  case Ty::I32:
    return DType::I32;
  case Ty::I1:
    return DType::I1;
  }
  return DType::F32;
}

/// The DSL's promotion rule (frontend/Tensor.cpp): floats win over integers,
/// f16 with bf16 gives f32, else the wider type.
Ty promote(Ty a, Ty b) {
  if (a == b)
    return a;
  bool fa = isFloatTy(a), fb = isFloatTy(b);
  if (fa != fb)
    return fa ? a : b;
  auto width = [](Ty t) {
    return t == Ty::F32 || t == Ty::I32 ? 32 : t == Ty::I1 ? 1 : 16;
  };
  if (fa && width(a) == width(b))
    return Ty::F32;
  return width(a) > width(b) ? a : b;
}

struct Node;
using NodeP = std::shared_ptr<Node>;

struct Node {
  enum Kind {
    X,        // load(x + offsets, mask, otherX)
    Y,        // load(y + offsets, mask, otherY)
    FScalar,  // the Float argument
    IScalar,  // the Int argument
    Cols,     // arange(0, BLOCK)
    Full,     // full({BLOCK}, number, type)
    Unary,    // exp exp2 log sqrt rsqrt abs neg
    Binary,   // + - * / maximum minimum
    NumLeft,  // number op node
    NumRight, // node op number
    Compare,  // < <= > >= == !=
    Where,    // where(kids[0], kids[1], kids[2])
    Reduce,   // max min sum over axis 0: a scalar
    Cast,     // .to(type)
  } kind;
  std::string op;
  Ty ty = Ty::F32;
  bool scalar = false;
  double number = 0;
  std::vector<NodeP> kids;
};

std::string numberText(double x) {
  if (std::isinf(x))
    return x < 0 ? "-INFINITY" : "INFINITY";
  char text[64];
  std::snprintf(text, sizeof text, "%.9g", x);
  std::string s = text;
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s;
}

/// The tree as DSL source.
std::string show(const Node &n) {
  switch (n.kind) {
  case Node::X:
    return "x";
  case Node::Y:
    return "y";
  case Node::FScalar:
    return "fscalar";
  case Node::IScalar:
    return "iscalar";
  case Node::Cols:
    return "cols";
  case Node::Full:
    return "full({BLOCK}, " + numberText(n.number) +
           ", DType::" + tyName(n.ty) + ")";
  case Node::Unary:
    if (n.op == "neg")
      return "-(" + show(*n.kids[0]) + ")";
    return n.op + "(" + show(*n.kids[0]) + ")";
  case Node::Binary:
    if (n.op == "maximum" || n.op == "minimum")
      return n.op + "(" + show(*n.kids[0]) + ", " + show(*n.kids[1]) + ")";
    [[fallthrough]];
  case Node::Compare:
    return "(" + show(*n.kids[0]) + " " + n.op + " " + show(*n.kids[1]) + ")";
  case Node::NumLeft:
    return "(" +
           (isFloatTy(n.ty) ? numberText(n.number)
                            : std::to_string(int64_t(n.number))) +
           " " + n.op + " " + show(*n.kids[0]) + ")";
  case Node::NumRight:
    if (n.op == "maximum" || n.op == "minimum")
      return n.op + "(" + show(*n.kids[0]) + ", " +
             (isFloatTy(n.ty) ? numberText(n.number)
                              : std::to_string(int64_t(n.number))) +
             ")";
    return "(" + show(*n.kids[0]) + " " + n.op + " " +
           (isFloatTy(n.ty) ? numberText(n.number)
                            : std::to_string(int64_t(n.number))) +
           ")";
  case Node::Where:
    return "where(" + show(*n.kids[0]) + ", " + show(*n.kids[1]) + ", " +
           show(*n.kids[2]) + ")";
  case Node::Reduce:
    return n.op + "(" + show(*n.kids[0]) + ", 0)";
  case Node::Cast:
    return show(*n.kids[0]) + ".to(DType::" + tyName(n.ty) + ")";
  }
  return "?";
}

/// One kernel: the tree and everything its launch depends on.
struct Case {
  uint64_t seed = 0;
  int64_t index = 0;
  NodeP tree;
  Ty xTy = Ty::F32, yTy = Ty::F32, outTy = Ty::F32;
  int64_t block = 1;
  int32_t nCols = 1, nRows = 1, stride = 1;
  bool loopRows = false;
  int grid = 1;
  double otherX = 0, otherY = 0;
  int32_t iscalar = 0;
  float fscalar = 0;
};

struct Generator {
  std::mt19937_64 rng;
  explicit Generator(uint64_t seed) : rng(seed) {}

  int64_t below(int64_t n) {
    return std::uniform_int_distribution<int64_t>(0, n - 1)(rng);
  }
  bool chance(int percent) { return below(100) < percent; }
  double uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng);
  }
  Ty floatTy() {
    static const Ty types[] = {Ty::F32, Ty::F32, Ty::F16, Ty::BF16};
    return types[below(4)];
  }
  double smallNumber() {
    static const double numbers[] = {0.0, 0.5,  1.0,  2.0, -1.0,
                                     3.0, 0.25, -0.5, 1.5, 10.0};
    return numbers[below(10)];
  }

  NodeP make(Node::Kind kind, Ty ty, bool scalar, std::string op = "",
             std::vector<NodeP> kids = {}) {
    auto n = std::make_shared<Node>();
    n->kind = kind;
    n->ty = ty;
    n->scalar = scalar;
    n->op = std::move(op);
    n->kids = std::move(kids);
    return n;
  }

  NodeP leaf(const Case &c) {
    switch (below(10)) {
    case 0:
    case 1:
    case 2:
      return make(Node::X, c.xTy, false);
    case 3:
    case 4:
      return make(Node::Y, c.yTy, false);
    case 5:
      return make(Node::FScalar, Ty::F32, true);
    case 6:
      return make(Node::IScalar, Ty::I32, true);
    case 7:
      return make(Node::Cols, Ty::I32, false);
    default: {
      Ty ty = chance(70) ? floatTy() : Ty::I32;
      NodeP n = make(Node::Full, ty, false);
      n->number = isFloatTy(ty) ? smallNumber() : double(below(7) - 3);
      return n;
    }
    }
  }

  /// A value node (not i1).
  NodeP value(const Case &c, int depth) {
    if (depth <= 0 || chance(10))
      return leaf(c);
    switch (below(16)) {
    case 0:
    case 1: { // math
      static const char *const ops[] = {"exp",   "exp2", "log", "sqrt",
                                        "rsqrt", "abs",  "neg"};
      std::string op = ops[below(7)];
      NodeP x = value(c, depth - 1);
      Ty ty = x->ty;
      if (op != "abs" && op != "neg" && !isFloatTy(ty))
        ty = Ty::F32; // integers go to f32 first
      return make(Node::Unary, ty, x->scalar, op, {x});
    }
    case 2:
    case 3:
    case 4:
    case 5: { // binary
      static const char *const ops[] = {"+", "-",       "*",
                                        "/", "maximum", "minimum"};
      std::string op = ops[below(6)];
      NodeP a = value(c, depth - 1), b = value(c, depth - 1);
      Ty ty = promote(a->ty, b->ty);
      if (op == "/" && !isFloatTy(ty))
        op = "*"; // no integer division (x / 0)
      return make(Node::Binary, ty, a->scalar && b->scalar, op, {a, b});
    }
    case 6:
    case 7: { // with a C++ number
      static const char *const ops[] = {"+", "-",       "*",
                                        "/", "maximum", "minimum"};
      std::string op = ops[below(6)];
      NodeP a = value(c, depth - 1);
      bool left = op != "maximum" && op != "minimum" && chance(50);
      Ty ty = a->ty;
      double number = smallNumber();
      if (!isFloatTy(ty)) {
        number = double(below(7) - 3);
        if (op == "/")
          op = "+";
      }
      NodeP n =
          make(left ? Node::NumLeft : Node::NumRight, ty, a->scalar, op, {a});
      n->number = number;
      return n;
    }
    case 8:
    case 9: { // where
      NodeP cond = compare(c, depth - 1);
      NodeP a = value(c, depth - 1), b = value(c, depth - 1);
      return make(Node::Where, promote(a->ty, b->ty),
                  cond->scalar && a->scalar && b->scalar, "", {cond, a, b});
    }
    case 10:
    case 11: { // reduction of a block: a scalar
      static const char *const ops[] = {"max", "min", "sum"};
      std::string op = ops[below(3)];
      NodeP x = chance(15) && op == "sum" ? compare(c, depth - 1)
                                          : value(c, depth - 1);
      if (x->scalar)
        x = make(Node::Binary, promote(x->ty, Ty::I32), false, "+",
                 {x, make(Node::Cols, Ty::I32, false)});
      Ty ty = x->ty == Ty::I1 ? Ty::I32 : x->ty;
      return make(Node::Reduce, ty, true, op, {x});
    }
    case 12:
    case 13: { // cast
      static const Ty types[] = {Ty::F32, Ty::F16, Ty::BF16, Ty::I32};
      NodeP x = value(c, depth - 1);
      return make(Node::Cast, types[below(4)], x->scalar, "", {x});
    }
    case 14: { // a comparison as a number
      NodeP cond = compare(c, depth - 1);
      return make(Node::Cast, chance(50) ? Ty::F32 : Ty::I32, cond->scalar, "",
                  {cond});
    }
    default:
      return leaf(c);
    }
  }

  NodeP compare(const Case &c, int depth) {
    static const char *const ops[] = {"<", "<=", ">", ">=", "==", "!="};
    NodeP a = value(c, depth), b = value(c, depth);
    return make(Node::Compare, Ty::I1, a->scalar && b->scalar, ops[below(6)],
                {a, b});
  }

  Case generate(uint64_t seed, int64_t index) {
    Case c;
    c.seed = seed;
    c.index = index;
    c.xTy = floatTy();
    c.yTy = floatTy();
    c.outTy = floatTy();
    c.block = int64_t(1) << below(13);
    c.nCols = int32_t(chance(25) ? c.block : 1 + below(c.block));
    c.nRows = int32_t(1 + below(5));
    c.stride = c.nCols + int32_t(below(8));
    c.loopRows = chance(50);
    c.grid = c.loopRows ? int(1 + below(c.nRows)) : c.nRows;
    c.otherX = chance(15) ? -INFINITY : smallNumber();
    c.otherY = smallNumber();
    c.iscalar = int32_t(below(9) - 4);
    c.fscalar = float(std::round(uniform(-2, 2) * 8) / 8);
    c.tree = value(c, 2 + int(below(5)));
    return c;
  }
};

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

struct Env {
  Tensor x, y, cols;
  Float fscalar;
  Int iscalar;
  int64_t block;
};

Tensor emit(const Node &n, const Env &env) {
  auto num = [&]() -> Operand {
    return isFloatTy(n.ty) ? Operand(n.number) : Operand(int64_t(n.number));
  };
  switch (n.kind) {
  case Node::X:
    return env.x;
  case Node::Y:
    return env.y;
  case Node::FScalar:
    return env.fscalar;
  case Node::IScalar:
    return env.iscalar;
  case Node::Cols:
    return env.cols;
  case Node::Full:
    return full({env.block}, n.number, toDType(n.ty));
  case Node::Unary: {
    Tensor x = emit(*n.kids[0], env);
    if (n.op == "exp")
      return exp(x);
    if (n.op == "exp2")
      return exp2(x);
    if (n.op == "log")
      return log(x);
    if (n.op == "sqrt")
      return sqrt(x);
    if (n.op == "rsqrt")
      return rsqrt(x);
    if (n.op == "abs")
      return abs(x);
    return -x;
  }
  case Node::Binary:
  case Node::Compare: {
    Tensor a = emit(*n.kids[0], env), b = emit(*n.kids[1], env);
    const std::string &op = n.op;
    if (op == "+")
      return a + b;
    if (op == "-")
      return a - b;
    if (op == "*")
      return a * b;
    if (op == "/")
      return a / b;
    if (op == "maximum")
      return maximum(a, b);
    if (op == "minimum")
      return minimum(a, b);
    if (op == "<")
      return a < b;
    if (op == "<=")
      return a <= b;
    if (op == ">")
      return a > b;
    if (op == ">=")
      return a >= b;
    if (op == "==")
      return a == b;
    return a != b;
  }
  case Node::NumLeft: {
    Tensor a = emit(*n.kids[0], env);
    Operand k = num();
    NumberOperand number =
        k.real ? NumberOperand(*k.real) : NumberOperand(*k.integer);
    if (n.op == "+")
      return number + a;
    if (n.op == "-")
      return number - a;
    if (n.op == "*")
      return number * a;
    return number / a;
  }
  case Node::NumRight: {
    Tensor a = emit(*n.kids[0], env);
    Operand k = num();
    if (n.op == "+")
      return a + k;
    if (n.op == "-")
      return a - k;
    if (n.op == "*")
      return a * k;
    if (n.op == "/")
      return a / k;
    if (n.op == "maximum")
      return maximum(a, k);
    return minimum(a, k);
  }
  case Node::Where:
    return where(emit(*n.kids[0], env), emit(*n.kids[1], env),
                 emit(*n.kids[2], env));
  case Node::Reduce: {
    Tensor x = emit(*n.kids[0], env);
    if (n.op == "max")
      return max(x, 0);
    if (n.op == "min")
      return min(x, 0);
    return sum(x, 0);
  }
  case Node::Cast:
    return emit(*n.kids[0], env).to(toDType(n.ty));
  }
  return {};
}

std::shared_ptr<KernelDef> makeKernel(const Case &c) {
  std::string name =
      "fuzz_" + std::to_string(c.seed) + "_" + std::to_string(c.index);
  NodeP tree = c.tree;
  Case config = c;
  return jit(name, [tree, config](Ptr<> x, Ptr<> y, Ptr<> out, Int n_rows,
                                  Int n_cols, Int stride, Int iscalar,
                                  Float fscalar, Constexpr BLOCK) {
    auto body = [&](Int row) {
      Tensor cols = arange(0, BLOCK);
      Tensor mask = cols < n_cols;
      Tensor offsets = row * stride + cols;
      Env env;
      env.x = load(x + offsets, mask, config.otherX);
      env.y = load(y + offsets, mask, config.otherY);
      env.cols = cols;
      env.fscalar = fscalar;
      env.iscalar = iscalar;
      env.block = BLOCK;
      Tensor result = emit(*tree, env);
      store(out + offsets, result, mask);
    };
    if (config.loopRows)
      for_range(program_id(0), n_rows, num_programs(0), body);
    else
      body(program_id(0));
  });
}

//===----------------------------------------------------------------------===//
// The reference: values with error bounds
//===----------------------------------------------------------------------===//

/// A reference value and how far the kernel's may be from it. `undef`: any
/// value is acceptable (uncertain). A non-finite `v` with `e == 0` is a
/// certain NaN or infinity.
struct Val {
  double v = 0;
  double e = 0;
  bool undef = false;
};

Val undefVal() { return Val{0, 0, true}; }

double unitRoundoff(Ty t) {
  switch (t) {
  case Ty::F32:
    return std::ldexp(1.0, -24);
  case Ty::F16:
    return std::ldexp(1.0, -11);
  case Ty::BF16:
    return std::ldexp(1.0, -8);
  default:
    return 0;
  }
}

/// The absolute rounding error near zero: half the smallest subnormal.
double tinyError(Ty t) {
  switch (t) {
  case Ty::F32:
    return std::ldexp(1.0, -149);
  case Ty::F16:
    return std::ldexp(1.0, -24);
  case Ty::BF16:
    // f32 -> bf16 may flush subnormals to zero: on x86 with AVX512-BF16,
    // LLVM lowers fptrunc to vcvtneps2bf16, which is always FTZ/DAZ.
    return std::ldexp(1.0, -126);
  default:
    return 0;
  }
}

double roundTo(Ty t, double v) {
  switch (t) {
  case Ty::F32:
    return double(float(v));
  case Ty::F16:
    return double(float(half(float(v))));
  case Ty::BF16:
    return double(float(bfloat16(float(v))));
  default:
    return v;
  }
}

int32_t wrap32(int64_t v) { return int32_t(uint32_t(uint64_t(v))); }

/// The kernel rounds an exact-in-double result to `t`.
Val rounded(Ty t, Val x) {
  if (x.undef)
    return x;
  if (!std::isfinite(x.v))
    return x.e == 0 ? x : undefVal();
  if (!std::isfinite(x.e))
    return undefVal();
  if (t == Ty::I32 || t == Ty::I1)
    return x;
  double r = roundTo(t, x.v);
  if (std::isinf(r)) {
    // Overflow: certain if the whole interval overflows.
    double inner = std::fabs(x.v) - x.e;
    if (inner > 0 && std::isinf(roundTo(t, inner)))
      return Val{r, 0, false};
    return undefVal();
  }
  if (std::isinf(roundTo(t, std::fabs(x.v) + x.e)))
    return undefVal();
  double u = unitRoundoff(t);
  // Two roundings' worth: the kernel's and the reference's own.
  double e = x.e * (1 + u) + 2 * u * std::fabs(x.v) + 2 * tinyError(t);
  if (x.e == 0 && r == x.v)
    e = 0; // exactly representable
  return Val{r, e, false};
}

/// Conversion of `x` (of type `from`) to `to`, as castValue does.
Val convert(Val x, Ty from, Ty to) {
  if (x.undef || from == to)
    return x;
  if (to == Ty::I1) {
    if (std::isnan(x.v))
      return x.e == 0 ? Val{1, 0, false} : undefVal(); // UNE: NaN != 0
    if (x.e >= std::fabs(x.v) && !(x.e == 0 && x.v == 0))
      return undefVal();
    return Val{x.v != 0 ? 1.0 : 0.0, 0, false};
  }
  if (to == Ty::I32) {
    if (from == Ty::I1)
      return x;
    // fptosi: truncation; out of range is poison.
    if (!std::isfinite(x.v) || std::fabs(x.v) + x.e >= 2147483520.0)
      return undefVal();
    // + 0.0: an integer has no -0 (trunc(-0.5) is -0.0 in double).
    double lo = std::trunc(x.v - x.e), hi = std::trunc(x.v + x.e),
           t = std::trunc(x.v) + 0.0;
    return Val{t, std::max(hi - t, t - lo), false};
  }
  // To a float type.
  if (from == Ty::I1 || from == Ty::I32)
    return rounded(to, x);
  bool fromHalf = from == Ty::F16 || from == Ty::BF16;
  bool toHalf = to == Ty::F16 || to == Ty::BF16;
  if (fromHalf && toHalf) // through f32
    return rounded(to, rounded(Ty::F32, x));
  return rounded(to, x);
}

struct Reference {
  const Case &c;
  // Per row: the inputs as the kernel sees them (in their types).
  std::vector<double> x, y; // BLOCK lanes, masked lanes hold `other`
  explicit Reference(const Case &c) : c(c) {}

  using Vals = std::vector<Val>; // BLOCK lanes, or one for a scalar

  static const Val &at(const Vals &v, size_t i) {
    return v.size() == 1 ? v[0] : v[i];
  }

  Vals eval(const Node &n) {
    size_t lanes = n.scalar ? 1 : size_t(c.block);
    Vals out(lanes);
    switch (n.kind) {
    case Node::X:
    case Node::Y:
      for (size_t i = 0; i < lanes; ++i)
        out[i] = Val{n.kind == Node::X ? x[i] : y[i], 0, false};
      return out;
    case Node::FScalar:
      return {Val{double(c.fscalar), 0, false}};
    case Node::IScalar:
      return {Val{double(c.iscalar), 0, false}};
    case Node::Cols:
      for (size_t i = 0; i < lanes; ++i)
        out[i] = Val{double(i), 0, false};
      return out;
    case Node::Full: {
      Val v = rounded(n.ty, Val{n.number, 0, false});
      std::fill(out.begin(), out.end(), v);
      return out;
    }
    case Node::Unary: {
      const Node &k = *n.kids[0];
      Vals a = eval(k);
      for (size_t i = 0; i < lanes; ++i)
        out[i] = unary(n.op, convert(at(a, i), k.ty, n.ty), n.ty);
      return out;
    }
    case Node::Binary:
    case Node::Compare: {
      const Node &ka = *n.kids[0], &kb = *n.kids[1];
      Ty common = n.kind == Node::Compare ? promote(ka.ty, kb.ty) : n.ty;
      Vals a = eval(ka), b = eval(kb);
      for (size_t i = 0; i < lanes; ++i) {
        Val l = convert(at(a, i), ka.ty, common);
        Val r = convert(at(b, i), kb.ty, common);
        out[i] = n.kind == Node::Compare ? compare(n.op, l, r)
                                         : binary(n.op, l, r, common);
      }
      return out;
    }
    case Node::NumLeft:
    case Node::NumRight: {
      const Node &k = *n.kids[0];
      Vals a = eval(k);
      Val number = rounded(n.ty, Val{n.number, 0, false});
      for (size_t i = 0; i < lanes; ++i) {
        Val x = convert(at(a, i), k.ty, n.ty);
        out[i] = n.kind == Node::NumLeft ? binary(n.op, number, x, n.ty)
                                         : binary(n.op, x, number, n.ty);
      }
      return out;
    }
    case Node::Where: {
      const Node &kc = *n.kids[0], &ka = *n.kids[1], &kb = *n.kids[2];
      Vals cond = eval(kc), a = eval(ka), b = eval(kb);
      for (size_t i = 0; i < lanes; ++i) {
        Val cv = at(cond, i);
        Val av = convert(at(a, i), ka.ty, n.ty);
        Val bv = convert(at(b, i), kb.ty, n.ty);
        if (!cv.undef) {
          out[i] = cv.v != 0 ? av : bv;
        } else if (av.undef || bv.undef || !std::isfinite(av.v) ||
                   !std::isfinite(bv.v) ||
                   (av.v == 0 && bv.v == 0 &&
                    std::signbit(av.v) != std::signbit(bv.v))) {
          // +0 on one side and -0 on the other differ by 0, but rsqrt or a
          // division tells them apart: the sign is not known.
          out[i] = undefVal();
        } else {
          // Either side: the bound covers both.
          out[i] =
              Val{av.v, std::max(av.e, bv.e) + std::fabs(av.v - bv.v), false};
        }
      }
      return out;
    }
    case Node::Reduce:
      return {reduce(n, eval(*n.kids[0]))};
    case Node::Cast: {
      const Node &k = *n.kids[0];
      Vals a = eval(k);
      for (size_t i = 0; i < lanes; ++i)
        out[i] = convert(at(a, i), k.ty, n.ty);
      return out;
    }
    }
    return out;
  }

  Val unary(const std::string &op, Val x, Ty ty) {
    if (x.undef)
      return x;
    if (op == "neg") {
      if (ty == Ty::I32)
        return intResult(0 - x.v, x.e);
      return Val{0.0 - x.v, x.e, false}; // 0 - x: 0 - 0 is +0
    }
    if (op == "abs") {
      if (ty == Ty::I32) {
        if (x.e && x.e >= std::fabs(x.v))
          return Val{std::fabs(x.v), x.e, false};
        return intResult(std::fabs(x.v), x.e);
      }
      return Val{std::fabs(x.v), x.e, false};
    }
    // exp exp2 log sqrt rsqrt: computed in f32 at least, approximated.
    double v = x.v, e = x.e;
    if (std::isnan(v))
      return e == 0 ? Val{v, 0, false} : undefVal();
    double r = 0, err = 0;
    double approx = std::ldexp(1.0, -18); // relative, 16 f32 ulps
    if (op == "exp" || op == "exp2") {
      bool two = op == "exp2";
      auto f = [&](double t) { return two ? std::exp2(t) : std::exp(t); };
      r = f(v);
      if (std::isinf(v))
        return e == 0 ? Val{r, 0, false} : undefVal();
      // Input error; argument reduction loses about |x| ulps.
      err = r * (f(e) - 1) + r * (approx + std::fabs(v) * std::ldexp(1.0, -22));
      err += 1e-37; // underflow to zero or a subnormal
    } else if (op == "log") {
      if (v - e > 0) {
        r = std::log(v);
        err = std::isinf(v) ? 0 : -std::log1p(-e / v);
        err += std::fabs(r) * approx + std::ldexp(1.0, -22);
      } else if (v + e < 0) {
        return Val{std::nan(""), 0, false}; // certainly negative
      } else if (e == 0 && v == 0) {
        return Val{-INFINITY, 0, false};
      } else {
        return undefVal();
      }
    } else if (op == "sqrt") {
      if (v - e >= 0) {
        r = std::sqrt(v);
        err = std::isinf(v) ? 0 : r - std::sqrt(v - e);
        err += r * approx;
      } else if (v + e < 0) {
        return Val{std::nan(""), 0, false};
      } else {
        return undefVal();
      }
    } else { // rsqrt
      if (v - e > 0) {
        r = 1 / std::sqrt(v);
        err = std::isinf(v) ? 0 : 1 / std::sqrt(v - e) - r;
        err += r * approx;
      } else if (v + e < 0) {
        return Val{std::nan(""), 0, false};
      } else if (e == 0 && v == 0) {
        return Val{std::signbit(v) ? -INFINITY : INFINITY, 0, false};
      } else {
        return undefVal();
      }
    }
    if (std::isinf(r))
      return e == 0 ? Val{r, 0, false} : undefVal();
    return rounded(ty, Val{r, err, false});
  }

  /// An i32 result: wraps when exact, uncertain if it might overflow.
  Val intResult(double v, double e) {
    if (e == 0)
      return Val{double(wrap32(int64_t(v))), 0, false};
    if (std::fabs(v) + e >= 2147483647.0)
      return undefVal();
    return Val{v, e, false};
  }

  Val binary(const std::string &op, Val a, Val b, Ty ty) {
    if (a.undef || b.undef)
      return undefVal();
    if (ty == Ty::I32) {
      if (a.e == 0 && b.e == 0) {
        int64_t l = int64_t(a.v), r = int64_t(b.v), v = 0;
        if (op == "+")
          v = l + r;
        else if (op == "-")
          v = l - r;
        else if (op == "*")
          v = l * r;
        else if (op == "maximum")
          v = std::max(l, r);
        else
          v = std::min(l, r);
        return Val{double(wrap32(v)), 0, false};
      }
      if (op == "+")
        return intResult(a.v + b.v, a.e + b.e);
      if (op == "-")
        return intResult(a.v - b.v, a.e + b.e);
      if (op == "*")
        return intResult(a.v * b.v, std::fabs(a.v) * b.e +
                                        std::fabs(b.v) * a.e + a.e * b.e);
      if (op == "maximum")
        return Val{std::max(a.v, b.v), std::max(a.e, b.e), false};
      return Val{std::min(a.v, b.v), std::max(a.e, b.e), false};
    }
    // Floats.
    bool exact = a.e == 0 && b.e == 0;
    double v = 0, e = 0;
    if (op == "maximum" || op == "minimum") {
      if (std::isnan(a.v) || std::isnan(b.v))
        return exact ? Val{std::nan(""), 0, false} : undefVal();
      v = op == "maximum" ? std::max(a.v, b.v) : std::min(a.v, b.v);
      if (v == 0 && a.v == 0 && b.v == 0) // maximum(-0, +0) is +0
        v = op == "maximum" ? (std::signbit(a.v) ? b.v : a.v)
                            : (std::signbit(a.v) ? a.v : b.v);
      if (!std::isfinite(v))
        return exact ? Val{v, 0, false} : undefVal();
      return Val{v, std::max(a.e, b.e), false};
    }
    if (op == "+") {
      v = a.v + b.v;
      e = a.e + b.e;
    } else if (op == "-") {
      v = a.v - b.v;
      e = a.e + b.e;
    } else if (op == "*") {
      v = a.v * b.v;
      e = exact ? 0 : std::fabs(a.v) * b.e + std::fabs(b.v) * a.e + a.e * b.e;
    } else {
      v = a.v / b.v;
      if (!exact) {
        if (std::fabs(b.v) <= 2 * b.e)
          return undefVal();
        e = (a.e + std::fabs(v) * b.e) / (std::fabs(b.v) - b.e);
      }
      // A division by a value equal at every element may run as a multiply
      // by its rounded reciprocal (the CPU's loops stage: within 1.5 ulp,
      // tests/lit/Conversion/CPU/loops-divide-uniform.mlir).
      if (std::isfinite(v) && v != 0)
        e += 3 * unitRoundoff(ty) * std::fabs(v);
    }
    if (!std::isfinite(v))
      return exact ? Val{v, 0, false} : undefVal();
    if (std::isnan(e))
      return undefVal();
    return rounded(ty, Val{v, e, false});
  }

  Val compare(const std::string &op, Val a, Val b) {
    if (a.undef || b.undef)
      return undefVal();
    bool exact = a.e == 0 && b.e == 0;
    if (std::isnan(a.v) || std::isnan(b.v)) {
      if (!exact)
        return undefVal();
      return Val{op == "!=" ? 1.0 : 0.0, 0, false}; // ordered, UNE
    }
    if (!exact) {
      // Uncertain unless the intervals are apart.
      double gap = std::fabs(a.v - b.v);
      if (!(gap > a.e + b.e))
        return undefVal();
      if (!std::isfinite(a.v) || !std::isfinite(b.v))
        return undefVal();
    }
    bool r = op == "<"    ? a.v < b.v
             : op == "<=" ? a.v <= b.v
             : op == ">"  ? a.v > b.v
             : op == ">=" ? a.v >= b.v
             : op == "==" ? a.v == b.v
                          : a.v != b.v;
    return Val{r ? 1.0 : 0.0, 0, false};
  }

  Val reduce(const Node &n, const Vals &lanes) {
    const Node &k = *n.kids[0];
    Ty element = k.ty == Ty::I1 ? Ty::I32 : k.ty;
    std::vector<Val> xs;
    for (const Val &x : lanes) {
      if (x.undef)
        return undefVal();
      xs.push_back(x);
    }
    if (element == Ty::I32) {
      bool exact = true;
      int64_t acc = n.op == "sum"   ? 0
                    : n.op == "max" ? std::numeric_limits<int32_t>::min()
                                    : std::numeric_limits<int32_t>::max();
      double e = 0;
      for (const Val &x : xs) {
        exact &= x.e == 0;
        int64_t v = int64_t(x.v);
        if (n.op == "sum") {
          acc = wrap32(acc + v);
          e += x.e;
        } else {
          acc = n.op == "max" ? std::max(acc, v) : std::min(acc, v);
          e = std::max(e, x.e);
        }
      }
      if (!exact && n.op == "sum") {
        double total = 0;
        for (const Val &x : xs)
          total += x.v;
        return intResult(total, e);
      }
      return Val{double(acc), exact ? 0 : e, false};
    }
    // Floats: accumulated in f32 (f16/bf16 too), in any order (reassoc).
    bool exact = true;
    for (const Val &x : xs) {
      if (!std::isfinite(x.v)) {
        if (x.e != 0)
          return undefVal();
        // Certain specials: max/min propagate NaN; sums only when all
        // agree.
      }
      exact &= x.e == 0;
    }
    if (n.op == "max" || n.op == "min") {
      double v = n.op == "max" ? -INFINITY : INFINITY, e = 0;
      for (const Val &x : xs) {
        if (std::isnan(x.v))
          return Val{x.v, 0, false};
        double next = n.op == "max" ? std::max(v, x.v) : std::min(v, x.v);
        // As arith.maximumf/minimumf: -0 < +0 (std::max keeps the first).
        if (next == 0 && v == 0 && x.v == 0)
          next = n.op == "max" ? (std::signbit(v) ? x.v : v)
                               : (std::signbit(v) ? v : x.v);
        v = next;
        e = std::max(e, x.e);
      }
      if (!std::isfinite(v))
        return e == 0 ? Val{v, 0, false} : undefVal();
      return Val{v, e, false};
    }
    double sum = 0, absSum = 0, e = 0;
    for (const Val &x : xs) {
      if (!std::isfinite(x.v))
        return undefVal(); // inf + -inf, order-dependent overflow
      sum += x.v;
      absSum += std::fabs(x.v);
      e += x.e;
    }
    double u = unitRoundoff(Ty::F32);
    e += double(xs.size()) * u * absSum * 1.01 + 2 * tinyError(Ty::F32);
    Val acc = Val{sum, e, false};
    if (std::isinf(roundTo(Ty::F32, std::fabs(sum) + e)))
      return undefVal();
    if (exact && absSum == 0)
      acc.e = 0;
    return rounded(element, acc);
  }
};

//===----------------------------------------------------------------------===//
// Running a case
//===----------------------------------------------------------------------===//

/// Host buffers of one element type, as doubles for the reference.
struct Buffer {
  Ty ty;
  std::vector<float> f32;
  std::vector<half> f16;
  std::vector<bfloat16> bf16;

  Buffer(Ty ty, size_t n) : ty(ty) {
    if (ty == Ty::F32)
      f32.resize(n);
    else if (ty == Ty::F16)
      f16.resize(n);
    else
      bf16.resize(n);
  }
  void set(size_t i, double v) {
    if (ty == Ty::F32)
      f32[i] = float(v);
    else if (ty == Ty::F16)
      f16[i] = half(float(v));
    else
      bf16[i] = bfloat16(float(v));
  }
  double get(size_t i) const {
    if (ty == Ty::F32)
      return f32[i];
    if (ty == Ty::F16)
      return float(f16[i]);
    return float(bf16[i]);
  }
  /// Bit pattern, for sentinels.
  uint32_t bits(size_t i) const {
    uint32_t b = 0;
    if (ty == Ty::F32)
      std::memcpy(&b, &f32[i], 4);
    else if (ty == Ty::F16)
      b = f16[i].bits;
    else
      b = bf16[i].bits;
    return b;
  }
  Arg arg() const {
    if (ty == Ty::F32)
      return Arg::typedPointer(f32.data(), DType::F32);
    if (ty == Ty::F16)
      return Arg::typedPointer(f16.data(), DType::F16);
    return Arg::typedPointer(bf16.data(), DType::BF16);
  }
};

std::string describe(const Case &c) {
  char text[512];
  std::snprintf(text, sizeof text,
                "seed %llu index %lld: x %s, y %s, out %s, BLOCK %lld, "
                "n_cols %d, n_rows %d, stride %d, %s (grid %d), other x %s, "
                "other y %s, iscalar %d, fscalar %s",
                (unsigned long long)c.seed, (long long)c.index, tyName(c.xTy),
                tyName(c.yTy), tyName(c.outTy), (long long)c.block, c.nCols,
                c.nRows, c.stride,
                c.loopRows ? "for_range over rows" : "program_id rows", c.grid,
                numberText(c.otherX).c_str(), numberText(c.otherY).c_str(),
                c.iscalar, numberText(c.fscalar).c_str());
  return text;
}

struct Stats {
  int64_t kernels = 0, mismatches = 0, errors = 0, compared = 0, uncertain = 0;
};

/// Runs one case; prints a reproducer and returns false on a mismatch.
bool runCase(const Case &c, Stats &stats, bool verbose) {
  std::string expression = show(*c.tree);
  if (verbose)
    std::printf("%s\n  out = %s\n", describe(c).c_str(), expression.c_str());
  auto kernel = makeKernel(c);
  // The kernel cache is keyed by the KernelDef's address: a freed kernel's
  // address reused by the next one would find the old binary.
  static std::vector<std::shared_ptr<KernelDef>> keepAlive;
  keepAlive.push_back(kernel);
  size_t elements = size_t(c.nRows) * size_t(c.stride);
  Buffer x(c.xTy, elements), y(c.yTy, elements), out(c.outTy, elements);
  std::mt19937_64 data(c.seed * 7919 + uint64_t(c.index));
  std::uniform_real_distribution<double> uniform(-2, 2);
  for (size_t i = 0; i < elements; ++i) {
    x.set(i, uniform(data));
    y.set(i, data() % 8 == 0 ? double(int(data() % 5) - 2) : uniform(data));
    out.set(i, 12345.0); // sentinel
  }
  std::vector<uint32_t> sentinel(elements);
  for (size_t i = 0; i < elements; ++i)
    sentinel[i] = out.bits(i);

  LaunchOptions options;
  options.grid = {c.grid};
  options.target = TargetKind::CPU;
  std::vector<Arg> args = {x.arg(),
                           y.arg(),
                           out.arg(),
                           int32_t(c.nRows),
                           int32_t(c.nCols),
                           int32_t(c.stride),
                           int32_t(c.iscalar),
                           float(c.fscalar),
                           Constexpr(c.block)};
  ++stats.kernels;
  if (llvm::Error error = launch(*kernel, options, args)) {
    ++stats.errors;
    std::printf("ERROR %s\n  out = %s\n  %s\n", describe(c).c_str(),
                expression.c_str(), llvm::toString(std::move(error)).c_str());
    return false;
  }

  Reference ref(c);
  int shown = 0;
  int64_t bad = 0;
  for (int32_t row = 0; row < c.nRows; ++row) {
    ref.x.assign(size_t(c.block), 0);
    ref.y.assign(size_t(c.block), 0);
    for (int64_t i = 0; i < c.block; ++i) {
      size_t at = size_t(row) * size_t(c.stride) + size_t(i);
      bool live = i < c.nCols;
      ref.x[i] = live ? x.get(at) : roundTo(c.xTy, c.otherX);
      ref.y[i] = live ? y.get(at) : roundTo(c.yTy, c.otherY);
    }
    Reference::Vals result = ref.eval(*c.tree);
    for (int64_t i = 0; i < c.stride; ++i) {
      size_t at = size_t(row) * size_t(c.stride) + size_t(i);
      double got = out.get(at);
      std::string problem;
      Val want;
      if (i >= c.nCols) {
        if (out.bits(at) != sentinel[at])
          problem = "masked-out element was written";
      } else {
        want = convert(Reference::at(result, size_t(i)), c.tree->ty, c.outTy);
        if (want.undef) {
          ++stats.uncertain;
          continue;
        }
        ++stats.compared;
        if (std::isnan(want.v)) {
          if (!std::isnan(got))
            problem = "expected NaN";
        } else if (std::isinf(want.v)) {
          if (got != want.v)
            problem = "expected " + numberText(want.v);
        } else {
          // A little slack over the bound, plus the output's own rounding.
          double bound = want.e * 1.0001 +
                         2 * unitRoundoff(c.outTy) * std::fabs(want.v) +
                         4 * tinyError(c.outTy);
          if (!(std::fabs(got - want.v) <= bound))
            problem = "off by " + numberText(std::fabs(got - want.v)) +
                      ", bound " + numberText(bound);
        }
      }
      if (problem.empty())
        continue;
      ++bad;
      if (shown++ == 0)
        std::printf("MISMATCH %s\n  out = %s\n", describe(c).c_str(),
                    expression.c_str());
      if (shown <= 8)
        std::printf("  row %d col %lld (x %s, y %s): got %s, want %s +- %s: "
                    "%s\n",
                    row, (long long)i, numberText(ref.x[size_t(i)]).c_str(),
                    numberText(ref.y[size_t(i)]).c_str(),
                    numberText(got).c_str(), numberText(want.v).c_str(),
                    numberText(want.e).c_str(), problem.c_str());
    }
  }
  if (bad) {
    ++stats.mismatches;
    std::printf("  %lld wrong elements; rerun with --seed %llu --index %lld "
                "--verbose\n",
                (long long)bad, (unsigned long long)c.seed, (long long)c.index);
    std::fflush(stdout);
    return false;
  }
  return true;
}

[[noreturn]] void usage(const char *message) {
  std::fprintf(stderr,
               "fuzz-dsl: %s\n"
               "usage: blockjit-fuzz-dsl [--seed S] [--runs N] "
               "[--max-seconds T] [--index I] [--verbose]\n",
               message);
  std::exit(2);
}

} // namespace

int main(int argc, char **argv) {
  uint64_t seed = 1;
  int64_t runs = 100, only = -1;
  double maxSeconds = 0;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--verbose") {
      verbose = true;
      continue;
    }
    std::string value;
    if (size_t eq = arg.find('='); eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      usage(("missing value after " + arg).c_str());
    }
    char *end = nullptr;
    double number = std::strtod(value.c_str(), &end);
    if (value.empty() || *end)
      usage(("not a number: " + arg + " " + value).c_str());
    if (arg == "--seed")
      seed = uint64_t(number);
    else if (arg == "--runs")
      runs = int64_t(number);
    else if (arg == "--max-seconds")
      maxSeconds = number;
    else if (arg == "--index")
      only = int64_t(number);
    else
      usage(("unknown option " + arg).c_str());
  }
  // Compile afresh: no disk cache.
  setenv("BLOCKJIT_CACHE_DIR", "", 1);
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  Stats stats;
  for (int64_t index = only >= 0 ? only : 0;
       only >= 0 ? index == only : index < runs; ++index) {
    if (maxSeconds > 0 && elapsed() >= maxSeconds)
      break;
    Generator generator(seed * 0x9E3779B97F4A7C15ull + uint64_t(index));
    Case c = generator.generate(seed, index);
    runCase(c, stats, verbose);
    std::fflush(stdout);
  }
  std::printf("fuzz-dsl: %lld kernels, %lld mismatches, %lld errors, %lld "
              "elements compared, %lld uncertain (not compared), %.0f s\n",
              (long long)stats.kernels, (long long)stats.mismatches,
              (long long)stats.errors, (long long)stats.compared,
              (long long)stats.uncertain, elapsed());
  return stats.mismatches || stats.errors ? 1 : 0;
}
