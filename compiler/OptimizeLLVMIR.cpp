//===- OptimizeLLVMIR.cpp - LLVM's O3 over a kernel's module -------------===//
#include "compiler/OptimizeLLVMIR.h"
#include "compiler/LLVMDiagnostics.h"

#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Target/TargetMachine.h"

namespace blockjit {

llvm::Error optimizeLLVMIR(llvm::Module &module, llvm::TargetMachine &machine) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);

  LLVMDiagnosticsCollector diagnostics(module.getContext());
  builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3)
      .run(module, mam);
  if (!diagnostics.errors().empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "LLVM optimization failed: " +
                                       diagnostics.errors());
  return llvm::Error::success();
}

} // namespace blockjit
