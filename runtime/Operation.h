//===- Operation.h - one computation, several algorithms -------*- C++ -*-===//
//
// Some computations have more than one good algorithm, and which is faster
// depends on the shape and the device: softmax over dim 0 runs in one
// launch (a column strip per cluster) or in three (split reductions over
// the whole grid). An Operation names the computation, its parameters and
// its algorithms, each a few launches in turn through their kernels'
// autotuners, passing scratch buffers. The first run for a choice key times
// every algorithm and keeps the faster: in memory, and on disk beside the
// tuning results, so a second process times nothing.
//
//   OperationSpec spec;
//   spec.name = "softmax_dim0";
//   spec.params = {"output_ptr", "input_ptr", ..., "n_rows", "n_cols"};
//   spec.algorithms = {oneLaunch, split};
//   spec.key = {{"n_cols"}, {"n_rows", KeyBucket::PowerOfTwo}};
//   Operation op(std::move(spec));
//   if (llvm::Error e = op.run(options, {out, in, n, n, rows, cols})) ...
//
// Choosing (choose()), in order:
//   1. The key: the operation's parameters' types (a pointer's element type
//      and alignment), the key parameters' (bucketed) values, the target and
//      the device.
//   2. Each algorithm's launches specialized for the arguments: one that
//      does not specialize (a null pointer, a dtype its kernels do not take)
//      or that refuses the arguments (Algorithm::refuse) is left out before
//      anything runs or is copied.
//   3. A choice kept on disk by an earlier process, under a key that also
//      holds every kernel of every algorithm as traced for these arguments:
//      a change to a kernel's code, the compiler, the device or the
//      algorithm list chooses again.
//   4. Each algorithm runs once (its kernels tune, or read their tuning
//      from the disk); one that fails is left out, its reason kept for the
//      error if none is left. Then `repetitions` timed runs of each, in
//      alternating turns so that a drift of the clocks falls on all alike,
//      each after an L2 flush (GPU) between two events on the caller's
//      stream; the median (CPU: the fastest, runtime/Timing.h) counts.
//   5. The `restore` buffers get back what they held before (an in-place
//      run reads what the previous one wrote).
// With $BLOCKJIT_AUTOTUNE=0 nothing is timed: the spec's `untimed` pick
// (else the first algorithm) is used; one that refuses the arguments is an
// error.
//
// Scratch: a run on the CPU allocates its own; on a GPU, runs on one stream
// share one set (grown as needed, never freed under a prepared run), and an
// algorithm's launches are enqueued under a lock, so that two threads on
// one stream cannot interleave them. A PreparedOperation owns its scratch:
// its launches must be ordered (one stream, or synchronized).
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_RUNTIME_OPERATION_H
#define BLOCKJIT_RUNTIME_OPERATION_H

#include "runtime/Autotune.h"
#include "runtime/PreparedLaunch.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace blockjit {

/// One launch of an algorithm: a kernel, through its autotuner (which
/// chooses the config and the grid).
struct AlgorithmStep {
  Autotuner *tuner = nullptr;
  /// The kernel's arguments, from the operation's and the scratch buffers'.
  std::function<llvm::SmallVector<Arg, 16>(llvm::ArrayRef<Arg> args,
                                           llvm::ArrayRef<Arg> scratch)>
      args;
};

/// A buffer an algorithm's launches pass each other.
struct ScratchBuffer {
  DType dtype = DType::F32;
  int64_t elements = 0;
};

/// One way to compute an operation.
struct Algorithm {
  std::string name;
  std::vector<AlgorithmStep> steps;
  /// Optional: the scratch buffers these arguments need.
  std::function<std::vector<ScratchBuffer>(llvm::ArrayRef<Arg> args)> scratch;
  /// Optional: why this algorithm does not take these arguments on
  /// `target` (softmax's one block a row: a row longer than the block can
  /// be), none when it does. Such an algorithm is left out like one that
  /// does not specialize, before anything runs. Decide from values the
  /// operation's key buckets alike, so that a choice kept on disk holds.
  std::function<std::optional<std::string>(llvm::ArrayRef<Arg> args,
                                           TargetKind target)>
      refuse;
};

struct OperationSpec {
  std::string name;
  /// The parameters' names, in order (keys, restore buffers and messages
  /// name them).
  std::vector<std::string> params;
  std::vector<Algorithm> algorithms;
  /// Which integer parameters' values select a choice (types and alignment
  /// always do).
  std::vector<TuningKeyArg> key;
  /// Optional: the algorithm (an index) to run untimed
  /// ($BLOCKJIT_AUTOTUNE=0) on `target`; the first otherwise.
  std::function<size_t(llvm::ArrayRef<Arg> args, TargetKind target)> untimed;
  /// Pointer parameters whose contents timing runs change and must give
  /// back (an output that may alias an input).
  std::vector<TuningBuffer> restore;
  /// Timed runs per algorithm.
  int repetitions = 10;
};

/// What choosing found for one key.
struct OperationChoice {
  /// Index into the spec's algorithms.
  size_t algorithm = 0;
  /// Median (CPU: fastest) milliseconds of each algorithm timed, in the
  /// spec's order (empty from the disk or untimed).
  std::vector<std::pair<std::string, double>> timings;
  /// Algorithms left out, with why.
  std::vector<std::pair<std::string, std::string>> skipped;
  bool fromDiskCache = false;
  /// Timing was off ($BLOCKJIT_AUTOTUNE=0) or there was one algorithm.
  bool untimed = false;
  double choosingMilliseconds = 0;
};

/// One launch of a chosen algorithm, configured by its kernel's tuner.
struct OperationLaunch {
  const KernelDef *kernel = nullptr;
  LaunchOptions options;
  llvm::SmallVector<Arg, 16> args;
  KernelResources resources;
  /// Its config, as the tuner names it.
  std::string config;
};

/// An operation's chosen algorithm fixed once for some arguments and
/// repeated with new pointers (the C ABI's blockjit_prepare): each launch
/// prepared (PreparedLaunch), the scratch its own.
class PreparedOperation {
public:
  /// Runs with new values of the operation's runtime parameters (as
  /// PreparedLaunch::launch takes a kernel's). Pointers may change; integer
  /// or float values that differ from the prepared ones take the general
  /// path (Operation::run, which chooses for them).
  llvm::Error launch(llvm::ArrayRef<uint64_t> values, void *stream) const;
  llvm::ArrayRef<OperationLaunch> launches() const { return launches_; }
  /// The chosen algorithm's name.
  const std::string &algorithm() const { return algorithm_; }
  size_t numValues() const { return args_.size(); }
  /// The first launch's prepared resources.
  const KernelResources &resources() const;
  /// Launches that took the general path (values other than pointers
  /// differed from the prepared ones; tests).
  int generalLaunches() const { return generalLaunches_->load(); }

private:
  friend class Operation;
  struct ScratchOwner;
  class Operation *operation_ = nullptr;
  LaunchOptions options_;
  llvm::SmallVector<Arg, 16> args_;
  std::string algorithm_;
  size_t algorithmIndex_ = 0;
  std::vector<OperationLaunch> launches_;
  std::vector<PreparedLaunch> prepared_;
  std::shared_ptr<ScratchOwner> scratch_;
  llvm::SmallVector<Arg, 8> scratchArgs_;
  std::shared_ptr<std::atomic<int>> generalLaunches_ =
      std::make_shared<std::atomic<int>>(0);
};

class Operation {
public:
  explicit Operation(OperationSpec spec);
  ~Operation();

  const OperationSpec &spec() const { return spec_; }
  const std::string &name() const { return spec_.name; }

  /// The algorithm for these arguments (`options` gives target, device and
  /// stream): from memory, from the disk, or by timing now. Concurrent
  /// first calls for one key time once.
  llvm::Expected<const OperationChoice *> choose(const LaunchOptions &options,
                                                 llvm::ArrayRef<Arg> args);
  /// choose(), then the chosen algorithm's launches.
  llvm::Error run(const LaunchOptions &options, llvm::ArrayRef<Arg> args);
  /// choose(), then the chosen algorithm's launches configured by their
  /// tuners with `scratch` (allocated by the caller, as scratchFor() says),
  /// without running them.
  llvm::Expected<std::vector<OperationLaunch>>
  plan(const LaunchOptions &options, llvm::ArrayRef<Arg> args,
       llvm::ArrayRef<Arg> scratch);
  /// The scratch buffers algorithm `index` needs for `args`.
  std::vector<ScratchBuffer> scratchFor(size_t index,
                                        llvm::ArrayRef<Arg> args) const;
  /// choose(), then prepares the chosen algorithm for these arguments.
  llvm::Expected<PreparedOperation> prepare(const LaunchOptions &options,
                                            llvm::ArrayRef<Arg> args);

  /// How many times this operation timed its algorithms (tests).
  int choicesTimed() const { return choicesTimed_.load(); }
  /// Forgets the choices held in memory (tests; not while another thread
  /// chooses or holds a choice).
  void forgetInMemory();

private:
  struct Entry {
    std::once_flag once;
    std::unique_ptr<OperationChoice> choice;
    std::string error;
  };
  /// Scratch shared by runs on one (target, device, stream).
  struct StreamScratch;

  llvm::Error checkArgs(llvm::ArrayRef<Arg> args) const;
  llvm::Expected<std::string> keyText(const LaunchOptions &options,
                                      llvm::ArrayRef<Arg> args) const;
  llvm::Expected<OperationChoice> time(const LaunchOptions &options,
                                       llvm::ArrayRef<Arg> args,
                                       const std::string &key);
  /// Runs algorithm `index` with scratch held by the stream's pool.
  llvm::Error runAlgorithm(size_t index, const LaunchOptions &options,
                           llvm::ArrayRef<Arg> args);
  llvm::Error operationError(const llvm::Twine &message) const;

  OperationSpec spec_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<Entry>> entries_;
  std::map<std::tuple<int, int, void *>, std::unique_ptr<StreamScratch>>
      scratch_;
  std::atomic<int> choicesTimed_{0};
};

} // namespace blockjit

#endif // BLOCKJIT_RUNTIME_OPERATION_H
