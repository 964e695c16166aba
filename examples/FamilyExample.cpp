//===- FamilyExample.cpp - softmax --kernel NAME for the family ----------===//
//
// Each kernel of the softmax family as a Problem: f32 inputs (contiguous
// rows, normal with sd 3, as softmax's run), its launch arguments, the
// double reference, a tolerance (the differential suite's f32 rules,
// tests/differential/CasesSoftmaxFamily.cpp) and the bytes the kernel must
// move at the least (docs/EXAMPLES.md), whose rate is the GB/s printed.
// softmax over dim 0 has two algorithms (softmax_columns in one launch,
// softmax_columns_split in three), whose launches are the library's
// softmax_dim0 operation's: with the configs left to the tuners,
// --kernel softmax_columns prepares and checks both, and times and reports
// the one softmax_dim0 chooses (alternativesOf).
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

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <random>

namespace blockjit::examples {

namespace {

const char *const kFamily[] = {
    "log_softmax",           "softmax_temperature", "softmax_scale",
    "softmax_masked",        "softmax_causal",      "softmax_columns",
    "softmax_columns_split", "softmax_backward",    "layernorm"};

/// The launch arguments given the inputs' device pointers, the output's
/// (rows x cols, contiguous) and the scratch buffers'.
using ArgsFn = std::function<std::vector<Arg>(
    llvm::ArrayRef<Arg> inputs, Arg output, llvm::ArrayRef<Arg> scratch)>;

/// One launch of a problem: its kernel's tuner and arguments.
struct Step {
  Autotuner *tuner = nullptr;
  ArgsFn args;
  /// What a fixed config's persistent grid spreads: rows, or column strips.
  int64_t work = 0;
  /// A fixed config's whole grid (the 2-D grids of softmax_columns_split),
  /// instead of a persistent one over `work`.
  std::optional<Grid> grid;
};

/// A kernel's run on rows x cols f32 inputs: one launch, or a few in turn
/// (softmax_columns_split) passing f32 scratch buffers.
struct Problem {
  std::vector<Step> steps;
  /// Host inputs, in the order of the kernel's input pointers.
  std::vector<std::vector<float>> inputs;
  /// Scratch buffers' sizes in f32 elements.
  std::vector<int64_t> scratch;
  /// The reference's output, rows x cols.
  std::vector<double> expected;
  /// |got - want| <= abs + rel * |want| for every element.
  double abs = 0, rel = 0;
  /// The least the kernels read and write.
  double bytes = 0;
};

/// A one-launch problem's step.
Step oneStep(Autotuner &tuner, int64_t work,
             std::function<std::vector<Arg>(llvm::ArrayRef<Arg>, Arg)> args) {
  return {&tuner,
          [args](llvm::ArrayRef<Arg> in, Arg out, llvm::ArrayRef<Arg>) {
            return args(in, out);
          },
          work};
}

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

/// The problem of kernel `name` on rows x cols. `sameData`: a problem of
/// the same computation (the other algorithm of softmax over dim 0) whose
/// inputs and reference output are taken instead of made again.
llvm::Expected<Problem> makeProblem(llvm::StringRef name, int64_t rows,
                                    int64_t cols,
                                    const Problem *sameData = nullptr) {
  if (!name.starts_with("softmax_columns") && cols > kSoftmaxMaxBlock)
    return problemError(name + " holds a row in one block: --cols at most " +
                        llvm::Twine(kSoftmaxMaxBlock) +
                        " (softmax_online reads longer rows in chunks)");
  Problem p;
  const int64_t n = rows * cols;
  const double matrixBytes = double(n) * sizeof(float);
  const Arg stride = int32_t(cols), rowCount = int32_t(rows),
            colCount = int32_t(cols);
  const Arg block = Constexpr(next_power_of_2(cols));
  p.inputs.push_back(sameData ? sameData->inputs[0] : normals(n, 0, 3, 42));
  const float *x = p.inputs[0].data();
  if (sameData)
    p.expected = sameData->expected;
  else
    p.expected.resize(n);
  double *want = p.expected.data();
  p.bytes = 2 * matrixBytes;
  // A row kernel's one launch.
  auto rowStep =
      [&](Autotuner &tuner,
          std::function<std::vector<Arg>(llvm::ArrayRef<Arg>, Arg)> args) {
        p.steps.push_back(oneStep(tuner, rows, args));
      };
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
    rowStep(logSoftmaxTuner(), rowArgs(std::nullopt));
    referenceLogSoftmax(x, want, rows, cols, cols, cols, toDouble);
    p.abs = 1e-5, p.rel = 1e-6;
  } else if (name == "softmax_temperature") {
    const float temperature = 0.7f;
    rowStep(softmaxTemperatureTuner(), rowArgs(temperature));
    referenceSoftmaxTemperature(x, want, rows, cols, cols, cols, temperature,
                                toDouble);
    p.abs = 1e-6, p.rel = 1e-5;
  } else if (name == "softmax_scale") {
    const float scale = 2.5f;
    rowStep(softmaxScaleTuner(), rowArgs(scale));
    referenceSoftmaxScale(x, want, rows, cols, cols, cols, scale, toDouble);
    p.abs = 2.5e-6, p.rel = 1e-6;
  } else if (name == "softmax_causal") {
    rowStep(softmaxCausalTuner(), rowArgs(std::nullopt));
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
    rowStep(softmaxMaskedTuner(), [=](llvm::ArrayRef<Arg> in, Arg out) {
      return std::vector<Arg>{out,        in[0],    in[1],    stride, stride,
                              int32_t(0), rowCount, colCount, block};
    });
    referenceSoftmaxMasked(x, p.inputs[1].data(), want, rows, cols, cols, 0,
                           cols, toDouble);
    p.abs = 1e-6, p.rel = 1e-5;
    p.bytes = (2.0 * double(n) + double(cols)) * sizeof(float);
  } else if (name == "softmax_columns" || name == "softmax_columns_split") {
    // The launches of softmax_dim0's algorithm of this name (one, or three
    // passing statistics through scratch buffers; SoftmaxDim0.cpp), on the
    // operation's arguments. A fixed config's grids: one program per strip
    // (persistent), or the split's (strips x row blocks, strips, persistent
    // over chunks of rows), from the blocks the launches pass.
    const OperationSpec &op = softmaxDim0().spec();
    auto algorithm = llvm::find_if(
        op.algorithms, [&](const Algorithm &a) { return a.name == name; });
    if (algorithm == op.algorithms.end())
      return problemError("softmax_dim0 has no algorithm " + name);
    auto blocks = softmaxColumnsBlocks(rows, cols);
    if (!blocks)
      return blocks.takeError();
    auto operationArgs = [=](Arg out, Arg in) {
      return std::vector<Arg>{out, in, stride, stride, rowCount, colCount};
    };
    const float *none = nullptr;
    std::vector<Arg> shape = operationArgs(none, none);
    if (algorithm->scratch)
      for (const ScratchBuffer &buffer : algorithm->scratch(shape))
        p.scratch.push_back(buffer.elements);
    for (size_t i = 0; i < algorithm->steps.size(); ++i) {
      const AlgorithmStep &step = algorithm->steps[i];
      Step s{step.tuner, [step, operationArgs](llvm::ArrayRef<Arg> in, Arg out,
                                               llvm::ArrayRef<Arg> scratch) {
               auto args = step.args(operationArgs(out, in[0]), scratch);
               return std::vector<Arg>(args.begin(), args.end());
             }};
      std::vector<Arg> args = s.args(
          {shape[1]}, shape[0], std::vector<Arg>(p.scratch.size(), Arg(none)));
      // BLOCK_N of one launch and of stats and combine; BLOCK_M of
      // normalize.
      const KernelDef &kernel = step.tuner->kernel();
      auto constexprNamed = [&](llvm::StringRef param) {
        for (size_t k = 0; k < kernel.params().size(); ++k)
          if (kernel.params()[k].name == param)
            return args[k].i64;
        return int64_t(1);
      };
      if (&kernel == softmaxColumns().get())
        s.work = cdiv(cols, blocks->n);
      else if (&kernel == softmaxColumnsStats().get())
        s.grid = Grid{int(cdiv(cols, constexprNamed("BLOCK_N"))),
                      int(softmaxColumnsSplits(rows, cols)), 1};
      else if (&kernel == softmaxColumnsCombine().get())
        s.grid = Grid{int(cdiv(cols, constexprNamed("BLOCK_N"))), 1, 1};
      else
        s.work = cdiv(rows, constexprNamed("BLOCK_M"));
      p.steps.push_back(std::move(s));
    }
    if (!sameData)
      referenceSoftmaxColumns(x, want, rows, cols, cols, cols, toDouble);
    p.abs = 1e-6, p.rel = 1e-5;
  } else if (name == "softmax_backward") {
    // y is a softmax's output (of the normal values), dy normal.
    std::vector<float> y(n);
    referenceSoftmaxTemperature(x, y.data(), rows, cols, cols, cols, 1.0,
                                toDouble);
    p.inputs = {std::move(y), normals(n, 0, 1, 43)};
    rowStep(softmaxBackwardTuner(), [=](llvm::ArrayRef<Arg> in, Arg out) {
      return std::vector<Arg>{out,    in[0],    in[1],    stride, stride,
                              stride, rowCount, colCount, block};
    });
    referenceSoftmaxBackward(p.inputs[0].data(), p.inputs[1].data(), want, rows,
                             cols, cols, cols, cols, toDouble);
    p.abs = 1e-6, p.rel = 1e-5;
    p.bytes = 3 * matrixBytes;
  } else if (name == "layernorm") {
    const float eps = 1e-5f;
    p.inputs.push_back(normals(cols, 1, 0.5, 44));
    p.inputs.push_back(normals(cols, 0, 1, 45));
    rowStep(layerNormTuner(), [=](llvm::ArrayRef<Arg> in, Arg out) {
      // CHUNK_SIZE 0: the whole row in one block (the tuner may pick
      // chunks).
      return std::vector<Arg>{out,    in[0],  in[1],       in[2],
                              stride, stride, rowCount,    colCount,
                              eps,    block,  Constexpr(0)};
    });
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

namespace {

/// One launch of a problem, prepared: tuned (or the command line's
/// config), compiled and run once.
struct PreparedLaunch {
  const KernelDef *kernel;
  LaunchOptions options;
  std::vector<Arg> args;
  KernelResources info;
  std::string how;
};

/// A problem on the target: its buffers, its launches prepared and run
/// once in turn, and that run's output checked against the reference.
struct PreparedProblem {
  std::string name;
  Problem problem;
  std::vector<DeviceBuffer> buffers;
  std::vector<PreparedLaunch> launches;
  double compileMs = 0, maxError = 0, maxRelError = 0;
  bool within = true;
};

llvm::Expected<std::unique_ptr<PreparedProblem>>
prepareProblem(const FamilyRun &run, llvm::StringRef name,
               const Problem *sameData = nullptr) {
  auto problem = makeProblem(name, run.rows, run.cols, sameData);
  if (!problem)
    return problem.takeError();
  auto p = std::make_unique<PreparedProblem>();
  p->name = name.str();
  p->problem = std::move(*problem);
  TargetKind target = *run.options.target;
  // Inputs and output on the target's device (host memory for the CPU).
  std::vector<Arg> inputArgs;
  for (const std::vector<float> &input : p->problem.inputs) {
    auto buffer = DeviceBuffer::copyOf(target, llvm::ArrayRef(input));
    if (!buffer)
      return buffer.takeError();
    inputArgs.push_back(buffer->arg<float>());
    p->buffers.push_back(std::move(*buffer));
  }
  std::vector<float> output(p->problem.expected.size());
  auto out = DeviceBuffer::allocate(target, output.size() * sizeof(float));
  if (!out)
    return out.takeError();
  Arg outArg = out->arg<float>();
  std::vector<Arg> scratchArgs;
  for (int64_t elements : p->problem.scratch) {
    auto buffer = DeviceBuffer::allocate(target, elements * sizeof(float));
    if (!buffer)
      return buffer.takeError();
    scratchArgs.push_back(buffer->arg<float>());
    p->buffers.push_back(std::move(*buffer));
  }

  // Each launch's configuration (tuned, or the command line's) and
  // resources; each runs once before the next is tuned, which reads what
  // it wrote (softmax_columns_split's statistics).
  for (const Step &step : p->problem.steps) {
    auto start = std::chrono::steady_clock::now();
    PreparedLaunch l{&step.tuner->kernel(),
                     run.options,
                     step.args(inputArgs, outArg, scratchArgs),
                     {},
                     "fixed by the command line"};
    if (!run.fixed) {
      auto source = applyTuner(*step.tuner, l.options, l.args);
      if (!source)
        return source.takeError();
      l.how = *source;
    }
    auto info = warmup(*l.kernel, l.options, l.args);
    if (!info)
      return info.takeError();
    l.info = *info;
    if (run.fixed)
      l.options.grid =
          step.grid ? *step.grid : Grid{persistentGrid(*info, step.work)};
    p->compileMs += std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count();
    if (llvm::Error error = launch(*l.kernel, l.options, l.args))
      return std::move(error);
    p->launches.push_back(std::move(l));
  }
  if (llvm::Error error = executorFor(target).synchronize(0))
    return std::move(error);
  if (llvm::Error error = out->download(llvm::MutableArrayRef(output)))
    return std::move(error);
  p->buffers.push_back(std::move(*out));

  for (size_t i = 0; i < output.size(); ++i) {
    double want = p->problem.expected[i],
           error = std::abs(want - double(output[i]));
    // -inf outputs (log_softmax of a masked element) match exactly.
    if (want == double(output[i]))
      error = 0;
    p->within &= error <= p->problem.abs + p->problem.rel * std::abs(want);
    p->maxError = std::max(p->maxError, error);
    p->maxRelError =
        std::max(p->maxRelError, error / std::max(std::abs(want), 1e-30));
  }
  return p;
}

/// Seconds a run of the problem's launches in turn takes, as a user runs
/// them: each run is every launch of the problem, the next one back to back
/// (a small problem's input may stay in L2 across them).
llvm::Expected<double> secondsPerProblemRun(const PreparedProblem &p, int iters,
                                            Executor &executor) {
  return secondsPerRun(
      [&]() -> llvm::Error {
        for (const PreparedLaunch &l : p.launches)
          if (llvm::Error error = launch(*l.kernel, l.options, l.args))
            return error;
        return llvm::Error::success();
      },
      iters, executor);
}

/// Each launch's config and resources, the errors and the throughput; 0
/// when within tolerance, else 1 (FAILED printed).
int printProblemRun(const FamilyRun &run, const PreparedProblem &p,
                    llvm::StringRef where, double seconds) {
  TargetKind target = *run.options.target;
  for (const PreparedLaunch &l : p.launches) {
    // A one-launch problem names its kernel; a split one each launch's.
    const std::string &name =
        p.launches.size() == 1 ? p.name : l.kernel->name();
    llvm::outs() << llvm::format(
        "%s%s %lldx%lld f32 on %s: %s, num_warps %d, num_stages %d, "
        "num_ctas %d, grid %d",
        &l == &p.launches.front() ? "" : "\n", name.c_str(),
        (long long)run.rows, (long long)run.cols, where.str().c_str(),
        constexprText(*l.kernel, l.args).c_str(), l.options.numWarps,
        l.options.numStages, l.info.ctasPerProgram, l.options.grid.x);
    if (l.options.grid.y > 1)
      llvm::outs() << "x" << l.options.grid.y;
    printResourcesAndConfig(llvm::outs(), target, l.info, l.how);
  }
  llvm::outs() << llvm::format(
      "\n  max abs error %.3g, max relative error %.3g; compile+tune %.1f ms; "
      "%.4f ms/run, %.1f GB/s of %.0f bytes of minimal traffic\n",
      p.maxError, p.maxRelError, p.compileMs, seconds * 1e3,
      p.problem.bytes / seconds / 1e9, p.problem.bytes);
  if (!p.within) {
    llvm::outs() << llvm::format(
        "FAILED: an error above abs %g + rel %g x |expected|\n", p.problem.abs,
        p.problem.rel);
    return 1;
  }
  return 0;
}

/// The problems `run` prepares and checks: the kernel's own; for softmax
/// over dim 0 with the config left to the tuners, both algorithms (one
/// launch, softmax_columns; three, softmax_columns_split), of which the one
/// the library's softmax_dim0 chooses is timed and reported: the split wins
/// on tall matrices whose few column strips leave SMs idle (H200, M =
/// 32768: 1.0-1.6 x), one launch on short ones (M = 4096: 1.2-1.5 x), and
/// the crossover depends on the device.
std::vector<std::string> alternativesOf(const FamilyRun &run) {
  if (run.kernel == "softmax_columns" && !run.fixed)
    return {"softmax_columns", "softmax_columns_split"};
  return {run.kernel};
}

} // namespace

int runFamilyKernel(const FamilyRun &run) {
  auto note = [](const llvm::Twine &message) {
    llvm::errs() << "softmax: " << message << "\n";
  };
  auto fail = [&](const llvm::Twine &message) {
    note(message);
    return 1;
  };
  Executor &executor = executorFor(*run.options.target);
  auto where = executor.deviceName(0);
  if (!where)
    return fail(llvm::toString(where.takeError()));
  // The kernel's own problem must prepare; another algorithm that cannot
  // (e.g. its scratch does not fit) is left out, and said so.
  std::vector<std::unique_ptr<PreparedProblem>> prepared;
  for (const std::string &name : alternativesOf(run)) {
    // The alternatives compute the same thing: one input and reference.
    auto p = prepareProblem(
        run, name, prepared.empty() ? nullptr : &prepared.front()->problem);
    if (p) {
      prepared.push_back(std::move(*p));
    } else if (prepared.empty()) {
      return fail(llvm::toString(p.takeError()));
    } else {
      note(name + " left out of the choice: " + llvm::toString(p.takeError()));
    }
  }
  // Which algorithm runs is the library's choice (softmax_dim0: timed on
  // first use, kept on disk), made on the first problem's buffers.
  size_t chosen = 0;
  const OperationChoice *choice = nullptr;
  if (prepared.size() > 1) {
    const PreparedProblem &first = *prepared.front();
    const Arg in = first.buffers[0].arg<float>(),
              out = first.buffers.back().arg<float>();
    const Arg stride = int32_t(run.cols);
    auto made = softmaxDim0().choose(
        run.options,
        {out, in, stride, stride, int32_t(run.rows), int32_t(run.cols)});
    if (!made)
      return fail(llvm::toString(made.takeError()));
    choice = *made;
    const std::string &name =
        softmaxDim0().spec().algorithms[choice->algorithm].name;
    chosen = llvm::find_if(prepared,
                           [&](const auto &p) { return p->name == name; }) -
             prepared.begin();
    if (chosen == prepared.size())
      return fail("softmax_dim0 chose " + name + ", which did not prepare");
  }
  auto seconds = secondsPerProblemRun(*prepared[chosen], run.iters, executor);
  if (!seconds)
    return fail(llvm::toString(seconds.takeError()));
  int status = printProblemRun(run, *prepared[chosen], *where, *seconds);
  if (choice) {
    printOperationChoice(llvm::outs(), "softmax_dim0", *choice,
                         prepared[chosen]->name);
    // The one not chosen was checked too: a wrong answer there is a bug.
    for (size_t i = 0; i < prepared.size(); ++i)
      if (i != chosen && !prepared[i]->within) {
        llvm::outs() << llvm::format(
            "FAILED: %s's max abs error %.3g is above abs %g + rel %g x "
            "|expected|\n",
            prepared[i]->name.c_str(), prepared[i]->maxError,
            prepared[i]->problem.abs, prepared[i]->problem.rel);
        status = 1;
      }
  }
  if (status == 0)
    llvm::outs() << "OK\n";
  return status;
}

} // namespace blockjit::examples
