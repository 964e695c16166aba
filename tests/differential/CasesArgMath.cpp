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

} // namespace

void addArgMathCases(std::vector<Case> &cases) { addExactMathCases(cases); }

} // namespace blockjit::difftest
