//===- NVPTXTarget.h - LLVM IR to PTX --------------------------*- C++ -*-===//
#ifndef BLOCKJIT_COMPILER_GPU_NVPTXTARGET_H
#define BLOCKJIT_COMPILER_GPU_NVPTXTARGET_H

#include "llvm/Support/Error.h"

#include <string>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace blockjit {

/// Success if blockjit compiles for sm_<smArch>, else an error listing the
/// archs it supports.
llvm::Error checkCudaArch(int smArch);
/// "sm_70, sm_72, ..., sm_121".
std::string supportedCudaArchs();

/// The PTX ISA version paired with a supported sm_XX arch (the lowest that
/// supports it, so older drivers still load the PTX), times ten: 80 -> 70;
/// 0 for an unsupported arch.
int ptxVersionFor(int smArch);
/// Whether accesses in kernels for sm_<smArch> carry L2 eviction priorities
/// (evict_first, evict_last): sm_80+ with PTX 7.4+, the first with
/// createpolicy and .L2::cache_hint. blockjit's sm_80 and sm_86 use older
/// PTX, so that older drivers load it, and their kernels drop the hints.
bool hasEvictionPriorities(int smArch, int ptxVersion);
inline bool hasEvictionPriorities(int smArch) {
  return hasEvictionPriorities(smArch, ptxVersionFor(smArch));
}
/// That version as the NVPTX feature, e.g. 80 -> "+ptx70"; "" for an
/// unsupported arch.
std::string ptxFeatureFor(int smArch);

/// The NVPTX target machine for sm_<smArch> (one per arch, process-wide).
llvm::Expected<llvm::TargetMachine &> nvptxTargetMachine(int smArch);
/// The smArch of a machine nvptxTargetMachine made (read back from its CPU
/// name, "sm_<smArch>"); 0 for any other machine.
int smArchOf(const llvm::TargetMachine &machine);

/// PTX text for `module` (already optimized).
llvm::Expected<std::string> emitPTX(llvm::Module &module, int smArch);

/// The ptxas to assemble PTX with: $BLOCKJIT_PTXAS (a path; "none" turns it
/// off), else `ptxas` on PATH, else /usr/local/cuda/bin/ptxas; empty if none.
std::string findPtxas();

/// A cubin for `ptx`, assembled by `ptxas` for sm_<smArch>. Loading a cubin
/// skips the driver's own PTX compilation, the bulk of a cold first launch.
llvm::Expected<std::string> assembleCubin(llvm::StringRef ptxas,
                                          llvm::StringRef ptx, int smArch);

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_GPU_NVPTXTARGET_H
