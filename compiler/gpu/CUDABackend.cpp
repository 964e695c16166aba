//===- CUDABackend.cpp - the NVIDIA GPU backend and its stage list -------===//
#include "compiler/gpu/CUDABackend.h"
#include "compiler/Passes.h"
#include "compiler/gpu/Layout.h"
#include "compiler/gpu/NVPTXTarget.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <map>
#include <mutex>

using namespace mlir;

namespace blockjit {
namespace {

void addPipelineStagePasses(OpPassManager &pm, const CompileOptions &options) {
  // The config's hints first, so that every stage after sees them as the
  // source's own.
  if (options.loadEviction != DefaultEviction::Normal ||
      options.storeEviction != DefaultEviction::Normal)
    pm.addPass(createBlkDefaultEviction(BlkDefaultEvictionOptions{
        defaultEvictionName(options.loadEviction).str(),
        defaultEvictionName(options.storeEviction).str()}));
  pm.addPass(
      createBlkPipelineLoads(BlkPipelineLoadsOptions{options.numStages}));
  pm.addPass(createCanonicalizerPass());
}

void addLayoutStagePasses(OpPassManager &pm, const CompileOptions &options) {
  pm.addPass(createBlkSinkBroadcasts());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // An all-reduce of a loop-invariant block leaves the loop (a reduction
  // used in a later loop is broadcast inside it).
  pm.addPass(createLoopInvariantCodeMotionPass());
  pm.addPass(createBlkAssignLayouts(BlkAssignLayoutsOptions{
      options.numWarps, options.numCTAs, options.programsPerCTA}));
  pm.addPass(createBlkFuseClusterSoftmax());
  pm.addPass(
      createBlkStageInShared(BlkStageInSharedOptions{options.target.smArch}));
  pm.addPass(createBlkRematerializeAddresses());
  pm.addPass(createBlkVersionPrefixMasks());
}

void addNVVMStagePasses(OpPassManager &pm, const CompileOptions &options) {
  pm.addPass(
      createConvertBlkToNVVM(ConvertBlkToNVVMOptions{options.target.smArch}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void addLLVMStagePasses(OpPassManager &pm, const CompileOptions &options) {
  pm.addPass(createConvertBlkToLLVMGPU(
      ConvertBlkToLLVMGPUOptions{options.maxRegisters}));
  pm.addPass(createCanonicalizerPass());
}

/// The PTX, with what the launch needs to know of the kernel.
llvm::Error emitPTXStage(Compilation &compilation) {
  CompiledArtifact &artifact = compilation.artifact;
  llvm::Module &module = *compilation.llvmModule;
  artifact.threadsPerProgram = compilation.options.numWarps * 32;
  // The layout stage may have run the program in one CTA (see
  // blk-assign-layouts): the cluster the kernel was compiled for.
  artifact.ctasPerProgram = numCTAsOf(compilation.module);
  artifact.programsPerCTA = programsPerCTAOf(compilation.module);
  auto dynamicShared = compilation.module->getAttrOfType<IntegerAttr>(
      kDynamicSharedBytesAttr);
  artifact.dynamicSharedMemoryBytes =
      dynamicShared ? int(dynamicShared.getInt()) : 0;
  artifact.sharedMemoryBytes = 0;
  const llvm::DataLayout &layout = module.getDataLayout();
  for (const llvm::GlobalVariable &global : module.globals())
    if (global.getAddressSpace() == 3)
      artifact.sharedMemoryBytes +=
          layout.getTypeAllocSize(global.getValueType());
  auto ptx = emitPTX(module, compilation.options.target.smArch);
  if (!ptx)
    return ptx.takeError();
  artifact.format = ArtifactFormat::PTX;
  artifact.binary = std::move(*ptx);
  return llvm::Error::success();
}

llvm::Expected<std::string> printPTX(Compilation &compilation) {
  return compilation.artifact.binary;
}

/// With ptxas at hand, a cubin spares the driver its PTX compilation (the
/// bulk of a cold first launch); if ptxas is missing or fails, the artifact
/// stays PTX and the driver compiles it.
llvm::Error assembleCubinStage(Compilation &compilation) {
  CompiledArtifact &artifact = compilation.artifact;
  std::string ptxas = findPtxas();
  if (ptxas.empty())
    return llvm::Error::success();
  auto cubin =
      assembleCubin(ptxas, artifact.binary, compilation.options.target.smArch);
  if (!cubin) {
    llvm::consumeError(cubin.takeError());
    return llvm::Error::success();
  }
  artifact.binary = std::move(*cubin);
  artifact.format = ArtifactFormat::Cubin;
  return llvm::Error::success();
}

llvm::Expected<std::string> describeCubin(Compilation &compilation) {
  const CompiledArtifact &artifact = compilation.artifact;
  if (artifact.format != ArtifactFormat::Cubin)
    return std::string("no cubin (no ptxas found, or it failed): the driver "
                       "compiles the PTX when loading it\n");
  return "cubin for sm_" + std::to_string(compilation.options.target.smArch) +
         ", " + std::to_string(artifact.binary.size()) + " bytes, by " +
         findPtxas() + "\n";
}

const Stage kStages[] = {
    {"blk", "traced blk IR, canonicalized", addBlkStagePasses},
    {"pipeline", "next-iteration loads prefetched (num_stages > 1)",
     addPipelineStagePasses},
    {"layout", "blocks with #blkgpu.blocked thread layouts", addLayoutStagePasses},
    {"nvvm", "per-thread scalars, vector accesses, shuffles",
     addNVVMStagePasses},
    {"llvm", "LLVM dialect NVVM kernel", addLLVMStagePasses},
    kLLVMIRStage,
    {"ptx", "PTX for the sm arch", nullptr, emitPTXStage, printPTX},
    {"cubin", "the PTX assembled by ptxas (the artifact when ptxas is found)",
     nullptr, assembleCubinStage, describeCubin},
};

/// `ptxas --version`, asked once per ptxas per process ("" if it fails).
std::string ptxasVersion(const std::string &ptxas) {
  static std::mutex mutex;
  static std::map<std::string, std::string> known;
  std::lock_guard lock(mutex);
  auto [it, inserted] = known.try_emplace(ptxas);
  if (!inserted)
    return it->second;
  llvm::SmallString<128> output;
  if (llvm::sys::fs::createTemporaryFile("blockjit-ptxas", "txt", output))
    return "";
  std::optional<llvm::StringRef> redirects[] = {
      std::nullopt, llvm::StringRef(output), llvm::StringRef(output)};
  llvm::StringRef args[] = {ptxas, "--version"};
  if (llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects) == 0)
    if (auto text = llvm::MemoryBuffer::getFile(output))
      it->second = (*text)->getBuffer().trim().str();
  llvm::sys::fs::remove(output);
  return it->second;
}

class CUDABackend final : public Backend {
public:
  TargetKind kind() const override { return TargetKind::CUDA; }
  llvm::StringRef name() const override { return "cuda"; }
  llvm::ArrayRef<Stage> stages() const override { return kStages; }
  llvm::Error checkOptions(const CompileOptions &options) const override {
    // Before any work: an arch the NVPTX backend cannot target would abort it.
    if (llvm::Error error = checkCudaArch(options.target.smArch))
      return error;
    if (options.numCTAs > 1 && options.target.smArch < 90)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "num_ctas = " + std::to_string(options.numCTAs) +
              " needs thread-block clusters, which sm_" +
              std::to_string(options.target.smArch) +
              " lacks (sm_90 or newer; use num_ctas = 1)");
    return llvm::Error::success();
  }
  llvm::Expected<llvm::TargetMachine &>
  targetMachine(const CompileOptions &options) const override {
    return nvptxTargetMachine(options.target.smArch);
  }
  std::string fingerprint(const CompileOptions &) const override {
    // The artifact is a cubin when a ptxas is found, else PTX.
    std::string ptxas = findPtxas();
    if (ptxas.empty())
      return "ptx (no ptxas)\n";
    return "ptxas " + ptxas + ": " + ptxasVersion(ptxas) + "\n";
  }
};

} // namespace

const Backend &cudaBackend() {
  static const CUDABackend backend;
  return backend;
}

} // namespace blockjit
