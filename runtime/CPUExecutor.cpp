//===- CPUExecutor.cpp - run compiled kernels on host threads ------------===//
#include "runtime/CPUExecutor.h"
#include "runtime/ThreadPool.h"
#include "compiler/Environment.h"

#include "compiler/Compile.h"
#include "compiler/cpu/EntryABI.h"
#include "compiler/cpu/HostTarget.h"

#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"

#include <atomic>
#ifdef __linux__
#include <sched.h>
#endif
#include <bit>
#include <unistd.h>

#include "dialect/DType.h"
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>

/// float -> bf16 rounding to nearest even, returned in an xmm register as
/// the bf16 ABI expects (the bits travel as a _Float16).
extern "C" _Float16 blockjitTruncSFBF2(float value) {
  return std::bit_cast<_Float16>(blockjit::bfloat16(value).bits);
}

/// double -> bf16 rounding to nearest even: rounded to float with round to
/// odd first (float keeps more than two extra bits at every bf16 exponent,
/// so the second rounding is exact), for f64 -> bf16 casts.
extern "C" _Float16 blockjitTruncDFBF2(double value) {
  float narrow = float(value);
  if (!std::isnan(value) && double(narrow) != value &&
      !(std::bit_cast<uint32_t>(narrow) & 1))
    narrow =
        std::nextafter(narrow, value > double(narrow)
                                   ? std::numeric_limits<float>::infinity()
                                   : -std::numeric_limits<float>::infinity());
  return blockjitTruncSFBF2(narrow);
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

ThreadPool &pool() {
  // How long idle threads spin: $BLOCKJIT_CPU_SPIN_US, else 1 ms. 50 us was
  // too short on the dev VM: a worker that fell asleep between launches
  // could be woken onto the caller's core and run there, halving a 2-thread
  // launch for tens of milliseconds.
  static ThreadPool instance(
      cpuThreadCount(),
      std::chrono::microseconds(env::cpuSpinMicroseconds().value_or(1000)));
  return instance;
}

} // namespace

unsigned cpuThreadCount() {
  if (auto threads = env::cpuThreads())
    return *threads;
  return hostProcessors();
}

unsigned hostProcessors() {
  unsigned processors = std::max(1u, std::thread::hardware_concurrency());
#ifdef __linux__
  // The CPUs this process may run on (taskset, a container's cpuset).
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    processors = std::max(1, CPU_COUNT(&set));
  // A cgroup v2 quota ("max" or "<quota> <period>" microseconds).
  if (FILE *file = std::fopen("/sys/fs/cgroup/cpu.max", "r")) {
    long long quota = 0, period = 0;
    if (std::fscanf(file, "%lld %lld", &quota, &period) == 2 && quota > 0 &&
        period > 0)
      processors = std::min<unsigned>(
          processors,
          unsigned(std::max<long long>(1, (quota + period - 1) / period)));
    std::fclose(file);
  }
#endif
  return processors;
}

namespace {

/// The value of `expected`, or nothing (its error consumed).
template <typename T> std::optional<T> valueOrNone(llvm::Expected<T> expected) {
  if (expected)
    return std::move(*expected);
  llvm::consumeError(expected.takeError());
  return std::nullopt;
}

/// Appends the functions of `object`, linked with its entry symbol at
/// `entry`, to /tmp/perf-PID.map, perf's map of code without a file: perf
/// report and perf annotate then name a kernel's hot code. Best effort: a
/// profiling aid that never fails a launch.
void listInPerfMap(llvm::MemoryBufferRef object, llvm::StringRef entryName,
                   uint64_t entry, llvm::StringRef uniqueName) {
  auto file = valueOrNone(llvm::object::ObjectFile::createObjectFile(object));
  if (!file)
    return;
  auto *elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(file->get());
  if (!elf)
    return;
  // Functions of a relocatable object are placed as their section is: each
  // lies where the entry lies, moved by the difference of their values.
  std::optional<llvm::object::section_iterator> entrySection;
  std::optional<uint64_t> entryValue;
  for (llvm::object::ELFSymbolRef symbol : elf->symbols())
    if (valueOrNone(symbol.getName()) == entryName) {
      entrySection = valueOrNone(symbol.getSection());
      entryValue = valueOrNone(symbol.getValue());
    }
  if (!entrySection || !entryValue)
    return;
  std::string lines;
  for (llvm::object::ELFSymbolRef symbol : elf->symbols()) {
    auto name = valueOrNone(symbol.getName());
    auto value = valueOrNone(symbol.getValue());
    if (name && value &&
        valueOrNone(symbol.getType()) == llvm::object::SymbolRef::ST_Function &&
        valueOrNone(symbol.getSection()) == *entrySection && symbol.getSize())
      lines +=
          llvm::formatv("{0:x} {1:x} {2}:{3}\n", entry - *entryValue + *value,
                        symbol.getSize(), uniqueName, *name)
              .str();
  }
  std::string path = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
  if (FILE *map = std::fopen(path.c_str(), "a")) {
    std::fputs(lines.c_str(), map);
    std::fclose(map);
  }
}

/// Links a CPU artifact (an ELF object) into the process and returns its
/// entry point. `uniqueName` separates specializations of one kernel.
llvm::Expected<cpu::EntryFunction>
loadCPUArtifact(const CompiledArtifact &artifact, llvm::StringRef uniqueName) {
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
  // x86 code generation calls __truncsfbf2 for bf16 stores and
  // __truncdfbf2 for f64 -> bf16; GCC 12's libgcc lacks them, so blockjit
  // provides them.
  llvm::orc::SymbolMap helpers;
  helpers[jit->mangleAndIntern("__truncsfbf2")] = {
      llvm::orc::ExecutorAddr::fromPtr(&blockjitTruncSFBF2),
      llvm::JITSymbolFlags::Exported};
  helpers[jit->mangleAndIntern("__truncdfbf2")] = {
      llvm::orc::ExecutorAddr::fromPtr(&blockjitTruncDFBF2),
      llvm::JITSymbolFlags::Exported};
  if (llvm::Error error =
          dylib->define(llvm::orc::absoluteSymbols(std::move(helpers))))
    return std::move(error);
  auto buffer =
      llvm::MemoryBuffer::getMemBufferCopy(artifact.binary, uniqueName);
  if (llvm::Error error = jit->addObjectFile(*dylib, std::move(buffer)))
    return std::move(error);
  std::string entryName = artifact.entryName + cpu::kEntrySuffix;
  auto symbol = jit->lookup(*dylib, entryName);
  if (!symbol)
    return symbol.takeError();
  if (env::perfMap())
    listInPerfMap(llvm::MemoryBufferRef(artifact.binary, uniqueName), entryName,
                  symbol->getValue(), uniqueName);
  return symbol->toPtr<cpu::EntryFunction>();
}

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

/// Runs every program of `grid` on the pool and returns when all are done.
llvm::Error runCPUGrid(cpu::EntryFunction entry, void **args, const Grid &grid,
                       int64_t scratchBytes) {
  int64_t count = grid.size();
  std::atomic<bool> outOfMemory{false};
  const int32_t counts[cpu::kGridCounts] = {grid.x, grid.y, grid.z};
  auto runPrograms = [&](int64_t begin, int64_t end) {
    void *scratch = threadScratch(scratchBytes);
    if (scratchBytes && !scratch) {
      outOfMemory = true;
      return;
    }
    entry(args, counts, scratch, begin, end);
  };
  if (count == 1 || pool().size() == 1)
    runPrograms(0, count);
  else
    pool().run(count, runPrograms);
  if (outOfMemory)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "out of memory for the kernel's per-thread scratch arena of " +
            std::to_string(scratchBytes) + " bytes (its blocks are too large)");
  return llvm::Error::success();
}

llvm::Error cpuError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "CPU target: " + message.str());
}

/// The host is the CPU target's one device.
llvm::Error checkDevice(int device) {
  if (device == 0)
    return llvm::Error::success();
  return cpuError("no device " + llvm::Twine(device) +
                  " (the host is the one device, 0)");
}

/// What a CPU launch cannot honour (see CPUExecutor.h), or success.
llvm::Error checkUnusualConfig(const LaunchConfig &config) {
  if (config.dynamicSharedMemoryBytes < 0)
    return cpuError("dynamic shared memory of " +
                    llvm::Twine(config.dynamicSharedMemoryBytes) +
                    " bytes is negative");
  if (!config.cluster.isOne())
    return cpuError(
        "a cluster of (" + llvm::Twine(config.cluster.x) + ", " +
        llvm::Twine(config.cluster.y) + ", " + llvm::Twine(config.cluster.z) +
        ") programs cannot be honoured: CPU programs run independently, so "
        "the cluster must be (1, 1, 1)");
  for (const LaunchAttribute &attribute : config.attributes)
    if (attribute.kind == LaunchAttribute::Kind::Cooperative && attribute.value)
      return cpuError("a cooperative launch cannot be honoured: CPU programs "
                      "are not all resident at once");
  return llvm::Error::success();
}

/// A CPU event: the host clock when it was recorded (0: not recorded).
struct HostEvent {
  std::atomic<int64_t> nanoseconds{0};
};

} // namespace

llvm::Expected<Target> CPUExecutor::target(int) {
  // The device is checked where it is used (launch, buffers).
  return Target::cpu();
}

llvm::Expected<std::string> CPUExecutor::deviceName(int device) {
  if (llvm::Error e = checkDevice(device))
    return std::move(e);
  return "cpu (" + llvm::sys::getHostCPUName().str() + ", " +
         std::to_string(cpuThreadCount()) + " threads)";
}

llvm::Error CPUExecutor::load(const CompiledArtifact &artifact,
                              llvm::StringRef uniqueName, int device,
                              LoadedKernel &kernel) {
  if (llvm::Error e = checkDevice(device))
    return e;
  auto entry = loadCPUArtifact(artifact, uniqueName);
  if (!entry)
    return entry.takeError();
  kernel.handle = reinterpret_cast<void *>(*entry);
  kernel.device = device;
  kernel.threadsPerProgram = 1;
  kernel.cpuScratchBytes = artifact.cpuScratchBytes;
  return llvm::Error::success();
}

llvm::Expected<KernelResources> CPUExecutor::resources(
    const LoadedKernel &,
    int /*dynamicSharedMemoryBytes: no CPU kernel reads it*/) {
  KernelResources resources;
  resources.processors = cpuThreadCount();
  resources.maxResidentPrograms = resources.processors;
  return resources;
}

llvm::Error CPUExecutor::launch(const LoadedKernel &kernel,
                                const LaunchConfig &config, void **args) {
  if (config.device != kernel.device)
    return checkDevice(config.device);
  // launch() checks the grid too; a direct call with a negative dimension
  // would run programs with wrong ids.
  const Grid &grid = config.grid;
  if (grid.x < 1 || grid.y < 1 || grid.z < 1)
    return cpuError("grid (" + llvm::Twine(grid.x) + ", " +
                    llvm::Twine(grid.y) + ", " + llvm::Twine(grid.z) +
                    ") must be positive");
  if (!config.isPlain())
    if (llvm::Error e = checkUnusualConfig(config))
      return e;
  return runCPUGrid(reinterpret_cast<cpu::EntryFunction>(kernel.handle), args,
                    grid, kernel.cpuScratchBytes);
}

llvm::Expected<void *> CPUExecutor::allocate(size_t bytes, int device) {
  if (llvm::Error e = checkDevice(device))
    return std::move(e);
  // Aligned as cuMemAlloc's, so pointer divisibility (and with it the
  // specialization) does not depend on the target.
  constexpr size_t kAlignment = 256;
  void *address = std::aligned_alloc(
      kAlignment, llvm::alignTo(std::max<size_t>(1, bytes), kAlignment));
  if (!address)
    return cpuError("out of host memory for " + llvm::Twine(bytes) + " bytes");
  return address;
}

void CPUExecutor::deallocate(void *address, int /*device*/) {
  std::free(address);
}

llvm::Error CPUExecutor::copyToDevice(void *address, const void *host,
                                      size_t bytes, int device) {
  if (llvm::Error e = checkDevice(device))
    return e;
  if (bytes)
    std::memcpy(address, host, bytes);
  return llvm::Error::success();
}

llvm::Error CPUExecutor::copyToHost(void *host, const void *address,
                                    size_t bytes, int device) {
  if (llvm::Error e = checkDevice(device))
    return e;
  if (bytes)
    std::memcpy(host, address, bytes);
  return llvm::Error::success();
}

llvm::Error CPUExecutor::fill(void *address, uint8_t byte, size_t bytes,
                              int device) {
  if (llvm::Error e = checkDevice(device))
    return e;
  if (bytes)
    std::memset(address, byte, bytes);
  return llvm::Error::success();
}

llvm::Error CPUExecutor::fillOnStream(void *address, uint8_t byte, size_t bytes,
                                      void * /*stream*/, int device) {
  return fill(address, byte, bytes, device);
}

llvm::Error CPUExecutor::copyOnStream(void *to, const void *from, size_t bytes,
                                      void * /*stream*/, int device) {
  if (llvm::Error e = checkDevice(device))
    return e;
  if (bytes)
    std::memmove(to, from, bytes);
  return llvm::Error::success();
}

llvm::Error CPUExecutor::synchronize(int device) {
  // CPU launches return when their programs are done.
  return checkDevice(device);
}

llvm::Expected<void *> CPUExecutor::createEvent(int device) {
  if (llvm::Error e = checkDevice(device))
    return std::move(e);
  return new HostEvent;
}

void CPUExecutor::destroyEvent(void *event, int /*device*/) {
  delete static_cast<HostEvent *>(event);
}

llvm::Error CPUExecutor::recordEvent(void *event, void * /*stream: none here*/,
                                     int device) {
  if (llvm::Error e = checkDevice(device))
    return e;
  // The work issued so far is done (launches are synchronous): now is the
  // event's time.
  auto now = std::chrono::steady_clock::now().time_since_epoch();
  static_cast<HostEvent *>(event)->nanoseconds.store(
      std::max<int64_t>(
          1, std::chrono::duration_cast<std::chrono::nanoseconds>(now).count()),
      std::memory_order_release);
  return llvm::Error::success();
}

llvm::Error CPUExecutor::synchronizeEvent(void * /*event*/, int device) {
  // The work before a recorded event is done: launches are synchronous.
  return checkDevice(device);
}

llvm::Expected<float> CPUExecutor::elapsedMilliseconds(void *start, void *end,
                                                       int device) {
  if (llvm::Error e = checkDevice(device))
    return std::move(e);
  int64_t from = static_cast<HostEvent *>(start)->nanoseconds.load(
      std::memory_order_acquire);
  int64_t to = static_cast<HostEvent *>(end)->nanoseconds.load(
      std::memory_order_acquire);
  if (!from || !to)
    return cpuError("elapsed time between events that were not both recorded");
  return float(double(to - from) * 1e-6);
}

} // namespace blockjit
