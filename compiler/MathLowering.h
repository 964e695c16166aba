//===- MathLowering.h - math functions each target can run -----*- C++ -*-===//
//
// One lowering of `math` ops for scalars and block elements alike, applied
// by both backends' LLVM stages before the final conversion: functions the
// target has no instruction or library call for become MLIR's polynomial
// approximations (so both targets compute them the same way), NaN inputs
// give NaN results (the approximations alone turn a NaN into LLVM poison),
// and on the GPU whatever NVPTX still could not select is reported as an
// error naming the op, instead of aborting inside LLVM.
//
// Precision of the DSL's float functions (f32), measured against a double
// reference by tests/common/DSLOpsChecks.h on both targets, for blocks and
// scalars alike: |got - ref| <= abs + rel * |ref|, results below 2^-126 may
// be flushed to 0, NaN in gives NaN out, +-inf give the limits.
//
//   op       lowering (host | NVPTX)              abs        rel
//   exp      polynomial | ex2.approx(x log2 e)    -          4e-7 | 8e-7 +
//                                                            1e-7 |x| (GPU)
//   exp2     polynomial | ex2.approx              -          4e-7 | 8e-7
//   (NVPTX's ex2.approx is the .ftz form: results below 2^-126 are 0.)
//
// Host exp and exp2 (HostExpF32): Cephes' degree-5 polynomial after a
// Cody-Waite reduction, scaled by 2^k with llvm.ldexp (vscalefps) on an
// AVX-512 host; elsewhere exp2 scales in two exact steps through the
// exponent bits and exp is MLIR's approximation.
//   log      polynomial | log2 polynomial * ln 2  1e-7       4e-7 | 8e-7
//   log2     polynomial (both)                    1e-7       4e-7 | 8e-7
//   sigmoid  1 / (1 + exp(-x)) (frontend)         1e-7       as exp
//   tanh     polynomial (both; +-1 beyond |x|~9)  1e-7       4e-7 | 8e-7
//   erf      polynomial (both)                    1e-7       4e-7 | 8e-7
//   sin/cos  polynomial, range reduction in f32   2e-7 (GPU 4e-7) + 1e-7 |x|
//            for |x| <= 1e4; beyond, in [-1, 1] but not accurate
//   pow      exp2(y log2|x|), C's special cases   -          4e-6 + 1e-7 *
//            (negative bases with integral y)                |ln(result)|
//   floor, ceil, fma                              exact (fma rounds once)
//   sqrt, rsqrt, abs                              LLVM intrinsics (sqrt.rn)
//
// f16 and bf16 compute every function in f32 and round the result: within
// 2 ulp of the type of the rounded reference (f16 2^-9, bf16 2^-6 relative).
//
// f64 (NVPTX's ex2.approx and MLIR's approximations are f32 only; the host
// calls libm, within 1 ulp). On NVPTX, measured on the host by running the
// same expansion (tests/unit/GPUMathTest.cpp: dense random and edge inputs
// against long double, bound per row; the differential suite checks the
// bound (rel 1e-15 for 4 ulp) on the device):
//
//   op       NVPTX lowering                              measured   bound
//   exp      k = round(x log2 e), r = x - k ln 2 (fma,   0.83 ulp   4 ulp
//            ln 2 in two parts), Taylor degree 13, 2^k
//            in two exact steps (subnormals round once)
//   exp2     k = round(x), r = (x - k) ln 2, as exp      0.84 ulp   4 ulp
//   log      x = 2^e m, m in [sqrt(1/2), sqrt(2)],       1.82 ulp   4 ulp
//            2 atanh((m-1)/(m+1)) to s^23, e ln 2 added
//            in two parts; subnormals scaled by 2^54
//   log2     as log, e + log(m) log2(e)                  2.52 ulp   4 ulp
//   sin/cos  |x| < 2^50: k = round(|x| 2/pi),            0.75 ulp   2 ulp
//            |x| - k pi/2 with pi/2 in three parts
//            (Cody-Waite, fma) as a double-double
//            y + yLo; beyond, Payne-Hanek (192 bits of
//            2/pi from a 1280-bit table, integer
//            products, in an scf.if); Taylor kernels
//            to y^19/y^20 with yLo's correction
//            (fdlibm's arrangement), quadrant mod 4
//   tanh     sign(x) -u / (u + 2), u = expm1(-2|x|)      2.49 ulp   4 ulp
//            (reduced as exp, Taylor to r^14); +-1
//            for |x| >= 22
//   erf      |x| < 1: Taylor series to x^39; then        1.22 ulp   4 ulp
//            1 - exp(-x^2) R(|x|), R = erfc e^(x^2)
//            Chebyshev fits on [1, 2.25] and [2.25, 6]
//            (x^2 double-double into exp); +-1 from 6
//   pow      exp(y log|x|): log|x| and the product       0.97 ulp   4 ulp
//            as double-doubles (s = (m-1)/(m+1) with
//            its error, s^3 double-double), the low
//            part added to exp's reduced argument;
//            signs and C's special cases as for f32
//   sigmoid  1 / (1 + exp(-x)) (frontend), as exp        -          6 ulp
//            (the differential suite's bound; results
//            below 2^-1022, x < -709.78, may be 0)
// Overflow gives inf, underflow 0 (or the subnormal), NaN gives NaN;
// log(0) = -inf, log(x < 0) = NaN, log(inf) = inf; sin/cos(+-inf) = NaN,
// sin(-0) = -0, tanh and erf are odd (-0 kept) with +-1 at +-inf; sin/cos
// hold their bound for every finite x (tested over every exponent and next
// to multiples of pi/2, 6381956970095103 * 2^797 included). On the host, f64
// sin, cos, tanh and pow are libm calls (pow is not expanded for f64 there);
// f64 erf, which LLVM has no intrinsic for, takes the NVPTX expansion on the
// host too.
//
// Float % (fmod) is exact on both targets: libm's fmod on the host, and on
// NVPTX (whose frem is x - trunc(x / y) * y) a long division of the
// integer mantissas in i64 steps (at most 7 for f32, 191 for f64); f16 and
// bf16 compute in f32, where their fmod is exact. Bit for bit C's fmod:
// the sign of x, fmod(x, 0), fmod(inf, y) and NaN operands give NaN,
// fmod(x, inf) = x, subnormals exact (tests/unit/GPUMathTest.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_COMPILER_MATHLOWERING_H
#define BLOCKJIT_COMPILER_MATHLOWERING_H

#include "mlir/IR/Builders.h"
#include "mlir/Support/LLVM.h"

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace blockjit {

enum class MathTarget { Host, NVPTX };

/// Rewrites the math ops of `module` into what `target` can lower; fails
/// with a diagnostic on an op it cannot. `hostScalef`: the host scales by
/// 2^k with llvm.ldexp (one instruction on AVX-512) in f32 exp and exp2.
mlir::LogicalResult lowerMathForTarget(mlir::ModuleOp module,
                                       MathTarget target,
                                       bool hostScalef = false);

/// Whether dividing `element`s by a value uniform over a block may multiply
/// by its reciprocal (within 1.5 ulp): f32 and f64. f16 and bf16 divide
/// exactly: 1.5 of their ulps is no bound worth having (the DSL fuzzer found
/// a bf16 quotient one ulp off).
bool dividesByReciprocal(mlir::Type element);

/// Whether a float divisor whose magnitude is `magnitude` (|s|) has a
/// normal reciprocal: smallest normal <= |s| <= 1 / smallest normal
/// (2^-126..2^126 for f32). Ordered compares: NaN is outside. Both backends
/// divide by a value uniform over a block as x * (1/s) there (one reciprocal
/// instead of a division per element) and exactly beyond, where 1/s
/// overflows or loses bits (1e-39 / 1e-39 would give inf).
mlir::Value reciprocalIsNormal(mlir::OpBuilder &builder, mlir::Location loc,
                               mlir::Value magnitude);

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_MATHLOWERING_H
