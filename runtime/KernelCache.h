//===- KernelCache.h - compiled specializations, compiled once -*- C++ -*-===//
#ifndef BLOCKJIT_RUNTIME_KERNELCACHE_H
#define BLOCKJIT_RUNTIME_KERNELCACHE_H

#include "compiler/Compile.h"
#include "compiler/Specialization.h"
#include "frontend/Kernel.h"
#include "runtime/CudaDriver.h"
#include "runtime/DiskCache.h"
#include "runtime/Executor.h"

#include "llvm/Support/Error.h"

#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace blockjit {

/// One specialization, ready to launch.
struct CompiledKernel {
  std::string keyString;
  TargetKind target = TargetKind::CPU;
  CompiledArtifact artifact;
  /// The kernel loaded on `device` by its target's executor: loaded on first
  /// use, once per device, so one specialization serves every GPU of its
  /// arch (the CPU's one device is loaded when it is compiled).
  llvm::Expected<const LoadedKernel &> loaded(int device) const;
  /// How long trace + compile (or disk read) + load took.
  double compileMilliseconds = 0;
  /// The artifact came from the disk cache (no pipeline ran).
  bool fromDiskCache = false;
  /// For a GPU artifact from the disk cache: its entry, and how to compile it
  /// afresh should a device's driver reject it.
  std::optional<DiskCacheKey> diskKey;
  std::function<llvm::Expected<CompiledArtifact>()> recompile;

private:
  friend llvm::Expected<std::unique_ptr<CompiledKernel>>
  compileSpecialization(const KernelDef &kernel, const SpecializationKey &key);

  struct DeviceSlot {
    std::once_flag once;
    std::atomic<bool> ready{false}; // `kernel` is loaded
    LoadedKernel kernel;
    std::string error;
    /// A recompiled artifact, when the cached one failed to load here.
    std::unique_ptr<CompiledArtifact> artifact;
  };
  /// Loads `source` on `device` into its slot (no retry).
  llvm::Error loadOn(int device, const CompiledArtifact &source) const;

  mutable std::array<DeviceSlot, cuda::kMaxDevices> devices;
};

/// "softmax[f32,...|BLOCK_SIZE=1024|warps=8,stages=1|div16=0,1|cuda:sm_90]".
std::string specializationName(const KernelDef &kernel,
                               const SpecializationKey &key);

/// Success if `key` fits `kernel`'s signature and its options are valid
/// (compiler/Specialization.h), else an error naming the kernel.
llvm::Error checkSpecialization(const KernelDef &kernel,
                                const SpecializationKey &key);

/// The disk cache entry `key` of `kernel` is stored under (traces it).
llvm::Expected<DiskCacheKey> diskCacheKeyFor(const KernelDef &kernel,
                                             const SpecializationKey &key);

/// Compiles `key` of `kernel`: trace, every pipeline stage (or the disk
/// cache entry for the traced IR, see DiskCache.h), load. With
/// $BLOCKJIT_DUMP_DIR set, writes every stage to
/// $BLOCKJIT_DUMP_DIR/<kernel key>.<stage>.
llvm::Expected<std::unique_ptr<CompiledKernel>>
compileSpecialization(const KernelDef &kernel, const SpecializationKey &key);

/// The in-memory cache: per (kernel, key), compiled once even when several
/// threads ask at the same time. A hit hashes only the key's fields.
class KernelCache {
public:
  static KernelCache &instance();
  llvm::Expected<const CompiledKernel &> get(const KernelDef &kernel,
                                             const SpecializationKey &key);
  /// Forget everything (tests; not while other threads launch).
  void clear();

private:
  /// Bumped by clear(), so no thread reuses a forgotten entry.
  std::atomic<uint64_t> generation{0};
  struct Entry {
    std::once_flag once;
    std::unique_ptr<CompiledKernel> compiled;
    std::string error;
  };
  struct Key {
    const KernelDef *kernel;
    SpecializationKey key;
    bool operator==(const Key &) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key &k) const {
      return k.key.hash() ^ (std::hash<const void *>()(k.kernel) * 31);
    }
  };
  std::mutex mutex;
  std::unordered_map<Key, std::shared_ptr<Entry>, KeyHash> entries;
};

} // namespace blockjit

#endif // BLOCKJIT_RUNTIME_KERNELCACHE_H
