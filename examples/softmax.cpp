//===- softmax.cpp - the main job: JIT softmax, run it, check it ---------===//
//
//   softmax [--target auto|cpu|cuda] [--rows R] [--cols C] [--dtype f32]
//           [--iters N]
//
// Compiles the DSL softmax for the shape, runs it (GPU if present, else the
// CPU backend), compares with a double-precision C++ reference and prints the
// maximum error and the throughput (2 * rows * cols * sizeof(T) bytes).
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/Kernels.h"
#include "examples/kernels/Reference.h"
#include "runtime/CPUExecutor.h"
#include "runtime/CudaDriver.h"
#include "runtime/Launch.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <vector>

using namespace blockjit;
namespace cl = llvm::cl;

static cl::opt<std::string> targetName("target", cl::init("auto"),
                                       cl::desc("auto, cpu or cuda"));
static cl::opt<int64_t> rows("rows", cl::init(1823), cl::desc("rows"));
static cl::opt<int64_t> cols("cols", cl::init(781), cl::desc("columns"));
static cl::opt<int> iters("iters", cl::init(20), cl::desc("timed runs"));
static cl::opt<int> numWarps("num-warps", cl::init(4), cl::desc("num_warps"));

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv, "blockjit softmax example\n");
  auto fail = [](const llvm::Twine &message) {
    llvm::errs() << "softmax: " << message << "\n";
    return 1;
  };
  if (rows < 1 || cols < 1)
    return fail("--rows and --cols must be positive");
  LaunchOptions options;
  if (targetName == "cpu")
    options.target = TargetKind::CPU;
  else if (targetName == "cuda")
    options.target = TargetKind::CUDA;
  else if (targetName != "auto")
    return fail("--target must be auto, cpu or cuda");
  TargetKind target = options.target.value_or(defaultTarget());
  if (target != TargetKind::CPU)
    return fail("only the CPU target is available in this build");
  if (!options.target && cuda::deviceCount() > 0)
    if (auto props = cuda::deviceProperties(0))
      llvm::outs() << "note: found " << props->name << " (sm_" << props->smArch
                   << "), but GPU code generation is not built yet; running "
                      "on the CPU backend\n";

  std::vector<float> input(rows * cols), output(rows * cols, 0.0f);
  std::mt19937 rng(42);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (float &x : input)
    x = normal(rng);

  int64_t blockSize = next_power_of_2(cols);
  options.grid = {int(std::min<int64_t>(rows, cpuThreadCount()))};
  options.numWarps = numWarps;
  std::vector<Arg> args = {output.data(), input.data(),  int32_t(cols),
                           int32_t(cols), int32_t(rows), int32_t(cols),
                           Constexpr(blockSize)};
  const KernelDef &kernel = *examples::softmax();

  auto start = std::chrono::steady_clock::now();
  if (llvm::Error error = launch(kernel, options, args))
    return fail(llvm::toString(std::move(error)));
  double firstMs = std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - start)
                       .count();

  std::vector<double> expected(rows * cols);
  examples::referenceSoftmax(input.data(), expected.data(), rows, cols, cols,
                             cols, [](float x) { return double(x); });
  double maxError = 0;
  for (size_t i = 0; i < expected.size(); ++i)
    maxError = std::max(maxError, std::abs(expected[i] - output[i]));

  start = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i)
    if (llvm::Error error = launch(kernel, options, args))
      return fail(llvm::toString(std::move(error)));
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count() /
                   std::max(1, iters.getValue());
  double gbps = 2.0 * rows * cols * sizeof(float) / seconds / 1e9;

  llvm::outs() << llvm::format(
      "softmax %lldx%lld f32 on %s (%u threads, BLOCK_SIZE=%lld): max abs "
      "error %.3g; first launch (compile) %.1f ms; %.3f ms/run, %.2f GB/s\n",
      (long long)rows.getValue(), (long long)cols.getValue(), "cpu",
      cpuThreadCount(), (long long)blockSize, maxError, firstMs,
      seconds * 1e3, gbps);
  const double tolerance = 1e-6;
  if (!(maxError <= tolerance)) {
    llvm::outs() << "FAILED: error above " << tolerance << "\n";
    return 1;
  }
  llvm::outs() << "OK\n";
  return 0;
}
