//===- BlockOps.h - the op walk both block lowerings share ------*- C++ -*-===//
#ifndef BLOCKJIT_COMPILER_BLOCKOPS_H
#define BLOCKJIT_COMPILER_BLOCKOPS_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/StringRef.h"

namespace blockjit {

/// Visits the ops of `block` that take or produce blocks, in order, the way
/// the CPU and GPU lowerings walk a kernel. Each scf.for goes to `visitFor`,
/// which lowers it or walks its body itself: it is the one region op that
/// may carry blocks. Any other op with regions must neither take nor produce
/// blocks ("'<op>' op on blocks has no <target> lowering (only scf.for may
/// carry blocks)"), except an scf.if that `ifMayCarryBlocks` accepts (one
/// the compiler made, which the GPU's structural conversion lowers; the
/// DSL makes none); the walk descends into its regions. Every other op that
/// takes or produces blocks, except scf.yield, goes to `visitOp`. Ops may be
/// erased or inserted around the visited op. Stops at the first failure.
mlir::LogicalResult
walkBlockOps(mlir::Block &block, llvm::StringRef target,
             llvm::function_ref<mlir::LogicalResult(mlir::scf::ForOp)> visitFor,
             llvm::function_ref<mlir::LogicalResult(mlir::Operation *)> visitOp,
             llvm::function_ref<bool(mlir::scf::IfOp)> ifMayCarryBlocks = {});

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_BLOCKOPS_H
