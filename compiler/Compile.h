//===- Compile.h - from a traced module to a loadable artifact -*- C++ -*-===//
#ifndef BLOCKJIT_COMPILER_COMPILE_H
#define BLOCKJIT_COMPILER_COMPILE_H

#include "compiler/Artifact.h"
#include "compiler/Specialization.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace blockjit {

/// Called after each stage with its name and printed output.
using DumpHook =
    std::function<void(llvm::StringRef stage, llvm::StringRef text)>;

/// Checks `options` (validate()), then runs every stage of the target's
/// backend (Backend::stages()) on `module`, changing it in place, and returns
/// the artifact. `dump` sees each stage's output. With `lastStage` set, stops
/// after that stage; the artifact is then incomplete.
llvm::Expected<CompiledArtifact> compileModule(mlir::ModuleOp module,
                                               const CompileOptions &options,
                                               const DumpHook &dump = {},
                                               llvm::StringRef lastStage = {});

/// Adds every MLIR stage of the target's backend to `pm`: the pipelines
/// blockjit-opt runs as --blockjit-{cpu,gpu}-pipeline.
void buildMLIRPipeline(mlir::OpPassManager &pm, const CompileOptions &options);

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_COMPILE_H
