//===- CPUBackend.cpp - the host backend and its stage list --------------===//
#include "compiler/cpu/CPUBackend.h"
#include "compiler/Passes.h"
#include "compiler/cpu/EntryABI.h"
#include "compiler/cpu/HostTarget.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;

namespace blockjit {
namespace {

void addLoopsStagePasses(OpPassManager &pm, const CompileOptions &) {
  pm.addPass(createConvertBlkToLoops());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void addLLVMStagePasses(OpPassManager &pm, const CompileOptions &) {
  ConvertBlkToLLVMCPUOptions options;
  // AVX-512 hosts: vscalefps for exp's 2^k, and 512-bit vectors even where
  // LLVM's tuning prefers 256 (Intel server cores): ATen's kernels use
  // them there.
  options.scalef = hostHasAVX512();
  options.preferVectorWidth = options.scalef ? 512 : 0;
  pm.addPass(createConvertBlkToLLVMCPU(options));
  pm.addPass(createCanonicalizerPass());
}

/// The artifact: the host object, and the scratch arena the loops stage
/// sized for each thread.
llvm::Error emitObject(Compilation &compilation) {
  CompiledArtifact &artifact = compilation.artifact;
  artifact.format = ArtifactFormat::HostObject;
  artifact.threadsPerProgram = 1;
  if (auto scratch = compilation.module->getAttrOfType<IntegerAttr>(
          cpu::kScratchBytesAttr))
    artifact.cpuScratchBytes = scratch.getInt();
  auto object = emitHostCode(*compilation.llvmModule, HostOutput::Object);
  if (!object)
    return object.takeError();
  artifact.binary = std::move(*object);
  return llvm::Error::success();
}

llvm::Expected<std::string> printAssembly(Compilation &compilation) {
  return emitHostCode(*compilation.llvmModule, HostOutput::Assembly);
}

const Stage kStages[] = {
    {"blk", "traced blk IR, canonicalized", addBlkStagePasses},
    {"loops", "blocks as scalar loops over buffers", addLoopsStagePasses},
    {"llvm", "LLVM dialect with the host entry point", addLLVMStagePasses},
    kLLVMIRStage,
    {"asm", "host machine code (the artifact is its ELF object)", nullptr,
     emitObject, printAssembly},
};

class CPUBackend final : public Backend {
public:
  TargetKind kind() const override { return TargetKind::CPU; }
  llvm::StringRef name() const override { return "cpu"; }
  llvm::ArrayRef<Stage> stages() const override { return kStages; }
  llvm::Error checkOptions(const CompileOptions &options) const override {
    if (options.target.smArch != 0)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "the CPU target takes no sm arch, got sm_%d", options.target.smArch);
    return llvm::Error::success();
  }
  llvm::Expected<llvm::TargetMachine &>
  targetMachine(const CompileOptions &) const override {
    return hostTargetMachine();
  }
  std::string fingerprint(const CompileOptions &) const override {
    // Host objects depend on the CPU they were compiled for.
    auto machine = hostTargetMachine();
    if (!machine) {
      llvm::consumeError(machine.takeError());
      return "host unknown\n";
    }
    return ("host " + machine->getTargetCPU() + " " +
            machine->getTargetFeatureString() + "\n")
        .str();
  }
};

} // namespace

const Backend &cpuBackend() {
  static const CPUBackend backend;
  return backend;
}

} // namespace blockjit
