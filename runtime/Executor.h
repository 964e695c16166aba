//===- Executor.h - what the runtime does on a target, in one place -*- C++
//-*-===//
//
// Every runtime behaviour that depends on the target goes through its
// Executor: loading an artifact on a device, what a loaded kernel uses and
// how many of its programs fit on a processor, launching it, and the memory,
// copies and events around launches. runtime/CPUExecutor.h (host threads,
// host memory) and runtime/CudaExecutor.h (a CUDA device through the driver)
// implement it and state their target's rules; `executorFor(kind)` returns
// the one of a target.
//
//   Executor &executor = executorFor(TargetKind::CUDA);
//   LaunchConfig config;
//   config.grid = {16};
//   config.cluster = {2};                       // needs sm_90
//   config.dynamicSharedMemoryBytes = 4096;
//   if (llvm::Error e = executor.launch(kernel, config, args)) ...
//
// launch() (runtime/Launch.h) specializes, compiles and loads through the
// KernelCache and then calls its target's executor once per launch;
// DeviceBuffer (runtime/DeviceBuffer.h) and Event (runtime/Event.h) own the
// memory and events made here.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_RUNTIME_EXECUTOR_H
#define BLOCKJIT_RUNTIME_EXECUTOR_H

#include "compiler/Artifact.h"
#include "compiler/Specialization.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace blockjit {

struct CompiledArtifact;

/// Programs of a launch, or of one cluster, in each dimension.
struct Grid {
  int x = 1, y = 1, z = 1;
  int64_t size() const { return int64_t(x) * y * z; }
  /// (1, 1, 1): for a cluster, no cluster.
  bool isOne() const { return x == 1 && y == 1 && z == 1; }
};

/// An extra property of one launch (CUDA's CUlaunchAttribute). Each executor
/// says which it honours and which it rejects.
struct LaunchAttribute {
  enum class Kind : uint8_t {
    /// All programs are resident at once (value: 0 or 1).
    Cooperative,
    /// The launch may start before the previous kernel on the stream ends,
    /// from that kernel's programmatic trigger on (value: 0 or 1).
    ProgrammaticStreamSerialization,
    /// Scheduling priority of the launch's programs (value: a stream
    /// priority; lower is more urgent).
    Priority,
  };
  Kind kind;
  int value = 1;
};

/// How to run one launch of a loaded kernel.
struct LaunchConfig {
  Grid grid;
  /// Shared memory per program beyond the kernel's static shared memory.
  int dynamicSharedMemoryBytes = 0;
  /// Programs per thread-block cluster in each dimension; (1, 1, 1) is none.
  /// Each grid dimension must be a multiple of the cluster's.
  Grid cluster;
  /// CUDA stream (CUstream) of `device`; null is the default stream.
  void *stream = nullptr;
  /// The device the kernel was loaded on.
  int device = 0;
  /// At most kMaxLaunchAttributes; each kind at most once.
  llvm::ArrayRef<LaunchAttribute> attributes;

  static constexpr size_t kMaxLaunchAttributes = 8;

  /// No dynamic shared memory, no cluster, no attribute: the launch every
  /// executor takes its fastest path for.
  bool isPlain() const {
    return dynamicSharedMemoryBytes == 0 && cluster.isOne() &&
           attributes.empty();
  }
};

/// What a loaded kernel needs and how many of its programs fit on one
/// processor (an SM; on the CPU, one program per thread).
struct KernelResources {
  int registers = 0;         // per thread (GPU)
  /// Per CTA (GPU): static, plus the dynamic the kernel itself needs.
  int sharedMemoryBytes = 0;
  int threadsPerProgram = 1;
  /// CTAs of the thread-block cluster that runs one program (1: none).
  int ctasPerProgram = 1;
  /// Programs sharing one CTA (a CTA has threadsPerProgram times as many
  /// threads).
  int programsPerCTA = 1;
  /// Programs of the kernel that fit on one processor at once (CTAs times
  /// programsPerCTA).
  int maxProgramsPerProcessor = 1;
  int processors = 1; // SMs, or CPU threads
  /// Programs (CTAs, clusters, or slots of CTAs) the whole device holds at
  /// once: what a persistent grid launches.
  int maxResidentPrograms = 1;
};

/// One artifact loaded on one device by an executor. Owned by the compiled
/// kernel it came from (runtime/KernelCache.h), loaded once per device, and
/// never copied: launches may raise its CUDA function attributes.
struct LoadedKernel {
  LoadedKernel() = default;
  LoadedKernel(const LoadedKernel &) = delete;
  LoadedKernel &operator=(const LoadedKernel &) = delete;

  /// The CUfunction (CUDA) or the cpu::EntryFunction (CPU).
  void *handle = nullptr;
  int device = 0;
  int threadsPerProgram = 1;
  /// CTAs per program: a launch of N programs runs N clusters of this many.
  int ctasPerProgram = 1;
  /// Programs per CTA: a launch of N programs runs ceil(N / this) CTAs of
  /// threadsPerProgram times this threads, and passes N as a last, hidden
  /// argument (runtime/Launch.h, appendHiddenArguments).
  int programsPerCTA = 1;
  /// CUDA: static shared memory per program, as the driver reports it.
  int staticSharedMemoryBytes = 0;
  /// CUDA: dynamic shared memory the kernel itself needs per CTA (blocks
  /// kept on chip); launches and occupancy queries add it to theirs.
  int kernelDynamicSharedMemoryBytes = 0;
  /// CPU: the per-thread scratch arena (compiler/cpu/EntryABI.h).
  int64_t cpuScratchBytes = 0;
  /// CUDA: the dynamic shared memory the function accepts now; launches that
  /// need more raise it (it only grows).
  mutable std::atomic<int> dynamicSharedMemoryLimit{0};
};

/// Threads of one CTA of `kernel`: its programs' together.
inline int threadsPerCTA(const LoadedKernel &kernel) {
  return kernel.threadsPerProgram * kernel.programsPerCTA;
}

/// CTAs along x for `programs` programs of `kernel` (one CTA per program, or
/// per programsPerCTA of them: the last CTA's slots past `programs` skip the
/// body).
inline unsigned ctasAlongX(const LoadedKernel &kernel, unsigned programs) {
  return unsigned((uint64_t(programs) + kernel.programsPerCTA - 1) /
                  kernel.programsPerCTA);
}

/// The runtime on one kind of target. One instance per kind, shared by all
/// threads; every method is thread-safe. Device ordinals are the target's
/// (the CPU has one device, 0). Memory addresses are what kernels of the
/// target take as pointer arguments.
class Executor {
public:
  virtual ~Executor() = default;
  virtual TargetKind kind() const = 0;

  //===--- Devices -------------------------------------------------------===//

  /// Devices present (0 when the target cannot run here, e.g. no driver).
  virtual int deviceCount() = 0;
  /// A name for messages and reports.
  virtual llvm::Expected<std::string> deviceName(int device) = 0;
  /// What kernels launched on `device` are compiled for (CUDA: the device's
  /// sm arch). Called on every launch: cheap after the first call.
  virtual llvm::Expected<Target> target(int device) = 0;

  //===--- Kernels -------------------------------------------------------===//

  /// Loads `artifact` on `device` into `kernel`. `uniqueName` tells
  /// specializations of one kernel apart.
  virtual llvm::Error load(const CompiledArtifact &artifact,
                           llvm::StringRef uniqueName, int device,
                           LoadedKernel &kernel) = 0;
  /// What `kernel` uses, and its occupancy with `dynamicSharedMemoryBytes`
  /// of dynamic shared memory per program.
  virtual llvm::Expected<KernelResources>
  resources(const LoadedKernel &kernel, int dynamicSharedMemoryBytes) = 0;
  /// Runs `kernel` over `config.grid` (positive in each dimension);
  /// `args[i]` points to the value of runtime argument i. CPU: returns when
  /// every program is done; CUDA: asynchronous on the stream.
  virtual llvm::Error launch(const LoadedKernel &kernel,
                             const LaunchConfig &config, void **args) = 0;

  //===--- Memory (synchronous with respect to the host) ------------------===//

  /// `bytes` (at least one is allocated) aligned to 256 bytes.
  virtual llvm::Expected<void *> allocate(size_t bytes, int device) = 0;
  virtual void deallocate(void *address, int device) = 0;
  /// Copies and fills return when done, after the work issued before them on
  /// the default stream.
  virtual llvm::Error copyToDevice(void *address, const void *host,
                                   size_t bytes, int device) = 0;
  virtual llvm::Error copyToHost(void *host, const void *address, size_t bytes,
                                 int device) = 0;
  virtual llvm::Error fill(void *address, uint8_t byte, size_t bytes,
                           int device) = 0;
  /// Stream-ordered: after the work issued so far on `stream`, before what
  /// follows (the CPU does them at once). What tuning runs use to flush the
  /// cache and to reset or restore the buffers they overwrite.
  virtual llvm::Error fillOnStream(void *address, uint8_t byte, size_t bytes,
                                   void *stream, int device) = 0;
  virtual llvm::Error copyOnStream(void *to, const void *from, size_t bytes,
                                   void *stream, int device) = 0;
  /// Before a timed run on `stream`: evicts what earlier runs left in the
  /// device's cache by filling `scratch` (`bytes`, kFlushBytes) with
  /// `byte`. A GPU also returns persisting L2 lines to normal first, after
  /// the work issued so far: lines a run read with evict_last survive a
  /// flush made of plain writes, and the next run would find its input in
  /// L2 (bench_common.bench_ms does the same). That reset is context-wide;
  /// it clears persisting lines of the caller's own too, as the flush
  /// evicts its other lines.
  virtual llvm::Error flushCacheOnStream(void *scratch, uint8_t byte,
                                         size_t bytes, void *stream,
                                         int device) {
    return fillOnStream(scratch, byte, bytes, stream, device);
  }
  /// Waits for all work on `device`; reports a kernel's asynchronous fault.
  virtual llvm::Error synchronize(int device) = 0;

  //===--- Events: points in a stream's work, and the time between two
  //-----===//

  virtual llvm::Expected<void *> createEvent(int device) = 0;
  virtual void destroyEvent(void *event, int device) = 0;
  /// Marks the point after the work issued so far on `stream`.
  virtual llvm::Error recordEvent(void *event, void *stream, int device) = 0;
  /// Waits until the work before the recorded point is done.
  virtual llvm::Error synchronizeEvent(void *event, int device) = 0;
  /// Milliseconds between two recorded and completed events.
  virtual llvm::Expected<float> elapsedMilliseconds(void *start, void *end,
                                                    int device) = 0;
};

/// The executor of a target kind (process-wide).
Executor &executorFor(TargetKind kind);

} // namespace blockjit

#endif // BLOCKJIT_RUNTIME_EXECUTOR_H
