//===- Registration.cpp - dialects and passes every blockjit tool knows --===//
#include "compiler/Registration.h"
#include "compiler/Compile.h"
#include "compiler/Passes.h"
#include "compiler/gpu/NVPTXTarget.h"

#include "dialect/BlkDialect.h"
#include "dialect/gpu/BlkGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/Error.h"

namespace blockjit {
namespace {

/// Parses `sm=` and rejects an arch the JIT would reject (checkCudaArch), so
/// that blockjit-opt never runs a specialization the JIT cannot compile.
struct CudaArchParser : llvm::cl::parser<int> {
  using llvm::cl::parser<int>::parser;
  bool parse(llvm::cl::Option &option, llvm::StringRef argName,
             llvm::StringRef arg, int &value) {
    if (llvm::cl::parser<int>::parse(option, argName, arg, value))
      return true;
    if (llvm::Error error = checkCudaArch(value))
      return option.error(llvm::toString(std::move(error)));
    return false;
  }
};

/// An eviction option's value, checked as the JIT checks it.
struct EvictionParser : llvm::cl::parser<std::string> {
  using llvm::cl::parser<std::string>::parser;
  bool parse(llvm::cl::Option &option, llvm::StringRef argName,
             llvm::StringRef arg, std::string &value) {
    llvm::Expected<DefaultEviction> eviction = parseDefaultEviction(arg);
    if (!eviction)
      return option.error(llvm::toString(eviction.takeError()));
    value = arg.str();
    return false;
  }
};

/// The options of `--blockjit-gpu-pipeline`: those of one GPU
/// specialization, with the JIT's defaults (CompileOptions). num-warps and
/// num-stages are checked by the passes that use them (blk-assign-layouts,
/// blk-pipeline-loads), exactly as in the JIT; sm is checked here, as the
/// JIT checks it before any work, since no MLIR stage reads it.
struct GPUPipelineOptions : mlir::PassPipelineOptions<GPUPipelineOptions> {
  Option<int> numWarps{
      *this, "num-warps",
      llvm::cl::desc("warps per program (a power of two, 1..32)"),
      llvm::cl::init(CompileOptions().numWarps)};
  Option<int> numStages{
      *this, "num-stages",
      llvm::cl::desc("software pipelining depth of loads (1 = off)"),
      llvm::cl::init(CompileOptions().numStages)};
  Option<int, CudaArchParser> smArch{
      *this, "sm", llvm::cl::desc("CUDA arch sm_XX (checked, unused by MLIR)"),
      llvm::cl::init(90)};
  Option<int> maxRegisters{
      *this, "max-registers",
      llvm::cl::desc("registers a thread may take at most (0: ptxas's "
                     "choice, else 24..255)"),
      llvm::cl::init(CompileOptions().maxRegisters)};
  Option<std::string, EvictionParser> loads{
      *this, "loads",
      llvm::cl::desc("eviction hint of loads without one (normal, "
                     "evict_first, evict_last)"),
      llvm::cl::init("normal")};
  Option<std::string, EvictionParser> stores{
      *this, "stores",
      llvm::cl::desc("eviction hint of stores without one (normal, "
                     "evict_first, evict_last)"),
      llvm::cl::init("normal")};

  /// The one mapping from the command line to the JIT's options.
  CompileOptions toCompileOptions() const {
    CompileOptions options;
    options.target = Target::cuda(smArch);
    options.numWarps = numWarps;
    options.numStages = numStages;
    options.maxRegisters = maxRegisters;
    // Checked by EvictionParser.
    options.loadEviction =
        llvm::cantFail(parseDefaultEviction(loads.getValue()));
    options.storeEviction =
        llvm::cantFail(parseDefaultEviction(stores.getValue()));
    return options;
  }
};

/// `--blockjit-cpu-pipeline` takes no options: a CPU specialization's
/// num_warps and num_stages change nothing in its code. (Through this empty
/// struct rather than the default EmptyPipelineOptions, any option given is
/// named in the error instead of failing without a message.)
struct CPUPipelineOptions : mlir::PassPipelineOptions<CPUPipelineOptions> {};

} // namespace

void registerDialects(mlir::DialectRegistry &registry) {
  registry
      .insert<blk::BlkDialect, blkgpu::BlkGPUDialect, mlir::arith::ArithDialect,
              mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
              mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect,
              mlir::math::MathDialect, mlir::scf::SCFDialect,
              mlir::tensor::TensorDialect, mlir::memref::MemRefDialect>();
}

void registerPasses() {
  mlir::registerTransformsPasses();
  registerBlockjitPasses();
  // The JIT's own stage lists, runnable as one pipeline each, with the
  // options of a specialization.
  static mlir::PassPipelineRegistration<CPUPipelineOptions> cpu(
      "blockjit-cpu-pipeline", "every MLIR stage of the CPU backend",
      [](mlir::OpPassManager &pm, const CPUPipelineOptions &) {
        buildMLIRPipeline(pm, CompileOptions{Target::cpu()});
      });
  static mlir::PassPipelineRegistration<GPUPipelineOptions> gpu(
      "blockjit-gpu-pipeline",
      "every MLIR stage of the GPU backend, for the specialization of the "
      "given num-warps, num-stages and sm",
      [](mlir::OpPassManager &pm, const GPUPipelineOptions &options) {
        buildMLIRPipeline(pm, options.toCompileOptions());
      });
}

} // namespace blockjit
