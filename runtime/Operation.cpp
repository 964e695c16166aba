//===- Operation.cpp - one computation, several algorithms ---------------===//
#include "runtime/Operation.h"
#include "compiler/Environment.h"

#include "runtime/DeviceBuffer.h"
#include "runtime/DiskCache.h"
#include "runtime/Event.h"
#include "runtime/KernelCache.h"
#include "runtime/Timing.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <optional>

namespace blockjit {

namespace {

int64_t bytesOf(const ScratchBuffer &buffer) {
  return std::max<int64_t>(1, buffer.elements) * dtypeBytes(buffer.dtype);
}

/// The largest power of two up to 16 dividing `address` (what the
/// specialization assumes of a pointer).
int alignmentOf(const void *address) {
  auto value = reinterpret_cast<uintptr_t>(address);
  int alignment = 1;
  while (alignment < 16 && value % (2 * alignment) == 0)
    alignment *= 2;
  return alignment;
}

/// One 64-bit word per runtime argument, as PreparedLaunch::launch takes
/// them (Constexpr arguments left out).
llvm::SmallVector<uint64_t, 16> runtimeValues(llvm::ArrayRef<Arg> args) {
  llvm::SmallVector<uint64_t, 16> values;
  for (const Arg &arg : args) {
    switch (arg.kind) {
    case Arg::Kind::Constexpr:
      continue;
    case Arg::Kind::Pointer:
      values.push_back(reinterpret_cast<uintptr_t>(arg.pointer));
      break;
    case Arg::Kind::Int32:
      values.push_back(uint64_t(int64_t(arg.i32)));
      break;
    case Arg::Kind::Int64:
      values.push_back(uint64_t(arg.i64));
      break;
    case Arg::Kind::UInt64:
      values.push_back(arg.u64);
      break;
    case Arg::Kind::Float32: {
      uint32_t bits;
      std::memcpy(&bits, &arg.f32, sizeof bits);
      values.push_back(bits);
      break;
    }
    case Arg::Kind::Float64: {
      uint64_t bits;
      std::memcpy(&bits, &arg.f64, sizeof bits);
      values.push_back(bits);
      break;
    }
    }
  }
  return values;
}

/// `prepared` (an operation's arguments) with new runtime values, one a
/// runtime argument as runtimeValues() gives them, in `args`; true when only
/// pointers differ (a prepared launch then takes its prepared path). An i32
/// value out of range is an error, as in PreparedLaunch.
llvm::Expected<bool> withValues(llvm::ArrayRef<Arg> prepared,
                                llvm::ArrayRef<uint64_t> values,
                                llvm::SmallVectorImpl<Arg> &args) {
  llvm::SmallVector<uint64_t, 16> old = runtimeValues(prepared);
  args.assign(prepared.begin(), prepared.end());
  bool same = true;
  for (size_t i = 0; i < args.size(); ++i) {
    Arg &arg = args[i];
    uint64_t value = values[i];
    switch (arg.kind) {
    case Arg::Kind::Pointer:
      arg.pointer = reinterpret_cast<const void *>(uintptr_t(value));
      continue;
    case Arg::Kind::Int32:
      if (int64_t(value) != int64_t(int32_t(value)))
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "value #%zu (%lld) does not fit the i32 it was prepared as", i,
            (long long)int64_t(value));
      arg.i32 = int32_t(value);
      break;
    case Arg::Kind::Int64:
      arg.i64 = int64_t(value);
      break;
    case Arg::Kind::UInt64:
      arg.u64 = value;
      break;
    case Arg::Kind::Float32: {
      value &= 0xffffffffu; // a float's bits are the low 32
      uint32_t bits = uint32_t(value);
      std::memcpy(&arg.f32, &bits, sizeof bits);
      break;
    }
    case Arg::Kind::Float64:
      std::memcpy(&arg.f64, &value, sizeof value);
      break;
    case Arg::Kind::Constexpr:
      continue;
    }
    same &= value == old[i];
  }
  return same;
}

/// A tuner's search space (configListDigest).
std::string configsDigest(const AutotuneSpec &spec) {
  std::vector<std::string> configs;
  for (const TuningConfig &config : spec.configs)
    configs.push_back(config.str());
  return configListDigest(configs);
}

/// The launches of `algorithm` on `args`, each configured by its tuner.
llvm::Expected<std::vector<OperationLaunch>>
configure(const Algorithm &algorithm, const LaunchOptions &options,
          llvm::ArrayRef<Arg> args, llvm::ArrayRef<Arg> scratch) {
  std::vector<OperationLaunch> launches;
  for (const AlgorithmStep &step : algorithm.steps) {
    auto tuned = step.tuner->choose(options, step.args(args, scratch));
    if (!tuned)
      return tuned.takeError();
    launches.push_back({&step.tuner->kernel(), tuned->options, tuned->args,
                        tuned->resources, tuned->result->config.str()});
  }
  return launches;
}

/// Configures and runs `algorithm`'s launches in turn (each is tuned
/// before it runs; a later one's tuning reads what an earlier one wrote).
llvm::Error runLaunches(const Algorithm &algorithm,
                        const LaunchOptions &options, llvm::ArrayRef<Arg> args,
                        llvm::ArrayRef<Arg> scratch) {
  for (const AlgorithmStep &step : algorithm.steps) {
    auto tuned = step.tuner->choose(options, step.args(args, scratch));
    if (!tuned)
      return tuned.takeError();
    if (llvm::Error e =
            launch(step.tuner->kernel(), tuned->options, tuned->args))
      return e;
  }
  return llvm::Error::success();
}

} // namespace

/// A prepared operation's own scratch, freed with its last copy.
struct PreparedOperation::ScratchOwner {
  std::vector<DeviceBuffer> buffers;
};

/// Scratch shared by the runs of one (target, device, stream): per
/// algorithm, its buffers, grown as needed. Blocks stay allocated for the
/// process's life (a launch enqueued on a block outgrown may still run; the
/// driver may be gone when statics are destroyed).
struct Operation::StreamScratch {
  /// Held while an algorithm's launches are enqueued.
  std::mutex mutex;
  /// Per algorithm, per buffer: (address, bytes).
  std::vector<std::vector<std::pair<void *, int64_t>>> blocks;
};

Operation::Operation(OperationSpec spec) : spec_(std::move(spec)) {}

Operation::~Operation() = default;

void Operation::forgetInMemory() {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.clear();
}

llvm::Error Operation::operationError(const llvm::Twine &message) const {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "operation '" + spec_.name + "': " + message);
}

llvm::Error Operation::checkArgs(llvm::ArrayRef<Arg> args) const {
  if (spec_.algorithms.empty())
    return operationError("no algorithms to choose from");
  for (const Algorithm &algorithm : spec_.algorithms)
    if (algorithm.steps.empty())
      return operationError("algorithm '" + algorithm.name +
                            "' launches nothing");
  if (args.size() != spec_.params.size())
    return operationError("takes " + llvm::Twine(spec_.params.size()) +
                          " arguments (" + llvm::join(spec_.params, ", ") +
                          "), got " + llvm::Twine(args.size()));
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].kind == Arg::Kind::Constexpr)
      return operationError("argument #" + llvm::Twine(i) + " ('" +
                            spec_.params[i] +
                            "') is a Constexpr: an operation's algorithms "
                            "choose their kernels' constexprs");
  return llvm::Error::success();
}

std::vector<ScratchBuffer>
Operation::scratchFor(size_t index, llvm::ArrayRef<Arg> args) const {
  const Algorithm &algorithm = spec_.algorithms[index];
  return algorithm.scratch ? algorithm.scratch(args)
                           : std::vector<ScratchBuffer>{};
}

llvm::Expected<std::string> Operation::keyText(const LaunchOptions &options,
                                               llvm::ArrayRef<Arg> args) const {
  TargetKind targetKind = options.target.value_or(defaultTarget());
  auto target = executorFor(targetKind).target(options.device);
  if (!target)
    return target.takeError();
  std::string text = spec_.name + "|" + target->str() + "|";
  for (size_t i = 0; i < args.size(); ++i) {
    if (i)
      text += ",";
    const Arg &arg = args[i];
    text += llvm::formatv("{0}{1}", arg.kind == Arg::Kind::Pointer ? "*" : "",
                          dtypeName(arg.dtype))
                .str();
    if (arg.kind == Arg::Kind::Pointer)
      text += llvm::formatv(":{0}", alignmentOf(arg.pointer)).str();
  }
  text += "|";
  for (const TuningKeyArg &keyArg : spec_.key) {
    auto it = llvm::find(spec_.params, keyArg.name);
    size_t index = it - spec_.params.begin();
    std::optional<int64_t> value =
        it == spec_.params.end() ? std::nullopt : integerValue(args[index]);
    if (!value)
      return operationError("choice key '" + keyArg.name +
                            "' is not an integer parameter");
    text += keyArgText(keyArg, *value);
  }
  return text;
}

llvm::Expected<const OperationChoice *>
Operation::choose(const LaunchOptions &options, llvm::ArrayRef<Arg> args) {
  if (llvm::Error e = checkArgs(args))
    return std::move(e);
  auto key = keyText(options, args);
  if (!key)
    return key.takeError();
  std::string memoryKey = *key + "|device " + std::to_string(options.device);
  std::shared_ptr<Entry> entry;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto &slot = entries_[memoryKey];
    if (!slot)
      slot = std::make_shared<Entry>();
    entry = slot;
  }
  std::call_once(entry->once, [&] {
    auto choice = time(options, args, *key);
    if (!choice) {
      entry->error = llvm::toString(choice.takeError());
      return;
    }
    entry->choice = std::make_unique<OperationChoice>(std::move(*choice));
  });
  if (!entry->choice) {
    // Not kept: the arguments may be what failed (a null pointer has the
    // key of a valid one), and the next call chooses afresh.
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(memoryKey);
    if (it != entries_.end() && it->second == entry)
      entries_.erase(it);
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   entry->error);
  }
  return entry->choice.get();
}

llvm::Expected<OperationChoice> Operation::time(const LaunchOptions &options,
                                                llvm::ArrayRef<Arg> args,
                                                const std::string &key) {
  auto start = std::chrono::steady_clock::now();
  TargetKind targetKind = options.target.value_or(defaultTarget());
  Executor &executor = executorFor(targetKind);
  const size_t count = spec_.algorithms.size();
  OperationChoice choice;
  if (count == 1 || !env::autotuneEnabled()) {
    choice.algorithm =
        spec_.untimed && count > 1 ? spec_.untimed(args, targetKind) : 0;
    if (choice.algorithm >= count)
      return operationError("its untimed pick " +
                            llvm::Twine(choice.algorithm) +
                            " is not an algorithm");
    const Algorithm &picked = spec_.algorithms[choice.algorithm];
    if (std::optional<std::string> why =
            picked.refuse ? picked.refuse(args, targetKind) : std::nullopt)
      return operationError("its untimed pick " + picked.name +
                            " refuses these arguments: " + *why);
    choice.untimed = true;
    return choice;
  }

  // 1. Each algorithm's launches as these arguments specialize and trace
  // them (the scratch stand-in addresses, aligned as allocations are). One
  // that does not (a null pointer, a dtype its kernels do not take) or that
  // refuses these arguments is left out before anything runs or is copied.
  LaunchOptions traceOptions = options;
  traceOptions.target = targetKind;
  // Per algorithm, each launch's disk cache material (its traced IR).
  std::vector<std::vector<std::string>> materials(count);
  std::vector<bool> candidate(count, false);
  for (size_t a = 0; a < count; ++a) {
    const Algorithm &algorithm = spec_.algorithms[a];
    llvm::SmallVector<Arg, 8> standIns;
    for (const ScratchBuffer &buffer : scratchFor(a, args))
      standIns.push_back(
          Arg::typedPointer(reinterpret_cast<const void *>(
                                uintptr_t(4096) * (standIns.size() + 1)),
                            buffer.dtype));
    std::optional<std::string> why =
        algorithm.refuse ? algorithm.refuse(args, targetKind) : std::nullopt;
    for (const AlgorithmStep &step : algorithm.steps) {
      if (why)
        break; // refused, or an earlier launch did not specialize
      auto key = specializationFor(step.tuner->kernel(), traceOptions,
                                   step.args(args, standIns));
      auto material = key ? diskCacheKeyFor(step.tuner->kernel(), *key)
                          : llvm::Expected<DiskCacheKey>(key.takeError());
      if (!material) {
        why = llvm::toString(material.takeError());
        break;
      }
      // The tuner's search space too: a new config may tune the kernel,
      // and so the algorithm, faster.
      materials[a].push_back(material->material + "\ntuner " +
                             configsDigest(step.tuner->spec()));
    }
    if (why)
      choice.skipped.push_back({algorithm.name, *why});
    else
      candidate[a] = true;
  }
  auto noneRuns = [&] {
    std::string reasons;
    for (auto &[name, why] : choice.skipped)
      reasons += "\n  " + name + ": " + why;
    return operationError("no algorithm runs these arguments:" + reasons);
  };
  if (llvm::none_of(candidate, [](bool c) { return c; }))
    return noneRuns();

  // 2. A choice kept on disk by an earlier process, keyed by each
  // algorithm's kernels as traced for these arguments.
  std::optional<DiskCacheKey> diskKey;
  if (!diskCacheDirectory().empty()) {
    std::vector<std::pair<std::string, std::vector<std::string>>> algorithms;
    for (size_t a = 0; a < count; ++a) {
      std::vector<std::string> kernels = materials[a];
      if (!candidate[a])
        kernels.push_back("(does not specialize)");
      algorithms.push_back({spec_.algorithms[a].name, std::move(kernels)});
    }
    auto deviceName = executor.deviceName(options.device);
    if (!deviceName)
      return deviceName.takeError();
    diskKey = diskCacheKey(operationKeyMaterial(
        timedDeviceMaterial(*deviceName), key, algorithms));
    if (auto stored = readDiskEntry(*diskKey, "operation choice")) {
      llvm::StringRef line = llvm::StringRef(*stored).split('\n').first;
      for (size_t a = 0; a < count; ++a)
        if (candidate[a] && line == "algorithm " + spec_.algorithms[a].name) {
          choice.algorithm = a;
          choice.fromDiskCache = true;
          choice.choosingMilliseconds = millisecondsSince(start);
          return choice;
        }
      discardDiskCacheEntry(*diskKey, "it names no algorithm of the "
                                      "operation");
    }
  }

  // Buffers that timing changes, saved: (buffer, copy, bytes). Every
  // return from here on gives them back (RestoreOnExit).
  std::vector<DeviceBuffer> held;
  std::vector<std::tuple<void *, void *, size_t>> saved;
  for (const TuningBuffer &buffer : spec_.restore) {
    auto it = llvm::find(spec_.params, buffer.name);
    size_t index = it - spec_.params.begin();
    if (it == spec_.params.end() || args[index].kind != Arg::Kind::Pointer)
      return operationError("'" + buffer.name +
                            "' (restored) is not a pointer parameter");
    size_t bytes = size_t(std::max<int64_t>(0, buffer.bytes(args)));
    auto copy = DeviceBuffer::allocate(targetKind, bytes, options.device);
    if (!copy)
      return copy.takeError();
    void *address = const_cast<void *>(args[index].pointer);
    if (!address || bytes == 0)
      continue; // a null pointer the kernels take: nothing to give back
    if (llvm::Error e = executor.copyOnStream(copy->data(), address, bytes,
                                              options.stream, options.device))
      return std::move(e);
    saved.push_back({address, copy->data(), bytes});
    held.push_back(std::move(*copy));
  }
  // Every copy is attempted, whatever fails before it.
  auto restore = [&]() -> llvm::Error {
    llvm::Error errors = llvm::Error::success();
    for (auto &[address, copy, bytes] : saved)
      errors = llvm::joinErrors(std::move(errors),
                                executor.copyOnStream(address, copy, bytes,
                                                      options.stream,
                                                      options.device));
    return llvm::joinErrors(std::move(errors),
                            executor.synchronize(options.device));
  };
  // Restores on a return that has not (an error's own is kept).
  struct RestoreOnExit {
    std::function<llvm::Error()> restore;
    bool done = false;
    llvm::Error finish() {
      done = true;
      return restore();
    }
    ~RestoreOnExit() {
      if (!done)
        llvm::consumeError(restore());
    }
  } restoreOnExit{restore};

  // 3. Each algorithm's scratch, and one run (its kernels tune): one that
  // fails is left out.
  std::vector<std::vector<DeviceBuffer>> scratch(count);
  std::vector<llvm::SmallVector<Arg, 8>> scratchArgs(count);
  // The launches each algorithm's timed runs make, configured once (the
  // tuners' lookups stay out of the timed runs).
  std::vector<std::vector<OperationLaunch>> configured(count);
  std::vector<size_t> running;
  // An algorithm that specialized but failed here (out of memory, a launch
  // the device refused) may run another time: such a choice is not stored.
  bool failedToRun = false;
  for (size_t a = 0; a < count; ++a) {
    if (!candidate[a])
      continue;
    const Algorithm &algorithm = spec_.algorithms[a];
    llvm::Error failed = llvm::Error::success();
    for (const ScratchBuffer &buffer : scratchFor(a, args)) {
      if (failed)
        break;
      auto block = DeviceBuffer::allocate(targetKind, size_t(bytesOf(buffer)),
                                          options.device);
      if (!block) {
        failed = block.takeError();
        continue;
      }
      scratchArgs[a].push_back(block->arg(buffer.dtype));
      scratch[a].push_back(std::move(*block));
    }
    if (!failed)
      failed = runLaunches(algorithm, options, args, scratchArgs[a]);
    if (!failed)
      failed = executor.synchronize(options.device);
    if (!failed) {
      auto launches = configure(algorithm, options, args, scratchArgs[a]);
      if (launches)
        configured[a] = std::move(*launches);
      else
        failed = launches.takeError();
    }
    if (failed) {
      choice.skipped.push_back(
          {algorithm.name, llvm::toString(std::move(failed))});
      failedToRun = true;
      continue;
    }
    running.push_back(a);
  }
  if (running.empty()) {
    if (llvm::Error e = restoreOnExit.finish())
      return std::move(e);
    return noneRuns();
  }

  // 4. Timed runs, the algorithms in turn.
  const int reps = std::max(1, spec_.repetitions);
  std::optional<DeviceBuffer> flush;
  if (targetKind == TargetKind::CUDA) {
    auto block =
        DeviceBuffer::allocate(targetKind, kFlushBytes, options.device);
    if (!block)
      return block.takeError();
    flush = std::move(*block);
  }
  std::vector<Event> events;
  for (size_t i = 0; i < 2 * size_t(reps) * running.size(); ++i) {
    auto event = Event::create(targetKind, options.device);
    if (!event)
      return event.takeError();
    events.push_back(std::move(*event));
  }
  llvm::Error failed = llvm::Error::success();
  for (int rep = 0; rep < reps && !failed; ++rep)
    for (size_t r = 0; r < running.size() && !failed; ++r) {
      size_t slot = 2 * (size_t(rep) * running.size() + r);
      if (flush)
        failed = executor.flushCacheOnStream(flush->data(), uint8_t(rep),
                                             kFlushBytes, options.stream,
                                             options.device);
      if (!failed)
        failed = events[slot].record(options.stream);
      for (const OperationLaunch &l : configured[running[r]])
        if (!failed)
          failed = launch(*l.kernel, l.options, l.args);
      if (!failed)
        failed = events[slot + 1].record(options.stream);
    }
  double best = 0;
  for (size_t r = 0; r < running.size() && !failed; ++r) {
    std::vector<double> times;
    for (int rep = 0; rep < reps && !failed; ++rep) {
      size_t slot = 2 * (size_t(rep) * running.size() + r);
      auto ms = Event::elapsedMilliseconds(events[slot], events[slot + 1]);
      if (!ms)
        failed = ms.takeError();
      else
        times.push_back(*ms);
    }
    if (failed)
      break;
    double score = scoreOfRuns(targetKind, std::move(times));
    choice.timings.push_back({spec_.algorithms[running[r]].name, score});
    if (r == 0 || score < best) {
      best = score;
      choice.algorithm = running[r];
    }
  }
  // 5. Give the restored buffers their contents back.
  if (llvm::Error e = restoreOnExit.finish()) {
    llvm::consumeError(std::move(failed));
    return std::move(e);
  }
  if (failed)
    return std::move(failed);

  ++choicesTimed_;
  choice.choosingMilliseconds = millisecondsSince(start);
  if (diskKey && !failedToRun) {
    std::string content =
        "algorithm " + spec_.algorithms[choice.algorithm].name + "\n";
    for (auto &[name, ms] : choice.timings)
      content += llvm::formatv("timed {0} {1:f5} ms\n", name, ms).str();
    writeDiskEntry(*diskKey, "operation choice", content);
  }
  return choice;
}

llvm::Error Operation::runAlgorithm(size_t index, const LaunchOptions &options,
                                    llvm::ArrayRef<Arg> args) {
  const Algorithm &algorithm = spec_.algorithms[index];
  std::vector<ScratchBuffer> needed = scratchFor(index, args);
  TargetKind targetKind = options.target.value_or(defaultTarget());
  // The CPU's launches return when done: each run its own scratch.
  if (targetKind == TargetKind::CPU) {
    std::vector<DeviceBuffer> buffers;
    llvm::SmallVector<Arg, 8> scratch;
    for (const ScratchBuffer &buffer : needed) {
      auto block = DeviceBuffer::allocate(targetKind, size_t(bytesOf(buffer)),
                                          options.device);
      if (!block)
        return block.takeError();
      scratch.push_back(block->arg(buffer.dtype));
      buffers.push_back(std::move(*block));
    }
    return runLaunches(algorithm, options, args, scratch);
  }
  StreamScratch *pool;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto &slot = scratch_[{int(targetKind), options.device, options.stream}];
    if (!slot)
      slot = std::make_unique<StreamScratch>();
    pool = slot.get();
  }
  std::lock_guard<std::mutex> lock(pool->mutex);
  if (pool->blocks.size() < spec_.algorithms.size())
    pool->blocks.resize(spec_.algorithms.size());
  auto &blocks = pool->blocks[index];
  Executor &executor = executorFor(targetKind);
  llvm::SmallVector<Arg, 8> scratch;
  for (size_t i = 0; i < needed.size(); ++i) {
    int64_t bytes = bytesOf(needed[i]);
    if (i == blocks.size() || blocks[i].second < bytes) {
      // Outgrown blocks stay allocated (see StreamScratch).
      auto block = executor.allocate(size_t(bytes), options.device);
      if (!block)
        return block.takeError();
      if (i == blocks.size())
        blocks.push_back({*block, bytes});
      else
        blocks[i] = {*block, bytes};
    }
    scratch.push_back(Arg::typedPointer(blocks[i].first, needed[i].dtype));
  }
  return runLaunches(algorithm, options, args, scratch);
}

llvm::Error Operation::run(const LaunchOptions &options,
                           llvm::ArrayRef<Arg> args) {
  auto choice = choose(options, args);
  if (!choice)
    return choice.takeError();
  return runAlgorithm((*choice)->algorithm, options, args);
}

llvm::Expected<std::vector<OperationLaunch>>
Operation::plan(const LaunchOptions &options, llvm::ArrayRef<Arg> args,
                llvm::ArrayRef<Arg> scratch) {
  auto choice = choose(options, args);
  if (!choice)
    return choice.takeError();
  return configure(spec_.algorithms[(*choice)->algorithm], options, args,
                   scratch);
}

llvm::Expected<PreparedOperation>
Operation::prepare(const LaunchOptions &options, llvm::ArrayRef<Arg> args) {
  auto choice = choose(options, args);
  if (!choice)
    return choice.takeError();
  PreparedOperation prepared;
  prepared.operation_ = this;
  prepared.options_ = options;
  prepared.args_.assign(args.begin(), args.end());
  prepared.algorithmIndex_ = (*choice)->algorithm;
  prepared.algorithm_ = spec_.algorithms[prepared.algorithmIndex_].name;
  prepared.scratch_ = std::make_shared<PreparedOperation::ScratchOwner>();
  TargetKind targetKind = options.target.value_or(defaultTarget());
  for (const ScratchBuffer &buffer :
       scratchFor(prepared.algorithmIndex_, args)) {
    auto block = DeviceBuffer::allocate(targetKind, size_t(bytesOf(buffer)),
                                        options.device);
    if (!block)
      return block.takeError();
    prepared.scratchArgs_.push_back(block->arg(buffer.dtype));
    prepared.scratch_->buffers.push_back(std::move(*block));
  }
  // Each launch configured by its tuner, not run: preparing leaves the
  // caller's buffers as they were (an in-place output is the input).
  const Algorithm &algorithm = spec_.algorithms[prepared.algorithmIndex_];
  auto launches = configure(algorithm, options, args, prepared.scratchArgs_);
  if (!launches)
    return launches.takeError();
  for (OperationLaunch &l : *launches) {
    auto p = PreparedLaunch::prepare(*l.kernel, l.options, l.args);
    if (!p)
      return p.takeError();
    l.resources = p->resources();
    prepared.prepared_.push_back(std::move(*p));
  }
  prepared.launches_ = std::move(*launches);
  return prepared;
}

const KernelResources &PreparedOperation::resources() const {
  return prepared_.front().resources();
}

llvm::Error PreparedOperation::launch(llvm::ArrayRef<uint64_t> values,
                                      void *stream) const {
  if (values.size() != args_.size())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "operation '%s': a prepared launch takes %zu values, got %zu",
        operation_->name().c_str(), args_.size(), values.size());
  llvm::SmallVector<Arg, 16> args;
  auto same = withValues(args_, values, args);
  if (!same)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "operation '" + operation_->name() + "': " +
                                       llvm::toString(same.takeError()));
  if (!*same) {
    // New sizes: the general path chooses (and allocates) for them.
    ++*generalLaunches_;
    LaunchOptions options = options_;
    options.stream = stream;
    return operation_->run(options, args);
  }
  const Algorithm &algorithm = operation_->spec().algorithms[algorithmIndex_];
  for (size_t i = 0; i < prepared_.size(); ++i)
    if (llvm::Error e = prepared_[i].launch(
            runtimeValues(algorithm.steps[i].args(args, scratchArgs_)), stream))
      return e;
  return llvm::Error::success();
}

} // namespace blockjit
