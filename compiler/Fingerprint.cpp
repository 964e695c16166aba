//===- Fingerprint.cpp - which compiler made an artifact -----------------===//
#include "compiler/Fingerprint.h"

#include "compiler/SourceFingerprint.inc"

#include "llvm/Config/llvm-config.h"

namespace blockjit {

const char *sourceFingerprint() { return BLOCKJIT_SOURCE_FINGERPRINT; }

const char *llvmVersion() { return LLVM_VERSION_STRING; }

} // namespace blockjit
