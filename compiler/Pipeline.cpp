//===- Pipeline.cpp - the one list of compilation stages -----------------===//
#include "compiler/Pipeline.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/IR/Module.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace blockjit {
namespace {

void addBlkStage(OpPassManager &pm, const PipelineOptions &) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Hoist row-independent work (ranges, masks, splats) out of the row loop.
  pm.addPass(createLoopInvariantCodeMotionPass());
  pm.addPass(createCanonicalizerPass());
}

const Stage cpuStages[] = {
    {"blk", "traced blk IR, canonicalized", addBlkStage},
};

const Stage gpuStages[] = {
    {"blk", "traced blk IR, canonicalized", addBlkStage},
};

std::string printModule(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return text;
}

} // namespace

llvm::ArrayRef<Stage> mlirStages(Backend backend) {
  if (backend == Backend::GPU)
    return gpuStages;
  return cpuStages;
}

std::vector<std::string> allStageNames(Backend backend) {
  std::vector<std::string> names;
  for (const Stage &stage : mlirStages(backend))
    names.push_back(stage.name);
  names.push_back("llvmir");
  names.push_back(backend == Backend::GPU ? "ptx" : "asm");
  return names;
}

void buildMLIRPipeline(OpPassManager &pm, const PipelineOptions &options) {
  for (const Stage &stage : mlirStages(options.backend))
    stage.addPasses(pm, options);
}

llvm::Error runMLIRStages(ModuleOp module, const PipelineOptions &options,
                          const DumpHook &dump, llvm::StringRef lastStage) {
  MLIRContext *context = module.getContext();
  std::string diagnostics;
  ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
    llvm::raw_string_ostream os(diagnostics);
    os << diag.getLocation() << ": " << diag.str() << "\n";
    for (const Diagnostic &note : diag.getNotes())
      os << "  note: " << note.str() << "\n";
    return success();
  });
  for (const Stage &stage : mlirStages(options.backend)) {
    PassManager pm(context);
    stage.addPasses(pm, options);
    if (failed(pm.run(module)))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          llvm::Twine("stage '") + stage.name + "' failed:\n" + diagnostics);
    if (dump)
      dump(stage.name, printModule(module));
    if (lastStage == stage.name)
      break;
  }
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<llvm::Module>>
translateToLLVMIR(ModuleOp module, llvm::LLVMContext &context,
                  const PipelineOptions &options, const DumpHook &dump) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "the 'llvmir' stage does not exist yet");
}

} // namespace blockjit
