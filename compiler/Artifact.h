//===- Artifact.h - what a backend hands the runtime -----------*- C++ -*-===//
#ifndef BLOCKJIT_COMPILER_ARTIFACT_H
#define BLOCKJIT_COMPILER_ARTIFACT_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace blockjit {

/// The forms an artifact's binary takes; each backend says which it makes.
enum class ArtifactFormat : uint8_t {
  HostObject, // a relocatable ELF object for the host (CPU backend)
  PTX,        // PTX text the CUDA driver compiles when loading
  Cubin,      // an ELF cubin assembled by ptxas
};

/// "host object", "PTX", "cubin".
llvm::StringRef formatName(ArtifactFormat format);

/// What a backend produces for one specialization. Self-contained, so it can
/// be cached on disk and loaded by another process.
struct CompiledArtifact {
  ArtifactFormat format = ArtifactFormat::HostObject;
  std::string entryName; // symbol of the kernel entry point
  std::string binary;    // in `format`
  int threadsPerProgram = 1;
  /// CTAs of the thread-block cluster that runs one program (1: no cluster).
  int ctasPerProgram = 1;
  /// Programs sharing one CTA, each on threadsPerProgram threads of it
  /// (compiler/Specialization.h); the kernel takes the grid's program count
  /// as a last, hidden parameter when > 1.
  int programsPerCTA = 1;
  int sharedMemoryBytes = 0;   // static shared memory of the GPU kernel
  /// Dynamic shared memory the GPU kernel itself needs per CTA (blocks kept
  /// on chip, blk-stage-in-shared); every launch adds it to its own.
  int dynamicSharedMemoryBytes = 0;
  int64_t cpuScratchBytes = 0; // CPU: per-thread arena (cpu/EntryABI.h)
};

/// Whether `artifact` looks like what its format's loader takes: a guard
/// against disk cache entries whose checksum is right but whose content is
/// not (a writer bug).
bool looksLoadable(const CompiledArtifact &artifact);

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_ARTIFACT_H
