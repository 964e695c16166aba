//===- HostTarget.h - LLVM IR to host machine code -------------*- C++ -*-===//
#ifndef BLOCKJIT_COMPILER_CPU_HOSTTARGET_H
#define BLOCKJIT_COMPILER_CPU_HOSTTARGET_H

#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace blockjit {

/// A target machine for this host's CPU and features, position-independent,
/// at -O3. Built once per process.
llvm::Expected<llvm::TargetMachine &> hostTargetMachine();

/// Whether the host has AVX-512F, whose vscalefps makes llvm.ldexp one
/// instruction (false if there is no target machine).
bool hostHasAVX512();

enum class HostOutput { Object, Assembly };

/// Machine code for `module` (already optimized) as an ELF object or text.
llvm::Expected<std::string> emitHostCode(llvm::Module &module,
                                         HostOutput output);

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_CPU_HOSTTARGET_H
