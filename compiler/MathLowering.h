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
//   exp2     llvm.exp2 (libm) | ex2.approx        -          4e-7 | 8e-7
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
// same expansion (tests/unit/GPUMathTest.cpp, bound 4 ulp; the
// differential suite checks rel 1e-15 on the device):
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
// Overflow gives inf, underflow 0 (or the subnormal), NaN gives NaN;
// log(0) = -inf, log(x < 0) = NaN, log(inf) = inf. Other f64 functions
// (sin, tanh, erf, pow, ...) are rejected for the CUDA target.
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

#include "mlir/Support/LLVM.h"

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace blockjit {

enum class MathTarget { Host, NVPTX };

/// Rewrites the math ops of `module` into what `target` can lower; fails
/// with a diagnostic on an op it cannot.
mlir::LogicalResult lowerMathForTarget(mlir::ModuleOp module,
                                       MathTarget target);

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_MATHLOWERING_H
