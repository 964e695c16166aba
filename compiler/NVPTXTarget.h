//===- NVPTXTarget.h - LLVM IR to PTX --------------------------*- C++ -*-===//
#ifndef BLOCKJIT_COMPILER_NVPTXTARGET_H
#define BLOCKJIT_COMPILER_NVPTXTARGET_H

#include "llvm/Support/Error.h"

#include <string>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace blockjit {

/// The PTX ISA version paired with an sm_XX arch (the lowest that supports
/// it, so older drivers still load the PTX), e.g. 80 -> "+ptx70".
std::string ptxFeatureFor(int smArch);

/// The NVPTX target machine for sm_<smArch> (one per arch, process-wide).
llvm::Expected<llvm::TargetMachine &> nvptxTargetMachine(int smArch);

/// PTX text for `module` (already optimized).
llvm::Expected<std::string> emitPTX(llvm::Module &module, int smArch);

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_NVPTXTARGET_H
