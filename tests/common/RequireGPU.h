//===- RequireGPU.h - GPU tests skip where there is no CUDA device --------===//
#ifndef BLOCKJIT_TESTS_COMMON_REQUIREGPU_H
#define BLOCKJIT_TESTS_COMMON_REQUIREGPU_H

#include "runtime/Executor.h"
#include "runtime/Launch.h"

#include <gtest/gtest.h>

namespace blockjit {

/// The CUDA executor (its device count is 0 without a driver or device).
inline Executor &cudaExecutor() { return executorFor(TargetKind::CUDA); }

/// Launch options for the CUDA target's device 0, default stream.
inline LaunchOptions onGPU() {
  LaunchOptions options;
  options.target = TargetKind::CUDA;
  return options;
}

} // namespace blockjit

/// Skips the calling test when there is no CUDA device.
#define REQUIRE_GPU()                                                          \
  do {                                                                         \
    if (::blockjit::cudaExecutor().deviceCount() == 0)                         \
      GTEST_SKIP() << "no CUDA device";                                        \
  } while (0)

#endif // BLOCKJIT_TESTS_COMMON_REQUIREGPU_H
