//===- Cases.cpp - the differential suite's cases -------------------------===//
//
// Every DSL operation of frontend/Tensor.h and both example kernels, with
// the trial's edge cases: rows of -inf, a +inf or NaN in a row, +-1000,
// denormals, N = 1, 17, 781 and 4097, pointers 4 bytes off alignment, and
// outputs aliasing inputs. Outputs start filled with a sentinel and are
// longer than what the kernel writes, so a store through a false mask shows.
//
// Tolerance rules (double-precision references, rounded to the output type):
//   exact      +, -, *, %, comparisons, casts, min/max, where, loads and
//              stores, integer ops, sums of exactly representable values;
//   2 ulp      f32 division (rel 2.5e-7);
//   exp        rel 1e-5 (argument scaling by log2(e) for |x| up to 88);
//   exp2, sqrt, rsqrt  rel 2e-6; log: abs 2e-6 + rel 2e-6;
//   softmax    f32 abs 1e-6, f16 abs 2e-3, bf16 abs 1e-2.
// Transcendental results below 1e-37 may flush to zero (abs 1e-37).
//
//===----------------------------------------------------------------------===//
#include "tests/differential/CaseHelpers.h"

#include "examples/kernels/Kernels.h"
#include "examples/kernels/Reference.h"
#include "frontend/blockjit.h"

#include <cmath>
#include <limits>
#include <random>

namespace blockjit::difftest {

namespace {

//===----------------------------------------------------------------------===//
// Elementwise operations: out[i] = f(a[i], b[i], c[i]) for i < n
//===----------------------------------------------------------------------===//

using Fn = std::function<Tensor(std::vector<Tensor>)>;
using RefFn = std::function<double(std::vector<double>)>;

std::shared_ptr<KernelDef> elementwiseKernel(const std::string &name, int arity,
                                             Fn f) {
  if (arity == 1)
    return jit(name, [f](Ptr<> a, Ptr<> out, Int n, Constexpr BLOCK) {
      Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
      Tensor mask = offsets < n;
      store(out + offsets, f({load(a + offsets, mask)}), mask);
    });
  if (arity == 2)
    return jit(name, [f](Ptr<> a, Ptr<> b, Ptr<> out, Int n, Constexpr BLOCK) {
      Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
      Tensor mask = offsets < n;
      store(out + offsets,
            f({load(a + offsets, mask), load(b + offsets, mask)}), mask);
    });
  return jit(name,
             [f](Ptr<> a, Ptr<> b, Ptr<> c, Ptr<> out, Int n, Constexpr BLOCK) {
               Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
               Tensor mask = offsets < n;
               store(out + offsets,
                     f({load(a + offsets, mask), load(b + offsets, mask),
                        load(c + offsets, mask)}),
                     mask);
             });
}

struct Elementwise {
  std::string name;
  std::vector<std::string> covers;
  Fn dsl;
  RefFn ref;
  /// Input types and the output type.
  std::vector<std::vector<DType>> signatures;
  Tolerance tolerance = kExact;
  /// Makes input `k` of type `type` (default: values()).
  std::function<std::vector<double>(int k, DType type, int64_t n,
                                    unsigned seed)>
      inputs;
};

void addElementwise(std::vector<Case> &cases, const Elementwise &e) {
  for (const std::vector<DType> &sig : e.signatures) {
    int arity = int(sig.size()) - 1;
    std::string kernelName = "ew_" + e.name;
    for (DType t : sig)
      kernelName += "_" + suffix(t);
    auto kernel = elementwiseKernel(kernelName, arity, e.dsl);
    for (int64_t n : kSizes) {
      Case c;
      c.name = kernelName + "_n" + std::to_string(n);
      c.covers = e.covers;
      c.kernel = kernel;
      for (int k = 0; k < arity; ++k) {
        unsigned seed = unsigned(n * 7 + k * 131 + e.name.size());
        c.buffers.push_back({sig[k], e.inputs ? e.inputs(k, sig[k], n, seed)
                                              : values(sig[k], n, seed)});
        c.args.push_back(bufArg(k));
      }
      c.buffers.push_back({sig[arity], sentinel(n + 8)});
      c.args.push_back(bufArg(arity));
      c.args.push_back(i32Arg(int32_t(n)));
      c.args.push_back(constArg(kBlock));
      c.grid = {int(blocks(n))};
      RefFn ref = e.ref;
      DType out = sig[arity];
      c.reference = [ref, arity, n, out](Buffers &b) {
        for (int64_t i = 0; i < n; ++i) {
          std::vector<double> in;
          for (int k = 0; k < arity; ++k)
            in.push_back(b[k][i]);
          double r = ref(in);
          b[arity][i] = isFloat(out) || !std::isfinite(r) ? r : wrap(out, r);
        }
      };
      c.tolerance = e.tolerance;
      cases.push_back(std::move(c));
    }
  }
}

double maximumRef(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return kNaN;
  if (a == 0 && b == 0)
    return std::signbit(a) ? b : a;
  return std::max(a, b);
}
double minimumRef(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return kNaN;
  if (a == 0 && b == 0)
    return std::signbit(a) ? a : b;
  return std::min(a, b);
}

/// Nonzero divisors (and never -1 with the type's minimum) for / and %.
std::vector<double> divisorInputs(int k, DType type, int64_t n, unsigned seed) {
  if (k == 0)
    return values(type, n, seed);
  if (isFloat(type))
    return floats(type, n, seed);
  std::vector<double> v = ints(type, n, seed, 50);
  for (double &x : v)
    if (x == 0 || x == -1)
      x = 3;
  return v;
}

/// Values that every type of a cast holds: floats within +-100, some with
/// fractions, and edges. Out-of-range floats saturate (defined since the
/// casts saturate: CasesShapes.cpp tests them, with NaN, inf and ties).
std::vector<double> castInputs(int, DType type, int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-100, 100);
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) {
    double x = isFloat(type) ? dist(rng) : std::round(dist(rng));
    if (i % 4 == 1)
      x = (i / 4) % 3 == 0 ? 0 : (i / 4) % 3 == 1 ? -0.0 : 1;
    if (type == DType::I1)
      x = x > 0;
    v[i] = x;
  }
  return v;
}

} // namespace

void addElementwiseCases(std::vector<Case> &cases) {
  using D = DType;
  const std::vector<std::vector<DType>> floatBinary = {
      {D::F32, D::F32, D::F32},
      {D::F16, D::F16, D::F16},
      {D::BF16, D::BF16, D::BF16},
      {D::F64, D::F64, D::F64}};
  const std::vector<std::vector<DType>> intBinary = {{D::I32, D::I32, D::I32},
                                                     {D::I8, D::I8, D::I8},
                                                     {D::I16, D::I16, D::I16},
                                                     {D::I64, D::I64, D::I64}};
  auto both = [&](std::vector<std::vector<DType>> a,
                  const std::vector<std::vector<DType>> &b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  auto bin = [](BinaryOp op) {
    return [op](std::vector<Tensor> x) { return binary(op, x[0], x[1]); };
  };
  std::string binaryCover = "binary";

  addElementwise(cases, {"add",
                         {"operator+", "BinaryOp::Add", binaryCover},
                         [](auto x) { return x[0] + x[1]; },
                         [](auto v) { return v[0] + v[1]; },
                         both(floatBinary, intBinary)});
  // Denormal operands and results (the trial's case): sums and products of
  // denormals, denormal minus normal.
  addElementwise(cases, {"denormal",
                         {"operator+", "operator*", "operator-"},
                         [](auto x) { return (x[0] + x[1]) - x[1] * 0.5; },
                         [](auto v) { return v[0] + v[1] - v[1] * 0.5; },
                         {{D::F32, D::F32, D::F32},
                          {D::F16, D::F16, D::F16},
                          {D::BF16, D::BF16, D::BF16}},
                         {0, 0, "exact (each step is exact on denormals)"},
                         [](int k, DType t, int64_t n, unsigned seed) {
                           // Multiples of the smallest denormal, so that
                           // every step is exact.
                           double unit = t == DType::F16    ? 0x1p-24
                                         : t == DType::BF16 ? 0x1p-133
                                                            : 0x1p-149;
                           std::mt19937 rng(seed);
                           std::vector<double> v(n);
                           for (double &x : v)
                             x = double(int(rng() % 64) * 2 - 64) * unit;
                           return v;
                         }});
  addElementwise(cases, {"sub",
                         {"operator-", "BinaryOp::Sub"},
                         [](auto x) { return x[0] - x[1]; },
                         [](auto v) { return v[0] - v[1]; },
                         both(floatBinary, intBinary)});
  // i64 products stay below 2^53 (the reference computes in double).
  addElementwise(cases, {"mul",
                         {"operator*", "BinaryOp::Mul"},
                         [](auto x) { return x[0] * x[1]; },
                         [](auto v) { return v[0] * v[1]; },
                         both(floatBinary, {{D::I32, D::I32, D::I32},
                                            {D::I8, D::I8, D::I8},
                                            {D::I64, D::I64, D::I64}}),
                         kExact,
                         [](int, DType t, int64_t n, unsigned seed) {
                           return isFloat(t)        ? floats(t, n, seed)
                                  : t == DType::I64 ? ints(t, n, seed, 1 << 25)
                                  : t == DType::I32 ? ints(t, n, seed, 1 << 15)
                                                    : ints(t, n, seed);
                         }});
  addElementwise(cases, {"div",
                         {"operator/", "BinaryOp::Div"},
                         [](auto x) { return x[0] / x[1]; },
                         [](auto v) { return v[0] / v[1]; },
                         {{D::F32, D::F32, D::F32}},
                         kDiv,
                         divisorInputs});
  addElementwise(cases, {"divi",
                         {"operator/", "BinaryOp::Div"},
                         [](auto x) { return x[0] / x[1]; },
                         [](auto v) { return std::trunc(v[0] / v[1]); },
                         {{D::I32, D::I32, D::I32},
                          {D::I64, D::I64, D::I64},
                          {D::I8, D::I8, D::I8}},
                         kExact,
                         divisorInputs});
  addElementwise(cases, {"divh",
                         {"operator/"},
                         [](auto x) { return x[0] / x[1]; },
                         [](auto v) { return v[0] / v[1]; },
                         {{D::F16, D::F16, D::F16}, {D::F64, D::F64, D::F64}},
                         kExact,
                         divisorInputs});
  addElementwise(cases, {"rem",
                         {"operator%", "BinaryOp::Rem"},
                         [](auto x) { return x[0] % x[1]; },
                         [](auto v) { return std::fmod(v[0], v[1]); },
                         {{D::F32, D::F32, D::F32},
                          {D::I32, D::I32, D::I32},
                          {D::I64, D::I64, D::I64},
                          {D::I16, D::I16, D::I16}},
                         kExact,
                         divisorInputs});
  addElementwise(cases,
                 {"and",
                  {"operator&", "BinaryOp::And"},
                  [](auto x) { return x[0] & x[1]; },
                  [](auto v) { return double(int64_t(v[0]) & int64_t(v[1])); },
                  intBinary});
  addElementwise(cases,
                 {"or",
                  {"operator|", "BinaryOp::Or"},
                  [](auto x) { return x[0] | x[1]; },
                  [](auto v) { return double(int64_t(v[0]) | int64_t(v[1])); },
                  intBinary});
  addElementwise(cases,
                 {"xor",
                  {"operator^", "BinaryOp::Xor"},
                  [](auto x) { return x[0] ^ x[1]; },
                  [](auto v) { return double(int64_t(v[0]) ^ int64_t(v[1])); },
                  intBinary});
  addElementwise(cases,
                 {"bool_logic",
                  {"operator&", "operator|", "unary!"},
                  [](auto x) {
                    Tensor p = x[0] > 0, q = x[1] > 0;
                    return ((p & !q) | (!p & q)).to(DType::I32);
                  },
                  [](auto v) { return double((v[0] > 0) != (v[1] > 0)); },
                  {{D::F32, D::F32, D::I32}}});
  addElementwise(
      cases,
      {"maximum",
       {"maximum", "BinaryOp::Max"},
       [](auto x) { return maximum(x[0], x[1]); },
       [](auto v) { return maximumRef(v[0], v[1]); },
       both({{D::F32, D::F32, D::F32}, {D::F16, D::F16, D::F16}}, intBinary)});
  addElementwise(cases,
                 {"minimum",
                  {"minimum", "BinaryOp::Min"},
                  [](auto x) { return minimum(x[0], x[1]); },
                  [](auto v) { return minimumRef(v[0], v[1]); },
                  both({{D::F32, D::F32, D::F32}, {D::BF16, D::BF16, D::BF16}},
                       intBinary)});
  addElementwise(cases,
                 {"maximum_number",
                  {"maximum", "minimum"},
                  [](auto x) { return minimum(maximum(x[0], -2), 7); },
                  [](auto v) { return minimumRef(maximumRef(v[0], -2), 7); },
                  {{D::F32, D::F32}, {D::I32, D::I32}}});

  struct Comparison {
    const char *name, *op, *kind;
    BinaryOp binaryOp;
    std::function<bool(double, double)> ref;
  };
  const Comparison comparisons[] = {
      {"lt", "operator<", "BinaryOp::Lt", BinaryOp::Lt,
       [](double a, double b) { return a < b; }},
      {"le", "operator<=", "BinaryOp::Le", BinaryOp::Le,
       [](double a, double b) { return a <= b; }},
      {"gt", "operator>", "BinaryOp::Gt", BinaryOp::Gt,
       [](double a, double b) { return a > b; }},
      {"ge", "operator>=", "BinaryOp::Ge", BinaryOp::Ge,
       [](double a, double b) { return a >= b; }},
      {"eq", "operator==", "BinaryOp::Eq", BinaryOp::Eq,
       [](double a, double b) { return a == b; }},
      {"ne", "operator!=", "BinaryOp::Ne", BinaryOp::Ne,
       [](double a, double b) { return a != b; }}};
  for (const Comparison &cmp : comparisons) {
    auto ref = cmp.ref;
    // Half the second operand equals the first, so == and <= see equality.
    addElementwise(cases, {std::string("cmp_") + cmp.name,
                           {cmp.op, cmp.kind},
                           bin(cmp.binaryOp),
                           [ref](auto v) { return double(ref(v[0], v[1])); },
                           {{D::F32, D::F32, D::I32},
                            {D::I32, D::I32, D::I32},
                            {D::F16, D::F16, D::I8},
                            {D::I64, D::I64, D::I32}},
                           kExact,
                           [](int k, DType t, int64_t n, unsigned seed) {
                             std::vector<double> first = values(t, n, 99);
                             if (!k)
                               return first;
                             std::vector<double> v = values(t, n, seed);
                             for (int64_t i = 0; i < n; i += 2)
                               v[i] = first[i];
                             return v;
                           }});
  }
  // A comparison stored straight into an i1 (bool) buffer.
  addElementwise(cases, {"cmp_store_i1",
                         {"operator<"},
                         [](auto x) { return x[0] < x[1]; },
                         [](auto v) { return double(v[0] < v[1]); },
                         {{D::F32, D::F32, D::I1}}});

  // Type promotion: floats win over integers, f16 with bf16 is f32, the
  // wider type wins.
  for (std::vector<DType> sig :
       std::vector<std::vector<DType>>{{D::I32, D::F32, D::F32},
                                       {D::F16, D::BF16, D::F32},
                                       {D::I8, D::I32, D::I32},
                                       {D::F16, D::F32, D::F32},
                                       {D::I16, D::I64, D::I64},
                                       {D::F32, D::F64, D::F64}}) {
    DType first = sig[0];
    // x * 2 is computed in x's type (wrapping or rounding) before the sum
    // promotes.
    addElementwise(cases,
                   {"promote",
                    {"operator+", "operator*"},
                    [](auto x) { return x[0] * 2 + x[1]; },
                    [first, result = sig[2]](auto v) {
                      double twice = isFloat(first) ? roundTo(first, v[0] * 2)
                                                    : wrap(first, v[0] * 2);
                      return roundTo(result, twice) + roundTo(result, v[1]);
                    },
                    {sig}});
  }
  // C++ numbers on either side take the tensor's type.
  addElementwise(cases, {"numbers",
                         {"operator+", "operator-", "operator*", "operator/"},
                         [](auto x) { return (3 - x[0] * 2.5f) / 4 + 1.0; },
                         [](auto v) {
                           return double(
                               float(float(3 - float(v[0] * 2.5)) / 4) + 1.0f);
                         },
                         {{D::F32, D::F32}}});
  addElementwise(cases, {"numbers_int",
                         {"operator%", "operator-"},
                         [](auto x) { return 7 - x[0] % 5 + int64_t(1); },
                         [](auto v) { return 7 - std::fmod(v[0], 5) + 1; },
                         {{D::I32, D::I32}, {D::I64, D::I64}}});

  addElementwise(cases, {"neg",
                         {"unary-"},
                         [](auto x) { return -x[0]; },
                         [](auto v) { return -v[0]; },
                         {{D::F32, D::F32},
                          {D::F16, D::F16},
                          {D::I32, D::I32},
                          {D::I64, D::I64}}});
  addElementwise(cases, {"abs",
                         {"abs"},
                         [](auto x) { return abs(x[0]); },
                         [](auto v) { return std::fabs(v[0]); },
                         {{D::F32, D::F32},
                          {D::BF16, D::BF16},
                          {D::I32, D::I32},
                          {D::I8, D::I8}}});
  addElementwise(cases, {"exp",
                         {"exp"},
                         [](auto x) { return exp(x[0]); },
                         [](auto v) { return std::exp(v[0]); },
                         {{D::F32, D::F32}, {D::F64, D::F64}},
                         {1e-37, 1e-5, "exp: abs 1e-37 + rel 1e-5"},
                         [](int, DType t, int64_t n, unsigned seed) {
                           std::vector<double> v = floats(t, n, seed);
                           for (double &x : v)
                             if (std::isfinite(x))
                               x = std::fmod(x, 88);
                           return v;
                         }});
  // f16 results may be one f16 ulp off (ex2.approx.f16 on the GPU): 2^-10
  // relative, or 2^-24 absolute for subnormal results (found on the H100:
  // exp2(-14.64) = 3.916e-5 came back 3.910e-5).
  for (auto [type, tolerance] :
       {std::pair{D::F32, Tolerance{1e-37, 2e-6, "exp2: abs 1e-37 + rel 2e-6"}},
        std::pair{D::F16, Tolerance{0x1p-24, 1e-3,
                                    "exp2 f16: 1 ulp (rel 1e-3, abs 2^-24)"}}})
    addElementwise(cases, {"exp2",
                           {"exp2"},
                           [](auto x) { return exp2(x[0]); },
                           [](auto v) { return std::exp2(v[0]); },
                           {{type, type}},
                           tolerance,
                           [](int, DType t, int64_t n, unsigned seed) {
                             std::vector<double> v = floats(t, n, seed);
                             for (double &x : v)
                               if (std::isfinite(x))
                                 x = std::fmod(x, t == DType::F16 ? 15 : 127);
                             return v;
                           }});
  addElementwise(cases, {"log",
                         {"log"},
                         [](auto x) { return log(x[0]); },
                         [](auto v) { return std::log(v[0]); },
                         {{D::F32, D::F32}, {D::F64, D::F64}},
                         {2e-6, 2e-6, "log: abs 2e-6 + rel 2e-6"}});
  addElementwise(cases, {"sqrt",
                         {"sqrt"},
                         [](auto x) { return sqrt(x[0]); },
                         [](auto v) { return std::sqrt(v[0]); },
                         {{D::F32, D::F32}, {D::F64, D::F64}},
                         {0, 2e-6, "sqrt: rel 2e-6"}});
  addElementwise(cases, {"rsqrt",
                         {"rsqrt"},
                         [](auto x) { return rsqrt(x[0]); },
                         [](auto v) { return 1 / std::sqrt(v[0]); },
                         {{D::F32, D::F32}},
                         {0, 2e-6, "rsqrt: rel 2e-6"},
                         [](int, DType t, int64_t n, unsigned seed) {
                           // Denormals excluded: their rsqrt is a normal
                           // number that flushing would turn into inf.
                           std::vector<double> v = floats(t, n, seed);
                           for (double &x : v)
                             if (x != 0 && std::fabs(x) < 1e-37)
                               x = 1e-30;
                           return v;
                         }});
  // The functions of compiler/MathLowering.h's precision table, with its
  // bounds (GPU figures, the looser ones) over inputs where they hold:
  // finite inputs are folded into +-`limit` (infinities, NaN, denormals and
  // +-0 still come through).
  auto within = [](double limit) {
    return [limit](int, DType t, int64_t n, unsigned seed) {
      std::vector<double> v = floats(t, n, seed);
      for (double &x : v)
        if (std::isfinite(x))
          x = std::fmod(x, limit);
      return v;
    };
  };
  auto unaryMath = [&](const char *name, Fn dsl, RefFn ref, Tolerance tol,
                       double limit) {
    addElementwise(
        cases,
        {name, {name}, dsl, ref, {{D::F32, D::F32}}, tol, within(limit)});
  };
  unaryMath(
      "sigmoid", [](auto x) { return sigmoid(x[0]); },
      [](auto v) { return 1 / (1 + std::exp(-v[0])); },
      {1e-7, 2e-6, "sigmoid: abs 1e-7 + rel 2e-6"}, 100);
  unaryMath(
      "tanh", [](auto x) { return tanh(x[0]); },
      [](auto v) { return std::tanh(v[0]); },
      {1e-7, 8e-7, "tanh: abs 1e-7 + rel 8e-7"}, 100);
  unaryMath(
      "erf", [](auto x) { return erf(x[0]); },
      [](auto v) { return std::erf(v[0]); },
      {1e-7, 8e-7, "erf: abs 1e-7 + rel 8e-7"}, 100);
  unaryMath(
      "sin", [](auto x) { return sin(x[0]); },
      [](auto v) { return std::sin(v[0]); },
      {4e-7 + 1e-7 * 100, 0, "sin: abs 4e-7 + 1e-7 * 100 (|x| <= 100)"}, 100);
  unaryMath(
      "cos", [](auto x) { return cos(x[0]); },
      [](auto v) { return std::cos(v[0]); },
      {4e-7 + 1e-7 * 100, 0, "cos: abs 4e-7 + 1e-7 * 100 (|x| <= 100)"}, 100);
  unaryMath(
      "floor", [](auto x) { return floor(x[0]); },
      [](auto v) { return std::floor(v[0]); }, {}, 1e30);
  unaryMath(
      "ceil", [](auto x) { return ceil(x[0]); },
      [](auto v) { return std::ceil(v[0]); }, {}, 1e30);
  addElementwise(cases, {"log2",
                         {"log2"},
                         [](auto x) { return log2(x[0]); },
                         [](auto v) { return std::log2(v[0]); },
                         {{D::F32, D::F32}},
                         {1e-7, 8e-7, "log2: abs 1e-7 + rel 8e-7"}});
  addElementwise(cases, {"pow",
                         {"pow"},
                         [](auto x) { return pow(x[0], x[1]); },
                         [](auto v) { return std::pow(v[0], v[1]); },
                         {{D::F32, D::F32, D::F32}},
                         {1e-37, 4e-6 + 1e-7 * 60,
                          "pow: rel 4e-6 + 1e-7 * |ln result| (<= 60 here)"},
                         [](int k, DType t, int64_t n, unsigned seed) {
                           // |x| <= 10, |y| <= 8: results within f32.
                           std::vector<double> v = floats(t, n, seed + k);
                           for (double &x : v)
                             if (std::isfinite(x))
                               x = std::fmod(x, k == 0 ? 10 : 8);
                           return v;
                         }});
  addElementwise(cases, {"fma",
                         {"fma"},
                         [](auto x) { return fma(x[0], x[1], x[2]); },
                         [](auto v) { return std::fma(v[0], v[1], v[2]); },
                         {{D::F32, D::F32, D::F32, D::F32}},
                         {1e-37, 1.2e-7, "fma: one rounding (1 ulp)"}});
  addElementwise(cases, {"floordiv",
                         {"floordiv"},
                         [](auto x) { return floordiv(x[0], x[1]); },
                         [](auto v) { return std::trunc(v[0] / v[1]); },
                         {{D::I32, D::I32, D::I32}, {D::I64, D::I64, D::I64}},
                         {},
                         divisorInputs});
  addElementwise(cases, {"cdiv",
                         {"cdiv"},
                         [](auto x) { return cdiv(x[0], x[1]); },
                         [](auto v) { return std::ceil(v[0] / v[1]); },
                         {{D::I32, D::I32, D::I32}},
                         {},
                         [](int k, DType t, int64_t n, unsigned seed) {
                           // cdiv is meant for a >= 0, b > 0.
                           std::vector<double> v(n);
                           for (int64_t i = 0; i < n; ++i)
                             v[i] = k == 0 ? double((i * 7919 + seed) % 100000)
                                           : double(1 + (i * 31 + seed) % 97);
                           return v;
                         }});
  addElementwise(cases, {"where",
                         {"where"},
                         [](auto x) { return where(x[0] > 0, x[1], x[2]); },
                         [](auto v) { return v[0] > 0 ? v[1] : v[2]; },
                         {{D::F32, D::F32, D::F32, D::F32},
                          {D::I32, D::I64, D::I64, D::I64},
                          {D::F32, D::F16, D::F16, D::F16}}});
  addElementwise(
      cases,
      {"where_numbers",
       {"where"},
       [](auto x) {
         return where(x[0] < x[1], x[0], 0.5) + where(x[1] > 0, 2, -3);
       },
       [](auto v) { return (v[0] < v[1] ? v[0] : 0.5) + (v[1] > 0 ? 2 : -3); },
       {{D::F32, D::F32, D::F32}}});

  // Casts: from each type to each type, with .to() and cast().
  const DType all[] = {D::I1,  D::I8,   D::I16, D::I32, D::I64,
                       D::F16, D::BF16, D::F32, D::F64};
  for (DType from : all) {
    for (DType to : all) {
      bool viaMethod = (int(from) + int(to)) % 2;
      // Stored into an f32 buffer when `to` is i1 or f64 (wider check of
      // the converted value), else into a `to` buffer.
      DType out = to == D::I1 ? D::I32 : to;
      addElementwise(cases,
                     {std::string("cast_") + (viaMethod ? "to_" : "fn_") +
                          std::string(dtypeName(to)),
                      {"cast:" + std::string(dtypeName(to)),
                       viaMethod ? "Tensor::to" : "cast"},
                      [to, viaMethod](auto x) {
                        return viaMethod ? x[0].to(to) : cast(x[0], to);
                      },
                      [from, to](auto v) {
                        double x = v[0];
                        if (to == D::I1)
                          return double(x != 0);
                        if (!isFloat(to) && isFloat(from))
                          return std::trunc(x);
                        // Narrowing integers wrap; floats round (through f32
                        // between f16 and bf16, which loses nothing).
                        return isFloat(to) ? roundTo(to, x) : wrap(to, x);
                      },
                      {{from, out}},
                      kExact,
                      castInputs});
    }
  }
}

//===----------------------------------------------------------------------===//
// Loads and stores
//===----------------------------------------------------------------------===//

void addMemoryCases(std::vector<Case> &cases) {
  // Masked load with `other`: all BLOCK lanes are stored, so `other` shows.
  for (DType t : {DType::F32, DType::F16, DType::I32}) {
    auto kernel = jit("load_other_" + suffix(t), [t](Ptr<> in, Ptr<> out, Int n,
                                                     Constexpr BLOCK) {
      Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
      Tensor mask = offsets < n;
      Tensor x = isFloat(t) ? load(in + offsets, mask, -INFINITY)
                            : load(in + offsets, mask, -7);
      store(out + offsets, x);
    });
    for (int64_t n : kSizes) {
      Case c{"load_other_" + suffix(t) + "_n" + std::to_string(n),
             {"load", "store"},
             kernel};
      int64_t lanes = blocks(n) * kBlock;
      c.buffers = {{t, values(t, n, unsigned(n))}, {t, sentinel(lanes + 4)}};
      c.args = {bufArg(0), bufArg(1), i32Arg(int32_t(n)), constArg(kBlock)};
      c.grid = {int(blocks(n))};
      double other = isFloat(t) ? -kInf : -7;
      c.reference = [n, lanes, other](Buffers &b) {
        for (int64_t i = 0; i < lanes; ++i)
          b[1][i] = i < n ? b[0][i] : other;
      };
      cases.push_back(std::move(c));
    }
  }
  // Unmasked loads and stores (n a multiple of the block), +4-byte pointers.
  for (int lead : {0, 4}) {
    auto kernel =
        jit("copy_unmasked", [](Ptr<> in, Ptr<> out, Constexpr BLOCK) {
          Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
          store(out + offsets, load(in + offsets));
        });
    Case c{
        "copy_unmasked_lead" + std::to_string(lead), {"load", "store"}, kernel};
    c.buffers = {{DType::F32, floats(DType::F32, 1024, 5), lead},
                 {DType::F32, sentinel(1024), lead}};
    c.args = {bufArg(0), bufArg(1), constArg(kBlock)};
    c.grid = {4};
    c.reference = [](Buffers &b) { b[1] = b[0]; };
    cases.push_back(std::move(c));
  }
  // Scalar loads and stores, scalar maths on non-block values.
  auto scalars = jit("scalar_math", [](Ptr<> in, Ptr<> out, Ptr<> iout, Int k,
                                       Int64 big, Float f) {
    Int pid = program_id(0);
    Tensor x = load(in + pid);
    store(out + pid, x * f + (k - 1).to(DType::F32) * 0.5f);
    store(iout + pid, big * 3 - pid + k % 4);
  });
  {
    Case c{"scalar_math", {"load", "store"}, scalars};
    c.buffers = {{DType::F32, floats(DType::F32, 19, 3)},
                 {DType::F32, sentinel(21)},
                 {DType::I64, sentinel(21)}};
    c.args = {bufArg(0),
              bufArg(1),
              bufArg(2),
              i32Arg(11),
              i64Arg(int64_t(1) << 40),
              f32Arg(-1.5f)};
    c.grid = {19};
    c.reference = [](Buffers &b) {
      for (int i = 0; i < 19; ++i) {
        b[1][i] = float(float(b[0][i] * -1.5f) + 5.0f);
        b[2][i] = double((int64_t(1) << 40) * 3 - i + 3);
      }
    };
    cases.push_back(std::move(c));
  }
}

/// x / s for one scalar s, as an argument and as the block's own maximum:
/// the GPU multiplies by 1/s only while 1/s is a normal number. Each divisor
/// comes with dividends whose quotients are normal numbers, 0 or +-inf (a
/// subnormal quotient could differ by one subnormal ulp, beyond 2 ulp
/// relative): 1/3e38 is subnormal, 1/1e-39 overflows (1e-39 / 1e-39 came
/// out inf), 2^-126 and 2^126 are the edges of the fast path.
void addDivisionByScalarCases(std::vector<Case> &cases) {
  auto byArgument = jit("div_by_scalar", [](Ptr<> in, Ptr<> out, Int n, Float s,
                                            Constexpr BLOCK) {
    Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
    Tensor mask = offsets < n;
    store(out + offsets, load(in + offsets, mask) / s, mask);
  });
  auto byMaximum =
      jit("div_by_block_max", [](Ptr<> in, Ptr<> out, Int n, Constexpr BLOCK) {
        Tensor offsets = arange(0, BLOCK);
        Tensor mask = offsets < n;
        Tensor x = load(in + offsets, mask, -INFINITY);
        store(out + offsets, x / max(x, 0), mask);
      });
  struct Divisor {
    const char *name;
    float s;
    std::vector<double> dividends;
  };
  const std::vector<Divisor> divisors = {
      {"3e38", 3e38f, {3e38, -1.5e38, 1e30, 6e30, 0, -0.0, kInf, kNaN}},
      {"m3e38", -3e38f, {3e38, 1.5e38, -2e38, 1e32, 0}},
      {"1em39", 1e-39f, {1e-39, 5e-39, -2e-39, 1e-30, 1, 0, kNaN}},
      {"m4em39", -4e-39f, {1e-39, 8e-39, -3e-39, 1e-31, 0}},
      {"2pm126", 0x1p-126f, {1, -3, 1e-30, 1e-38, 0}},
      {"2p126", 0x1p126f, {1e38, -3e38, 5e36, 2e37, 0}},
      {"3", 3.0f, {1, -7, 1000, 3e38, 0, kInf, kNaN}},
      {"0", 0.0f, {1, -1, 0, kInf, kNaN}},
      {"inf", INFINITY, {1, -1e30, 0, kInf, kNaN}},
      {"nan", NAN, {1, 0, kInf}},
  };
  for (const Divisor &d : divisors)
    for (int64_t n : {int64_t(17), int64_t(781)}) {
      std::vector<double> input(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i)
        input[size_t(i)] = d.dividends[size_t(i) % d.dividends.size()];
      Case c{std::string("div_by_scalar_") + d.name + "_n" + std::to_string(n),
             {"operator/"},
             byArgument};
      c.buffers = {{DType::F32, input}, {DType::F32, sentinel(n + 8)}};
      c.args = {bufArg(0), bufArg(1), i32Arg(int32_t(n)), f32Arg(d.s),
                constArg(kBlock)};
      c.grid = {int(blocks(n))};
      float s = d.s;
      c.reference = [s, n](Buffers &b) {
        for (int64_t i = 0; i < n; ++i)
          b[1][i] = b[0][i] / double(s);
      };
      c.tolerance = kDiv;
      cases.push_back(std::move(c));
    }
  // The maximum as the divisor: huge, subnormal and ordinary rows.
  const std::vector<std::pair<const char *, std::vector<double>>> rows = {
      {"huge", {3e38, 1e38, -2e38, 1e32, 0, 2.5e38}},
      {"subnormal", {1e-39, 5e-40, -2e-39, 0, 2e-40, 7e-40}},
      {"ordinary", {3, -1, 0.5, 2.25, -1000, 0}},
  };
  for (const auto &[name, values] : rows) {
    int64_t n = 781;
    std::vector<double> input(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      input[size_t(i)] = values[size_t(i) % values.size()];
    Case c{std::string("div_by_block_max_") + name,
           {"operator/", "max"},
           byMaximum};
    c.buffers = {{DType::F32, input}, {DType::F32, sentinel(n + 8)}};
    c.args = {bufArg(0), bufArg(1), i32Arg(int32_t(n)), constArg(1024)};
    c.grid = {1};
    c.reference = [n](Buffers &b) {
      double m = -kInf;
      for (int64_t i = 0; i < n; ++i)
        m = std::max(m, b[0][i]);
      for (int64_t i = 0; i < n; ++i)
        b[1][i] = b[0][i] / m;
    };
    c.tolerance = kDiv;
    cases.push_back(std::move(c));
  }
}

//===----------------------------------------------------------------------===//
// Geometry, ranges, shapes, loops
//===----------------------------------------------------------------------===//

void addStructureCases(std::vector<Case> &cases) {
  // program_id and num_programs on a 3-D grid.
  {
    auto kernel = jit("grid3d", [](Ptr<int32_t> out) {
      Int x = program_id(0), y = program_id(1), z = program_id(2);
      Int nx = num_programs(0), ny = num_programs(1), nz = num_programs(2);
      Int linear = (z * ny + y) * nx + x;
      store(out + linear * 2, x + 100 * y + 10000 * z);
      store(out + linear * 2 + 1, nx + 100 * ny + 10000 * nz);
    });
    Case c{"grid3d", {"program_id", "num_programs"}, kernel};
    c.buffers = {{DType::I32, sentinel(2 * 5 * 3 * 2 + 3)}};
    c.args = {bufArg(0)};
    c.grid = {5, 3, 2};
    c.reference = [](Buffers &b) {
      for (int z = 0; z < 2; ++z)
        for (int y = 0; y < 3; ++y)
          for (int x = 0; x < 5; ++x) {
            int linear = (z * 3 + y) * 5 + x;
            b[0][linear * 2] = x + 100 * y + 10000 * z;
            b[0][linear * 2 + 1] = 5 + 100 * 3 + 10000 * 2;
          }
    };
    cases.push_back(std::move(c));
  }
  // arange with a nonzero start, full of each kind of type.
  {
    auto kernel = jit("arange_full", [](Ptr<float> out, Ptr<int64_t> iout) {
      Tensor r = arange(16, 48);
      store(out + (r - 16), r.to(DType::F32) + full({32}, 0.25, DType::F32));
      store(iout + arange(0, 8), full({8}, -3, DType::I64) * arange(0, 8));
      store(out + 32 + arange(0, 4), full({4}, 1.5, DType::BF16));
    });
    Case c{"arange_full", {"arange", "full"}, kernel};
    c.buffers = {{DType::F32, sentinel(40)}, {DType::I64, sentinel(10)}};
    c.args = {bufArg(0), bufArg(1)};
    c.grid = {1};
    c.reference = [](Buffers &b) {
      for (int i = 0; i < 32; ++i)
        b[0][i] = 16 + i + 0.25;
      for (int i = 0; i < 4; ++i)
        b[0][32 + i] = 1.5;
      for (int i = 0; i < 8; ++i)
        b[1][i] = -3 * i;
    };
    cases.push_back(std::move(c));
  }
  // Broadcasting: out[r][c] = col[r] * 10 + row[c], a [R, C] tile from a
  // column ([R, 1] by expand_dims) and a row ([C] broadcast).
  for (auto [rows, cols] :
       {std::pair<int64_t, int64_t>{5, 17}, {1, 1}, {33, 100}}) {
    int64_t R = next_power_of_2(rows), C = next_power_of_2(cols);
    auto kernel =
        jit("broadcast2d", [](Ptr<> colv, Ptr<> rowv, Ptr<> out, Int nr, Int nc,
                              Constexpr RB, Constexpr CB) {
          Tensor r = arange(0, RB), c = arange(0, CB);
          Tensor col = load(colv + r, r < nr, 0).expand_dims(1);
          Tensor row = load(rowv + c, c < nc, 0);
          Tensor tile = col * 10 + row;
          Tensor offsets = r.expand_dims(1) * nc + c.expand_dims(0);
          Tensor mask = (r.expand_dims(1) < nr) & (c.expand_dims(0) < nc);
          store(out + offsets, tile, mask);
          // broadcast_to of a [1, CB] row to the tile's shape, summed per
          // column.
          Tensor stretched = row.expand_dims(0).broadcast_to({RB, CB});
          Tensor counted = sum(where(mask, stretched, 0), 0);
          store(out + nr * nc + c, counted, c < nc);
        });
    Case c{"broadcast2d_" + std::to_string(rows) + "x" + std::to_string(cols),
           {"Tensor::expand_dims", "Tensor::broadcast_to", "operator*", "sum",
            "where"},
           kernel};
    c.buffers = {{DType::F32, floats(DType::F32, rows, 1)},
                 {DType::F32, floats(DType::F32, cols, 2)},
                 {DType::F32, sentinel(rows * cols + cols + 5)}};
    c.args = {bufArg(0),    bufArg(1),   bufArg(2),  i32Arg(rows),
              i32Arg(cols), constArg(R), constArg(C)};
    c.grid = {1};
    c.reference = [rows, cols](Buffers &b) {
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t k = 0; k < cols; ++k)
          b[2][r * cols + k] = float(float(b[0][r] * 10) + float(b[1][k]));
      for (int64_t k = 0; k < cols; ++k) {
        // rows copies of one float, summed in f32 exactly when rows <= 2^k
        // keeps it representable: use the double product, rounded.
        double s = 0;
        for (int64_t r = 0; r < rows; ++r)
          s = float(s + b[1][k]);
        b[2][rows * cols + k] = s;
      }
    };
    // Sums of equal terms differ only by summation order: same result for
    // powers of two rows, else within a few ulp.
    c.tolerance = {0, 1e-6, "column sum of equal terms: rel 1e-6"};
    cases.push_back(std::move(c));
  }
  // for_range without carried values: program p handles blocks p, p + P, ...
  // with a negative-start, step > 1 loop as well.
  for (int64_t n : kSizes) {
    auto kernel =
        jit("loop_plain", [](Ptr<> in, Ptr<> out, Int n, Constexpr BLOCK) {
          Int pid = program_id(0), programs = num_programs(0);
          for_range(pid * BLOCK, n, programs * BLOCK, [&](Int start) {
            Tensor offsets = start + arange(0, BLOCK);
            Tensor mask = offsets < n;
            store(out + offsets, load(in + offsets, mask) * 2, mask);
          });
        });
    Case c{"loop_plain_n" + std::to_string(n),
           {"for_range", "num_programs"},
           kernel};
    c.buffers = {{DType::F32, floats(DType::F32, n, 8)},
                 {DType::F32, sentinel(n + 8)}};
    c.args = {bufArg(0), bufArg(1), i32Arg(int32_t(n)), constArg(64)};
    c.grid = {3};
    c.reference = [n](Buffers &b) {
      for (int64_t i = 0; i < n; ++i)
        b[1][i] = b[0][i] * 2;
    };
    cases.push_back(std::move(c));
  }
  // for_range with carried values: a row sum, count and running max over
  // chunks of a long row, per program (row), of exactly summable values.
  for (int64_t cols : {int64_t(1), int64_t(17), int64_t(781), int64_t(4097)}) {
    auto kernel =
        jit("loop_carried", [](Ptr<> in, Ptr<> out, Int cols, Constexpr BLOCK) {
          Int row = program_id(0);
          Tensor base = in + row * cols;
          std::vector<Tensor> init = {full({BLOCK}, 0, DType::F32),
                                      full({BLOCK}, -INFINITY, DType::F32),
                                      full({BLOCK}, 0, DType::I32)};
          std::vector<Tensor> result = for_range(
              0, cols, BLOCK, init, [&](Int start, std::vector<Tensor> acc) {
                Tensor offsets = start + arange(0, BLOCK);
                Tensor mask = offsets < cols;
                Tensor x = load(base + offsets, mask, 0);
                Tensor m = load(base + offsets, mask, -INFINITY);
                return std::vector<Tensor>{acc[0] + x, maximum(acc[1], m),
                                           acc[2] + mask.to(DType::I32)};
              });
          store(out + row * 3, sum(result[0], 0));
          store(out + row * 3 + 1, max(result[1], 0));
          store(out + row * 3 + 2, sum(result[2], 0));
        });
    const int64_t rows = 3;
    Case c{"loop_carried_n" + std::to_string(cols),
           {"for_range", "full", "max", "sum", "maximum"},
           kernel};
    std::mt19937 rng{unsigned(cols)};
    std::vector<double> in(rows * cols);
    for (double &x : in)
      x = double(int(rng() % 2001) - 1000) / 8; // +-125, exact sums
    if (cols > 1)
      in[cols + 3 % cols] = kInf; // row 1: +inf
    for (int64_t k = 0; k < cols; ++k)
      in[2 * cols + k] = -kInf; // row 2: all -inf
    c.buffers = {{DType::F32, in}, {DType::F32, sentinel(rows * 3 + 2)}};
    c.args = {bufArg(0), bufArg(1), i32Arg(int32_t(cols)), constArg(128)};
    c.grid = {int(rows)};
    c.reference = [cols](Buffers &b) {
      for (int64_t r = 0; r < rows; ++r) {
        double s = 0, m = -kInf;
        for (int64_t k = 0; k < cols; ++k) {
          s += b[0][r * cols + k];
          m = std::max(m, b[0][r * cols + k]);
        }
        b[1][r * 3] = s;
        b[1][r * 3 + 1] = m;
        b[1][r * 3 + 2] = double(cols);
      }
    };
    cases.push_back(std::move(c));
  }
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

void addReductionCases(std::vector<Case> &cases) {
  enum Kind { Max, Min, Sum };
  for (Kind kind : {Max, Min, Sum}) {
    for (DType t :
         {DType::F32, DType::I32, DType::F16, DType::F64, DType::I64}) {
      for (int axis : {0, 1}) {
        for (auto [rows, cols] : {std::pair<int64_t, int64_t>{1, 1},
                                  {5, 17},
                                  {3, 781},
                                  {1, 4097},
                                  {17, 3},
                                  // 8192 column results: on the GPU they
                                  // cross threads in rounds of 16 KB.
                                  {5, 4097}}) {
          const char *kindName = kind == Max   ? "max"
                                 : kind == Min ? "min"
                                               : "sum";
          auto kernel =
              jit(std::string("reduce_") + kindName + "_" + suffix(t) +
                      "_axis" + std::to_string(axis),
                  [kind, axis, t](Ptr<> in, Ptr<> out, Int nr, Int nc,
                                  Constexpr RB, Constexpr CB) {
                    Tensor r = arange(0, RB).expand_dims(1);
                    Tensor c = arange(0, CB).expand_dims(0);
                    Tensor mask = (r < nr) & (c < nc);
                    double identity = kind == Max   ? -INFINITY
                                      : kind == Min ? INFINITY
                                                    : 0;
                    if (!isFloat(t))
                      identity = kind == Max   ? -2147483648.0
                                 : kind == Min ? 2147483647.0
                                               : 0;
                    Tensor x = load(in + r * nc + c, mask, identity);
                    Tensor reduced = kind == Max   ? max(x, axis)
                                     : kind == Min ? min(x, axis)
                                                   : sum(x, axis);
                    Tensor idx = arange(0, axis == 0 ? CB : RB);
                    store(out + idx, reduced, idx < (axis == 0 ? nc : nr));
                  });
          Case c{std::string("reduce_") + kindName + "_" + suffix(t) + "_axis" +
                     std::to_string(axis) + "_" + std::to_string(rows) + "x" +
                     std::to_string(cols),
                 {kindName, "Tensor::expand_dims"},
                 kernel};
          std::mt19937 rng(unsigned(rows * 31 + cols));
          std::vector<double> in(rows * cols);
          for (int64_t i = 0; i < rows * cols; ++i)
            in[i] = isFloat(t) ? double(int(rng() % 2001) - 1000) / 8
                               : double(int(rng() % 200001) - 100000);
          if (t == DType::F16 && kind == Sum)
            for (double &x : in) // f16 sums stay exact: small integers
              x = std::round(x / 64);
          if (isFloat(t) && rows * cols > 8) {
            // Row 0 all -inf; a +inf and a NaN in later rows; +-1000 and a
            // denormal.
            for (int64_t k = 0; k < cols; ++k)
              in[k] = -kInf;
            in[std::min(rows * cols - 1, cols + 1)] = kInf;
            in[std::min(rows * cols - 1, 2 * cols + 2)] = kNaN;
            in[rows * cols - 2] = 1000;
            in[rows * cols - 3] = -1000;
            // Not in sums: whether a denormal survives depends on order.
            if (kind != Sum)
              in[rows * cols / 2] = t == DType::F16 ? 3e-6 : 1e-40;
          }
          int64_t outLen = axis == 0 ? cols : rows;
          c.buffers = {{t, in}, {t, sentinel(outLen + 3)}};
          c.args = tileArgs(rows, cols);
          c.grid = {1};
          c.numWarps = 4;
          c.reference = [kind, axis, rows, cols](Buffers &b) {
            int64_t outer = axis == 0 ? cols : rows;
            int64_t inner = axis == 0 ? rows : cols;
            for (int64_t o = 0; o < outer; ++o) {
              double acc = kind == Max ? -kInf : kind == Min ? kInf : 0;
              for (int64_t i = 0; i < inner; ++i) {
                double x = axis == 0 ? b[0][i * cols + o] : b[0][o * cols + i];
                acc = kind == Max   ? maximumRef(acc, x)
                      : kind == Min ? minimumRef(acc, x)
                                    : acc + x;
              }
              b[1][o] = acc;
            }
          };
          cases.push_back(std::move(c));
        }
      }
    }
  }
  // The sum of an i1 block counts its true elements (in i32).
  {
    auto kernel = jit("count_true",
                      [](Ptr<> in, Ptr<int32_t> out, Int n, Constexpr BLOCK) {
                        Tensor offsets = arange(0, BLOCK);
                        Tensor mask = offsets < n;
                        Tensor positive = load(in + offsets, mask, 0) > 0;
                        store(out, sum(positive & mask, 0));
                      });
    for (int64_t n : {int64_t(1), int64_t(17), int64_t(781)}) {
      Case c{"count_true_n" + std::to_string(n), {"sum", "operator&"}, kernel};
      c.buffers = {{DType::F32, floats(DType::F32, n, 4)},
                   {DType::I32, sentinel(2)}};
      c.args = {bufArg(0), bufArg(1), i32Arg(int32_t(n)), constArg(1024)};
      c.grid = {1};
      c.reference = [n](Buffers &b) {
        double count = 0;
        for (int64_t i = 0; i < n; ++i)
          count += b[0][i] > 0;
        b[1][0] = count;
      };
      cases.push_back(std::move(c));
    }
  }
}

//===----------------------------------------------------------------------===//
// Example kernels
//===----------------------------------------------------------------------===//

void addExampleCases(std::vector<Case> &cases) {
  // vector_add: sizes, edge values, +4-byte pointers, output aliasing x.
  for (DType t : {DType::F32, DType::F16, DType::BF16, DType::I32}) {
    for (int64_t n : kSizes) {
      for (int variant = 0; variant < 3; ++variant) {
        // 0: plain; 1: pointers 4 bytes off (f32 only); 2: out aliases x.
        if (variant == 1 && t != DType::F32)
          continue;
        Case c{"vector_add_" + suffix(t) + "_n" + std::to_string(n) +
                   (variant == 1   ? "_unaligned"
                    : variant == 2 ? "_inplace"
                                   : ""),
               {"example:vector_add"},
               examples::vectorAdd()};
        int lead = variant == 1 ? 4 : 0;
        c.buffers = {{t, values(t, n, unsigned(n)), lead},
                     {t, values(t, n, unsigned(n + 1)), lead}};
        if (variant == 2) {
          c.args = {bufArg(0), bufArg(1), bufArg(0)};
        } else {
          c.buffers.push_back({t, sentinel(n + 8), lead});
          c.args = {bufArg(0), bufArg(1), bufArg(2)};
        }
        c.args.push_back(i32Arg(int32_t(n)));
        c.args.push_back(constArg(1024));
        c.grid = {int(blocks(n, 1024))};
        int out = variant == 2 ? 0 : 2;
        DType type = t;
        c.reference = [n, out, type](Buffers &b) {
          for (int64_t i = 0; i < n; ++i) {
            double r = b[0][i] + b[1][i];
            b[out][i] = isFloat(type) ? r : wrap(type, r);
          }
        };
        cases.push_back(std::move(c));
      }
    }
  }
  // softmax: rows of -inf, a +inf or a NaN in a row, +-1000, denormals,
  // N = 1, 17, 781, 4097 columns, irregular strides, +4-byte pointers,
  // in place.
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    for (int64_t cols : kSizes) {
      for (int variant = 0; variant < 3; ++variant) {
        if (variant == 1 && t != DType::F32)
          continue;
        const int64_t rows = 9, stride = cols + 3;
        Case c{"softmax_" + suffix(t) + "_n" + std::to_string(cols) +
                   (variant == 1   ? "_unaligned"
                    : variant == 2 ? "_inplace"
                                   : ""),
               {"example:softmax"},
               examples::softmax()};
        std::vector<double> in = softmaxSpecialRows(t, rows, cols, stride);
        int lead = variant == 1 ? 4 : 0;
        c.buffers = {{t, in, lead}};
        if (variant == 2) {
          c.args = {bufArg(0), bufArg(0)};
        } else {
          c.buffers.push_back({t, sentinel(rows * stride), lead});
          c.args = {bufArg(1), bufArg(0)};
        }
        int64_t block = next_power_of_2(cols);
        c.args.push_back(i32Arg(int32_t(stride)));
        c.args.push_back(i32Arg(int32_t(stride)));
        c.args.push_back(i32Arg(int32_t(rows)));
        c.args.push_back(i32Arg(int32_t(cols)));
        c.args.push_back(constArg(block));
        c.grid = {4}; // fewer programs than rows: the persistent loop
        // The best-ranked one-CTA config (what runs untimed).
        c.numWarps = examples::softmaxRankedConfigs(block, 4, Target::cuda(80))
                         .front()
                         .numWarps;
        int out = variant == 2 ? 0 : 1;
        c.reference = [rows, cols, stride, out](Buffers &b) {
          std::vector<double> result(b[out].size());
          examples::referenceSoftmax(b[0].data(), result.data(), rows, cols,
                                     stride, stride,
                                     [](double x) { return x; });
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t k = 0; k < cols; ++k)
              b[out][r * stride + k] = result[r * stride + k];
        };
        c.tolerance =
            t == DType::F32   ? Tolerance{1e-6, 0, "softmax f32: abs 1e-6"}
            : t == DType::F16 ? Tolerance{2e-3, 0, "softmax f16: abs 2e-3"}
                              : Tolerance{1e-2, 0, "softmax bf16: abs 1e-2"};
        cases.push_back(std::move(c));
      }
    }
  }
}

// blkgpu.all_reduce down the rows of a block split over the 4 CTAs of a
// cluster: each column's max or sum (keep_dims), broadcast back and
// subtracted. Blocks 1 to 32 columns wide give a thread 1 to 8 columns'
// partials, which cross the cluster packed 1, 2 or 4 to a st.async (i16
// partials widened to 32 bits on the way); values are small integers (in
// eighths for f32), so every order of the sums is exact.
void addClusterAllReduceCases(std::vector<Case> &cases) {
  for (bool isMax : {true, false}) {
    for (DType t : {DType::F32, DType::I32, DType::I16}) {
      const char *kindName = isMax ? "max" : "sum";
      auto kernel =
          jit(std::string("cluster_all_reduce_") + kindName + "_" + suffix(t),
              [isMax, t](Ptr<> in, Ptr<> out, Int nr, Int nc, Constexpr RB,
                         Constexpr CB) {
                Tensor r = arange(0, RB).expand_dims(1);
                Tensor c = arange(0, CB).expand_dims(0);
                Tensor mask = (r < nr) & (c < nc);
                double lowest = isFloat(t)        ? -INFINITY
                                : t == DType::I16 ? -32768.0
                                                  : -2147483648.0;
                Tensor x = load(in + r * nc + c, mask, isMax ? lowest : 0.0);
                Tensor line = isMax ? max(x, 0, /*keep_dims=*/true)
                                    : sum(x, 0, /*keep_dims=*/true);
                store(out + r * nc + c, x - line, mask);
              });
      for (auto [rows, cols] : {std::pair<int64_t, int64_t>{300, 1},
                                {300, 2},
                                {129, 5},
                                {129, 16},
                                {64, 33}}) {
        Case c{std::string("cluster_all_reduce_") + kindName + "_" + suffix(t) +
                   "_" + std::to_string(rows) + "x" + std::to_string(cols) +
                   "_ctas4",
               {kindName, "Tensor::expand_dims"},
               kernel};
        std::mt19937 rng(unsigned(rows * 7 + cols));
        std::vector<double> in(rows * cols);
        for (double &x : in)
          x = isFloat(t) ? double(int(rng() % 2001) - 1000) / 8
                         : double(int(rng() % 41) - 20);
        c.buffers = {{t, in}, {t, sentinel(rows * cols + 3)}};
        c.args = tileArgs(rows, cols);
        c.grid = {1};
        c.numWarps = 4;
        c.numCTAs = 4;
        c.reference = [isMax, rows, cols](Buffers &b) {
          for (int64_t col = 0; col < cols; ++col) {
            double line = isMax ? -kInf : 0;
            for (int64_t row = 0; row < rows; ++row)
              line = isMax ? std::max(line, b[0][row * cols + col])
                           : line + b[0][row * cols + col];
            for (int64_t row = 0; row < rows; ++row)
              b[1][row * cols + col] = b[0][row * cols + col] - line;
          }
        };
        cases.push_back(std::move(c));
      }
    }
  }
}

const std::vector<Case> &allCases() {
  static const std::vector<Case> cases = [] {
    std::vector<Case> all;
    addElementwiseCases(all);
    addMemoryCases(all);
    addDivisionByScalarCases(all);
    addStructureCases(all);
    addReductionCases(all);
    addClusterAllReduceCases(all);
    addExampleCases(all);
    addTrialKernelCases(all);
    addStoreOnceCases(all);
    addShapesCases(all);
    addArgMathCases(all);
    addAtomicsCases(all);
    addScanCases(all);
    addF64MathCases(all);
    addOnlineSoftmaxCases(all);
    addSoftmaxFamilyCases(all);
    addRank3Cases(all);
    addTiles2DCases(all);
    // Last: copies of the cases above with several programs per CTA.
    addProgramsPerCTACases(all);
    addWideLayerNormCases(all);
    addWordPairsCases(all);
    addPrefixMasksCases(all);
    addEvictionCases(all);
    addDefaultEvictionCases(all);
    addRegisterCapCases(all);
    // Names must be unique: the cast loop makes one per (from, to) pair.
    std::map<std::string, int> seen;
    for (Case &c : all)
      if (int n = seen[c.name]++)
        c.name += "_" + std::to_string(n);
    return all;
  }();
  return cases;
}

} // namespace blockjit::difftest
