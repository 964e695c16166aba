//===- Atomics.h - blk atomics as LLVM atomics, both targets --*- C++ -*-===//
//
// blk.atomic_rmw and blk.atomic_cas become llvm.atomicrmw and llvm.cmpxchg
// (with the op's ordering) on both targets; what differs is who executes them
// (every lane on the CPU, only each element's owner thread on the GPU) and the
// scope. The element types both targets support are checked here, once.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_COMPILER_ATOMICS_H
#define BLOCKJIT_COMPILER_ATOMICS_H

#include "dialect/BlkDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/Support/LLVM.h"

namespace blockjit {

/// Whether `op` (a blk.atomic_rmw or blk.atomic_cas) has a lowering for its
/// element type: i32, i64, f32 and f64 for every kind, f16 and bf16 for
/// add only. Otherwise an error on `op` naming the op, the type and
/// `target` ("CPU" or "GPU").
mlir::LogicalResult checkAtomicSupported(mlir::Operation *op,
                                         llvm::StringRef target);

/// The ordering and scope of `op` (a blk.atomic_rmw or blk.atomic_cas).
blk::MemSem atomicSem(mlir::Operation *op);
blk::MemScope atomicScope(mlir::Operation *op);

/// The old value of one lane of `op` (a blk.atomic_rmw or blk.atomic_cas),
/// executed on the LLVM pointer `ptr` with `value` (and `cmp` for a CAS),
/// with the op's ordering in `syncscope` ("" is the whole system).
mlir::Value emitAtomic(mlir::OpBuilder &builder, mlir::Location loc,
                       mlir::Operation *op, mlir::Value ptr, mlir::Value value,
                       mlir::Value cmp, llvm::StringRef syncscope);

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_ATOMICS_H
