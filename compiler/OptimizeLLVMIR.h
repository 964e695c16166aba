//===- OptimizeLLVMIR.h - LLVM's O3 over a kernel's module -----*- C++ -*-===//
//
// The llvmir stage's optimization, for every backend: LLVM's O3 pipeline
// for the target machine.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_COMPILER_OPTIMIZELLVMIR_H
#define BLOCKJIT_COMPILER_OPTIMIZELLVMIR_H

#include "llvm/Support/Error.h"

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace blockjit {

/// Runs LLVM's O3 pipeline over `module` for `machine`. Its diagnostics go
/// to an LLVMDiagnosticsCollector: errors come back as the llvm::Error,
/// warnings and remarks are not printed.
llvm::Error optimizeLLVMIR(llvm::Module &module, llvm::TargetMachine &machine);

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_OPTIMIZELLVMIR_H
