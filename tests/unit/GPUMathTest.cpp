//===- GPUMathTest.cpp - the GPU's own math expansions, run on the host ---===//
//
// lowerMathForTarget(NVPTX) expands f32/f64 `%` into an exact fmod and f64
// exp, exp2, log and log2 into range reductions and polynomials, from
// arith/math/scf ops only. These tests apply that lowering to scalar
// functions, JIT them for the host and compare with C: fmod bit for bit,
// the f64 functions against a long double reference with the bounds stated
// in compiler/MathLowering.h. So the GPU's numerics are tested where there
// is no GPU; the differential suite runs the same lowering on the device.
//
//===----------------------------------------------------------------------===//
#include "compiler/MathLowering.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/TargetSelect.h"

#include <gtest/gtest.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <random>

using namespace mlir;

namespace {

constexpr const char *kFunctions = R"mlir(
func.func @fmod_f32(%x: f32, %y: f32) -> f32 {
  %r = arith.remf %x, %y : f32
  return %r : f32
}
func.func @fmod_f64(%x: f64, %y: f64) -> f64 {
  %r = arith.remf %x, %y : f64
  return %r : f64
}
func.func @exp_f64(%x: f64) -> f64 {
  %r = math.exp %x : f64
  return %r : f64
}
func.func @exp2_f64(%x: f64) -> f64 {
  %r = math.exp2 %x : f64
  return %r : f64
}
func.func @log_f64(%x: f64) -> f64 {
  %r = math.log %x : f64
  return %r : f64
}
func.func @log2_f64(%x: f64) -> f64 {
  %r = math.log2 %x : f64
  return %r : f64
}
func.func @sin_f64(%x: f64) -> f64 {
  %r = math.sin %x : f64
  return %r : f64
}
func.func @cos_f64(%x: f64) -> f64 {
  %r = math.cos %x : f64
  return %r : f64
}
func.func @tanh_f64(%x: f64) -> f64 {
  %r = math.tanh %x : f64
  return %r : f64
}
func.func @erf_f64(%x: f64) -> f64 {
  %r = math.erf %x : f64
  return %r : f64
}
func.func @pow_f64(%x: f64, %y: f64) -> f64 {
  %r = math.powf %x, %y : f64
  return %r : f64
}
)mlir";

/// The functions above, lowered as for NVPTX and compiled for the host.
class GPUMath {
public:
  GPUMath() {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    DialectRegistry registry;
    registry
        .insert<arith::ArithDialect, cf::ControlFlowDialect, func::FuncDialect,
                LLVM::LLVMDialect, math::MathDialect, scf::SCFDialect>();
    registerBuiltinDialectTranslation(registry);
    registerLLVMDialectTranslation(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = parseSourceString<ModuleOp>(kFunctions, &context);
    if (!module || failed(blockjit::lowerMathForTarget(
                       *module, blockjit::MathTarget::NVPTX)))
      return;
    PassManager pm(&context);
    pm.addPass(createSCFToControlFlowPass());
    pm.addPass(createArithToLLVMConversionPass());
    pm.addPass(createConvertMathToLLVMPass());
    pm.addPass(createConvertControlFlowToLLVMPass());
    pm.addPass(createConvertFuncToLLVMPass());
    pm.addPass(createReconcileUnrealizedCastsPass());
    if (failed(pm.run(*module)))
      return;
    auto created = ExecutionEngine::create(*module);
    if (!created) {
      llvm::consumeError(created.takeError());
      return;
    }
    engine = std::move(*created);
  }

  template <typename Fn> Fn *lookup(StringRef name) {
    if (!engine)
      return nullptr;
    auto address = engine->lookup(name);
    if (!address) {
      llvm::consumeError(address.takeError());
      return nullptr;
    }
    return reinterpret_cast<Fn *>(*address);
  }

private:
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::unique_ptr<ExecutionEngine> engine;
};

GPUMath &gpuMath() {
  // Never destroyed: the JIT's teardown at exit would run after LLVM's own
  // static state is gone.
  static GPUMath *math = new GPUMath;
  return *math;
}

/// Bit patterns of every kind: zeros, subnormals, normals of every
/// exponent, infinities and NaNs, with random signs and mantissas.
template <typename Bits> Bits randomBits(std::mt19937_64 &rng) {
  constexpr int width = sizeof(Bits) * 8;
  constexpr int mantissa = width == 32 ? 23 : 52;
  Bits bits = Bits(rng());
  switch (rng() % 8) {
  case 0: // subnormal or zero
    bits &= (Bits(1) << mantissa) - 1 | Bits(1) << (width - 1);
    if (rng() % 4 == 0)
      bits &= Bits(1) << (width - 1);
    break;
  case 1: // infinity or NaN
    bits |= ((Bits(1) << (width - 1 - mantissa)) - 1) << mantissa;
    if (rng() % 2)
      bits &= ~((Bits(1) << mantissa) - 1);
    break;
  case 2: // short mantissas: exact quotients and zero remainders
    bits &= ~((Bits(1) << (mantissa - 4)) - 1);
    break;
  default:
    break;
  }
  return bits;
}

template <typename T, typename Bits> void checkFmod(const char *name) {
  using Fn = T(T, T);
  Fn *fn = gpuMath().lookup<Fn>(name);
  ASSERT_NE(fn, nullptr) << "lowering or JIT failed";
  std::mt19937_64 rng(12);
  int failures = 0;
  for (int i = 0; i < 200000 && failures < 5; ++i) {
    T x = std::bit_cast<T>(randomBits<Bits>(rng));
    T y = std::bit_cast<T>(randomBits<Bits>(rng));
    if (i % 4 == 0) // nearby magnitudes
      y = x * T(0.37) + T(1e-3) * y;
    T want = std::fmod(x, y), got = fn(x, y);
    bool same = std::isnan(want)
                    ? std::isnan(got)
                    : std::bit_cast<Bits>(want) == std::bit_cast<Bits>(got);
    if (!same) {
      ++failures;
      ADD_FAILURE() << name << "(" << x << ", " << y << ") = " << got
                    << ", C gives " << want;
    }
  }
  // C's special cases.
  const T inf = INFINITY, nan = NAN;
  EXPECT_TRUE(std::isnan(fn(1, 0)));
  EXPECT_TRUE(std::isnan(fn(inf, 2)));
  EXPECT_TRUE(std::isnan(fn(nan, 2)));
  EXPECT_TRUE(std::isnan(fn(2, nan)));
  EXPECT_EQ(fn(T(-3), inf), T(-3));
  EXPECT_TRUE(std::signbit(fn(T(-0.0), T(1))));
  EXPECT_TRUE(std::signbit(fn(T(-4), T(2))));
  EXPECT_EQ(fn(T(1000), T(1e-40)), std::fmod(T(1000), T(1e-40)));
}

TEST(GPUMathTest, FmodF32MatchesCBitForBit) {
  checkFmod<float, uint32_t>("fmod_f32");
}

TEST(GPUMathTest, FmodF64MatchesCBitForBit) {
  checkFmod<double, uint64_t>("fmod_f64");
}

/// The largest error of `fn` in ulps of the long double reference (of the
/// result's double), over `inputs`; special values must match exactly.
double maxUlps(double (*fn)(double), long double (*ref)(long double),
               const std::vector<double> &inputs, std::string &worst) {
  double max = 0;
  for (double x : inputs) {
    long double want = ref(x);
    double got = fn(x);
    double rounded = double(want);
    if (!std::isfinite(rounded) || rounded == 0) {
      bool same = std::isnan(rounded) ? std::isnan(got) : got == rounded;
      // Results at the subnormal boundary may round either way.
      if (!same &&
          !(std::fabs(rounded) < 0x1p-1020 && std::fabs(got) <= 0x1p-1070))
        return (worst = "x = " + std::to_string(x)), INFINITY;
      continue;
    }
    double ulp = std::max(
        std::fabs(std::nextafter(rounded, INFINITY) - rounded), 0x1p-1074);
    double err = double(std::fabs((long double)got - want) / ulp);
    if (err > max) {
      max = err;
      char text[96];
      std::snprintf(text, sizeof text, "x = %.17g: %.17g", x, got);
      worst = text;
    }
  }
  return max;
}

std::vector<double> uniform(double lo, double hi, int n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(n);
  for (double &x : v)
    x = dist(rng);
  return v;
}

/// Positive doubles of every exponent, subnormals included.
std::vector<double> positive(int n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> v(n);
  for (double &x : v)
    x = std::bit_cast<double>(rng() & 0x7fefffffffffffffULL);
  return v;
}

// The bound the table in compiler/MathLowering.h states for f64 on NVPTX.
constexpr double kF64Ulps = 4;

TEST(GPUMathTest, ExpF64WithinStatedBound) {
  auto *fn = gpuMath().lookup<double(double)>("exp_f64");
  ASSERT_NE(fn, nullptr);
  std::vector<double> x = uniform(-745.2, 709.8, 200000, 1);
  for (double v : uniform(-1, 1, 20000, 2))
    x.push_back(v);
  for (double v : {0.0, -0.0, 1e-300, -1e-300, 709.78, 709.79, -745.13, -745.14,
                   1e308, -1e308, double(INFINITY), -double(INFINITY),
                   double(NAN), -708.5, -720.0, -740.0})
    x.push_back(v);
  std::string worst;
  double ulps = maxUlps(
      fn, [](long double v) { return expl(v); }, x, worst);
  EXPECT_LE(ulps, kF64Ulps) << worst;
  std::printf("f64 exp on NVPTX (host run): max %.2f ulp (%s)\n", ulps,
              worst.c_str());
}

TEST(GPUMathTest, Exp2F64WithinStatedBound) {
  auto *fn = gpuMath().lookup<double(double)>("exp2_f64");
  ASSERT_NE(fn, nullptr);
  std::vector<double> x = uniform(-1075, 1024, 200000, 3);
  for (double v : {0.0, 1.0, -1074.0, -1075.0, -1076.0, 1023.0, 1023.999,
                   1024.0, double(INFINITY), -double(INFINITY), double(NAN)})
    x.push_back(v);
  std::string worst;
  double ulps = maxUlps(
      fn, [](long double v) { return exp2l(v); }, x, worst);
  EXPECT_LE(ulps, kF64Ulps) << worst;
  std::printf("f64 exp2 on NVPTX (host run): max %.2f ulp (%s)\n", ulps,
              worst.c_str());
}

TEST(GPUMathTest, LogF64WithinStatedBound) {
  auto *fn = gpuMath().lookup<double(double)>("log_f64");
  auto *fn2 = gpuMath().lookup<double(double)>("log2_f64");
  ASSERT_NE(fn, nullptr);
  ASSERT_NE(fn2, nullptr);
  std::vector<double> x = positive(200000, 4);
  for (double v : uniform(0.5, 2, 50000, 5))
    x.push_back(v);
  for (double v : {0.0, -0.0, -1.0, 1.0, 2.0, 0x1p-1074, 0x1p-1022, 1e308,
                   double(INFINITY), -double(INFINITY), double(NAN),
                   std::nextafter(1.0, 2.0), std::nextafter(1.0, 0.0)})
    x.push_back(v);
  std::string worst;
  double ulps = maxUlps(
      fn, [](long double v) { return logl(v); }, x, worst);
  EXPECT_LE(ulps, kF64Ulps) << worst;
  std::printf("f64 log on NVPTX (host run): max %.2f ulp (%s)\n", ulps,
              worst.c_str());
  ulps = maxUlps(
      fn2, [](long double v) { return log2l(v); }, x, worst);
  EXPECT_LE(ulps, kF64Ulps) << worst;
  std::printf("f64 log2 on NVPTX (host run): max %.2f ulp (%s)\n", ulps,
              worst.c_str());
}

/// maxUlps of a two-argument function over pairs.
double maxUlps2(double (*fn)(double, double),
                long double (*ref)(long double, long double),
                const std::vector<std::pair<double, double>> &inputs,
                std::string &worst) {
  double max = 0;
  for (auto [x, y] : inputs) {
    long double want = ref(x, y);
    double got = fn(x, y);
    double rounded = double(want);
    char text[128];
    std::snprintf(text, sizeof text, "x = %.17g, y = %.17g: %.17g", x, y, got);
    if (!std::isfinite(rounded) || rounded == 0) {
      bool same =
          std::isnan(rounded)
              ? std::isnan(got)
              : got == rounded && std::signbit(got) == std::signbit(rounded);
      if (!same &&
          !(std::fabs(rounded) < 0x1p-1020 && std::fabs(got) <= 0x1p-1070) &&
          !(std::isinf(rounded) && std::fabs(got) == DBL_MAX))
        return (worst = text), INFINITY;
      continue;
    }
    double ulp = std::max(
        std::fabs(std::nextafter(rounded, INFINITY) - rounded), 0x1p-1074);
    double err = double(std::fabs((long double)got - want) / ulp);
    if (err > max) {
      max = err;
      worst = text;
    }
  }
  return max;
}

/// The specials every unary function meets.
void addSpecials(std::vector<double> &x) {
  for (double v : {0.0, -0.0, 0x1p-1074, -0x1p-1074, 0x1p-1022, 1e-300, -1e-300,
                   1e-8, -1e-8, 1.0, -1.0, 1e300, -1e300, DBL_MAX, -DBL_MAX,
                   double(INFINITY), -double(INFINITY), double(NAN)})
    x.push_back(v);
}

/// Both signs of doubles of every exponent below 2^max (subnormals too).
std::vector<double> everyExponent(int n, int maxExponent, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> v(n);
  for (double &x : v) {
    x = std::ldexp(1 + double(rng() >> 12) * 0x1p-52,
                   int(rng() % unsigned(maxExponent + 1075)) - 1075);
    if (rng() % 2)
      x = -x;
  }
  return v;
}

// Bounds of the table in compiler/MathLowering.h.
constexpr double kSinCosUlps = 2, kTanhUlps = 4, kErfUlps = 4, kPowUlps = 4;

TEST(GPUMathTest, SinCosF64WithinStatedBound) {
  auto *sinFn = gpuMath().lookup<double(double)>("sin_f64");
  auto *cosFn = gpuMath().lookup<double(double)>("cos_f64");
  ASSERT_NE(sinFn, nullptr);
  ASSERT_NE(cosFn, nullptr);
  std::vector<double> x = uniform(-10, 10, 100000, 6);
  for (double v : uniform(-1e9, 1e9, 100000, 7))
    x.push_back(v);
  for (double v : everyExponent(200000, 1024, 8))
    x.push_back(v);
  // Near multiples of pi/2, where the reduction cancels most.
  std::mt19937_64 rng(9);
  for (int i = 0; i < 50000; ++i) {
    long double k = (long double)(rng() % (uint64_t(1) << (1 + i % 62)));
    double near = double(k * 1.5707963267948966192313216916397514L);
    x.push_back(std::nextafter(near, i % 2 ? INFINITY : 0.0));
    x.push_back(near);
  }
  // The double nearest a multiple of pi/2 (Kahan, Muller), 2^50 and 2^52
  // around the switch to Payne-Hanek.
  for (double v :
       {6381956970095103.0 * 0x1p797, 0x1p50, std::nextafter(0x1p50, 0.0),
        0x1p52, 1e22, 1e300, 1e9, 0x1p30, 1.5707963267948966, 3.141592653589793,
        4.71238898038469, 6.283185307179586, 355.0, 103993.0,
        0x1.921fb54442d18p+29})
    x.push_back(v);
  addSpecials(x);
  std::string worst;
  double ulps = maxUlps(
      sinFn, [](long double v) { return sinl(v); }, x, worst);
  EXPECT_LE(ulps, kSinCosUlps) << worst;
  std::printf("f64 sin on NVPTX (host run): max %.2f ulp (%s)\n", ulps,
              worst.c_str());
  ulps = maxUlps(
      cosFn, [](long double v) { return cosl(v); }, x, worst);
  EXPECT_LE(ulps, kSinCosUlps) << worst;
  std::printf("f64 cos on NVPTX (host run): max %.2f ulp (%s)\n", ulps,
              worst.c_str());
  EXPECT_TRUE(std::signbit(sinFn(-0.0)));
  EXPECT_EQ(cosFn(-0.0), 1.0);
  EXPECT_TRUE(std::isnan(sinFn(INFINITY)));
  EXPECT_TRUE(std::isnan(cosFn(-INFINITY)));
}

TEST(GPUMathTest, TanhF64WithinStatedBound) {
  auto *fn = gpuMath().lookup<double(double)>("tanh_f64");
  ASSERT_NE(fn, nullptr);
  std::vector<double> x = uniform(-25, 25, 200000, 11);
  for (double v : uniform(-1, 1, 100000, 12))
    x.push_back(v);
  for (double v : everyExponent(100000, 10, 13))
    x.push_back(v);
  for (double v : {0.34657359027997264, 0.35, 19.0, 21.9, 22.0, 22.1, 710.0})
    x.push_back(v);
  addSpecials(x);
  std::string worst;
  double ulps = maxUlps(
      fn, [](long double v) { return tanhl(v); }, x, worst);
  EXPECT_LE(ulps, kTanhUlps) << worst;
  std::printf("f64 tanh on NVPTX (host run): max %.2f ulp (%s)\n", ulps,
              worst.c_str());
  EXPECT_TRUE(std::signbit(fn(-0.0)));
  EXPECT_EQ(fn(-INFINITY), -1.0);
}

TEST(GPUMathTest, ErfF64WithinStatedBound) {
  auto *fn = gpuMath().lookup<double(double)>("erf_f64");
  ASSERT_NE(fn, nullptr);
  std::vector<double> x = uniform(-7, 7, 200000, 14);
  for (double v : uniform(-1.1, 1.1, 100000, 15))
    x.push_back(v);
  for (double v : everyExponent(100000, 4, 16))
    x.push_back(v);
  for (double v : {0.99999999999999989, 1.0, 2.25, 2.2499999999999996, 5.9,
                   5.99999, 6.0, 27.0})
    x.push_back(v);
  addSpecials(x);
  std::string worst;
  double ulps = maxUlps(
      fn, [](long double v) { return erfl(v); }, x, worst);
  EXPECT_LE(ulps, kErfUlps) << worst;
  std::printf("f64 erf on NVPTX (host run): max %.2f ulp (%s)\n", ulps,
              worst.c_str());
  EXPECT_TRUE(std::signbit(fn(-0.0)));
  EXPECT_EQ(fn(-INFINITY), -1.0);
}

TEST(GPUMathTest, PowF64WithinStatedBound) {
  auto *fn = gpuMath().lookup<double(double, double)>("pow_f64");
  ASSERT_NE(fn, nullptr);
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<std::pair<double, double>> xy;
  // Bases of every exponent, exponents that keep the result in range
  // (subnormal and overflowing results included).
  for (double x : positive(150000, 18)) {
    double l = std::log2(x);
    double y = (unit(rng) * 2200 - 1100) / (l == 0 ? 1 : std::fabs(l));
    xy.push_back({x, y});
  }
  // Bases near 1 with large exponents, small integers, negative bases.
  for (int i = 0; i < 50000; ++i)
    xy.push_back({1 + (unit(rng) - 0.5) * 1e-3, (unit(rng) - 0.5) * 1e6});
  for (int i = 0; i < 50000; ++i) {
    double x = (unit(rng) - 0.5) * 100;
    xy.push_back({x, double(int(rng() % 301) - 150)});
  }
  for (int i = 0; i < 50000; ++i)
    xy.push_back({unit(rng) * 10, (unit(rng) - 0.5) * 40});
  // C's special cases.
  const double inf = INFINITY, nan = NAN;
  for (double x : {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, inf, -inf, nan,
                   0x1p-1074, -3.0})
    for (double y : {0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 0.5, -0.5, inf,
                     -inf, nan, 1e300, -1e300, 1025.0, -1080.0})
      xy.push_back({x, y});
  std::string worst;
  double ulps = maxUlps2(
      fn, [](long double x, long double y) { return powl(x, y); }, xy, worst);
  EXPECT_LE(ulps, kPowUlps) << worst;
  std::printf("f64 pow on NVPTX (host run): max %.2f ulp (%s)\n", ulps,
              worst.c_str());
  EXPECT_EQ(fn(nan, 0.0), 1.0);
  EXPECT_EQ(fn(1.0, nan), 1.0);
  EXPECT_EQ(fn(-1.0, inf), 1.0);
  EXPECT_TRUE(std::isnan(fn(-2.0, 0.5)));
  EXPECT_EQ(fn(-0.0, -1.0), -inf);
  EXPECT_EQ(fn(-inf, 3.0), -inf);
  EXPECT_TRUE(std::signbit(fn(-0.0, 3.0)));
}

} // namespace
