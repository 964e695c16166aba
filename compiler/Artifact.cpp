//===- Artifact.cpp - what a backend hands the runtime -------------------===//
#include "compiler/Artifact.h"
#include "compiler/Specialization.h"

namespace blockjit {

llvm::StringRef formatName(ArtifactFormat format) {
  switch (format) {
  case ArtifactFormat::HostObject:
    return "host object";
  case ArtifactFormat::PTX:
    return "PTX";
  case ArtifactFormat::Cubin:
    return "cubin";
  }
  return "?";
}

bool looksLoadable(const CompiledArtifact &artifact) {
  if (artifact.entryName.empty() || artifact.binary.empty())
    return false;
  // A cluster is 1..16 CTAs (sm_90's non-portable maximum).
  // Programs per CTA: 1..16 (a named barrier each), at most 1024 threads in
  // all, never on a cluster (compiler/Specialization.h).
  int64_t threadsPerCTA =
      int64_t(artifact.threadsPerProgram) * artifact.programsPerCTA;
  if (artifact.threadsPerProgram < 1 || artifact.ctasPerProgram < 1 ||
      artifact.ctasPerProgram > kMaxNumCTAs || artifact.programsPerCTA < 1 ||
      artifact.programsPerCTA > kMaxProgramsPerCTA ||
      threadsPerCTA > kMaxThreadsPerCTA ||
      (artifact.programsPerCTA > 1 && artifact.ctasPerProgram > 1) ||
      artifact.dynamicSharedMemoryBytes < 0)
    return false;
  llvm::StringRef binary = artifact.binary;
  switch (artifact.format) {
  case ArtifactFormat::HostObject:
  case ArtifactFormat::Cubin:
    return binary.starts_with("\x7f"
                              "ELF");
  case ArtifactFormat::PTX:
    return binary.contains(".entry " + artifact.entryName);
  }
  return false;
}

} // namespace blockjit
