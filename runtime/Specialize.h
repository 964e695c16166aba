//===- Specialize.h - from a specialization key to compiler options -*- C++
//-*-===//
#ifndef BLOCKJIT_RUNTIME_SPECIALIZE_H
#define BLOCKJIT_RUNTIME_SPECIALIZE_H

#include "compiler/Pipeline.h"
#include "frontend/Kernel.h"

namespace blockjit {

/// The compiler options that `key` asks for (the one place that maps them).
inline PipelineOptions pipelineOptionsFor(const SpecializationKey &key) {
  PipelineOptions options;
  options.backend =
      key.target.kind == TargetKind::CUDA ? Backend::GPU : Backend::CPU;
  options.smArch = key.target.smArch; // checked by the GPU compiler
  options.numWarps = key.numWarps;
  options.numStages = key.numStages;
  return options;
}

} // namespace blockjit

#endif // BLOCKJIT_RUNTIME_SPECIALIZE_H
