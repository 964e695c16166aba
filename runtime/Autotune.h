//===- Autotune.h - the compiler picks a kernel's configuration -*- C++ -*-===//
//
// An Autotuner owns a kernel and the configurations worth trying (num_warps,
// num_stages, num_ctas and Constexpr values such as a chunk size). The first
// launch for a tuning key times every surviving config on the caller's
// stream and keeps the fastest: in memory, and on disk beside the kernel
// cache, so a second process does no tuning.
//
//   AutotuneSpec spec;
//   spec.configs = {{.numWarps = 4}, {.numWarps = 8, .numStages = 2}};
//   spec.key = {{"n_cols"}, {"n_rows", KeyBucket::PowerOfTwo}};
//   spec.grid = [](const TuningConfig &, const KernelResources &info,
//                  llvm::ArrayRef<Arg> args) {
//     return Grid{persistentGrid(info, args[4].i32)};
//   };
//   Autotuner tuner(examples::softmax(), std::move(spec));
//   if (llvm::Error e = tuner.launch(options, args)) ...
//
// Tuning, in order (tune()):
//   1. The key: the tuning key's argument values (bucketed), every argument's
//      type and divisibility (the specialization's), the target and device.
//   2. Pruning before anything compiles: the spec's `prune`, configs the
//      compiler would reject (validate()), then the spec's `estimate`
//      ranking with `topK` (plus the best of each `coverGroup`).
//   3. The survivors compile in parallel; one that fails to compile, load or
//      launch (e.g. more resources than the device has) is skipped and its
//      reason kept for the error if none survives.
//   4. Each is timed: one warm-up launch, then `repetitions` runs, each
//      after the L2 flush (GPU) and the `resetToZero` fills, between two
//      events on the caller's stream (so after its pending work); the median
//      counts (on the CPU the fastest run: host noise only adds time). On a
//      GPU, 50 ms of untimed runs come first (its clocks fall while the
//      candidates compile). The best three are timed again, their runs
//      interleaved, and the best median (CPU: fastest) of that round wins.
//      Before that round, the spec's `refine` neighbours of the best three are
//      timed too (a hill climb over a parameter the first pass times at one
//      value, e.g. rows per program), until the best three have no untimed
//      neighbours or after kRefineRounds rounds.
//   5. The `restore` buffers get back what they held before tuning.
// With $BLOCKJIT_AUTOTUNE=0 nothing is timed: the best-ranked config that
// compiles is used (the spec's estimate, else the first).
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_RUNTIME_AUTOTUNE_H
#define BLOCKJIT_RUNTIME_AUTOTUNE_H

#include "runtime/Launch.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace blockjit {

/// One point of a kernel's configuration space.
struct TuningConfig {
  int numWarps = 4;
  int numStages = 1;
  int numCTAs = 1;
  /// Constexpr parameters this config sets, by name; the launch's own value
  /// for such a parameter is replaced.
  std::vector<std::pair<std::string, int64_t>> constexprs;
  /// Values only the spec's grid function reads (e.g. a grid policy); they
  /// name the config but compile nothing different.
  std::vector<std::pair<std::string, int64_t>> gridParams;
  /// Programs sharing one CTA (LaunchOptions::programsPerCTA).
  int programsPerCTA = 1;
  /// The eviction hints of accesses without one (LaunchOptions).
  DefaultEviction loadEviction = DefaultEviction::Normal;
  DefaultEviction storeEviction = DefaultEviction::Normal;
  /// A thread's register cap (LaunchOptions::maxRegisters; 0: none). Tuning
  /// adds capped neighbours of its fastest configs by itself
  /// (registerCapForOneMoreCTA).
  int maxRegisters = 0;

  bool operator==(const TuningConfig &) const = default;
  /// "warps=8,stages=2,ctas=1,CHUNK=4096,grid:ROWS=1" (",programs=N" after
  /// ctas when N > 1, ",maxnreg=N" where capped, then ",loads=evict_last"
  /// and ",stores=evict_first" where set): how entries, messages and
  /// results name it.
  std::string str() const;
  /// Sets the launch options this config chooses (warps, stages, CTAs,
  /// programs per CTA, register cap, eviction hints) in `options`.
  void applyTo(LaunchOptions &options) const;
  /// The value of grid parameter `name`, or `otherwise`.
  int64_t gridParam(llvm::StringRef name, int64_t otherwise = 0) const;
  /// This config with grid parameter `name` set to `value`.
  TuningConfig withGridParam(llvm::StringRef name, int64_t value) const;
  /// The value this config sets for Constexpr `name`, or `otherwise`.
  int64_t constexprValue(llvm::StringRef name, int64_t otherwise) const;
  /// This config with Constexpr `name` set to `value`.
  TuningConfig withConstexpr(llvm::StringRef name, int64_t value) const;
  /// This config with the given eviction hints.
  TuningConfig withEviction(DefaultEviction loads,
                            DefaultEviction stores) const;
};

/// How an argument's value enters the tuning key.
enum class KeyBucket : uint8_t {
  Exact,
  /// next_power_of_2(value): e.g. a row count, whose exact value matters
  /// less than its size.
  PowerOfTwo,
};

struct TuningKeyArg {
  /// The parameter's name (an integer scalar or Constexpr).
  std::string name;
  KeyBucket bucket = KeyBucket::Exact;
};

/// An integer argument's value (scalars and constexprs), if it is one.
std::optional<int64_t> integerValue(const Arg &arg);

/// "n_rows=4096;": how key argument `arg` with value `value` (bucketed)
/// enters a tuning key, or an operation's choice key.
std::string keyArgText(const TuningKeyArg &arg, int64_t value);

/// A pointer argument whose memory tuning runs write, and its size.
struct TuningBuffer {
  std::string name;
  std::function<int64_t(llvm::ArrayRef<Arg> args)> bytes;
};

struct AutotuneSpec {
  std::vector<TuningConfig> configs;
  /// Which arguments' values select a tuning entry (types and alignment
  /// always do).
  std::vector<TuningKeyArg> key;
  /// The launch grid of `config`, knowing the compiled kernel's resources
  /// (Triton's grid callable over META). Called on every launch.
  std::function<Grid(const TuningConfig &config,
                     const KernelResources &resources,
                     llvm::ArrayRef<Arg> args)>
      grid;
  /// Optional: the configs worth compiling for these arguments on `target`
  /// (Triton's early_config_prune). Keeps the order it is given.
  std::function<std::vector<TuningConfig>(llvm::ArrayRef<TuningConfig>,
                                          llvm::ArrayRef<Arg>, const Target &)>
      prune;
  /// Optional: a cost model (smaller is better). Ranks the survivors; with
  /// topK > 0 only the best topK are compiled and timed.
  std::function<double(const TuningConfig &, llvm::ArrayRef<Arg>,
                       const Target &)>
      estimate;
  int topK = 0;
  /// Optional, with topK: a group for each config (configs the cost model
  /// ranks reliably against each other but not across groups; negative: no
  /// group). Besides the best topK, the best-ranked config of every group is
  /// timed, so that no group rests on the model alone.
  std::function<int64_t(const TuningConfig &)> coverGroup;
  /// Optional: configs near `config` worth timing once it is among the
  /// fastest (e.g. its grid parameter halved and doubled, which compiles
  /// nothing new). They need not be in `configs` or pass `prune`: the spec
  /// answers for them. A result on disk may name any config `refine`
  /// reaches from the timed ones within kRefineRounds steps.
  std::function<std::vector<TuningConfig>(const TuningConfig &config,
                                          llvm::ArrayRef<Arg>, const Target &)>
      refine;
  /// Buffers zeroed before every timed run, and buffers given back their
  /// contents after tuning (Triton's reset_to_zero and restore_value).
  std::vector<TuningBuffer> resetToZero, restore;
  /// Timed runs per config (a fixed count for a stable median, or CPU
  /// minimum).
  int repetitions = 25;
};

/// What tuning chose for one key.
struct TuningResult {
  TuningConfig config;
  /// Median (CPU: fastest) milliseconds of each config timed (empty when the
  /// result came from the disk or tuning is off).
  std::vector<std::pair<TuningConfig, double>> timings;
  /// Configs skipped, with why (did not compile, load or launch).
  std::vector<std::pair<TuningConfig, std::string>> skipped;
  bool fromDiskCache = false;
  /// Tuning was off ($BLOCKJIT_AUTOTUNE=0) or there was one config.
  bool untimed = false;
  double tuningMilliseconds = 0;
};

/// What a launch with the chosen config does.
struct TunedLaunch {
  const TuningResult *result;
  /// The options and arguments of the launch (the config applied, the grid
  /// from the spec).
  LaunchOptions options;
  llvm::SmallVector<Arg, 16> args;
  KernelResources resources;
};

class Autotuner {
public:
  Autotuner(std::shared_ptr<KernelDef> kernel, AutotuneSpec spec);

  const KernelDef &kernel() const { return *kernel_; }
  const AutotuneSpec &spec() const { return spec_; }

  /// The config for these arguments (`options` gives target, device and
  /// stream; its warps, stages, CTAs and grid are ignored): from memory, from
  /// the disk, or by tuning now. Concurrent first calls for one key tune
  /// once.
  llvm::Expected<TunedLaunch> choose(const LaunchOptions &options,
                                     llvm::ArrayRef<Arg> args);
  /// choose(), then launch.
  llvm::Error launch(const LaunchOptions &options, llvm::ArrayRef<Arg> args);

  /// How many times this tuner timed configs (tests: a second process, or
  /// a second call, tunes nothing).
  int tuningsRun() const { return tuningsRun_.load(); }
  /// Forgets the results held in memory (tests).
  void forgetInMemory();

private:
  struct Entry {
    std::once_flag once;
    std::unique_ptr<TuningResult> result;
    /// The chosen config's compiled kernel's (the grid function's input).
    KernelResources resources;
    std::string error;
  };
  llvm::Expected<TuningResult> tune(const LaunchOptions &options,
                                    llvm::ArrayRef<Arg> args,
                                    const std::string &keyText);

  std::shared_ptr<KernelDef> kernel_;
  AutotuneSpec spec_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<Entry>> entries_;
  std::atomic<int> tuningsRun_{0};
};

/// Which of `ranked` (the configs that survived `spec`'s prune, best-ranked
/// first) tuning compiles and times: all without a topK; else the best topK
/// and the best-ranked config of every coverGroup group. Indices into
/// `ranked`, in rank order.
std::vector<size_t> timedConfigs(const AutotuneSpec &spec,
                                 llvm::ArrayRef<TuningConfig> ranked);

/// The register cap at which a kernel of `resources` (compiled without
/// one) fits one more CTA on an SM, where its registers are what bounds its
/// CTAs an SM; 0 where they are not, or where the cap would take more than
/// a third of its registers (the spills would cost more than the extra CTA
/// gains). After its first pass and refine rounds, tuning times each of its
/// fastest configs again with this cap (Triton leaves maxnreg to the user):
/// ptxas's register count can land just past an occupancy step (168
/// registers, 3 CTAs of 4 warps an SM, where 128 fit 4 without a spill).
int registerCapForOneMoreCTA(const KernelResources &resources);

/// The config a tuning entry's first line (`line`, "config " and a
/// config's str()) names among `reachable`, or one of those with the
/// register cap the line names (tuning adds caps by itself); none if it
/// names neither.
std::optional<TuningConfig>
storedConfigAmong(llvm::StringRef line, llvm::ArrayRef<TuningConfig> reachable);

/// Rounds of `refine` tuning runs at most (each times the new neighbours of
/// the best three configs so far).
constexpr int kRefineRounds = 4;

/// `args` with the Constexpr parameters `config` names set to its values
/// (an error names a config entry that is not a Constexpr parameter).
llvm::Expected<llvm::SmallVector<Arg, 16>>
applyConfig(const KernelDef &kernel, const TuningConfig &config,
            llvm::ArrayRef<Arg> args);

} // namespace blockjit

#endif // BLOCKJIT_RUNTIME_AUTOTUNE_H
