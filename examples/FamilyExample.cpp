//===- FamilyExample.cpp - softmax --kernel NAME for the family ----------===//
//
// Each kernel of the softmax family as a Problem: f32 inputs (contiguous
// rows, normal with sd 3, as softmax's run), its launch arguments, the
// double reference, a tolerance (the differential suite's f32 rules,
// tests/differential/CasesSoftmaxFamily.cpp) and the bytes the kernel must
// move at the least (docs/EXAMPLES.md), whose rate is the GB/s printed.
//
//===----------------------------------------------------------------------===//
#include "examples/FamilyExample.h"
#include "examples/ExampleRun.h"
#include "examples/kernels/Kernels.h"
#include "examples/kernels/ReferenceFamily.h"
#include "runtime/DeviceBuffer.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <functional>
#include <iterator>
#include <optional>
#include <random>

namespace blockjit::examples {

namespace {

const char *const kFamily[] = {"log_softmax",      "softmax_temperature",
                               "softmax_scale",    "softmax_masked",
                               "softmax_causal",   "softmax_columns",
                               "softmax_backward", "layernorm"};

/// A kernel's run on rows x cols f32 inputs.
struct Problem {
  Autotuner *tuner = nullptr;
  /// Host inputs, in the order of the kernel's input pointers.
  std::vector<std::vector<float>> inputs;
  /// The launch arguments given the inputs' device pointers and the
  /// output's (rows x cols, contiguous).
  std::function<std::vector<Arg>(llvm::ArrayRef<Arg> inputs, Arg output)> args;
  /// The reference's output, rows x cols.
  std::vector<double> expected;
  /// |got - want| <= abs + rel * |want| for every element.
  double abs = 0, rel = 0;
  /// The least the kernel reads and writes.
  double bytes = 0;
  /// What a fixed config's persistent grid spreads: rows, or column strips.
  int64_t work = 0;
};

std::vector<float> normals(int64_t n, double mean, double sd, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal{float(mean), float(sd)};
  std::vector<float> v(n);
  for (float &x : v)
    x = normal(rng);
  return v;
}

double toDouble(float x) { return x; }

llvm::Error problemError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}

/// The problem of a row kernel: one input x, out[r] = rowFn(x[r]).
llvm::Expected<Problem> makeProblem(llvm::StringRef name, int64_t rows,
                                    int64_t cols) {
  if (name != "softmax_columns" && cols > kSoftmaxMaxBlock)
    return problemError(name + " holds a row in one block: --cols at most " +
                        llvm::Twine(kSoftmaxMaxBlock) +
                        " (softmax_online reads longer rows in chunks)");
  Problem p;
  const int64_t n = rows * cols;
  const double matrixBytes = double(n) * sizeof(float);
  const Arg stride = int32_t(cols), rowCount = int32_t(rows),
            colCount = int32_t(cols);
  const Arg block = Constexpr(next_power_of_2(cols));
  p.inputs.push_back(normals(n, 0, 3, 42));
  const float *x = p.inputs[0].data();
  p.expected.resize(n);
  double *want = p.expected.data();
  p.work = rows;
  p.bytes = 2 * matrixBytes;
  // The one-input row kernels, with an optional Float before BLOCK_SIZE.
  auto rowArgs = [=](std::optional<float> scalar) {
    return [=](llvm::ArrayRef<Arg> in, Arg out) {
      std::vector<Arg> args = {out, in[0], stride, stride, rowCount, colCount};
      if (scalar)
        args.push_back(*scalar);
      args.push_back(block);
      return args;
    };
  };
  if (name == "log_softmax") {
    p.tuner = &logSoftmaxTuner();
    p.args = rowArgs(std::nullopt);
    referenceLogSoftmax(x, want, rows, cols, cols, cols, toDouble);
    p.abs = 1e-5, p.rel = 1e-6;
  } else if (name == "softmax_temperature") {
    const float temperature = 0.7f;
    p.tuner = &softmaxTemperatureTuner();
    p.args = rowArgs(temperature);
    referenceSoftmaxTemperature(x, want, rows, cols, cols, cols, temperature,
                                toDouble);
    p.abs = 1e-6, p.rel = 1e-5;
  } else if (name == "softmax_scale") {
    const float scale = 2.5f;
    p.tuner = &softmaxScaleTuner();
    p.args = rowArgs(scale);
    referenceSoftmaxScale(x, want, rows, cols, cols, cols, scale, toDouble);
    p.abs = 2.5e-6, p.rel = 1e-6;
  } else if (name == "softmax_causal") {
    p.tuner = &softmaxCausalTuner();
    p.args = rowArgs(std::nullopt);
    referenceSoftmaxCausal(x, want, rows, cols, cols, cols, toDouble);
    p.abs = 1e-6;
    // Row r reads min(r + 1, cols) elements; every row is written.
    double read = 0;
    for (int64_t r = 0; r < rows; ++r)
      read += double(std::min(r + 1, cols));
    p.bytes = (read + double(n)) * sizeof(float);
  } else if (name == "softmax_masked") {
    // One mask row shared by every row (mask_row_stride 0): 0, with -inf
    // at every 7th column after the first and a bias at every 5th.
    std::vector<float> mask(cols, 0.0f);
    for (int64_t c = 1; c < cols; ++c)
      mask[c] = c % 7 == 0 ? -INFINITY : c % 5 == 0 ? -1.5f : 0.0f;
    p.inputs.push_back(std::move(mask));
    p.tuner = &softmaxMaskedTuner();
    p.args = [=](llvm::ArrayRef<Arg> in, Arg out) {
      return std::vector<Arg>{out,        in[0],    in[1],    stride, stride,
                              int32_t(0), rowCount, colCount, block};
    };
    referenceSoftmaxMasked(x, p.inputs[1].data(), want, rows, cols, cols, 0,
                           cols, toDouble);
    p.abs = 1e-6, p.rel = 1e-5;
    p.bytes = (2.0 * double(n) + double(cols)) * sizeof(float);
  } else if (name == "softmax_columns") {
    auto blocks = softmaxColumnsBlocks(rows, cols);
    if (!blocks)
      return blocks.takeError();
    p.tuner = &softmaxColumnsTuner();
    Arg blockM = Constexpr(blocks->m), blockN = Constexpr(blocks->n),
        wholeColumn = Constexpr(blocks->wholeColumn);
    p.args = [=](llvm::ArrayRef<Arg> in, Arg out) {
      return std::vector<Arg>{out,      in[0],    stride, stride,
                              rowCount, colCount, blockM, blockN,
                              wholeColumn};
    };
    referenceSoftmaxColumns(x, want, rows, cols, cols, cols, toDouble);
    p.abs = 1e-6, p.rel = 1e-5;
    p.work = cdiv(cols, blocks->n);
  } else if (name == "softmax_backward") {
    // y is a softmax's output (of the normal values), dy normal.
    std::vector<float> y(n);
    referenceSoftmaxTemperature(x, y.data(), rows, cols, cols, cols, 1.0,
                                toDouble);
    p.inputs = {std::move(y), normals(n, 0, 1, 43)};
    p.tuner = &softmaxBackwardTuner();
    p.args = [=](llvm::ArrayRef<Arg> in, Arg out) {
      return std::vector<Arg>{out,    in[0],    in[1],    stride, stride,
                              stride, rowCount, colCount, block};
    };
    referenceSoftmaxBackward(p.inputs[0].data(), p.inputs[1].data(), want, rows,
                             cols, cols, cols, cols, toDouble);
    p.abs = 1e-6, p.rel = 1e-5;
    p.bytes = 3 * matrixBytes;
  } else if (name == "layernorm") {
    const float eps = 1e-5f;
    p.inputs.push_back(normals(cols, 1, 0.5, 44));
    p.inputs.push_back(normals(cols, 0, 1, 45));
    p.tuner = &layerNormTuner();
    p.args = [=](llvm::ArrayRef<Arg> in, Arg out) {
      // CHUNK_SIZE 0: the whole row in one block (the tuner may pick
      // chunks).
      return std::vector<Arg>{out,    in[0],  in[1],       in[2],
                              stride, stride, rowCount,    colCount,
                              eps,    block,  Constexpr(0)};
    };
    referenceLayerNorm(x, p.inputs[1].data(), p.inputs[2].data(), want, rows,
                       cols, cols, cols, double(eps), toDouble);
    p.abs = 1e-5, p.rel = 1e-5;
    p.bytes = (2.0 * double(n) + 2.0 * double(cols)) * sizeof(float);
  } else {
    return problemError("no family kernel named '" + name + "'");
  }
  return p;
}

/// "BLOCK_SIZE=1024" or "BLOCK_M=2048, BLOCK_N=16": the Constexpr
/// arguments the run compiled.
std::string constexprText(const KernelDef &kernel, llvm::ArrayRef<Arg> args) {
  std::vector<std::string> parts;
  const auto &params = kernel.params();
  for (size_t i = 0; i < params.size() && i < args.size(); ++i)
    if (params[i].kind == ParamKind::Constexpr)
      parts.push_back(params[i].name + "=" + std::to_string(args[i].i64));
  return llvm::join(parts, ", ");
}

} // namespace

std::string familyKernelNames() {
  return llvm::join(std::begin(kFamily), std::end(kFamily), ", ");
}

bool isFamilyKernel(llvm::StringRef name) {
  return llvm::is_contained(kFamily, name);
}

int runFamilyKernel(const FamilyRun &run) {
  auto fail = [](const llvm::Twine &message) {
    llvm::errs() << "softmax: " << message << "\n";
    return 1;
  };
  auto problem = makeProblem(run.kernel, run.rows, run.cols);
  if (!problem)
    return fail(llvm::toString(problem.takeError()));
  TargetKind target = *run.options.target;
  Executor &executor = executorFor(target);
  auto where = executor.deviceName(0);
  if (!where)
    return fail(llvm::toString(where.takeError()));
  // Inputs and output on the target's device (host memory for the CPU).
  std::vector<DeviceBuffer> buffers;
  std::vector<Arg> inputArgs;
  for (const std::vector<float> &input : problem->inputs) {
    auto buffer = DeviceBuffer::copyOf(target, llvm::ArrayRef(input));
    if (!buffer)
      return fail(llvm::toString(buffer.takeError()));
    inputArgs.push_back(buffer->arg<float>());
    buffers.push_back(std::move(*buffer));
  }
  std::vector<float> output(problem->expected.size());
  auto out = DeviceBuffer::allocate(target, output.size() * sizeof(float));
  if (!out)
    return fail(llvm::toString(out.takeError()));
  std::vector<Arg> args = problem->args(inputArgs, out->arg<float>());
  const KernelDef &kernel = problem->tuner->kernel();

  LaunchOptions options = run.options;
  auto start = std::chrono::steady_clock::now();
  std::string how = "fixed by the command line";
  if (!run.fixed) {
    auto source = applyTuner(*problem->tuner, options, args);
    if (!source)
      return fail(llvm::toString(source.takeError()));
    how = *source;
  }
  auto info = warmup(kernel, options, args);
  if (!info)
    return fail(llvm::toString(info.takeError()));
  if (run.fixed)
    options.grid = {persistentGrid(*info, problem->work)};
  double compileMs = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - start)
                         .count();
  if (llvm::Error error = launch(kernel, options, args))
    return fail(llvm::toString(std::move(error)));
  if (llvm::Error error = executor.synchronize(0))
    return fail(llvm::toString(std::move(error)));
  if (llvm::Error error = out->download(llvm::MutableArrayRef(output)))
    return fail(llvm::toString(std::move(error)));

  double maxError = 0, maxRelError = 0;
  bool within = true;
  for (size_t i = 0; i < output.size(); ++i) {
    double want = problem->expected[i],
           error = std::abs(want - double(output[i]));
    // -inf outputs (log_softmax of a masked element) match exactly.
    if (want == double(output[i]))
      error = 0;
    within &= error <= problem->abs + problem->rel * std::abs(want);
    maxError = std::max(maxError, error);
    maxRelError =
        std::max(maxRelError, error / std::max(std::abs(want), 1e-30));
  }

  auto seconds = secondsPerLaunch(kernel, options, args, run.iters, executor);
  if (!seconds)
    return fail(llvm::toString(seconds.takeError()));
  llvm::outs() << llvm::format(
      "%s %lldx%lld f32 on %s: %s, num_warps %d, num_stages %d, num_ctas %d, "
      "grid %d",
      run.kernel.c_str(), (long long)run.rows, (long long)run.cols,
      where->c_str(), constexprText(kernel, args).c_str(), options.numWarps,
      options.numStages, info->ctasPerProgram, options.grid.x);
  printResourcesAndConfig(llvm::outs(), target, *info, how);
  llvm::outs() << llvm::format(
      "\n  max abs error %.3g, max relative error %.3g; compile+tune %.1f ms; "
      "%.4f ms/run, %.1f GB/s of %.0f bytes of minimal traffic\n",
      maxError, maxRelError, compileMs, *seconds * 1e3,
      problem->bytes / *seconds / 1e9, problem->bytes);
  if (!within) {
    llvm::outs() << llvm::format(
        "FAILED: an error above abs %g + rel %g x |expected|\n", problem->abs,
        problem->rel);
    return 1;
  }
  llvm::outs() << "OK\n";
  return 0;
}

} // namespace blockjit::examples
