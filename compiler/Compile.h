//===- Compile.h - from a traced module to a loadable artifact -*- C++ -*-===//
#ifndef BLOCKJIT_COMPILER_COMPILE_H
#define BLOCKJIT_COMPILER_COMPILE_H

#include "compiler/Pipeline.h"

#include <string>

namespace blockjit {

/// What a backend produces for one specialization: PTX text for the GPU, a
/// relocatable ELF object for the host. Self-contained, so it can be cached
/// on disk and loaded by another process.
struct CompiledArtifact {
  Backend backend = Backend::CPU;
  std::string entryName; // symbol of the kernel entry point
  std::string binary;    // PTX text, a cubin, or object file bytes
  bool isCubin = false;  // GPU: `binary` was assembled by ptxas
  int threadsPerProgram = 1;
  int sharedMemoryBytes = 0;   // static shared memory of the GPU kernel
  int64_t cpuScratchBytes = 0; // CPU: per-thread arena (cpu/EntryABI.h)
};

/// Runs every stage on `module` (changing it in place) and returns the
/// artifact. `dump` sees each stage's output. With `lastStage` set, stops
/// after that stage and returns an artifact with an empty binary.
llvm::Expected<CompiledArtifact> compileModule(mlir::ModuleOp module,
                                               const PipelineOptions &options,
                                               const DumpHook &dump = {},
                                               llvm::StringRef lastStage = {});

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_COMPILE_H
