//===- Fingerprint.h - which compiler made an artifact ---------*- C++ -*-===//
//
// Two compilations of the same IR with the same options give the same
// artifact only if the compiler is the same too. Its fingerprint: a hash of
// blockjit's own sources taken at build time (a change need not be committed
// to count), the LLVM version, and what each backend adds (Backend::
// fingerprint: the host CPU, the ptxas version). artifactKeyMaterial()
// (compiler/Specialization.h) puts them in every disk cache key.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_COMPILER_FINGERPRINT_H
#define BLOCKJIT_COMPILER_FINGERPRINT_H

namespace blockjit {

/// The hash of blockjit's compiler sources this binary was built from.
const char *sourceFingerprint();

/// The LLVM version blockjit is linked with, e.g. "22.1.0".
const char *llvmVersion();

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_FINGERPRINT_H
