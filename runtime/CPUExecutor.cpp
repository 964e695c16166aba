//===- CPUExecutor.cpp - run compiled kernels on host threads ------------===//
#include "runtime/CPUExecutor.h"
#include "compiler/Environment.h"

#include "compiler/cpu/HostTarget.h"

#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"

#include <atomic>
#include <bit>

#include "dialect/DType.h"
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

/// float -> bf16 rounding to nearest even, returned in an xmm register as
/// the bf16 ABI expects (the bits travel as a _Float16).
extern "C" _Float16 blockjitTruncSFBF2(float value) {
  return std::bit_cast<_Float16>(blockjit::bfloat16(value).bits);
}

namespace blockjit {
namespace {

llvm::Expected<llvm::orc::LLJIT &> processJIT() {
  static std::once_flag once;
  static std::unique_ptr<llvm::orc::LLJIT> jit;
  static std::string error;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    auto built = llvm::orc::LLJITBuilder().create();
    if (!built) {
      error = llvm::toString(built.takeError());
      return;
    }
    jit = std::move(*built);
  });
  if (!jit)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot start the host JIT: " + error);
  return *jit;
}

/// A fixed set of worker threads that split a range of program indices.
class ThreadPool {
public:
  explicit ThreadPool(unsigned threads) {
    for (unsigned i = 1; i < threads; ++i)
      workers.emplace_back([this] { work(); });
  }
  ~ThreadPool() {
    {
      std::lock_guard lock(mutex);
      stopping = true;
    }
    wake.notify_all();
    for (std::thread &t : workers)
      t.join();
  }
  unsigned size() const { return workers.size() + 1; }

  /// Calls task(i) for every i in [0, count); the caller works too.
  void run(int64_t count, const std::function<void(int64_t)> &task) {
    std::lock_guard serial(runMutex); // one grid at a time
    {
      std::lock_guard lock(mutex);
      this->task = &task;
      this->count = count;
      next = 0;
      busy = workers.size();
      ++generation;
    }
    wake.notify_all();
    drain();
    std::unique_lock lock(mutex);
    done.wait(lock, [&] { return busy == 0; });
    this->task = nullptr;
  }

private:
  void drain() {
    for (int64_t i; (i = next.fetch_add(1)) < count;)
      (*task)(i);
  }
  void work() {
    uint64_t seen = 0;
    while (true) {
      {
        std::unique_lock lock(mutex);
        wake.wait(lock, [&] { return stopping || generation != seen; });
        if (stopping)
          return;
        seen = generation;
      }
      drain();
      std::lock_guard lock(mutex);
      if (--busy == 0)
        done.notify_one();
    }
  }

  std::vector<std::thread> workers;
  std::mutex mutex, runMutex;
  std::condition_variable wake, done;
  const std::function<void(int64_t)> *task = nullptr;
  int64_t count = 0;
  std::atomic<int64_t> next{0};
  unsigned busy = 0;
  uint64_t generation = 0;
  bool stopping = false;
};

ThreadPool &pool() {
  static ThreadPool instance(cpuThreadCount());
  return instance;
}

} // namespace

unsigned cpuThreadCount() {
  if (auto threads = env::cpuThreads())
    return *threads;
  return std::max(1u, std::thread::hardware_concurrency());
}

llvm::Expected<CPUEntry> loadCPUArtifact(const CompiledArtifact &artifact,
                                         llvm::StringRef uniqueName) {
  auto jit = processJIT();
  if (!jit)
    return jit.takeError();
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  // One JITDylib per specialization: every one defines the same symbols.
  auto dylib = jit->createJITDylib(uniqueName.str());
  if (!dylib)
    return dylib.takeError();
  dylib->addGenerator(
      cantFail(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
          jit->getDataLayout().getGlobalPrefix())));
  // x86 code generation calls __truncsfbf2 for bf16 stores; GCC 12's libgcc
  // lacks it, so blockjit provides it.
  llvm::orc::SymbolMap helpers;
  helpers[jit->mangleAndIntern("__truncsfbf2")] = {
      llvm::orc::ExecutorAddr::fromPtr(&blockjitTruncSFBF2),
      llvm::JITSymbolFlags::Exported};
  if (llvm::Error error =
          dylib->define(llvm::orc::absoluteSymbols(std::move(helpers))))
    return std::move(error);
  auto buffer =
      llvm::MemoryBuffer::getMemBufferCopy(artifact.binary, uniqueName);
  if (llvm::Error error = jit->addObjectFile(*dylib, std::move(buffer)))
    return std::move(error);
  auto symbol = jit->lookup(*dylib, artifact.entryName + cpu::kEntrySuffix);
  if (!symbol)
    return symbol.takeError();
  return symbol->toPtr<CPUEntry>();
}

namespace {
/// The calling thread's scratch arena, at least `bytes` large (null for 0),
/// or null if memory ran out.
void *threadScratch(int64_t bytes) {
  struct Arena {
    void *data = nullptr;
    int64_t size = 0;
    ~Arena() { std::free(data); }
  };
  thread_local Arena arena;
  if (bytes <= arena.size)
    return arena.data;
  std::free(arena.data);
  arena.size = 0;
  arena.data = std::aligned_alloc(cpu::kScratchAlignment,
                                  llvm::alignTo(bytes, cpu::kScratchAlignment));
  if (arena.data)
    arena.size = bytes;
  return arena.data;
}
} // namespace

llvm::Error runCPUGrid(CPUEntry entry, void **args, const Grid &grid,
                       int64_t scratchBytes) {
  int64_t count = grid.size();
  std::atomic<bool> outOfMemory{false};
  auto runProgram = [&](int64_t index) {
    void *scratch = threadScratch(scratchBytes);
    if (scratchBytes && !scratch) {
      outOfMemory = true;
      return;
    }
    int32_t values[cpu::kGridValues] = {
        int32_t(index % grid.x),
        int32_t(index / grid.x % grid.y),
        int32_t(index / (int64_t(grid.x) * grid.y)),
        grid.x,
        grid.y,
        grid.z};
    entry(args, values, scratch);
  };
  if (count == 1 || pool().size() == 1) {
    for (int64_t i = 0; i < count; ++i)
      runProgram(i);
  } else {
    pool().run(count, runProgram);
  }
  if (outOfMemory)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "out of memory for the kernel's per-thread scratch arena of " +
            std::to_string(scratchBytes) + " bytes (its blocks are too large)");
  return llvm::Error::success();
}

} // namespace blockjit
