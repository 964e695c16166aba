//===- Fingerprint.h - what a compiled artifact depends on -----*- C++ -*-===//
//
// Two compilations of the same IR with the same options give the same
// artifact only if the compiler is the same too. The fingerprint names that
// compiler: a hash of blockjit's own sources taken at build time (a change
// need not be committed to count), the LLVM version, and per backend the
// host CPU and its features (CPU objects) or the ptxas that assembles cubins
// (GPU). The disk cache keys entries with it.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_COMPILER_FINGERPRINT_H
#define BLOCKJIT_COMPILER_FINGERPRINT_H

#include "compiler/Pipeline.h"

#include <string>

namespace blockjit {

/// The hash of blockjit's compiler sources this binary was built from.
const char *sourceFingerprint();

/// Everything besides the IR and the options that an artifact of `options`
/// depends on, as printable text.
std::string compilerFingerprint(const PipelineOptions &options);

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_FINGERPRINT_H
