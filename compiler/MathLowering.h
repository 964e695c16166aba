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
