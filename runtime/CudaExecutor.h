//===- CudaExecutor.h - load PTX and launch it on a CUDA device -*- C++ -*-===//
//
// The Executor of the CUDA target, on the driver API (runtime/CudaDriver.h;
// no link-time CUDA dependency). Its rules:
//
// - Devices are the driver's ordinals, each used through its primary context
//   (the one the CUDA runtime and PyTorch use, so their pointers and streams
//   work here). load() loads a cubin, or PTX the driver compiles.
// - A plain launch (LaunchConfig::isPlain) is one cuLaunchKernel. Dynamic
//   shared memory alone still uses cuLaunchKernel; a cluster or launch
//   attributes use cuLaunchKernelEx, which older drivers lack (an error for
//   those launches only). Dynamic shared memory above the default 48 KiB
//   per program raises the function's limit once (cuFuncSetAttribute), up to
//   the device's opt-in maximum; clusters above the portable 8 programs
//   allow non-portable sizes for the function.
// - A cluster is checked before the driver sees it: positive, a divisor of
//   the grid in each dimension, on a device that launches clusters (sm_90
//   and newer). A launch the driver rejects is an error, never a poisoned
//   context.
// - Events are CUDA events on the launch's stream.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_RUNTIME_CUDAEXECUTOR_H
#define BLOCKJIT_RUNTIME_CUDAEXECUTOR_H

#include "runtime/CudaDriver.h"
#include "runtime/Executor.h"

#include <array>
#include <atomic>
#include <mutex>

namespace blockjit {

class CudaExecutor final : public Executor {
public:
  TargetKind kind() const override { return TargetKind::CUDA; }

  int deviceCount() override { return cuda::deviceCount(); }
  llvm::Expected<std::string> deviceName(int device) override;
  llvm::Expected<Target> target(int device) override;

  llvm::Error load(const CompiledArtifact &artifact, llvm::StringRef uniqueName,
                   int device, LoadedKernel &kernel) override;
  llvm::Expected<KernelResources>
  resources(const LoadedKernel &kernel, int dynamicSharedMemoryBytes) override;
  llvm::Error launch(const LoadedKernel &kernel, const LaunchConfig &config,
                     void **args) override;

  llvm::Expected<void *> allocate(size_t bytes, int device) override;
  void deallocate(void *address, int device) override;
  llvm::Error copyToDevice(void *address, const void *host, size_t bytes,
                           int device) override;
  llvm::Error copyToHost(void *host, const void *address, size_t bytes,
                         int device) override;
  llvm::Error fill(void *address, uint8_t byte, size_t bytes,
                   int device) override;
  llvm::Error fillOnStream(void *address, uint8_t byte, size_t bytes,
                           void *stream, int device) override;
  llvm::Error copyOnStream(void *to, const void *from, size_t bytes,
                           void *stream, int device) override;
  llvm::Error flushCacheOnStream(void *scratch, uint8_t byte, size_t bytes,
                                 void *stream, int device) override;
  llvm::Error synchronize(int device) override;

  llvm::Expected<void *> createEvent(int device) override;
  void destroyEvent(void *event, int device) override;
  llvm::Error recordEvent(void *event, void *stream, int device) override;
  llvm::Error synchronizeEvent(void *event, int device) override;
  llvm::Expected<float> elapsedMilliseconds(void *start, void *end,
                                            int device) override;

private:
  /// Launches that are not plain: checks, limits, cuLaunchKernelEx.
  /// Clusters of `kernel` (ctasPerProgram > 1) resident on its device at
  /// once with that much dynamic shared memory per CTA.
  llvm::Expected<int> residentClusters(const cuda::DriverAPI &api,
                                       const LoadedKernel &kernel,
                                       int dynamicSharedMemoryBytes);
  /// Lets `kernel` run on clusters of `ctas` CTAs, raising its limit when
  /// that is above the portable 8.
  llvm::Error allowClusterSize(const cuda::DriverAPI &api,
                               const LoadedKernel &kernel, int64_t ctas);
  llvm::Error launchUnusual(const cuda::DriverAPI &api,
                            const LoadedKernel &kernel,
                            const LaunchConfig &config, void **args);
  /// Raises `kernel`'s dynamic shared memory limit to at least `bytes`
  /// (without a lock or a driver call when it is that high already).
  llvm::Error allowDynamicSharedMemory(const cuda::DriverAPI &api,
                                       const LoadedKernel &kernel, int bytes);
  /// Whether `device` launches clusters (asked of the driver once).
  bool launchesClusters(const cuda::DriverAPI &api, int device);

  /// Serializes raising function limits (never on a plain launch).
  std::mutex limitsMutex;
  /// Per device: 0 not asked yet, 1 launches clusters, -1 does not.
  std::array<std::atomic<int8_t>, cuda::kMaxDevices> clusterSupport{};
};

} // namespace blockjit

#endif // BLOCKJIT_RUNTIME_CUDAEXECUTOR_H
