//===- KernelCache.cpp - compiled specializations, compiled once ---------===//
#include "runtime/KernelCache.h"
#include "compiler/Environment.h"

#include "compiler/Registration.h"
#include "runtime/DiskCache.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>

namespace blockjit {

namespace {

/// Writes each stage to $BLOCKJIT_DUMP_DIR when it is set. A directory that
/// cannot be written gets one warning per process, not a silent nothing.
DumpHook dumpHookFor(const KernelDef &kernel, const SpecializationKey &key) {
  std::optional<std::string> dir = env::dumpDir();
  if (!dir || dir->empty())
    return {};
  std::string base = key.fileName(kernel.name(), kernel.constexprNames());
  std::string directory = *dir;
  return [directory, base](llvm::StringRef stage, llvm::StringRef text) {
    static std::once_flag warned;
    std::error_code ec = llvm::sys::fs::create_directories(directory);
    llvm::SmallString<256> path(directory);
    llvm::sys::path::append(path, base + "." + stage.str());
    if (!ec) {
      llvm::raw_fd_ostream os(path, ec);
      if (!ec) {
        os << text;
        os.close();
        ec = os.error();
        os.clear_error();
      }
    }
    if (ec)
      std::call_once(warned, [&] {
        llvm::errs() << "blockjit: warning: BLOCKJIT_DUMP_DIR: cannot write "
                     << path << ": " << ec.message()
                     << "; stages are not dumped\n";
      });
  };
}

/// The traced IR as text: what the disk cache key hashes.
std::string printIR(mlir::ModuleOp module) {
  std::string ir;
  llvm::raw_string_ostream os(ir);
  module.print(os);
  return ir;
}

/// A context with every dialect blockjit's stages use; one per compilation.
std::unique_ptr<mlir::MLIRContext> compilerContext() {
  mlir::DialectRegistry registry;
  registerDialects(registry);
  return std::make_unique<mlir::MLIRContext>(
      registry, mlir::MLIRContext::Threading::DISABLED);
}

/// A specialization traced for compiling: its module (in its own context),
/// the module as text, and the disk cache entry that text names.
struct TracedSpecialization {
  std::unique_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::string ir;
  DiskCacheKey diskKey;
};

llvm::Expected<TracedSpecialization>
traceSpecialization(const KernelDef &kernel, const SpecializationKey &key) {
  TracedSpecialization traced;
  traced.context = compilerContext();
  auto module = kernel.trace(*traced.context, key.argTypes, key.constexprs,
                             key.divisibility, key.ranges);
  if (!module)
    return module.takeError();
  traced.module = std::move(*module);
  traced.ir = printIR(*traced.module);
  traced.diskKey = diskCacheKey(artifactKeyMaterial(traced.ir, key.options));
  return traced;
}

/// Runs the stages on the traced `module` and stores the artifact on disk.
llvm::Expected<CompiledArtifact> compileAndStore(mlir::ModuleOp module,
                                                 const CompileOptions &options,
                                                 const DiskCacheKey &diskKey,
                                                 const DumpHook &dump = {}) {
  auto artifact = compileModule(module, options, dump);
  if (artifact)
    writeDiskCache(diskKey, *artifact);
  return artifact;
}

/// Traces and compiles `key` again, bypassing the disk cache, and replaces
/// its disk entry.
llvm::Expected<CompiledArtifact> compileFresh(const KernelDef &kernel,
                                              const SpecializationKey &key) {
  auto traced = traceSpecialization(kernel, key);
  if (!traced)
    return traced.takeError();
  return compileAndStore(*traced->module, key.options, traced->diskKey);
}
} // namespace

std::string specializationName(const KernelDef &kernel,
                               const SpecializationKey &key) {
  return key.str(kernel.name(), kernel.constexprNames());
}

llvm::Error checkSpecialization(const KernelDef &kernel,
                                const SpecializationKey &key) {
  // checkTraceArgs names the kernel itself.
  if (llvm::Error error = kernel.checkTraceArgs(key.argTypes, key.constexprs))
    return error;
  if (llvm::Error error = validate(key.options))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "kernel '" + kernel.name() + "': " + llvm::toString(std::move(error)));
  return llvm::Error::success();
}

llvm::Expected<DiskCacheKey> diskCacheKeyFor(const KernelDef &kernel,
                                             const SpecializationKey &key) {
  auto traced = traceSpecialization(kernel, key);
  if (!traced)
    return traced.takeError();
  return traced->diskKey;
}

llvm::Expected<std::unique_ptr<CompiledKernel>>
compileSpecialization(const KernelDef &kernel, const SpecializationKey &key) {
  auto start = std::chrono::steady_clock::now();
  auto compiled = std::make_unique<CompiledKernel>();
  compiled->keyString = specializationName(kernel, key);
  if (llvm::Error error = checkSpecialization(kernel, key))
    return std::move(error);
  compiled->target = key.options.target.kind;
  auto traced = traceSpecialization(kernel, key);
  if (!traced)
    return traced.takeError();
  DumpHook dump = dumpHookFor(kernel, key);
  const CompileOptions &options = key.options;
  if (dump)
    dump("trace", traced->ir);
  const DiskCacheKey &diskKey = traced->diskKey;
  // Compiles the traced module (it is still untouched when this runs).
  auto compileHere = [&]() -> llvm::Error {
    auto artifact = compileAndStore(*traced->module, options, diskKey, dump);
    if (!artifact)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "compiling " + compiled->keyString + ": " +
                                         llvm::toString(artifact.takeError()));
    compiled->artifact = std::move(*artifact);
    compiled->fromDiskCache = false;
    return llvm::Error::success();
  };
  // Dumps want every stage, so they bypass the disk cache.
  std::optional<CompiledArtifact> cached;
  if (!dump)
    cached = readDiskCache(diskKey);
  if (cached) {
    compiled->artifact = std::move(*cached);
    compiled->fromDiskCache = true;
  } else if (llvm::Error error = compileHere()) {
    return std::move(error);
  }
  if (options.target.kind == TargetKind::CPU) {
    // The host is the CPU target's one device: load it now.
    llvm::Error loadError = compiled->loadOn(0, compiled->artifact);
    if (loadError && compiled->fromDiskCache) {
      // A cached object the JIT linker rejects is replaced, not fatal.
      discardDiskCacheEntry(diskKey, llvm::toString(std::move(loadError)));
      if (llvm::Error error = compileHere())
        return std::move(error);
      loadError = compiled->loadOn(0, compiled->artifact);
    }
    if (loadError)
      return std::move(loadError);
  } else if (compiled->fromDiskCache) {
    // A GPU artifact loads later, once per device; if the driver rejects
    // it, that load compiles the specialization again from the IR.
    compiled->diskKey = diskKey;
    compiled->recompile = [&kernel, key] { return compileFresh(kernel, key); };
  }
  compiled->compileMilliseconds = std::chrono::duration<double, std::milli>(
                                      std::chrono::steady_clock::now() - start)
                                      .count();
  return compiled;
}

llvm::Error CompiledKernel::loadOn(int device,
                                   const CompiledArtifact &source) const {
  DeviceSlot &slot = devices[device];
  if (llvm::Error error =
          executorFor(target).load(source, keyString, device, slot.kernel))
    return error;
  slot.ready.store(true, std::memory_order_release);
  return llvm::Error::success();
}

llvm::Expected<const LoadedKernel &> CompiledKernel::loaded(int device) const {
  if (device < 0 || device >= cuda::kMaxDevices)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "device %d is out of range", device);
  DeviceSlot &slot = devices[device];
  // Loaded already (every launch after the first): no call_once.
  if (slot.ready.load(std::memory_order_acquire))
    return slot.kernel;
  std::call_once(slot.once, [&] {
    llvm::Error error = loadOn(device, artifact);
    if (error && fromDiskCache && recompile) {
      // The driver rejected what the disk cache held: replace the entry.
      discardDiskCacheEntry(*diskKey, llvm::toString(std::move(error)));
      auto fresh = recompile();
      if (!fresh) {
        slot.error = "recompiling " + keyString + ": " +
                     llvm::toString(fresh.takeError());
        return;
      }
      slot.artifact = std::make_unique<CompiledArtifact>(std::move(*fresh));
      error = loadOn(device, *slot.artifact);
    }
    if (error)
      slot.error = "loading " + keyString + " on device " +
                   std::to_string(device) + ": " +
                   llvm::toString(std::move(error));
  });
  if (!slot.error.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), slot.error);
  return slot.kernel;
}

KernelCache &KernelCache::instance() {
  static KernelCache cache;
  return cache;
}

void KernelCache::clear() {
  std::lock_guard lock(mutex);
  generation.fetch_add(1, std::memory_order_acq_rel); // forget last hits
  entries.clear();
}

llvm::Expected<const CompiledKernel &>
KernelCache::get(const KernelDef &kernel, const SpecializationKey &key) {
  // A loop launching one specialization hits the same entry every time:
  // each thread remembers its last hit and skips the lock and the hash.
  struct LastHit {
    const KernelCache *cache = nullptr;
    uint64_t generation = 0;
    const KernelDef *kernel = nullptr;
    SpecializationKey key;
    const CompiledKernel *compiled = nullptr;
  };
  thread_local LastHit last;
  uint64_t now = generation.load(std::memory_order_acquire);
  if (last.compiled && last.cache == this && last.generation == now &&
      last.kernel == &kernel && last.key == key)
    return *last.compiled;
  std::shared_ptr<Entry> entry;
  {
    std::lock_guard lock(mutex);
    std::shared_ptr<Entry> &slot = entries[Key{&kernel, key}];
    if (!slot)
      slot = std::make_shared<Entry>();
    entry = slot;
  }
  std::call_once(entry->once, [&] {
    auto compiled = compileSpecialization(kernel, key);
    if (compiled)
      entry->compiled = std::move(*compiled);
    else
      entry->error = llvm::toString(compiled.takeError());
  });
  if (!entry->compiled)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   entry->error);
  last = {this, now, &kernel, key, entry->compiled.get()};
  return *entry->compiled;
}

} // namespace blockjit
