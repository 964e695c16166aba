//===- Pipeline.cpp - the one list of compilation stages -----------------===//
#include "compiler/Pipeline.h"
#include "compiler/HostTarget.h"
#include "compiler/NVPTXTarget.h"
#include "compiler/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;

namespace blockjit {
namespace {

void addBlkStage(OpPassManager &pm, const PipelineOptions &) {
  // Input no backend can lower stops here, with a message.
  pm.addPass(createBlkVerifyKernels());
  pm.addPass(createBlkWidenOffsets());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Hoist row-independent work (ranges, masks, splats) out of the row loop.
  pm.addPass(createLoopInvariantCodeMotionPass());
  pm.addPass(createCanonicalizerPass());
}

void addLoopsStage(OpPassManager &pm, const PipelineOptions &) {
  pm.addPass(createConvertBlkToLoops());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void addCPULLVMStage(OpPassManager &pm, const PipelineOptions &) {
  pm.addPass(createConvertBlkToLLVMCPU());
  pm.addPass(createCanonicalizerPass());
}

const Stage cpuStages[] = {
    {"blk", "traced blk IR, canonicalized", addBlkStage},
    {"loops", "blocks as scalar loops over buffers", addLoopsStage},
    {"llvm", "LLVM dialect with the host entry point", addCPULLVMStage},
};

void addPipelineStage(OpPassManager &pm, const PipelineOptions &options) {
  pm.addPass(
      createBlkPipelineLoads(BlkPipelineLoadsOptions{options.numStages}));
  pm.addPass(createCanonicalizerPass());
}

void addLayoutStage(OpPassManager &pm, const PipelineOptions &options) {
  pm.addPass(createBlkAssignLayouts(BlkAssignLayoutsOptions{options.numWarps}));
}

void addNVVMStage(OpPassManager &pm, const PipelineOptions &) {
  pm.addPass(createConvertBlkToNVVM());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void addGPULLVMStage(OpPassManager &pm, const PipelineOptions &) {
  pm.addPass(createConvertBlkToLLVMGPU());
  pm.addPass(createCanonicalizerPass());
}

const Stage gpuStages[] = {
    {"blk", "traced blk IR, canonicalized", addBlkStage},
    {"pipeline", "next-iteration loads prefetched (num_stages > 1)",
     addPipelineStage},
    {"layout", "blocks with #blkgpu.blocked thread layouts", addLayoutStage},
    {"nvvm", "per-thread scalars, vector accesses, shuffles", addNVVMStage},
    {"llvm", "LLVM dialect NVVM kernel", addGPULLVMStage},
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
  // A failing pass would otherwise attach the whole module to its message.
  context->printOpOnDiagnostic(false);
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
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     llvm::Twine("stage '") + stage.name +
                                         "' failed:\n" + diagnostics);
    if (dump)
      dump(stage.name, printModule(module));
    if (lastStage == stage.name)
      break;
  }
  return llvm::Error::success();
}

void optimizeLLVMIR(llvm::Module &module, llvm::TargetMachine *machine) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(machine);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3)
      .run(module, mam);
}

llvm::Expected<std::unique_ptr<llvm::Module>>
translateToLLVMIR(ModuleOp module, llvm::LLVMContext &context,
                  const PipelineOptions &options, const DumpHook &dump) {
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  module.getContext()->appendDialectRegistry(registry);
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, context);
  if (!llvmModule)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "translation to LLVM IR failed");
  llvm::TargetMachine *machine = nullptr;
  if (options.backend == Backend::CPU) {
    auto host = hostTargetMachine();
    if (!host)
      return host.takeError();
    machine = &*host;
  } else {
    auto nvptx = nvptxTargetMachine(options.smArch);
    if (!nvptx)
      return nvptx.takeError();
    machine = &*nvptx;
  }
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(machine->getTargetTriple());
  optimizeLLVMIR(*llvmModule, machine);
  if (dump) {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvmModule->print(os, nullptr);
    dump("llvmir", text);
  }
  return llvmModule;
}

} // namespace blockjit
