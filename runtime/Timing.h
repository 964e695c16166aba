//===- Timing.h - how tuning times its candidates --------------*- C++ -*-===//
//
// The rules the autotuner (Autotune.h) and the choice between an
// operation's algorithms (Operation.h) share, so that both rank candidates
// alike.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_RUNTIME_TIMING_H
#define BLOCKJIT_RUNTIME_TIMING_H

#include "runtime/Executor.h"

#include "llvm/ADT/StringRef.h"

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace blockjit {

/// L2 is flushed before every timed GPU run by writing this many bytes
/// (several times the H100's 50 MB, as Triton's do_bench does), after its
/// persisting lines are returned to normal (Executor::flushCacheOnStream).
inline constexpr size_t kFlushBytes = size_t(256) << 20;

/// How every timed run is prepared (Executor::flushCacheOnStream); change it
/// with the protocol, so that results timed the old way are timed again.
inline constexpr const char *kTimingProtocol =
    "persisting L2 lines reset, then a 256 MB write";

/// What tuning results and operation choices kept on disk are keyed by
/// besides the kernel and its configs: the device the runs were timed on
/// and how they were timed (kTimingProtocol).
std::string timedDeviceMaterial(llvm::StringRef deviceName);

/// What one candidate's timed runs count for: their median on a GPU; on the
/// CPU their fastest, since the host's other work (a preempted pool thread)
/// only ever adds time to a run and a loaded machine could otherwise order
/// candidates twice apart wrongly.
double scoreOfRuns(TargetKind target, std::vector<double> milliseconds);

double millisecondsSince(std::chrono::steady_clock::time_point start);

} // namespace blockjit

#endif // BLOCKJIT_RUNTIME_TIMING_H
