//===- Timing.cpp - how tuning times its candidates ----------------------===//
#include "runtime/Timing.h"

#include <algorithm>

namespace blockjit {

double scoreOfRuns(TargetKind target, std::vector<double> milliseconds) {
  if (milliseconds.empty())
    return 0;
  std::sort(milliseconds.begin(), milliseconds.end());
  if (target == TargetKind::CPU)
    return milliseconds.front();
  size_t n = milliseconds.size();
  return n % 2 ? milliseconds[n / 2]
               : 0.5 * (milliseconds[n / 2 - 1] + milliseconds[n / 2]);
}

std::string timedDeviceMaterial(llvm::StringRef deviceName) {
  return deviceName.str() + "\ntiming " + kTimingProtocol;
}

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

} // namespace blockjit
