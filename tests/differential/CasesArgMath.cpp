//===- CasesArgMath.cpp - argmax/argmin, exact fmod and f64 exp/log -------===//
//
// argmax and argmin along both axes of 1-D and 2-D blocks (ties, NaN, -inf
// rows, masked tails, a block smaller than the threads), float % of every
// float type with the pairs NVPTX's frem got wrong, and f64 exp, exp2, log
// and log2 against libm with the bound of compiler/MathLowering.h.
//
//===----------------------------------------------------------------------===//
#include "tests/differential/CaseHelpers.h"

#include "frontend/blockjit.h"

#include <cmath>
#include <limits>
#include <random>

namespace blockjit::difftest {

namespace {

//===----------------------------------------------------------------------===//
// Exact fmod and f64 exp/log on both targets
//===----------------------------------------------------------------------===//

/// out[i] = f(a[i]) (or f(a[i], b[i])) for i < n.
std::shared_ptr<KernelDef> mathKernel(const std::string &name, int arity,
                                      std::function<Tensor(Tensor, Tensor)> f) {
  if (arity == 1)
    return jit(name, [f](Ptr<> a, Ptr<> out, Int n, Constexpr BLOCK) {
      Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
      Tensor mask = offsets < n;
      store(out + offsets, f(load(a + offsets, mask), Tensor()), mask);
    });
  return jit(name, [f](Ptr<> a, Ptr<> b, Ptr<> out, Int n, Constexpr BLOCK) {
    Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
    Tensor mask = offsets < n;
    store(out + offsets, f(load(a + offsets, mask), load(b + offsets, mask)),
          mask);
  });
}

Case mathCase(const std::string &name, std::shared_ptr<KernelDef> kernel,
              DType type, std::vector<std::vector<double>> inputs,
              std::function<double(double, double)> ref, Tolerance tolerance,
              std::vector<std::string> covers) {
  int64_t n = int64_t(inputs[0].size());
  Case c;
  c.name = name;
  c.covers = std::move(covers);
  c.kernel = std::move(kernel);
  int arity = int(inputs.size());
  for (int k = 0; k < arity; ++k) {
    c.buffers.push_back({type, inputs[k]});
    c.args.push_back(bufArg(k));
  }
  c.buffers.push_back({type, sentinel(n + 8)});
  c.args.push_back(bufArg(arity));
  c.args.push_back(i32Arg(int32_t(n)));
  c.args.push_back(constArg(kBlock));
  c.grid = {int(blocks(n))};
  c.reference = [=](Buffers &b) {
    for (int64_t i = 0; i < n; ++i)
      b[arity][i] = ref(b[0][i], arity > 1 ? b[1][i] : 0);
  };
  c.tolerance = tolerance;
  return c;
}

/// Dividend/divisor pairs for fmod: the suite's floats, plus quotients far
/// beyond 2^24 (1000 % 1e-40 came back -inf from NVPTX's frem), subnormal
/// divisors, equal magnitudes and infinite divisors.
std::vector<std::vector<double>> fmodInputs(DType type, int64_t n,
                                            unsigned seed) {
  std::vector<double> x = floats(type, n, seed), y = floats(type, n, seed + 1);
  double tiny = type == DType::F16 ? 6e-8 : type == DType::F64 ? 5e-324 : 1e-45;
  double big = type == DType::F16 ? 65504 : type == DType::BF16 ? 3e38 : 3e38;
  const std::pair<double, double> pairs[] = {
      {1000, 1e-40}, {big, tiny},  {-big, 3.0}, {7.5, -2},
      {-7.5, 2},     {1e10, 0.1},  {-0.0, 5},   {5, kInf},
      {-5, -kInf},   {kInf, 1},    {1, 0},      {3, 3},
      {-3, 3},       {tiny, tiny}, {big, 1.5},  {1e-38, 3e-39}};
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < n; ++i) {
    if (i % 4 == 3) {
      auto [a, b] = pairs[(i / 4) % std::size(pairs)];
      x[i] = a;
      y[i] = b;
    } else if (i % 4 == 2) {
      // Quotients of every size: y scaled down by up to 2^200 (f64), so
      // the long division runs many steps.
      int range = type == DType::F64 ? 200 : type == DType::F32 ? 60 : 10;
      y[i] = std::ldexp(std::fabs(y[i]) + 0.5, -int(rng() % range));
    }
  }
  return {x, y};
}

void addExactMathCases(std::vector<Case> &cases) {
  for (DType type : {DType::F32, DType::F64, DType::F16, DType::BF16}) {
    std::string kernelName = "am_rem_" + suffix(type);
    auto kernel =
        mathKernel(kernelName, 2, [](Tensor x, Tensor y) { return x % y; });
    for (int64_t n : kSizes)
      cases.push_back(
          mathCase(kernelName + "_n" + std::to_string(n), kernel, type,
                   fmodInputs(type, n, unsigned(n * 3 + 1)),
                   [](double x, double y) { return std::fmod(x, y); }, kExact,
                   {"operator%", "BinaryOp::Rem"}));
  }

  // f64 functions: libm on the host, the expansions of
  // compiler/MathLowering.cpp on the GPU (4 ulp bound, 1e-15 relative).
  struct F64Fn {
    const char *name;
    std::function<Tensor(Tensor)> dsl;
    double (*ref)(double);
    double lo, hi; // the range of the random inputs
  };
  const F64Fn fns[] = {{"exp", [](Tensor x) { return exp(x); },
                        [](double x) { return std::exp(x); }, -746, 710},
                       {"exp2", [](Tensor x) { return exp2(x); },
                        [](double x) { return std::exp2(x); }, -1076, 1025},
                       {"log", [](Tensor x) { return log(x); },
                        [](double x) { return std::log(x); }, -1, 1e300},
                       {"log2", [](Tensor x) { return log2(x); },
                        [](double x) { return std::log2(x); }, -1, 1e300}};
  Tolerance f64Tolerance = {0x1p-1070, 1e-15,
                            "f64 exp/log: 4 ulp (rel 1e-15, abs 2^-1070)"};
  for (const F64Fn &fn : fns) {
    std::string kernelName = std::string("am_") + fn.name + "_f64";
    auto dsl = fn.dsl;
    auto kernel =
        mathKernel(kernelName, 1, [dsl](Tensor x, Tensor) { return dsl(x); });
    bool isLog = fn.name[0] == 'l';
    for (int64_t n : kSizes) {
      std::vector<double> x = floats(DType::F64, n, unsigned(n + 5));
      std::mt19937_64 rng(n);
      std::uniform_real_distribution<double> uniform(fn.lo, fn.hi);
      for (int64_t i = 0; i < n; ++i) {
        if (i % 3 == 1)
          continue; // the edge cases
        // Logs: every exponent (and subnormals) as well as random values.
        x[i] = isLog && i % 3 == 2 ? std::ldexp(1 + double(rng() % 1000) / 1000,
                                                int(rng() % 2098) - 1074)
                                   : uniform(rng);
      }
      auto ref = fn.ref;
      cases.push_back(mathCase(
          kernelName + "_n" + std::to_string(n), kernel, DType::F64, {x},
          [ref](double v, double) { return ref(v); }, f64Tolerance, {fn.name}));
    }
  }

  // Scalars (not blocks) take the same f64 lowering: exp(log(x)) of one
  // element per program.
  auto scalarKernel = jit("am_exp_log_f64_scalar", [](Ptr<> a, Ptr<> out) {
    Tensor x = load(a + program_id(0));
    store(out + program_id(0), exp(log(x)) + (x % 3.0));
  });
  Case c;
  c.name = "am_exp_log_f64_scalar";
  c.covers = {"exp", "log", "operator%"};
  c.kernel = scalarKernel;
  std::vector<double> x = {1e-300, 0.5, 1, 2.5, 700, 1e10, 1e300, 123.456};
  c.buffers = {{DType::F64, x}, {DType::F64, sentinel(x.size() + 4)}};
  c.args = {bufArg(0), bufArg(1)};
  c.grid = {int(x.size())};
  c.reference = [n = x.size()](Buffers &b) {
    for (size_t i = 0; i < n; ++i)
      b[1][i] = std::exp(std::log(b[0][i])) + std::fmod(b[0][i], 3.0);
  };
  c.tolerance = {0, 4e-15, "f64 exp(log(x)): 8 ulp + fmod exact"};
  cases.push_back(std::move(c));
}

//===----------------------------------------------------------------------===//
// argmax, argmin
//===----------------------------------------------------------------------===//

/// The first index of the largest (smallest) element, a NaN counting as
/// the extreme, -0.0 == 0.0: the semantics stated in frontend/Tensor.h.
int argReference(const std::vector<double> &v, bool isMax) {
  int best = 0;
  for (int i = 1; i < int(v.size()); ++i) {
    double a = v[best], b = v[i];
    if (std::isnan(a))
      break;
    if (std::isnan(b) || (isMax ? b > a : b < a))
      best = i;
  }
  return best;
}

double maskedValue(DType type, bool isMax) {
  switch (type) {
  case DType::I8:
    return isMax ? -128 : 127;
  case DType::I16:
    return isMax ? -32768 : 32767;
  case DType::I32:
    return isMax ? -2147483648.0 : 2147483647.0;
  case DType::I64:
    return isMax ? -9223372036854775808.0 : 9223372036854775807.0;
  default:
    return isMax ? -kInf : kInf;
  }
}

/// What a user loads into masked-off lanes: the identity of the reduction,
/// as a DSL operand of the block's type (integers as integers: INT64_MAX is
/// no double).
Operand maskedOperand(DType type, bool isMax) {
  if (isFloat(type))
    return Operand(isMax ? -kInf : kInf);
  if (type == DType::I64)
    return Operand(isMax ? std::numeric_limits<int64_t>::min()
                         : std::numeric_limits<int64_t>::max());
  return Operand(int64_t(maskedValue(type, isMax)));
}

/// Row `pattern` of length n: 0 random with many ties, 1 all NaN, 2 a NaN
/// in the middle (and one at the end), 3 all -inf, 4 all equal, 5 the
/// extreme tied between -0.0 and 0.0, 6 +-inf at several places, 7 the
/// extreme only in the last (masked-tail) element. Integers take the same
/// patterns with their extremes for the infinities and no NaNs.
std::vector<double> argRow(DType type, int pattern, int64_t n,
                           std::mt19937 &rng) {
  bool isFloatType = isFloat(type);
  double lo = maskedValue(type, true), hi = maskedValue(type, false);
  std::uniform_int_distribution<int> small(-3, 3);
  std::vector<double> v(n);
  for (double &x : v)
    x = small(rng);
  switch (pattern) {
  case 1:
    for (double &x : v)
      x = isFloatType ? kNaN : 5;
    break;
  case 2:
    if (isFloatType) {
      v[n / 2] = kNaN;
      v[n - 1] = kNaN;
    }
    break;
  case 3:
    for (double &x : v)
      x = isFloatType ? -kInf : lo;
    break;
  case 4:
    for (double &x : v)
      x = 2;
    break;
  case 5:
    for (double &x : v)
      x = isFloatType ? -1 : 0;
    v[n / 3] = -0.0;
    v[n - 1] = 0.0;
    if (isFloatType && n > 2)
      v[n / 2] = 0.0;
    break;
  case 6:
    for (int64_t i = 0; i < n; i += 5)
      v[i] = i % 2 ? (isFloatType ? kInf : hi) : (isFloatType ? -kInf : lo);
    break;
  case 7:
    for (double &x : v)
      x = 0;
    v[n - 1] = 100;
    v[0] = -100;
    break;
  }
  return v;
}

constexpr int kArgPatterns = 8;

/// One program per row: argmax/argmin of a 1-D block of BLOCK >= n, the
/// tail masked off and loaded as the identity.
void addArgRowCases(std::vector<Case> &cases, DType type, bool isMax) {
  const char *kind = isMax ? "argmax" : "argmin";
  Operand other = maskedOperand(type, isMax);
  std::string kernelName = std::string("am_") + kind + "_rows_" + suffix(type);
  auto kernel = jit(kernelName, [isMax, other](Ptr<> in, Ptr<int32_t> out,
                                               Int n, Constexpr BLOCK) {
    Tensor row = program_id(0);
    Tensor offsets = arange(0, BLOCK);
    Tensor mask = offsets < n;
    Tensor x = load(in + row * n + offsets, mask, other);
    // The axis-less form on a 1-D block is the same reduction.
    Tensor index = isMax ? argmax(x, 0) : argmin(x);
    store(out + row, index);
  });
  std::vector<std::pair<int64_t, int64_t>> shapes; // (n, BLOCK)
  for (int64_t n : kSizes)
    shapes.push_back({n, next_power_of_2(n)});
  shapes.push_back({13, 16}); // a 16-element block on 4 warps: replicas
  shapes.push_back({16, 16});
  for (auto [n, block] : shapes) {
    std::mt19937 rng(unsigned(n * 17 + int(type) + isMax));
    std::vector<double> in;
    for (int p = 0; p < kArgPatterns; ++p) {
      std::vector<double> row = argRow(type, p, n, rng);
      in.insert(in.end(), row.begin(), row.end());
    }
    Case c;
    c.name =
        kernelName + "_n" + std::to_string(n) + "_b" + std::to_string(block);
    c.covers = {kind};
    c.kernel = kernel;
    c.buffers = {{type, in}, {DType::I32, sentinel(kArgPatterns + 4)}};
    c.args = {bufArg(0), bufArg(1), i32Arg(int32_t(n)), constArg(block)};
    c.grid = {kArgPatterns};
    c.numWarps = 4;
    c.reference = [n = n, isMax](Buffers &b) {
      for (int p = 0; p < kArgPatterns; ++p) {
        std::vector<double> row(b[0].begin() + p * n,
                                b[0].begin() + (p + 1) * n);
        b[1][p] = argReference(row, isMax);
      }
    };
    c.tolerance = kExact;
    cases.push_back(std::move(c));
  }
}

/// A 2-D block of R x C valid elements in an RB x CB block: argmax/argmin
/// along axis 1 (keep_dims, one index per row), along axis 0 (one per
/// column) and without an axis (row-major index into the RB x CB block).
void addArg2DCases(std::vector<Case> &cases, DType type, bool isMax) {
  const char *kind = isMax ? "argmax" : "argmin";
  Operand other = maskedOperand(type, isMax);
  std::string kernelName = std::string("am_") + kind + "_2d_" + suffix(type);
  auto kernel = jit(kernelName, [isMax, other](Ptr<> in, Ptr<int32_t> rows,
                                               Ptr<int32_t> cols,
                                               Ptr<int32_t> all, Int R, Int C,
                                               Constexpr RB, Constexpr CB) {
    Tensor r = arange(0, RB).expand_dims(1);
    Tensor c = arange(0, CB).expand_dims(0);
    Tensor mask = (r < R) & (c < C);
    Tensor x = load(in + (r * C + c), mask, other);
    Tensor byRow = isMax ? argmax(x, 1, true) : argmin(x, 1, true); // [RB, 1]
    store(rows + r, byRow, r < R);
    Tensor byCol = isMax ? argmax(x, 0) : argmin(x, 0, false); // [CB]
    Tensor cc = arange(0, CB);
    store(cols + cc, byCol, cc < C);
    store(all, isMax ? argmax(x) : argmin(x));
  });
  const std::pair<int64_t, int64_t> shapes[] = {
      {5, 37}, {17, 3}, {3, 130}, {1, 1}, {9, 16}};
  for (auto [R, C] : shapes) {
    int64_t RB = next_power_of_2(R), CB = next_power_of_2(C);
    std::mt19937 rng(unsigned(R * 1000 + C + int(type) * 7 + isMax));
    // Rows of the patterns, in turn; some columns get a NaN too.
    std::vector<double> in;
    for (int64_t i = 0; i < R; ++i) {
      std::vector<double> row = argRow(type, int(i % kArgPatterns), C, rng);
      in.insert(in.end(), row.begin(), row.end());
    }
    if (isFloat(type) && C > 3)
      for (int64_t i = 0; i < R; i += 2)
        in[i * C + 3] = kNaN;
    Case c;
    c.name = kernelName + "_" + std::to_string(R) + "x" + std::to_string(C);
    c.covers = {kind};
    c.kernel = kernel;
    c.buffers = {{type, in},
                 {DType::I32, sentinel(R + 4)},
                 {DType::I32, sentinel(C + 4)},
                 {DType::I32, sentinel(2)}};
    c.args = {bufArg(0),    bufArg(1),          bufArg(2),
              bufArg(3),    i32Arg(int32_t(R)), i32Arg(int32_t(C)),
              constArg(RB), constArg(CB)};
    c.grid = {1};
    c.reference = [R = R, C = C, RB, CB, isMax,
                   other = maskedValue(type, isMax)](Buffers &b) {
      // The whole RB x CB block as the kernel sees it.
      std::vector<double> block(RB * CB, other);
      for (int64_t i = 0; i < R; ++i)
        for (int64_t j = 0; j < C; ++j)
          block[i * CB + j] = b[0][i * C + j];
      for (int64_t i = 0; i < R; ++i)
        b[1][i] =
            argReference(std::vector<double>(block.begin() + i * CB,
                                             block.begin() + (i + 1) * CB),
                         isMax);
      for (int64_t j = 0; j < C; ++j) {
        std::vector<double> col;
        for (int64_t i = 0; i < RB; ++i)
          col.push_back(block[i * CB + j]);
        b[2][j] = argReference(col, isMax);
      }
      b[3][0] = argReference(block, isMax);
    };
    c.tolerance = kExact;
    cases.push_back(std::move(c));
  }
}

void addArgReduceCases(std::vector<Case> &cases) {
  for (DType type : {DType::F32, DType::F16, DType::BF16, DType::F64,
                     DType::I32, DType::I8, DType::I64})
    for (bool isMax : {true, false}) {
      addArgRowCases(cases, type, isMax);
      addArg2DCases(cases, type, isMax);
    }
}

} // namespace

void addArgMathCases(std::vector<Case> &cases) {
  addArgReduceCases(cases);
  addExactMathCases(cases);
}

} // namespace blockjit::difftest
