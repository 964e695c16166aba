//===- Compile.cpp - from a traced module to a loadable artifact ---------===//
#include "compiler/Compile.h"
#include "compiler/HostTarget.h"
#include "compiler/NVPTXTarget.h"
#include "compiler/cpu/EntryABI.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace blockjit {

llvm::Expected<CompiledArtifact> compileModule(mlir::ModuleOp module,
                                               const PipelineOptions &options,
                                               const DumpHook &dump,
                                               llvm::StringRef lastStage) {
  // Before any work: an arch the NVPTX backend cannot target would abort it.
  if (options.backend == Backend::GPU)
    if (llvm::Error error = checkCudaArch(options.smArch))
      return std::move(error);
  CompiledArtifact artifact;
  artifact.backend = options.backend;
  for (auto func : module.getOps<mlir::func::FuncOp>())
    artifact.entryName = func.getName().str();
  if (llvm::Error error = runMLIRStages(module, options, dump, lastStage))
    return std::move(error);
  bool mlirOnly = false;
  for (const Stage &stage : mlirStages(options.backend))
    mlirOnly |= lastStage == stage.name;
  if (mlirOnly)
    return artifact;
  if (auto scratch =
          module->getAttrOfType<mlir::IntegerAttr>(cpu::kScratchBytesAttr))
    artifact.cpuScratchBytes = scratch.getInt();
  llvm::LLVMContext context;
  auto llvmModule = translateToLLVMIR(module, context, options, dump);
  if (!llvmModule)
    return llvmModule.takeError();
  if (lastStage == "llvmir")
    return artifact;
  if (options.backend == Backend::GPU) {
    artifact.threadsPerProgram = options.numWarps * 32;
    const llvm::DataLayout &layout = (*llvmModule)->getDataLayout();
    for (const llvm::GlobalVariable &global : (*llvmModule)->globals())
      if (global.getAddressSpace() == 3)
        artifact.sharedMemoryBytes +=
            layout.getTypeAllocSize(global.getValueType());
    auto ptx = emitPTX(**llvmModule, options.smArch);
    if (!ptx)
      return ptx.takeError();
    if (dump)
      dump("ptx", *ptx);
    artifact.binary = std::move(*ptx);
    // With ptxas at hand, a cubin spares the driver its PTX compilation; if
    // ptxas is missing or fails, the driver gets the PTX as before.
    if (std::string ptxas = findPtxas(); !ptxas.empty()) {
      if (auto cubin = assembleCubin(ptxas, artifact.binary, options.smArch)) {
        artifact.binary = std::move(*cubin);
        artifact.isCubin = true;
      } else {
        llvm::consumeError(cubin.takeError());
      }
    }
    return artifact;
  }
  if (dump) {
    auto assembly = emitHostCode(**llvmModule, HostOutput::Assembly);
    if (!assembly)
      return assembly.takeError();
    dump("asm", *assembly);
    if (lastStage == "asm")
      return artifact;
  }
  auto object = emitHostCode(**llvmModule, HostOutput::Object);
  if (!object)
    return object.takeError();
  artifact.binary = std::move(*object);
  return artifact;
}

} // namespace blockjit
