//===- Backend.cpp - the stages every backend shares ---------------------===//
#include "compiler/Backend.h"
#include "compiler/EvictionHints.h"
#include "compiler/OptimizeLLVMIR.h"
#include "compiler/Passes.h"
#include "compiler/cpu/CPUBackend.h"
#include "compiler/gpu/CUDABackend.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;

namespace blockjit {

Compilation::Compilation(ModuleOp module, const CompileOptions &options,
                         const Backend &backend)
    : module(module), options(options), backend(backend) {}
Compilation::~Compilation() = default;

const Backend &backendFor(TargetKind kind) {
  if (kind == TargetKind::CUDA)
    return cudaBackend();
  return cpuBackend();
}

std::vector<std::string> stageNames(const Backend &backend) {
  std::vector<std::string> names;
  for (const Stage &stage : backend.stages())
    names.push_back(stage.name);
  return names;
}

void addBlkStagePasses(OpPassManager &pm, const CompileOptions &) {
  // Input no backend can lower stops here, with a message.
  pm.addPass(createBlkVerifyKernels());
  pm.addPass(createBlkWidenOffsets());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Hoist row-independent work (ranges, masks, splats) out of the row loop.
  pm.addPass(createLoopInvariantCodeMotionPass());
  pm.addPass(createCanonicalizerPass());
}

namespace {

llvm::Error translateToLLVMIR(Compilation &compilation) {
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerEvictionHintTranslation(registry);
  compilation.module.getContext()->appendDialectRegistry(registry);
  compilation.llvmContext = std::make_unique<llvm::LLVMContext>();
  compilation.llvmModule =
      translateModuleToLLVMIR(compilation.module, *compilation.llvmContext);
  if (!compilation.llvmModule)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "translation to LLVM IR failed");
  auto machine = compilation.backend.targetMachine(compilation.options);
  if (!machine)
    return machine.takeError();
  compilation.llvmModule->setDataLayout(machine->createDataLayout());
  compilation.llvmModule->setTargetTriple(machine->getTargetTriple());
  return optimizeLLVMIR(*compilation.llvmModule, *machine);
}

llvm::Expected<std::string> printLLVMIR(Compilation &compilation) {
  std::string text;
  llvm::raw_string_ostream os(text);
  compilation.llvmModule->print(os, nullptr);
  return text;
}

} // namespace

const Stage kLLVMIRStage = {"llvmir", "LLVM IR after -O3 for the target",
                            nullptr, translateToLLVMIR, printLLVMIR};

} // namespace blockjit
