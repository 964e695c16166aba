//===- cpu_softmax.cpp - the CPU backend's softmax, timed in-process -----===//
//
//   build/bin/cpu_softmax [--csv]
//       the JIT-compiled DSL softmax vs the hand-written loop
//       (bench/cpu_softmax_reference.cpp), one thread and all threads;
//   build/bin/cpu_softmax --inproc [--shapes RxC,...] [--samples N]
//       only the JIT, grid = rows, on $BLOCKJIT_CPU_THREADS threads: one
//       "rows,cols,GB/s" line per shape (read by bench/cpu_softmax_torch.py,
//       which compares with torch.softmax);
//   build/bin/cpu_softmax --inproc --offsets IN,OUT ...
//       input and output placed IN and OUT bytes past a page boundary
//       (default: wherever malloc puts them), to see how the row alignment
//       and 4K aliasing between the two arrays cost on a host.
//
// GB/s = 2 * rows * cols * 4 / time; a sample is a batch of launches lasting
// >= 2 ms, the result the median sample.
//
//===----------------------------------------------------------------------===//
#include "bench/cpu_softmax_reference.h"
#include "examples/kernels/Kernels.h"
#include "runtime/CPUExecutor.h"
#include "runtime/Launch.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace blockjit;

namespace {

using Shape = std::pair<int64_t, int64_t>;

double secondsOf(const std::function<void()> &body, int calls) {
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i)
    body();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
             .count() /
         calls;
}

/// Median seconds per call over `samples` batches of >= 2 ms each.
double timeIt(const std::function<void()> &body, int samples) {
  body(); // warm up (and compile)
  int calls = std::max(1, int(2e-3 / std::max(secondsOf(body, 3), 1e-7)));
  std::vector<double> times;
  for (int i = 0; i < samples; ++i)
    times.push_back(secondsOf(body, calls));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::vector<float> randomInput(int64_t count) {
  std::vector<float> input(count);
  std::mt19937 rng(1);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (float &x : input)
    x = normal(rng);
  return input;
}

/// Seconds per JIT softmax launch over `grid` programs, or a negative value
/// after printing the launch's error.
double timeJIT(const float *input, float *out, Shape shape, int grid,
               int samples) {
  auto [rows, cols] = shape;
  LaunchOptions options;
  options.target = TargetKind::CPU;
  options.grid = {grid};
  std::vector<Arg> args = {out,
                           const_cast<float *>(input),
                           int32_t(cols),
                           int32_t(cols),
                           int32_t(rows),
                           int32_t(cols),
                           Constexpr(next_power_of_2(cols))};
  bool ok = true;
  double seconds = timeIt(
      [&] {
        if (!ok)
          return;
        if (llvm::Error e = launch(*examples::softmax(), options, args)) {
          llvm::errs() << llvm::toString(std::move(e)) << "\n";
          ok = false;
        }
      },
      samples);
  return ok ? seconds : -1;
}

std::vector<Shape> parseShapes(const char *text) {
  std::vector<Shape> shapes;
  for (const char *p = text; *p;) {
    char *end;
    long long rows = std::strtoll(p, &end, 10);
    long long cols = *end == 'x' ? std::strtoll(end + 1, &end, 10) : 0;
    if (rows > 0 && cols > 0)
      shapes.push_back({rows, cols});
    p = *end == ',' ? end + 1 : end + std::strlen(end);
  }
  return shapes;
}

/// `count` floats starting `offset` bytes past a page boundary.
struct PlacedFloats {
  PlacedFloats(int64_t count, int64_t offset)
      : base(static_cast<char *>(std::aligned_alloc(
            4096, llvm::alignTo((count + 1) * 4 + offset, 4096)))) {}
  ~PlacedFloats() { std::free(base); }
  float *at(int64_t offset) { return reinterpret_cast<float *>(base + offset); }
  char *base;
};

int inProcess(const std::vector<Shape> &shapes, int samples,
              std::optional<std::pair<int64_t, int64_t>> offsets) {
  for (Shape shape : shapes) {
    auto [rows, cols] = shape;
    std::vector<float> input = randomInput(rows * cols), out(rows * cols);
    const float *in = input.data();
    float *result = out.data();
    std::optional<PlacedFloats> placedIn, placedOut;
    if (offsets) {
      placedIn.emplace(rows * cols, offsets->first);
      placedOut.emplace(rows * cols, offsets->second);
      std::copy(input.begin(), input.end(), placedIn->at(offsets->first));
      in = placedIn->at(offsets->first);
      result = placedOut->at(offsets->second);
    }
    double seconds = timeJIT(in, result, shape, int(rows), samples);
    if (seconds < 0)
      return 1;
    llvm::outs() << rows << "," << cols << ","
                 << llvm::format("%.3f\n",
                                 2.0 * rows * cols * 4 / seconds / 1e9);
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  bool csv = false, inproc = false;
  int samples = 15;
  std::optional<std::pair<int64_t, int64_t>> offsets;
  std::vector<Shape> shapes = {
      {1823, 781}, {4096, 256}, {4096, 1024}, {2048, 4096}, {512, 12288}};
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--csv"))
      csv = true;
    else if (!std::strcmp(argv[i], "--inproc"))
      inproc = true;
    else if (!std::strcmp(argv[i], "--shapes") && i + 1 < argc)
      shapes = parseShapes(argv[++i]);
    else if (!std::strcmp(argv[i], "--samples") && i + 1 < argc)
      samples = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--offsets") && i + 1 < argc) {
      char *end;
      int64_t in = std::strtoll(argv[++i], &end, 10);
      int64_t out = *end == ',' ? std::strtoll(end + 1, &end, 10) : -1;
      if (in < 0 || out < 0 || in % 4 || out % 4 || in >= 4096 || out >= 4096) {
        llvm::errs() << "--offsets IN,OUT: multiples of 4 below 4096\n";
        return 2;
      }
      offsets = {in, out};
    } else {
      llvm::errs() << "usage: cpu_softmax [--csv] [--inproc] [--shapes "
                      "RxC,...] [--samples N] [--offsets IN,OUT]\n";
      return 2;
    }
  }
  if (inproc)
    return inProcess(shapes, samples, offsets);

  unsigned threads = cpuThreadCount();
  if (csv)
    llvm::outs() << "rows,cols,threads,jit_gbps,hand_gbps,ratio\n";
  else
    llvm::outs() << llvm::format("%-12s %7s %10s %10s %7s\n", "shape",
                                 "threads", "jit GB/s", "hand GB/s",
                                 "jit/hand");
  for (Shape shape : shapes) {
    auto [rows, cols] = shape;
    std::vector<float> input = randomInput(rows * cols), out(rows * cols),
                       reference(rows * cols);
    double bytes = 2.0 * rows * cols * sizeof(float);
    for (unsigned useThreads : {1u, threads}) {
      // One thread: a grid of one program loops over every row.
      double jit = timeJIT(input.data(), out.data(), shape,
                           useThreads == 1 ? 1 : int(rows), samples);
      if (jit < 0)
        return 1;
      double hand = timeIt(
          [&] {
            reference_softmax(input.data(), reference.data(), rows, cols,
                              int32_t(useThreads));
          },
          samples);
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
