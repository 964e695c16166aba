//===- ExampleRun.h - what the example program's runs share ----*- C++ -*-===//
//
// Pieces of `softmax` (softmax.cpp) used for softmax itself and for the
// kernels of its family (FamilyExample.cpp): choosing the configuration
// (the kernel's autotuner, or the command line's) and timing launches.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_EXAMPLES_EXAMPLERUN_H
#define BLOCKJIT_EXAMPLES_EXAMPLERUN_H

#include "runtime/Autotune.h"
#include "runtime/Executor.h"
#include "runtime/Launch.h"
#include "runtime/Operation.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace blockjit::examples {

/// Where the configuration came from, for the example's "config:" line.
inline std::string tuningSource(const TuningResult &result) {
  return result.fromDiskCache ? "tuning result from the disk cache"
         : result.untimed     ? "untimed (one config, or BLOCKJIT_AUTOTUNE=0)"
                              : llvm::formatv("tuned now: {0} configs timed",
                                              result.timings.size())
                                .str();
}

/// Replaces `options` and `args` with what `tuner` chooses for them
/// (compiling and timing on the first call of a key) and says where the
/// choice came from.
inline llvm::Expected<std::string>
applyTuner(Autotuner &tuner, LaunchOptions &options, std::vector<Arg> &args) {
  auto tuned = tuner.choose(options, args);
  if (!tuned)
    return tuned.takeError();
  options = tuned->options;
  args.assign(tuned->args.begin(), tuned->args.end());
  return tuningSource(*tuned->result);
}

/// Seconds per run of `runOnce` (one launch, or a problem's launches in
/// turn), `iters` runs back to back, to the end of the last one.
inline llvm::Expected<double>
secondsPerRun(llvm::function_ref<llvm::Error()> runOnce, int iters,
              Executor &executor) {
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i)
    if (llvm::Error error = runOnce())
      return std::move(error);
  if (llvm::Error error = executor.synchronize(0))
    return std::move(error);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
             .count() /
         std::max(1, iters);
}

/// Seconds per launch of `iters` launches back to back.
inline llvm::Expected<double> secondsPerLaunch(const KernelDef &kernel,
                                               const LaunchOptions &options,
                                               llvm::ArrayRef<Arg> args,
                                               int iters, Executor &executor) {
  return secondsPerRun([&] { return launch(kernel, options, args); }, iters,
                       executor);
}

/// Ends the run's first line with CUDA's registers, shared memory and
/// occupancy, and prints the "config:" line (without its newline).
inline void printResourcesAndConfig(llvm::raw_ostream &os, TargetKind target,
                                    const KernelResources &info,
                                    llvm::StringRef how) {
  if (target == TargetKind::CUDA)
    os << llvm::format(" (%d regs, %d B smem, %d programs/SM", info.registers,
                       info.sharedMemoryBytes, info.maxProgramsPerProcessor)
       << (info.programsPerCTA > 1
               ? llvm::formatv(", {0} per CTA)", info.programsPerCTA).str()
               : std::string(")"));
  os << "\n  config: " << how;
}

/// The "algorithm (OPERATION): ..." line: each algorithm's time or why it
/// was left out, and the one `chosen` (kept on disk, untimed).
inline void printOperationChoice(llvm::raw_ostream &os,
                                 llvm::StringRef operation,
                                 const OperationChoice &choice,
                                 llvm::StringRef chosen) {
  os << "  algorithm (" << operation << "):";
  const char *separator = "";
  for (const auto &[name, ms] : choice.timings) {
    os << llvm::format("%s %s %.4f ms", separator, name.c_str(), ms);
    separator = ",";
  }
  for (const auto &[name, why] : choice.skipped) {
    os << separator << " " << name << " left out";
    separator = ",";
  }
  os << (*separator ? "; " : " ") << "chose " << chosen
     << (choice.fromDiskCache ? " (kept on disk)"
         : choice.untimed     ? " (untimed)"
                              : "")
     << "\n";
}

} // namespace blockjit::examples

#endif // BLOCKJIT_EXAMPLES_EXAMPLERUN_H
