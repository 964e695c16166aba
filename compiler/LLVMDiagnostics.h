//===- LLVMDiagnostics.h - LLVM diagnostics kept from users -*- C++ -*-===//
#ifndef BLOCKJIT_COMPILER_LLVMDIAGNOSTICS_H
#define BLOCKJIT_COMPILER_LLVMDIAGNOSTICS_H

#include "llvm/IR/DiagnosticHandler.h"

#include <string>

namespace llvm {
class LLVMContext;
} // namespace llvm

namespace blockjit {

/// While alive, LLVM's diagnostics in `context` are collected instead of
/// going to LLVM's default handler, which prints warnings and remarks on
/// stderr (e.g. "loop not vectorized" for a loop the CPU lowering asked to
/// vectorize, which then runs scalar: nothing for the user to act on) and
/// ends the process on an error. Errors are kept as text (errors()) for the
/// caller to return as an llvm::Error; the rest is dropped. The previous
/// handler comes back on destruction.
class LLVMDiagnosticsCollector {
public:
  explicit LLVMDiagnosticsCollector(llvm::LLVMContext &context);
  ~LLVMDiagnosticsCollector();
  LLVMDiagnosticsCollector(const LLVMDiagnosticsCollector &) = delete;
  LLVMDiagnosticsCollector &
  operator=(const LLVMDiagnosticsCollector &) = delete;

  /// Each error diagnostic so far, a line each.
  const std::string &errors() const { return errorText; }

private:
  llvm::LLVMContext &context;
  llvm::DiagnosticHandler::DiagnosticHandlerTy previous;
  void *previousContext;
  std::string errorText;
};

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_LLVMDIAGNOSTICS_H
