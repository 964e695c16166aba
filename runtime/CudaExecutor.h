//===- CudaExecutor.h - load PTX and launch it on a CUDA device -*- C++ -*-===//
#ifndef BLOCKJIT_RUNTIME_CUDAEXECUTOR_H
#define BLOCKJIT_RUNTIME_CUDAEXECUTOR_H

#include "compiler/Compile.h"
#include "runtime/CudaDriver.h"
#include "runtime/Launch.h"

#include "llvm/Support/Error.h"

namespace blockjit {

/// A kernel loaded on one device, with what the driver says about it.
struct CudaFunction {
  cuda::CUfunction function = nullptr;
  int registers = 0;         // per thread
  int sharedMemoryBytes = 0; // static
  int maxProgramsPerSM = 0;  // occupancy at the compiled thread count
};

/// Loads `artifact` (a cubin, or PTX the driver compiles) on `device`.
llvm::Expected<CudaFunction> loadCudaArtifact(const CompiledArtifact &artifact,
                                              int device);

/// Launches asynchronously on `stream` of `device`; `params[i]` points to
/// argument i.
llvm::Error launchCuda(const CudaFunction &function,
                       const CompiledArtifact &artifact, const Grid &grid,
                       void **params, void *stream, int device);

} // namespace blockjit

#endif // BLOCKJIT_RUNTIME_CUDAEXECUTOR_H
