//===- OptimizeLLVMIR.cpp - LLVM's O3 over a kernel's module -------------===//
#include "compiler/OptimizeLLVMIR.h"
#include "compiler/LLVMDiagnostics.h"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Target/TargetMachine.h"

namespace blockjit {

namespace {

/// A full warp's vote.ballot.sync of a predicate LLVM has folded to a
/// constant is that constant's ballot: every lane votes alike (all 32
/// execute it, or the program is undefined). LLVM does not fold it itself;
/// the word-pair lowering of rows (Memory.cpp) ballots masks that a mask
/// bound's range folds to constants.
struct FoldConstantBallots : llvm::PassInfoMixin<FoldConstantBallots> {
  llvm::PreservedAnalyses run(llvm::Function &function,
                              llvm::FunctionAnalysisManager &) {
    bool changed = false;
    for (llvm::Instruction &inst :
         llvm::make_early_inc_range(llvm::instructions(function))) {
      auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst);
      if (!call ||
          call->getIntrinsicID() != llvm::Intrinsic::nvvm_vote_ballot_sync)
        continue;
      auto *members = llvm::dyn_cast<llvm::ConstantInt>(call->getArgOperand(0));
      auto *vote = llvm::dyn_cast<llvm::ConstantInt>(call->getArgOperand(1));
      if (!members || !vote || !members->isAllOnesValue())
        continue;
      call->replaceAllUsesWith(
          vote->isOne() ? llvm::Constant::getAllOnesValue(call->getType())
                        : llvm::Constant::getNullValue(call->getType()));
      call->eraseFromParent();
      changed = true;
    }
    return changed ? llvm::PreservedAnalyses::none()
                   : llvm::PreservedAnalyses::all();
  }
};

} // namespace

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

  builder.registerPeepholeEPCallback(
      [](llvm::FunctionPassManager &passes, llvm::OptimizationLevel) {
        passes.addPass(FoldConstantBallots());
      });
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
