//===- PreparedLaunch.h - a launch fixed once, repeated cheaply -*- C++ -*-===//
//
// For callers that launch one kernel many times with new buffers (other
// languages through the C ABI, a training loop): the kernel, its
// specialization, the launch options and the grid are fixed once, and each
// launch passes only the runtime arguments' values.
//
//   auto prepared = PreparedLaunch::prepare(kernel, options, args);
//   uint64_t values[] = {uint64_t(out), uint64_t(in), 1024, 1024, 4096, 1000};
//   if (llvm::Error e = prepared->launch(values, stream)) ...
//
// Each launch still checks, cheaply, that its values keep what the
// specialization assumed: every pointer and integer divisible as the
// prepared one was (a misaligned vector access would poison the CUDA
// context), an integer traced as the constant 0 still 0, no null pointer
// where the parameter is not nullable, i32 values that fit. A value that
// breaks an assumption is not an error: that launch goes through launch()
// (Launch.h), which compiles the specialization it needs.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_RUNTIME_PREPAREDLAUNCH_H
#define BLOCKJIT_RUNTIME_PREPAREDLAUNCH_H

#include "runtime/Launch.h"

namespace blockjit {

class PreparedLaunch {
public:
  /// Compiles (or finds) and loads the specialization `args` call for.
  /// `options.grid` is the grid of every launch.
  static llvm::Expected<PreparedLaunch> prepare(const KernelDef &kernel,
                                                const LaunchOptions &options,
                                                llvm::ArrayRef<Arg> args);

  /// Runs the kernel with new runtime argument values (constexprs stay as
  /// prepared), one 64-bit word per runtime parameter in order: a pointer's
  /// address, an integer's value, a float's bits in the low 32 bits.
  /// Asynchronous on `stream` (a CUstream of the prepared device) on the GPU.
  llvm::Error launch(llvm::ArrayRef<uint64_t> values, void *stream) const;

  const KernelResources &resources() const { return resources_; }
  const LaunchOptions &options() const { return options_; }
  const KernelDef &kernel() const { return *kernel_; }
  /// How many values launch() takes.
  size_t numValues() const { return checks_.size(); }

private:
  PreparedLaunch() = default;
  /// launch() for values that break an assumption: the general path.
  llvm::Error launchUnprepared(llvm::ArrayRef<uint64_t> values,
                               void *stream) const;

  struct ValueCheck {
    Arg::Kind kind;    // Pointer, Int32, Int64 or Float32
    uint64_t mask = 0; // bits that must be 0 (divisibility - 1; all: kIsZero)
    IntRange range;    // where known, integers must lie in it (a mask bound)
    bool nullable = false;
  };
  const KernelDef *kernel_ = nullptr;
  LaunchOptions options_;
  /// The prepared arguments: the template a fallback launch fills in.
  llvm::SmallVector<Arg, 16> args_;
  /// Per runtime parameter, in order.
  llvm::SmallVector<ValueCheck, 16> checks_;
  const LoadedKernel *loaded_ = nullptr;
  Executor *executor_ = nullptr;
  KernelResources resources_;
};

} // namespace blockjit

#endif // BLOCKJIT_RUNTIME_PREPAREDLAUNCH_H
