//===- CPUExecutor.h - run compiled kernels on host threads ----*- C++ -*-===//
#ifndef BLOCKJIT_RUNTIME_CPUEXECUTOR_H
#define BLOCKJIT_RUNTIME_CPUEXECUTOR_H

#include "compiler/Compile.h"
#include "compiler/cpu/EntryABI.h"
#include "runtime/Launch.h"

#include "llvm/Support/Error.h"

namespace blockjit {

/// A kernel's entry point (see compiler/cpu/EntryABI.h).
using CPUEntry = cpu::EntryFunction;

/// Links a CPU artifact (an ELF object) into the process with ORC and returns
/// its entry point. `uniqueName` separates specializations of one kernel.
llvm::Expected<CPUEntry> loadCPUArtifact(const CompiledArtifact &artifact,
                                         llvm::StringRef uniqueName);

/// Runs every program of `grid` on a pool of threads (as many as cores, or
/// $BLOCKJIT_CPU_THREADS) and returns when all are done.
/// Each thread hands its programs one arena of `scratchBytes` (allocated once
/// per thread and grown when a kernel needs more).
llvm::Error runCPUGrid(CPUEntry entry, void **args, const Grid &grid,
                       int64_t scratchBytes);

/// Threads the CPU executor uses.
unsigned cpuThreadCount();

} // namespace blockjit

#endif // BLOCKJIT_RUNTIME_CPUEXECUTOR_H
