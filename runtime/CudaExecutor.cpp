//===- CudaExecutor.cpp - load PTX and launch it on a CUDA device --------===//
#include "runtime/CudaExecutor.h"

namespace blockjit {

namespace {
enum : int { kFuncNumRegs = 4, kFuncSharedSizeBytes = 1 };
} // namespace

llvm::Expected<CudaFunction> loadCudaArtifact(const CompiledArtifact &artifact,
                                              int device) {
  auto api = cuda::driverOn(device);
  if (!api)
    return api.takeError();
  cuda::CUmodule module;
  // std::string keeps PTX NUL-terminated, as cuModuleLoadData needs; a
  // cubin is an ELF image the driver reads as is.
  if (llvm::Error e = cuda::check(
          api->cuModuleLoadData(&module, artifact.binary.c_str()),
          artifact.format == ArtifactFormat::Cubin ? "cuModuleLoadData (the driver rejected the cubin)"
                           : "cuModuleLoadData (the driver rejected the PTX)"))
    return std::move(e);
  CudaFunction result;
  if (llvm::Error e =
          cuda::check(api->cuModuleGetFunction(&result.function, module,
                                               artifact.entryName.c_str()),
                      "cuModuleGetFunction"))
    return std::move(e);
  if (llvm::Error e =
          cuda::check(api->cuFuncGetAttribute(&result.registers, kFuncNumRegs,
                                              result.function),
                      "cuFuncGetAttribute"))
    return std::move(e);
  if (llvm::Error e = cuda::check(
          api->cuFuncGetAttribute(&result.sharedMemoryBytes,
                                  kFuncSharedSizeBytes, result.function),
          "cuFuncGetAttribute"))
    return std::move(e);
  if (llvm::Error e =
          cuda::check(api->cuOccupancyMaxActiveBlocksPerMultiprocessor(
                          &result.maxProgramsPerSM, result.function,
                          artifact.threadsPerProgram, 0),
                      "cuOccupancyMaxActiveBlocksPerMultiprocessor"))
    return std::move(e);
  return result;
}

llvm::Error launchCuda(const CudaFunction &function,
                       const CompiledArtifact &artifact, const Grid &grid,
                       void **params, void *stream, int device) {
  auto api = cuda::driverOn(device);
  if (!api)
    return api.takeError();
  return cuda::check(
      api->cuLaunchKernel(function.function, grid.x, grid.y, grid.z,
                          artifact.threadsPerProgram, 1, 1, 0,
                          static_cast<cuda::CUstream>(stream), params, nullptr),
      "cuLaunchKernel");
}

} // namespace blockjit
