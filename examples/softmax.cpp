//===- softmax.cpp - the main job: JIT softmax, run it, check it ---------===//
//
//   softmax [--target auto|cpu|cuda] [--rows R] [--cols C] [--dtype f32]
//           [--iters N]
//           [--kernel auto|softmax|softmax_online|softmax_rows|NAME]
//           [--num-warps W] [--num-stages S] [--num-ctas C]
//
// NAME is a kernel of the softmax family (log_softmax, softmax_temperature,
// softmax_scale, softmax_masked, softmax_causal, softmax_columns,
// softmax_columns_split: three launches, softmax_backward, layernorm), run
// the same way by FamilyExample.cpp with its own inputs, reference and
// minimal traffic.
//
// Compiles the DSL softmax for the shape (softmax_online, which reads a row
// in chunks, where one block of the row would exceed what one program holds,
// and on the GPU from a block of 2^20, where it is faster:
// examples::softmaxPrefersOnline; the softmax_rows operation times both)
// with the configuration its autotuner picks
// (timed on this shape once, then read from the disk cache), runs it (GPU if
// present, else the CPU backend), compares with a double-precision C++
// reference and prints the maximum error and the throughput (2 * rows * cols *
// sizeof(T) bytes).
//
//===----------------------------------------------------------------------===//
#include "compiler/Environment.h"
#include "examples/ExampleRun.h"
#include "examples/FamilyExample.h"
#include "examples/kernels/Kernels.h"
#include "examples/kernels/Reference.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/Executor.h"
#include "runtime/Autotune.h"
#include "runtime/Launch.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

using namespace blockjit;
namespace cl = llvm::cl;

// --help lists these only, not the options of every LLVM library linked in.
static cl::OptionCategory exampleCategory("softmax example options");
static cl::opt<std::string> targetName("target", cl::init("auto"),
                                       cl::desc("auto, cpu or cuda"),
                                       cl::cat(exampleCategory));
static cl::opt<int64_t>
    rows("rows", cl::init(0),
         cl::desc("rows (0: 1823, fewer for long rows: at most 2^24 "
                  "elements in all, at least one row)"),
         cl::cat(exampleCategory));
static cl::opt<int64_t> cols("cols", cl::init(781), cl::desc("columns"),
                             cl::cat(exampleCategory));
static cl::opt<int> iters("iters", cl::init(20), cl::desc("timed runs"),
                          cl::cat(exampleCategory));
static cl::opt<std::string>
    kernelName("kernel", cl::init("auto"),
               cl::desc("auto (softmax_online for rows longer than one "
                        "program's block, on the GPU from 2^19 + 1), softmax, "
                        "softmax_online, softmax_rows (the faster of the two, "
                        "timed on first use) or a "
                        "kernel of the softmax family (log_softmax, "
                        "softmax_columns, layernorm, ...)"),
               cl::cat(exampleCategory));
// Any of these set fixes the config (the others default to 4 warps, 1
// stage, 1 CTA); none set: the autotuner chooses (runtime/Autotune.h).
static cl::opt<int>
    numCTAs("num-ctas", cl::init(0),
            cl::desc("CTAs per program, a thread-block cluster (sm_90; 0: "
                     "the autotuner's choice)"),
            cl::cat(exampleCategory));
static cl::opt<int> programsPerCTA(
    "programs-per-cta", cl::init(0),
    cl::desc("programs sharing one CTA, each on its own warps (0: the "
             "autotuner's choice)"),
    cl::cat(exampleCategory));
static cl::opt<int> numStages("num-stages", cl::init(0),
                              cl::desc("num_stages (0: the autotuner's "
                                       "choice; 2 prefetches the next row)"),
                              cl::cat(exampleCategory));
static cl::opt<int> numWarps("num-warps", cl::init(0),
                             cl::desc("num_warps (0: the autotuner's choice)"),
                             cl::cat(exampleCategory));

int main(int argc, char **argv) {
  // --blockjit-dump-dir=DIR, ... (--blockjit-help lists them).
  llvm::Expected<bool> help = env::parseCommandLine(argc, argv);
  if (!help) {
    llvm::errs() << "softmax: " << llvm::toString(help.takeError()) << "\n";
    return 1;
  }
  if (*help)
    return 0;
  cl::HideUnrelatedOptions(exampleCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "blockjit softmax example (--blockjit-help: blockjit's own switches)\n");
  auto fail = [](const llvm::Twine &message) {
    llvm::errs() << "softmax: " << message << "\n";
    return 1;
  };
  if (rows == 0)
    rows = std::clamp<int64_t>((int64_t(1) << 24) / std::max<int64_t>(cols, 1),
                               1, 1823);
  if (rows < 1 || cols < 1)
    return fail("--rows and --cols must be positive");
  // Passed to the kernels as i32.
  if (std::max<int64_t>(rows, cols) > std::numeric_limits<int32_t>::max())
    return fail("--rows and --cols must be below 2^31");
  bool family = examples::isFamilyKernel(kernelName);
  bool rowsOperation = kernelName == "softmax_rows";
  if (kernelName != "auto" && kernelName != "softmax" &&
      kernelName != "softmax_online" && !rowsOperation && !family)
    return fail("--kernel must be auto, softmax, softmax_online, "
                "softmax_rows or one of " +
                examples::familyKernelNames());
  LaunchOptions options;
  if (targetName == "cpu")
    options.target = TargetKind::CPU;
  else if (targetName == "cuda")
    options.target = TargetKind::CUDA;
  else if (targetName != "auto")
    return fail("--target must be auto, cpu or cuda");
  TargetKind target = options.target.value_or(defaultTarget());
  options.target = target;
  bool fixed = numWarps || numStages || numCTAs || programsPerCTA;
  bool online = kernelName == "softmax_online" ||
                ((kernelName == "auto" || (rowsOperation && fixed)) &&
                 examples::softmaxPrefersOnline(cols, target));
  if (family) {
    // The family's kernels (FamilyExample.cpp): the same run, other inputs.
    examples::FamilyRun run{kernelName, rows, cols, iters, options, fixed};
    run.options.numWarps = numWarps ? numWarps : 4;
    run.options.numStages = numStages ? numStages : 1;
    run.options.numCTAs = numCTAs ? numCTAs : 1;
    run.options.programsPerCTA = programsPerCTA ? programsPerCTA : 1;
    return examples::runFamilyKernel(run);
  }

  std::vector<float> input(rows * cols), output(rows * cols, 0.0f);
  std::mt19937 rng(42);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (float &x : input)
    x = normal(rng);
  // Fixed options on the command line bypass the tuner.
  options.numWarps = numWarps ? numWarps : 4;
  options.numStages = numStages ? numStages : 1;
  options.numCTAs = numCTAs ? numCTAs : 1;
  options.programsPerCTA = programsPerCTA ? programsPerCTA : 1;
  size_t bytes = input.size() * sizeof(float);

  // Where the kernel reads and writes: buffers on the target's device (host
  // memory for the CPU).
  Executor &executor = executorFor(target);
  auto in = DeviceBuffer::copyOf(target, llvm::ArrayRef(input));
  if (!in)
    return fail(llvm::toString(in.takeError()));
  auto out = DeviceBuffer::allocate(target, bytes);
  if (!out)
    return fail(llvm::toString(out.takeError()));
  auto where = executor.deviceName(0);
  if (!where)
    return fail(llvm::toString(where.takeError()));

  // From here on: compile+tune (and softmax_rows' choice).
  auto start = std::chrono::steady_clock::now();
  std::vector<Arg> args = {out->arg<float>(), in->arg<float>(), int32_t(cols),
                           int32_t(cols),     int32_t(rows),    int32_t(cols)};
  // softmax_rows (tuned configs only): the operation times softmax and
  // softmax_online for the shape (or reads its choice from the disk), and
  // the chosen kernel runs below.
  const OperationChoice *rowsChoice = nullptr;
  if (rowsOperation && !fixed) {
    auto chosen = examples::softmaxRows().choose(options, args);
    if (!chosen)
      return fail(llvm::toString(chosen.takeError()));
    rowsChoice = *chosen;
    online =
        examples::softmaxRows().spec().algorithms[rowsChoice->algorithm].name ==
        "softmax_online";
  }
  // softmax holds the whole row in one block; softmax_online reads it in
  // chunks, whose size its tuner picks (the argument here is replaced).
  int64_t blockSize =
      online ? examples::kSoftmaxOnlineBlock : next_power_of_2(cols);
  args.push_back(Constexpr(blockSize));
  Autotuner &tuner =
      online ? examples::softmaxOnlineTuner() : examples::softmaxTuner();
  const KernelDef &kernel = tuner.kernel();

  // Compile (and tune, unless the options are fixed or a tuning result is
  // on disk), and size the persistent grid from the kernel's occupancy.
  std::string how = "fixed by the command line";
  if (!fixed) {
    auto source = examples::applyTuner(tuner, options, args);
    if (!source)
      return fail(llvm::toString(source.takeError()));
    how = *source;
    blockSize = args.back().i64;
  }
  auto info = warmup(kernel, options, args);
  if (!info)
    return fail(llvm::toString(info.takeError()));
  if (fixed)
    options.grid = {persistentGrid(*info, rows)};
  double compileMs = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - start)
                         .count();
  if (llvm::Error error = launch(kernel, options, args))
    return fail(llvm::toString(std::move(error)));
  if (llvm::Error e = executor.synchronize(0))
    return fail(llvm::toString(std::move(e)));
  if (llvm::Error e = out->download(output))
    return fail(llvm::toString(std::move(e)));

  std::vector<double> expected(rows * cols);
  examples::referenceSoftmax(input.data(), expected.data(), rows, cols, cols,
                             cols, [](float x) { return double(x); });
  // Relative to each element: outputs are ~1/cols, so a fixed absolute
  // bound is loose for long rows and tight for short ones. The f32 row sum
  // contributes most, and its rounding error grows like sqrt(cols) (as a
  // random walk of 2^-24-sized steps); the absolute floor covers outputs
  // that underflow to 0.
  const double relTolerance = 1e-5 + 1e-7 * std::sqrt(double(cols)),
               absFloor = 1e-30;
  double maxError = 0, maxRelError = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    double error = std::abs(expected[i] - output[i]);
    maxError = std::max(maxError, error);
    maxRelError = std::max(maxRelError,
                           error / std::max(std::abs(expected[i]), absFloor));
  }

  auto timed = examples::secondsPerLaunch(kernel, options, args, iters,
                                          executor);
  if (!timed)
    return fail(llvm::toString(timed.takeError()));
  double seconds = *timed;
  double gbps = 2.0 * rows * cols * sizeof(float) / seconds / 1e9;

  llvm::outs() << llvm::format(
      "softmax %lldx%lld f32 on %s: kernel %s, BLOCK_SIZE=%lld, num_warps %d, "
      "num_stages %d, num_ctas %d, grid %d",
      (long long)rows.getValue(), (long long)cols.getValue(), where->c_str(),
      online ? "softmax_online" : "softmax", (long long)blockSize,
      options.numWarps, options.numStages, info->ctasPerProgram,
      options.grid.x);
  examples::printResourcesAndConfig(llvm::outs(), target, *info, how);
  llvm::outs() << llvm::format(
      "\n  max abs error %.3g, max relative error %.3g; compile+tune %.1f ms; "
      "%.4f ms/run, %.1f GB/s\n",
      maxError, maxRelError, compileMs, seconds * 1e3, gbps);
  if (rowsChoice)
    examples::printOperationChoice(llvm::outs(), "softmax_rows", *rowsChoice,
                                   online ? "softmax_online" : "softmax");
  if (!(maxRelError <= relTolerance)) {
    llvm::outs() << "FAILED: relative error above " << relTolerance << "\n";
    return 1;
  }
  llvm::outs() << "OK\n";
  return 0;
}
