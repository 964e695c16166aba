//===- CPUExecutor.h - run compiled kernels on host threads ----*- C++ -*-===//
#ifndef BLOCKJIT_RUNTIME_CPUEXECUTOR_H
#define BLOCKJIT_RUNTIME_CPUEXECUTOR_H

#include "compiler/Compile.h"
#include "runtime/Launch.h"

#include "llvm/Support/Error.h"

namespace blockjit {

/// `k_blockjit_entry(args, grid)`: args[i] points to argument i's value; grid
/// holds program ids x,y,z then program counts x,y,z.
using CPUEntry = void (*)(void **args, const int32_t *grid);

/// Links a CPU artifact (an ELF object) into the process with ORC and returns
/// its entry point. `uniqueName` separates specializations of one kernel.
llvm::Expected<CPUEntry> loadCPUArtifact(const CompiledArtifact &artifact,
                                         llvm::StringRef uniqueName);

/// Runs every program of `grid` on a pool of threads (as many as cores, or
/// $BLOCKJIT_CPU_THREADS) and returns when all are done.
void runCPUGrid(CPUEntry entry, void **args, const Grid &grid);

/// Threads the CPU executor uses.
unsigned cpuThreadCount();

} // namespace blockjit

#endif // BLOCKJIT_RUNTIME_CPUEXECUTOR_H
