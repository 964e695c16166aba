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

} // namespace
