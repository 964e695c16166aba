//===- BlkToLLVMCommon.h - LLVM lowering shared by both backends -*- C++
//-*-===//
#ifndef BLOCKJIT_COMPILER_BLKTOLLVMCOMMON_H
#define BLOCKJIT_COMPILER_BLKTOLLVMCOMMON_H

#include "mlir/Support/LLVM.h"

namespace mlir {
class LLVMTypeConverter;
class ModuleOp;
class RewritePatternSet;
} // namespace mlir

namespace blockjit {

/// !blk.ptr<T> becomes !llvm.ptr in `addressSpace` (0 on the host, 1 =
/// global memory on NVPTX).
void addBlkTypeConversions(mlir::LLVMTypeConverter &converter,
                           unsigned addressSpace = 0);

/// Scalar blk.addptr (getelementptr), unmasked scalar blk.load and
/// blk.store (plain LLVM loads and stores).
void populateScalarBlkToLLVMPatterns(mlir::LLVMTypeConverter &converter,
                                     mlir::RewritePatternSet &patterns);

/// Scalar blk ops plus arith, math, cf, func and ub to LLVM: what both
/// backends' final conversions share.
void populateBlkToLLVMCommonPatterns(mlir::LLVMTypeConverter &converter,
                                     mlir::RewritePatternSet &patterns);

/// scf (loops and ifs left by the block lowerings) to cf branches.
mlir::LogicalResult lowerSCFToControlFlow(mlir::ModuleOp module);

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_BLKTOLLVMCOMMON_H
