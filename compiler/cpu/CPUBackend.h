//===- CPUBackend.h - the host backend -------------------------*- C++ -*-===//
#ifndef BLOCKJIT_COMPILER_CPU_CPUBACKEND_H
#define BLOCKJIT_COMPILER_CPU_CPUBACKEND_H

#include "compiler/Backend.h"

namespace blockjit {

/// Compiles blocks to vectorizable loops and a host ELF object whose entry
/// point follows compiler/cpu/EntryABI.h.
const Backend &cpuBackend();

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_CPU_CPUBACKEND_H
