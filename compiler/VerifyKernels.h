//===- VerifyKernels.h - what every backend assumes of a kernel -*- C++ -*-===//
#ifndef BLOCKJIT_COMPILER_VERIFYKERNELS_H
#define BLOCKJIT_COMPILER_VERIFYKERNELS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace blockjit {

/// A kernel's parameters are integer or float scalars or !blk.ptr pointers
/// and it returns nothing; emits one error per violation. The first check of
/// blk-verify-kernels, also run by the lowerings that may be invoked alone.
mlir::LogicalResult verifyKernelSignature(mlir::func::FuncOp func);

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_VERIFYKERNELS_H
