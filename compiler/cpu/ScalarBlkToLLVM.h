//===- ScalarBlkToLLVM.h - scalar blk ops to LLVM, shared by backends -*- C++ -*-===//
#ifndef BLOCKJIT_COMPILER_CPU_SCALARBLKTOLLVM_H
#define BLOCKJIT_COMPILER_CPU_SCALARBLKTOLLVM_H

namespace mlir {
class LLVMTypeConverter;
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

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_CPU_SCALARBLKTOLLVM_H
