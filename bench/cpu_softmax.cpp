//===- cpu_softmax.cpp - CPU backend vs a hand-written C++ softmax -------===//
//
//   build/bin/cpu_softmax [--csv]
//
// Same data, same run: the JIT-compiled DSL softmax against a hand-written
// three-pass loop built with -O3 -march=native, on one core (grid of one
// program / one thread) and on all cores. GB/s = 2 * rows * cols * 4 / time.
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/Kernels.h"
#include "runtime/CPUExecutor.h"
#include "runtime/Launch.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <thread>
#include <vector>

using namespace blockjit;

namespace {

/// The loop a C++ programmer would write: max, exp and sum, scale.
void handWrittenSoftmax(const float *in, float *out, int64_t rowBegin,
                        int64_t rowEnd, int64_t cols) {
  for (int64_t r = rowBegin; r < rowEnd; ++r) {
    const float *x = in + r * cols;
    float *y = out + r * cols;
    float maximum = -INFINITY;
    for (int64_t c = 0; c < cols; ++c)
      maximum = std::max(maximum, x[c]);
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) {
      y[c] = std::exp(x[c] - maximum);
      sum += y[c];
    }
    float scale = 1.0f / sum;
    for (int64_t c = 0; c < cols; ++c)
      y[c] *= scale;
  }
}

void handWrittenParallel(const float *in, float *out, int64_t rows,
                         int64_t cols, unsigned threads) {
  std::vector<std::thread> workers;
  int64_t chunk = (rows + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t)
    workers.emplace_back([=] {
      handWrittenSoftmax(in, out, std::min(rows, t * chunk),
                         std::min(rows, (t + 1) * chunk), cols);
    });
  for (std::thread &w : workers)
    w.join();
}

/// Median time of `repeats` runs of `body`, in seconds.
double timeIt(const std::function<void()> &body, int repeats = 15) {
  body(); // warm up
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    auto start = std::chrono::steady_clock::now();
    body();
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  bool csv = argc > 1 && std::strcmp(argv[1], "--csv") == 0;
  const std::pair<int64_t, int64_t> shapes[] = {
      {1823, 781}, {4096, 256}, {4096, 1024}, {2048, 4096}, {512, 12288}};
  unsigned threads = cpuThreadCount();
  if (csv)
    llvm::outs() << "rows,cols,threads,jit_gbps,hand_gbps,ratio\n";
  else
    llvm::outs() << llvm::format("%-12s %7s %10s %10s %7s\n", "shape",
                                 "threads", "jit GB/s", "hand GB/s",
                                 "jit/hand");
  for (auto [rows, cols] : shapes) {
    std::vector<float> input(rows * cols), out(rows * cols),
        reference(rows * cols);
    std::mt19937 rng(1);
    std::normal_distribution<float> normal(0.0f, 3.0f);
    for (float &x : input)
      x = normal(rng);
    double bytes = 2.0 * rows * cols * sizeof(float);
    for (unsigned useThreads : {1u, threads}) {
      LaunchOptions options;
      options.target = TargetKind::CPU;
      options.grid = {int(std::min<int64_t>(rows, useThreads))};
      std::vector<Arg> args = {out.data(),
                               input.data(),
                               int32_t(cols),
                               int32_t(cols),
                               int32_t(rows),
                               int32_t(cols),
                               Constexpr(next_power_of_2(cols))};
      bool ok = true;
      double jit = timeIt([&] {
        if (llvm::Error e = launch(*examples::softmax(), options, args)) {
          llvm::errs() << llvm::toString(std::move(e)) << "\n";
          ok = false;
        }
      });
      double hand = timeIt([&] {
        if (useThreads == 1)
          handWrittenSoftmax(input.data(), reference.data(), 0, rows, cols);
        else
          handWrittenParallel(input.data(), reference.data(), rows, cols,
                              useThreads);
      });
      if (!ok)
        return 1;
      double maxDiff = 0;
      for (size_t i = 0; i < out.size(); ++i)
        maxDiff = std::max(maxDiff, double(std::abs(out[i] - reference[i])));
      // The hand-written loop sums in float, so it drifts more than the JIT.
      if (maxDiff > 1e-4) {
        llvm::errs() << "results differ by " << maxDiff << "\n";
        return 1;
      }
      double jitGbps = bytes / jit / 1e9, handGbps = bytes / hand / 1e9;
      if (csv)
        llvm::outs() << rows << "," << cols << "," << useThreads << ","
                     << llvm::format("%.3f,%.3f,%.3f\n", jitGbps, handGbps,
                                     jitGbps / handGbps);
      else
        llvm::outs() << llvm::format(
            "%5lldx%-6lld %7u %10.2f %10.2f %7.2f\n", (long long)rows,
            (long long)cols, useThreads, jitGbps, handGbps, jitGbps / handGbps);
    }
  }
  return 0;
}
