//===- CasesF64Math.cpp - f64 sin, cos, tanh, erf, pow, sigmoid -----------===//
//
// The f64 functions CUDA computes with the expansions of
// compiler/MathLowering.cpp (the host calls libm, but expands erf), and
// the native ones (rsqrt, floor, ceil, fma, abs), against a long double
// reference with the bounds of that file's precision table: dense random
// inputs over each function's interesting range, the suite's edge values
// (+-0, +-1, +-1000, +-inf, NaN, denormals, 1e30), masked tails of every
// size, a block smaller than the threads, and scalars.
//
//===----------------------------------------------------------------------===//
#include "tests/differential/CaseHelpers.h"

#include "frontend/blockjit.h"

#include <cmath>
#include <random>

namespace blockjit::difftest {

namespace {

/// out[i] = f(a[i], b[i]) for i < n, BLOCK elements per program.
std::shared_ptr<KernelDef> f64Kernel(const std::string &name,
                                     std::function<Tensor(Tensor, Tensor)> f) {
  return jit(name, [f](Ptr<> a, Ptr<> b, Ptr<> out, Int n, Constexpr BLOCK) {
    Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
    Tensor mask = offsets < n;
    store(out + offsets, f(load(a + offsets, mask), load(b + offsets, mask)),
          mask);
  });
}

/// n ulp of a double, as a relative tolerance (an ulp of v is at most
/// 2^-52 |v|), with results below 2^-1070 free to round either way.
Tolerance ulps(double n, const char *rule) {
  return {0x1p-1070, n * 0x1p-52, rule};
}

struct F64Fn {
  const char *name;
  std::function<Tensor(Tensor, Tensor)> dsl;
  std::function<double(double, double)> ref;
  /// Fills x (and y) for size n; the suite's edge values are every third
  /// element of x already.
  std::function<void(std::vector<double> &, std::vector<double> &,
                     std::mt19937_64 &)>
      inputs;
  Tolerance tolerance;
};

double uniform(std::mt19937_64 &rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

} // namespace

void addF64MathCases(std::vector<Case> &cases) {
  // Random elements replace the non-edge ones (i % 3 != 1).
  auto randomized = [](double lo, double hi) {
    return [lo, hi](std::vector<double> &x, std::vector<double> &,
                    std::mt19937_64 &rng) {
      for (size_t i = 0; i < x.size(); ++i)
        if (i % 3 != 1)
          x[i] = i % 3 == 2 ? uniform(rng, -1, 1) : uniform(rng, lo, hi);
    };
  };
  // sin and cos: inputs next to multiples of pi/2, where the reduction
  // cancels most, small ones, and every exponent (Payne-Hanek from 2^50).
  auto trig = [](std::vector<double> &x, std::vector<double> &,
                 std::mt19937_64 &rng) {
    for (size_t i = 0; i < x.size(); ++i) {
      if (i % 3 == 1)
        continue;
      if (i % 3 == 2) {
        long double k = (long double)(rng() % (uint64_t(1) << (i % 62 + 1)));
        x[i] = double(k * 1.5707963267948966192313216916397514L);
      } else if (i % 2) {
        x[i] = std::ldexp(uniform(rng, -2, 2), int(rng() % 1100) - 70);
      } else {
        x[i] = uniform(rng, -20, 20);
      }
    }
    // Not 6381956970095103 * 2^797, the double closest to a multiple of
    // pi/2: glibc's cos (the host) is 8 ulp off there; GPUMathTest checks
    // the GPU's expansion on it.
  };
  // pow: bases of every magnitude with exponents that keep the result in
  // range (and beyond), negative bases with integral exponents, and
  // bases near 1 with large exponents; y's own edge values on the rest.
  auto powInputs = [](std::vector<double> &x, std::vector<double> &y,
                      std::mt19937_64 &rng) {
    std::vector<double> edges = floats(DType::F64, int64_t(y.size()), 3);
    for (size_t i = 0; i < x.size(); ++i) {
      switch (i % 6) {
      case 1:
      case 4: // x's edges with y's random or edge values
        y[i] = i % 4 == 1 ? edges[i] : uniform(rng, -5, 5);
        break;
      case 0: {
        x[i] = std::ldexp(uniform(rng, 1, 2), int(rng() % 2000) - 1000);
        y[i] = uniform(rng, -1100, 1100) / std::fabs(std::log2(x[i]) + 0.01);
        break;
      }
      case 2:
        x[i] = uniform(rng, -100, 100);
        y[i] = double(int(rng() % 161) - 80);
        break;
      case 3:
        x[i] = 1 + uniform(rng, -1e-4, 1e-4);
        y[i] = uniform(rng, -1e7, 1e7);
        break;
      default:
        x[i] = uniform(rng, 0, 20);
        y[i] = uniform(rng, -30, 30);
        break;
      }
    }
  };
  const F64Fn fns[] = {
      {"sin", [](Tensor x, Tensor) { return sin(x); },
       [](double x, double) { return double(sinl(x)); }, trig,
       ulps(2, "f64 sin: 2 ulp")},
      {"cos", [](Tensor x, Tensor) { return cos(x); },
       [](double x, double) { return double(cosl(x)); }, trig,
       ulps(2, "f64 cos: 2 ulp")},
      {"tanh", [](Tensor x, Tensor) { return tanh(x); },
       [](double x, double) { return double(tanhl(x)); }, randomized(-25, 25),
       ulps(4, "f64 tanh: 4 ulp")},
      {"erf", [](Tensor x, Tensor) { return erf(x); },
       [](double x, double) { return double(erfl(x)); }, randomized(-7, 7),
       ulps(4, "f64 erf: 4 ulp")},
      // 1 / (1 + exp(-x)): exp's 4 ulp and two roundings.
      {"sigmoid", [](Tensor x, Tensor) { return sigmoid(x); },
       [](double x, double) { return double(1 / (1 + expl(-(long double)x))); },
       randomized(-709, 40),
       ulps(6, "f64 sigmoid: 6 ulp (results below 2^-1022 may be 0)")},
      {"pow", [](Tensor x, Tensor y) { return pow(x, y); },
       [](double x, double y) { return double(powl(x, y)); }, powInputs,
       ulps(4, "f64 pow: 4 ulp")},
      // The native f64 functions (instructions on NVPTX), so that every
      // float function of the DSL has f64 cases on CUDA.
      {"rsqrt", [](Tensor x, Tensor) { return rsqrt(x); },
       [](double x, double) { return double(1 / sqrtl(x)); },
       randomized(0, 1e300), ulps(2, "f64 rsqrt: 2 ulp (1 / sqrt)")},
      {"floor", [](Tensor x, Tensor) { return floor(x); },
       [](double x, double) { return std::floor(x); }, randomized(-1e17, 1e17),
       Tolerance{}},
      {"ceil", [](Tensor x, Tensor) { return ceil(x); },
       [](double x, double) { return std::ceil(x); }, randomized(-1e17, 1e17),
       Tolerance{}},
      {"fma", [](Tensor x, Tensor y) { return fma(x, y, x); },
       [](double x, double y) { return std::fma(x, y, x); },
       [](std::vector<double> &x, std::vector<double> &y,
          std::mt19937_64 &rng) {
         for (size_t i = 0; i < x.size(); ++i) {
           if (i % 3 != 1)
             x[i] = uniform(rng, -1e3, 1e3);
           y[i] = uniform(rng, -2, 2);
         }
       },
       Tolerance{}},
      {"abs", [](Tensor x, Tensor) { return abs(x); },
       [](double x, double) { return std::fabs(x); }, randomized(-1e3, 1e3),
       Tolerance{}},
  };
  for (const F64Fn &fn : fns) {
    std::string kernelName = std::string("fm_") + fn.name + "_f64";
    auto kernel = f64Kernel(kernelName, fn.dsl);
    for (int64_t n : kSizes) {
      std::vector<double> x = floats(DType::F64, n, unsigned(n + 11));
      std::vector<double> y(n, 0.0);
      std::mt19937_64 rng(uint64_t(n) * 7 + 1);
      fn.inputs(x, y, rng);
      Case c;
      c.name = kernelName + "_n" + std::to_string(n);
      c.covers = {fn.name};
      c.kernel = kernel;
      c.buffers = {
          {DType::F64, x}, {DType::F64, y}, {DType::F64, sentinel(n + 8)}};
      c.args = {bufArg(0), bufArg(1), bufArg(2), i32Arg(int32_t(n))};
      // A 16-element block under 4 warps (threads without elements) for
      // the 17-element size, the suite's block otherwise.
      int64_t block = n == 17 ? 16 : kBlock;
      c.args.push_back(constArg(block));
      c.grid = {int(blocks(n, block))};
      c.reference = [n, ref = fn.ref](Buffers &b) {
        for (int64_t i = 0; i < n; ++i)
          b[2][i] = ref(b[0][i], b[1][i]);
      };
      c.tolerance = fn.tolerance;
      cases.push_back(std::move(c));
    }
  }

  // Scalars (one element per program) take the same expansions.
  auto scalarKernel = jit("fm_scalar_f64", [](Ptr<> a, Ptr<> out) {
    Tensor x = load(a + program_id(0));
    Tensor i = program_id(0) * 6;
    store(out + i, sin(x));
    store(out + i + 1, cos(x));
    store(out + i + 2, tanh(x));
    store(out + i + 3, erf(x));
    store(out + i + 4, pow(x, 0.75));
    store(out + i + 5, sigmoid(x));
  });
  std::vector<double> x = {1e-300, -0.5, 1, 2.5, -7, 30, 1e10, 123.456, 1e300};
  Case c;
  c.name = "fm_scalar_f64";
  c.covers = {"sin", "cos", "tanh", "erf", "pow", "sigmoid"};
  c.kernel = scalarKernel;
  c.buffers = {{DType::F64, x}, {DType::F64, sentinel(x.size() * 6 + 4)}};
  c.args = {bufArg(0), bufArg(1)};
  c.grid = {int(x.size())};
  c.reference = [n = x.size()](Buffers &b) {
    for (size_t i = 0; i < n; ++i) {
      long double v = b[0][i];
      b[1][i * 6] = double(sinl(v));
      b[1][i * 6 + 1] = double(cosl(v));
      b[1][i * 6 + 2] = double(tanhl(v));
      b[1][i * 6 + 3] = double(erfl(v));
      b[1][i * 6 + 4] = double(powl(v, 0.75L));
      b[1][i * 6 + 5] = double(1 / (1 + expl(-v)));
    }
  };
  c.tolerance = ulps(6, "f64 functions: 6 ulp (the loosest bound)");
  cases.push_back(std::move(c));
}

} // namespace blockjit::difftest
