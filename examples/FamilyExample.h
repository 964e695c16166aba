//===- FamilyExample.h - the softmax example's family kernels ---*- C++ -*-===//
//
// `softmax --kernel NAME` for the kernels of the softmax family
// (examples/kernels/Kernels.h): the inputs, the launch arguments, the double
// reference (ReferenceFamily.h), the tolerance and the minimal memory
// traffic of each, run as softmax itself is (FamilyExample.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_EXAMPLES_FAMILYEXAMPLE_H
#define BLOCKJIT_EXAMPLES_FAMILYEXAMPLE_H

#include "runtime/Launch.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace blockjit::examples {

/// The family's kernel names, ", "-separated (for messages).
std::string familyKernelNames();
bool isFamilyKernel(llvm::StringRef name);

struct FamilyRun {
  std::string kernel;
  int64_t rows = 0, cols = 0;
  int iters = 20;
  /// The target and device; with `fixed`, also num_warps, num_stages and
  /// num_ctas (the tuner is bypassed).
  LaunchOptions options;
  bool fixed = false;
};

/// Runs `run.kernel` on random f32 inputs (normal, sd 3) of rows x cols,
/// checks it against the reference and prints the configuration, the
/// maximum error and the throughput of its minimal traffic. softmax_columns
/// without a fixed config times its one launch against softmax_columns_split
/// and reports the faster (both checked). The exit code:
/// 0 when within tolerance, 1 otherwise or on an error (printed).
int runFamilyKernel(const FamilyRun &run);

} // namespace blockjit::examples

#endif // BLOCKJIT_EXAMPLES_FAMILYEXAMPLE_H
