//===- Autotune.cpp - the compiler picks a kernel's configuration --------===//
#include "runtime/Autotune.h"
#include "compiler/Environment.h"

#include "runtime/DiskCache.h"
#include "runtime/Event.h"
#include "runtime/KernelCache.h"
#include "runtime/Timing.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <set>
#include <thread>

namespace blockjit {

namespace {

llvm::Error tuneError(const KernelDef &kernel, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "autotuning kernel '" + kernel.name() +
                                     "': " + message);
}

/// The index of the parameter named `name`, or -1.
int paramIndex(const KernelDef &kernel, llvm::StringRef name) {
  const auto &params = kernel.params();
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].name == name)
      return int(i);
  return -1;
}

/// The best configs of the first pass that are timed again, interleaved.
constexpr int kFinalists = 3;

/// How long the GPU runs untimed before the first config is timed.
constexpr double kWarmUpMilliseconds = 50;

/// Device memory held for one tuning and given back after it.
struct Scratch {
  Executor &executor;
  int device;
  std::vector<void *> blocks;
  ~Scratch() {
    for (void *block : blocks)
      executor.deallocate(block, device);
  }
  llvm::Expected<void *> allocate(size_t bytes) {
    auto block = executor.allocate(bytes, device);
    if (block)
      blocks.push_back(*block);
    return block;
  }
};

/// One config on its way through tuning.
struct Candidate {
  TuningConfig config;
  LaunchOptions options;
  llvm::SmallVector<Arg, 16> args;
  SpecializationKey key;
  std::string skipped; // why it left the race ("" while in it)
};

/// `seeds` and every config `spec.refine` reaches from them in at most
/// kRefineRounds steps: the configs a tuning of these seeds may choose.
std::vector<TuningConfig> reachableByRefine(const AutotuneSpec &spec,
                                            std::vector<TuningConfig> seeds,
                                            llvm::ArrayRef<Arg> args,
                                            const Target &target) {
  std::set<std::string> seen;
  std::vector<TuningConfig> reached, frontier;
  for (TuningConfig &config : seeds)
    if (seen.insert(config.str()).second) {
      reached.push_back(config);
      frontier.push_back(std::move(config));
    }
  for (int round = 0; spec.refine && round < kRefineRounds; ++round) {
    std::vector<TuningConfig> next;
    for (const TuningConfig &config : frontier)
      for (TuningConfig &near : spec.refine(config, args, target))
        if (seen.insert(near.str()).second) {
          reached.push_back(near);
          next.push_back(std::move(near));
        }
    frontier = std::move(next);
  }
  return reached;
}

} // namespace

std::string TuningConfig::str() const {
  std::string text = llvm::formatv("warps={0},stages={1},ctas={2}", numWarps,
                                   numStages, numCTAs);
  if (programsPerCTA > 1)
    text += ",programs=" + std::to_string(programsPerCTA);
  if (maxRegisters)
    text += ",maxnreg=" + std::to_string(maxRegisters);
  CompileOptions hints;
  hints.loadEviction = loadEviction;
  hints.storeEviction = storeEviction;
  text += hints.evictionSuffix();
  for (const auto &[name, value] : constexprs)
    text += "," + name + "=" + std::to_string(value);
  for (const auto &[name, value] : gridParams)
    text += ",grid:" + name + "=" + std::to_string(value);
  return text;
}

void TuningConfig::applyTo(LaunchOptions &options) const {
  options.numWarps = numWarps;
  options.numStages = numStages;
  options.numCTAs = numCTAs;
  options.programsPerCTA = programsPerCTA;
  options.loadEviction = loadEviction;
  options.storeEviction = storeEviction;
  options.maxRegisters = maxRegisters;
}

std::optional<TuningConfig>
storedConfigAmong(llvm::StringRef line,
                  llvm::ArrayRef<TuningConfig> reachable) {
  // The cap a tuned entry names, if any (tuning adds caps by itself).
  int storedCap = 0;
  if (size_t at = line.find(",maxnreg="); at != llvm::StringRef::npos)
    if (line.substr(at + 9)
            .take_while(llvm::isDigit)
            .getAsInteger(10, storedCap))
      return std::nullopt;
  for (TuningConfig config : reachable) {
    if (line == "config " + config.str())
      return config;
    if (storedCap && !config.maxRegisters) {
      config.maxRegisters = storedCap;
      if (line == "config " + config.str())
        return config;
    }
  }
  return std::nullopt;
}

int registerCapForOneMoreCTA(const KernelResources &resources) {
  // Every CUDA arch blockjit targets: an SM's 64K registers lie in 4
  // sub-partitions of 16K, each warp's in one of them, given in units of
  // 256 (8 a thread). (The flat 64K / registers a warp overcounts: 2 warps
  // of 199 registers fit 4 CTAs an SM, not 5.)
  constexpr int64_t kPartitions = 4, kRegistersPerPartition = 16384,
                    kPerThreadUnit = 8;
  int64_t warpsPerCTA = std::max<int64_t>(
      1, int64_t(resources.threadsPerProgram) * resources.programsPerCTA / 32);
  int64_t ctas = std::max(1, resources.maxProgramsPerProcessor /
                                 std::max(1, resources.programsPerCTA));
  int64_t perThread =
      llvm::alignTo(std::max(1, resources.registers), kPerThreadUnit);
  int64_t warpsByRegisters =
      kPartitions * (kRegistersPerPartition / (32 * perThread));
  if (ctas < warpsByRegisters / warpsPerCTA)
    return 0; // threads, CTA slots or shared memory bound it
  int64_t warpsAPartition =
      llvm::divideCeil((ctas + 1) * warpsPerCTA, kPartitions);
  int64_t cap = kRegistersPerPartition / (warpsAPartition * 32) /
                kPerThreadUnit * kPerThreadUnit;
  cap = std::min<int64_t>(cap, kMaxRegisterCap);
  if (cap < kMinRegisterCap || cap >= resources.registers ||
      3 * cap < 2 * int64_t(resources.registers))
    return 0;
  return int(cap);
}

TuningConfig TuningConfig::withEviction(DefaultEviction loads,
                                        DefaultEviction stores) const {
  TuningConfig config = *this;
  config.loadEviction = loads;
  config.storeEviction = stores;
  return config;
}

namespace {

using NamedValues = std::vector<std::pair<std::string, int64_t>>;

int64_t valueNamed(const NamedValues &values, llvm::StringRef name,
                   int64_t otherwise) {
  for (const auto &[key, value] : values)
    if (key == name)
      return value;
  return otherwise;
}

void setValueNamed(NamedValues &values, llvm::StringRef name, int64_t value) {
  for (auto &[key, old] : values)
    if (key == name) {
      old = value;
      return;
    }
  values.push_back({name.str(), value});
}

} // namespace

int64_t TuningConfig::gridParam(llvm::StringRef name, int64_t otherwise) const {
  return valueNamed(gridParams, name, otherwise);
}

TuningConfig TuningConfig::withGridParam(llvm::StringRef name,
                                         int64_t value) const {
  TuningConfig config = *this;
  setValueNamed(config.gridParams, name, value);
  return config;
}

int64_t TuningConfig::constexprValue(llvm::StringRef name,
                                     int64_t otherwise) const {
  return valueNamed(constexprs, name, otherwise);
}

TuningConfig TuningConfig::withConstexpr(llvm::StringRef name,
                                         int64_t value) const {
  TuningConfig config = *this;
  setValueNamed(config.constexprs, name, value);
  return config;
}

std::vector<size_t> timedConfigs(const AutotuneSpec &spec,
                                 llvm::ArrayRef<TuningConfig> ranked) {
  std::vector<size_t> timed;
  llvm::SmallDenseSet<int64_t> groups;
  for (size_t i = 0; i < ranked.size(); ++i) {
    int64_t group = spec.coverGroup ? spec.coverGroup(ranked[i]) : -1;
    bool firstOfGroup = group >= 0 && groups.insert(group).second;
    if (spec.topK <= 0 || i < size_t(spec.topK) || firstOfGroup)
      timed.push_back(i);
  }
  return timed;
}

llvm::Expected<llvm::SmallVector<Arg, 16>>
applyConfig(const KernelDef &kernel, const TuningConfig &config,
            llvm::ArrayRef<Arg> args) {
  llvm::SmallVector<Arg, 16> applied(args.begin(), args.end());
  for (const auto &[name, value] : config.constexprs) {
    int index = paramIndex(kernel, name);
    if (index < 0 || kernel.params()[index].kind != ParamKind::Constexpr)
      return tuneError(kernel, "config " + config.str() + " sets '" + name +
                                   "', which is not a Constexpr parameter");
    if (size_t(index) < applied.size())
      applied[index] = Arg(Constexpr(value));
  }
  return applied;
}

Autotuner::Autotuner(std::shared_ptr<KernelDef> kernel, AutotuneSpec spec)
    : kernel_(std::move(kernel)), spec_(std::move(spec)) {}

void Autotuner::forgetInMemory() {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.clear();
}

/// The tuning key: the target, the arguments' types and divisibility, and
/// the key arguments' (bucketed) values.
static llvm::Expected<std::string> tuningKeyText(const KernelDef &kernel,
                                                 const AutotuneSpec &spec,
                                                 const LaunchOptions &options,
                                                 llvm::ArrayRef<Arg> args) {
  auto key = specializationFor(kernel, options, args);
  if (!key)
    return key.takeError();
  std::string text = key->options.target.str() + "|";
  for (size_t i = 0; i < key->argTypes.size(); ++i) {
    if (i)
      text += ",";
    text += dtypeName(key->argTypes[i]);
    text += ':';
    text += std::to_string(key->divisibility[i]);
  }
  text += "|";
  for (const TuningKeyArg &keyArg : spec.key) {
    int index = paramIndex(kernel, keyArg.name);
    std::optional<int64_t> value =
        index < 0 ? std::nullopt : integerValue(args[index]);
    if (!value)
      return tuneError(kernel, "tuning key '" + keyArg.name +
                                   "' is not an integer parameter");
    text += keyArgText(keyArg, *value);
  }
  return text;
}

std::optional<int64_t> integerValue(const Arg &arg) {
  switch (arg.kind) {
  case Arg::Kind::Int32:
    return arg.i32;
  case Arg::Kind::Int64:
  case Arg::Kind::Constexpr:
    return arg.i64;
  default:
    return std::nullopt;
  }
}

/// `value` as `bucket` enters a key: next_power_of_2 of a positive value
/// for PowerOfTwo, else the value.
static int64_t bucketedKeyValue(KeyBucket bucket, int64_t value) {
  return bucket == KeyBucket::PowerOfTwo && value > 0
             ? int64_t(llvm::PowerOf2Ceil(uint64_t(value)))
             : value;
}

std::string keyArgText(const TuningKeyArg &arg, int64_t value) {
  return arg.name + "=" + std::to_string(bucketedKeyValue(arg.bucket, value)) +
         ";";
}

llvm::Expected<TunedLaunch> Autotuner::choose(const LaunchOptions &options,
                                              llvm::ArrayRef<Arg> args) {
  if (spec_.configs.empty())
    return tuneError(*kernel_, "no configs to choose from");
  if (!spec_.grid)
    return tuneError(*kernel_, "the spec has no grid function");
  auto keyText = tuningKeyText(*kernel_, spec_, options, args);
  if (!keyText)
    return keyText.takeError();
  std::string memoryKey = *keyText + "|device " +
                          std::to_string(options.device) + "|dynamic shared " +
                          std::to_string(options.dynamicSharedMemoryBytes);

  std::shared_ptr<Entry> entry;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto &slot = entries_[memoryKey];
    if (!slot)
      slot = std::make_shared<Entry>();
    entry = slot;
  }
  // The config applied to `args` (without the grid).
  auto configure = [&](const TuningConfig &config,
                       TunedLaunch &tuned) -> llvm::Error {
    auto applied = applyConfig(*kernel_, config, args);
    if (!applied)
      return applied.takeError();
    tuned.args = std::move(*applied);
    tuned.options = options;
    config.applyTo(tuned.options);
    return llvm::Error::success();
  };
  std::call_once(entry->once, [&] {
    auto result = tune(options, args, *keyText);
    if (!result) {
      entry->error = llvm::toString(result.takeError());
      return;
    }
    TunedLaunch tuned;
    llvm::Error error = configure(result->config, tuned);
    auto resources = error ? llvm::Expected<KernelResources>(std::move(error))
                           : warmup(*kernel_, tuned.options, tuned.args);
    if (!resources) {
      entry->error = llvm::toString(resources.takeError());
      return;
    }
    entry->resources = *resources;
    entry->result = std::make_unique<TuningResult>(std::move(*result));
  });
  if (!entry->result)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   entry->error);

  TunedLaunch tuned;
  tuned.result = entry->result.get();
  if (llvm::Error error = configure(tuned.result->config, tuned))
    return std::move(error);
  tuned.resources = entry->resources;
  tuned.options.grid =
      spec_.grid(tuned.result->config, tuned.resources, tuned.args);
  return tuned;
}

llvm::Error Autotuner::launch(const LaunchOptions &options,
                              llvm::ArrayRef<Arg> args) {
  auto tuned = choose(options, args);
  if (!tuned)
    return tuned.takeError();
  return blockjit::launch(*kernel_, tuned->options, tuned->args);
}

llvm::Expected<TuningResult> Autotuner::tune(const LaunchOptions &options,
                                             llvm::ArrayRef<Arg> args,
                                             const std::string &keyText) {
  auto start = std::chrono::steady_clock::now();
  TargetKind targetKind = options.target.value_or(defaultTarget());
  Executor &executor = executorFor(targetKind);
  auto target = executor.target(options.device);
  if (!target)
    return target.takeError();
  TuningResult result;

  // 2. Pruning, before anything compiles.
  std::vector<TuningConfig> configs = spec_.configs;
  if (spec_.prune)
    configs = spec_.prune(configs, args, *target);
  // A candidate for `config`, or none where the compiler would reject it
  // (the reason joins result.skipped).
  auto makeCandidate = [&](const TuningConfig &config)
      -> llvm::Expected<std::optional<Candidate>> {
    Candidate candidate{config, options, {}, {}, {}};
    candidate.options.target = targetKind;
    config.applyTo(candidate.options);
    auto applied = applyConfig(*kernel_, config, args);
    if (!applied)
      return applied.takeError(); // a mistake in the spec, not a resource
    candidate.args = std::move(*applied);
    auto key = specializationFor(*kernel_, candidate.options, candidate.args);
    if (!key)
      return key.takeError();
    candidate.key = *key;
    if (llvm::Error invalid = checkSpecialization(*kernel_, candidate.key)) {
      result.skipped.push_back({config, llvm::toString(std::move(invalid))});
      return std::nullopt;
    }
    return std::move(candidate);
  };
  std::vector<Candidate> candidates;
  for (const TuningConfig &config : configs) {
    auto candidate = makeCandidate(config);
    if (!candidate)
      return candidate.takeError();
    if (*candidate)
      candidates.push_back(std::move(**candidate));
  }
  if (spec_.estimate) {
    std::vector<std::pair<double, size_t>> ranked;
    for (size_t i = 0; i < candidates.size(); ++i)
      ranked.push_back(
          {spec_.estimate(candidates[i].config, args, *target), i});
    std::stable_sort(
        ranked.begin(), ranked.end(),
        [](const auto &a, const auto &b) { return a.first < b.first; });
    std::vector<Candidate> sorted;
    for (auto &[cost, index] : ranked)
      sorted.push_back(std::move(candidates[index]));
    candidates = std::move(sorted);
  }
  {
    std::vector<TuningConfig> ranked;
    for (const Candidate &c : candidates)
      ranked.push_back(c.config);
    std::vector<Candidate> kept;
    for (size_t i : timedConfigs(spec_, ranked))
      kept.push_back(std::move(candidates[i]));
    candidates = std::move(kept);
  }
  auto noneLeft = [&] {
    std::string why;
    for (auto &[config, reason] : result.skipped)
      why += "\n  " + config.str() + ": " + reason;
    return tuneError(*kernel_, "no config can run here" +
                                   (why.empty() ? std::string(" (none left "
                                                              "after pruning)")
                                                : ":" + why));
  };
  if (candidates.empty())
    return noneLeft();

  bool timed = env::autotuneEnabled() && candidates.size() > 1;
  // Untimed: the best-ranked config that compiles and loads.
  auto compileAndLoad = [&](Candidate &c) {
    auto compiled = KernelCache::instance().get(*kernel_, c.key);
    if (!compiled) {
      c.skipped = llvm::toString(compiled.takeError());
      return;
    }
    auto loaded = compiled->loaded(options.device);
    if (!loaded)
      c.skipped = llvm::toString(loaded.takeError());
  };
  if (!timed) {
    for (Candidate &c : candidates) {
      compileAndLoad(c);
      if (c.skipped.empty()) {
        result.config = c.config;
        result.untimed = true;
        result.tuningMilliseconds = millisecondsSince(start);
        return result;
      }
      result.skipped.push_back({c.config, c.skipped});
    }
    return noneLeft();
  }

  // 1. A result kept on disk by an earlier process.
  std::optional<DiskCacheKey> diskKey;
  if (!diskCacheDirectory().empty()) {
    auto firstMaterial = diskCacheKeyFor(*kernel_, candidates.front().key);
    auto deviceName = executor.deviceName(options.device);
    if (!firstMaterial)
      return firstMaterial.takeError();
    if (!deviceName)
      return deviceName.takeError();
    std::vector<std::string> names;
    for (const TuningConfig &config : spec_.configs)
      names.push_back(config.str());
    names.push_back("repetitions=" + std::to_string(spec_.repetitions));
    diskKey = diskCacheKey(tuningKeyMaterial(firstMaterial->material,
                                             timedDeviceMaterial(*deviceName),
                                             keyText, names));
    if (auto stored = readDiskEntry(*diskKey, "tuning")) {
      llvm::StringRef text = *stored;
      llvm::StringRef line = text.split('\n').first;
      std::vector<TuningConfig> timedHere;
      for (const Candidate &c : candidates)
        timedHere.push_back(c.config);
      if (std::optional<TuningConfig> config = storedConfigAmong(
              line, reachableByRefine(spec_, timedHere, args, *target))) {
        // A config refine reached is checked as a candidate would be.
        auto candidate = makeCandidate(*config);
        if (!candidate)
          return candidate.takeError();
        if (*candidate) {
          result.config = *config;
          result.fromDiskCache = true;
          result.tuningMilliseconds = millisecondsSince(start);
          return result;
        }
      }
      discardDiskCacheEntry(*diskKey, "its config is neither among this "
                                      "tuner's candidates nor reached by its "
                                      "refine");
    }
  }

  // 3. Compile in parallel (the kernel cache compiles each key once):
  // candidates[first] onwards.
  auto compileInParallel = [&](size_t first) {
    size_t count = candidates.size() - std::min(first, candidates.size());
    unsigned threads = std::max(
        1u, std::min<unsigned>(std::thread::hardware_concurrency(), count));
    std::atomic<size_t> next{first};
    auto work = [&] {
      for (size_t i; (i = next.fetch_add(1)) < candidates.size();)
        compileAndLoad(candidates[i]);
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t)
      pool.emplace_back(work);
    work();
    for (std::thread &thread : pool)
      thread.join();
  };
  compileInParallel(0);

  // 4. Time each on the caller's stream.
  Scratch scratch{executor, options.device, {}};
  void *flush = nullptr;
  if (targetKind == TargetKind::CUDA) {
    auto block = scratch.allocate(kFlushBytes);
    if (!block)
      return block.takeError();
    flush = *block;
  }
  auto bufferOf = [&](const TuningBuffer &buffer)
      -> llvm::Expected<std::pair<void *, size_t>> {
    int index = paramIndex(*kernel_, buffer.name);
    if (index < 0 || size_t(index) >= args.size() ||
        args[index].kind != Arg::Kind::Pointer)
      return tuneError(*kernel_, "'" + buffer.name +
                                     "' (reset or restored) is not a pointer "
                                     "parameter");
    int64_t bytes = buffer.bytes ? buffer.bytes(args) : 0;
    return std::make_pair(const_cast<void *>(args[index].pointer),
                          size_t(std::max<int64_t>(0, bytes)));
  };
  std::vector<std::pair<void *, size_t>> zeroed;
  for (const TuningBuffer &buffer : spec_.resetToZero) {
    auto where = bufferOf(buffer);
    if (!where)
      return where.takeError();
    zeroed.push_back(*where);
  }
  // Saved copies of the restored buffers: (buffer, copy, bytes).
  std::vector<std::tuple<void *, void *, size_t>> saved;
  for (const TuningBuffer &buffer : spec_.restore) {
    auto where = bufferOf(buffer);
    if (!where)
      return where.takeError();
    auto copy = scratch.allocate(where->second);
    if (!copy)
      return copy.takeError();
    if (llvm::Error e = executor.copyOnStream(
            *copy, where->first, where->second, options.stream, options.device))
      return std::move(e);
    saved.push_back({where->first, *copy, where->second});
  }

  int reps = std::max(1, spec_.repetitions);
  auto startEvent = Event::create(targetKind, options.device);
  if (!startEvent)
    return startEvent.takeError();
  std::vector<Event> events;
  for (int i = 0; i < 2 * reps * kFinalists; ++i) {
    auto event = Event::create(targetKind, options.device);
    if (!event)
      return event.takeError();
    events.push_back(std::move(*event));
  }
  // One timed run of `c` between events[2*slot] and events[2*slot+1].
  auto run = [&](Candidate &c, Grid grid, int slot) -> llvm::Error {
    int rep = slot % reps;
    if (flush)
      if (llvm::Error e = executor.flushCacheOnStream(
              flush, uint8_t(rep), kFlushBytes, options.stream, options.device))
        return e;
    for (auto &[address, bytes] : zeroed)
      if (llvm::Error e = executor.fillOnStream(address, 0, bytes,
                                                options.stream, options.device))
        return e;
    if (llvm::Error e = events[2 * slot].record(options.stream))
      return e;
    LaunchOptions launchOptions = c.options;
    launchOptions.grid = grid;
    if (llvm::Error e = blockjit::launch(*kernel_, launchOptions, c.args))
      return e;
    return events[2 * slot + 1].record(options.stream);
  };
  // What the runs timed in events[2*first] .. for `reps` slots count for
  // (scoreOfRuns).
  auto scoreOfSlots = [&](int first) -> llvm::Expected<double> {
    std::vector<double> times;
    for (int rep = 0; rep < reps; ++rep) {
      auto ms = Event::elapsedMilliseconds(events[2 * (first + rep)],
                                           events[2 * (first + rep) + 1]);
      if (!ms)
        return ms.takeError();
      times.push_back(*ms);
    }
    return scoreOfRuns(targetKind, std::move(times));
  };
  // The grid `c` launches on: the spec's, from the resources of its
  // compiled kernel.
  auto gridOf = [&](Candidate &c) -> llvm::Expected<Grid> {
    auto resources = warmup(*kernel_, c.options, c.args);
    if (!resources)
      return resources.takeError();
    return spec_.grid(c.config, *resources, c.args);
  };
  // The score (scoreOfSlots) of `reps` runs of `c`, or an error (the config
  // is skipped).
  auto time = [&](Candidate &c) -> llvm::Expected<double> {
    auto gridOrError = gridOf(c);
    if (!gridOrError)
      return gridOrError.takeError();
    Grid grid = *gridOrError;
    // The warm-up run also surfaces a launch the device refuses.
    if (llvm::Error e = run(c, grid, 0))
      return std::move(e);
    if (llvm::Error e = events[1].synchronize())
      return std::move(e);
    for (int rep = 0; rep < reps; ++rep)
      if (llvm::Error e = run(c, grid, rep))
        return std::move(e);
    return scoreOfSlots(0);
  };
  // The GPU idles while the candidates compile, and its clocks fall: the
  // first configs timed (the best ranked) would run slower than the later
  // ones. Untimed runs of the first candidate for kWarmUpMilliseconds bring
  // the clocks up first.
  if (flush)
    for (Candidate &c : candidates) {
      if (!c.skipped.empty())
        continue;
      auto grid = gridOf(c);
      if (!grid) {
        llvm::consumeError(grid.takeError());
        continue;
      }
      auto warmStart = std::chrono::steady_clock::now();
      llvm::Error failed = llvm::Error::success();
      while (!failed && millisecondsSince(warmStart) < kWarmUpMilliseconds) {
        for (int rep = 0; rep < reps && !failed; ++rep)
          failed = run(c, *grid, rep);
        if (!failed)
          failed = events[2 * reps - 1].synchronize();
      }
      // A candidate that fails is skipped by its own timing below.
      llvm::consumeError(std::move(failed));
      break;
    }

  double lastProgress = 0;
  auto progress = [&](bool done) {
    double elapsed = millisecondsSince(start);
    if (elapsed < 1000 || (!done && elapsed - lastProgress < 1000))
      return;
    lastProgress = elapsed;
    auto best = std::min_element(
        result.timings.begin(), result.timings.end(),
        [](const auto &a, const auto &b) { return a.second < b.second; });
    llvm::errs() << llvm::formatv(
        "blockjit: {0} '{1}' [{2}]: {3}/{4} configs timed in {5:f1} s",
        done ? "tuned" : "tuning", kernel_->name(), keyText,
        result.timings.size(), candidates.size(), elapsed / 1000);
    if (best != result.timings.end())
      llvm::errs() << llvm::formatv(", best {0} {1:f4} ms", best->first.str(),
                                    best->second);
    llvm::errs() << "\n";
  };

  // Candidates timed without an error (indices into candidates), and
  // result.timings in the same order.
  std::vector<size_t> survivors;
  auto timeCandidate = [&](size_t i) {
    Candidate &c = candidates[i];
    if (c.skipped.empty()) {
      auto ms = time(c);
      if (ms) {
        result.timings.push_back({c.config, *ms});
        survivors.push_back(i);
      } else {
        c.skipped = llvm::toString(ms.takeError());
      }
    }
    if (!c.skipped.empty())
      result.skipped.push_back({c.config, c.skipped});
    progress(false);
  };
  // Positions in survivors, fastest first.
  auto fastestFirst = [&] {
    std::vector<size_t> order(survivors.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return result.timings[a].second < result.timings[b].second;
    });
    return order;
  };
  for (size_t i = 0; i < candidates.size(); ++i)
    timeCandidate(i);

  // The spec's neighbours of the best kFinalists, timed the same way, until
  // the best have none left untimed (a hill climb along what refine varies).
  if (spec_.refine) {
    std::set<std::string> seen;
    for (const Candidate &c : candidates)
      seen.insert(c.config.str());
    for (int round = 0; round < kRefineRounds; ++round) {
      std::vector<TuningConfig> fresh;
      std::vector<size_t> order = fastestFirst();
      for (size_t k = 0; k < order.size() && k < size_t(kFinalists); ++k)
        for (TuningConfig &next : spec_.refine(
                 candidates[survivors[order[k]]].config, args, *target))
          if (seen.insert(next.str()).second)
            fresh.push_back(std::move(next));
      if (fresh.empty())
        break;
      // The buffers hold timed runs' writes by now: a config refine got
      // wrong is skipped, not returned as an error before they are restored.
      size_t first = candidates.size();
      for (const TuningConfig &config : fresh) {
        auto candidate = makeCandidate(config);
        if (!candidate)
          result.skipped.push_back(
              {config, llvm::toString(candidate.takeError())});
        else if (*candidate)
          candidates.push_back(std::move(**candidate));
      }
      compileInParallel(first);
      for (size_t i = first; i < candidates.size(); ++i)
        timeCandidate(i);
    }
  }

  // The best kFinalists again with a register cap where their registers
  // keep a CTA off each SM (registerCapForOneMoreCTA); timed only where the
  // driver's occupancy of the capped kernel shows the extra CTA.
  if (targetKind == TargetKind::CUDA) {
    std::set<std::string> seen;
    for (const Candidate &c : candidates)
      seen.insert(c.config.str());
    std::vector<size_t> order = fastestFirst();
    // Each capped config, and the programs an SM of the config uncapped.
    std::vector<std::pair<TuningConfig, int>> capped;
    for (size_t k = 0; k < order.size() && k < size_t(kFinalists); ++k) {
      const Candidate &c = candidates[survivors[order[k]]];
      if (c.config.maxRegisters)
        continue;
      auto resources = warmup(*kernel_, c.options, c.args);
      if (!resources) {
        llvm::consumeError(resources.takeError());
        continue;
      }
      TuningConfig config = c.config;
      config.maxRegisters = registerCapForOneMoreCTA(*resources);
      if (config.maxRegisters && seen.insert(config.str()).second)
        capped.push_back({config, resources->maxProgramsPerProcessor});
    }
    size_t first = candidates.size();
    std::vector<int> programsUncapped;
    for (auto &[config, programs] : capped) {
      auto candidate = makeCandidate(config);
      if (!candidate) {
        result.skipped.push_back(
            {config, llvm::toString(candidate.takeError())});
      } else if (*candidate) {
        candidates.push_back(std::move(**candidate));
        programsUncapped.push_back(programs);
      }
    }
    compileInParallel(first);
    for (size_t i = first; i < candidates.size(); ++i) {
      Candidate &c = candidates[i];
      if (c.skipped.empty()) {
        auto resources = warmup(*kernel_, c.options, c.args);
        if (!resources)
          c.skipped = llvm::toString(resources.takeError());
        else if (resources->maxProgramsPerProcessor <=
                 programsUncapped[i - first])
          c.skipped = llvm::formatv(
              "capped at {0} registers ({1} taken), still {2} programs an SM",
              c.config.maxRegisters, resources->registers,
              resources->maxProgramsPerProcessor);
      }
      timeCandidate(i);
    }
  }

  // Order survivors by their score; the best kFinalists are timed again,
  // their runs interleaved (one of each in turn), so that a drift of the
  // GPU's clocks or of its neighbours' load falls on all of them alike.
  std::vector<size_t> order = fastestFirst();
  size_t winner = survivors.empty() ? 0 : survivors[order[0]];
  if (order.size() > 1) {
    llvm::Error failed = llvm::Error::success();
    std::vector<std::pair<size_t, Grid>> finalists;
    for (size_t k = 0;
         k < order.size() && finalists.size() < size_t(kFinalists) && !failed;
         ++k) {
      auto grid = gridOf(candidates[survivors[order[k]]]);
      if (!grid) {
        failed = grid.takeError();
        break;
      }
      finalists.push_back({survivors[order[k]], *grid});
    }
    for (int rep = 0; rep < reps && !failed; ++rep)
      for (size_t f = 0; f < finalists.size() && !failed; ++f)
        failed = run(candidates[finalists[f].first], finalists[f].second,
                     int(f) * reps + rep);
    double best = 0;
    for (size_t f = 0; f < finalists.size() && !failed; ++f) {
      auto ms = scoreOfSlots(int(f) * reps);
      if (!ms) {
        failed = ms.takeError();
        break;
      }
      if (f == 0 || *ms < best) {
        best = *ms;
        winner = finalists[f].first;
      }
    }
    // The first pass's order stands if the final runs fail.
    if (failed) {
      llvm::consumeError(std::move(failed));
      winner = survivors[order[0]];
    }
  }

  // 5. Give the restored buffers their contents back.
  for (auto &[buffer, copy, bytes] : saved)
    if (llvm::Error e = executor.copyOnStream(buffer, copy, bytes,
                                              options.stream, options.device))
      return std::move(e);
  if (llvm::Error e = executor.synchronize(options.device))
    return std::move(e);
  if (survivors.empty())
    return noneLeft();
  result.config = candidates[winner].config;

  ++tuningsRun_;
  result.tuningMilliseconds = millisecondsSince(start);
  progress(true);
  if (diskKey) {
    std::string content = "config " + result.config.str() + "\n";
    for (auto &[config, ms] : result.timings)
      content += llvm::formatv("timed {0} {1:f5} ms\n", config.str(), ms).str();
    writeDiskEntry(*diskKey, "tuning", content);
  }
  return result;
}

} // namespace blockjit
