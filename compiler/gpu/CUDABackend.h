//===- CUDABackend.h - the NVIDIA GPU backend ------------------*- C++ -*-===//
#ifndef BLOCKJIT_COMPILER_GPU_CUDABACKEND_H
#define BLOCKJIT_COMPILER_GPU_CUDABACKEND_H

#include "compiler/Backend.h"

namespace blockjit {

/// Compiles blocks to per-thread values of laid-out blocks, NVVM, PTX and,
/// when a ptxas is at hand, a cubin.
const Backend &cudaBackend();

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_GPU_CUDABACKEND_H
