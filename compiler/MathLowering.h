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
