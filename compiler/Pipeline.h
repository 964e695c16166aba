//===- Pipeline.h - the one list of compilation stages ---------*- C++ -*-===//
//
// A kernel goes through named stages. The JIT, blockjit-opt (as pass
// pipelines) and blockjit-dump all read this list, so a stage seen in a dump
// is exactly what the JIT ran.
//
//   trace IR -> blk                       (canonicalize, cse)
//            -> target-specific MLIR stages (see mlirStages())
//            -> llvmir (LLVM IR after optimization)
//            -> ptx (GPU) | asm (CPU)
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_COMPILER_PIPELINE_H
#define BLOCKJIT_COMPILER_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace blockjit {

enum class Backend { CPU, GPU };

struct PipelineOptions {
  Backend backend = Backend::CPU;
  int smArch = 90;   // GPU only: sm_XX
  int numWarps = 4;  // GPU: warps per program
  int numStages = 1; // GPU: software pipelining depth of loads
};

/// One MLIR stage: a named group of passes.
struct Stage {
  const char *name;
  const char *description;
  void (*addPasses)(mlir::OpPassManager &pm, const PipelineOptions &options);
};

/// The MLIR stages of a backend, in order (the first is "blk").
llvm::ArrayRef<Stage> mlirStages(Backend backend);

/// Every stage name of a backend: the MLIR stages, then "llvmir" and the
/// final "ptx" (GPU) or "asm" (CPU).
std::vector<std::string> allStageNames(Backend backend);

/// Called after each stage with its name and printed output.
using DumpHook =
    std::function<void(llvm::StringRef stage, llvm::StringRef text)>;

/// Adds every MLIR stage of `options.backend` to `pm`.
void buildMLIRPipeline(mlir::OpPassManager &pm, const PipelineOptions &options);

/// Runs the MLIR stages on `module` in place, up to and including
/// `lastStage` (all when empty). Diagnostics come back as the error.
llvm::Error runMLIRStages(mlir::ModuleOp module, const PipelineOptions &options,
                          const DumpHook &dump = {},
                          llvm::StringRef lastStage = {});

/// Translates a module in the LLVM dialect to LLVM IR and optimizes it at -O3
/// for the target; reports it as the "llvmir" stage.
llvm::Expected<std::unique_ptr<llvm::Module>>
translateToLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &context,
                  const PipelineOptions &options, const DumpHook &dump = {});

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_PIPELINE_H
