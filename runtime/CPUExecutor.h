//===- CPUExecutor.h - run compiled kernels on host threads ----*- C++ -*-===//
//
// The Executor of the CPU target. Its rules where they differ from a GPU's:
//
// - One device, 0: the host. Its memory is host memory (a "device buffer" is
//   an aligned host allocation), copies are memcpy, synchronize() has
//   nothing to wait for, and an event records the host clock.
// - A launch links nothing at run time: load() links the artifact (an ELF
//   object) into the process with ORC; launch() runs every program on a pool
//   of threads (as many as cores, or $BLOCKJIT_CPU_THREADS) and returns when
//   all are done. Each thread hands its programs one scratch arena
//   (compiler/cpu/EntryABI.h).
// - Programs run independently, one after another on each thread, so
//   nothing that needs programs to be resident together is honoured: a
//   cluster other than (1, 1, 1) and the Cooperative attribute are errors.
//   Scheduling hints (Priority, ProgrammaticStreamSerialization) and dynamic
//   shared memory have no effect: no CPU kernel reads dynamic shared memory.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_RUNTIME_CPUEXECUTOR_H
#define BLOCKJIT_RUNTIME_CPUEXECUTOR_H

#include "runtime/Executor.h"

namespace blockjit {

class CPUExecutor final : public Executor {
public:
  TargetKind kind() const override { return TargetKind::CPU; }

  int deviceCount() override { return 1; }
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
  llvm::Error synchronize(int device) override;

  llvm::Expected<void *> createEvent(int device) override;
  void destroyEvent(void *event, int device) override;
  llvm::Error recordEvent(void *event, void *stream, int device) override;
  llvm::Error synchronizeEvent(void *event, int device) override;
  llvm::Expected<float> elapsedMilliseconds(void *start, void *end,
                                            int device) override;
};

/// Threads the CPU executor runs programs on: $BLOCKJIT_CPU_THREADS, else
/// hostProcessors().
unsigned cpuThreadCount();

/// The processors this process may use: the CPUs of its affinity mask
/// (taskset, a container's cpuset), at most its cgroup's CPU quota, rather
/// than every core of the machine.
unsigned hostProcessors();

} // namespace blockjit

#endif // BLOCKJIT_RUNTIME_CPUEXECUTOR_H
