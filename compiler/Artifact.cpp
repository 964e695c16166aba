//===- Artifact.cpp - what a backend hands the runtime -------------------===//
#include "compiler/Artifact.h"

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
  if (artifact.threadsPerProgram < 1 || artifact.ctasPerProgram < 1 ||
      artifact.ctasPerProgram > 16 || artifact.programsPerCTA < 1 ||
      artifact.programsPerCTA > 16 ||
      artifact.threadsPerProgram * artifact.programsPerCTA > 1024 ||
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
