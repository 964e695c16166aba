//===- DSLOpsChecks.h - DSL operations checked on any target ----*- C++ -*-===//
//
// Numeric checks of the DSL operations of issue 12 (compound assignment,
// reductions without an axis and with keep_dims, the math functions on
// blocks and scalars, integer division and remainder, cdiv), written once
// and run on a target: tests/unit/DSLOpsTest.cpp runs them on the CPU,
// tests/gpu/DSLOpsGPUTest.cpp on CUDA. Every result is compared with a plain
// C++ reference (double precision for the math), on irregular shapes with
// masked tails and with -inf, NaN and large values among the inputs.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_TESTS_COMMON_DSLOPSCHECKS_H
#define BLOCKJIT_TESTS_COMMON_DSLOPSCHECKS_H

#include "frontend/blockjit.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/Executor.h"
#include "runtime/Launch.h"

#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace blockjit::dslops {

//===----------------------------------------------------------------------===//
// Running a kernel on a target
//===----------------------------------------------------------------------===//

/// Device buffers of one launch: inputs copied in, outputs read back.
class Buffers {
public:
  explicit Buffers(TargetKind target) : target(target) {}

  template <typename T> Arg in(const std::vector<T> &host) {
    auto buffer = DeviceBuffer::copyOf(target, llvm::ArrayRef<T>(host));
    return keep(std::move(buffer), blockjit::DTypeOf<T>::value);
  }
  template <typename T> Arg out(size_t count) {
    // Outputs start as -12345, a value no check expects, so an element
    // the kernel did not write fails.
    std::vector<T> poison(count, T(-12345.0f));
    return in(poison);
  }
  /// Copies buffer `index` (in creation order) back to `host`.
  template <typename T> void read(size_t index, std::vector<T> &host) {
    ASSERT_LT(index, buffers.size());
    ASSERT_TRUE(buffers[index].has_value());
    if (llvm::Error e = buffers[index]->download(host))
      FAIL() << llvm::toString(std::move(e));
  }

  TargetKind target;

private:
  Arg keep(llvm::Expected<DeviceBuffer> buffer, DType dtype) {
    if (!buffer) {
      ADD_FAILURE() << llvm::toString(buffer.takeError());
      buffers.emplace_back();
      return Arg(static_cast<float *>(nullptr));
    }
    buffers.emplace_back(std::move(*buffer));
    return buffers.back()->arg(dtype);
  }
  std::vector<std::optional<DeviceBuffer>> buffers;
};
/// Launches and waits; "" on success, else the error.
inline std::string runKernel(const KernelDef &kernel, TargetKind target,
                             Grid grid, std::vector<Arg> args) {
  LaunchOptions options;
  options.grid = grid;
  options.target = target;
  if (llvm::Error e = launch(kernel, options, args))
    return llvm::toString(std::move(e));
  if (llvm::Error e = executorFor(target).synchronize(0))
    return llvm::toString(std::move(e));
  return "";
}

/// Values that break naive code: infinities, NaN, the largest and smallest
/// floats, signed zeros, then `count` pseudo-random values in [lo, hi].
inline std::vector<float> mathInputs(size_t count, float lo, float hi,
                                     unsigned seed) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x = {inf,     -inf,   std::nanf(""), 0.0f,    -0.0f,
                          3.0e38f, -3e38f, 1e-30f,        -1e-30f, 1.0f,
                          -1.0f,   100.0f, -100.0f,       1e4f,    -1e4f,
                          88.0f,   -88.0f, 0.5f,          -0.5f,   2.0f};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  while (x.size() < count)
    x.push_back(dist(rng));
  x.resize(count);
  return x;
}

/// Whether `got` matches the double reference within |got - ref| <= abs +
/// rel * |ref|; NaN must give NaN, infinities the same infinity.
inline bool close(float got, double ref, double abs, double rel) {
  if (std::isnan(ref))
    return std::isnan(got);
  if (std::isinf(ref) || std::isinf(got))
    return double(got) == ref || (std::fabs(ref) > 3.4e38 && std::isinf(got) &&
                                  std::signbit(got) == std::signbit(ref));
  return std::fabs(double(got) - ref) <= abs + rel * std::fabs(ref);
}

//===----------------------------------------------------------------------===//
// 1. Compound assignment
//===----------------------------------------------------------------------===//

inline void compound_kernel(Ptr<float> x, Ptr<float> y, Ptr<int32_t> k,
                            Ptr<float> out, Ptr<int32_t> outInt,
                            Ptr<float> outPromoted, Int n, Constexpr BLOCK) {
  Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
  Tensor mask = offsets < n;
  Tensor a = load(x + offsets, mask, 0.0);
  Tensor b = load(y + offsets, mask, 1.0);
  Tensor acc = a;
  acc += b;   // a + b
  acc *= 2;   // 2(a + b)
  acc -= a;   // a + 2b
  acc /= b;   // (a + 2b) / b
  acc += 0.5; // a C++ double keeps f32
  store(out + offsets, acc, mask);

  Tensor i = load(k + offsets, mask, 0);
  Tensor j = i;
  j *= 3;
  j -= 7;
  j += i; // 4i - 7, i32
  j /= 2; // truncated toward zero
  store(outInt + offsets, j, mask);

  Tensor p = load(k + offsets, mask, 0);
  p += 0.25f; // promotes to f32 like i + 0.25f
  p *= b;     // f32 * f32
  store(outPromoted + offsets, p, mask);
}

inline const KernelDef &compoundKernel() {
  static auto kernel =
      jit("dslops_compound", compound_kernel,
          {"x", "y", "k", "out", "outInt", "outPromoted", "n", "BLOCK"});
  return *kernel;
}

inline void checkCompound(TargetKind target) {
  const int n = 4097; // 2^12 + 1: one element in the last, masked block
  std::vector<float> x = mathInputs(n, -1e3f, 1e3f, 1);
  std::vector<float> y = mathInputs(n, 0.5f, 50.0f, 2);
  std::vector<int32_t> k(n);
  for (int i = 0; i < n; ++i)
    k[i] = (i * 7919) % 20001 - 10000;
  Buffers buffers(target);
  std::vector<Arg> args = {buffers.in(x),
                           buffers.in(y),
                           buffers.in(k),
                           buffers.out<float>(n),
                           buffers.out<int32_t>(n),
                           buffers.out<float>(n),
                           int32_t(n),
                           Constexpr(256)};
  ASSERT_EQ(runKernel(compoundKernel(), target, {(n + 255) / 256}, args), "");
  std::vector<float> out(n), promoted(n);
  std::vector<int32_t> outInt(n);
  buffers.read(3, out);
  buffers.read(4, outInt);
  buffers.read(5, promoted);
  for (int i = 0; i < n; ++i) {
    float acc = x[i];
    acc += y[i];
    acc *= 2.0f;
    acc -= x[i];
    acc /= y[i];
    acc += 0.5f;
    // Every step rounds as in C++ (the multiply by 2 is exact, so a
    // contraction into fma changes nothing); 1e-6 leaves room for a
    // division that is not correctly rounded.
    ASSERT_TRUE(close(out[i], acc, 0, 1e-6))
        << i << ": " << out[i] << " vs " << acc;
    int32_t j = k[i] * 3 - 7 + k[i];
    ASSERT_EQ(outInt[i], j / 2) << i;
    float p = (float(k[i]) + 0.25f) * y[i];
    ASSERT_TRUE(close(promoted[i], p, 0, 0)) << i << ": " << promoted[i];
  }
}

//===----------------------------------------------------------------------===//
// 2. Reductions without an axis, and with keep_dims
//===----------------------------------------------------------------------===//

inline void reduce_all_kernel(Ptr<float> x, Ptr<float> finite, Ptr<float> sums,
                              Ptr<float> maxes, Ptr<float> mins,
                              Ptr<int32_t> counts, Ptr<float> centered,
                              Int rows, Int cols, Constexpr BR, Constexpr BC) {
  Int pr = program_id(0), pc = program_id(1);
  Tensor r = (pr * BR + arange(0, BR)).expand_dims(1);
  Tensor c = (pc * BC + arange(0, BC)).expand_dims(0);
  Tensor mask = (r < rows) & (c < cols);
  Tensor offsets = r * cols + c;
  Int tile = pr * num_programs(1) + pc;
  store(sums + tile, sum(load(x + offsets, mask, 0.0)));
  store(maxes + tile, max(load(x + offsets, mask, -INFINITY)));
  store(mins + tile, min(load(x + offsets, mask, INFINITY)));
  // Sum of booleans: the count of positive elements, in i32.
  store(counts + tile, sum(load(x + offsets, mask, 0.0) > 0));
  // keep_dims: [BR, 1] and [1, BC] results broadcast back over the tile.
  Tensor low = load(finite + offsets, mask, -INFINITY);
  Tensor high = load(finite + offsets, mask, INFINITY);
  Tensor zero = load(finite + offsets, mask, 0.0);
  Tensor result =
      zero - max(low, 1, true) + sum(zero, 0, true) - min(high, -1, true);
  store(centered + offsets, result, mask);
}

inline const KernelDef &reduceAllKernel() {
  static auto kernel = jit("dslops_reduce_all", reduce_all_kernel,
                           {"x", "finite", "sums", "maxes", "mins", "counts",
                            "centered", "rows", "cols", "BR", "BC"});
  return *kernel;
}

inline void checkReductions(TargetKind target) {
  const int rows = 1823, cols = 781, br = 32, bc = 64;
  const int gr = (rows + br - 1) / br, gc = (cols + bc - 1) / bc;
  std::vector<float> finite(size_t(rows) * cols);
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> dist(-64, 64);
  // Multiples of 1/4 in a small range: every partial sum is exact, so any
  // summation order gives the same result.
  for (float &v : finite)
    v = float(dist(rng)) * 0.25f;
  std::vector<float> x = finite;
  // Specials in chosen tiles: a NaN (max, min and sum are NaN), a -inf (sum
  // and min -inf), +inf and -inf together (sum NaN), a large value.
  x[size_t(5) * cols + 7] = std::nanf("");
  x[size_t(40) * cols + 100] = -INFINITY;
  x[size_t(1800) * cols + 700] = INFINITY;
  x[size_t(1801) * cols + 701] = -INFINITY;
  x[size_t(900) * cols + 780] = 3e38f;
  Buffers buffers(target);
  size_t tiles = size_t(gr) * gc;
  std::vector<Arg> args = {buffers.in(x),
                           buffers.in(finite),
                           buffers.out<float>(tiles),
                           buffers.out<float>(tiles),
                           buffers.out<float>(tiles),
                           buffers.out<int32_t>(tiles),
                           buffers.out<float>(x.size()),
                           int32_t(rows),
                           int32_t(cols),
                           Constexpr(br),
                           Constexpr(bc)};
  ASSERT_EQ(runKernel(reduceAllKernel(), target, {gr, gc}, args), "");
  std::vector<float> sums(tiles), maxes(tiles), mins(tiles), centered(x.size());
  std::vector<int32_t> counts(tiles);
  buffers.read(2, sums);
  buffers.read(3, maxes);
  buffers.read(4, mins);
  buffers.read(5, counts);
  buffers.read(6, centered);
  for (int tr = 0; tr < gr; ++tr)
    for (int tc = 0; tc < gc; ++tc) {
      int r0 = tr * br, r1 = std::min(rows, r0 + br);
      int c0 = tc * bc, c1 = std::min(cols, c0 + bc);
      double s = 0, mx = -INFINITY, mn = INFINITY;
      bool nan = false;
      int count = 0;
      for (int i = r0; i < r1; ++i)
        for (int j = c0; j < c1; ++j) {
          float v = x[size_t(i) * cols + j];
          nan |= std::isnan(v);
          s += v;
          mx = std::max<double>(mx, v);
          mn = std::min<double>(mn, v);
          count += v > 0;
        }
      if (nan)
        mx = mn = NAN;
      size_t t = size_t(tr) * gc + tc;
      ASSERT_TRUE(close(sums[t], s, 0, 0))
          << "tile " << tr << "," << tc << ": " << sums[t] << " vs " << s;
      ASSERT_TRUE(close(maxes[t], mx, 0, 0))
          << "tile " << tr << "," << tc << ": " << maxes[t] << " vs " << mx;
      ASSERT_TRUE(close(mins[t], mn, 0, 0))
          << "tile " << tr << "," << tc << ": " << mins[t] << " vs " << mn;
      ASSERT_EQ(counts[t], count) << "tile " << tr << "," << tc;

      std::vector<double> rowMax(r1 - r0, -INFINITY), rowMin(r1 - r0, INFINITY),
          colSum(c1 - c0, 0.0);
      for (int i = r0; i < r1; ++i)
        for (int j = c0; j < c1; ++j) {
          double v = finite[size_t(i) * cols + j];
          rowMax[i - r0] = std::max(rowMax[i - r0], v);
          rowMin[i - r0] = std::min(rowMin[i - r0], v);
          colSum[j - c0] += v;
        }
      for (int i = r0; i < r1; ++i)
        for (int j = c0; j < c1; ++j) {
          double expect = finite[size_t(i) * cols + j] - rowMax[i - r0] +
                          colSum[j - c0] - rowMin[i - r0];
          ASSERT_EQ(centered[size_t(i) * cols + j], float(expect))
              << i << "," << j;
        }
    }
}

//===----------------------------------------------------------------------===//
// 3. Math on blocks and on scalars
//===----------------------------------------------------------------------===//

enum MathOp : int64_t {
  Sigmoid,
  Tanh,
  Erf,
  Sin,
  Cos,
  Log2,
  Floor,
  Ceil,
  Pow,
  Fma,
  Exp,
  Log,
  Exp2,
  NumMathOps
};

inline const char *mathOpName(int64_t op) {
  static const char *names[] = {"sigmoid", "tanh",  "erf",  "sin", "cos",
                                "log2",    "floor", "ceil", "pow", "fma",
                                "exp",     "log",   "exp2"};
  return names[op];
}

/// The op on traced values (blocks or scalars alike).
inline Tensor applyMath(int64_t op, const Tensor &x, const Tensor &y,
                        const Tensor &z) {
  switch (op) {
  case Sigmoid:
    return sigmoid(x);
  case Tanh:
    return tanh(x);
  case Erf:
    return erf(x);
  case Sin:
    return sin(x);
  case Cos:
    return cos(x);
  case Log2:
    return log2(x);
  case Floor:
    return floor(x);
  case Ceil:
    return ceil(x);
  case Pow:
    return pow(x, y);
  case Fma:
    return fma(x, y, z);
  case Exp:
    return exp(x);
  case Exp2:
    return exp2(x);
  default:
    return log(x);
  }
}

/// The double reference of the op.
inline double referenceMath(int64_t op, float xf, float yf, float zf) {
  double x = xf, y = yf;
  switch (op) {
  case Sigmoid:
    return 1.0 / (1.0 + std::exp(-x));
  case Tanh:
    return std::tanh(x);
  case Erf:
    return std::erf(x);
  case Sin:
    return std::sin(x);
  case Cos:
    return std::cos(x);
  case Log2:
    return std::log2(x);
  case Floor:
    return std::floor(x);
  case Ceil:
    return std::ceil(x);
  case Pow:
    return std::pow(x, y);
  case Fma:
    return std::fma(xf, yf, zf); // correctly rounded in float
  case Exp:
    return std::exp(x);
  case Exp2:
    return std::exp2(x);
  default:
    return std::log(x);
  }
}

/// The bound of each op's error (see the table in compiler/MathLowering.h):
/// |got - ref| <= abs + rel * |ref| for inputs with |x| <= maxArg (beyond
/// it, only that the result is NaN exactly when the reference is, and for
/// sin/cos within [-1, 1]).
struct MathBound {
  double abs, rel, maxArg;
  /// Added to abs per unit of |x| (range reduction of sin and cos).
  double absPerArg = 0;
  /// Added to rel per unit of |ln(ref)|: exp2(t) computed from a rounded t
  /// (exp, sigmoid, pow) is off by a relative error growing with |t|.
  double relPerLog = 0;
};
inline MathBound mathBound(int64_t op, TargetKind target) {
  bool gpu = target == TargetKind::CUDA;
  // The polynomials are the same on both targets, but NVPTX contracts
  // multiplies and adds into fma where the host may not: a little slack.
  double slack = gpu ? 2 : 1;
  switch (op) {
  case Sigmoid:
    return {1e-7, 4e-7 * slack, INFINITY, 0, gpu ? 1e-7 : 0};
  case Tanh:
  case Erf:
  case Log2:
  case Log:
    return {1e-7, 4e-7 * slack, INFINITY};
  case Sin:
  case Cos:
    return {2e-7 * slack, 0, 1e4, 1e-7};
  case Floor:
  case Ceil:
  case Fma:
    return {0, 0, INFINITY};
  case Pow:
    return {0, 4e-6, INFINITY, 0, 1e-7};
  case Exp:
    return {0, 4e-7 * slack, INFINITY, 0, gpu ? 1e-7 : 0};
  case Exp2:
    return {0, 4e-7 * slack, INFINITY};
  }
  return {0, 0, INFINITY};
}

inline void math_block_kernel(Ptr<float> x, Ptr<float> y, Ptr<float> z,
                              Ptr<float> out, Int n, Constexpr OP,
                              Constexpr BLOCK) {
  Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
  Tensor mask = offsets < n;
  Tensor r =
      applyMath(OP, load(x + offsets, mask, 1.0), load(y + offsets, mask, 1.0),
                load(z + offsets, mask, 1.0));
  store(out + offsets, r, mask);
}

/// The same for any element type (f16, bf16): compiled, not run.
inline void math_block_any_kernel(Ptr<> x, Ptr<> y, Ptr<> z, Ptr<> out, Int n,
                                  Constexpr OP, Constexpr BLOCK) {
  Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
  Tensor mask = offsets < n;
  Tensor r =
      applyMath(OP, load(x + offsets, mask, 1.0), load(y + offsets, mask, 1.0),
                load(z + offsets, mask, 1.0));
  store(out + offsets, r, mask);
}

inline const KernelDef &mathBlockAnyKernel() {
  static auto kernel = jit("dslops_math_block_any", math_block_any_kernel,
                           {"x", "y", "z", "out", "n", "OP", "BLOCK"});
  return *kernel;
}

/// One element per program, as scalars: the scalar lowering of the op.
inline void math_scalar_kernel(Ptr<float> x, Ptr<float> y, Ptr<float> z,
                               Ptr<float> out, Constexpr OP) {
  Int i = program_id(0);
  store(out + i, applyMath(OP, load(x + i), load(y + i), load(z + i)));
}

inline const KernelDef &mathBlockKernel() {
  static auto kernel = jit("dslops_math_block", math_block_kernel,
                           {"x", "y", "z", "out", "n", "OP", "BLOCK"});
  return *kernel;
}
inline const KernelDef &mathScalarKernel() {
  static auto kernel = jit("dslops_math_scalar", math_scalar_kernel,
                           {"x", "y", "z", "out", "OP"});
  return *kernel;
}

/// Inputs of one op: x over the op's interesting range plus specials; y for
/// pow (exponents, some integral for negative bases) and fma.
inline void mathInputsFor(int64_t op, int n, std::vector<float> &x,
                          std::vector<float> &y, std::vector<float> &z) {
  float range = op == Sin || op == Cos ? 100.0f : op == Pow ? 50.0f : 12.0f;
  x = mathInputs(n, -range, range, 10 + unsigned(op));
  y = mathInputs(n, -4.0f, 4.0f, 20 + unsigned(op));
  z = mathInputs(n, -1e3f, 1e3f, 30 + unsigned(op));
  if (op == Pow)
    for (int i = 0; i < n; ++i) {
      if (i % 3 == 0)
        y[i] = std::round(y[i]); // negative bases with integral exponents
      else if (i > 40)
        x[i] = std::fabs(x[i]);
    }
}

inline void checkMath(TargetKind target, bool scalar) {
  const int n = scalar ? 257 : 4097; // 2^k + 1
  for (int64_t op = 0; op < NumMathOps; ++op) {
    std::vector<float> x, y, z;
    mathInputsFor(op, n, x, y, z);
    Buffers buffers(target);
    Arg xa = buffers.in(x), ya = buffers.in(y), za = buffers.in(z),
        outa = buffers.out<float>(n);
    std::string error =
        scalar ? runKernel(mathScalarKernel(), target, {n},
                           {xa, ya, za, outa, Constexpr(op)})
               : runKernel(mathBlockKernel(), target, {(n + 127) / 128},
                           {xa, ya, za, outa, int32_t(n), Constexpr(op),
                            Constexpr(128)});
    ASSERT_EQ(error, "") << mathOpName(op);
    std::vector<float> out(n);
    buffers.read(3, out);
    MathBound bound = mathBound(op, target);
    double baseAbs = bound.abs, baseRel = bound.rel;
    double worst = 0;
    for (int i = 0; i < n; ++i) {
      double ref = referenceMath(op, x[i], y[i], z[i]);
      // Beyond the range of floats the reference is what a float can hold
      // (0 after underflow, an infinity after overflow).
      if (std::fabs(ref) < 1.2e-38 || std::fabs(ref) > 3.4e38)
        ref = double(float(ref));
      bool inRange = std::fabs(x[i]) <= bound.maxArg;
      bound.rel =
          baseRel + (bound.relPerLog != 0 && ref != 0 && std::isfinite(ref)
                         ? bound.relPerLog * std::fabs(std::log(std::fabs(ref)))
                         : 0);
      bound.abs = baseAbs + (bound.absPerArg != 0 && inRange
                                 ? bound.absPerArg * std::fabs(x[i])
                                 : 0);
      if (!inRange || std::isnan(ref)) {
        ASSERT_EQ(std::isnan(out[i]), std::isnan(ref))
            << mathOpName(op) << "(" << x[i] << ", " << y[i] << ") = " << out[i]
            << ", expected " << ref;
        if ((op == Sin || op == Cos) && !std::isnan(ref))
          ASSERT_LE(std::fabs(out[i]), 1.0f) << mathOpName(op) << "(" << x[i];
        continue;
      }
      double err = std::fabs(double(out[i]) - ref) /
                   (std::max(bound.abs, 1.2e-38) + bound.rel * std::fabs(ref));
      if (std::isfinite(err))
        worst = std::max(worst, err);
      ASSERT_TRUE(close(out[i], ref, std::max(bound.abs, 1.2e-38), bound.rel))
          << mathOpName(op) << (scalar ? " (scalar)" : " (block)") << "("
          << x[i] << ", " << y[i] << ", " << z[i] << ") = " << out[i]
          << ", expected " << ref;
    }
    if (getenv("BLOCKJIT_DSLOPS_VERBOSE"))
      printf("%s %s: worst error %.3g of the bound\n", mathOpName(op),
             scalar ? "scalar" : "block", worst);
  }
}

/// The math functions on f16 and bf16 blocks (computed in f32 and rounded):
/// within 2 ulp of the type (f16: 2^-10 relative, bf16: 2^-7) of the double
/// reference rounded to the type.
template <typename T> void checkMathHalf(TargetKind target) {
  const bool bf16 = std::is_same_v<T, bfloat16>;
  const double ulp = bf16 ? 1.0 / 128 : 1.0 / 1024;
  const int n = 1025; // 2^10 + 1
  for (int64_t op = 0; op < NumMathOps; ++op) {
    std::vector<float> xf, yf, zf;
    mathInputsFor(op, n, xf, yf, zf);
    std::vector<T> x, y, z;
    for (int i = 0; i < n; ++i) {
      x.push_back(T(xf[i]));
      y.push_back(T(yf[i]));
      z.push_back(T(zf[i]));
    }
    Buffers buffers(target);
    Arg xa = buffers.in(x), ya = buffers.in(y), za = buffers.in(z),
        outa = buffers.out<T>(n);
    ASSERT_EQ(runKernel(mathBlockAnyKernel(), target, {(n + 127) / 128},
                        {xa, ya, za, outa, int32_t(n), Constexpr(op),
                         Constexpr(128)}),
              "")
        << mathOpName(op);
    std::vector<T> out(n);
    buffers.read(3, out);
    for (int i = 0; i < n; ++i) {
      float xv = float(x[i]), yv = float(y[i]), zv = float(z[i]);
      double exact = referenceMath(op, xv, yv, zv);
      if (op == Fma) // rounded once, from the exact product and sum
        exact = double(xv) * yv + zv;
      double ref = double(float(T(float(exact))));
      float got = float(out[i]);
      if (std::isnan(exact) || std::isinf(ref)) {
        ASSERT_TRUE(close(got, ref, 0, 0))
            << mathOpName(op) << "(" << xv << ", " << yv << ") = " << got
            << ", expected " << ref;
        continue;
      }
      // sin and cos reduce large arguments with an f32 error growing with
      // |x| (see the f32 bounds); pow's exponent error grows with |ln|.
      double abs =
          ulp * 1e-3 + ((op == Sin || op == Cos) && std::fabs(xv) <= 1e4
                            ? 1e-7 * std::fabs(xv)
                            : 0);
      if ((op == Sin || op == Cos) && std::fabs(xv) > 1e4)
        continue;
      ASSERT_TRUE(close(got, ref, std::max(abs, 6.2e-5), 2 * ulp))
          << mathOpName(op) << " " << (bf16 ? "bf16" : "f16") << "(" << xv
          << ", " << yv << ", " << zv << ") = " << got << ", expected " << ref;
    }
  }
}

//===----------------------------------------------------------------------===//
// 4. Integer division, remainder, floordiv, cdiv
//===----------------------------------------------------------------------===//

inline void int_div_kernel(Ptr<int32_t> a, Ptr<int32_t> b, Ptr<int32_t> quot,
                           Ptr<int32_t> rem, Ptr<int32_t> fdiv,
                           Ptr<int32_t> cdivs, Ptr<int32_t> scalars, Int n,
                           Constexpr BLOCK) {
  Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
  Tensor mask = offsets < n;
  // Masked lanes divide by the `other` 0: defined, and never stored.
  Tensor x = load(a + offsets, mask, 0);
  Tensor y = load(b + offsets, mask, 0);
  store(quot + offsets, x / y, mask);
  store(rem + offsets, x % y, mask);
  store(fdiv + offsets, floordiv(x, y), mask);
  store(cdivs + offsets, cdiv(x, y), mask);
  // Scalars: the number of BLOCK-sized blocks covering n, and a scalar
  // division and remainder of a negative value.
  Int pid = program_id(0);
  store(scalars + pid * 3, cdiv(n, BLOCK));
  store(scalars + pid * 3 + 1, (pid - 7) / 3);
  store(scalars + pid * 3 + 2, (pid - 7) % 3);
}

inline const KernelDef &intDivKernel() {
  static auto kernel =
      jit("dslops_int_div", int_div_kernel,
          {"a", "b", "quot", "rem", "fdiv", "cdivs", "scalars", "n", "BLOCK"});
  return *kernel;
}

/// C's a / b and a % b where defined; x / 0 == x, x % 0 == 0 and
/// INT_MIN / -1 == INT_MIN (remainder 0) where C leaves them undefined.
inline int32_t referenceDiv(int32_t a, int32_t b) {
  if (b == 0)
    return a;
  if (b == -1)
    return int32_t(0u - uint32_t(a));
  return a / b;
}
inline int32_t referenceRem(int32_t a, int32_t b) {
  if (b == 0 || b == -1)
    return 0;
  return a % b;
}

inline void checkIntegerDivision(TargetKind target) {
  const int n = 1025; // 2^10 + 1
  const int32_t lo = std::numeric_limits<int32_t>::min(),
                hi = std::numeric_limits<int32_t>::max();
  std::vector<int32_t> a = {7, -7, 7, -7, 0, lo, lo, hi, hi, -1, 1, 5, lo, 9};
  std::vector<int32_t> b = {2, 2, -2, -2, 3, -1, 1, -1, 0, 0, 0, 1, lo, lo};
  std::mt19937 rng(4);
  std::uniform_int_distribution<int32_t> wide(lo, hi), small(-50, 50);
  while (a.size() < size_t(n)) {
    a.push_back(a.size() % 2 ? wide(rng) : small(rng) * 37);
    b.push_back(a.size() % 3 ? small(rng) : wide(rng));
  }
  const int block = 128, programs = (n + block - 1) / block;
  Buffers buffers(target);
  std::vector<Arg> args = {buffers.in(a),
                           buffers.in(b),
                           buffers.out<int32_t>(n),
                           buffers.out<int32_t>(n),
                           buffers.out<int32_t>(n),
                           buffers.out<int32_t>(n),
                           buffers.out<int32_t>(programs * 3),
                           int32_t(n),
                           Constexpr(block)};
  ASSERT_EQ(runKernel(intDivKernel(), target, {programs}, args), "");
  std::vector<int32_t> quot(n), rem(n), fdiv(n), cdivs(n),
      scalars(programs * 3);
  buffers.read(2, quot);
  buffers.read(3, rem);
  buffers.read(4, fdiv);
  buffers.read(5, cdivs);
  buffers.read(6, scalars);
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(quot[i], referenceDiv(a[i], b[i])) << a[i] << " / " << b[i];
    ASSERT_EQ(rem[i], referenceRem(a[i], b[i])) << a[i] << " % " << b[i];
    ASSERT_EQ(fdiv[i], referenceDiv(a[i], b[i]))
        << "floordiv(" << a[i] << ", " << b[i] << ")";
    if (a[i] >= 0 && b[i] > 0 && int64_t(a[i]) + b[i] - 1 <= hi)
      ASSERT_EQ(cdivs[i], (a[i] + b[i] - 1) / b[i])
          << "cdiv(" << a[i] << ", " << b[i] << ")";
  }
  for (int p = 0; p < programs; ++p) {
    ASSERT_EQ(scalars[p * 3], (n + block - 1) / block);
    ASSERT_EQ(scalars[p * 3 + 1], (p - 7) / 3) << p;
    ASSERT_EQ(scalars[p * 3 + 2], (p - 7) % 3) << p;
  }
}

} // namespace blockjit::dslops

#endif // BLOCKJIT_TESTS_COMMON_DSLOPSCHECKS_H
