//===- OperationTest.cpp - an operation's choice of algorithm, on the CPU -===//
//
// An Operation (runtime/Operation.h) times its algorithms and keeps the
// faster. On the CPU (what CI has) the algorithms differ through a
// Constexpr that sets how much busy work each program does, so the faster
// one is known. Also: scratch passed between launches, buffers restored
// after timing, the choice on disk, an algorithm that fails, BLOCKJIT_
// AUTOTUNE=0, prepared operations, the C ABI, and softmax_dim0's numbers
// against the double reference.
//
//===----------------------------------------------------------------------===//
#include "runtime/Operation.h"
#include "examples/kernels/Kernels.h"
#include "examples/kernels/Reference.h"
#include "examples/kernels/ReferenceFamily.h"
#include "runtime/Registry.h"
#include "runtime/blockjit_c.h"
#include "tests/common/ColumnsInput.h"
#include "tests/common/RowsInput.h"
#include "tests/common/ScopedCacheDirectory.h"
#include "tests/common/ScopedEnv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

using namespace blockjit;
using examples::referenceSoftmaxColumns;

namespace {

/// dst[i] = (ADD ? dst[i] : 0) + src[i] + 0 * t, where t is WORK rounds of
/// busy work from src: the result does not depend on WORK, the time does.
void busy_kernel(Ptr<float> dst_ptr, Ptr<float> src_ptr, Int n, Constexpr WORK,
                 Constexpr BLOCK, Constexpr ADD) {
  Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
  Tensor mask = offsets < n;
  Tensor x = load(src_ptr + offsets, mask, 0.0);
  std::vector<Tensor> t = for_range(
      0, WORK, 1, {x}, [&](Int, std::vector<Tensor> c) -> std::vector<Tensor> {
        return {c[0] * 0.999 + 0.001};
      });
  Tensor sum = x + t[0] * 0.0;
  if (ADD.value)
    sum = load(dst_ptr + offsets, mask, 0.0) + sum;
  store(dst_ptr + offsets, sum, mask);
}

/// A tuner with one config: WORK = `work`, blocks of 1024, ADD = `add`;
/// `emptyGrid`: a grid of 0 programs, which every launch refuses.
std::unique_ptr<Autotuner> busyTuner(const char *name, int64_t work, bool add,
                                     bool emptyGrid = false) {
  AutotuneSpec spec;
  spec.configs = {{4, 1, 1, {{"WORK", work}, {"ADD", add}}}};
  spec.grid = [emptyGrid](const TuningConfig &, const KernelResources &,
                          llvm::ArrayRef<Arg> args) {
    return Grid{emptyGrid ? 0 : int((args[2].i32 + 1023) / 1024)};
  };
  return std::make_unique<Autotuner>(
      jit(name, busy_kernel,
          {"dst_ptr", "src_ptr", "n", "WORK", "BLOCK", "ADD"}),
      std::move(spec));
}

/// The operation's arguments: (acc_ptr, x_ptr, n).
enum { kAcc, kX, kN };

/// Tuners of the test's algorithms, by WORK.
struct Tuners {
  std::unique_ptr<Autotuner> addSlow = busyTuner("op_add_slow", 20000, true),
                             addFast = busyTuner("op_add", 1, true),
                             copy = busyTuner("op_copy", 1, false),
                             refused = busyTuner("op_refused", 1, true, true);
};
Tuners &tuners() {
  static Tuners t;
  return t;
}

/// acc += x directly, with busy work.
Algorithm direct(Autotuner &add) {
  return {"direct",
          {{&add,
            [](llvm::ArrayRef<Arg> a, llvm::ArrayRef<Arg>) {
              return llvm::SmallVector<Arg, 16>{a[kAcc],         a[kX],
                                                a[kN],           Constexpr(0),
                                                Constexpr(1024), Constexpr(0)};
            }}},
          {}};
}

/// x copied to a scratch buffer, then acc += scratch, without busy work.
Algorithm viaScratch() {
  Algorithm algorithm{"via_scratch",
                      {{tuners().copy.get(),
                        [](llvm::ArrayRef<Arg> a, llvm::ArrayRef<Arg> scratch) {
                          return llvm::SmallVector<Arg, 16>{
                              scratch[0],   a[kX],           a[kN],
                              Constexpr(0), Constexpr(1024), Constexpr(0)};
                        }},
                       {tuners().addFast.get(),
                        [](llvm::ArrayRef<Arg> a, llvm::ArrayRef<Arg> scratch) {
                          return llvm::SmallVector<Arg, 16>{
                              a[kAcc],      scratch[0],      a[kN],
                              Constexpr(0), Constexpr(1024), Constexpr(0)};
                        }}},
                      {}};
  algorithm.scratch = [](llvm::ArrayRef<Arg> a) {
    return std::vector<ScratchBuffer>{{DType::F32, a[kN].i32}};
  };
  return algorithm;
}

/// {direct (slow), via_scratch}: via_scratch is faster.
OperationSpec accumulateSpec() {
  OperationSpec spec;
  spec.name = "test_accumulate";
  spec.params = {"acc_ptr", "x_ptr", "n"};
  spec.algorithms = {direct(*tuners().addSlow), viaScratch()};
  spec.key = {{"n", KeyBucket::PowerOfTwo}};
  // In place: every timed run adds x again.
  spec.restore = {{"acc_ptr", [](llvm::ArrayRef<Arg> a) {
                     return int64_t(a[kN].i32) * 4;
                   }}};
  spec.repetitions = 3;
  return spec;
}

struct Buffers {
  std::vector<float> acc, x;
  explicit Buffers(int n) : acc(n), x(n) {
    for (int i = 0; i < n; ++i) {
      acc[i] = float(i % 7);
      x[i] = float(i % 5) - 2;
    }
  }
  std::vector<Arg> args() {
    return {acc.data(), x.data(), int32_t(acc.size())};
  }
};

LaunchOptions cpu() {
  LaunchOptions options;
  options.target = TargetKind::CPU;
  return options;
}

void expectAddedOnce(const Buffers &b, const std::vector<float> &before) {
  for (size_t i = 0; i < b.acc.size(); ++i)
    ASSERT_EQ(b.acc[i], before[i] + b.x[i]) << i;
}

} // namespace

TEST(Operation, PicksTheFasterAlgorithmAndRestoresBuffers) {
  ScopedCacheDirectory cache;
  Operation op(accumulateSpec());
  Buffers b(1 << 14);
  std::vector<float> before = b.acc;
  auto choice = op.choose(cpu(), b.args());
  ASSERT_TRUE(bool(choice)) << llvm::toString(choice.takeError());
  EXPECT_EQ((*choice)->algorithm, 1u);
  ASSERT_EQ((*choice)->timings.size(), 2u);
  EXPECT_EQ((*choice)->timings[0].first, "direct");
  EXPECT_GT((*choice)->timings[0].second, (*choice)->timings[1].second);
  EXPECT_FALSE((*choice)->fromDiskCache);
  EXPECT_EQ(op.choicesTimed(), 1);
  // Warm-up and timed runs of both added x many times; restore gave acc
  // back, and one run adds it once (through the scratch buffer).
  EXPECT_EQ(b.acc, before);
  ASSERT_FALSE(bool(op.run(cpu(), b.args())));
  expectAddedOnce(b, before);
  EXPECT_EQ(op.choicesTimed(), 1); // the run found the choice in memory
}

TEST(Operation, ChoiceOnDiskMeansNoTiming) {
  ScopedCacheDirectory cache;
  Buffers b(1 << 12);
  {
    Operation op(accumulateSpec());
    ASSERT_FALSE(bool(op.run(cpu(), b.args())));
    EXPECT_EQ(op.choicesTimed(), 1);
  }
  Operation again(accumulateSpec());
  auto choice = again.choose(cpu(), b.args());
  ASSERT_TRUE(bool(choice)) << llvm::toString(choice.takeError());
  EXPECT_TRUE((*choice)->fromDiskCache);
  EXPECT_EQ((*choice)->algorithm, 1u);
  EXPECT_EQ(again.choicesTimed(), 0);
  // Another size bucket times again; so does another algorithm list.
  Buffers otherBucket(5000);
  ASSERT_TRUE(bool(again.choose(cpu(), otherBucket.args())));
  EXPECT_EQ(again.choicesTimed(), 1);
  OperationSpec reordered = accumulateSpec();
  std::swap(reordered.algorithms[0], reordered.algorithms[1]);
  Operation swapped(std::move(reordered));
  auto swappedChoice = swapped.choose(cpu(), b.args());
  ASSERT_TRUE(bool(swappedChoice));
  EXPECT_EQ(swapped.choicesTimed(), 1);
  EXPECT_EQ(swapped.spec().algorithms[(*swappedChoice)->algorithm].name,
            "via_scratch");
}

TEST(Operation, LeavesOutAnAlgorithmThatFails) {
  ScopedCacheDirectory cache;
  OperationSpec spec = accumulateSpec();
  // Its kernel gets too few arguments: the tuner's error.
  spec.algorithms[1].steps[1].args = [](llvm::ArrayRef<Arg> a,
                                        llvm::ArrayRef<Arg>) {
    return llvm::SmallVector<Arg, 16>{a[kAcc]};
  };
  Operation op(std::move(spec));
  Buffers b(1000);
  std::vector<float> before = b.acc;
  auto choice = op.choose(cpu(), b.args());
  ASSERT_TRUE(bool(choice)) << llvm::toString(choice.takeError());
  EXPECT_EQ((*choice)->algorithm, 0u);
  ASSERT_EQ((*choice)->skipped.size(), 1u);
  EXPECT_EQ((*choice)->skipped[0].first, "via_scratch");
  EXPECT_NE((*choice)->skipped[0].second.find("op_add"), std::string::npos)
      << (*choice)->skipped[0].second;
  ASSERT_FALSE(bool(op.run(cpu(), b.args())));
  expectAddedOnce(b, before);

  // None left: an error naming each algorithm and why.
  OperationSpec none = accumulateSpec();
  none.algorithms.erase(none.algorithms.begin());
  none.algorithms[0].steps[0].args = [](llvm::ArrayRef<Arg> a,
                                        llvm::ArrayRef<Arg>) {
    return llvm::SmallVector<Arg, 16>{a[kAcc]};
  };
  none.algorithms.push_back(none.algorithms[0]);
  none.algorithms[1].name = "again";
  Operation broken(std::move(none));
  llvm::Error error = broken.run(cpu(), b.args());
  ASSERT_TRUE(bool(error));
  std::string message = llvm::toString(std::move(error));
  EXPECT_NE(message.find("operation 'test_accumulate': no algorithm runs"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("via_scratch:"), std::string::npos) << message;
  EXPECT_NE(message.find("again:"), std::string::npos) << message;
}

// An algorithm that specializes but fails to run (here every launch is
// refused; out of memory would be another) is left out, and the choice it
// leaves is not stored on disk: another process times again.
TEST(Operation, AChoiceAfterARunFailureIsNotStored) {
  ScopedCacheDirectory cache;
  OperationSpec spec = accumulateSpec();
  spec.algorithms[1].steps[1].tuner = tuners().refused.get();
  Buffers b(2000);
  std::vector<float> before = b.acc;
  {
    Operation op(spec);
    auto choice = op.choose(cpu(), b.args());
    ASSERT_TRUE(bool(choice)) << llvm::toString(choice.takeError());
    EXPECT_EQ((*choice)->algorithm, 0u);
    ASSERT_EQ((*choice)->skipped.size(), 1u);
    EXPECT_NE((*choice)->skipped[0].second.find("grid"), std::string::npos)
        << (*choice)->skipped[0].second;
    EXPECT_EQ(b.acc, before); // restored, the failed algorithm's runs too
  }
  Operation again(spec);
  ASSERT_TRUE(bool(again.choose(cpu(), b.args())));
  EXPECT_EQ(again.choicesTimed(), 1);
}

TEST(Operation, ReportsBadArguments) {
  ScopedCacheDirectory cache;
  Operation op(accumulateSpec());
  Buffers b(64);
  auto wrongCount = [&] {
    std::vector<Arg> args = b.args();
    args.pop_back();
    return llvm::toString(op.run(cpu(), args));
  }();
  EXPECT_EQ(wrongCount, "operation 'test_accumulate': takes 3 arguments "
                        "(acc_ptr, x_ptr, n), got 2");
  std::vector<Arg> withConstexpr = b.args();
  withConstexpr[kN] = Constexpr(64);
  std::string message = llvm::toString(op.run(cpu(), withConstexpr));
  EXPECT_NE(message.find("argument #2 ('n') is a Constexpr"), std::string::npos)
      << message;
  // A null pointer: every algorithm is left out before anything is run or
  // copied (restore would read it).
  std::vector<Arg> null = b.args();
  null[kAcc] = Arg(static_cast<float *>(nullptr));
  message = llvm::toString(op.run(cpu(), null));
  EXPECT_EQ(message.rfind("operation 'test_accumulate': no algorithm runs "
                          "these arguments:\n  direct: ",
                          0),
            0u)
      << message;
  EXPECT_NE(message.find("via_scratch: "), std::string::npos) << message;
  EXPECT_NE(message.find("is a null pointer"), std::string::npos) << message;
  // The failure is not kept: valid pointers of the same key run.
  std::vector<float> before = b.acc;
  ASSERT_FALSE(bool(op.run(cpu(), b.args())));
  expectAddedOnce(b, before);
  OperationSpec empty = accumulateSpec();
  empty.algorithms.clear();
  Operation nothing(std::move(empty));
  EXPECT_EQ(llvm::toString(nothing.run(cpu(), b.args())),
            "operation 'test_accumulate': no algorithms to choose from");
}

TEST(Operation, UntimedUsesTheSpecsPick) {
  ScopedCacheDirectory cache;
  ScopedEnv off("BLOCKJIT_AUTOTUNE", "0");
  OperationSpec spec = accumulateSpec();
  spec.untimed = [](llvm::ArrayRef<Arg>, TargetKind target) -> size_t {
    return target == TargetKind::CPU ? 0 : 1;
  };
  Operation op(std::move(spec));
  Buffers b(2000);
  std::vector<float> before = b.acc;
  auto choice = op.choose(cpu(), b.args());
  ASSERT_TRUE(bool(choice)) << llvm::toString(choice.takeError());
  EXPECT_TRUE((*choice)->untimed);
  EXPECT_EQ((*choice)->algorithm, 0u);
  EXPECT_TRUE((*choice)->timings.empty());
  EXPECT_EQ(op.choicesTimed(), 0);
  // Nothing was run: acc is as it was until the run.
  EXPECT_EQ(b.acc, before);
  ASSERT_FALSE(bool(op.run(cpu(), b.args())));
  expectAddedOnce(b, before);
}

TEST(Operation, PreparedRunsNewPointersAndNewSizes) {
  ScopedCacheDirectory cache;
  Operation op(accumulateSpec());
  Buffers b(3000);
  auto prepared = op.prepare(cpu(), b.args());
  ASSERT_TRUE(bool(prepared)) << llvm::toString(prepared.takeError());
  EXPECT_EQ(prepared->algorithm(), "via_scratch");
  ASSERT_EQ(prepared->launches().size(), 2u);
  EXPECT_EQ(prepared->launches()[0].kernel->name(), "op_copy");
  EXPECT_EQ(prepared->launches()[1].options.grid.x, 3);
  EXPECT_EQ(prepared->numValues(), 3u);
  // New buffers of the same size: the prepared launches.
  Buffers other(3000);
  std::vector<float> before = other.acc;
  uint64_t values[] = {uint64_t(uintptr_t(other.acc.data())),
                       uint64_t(uintptr_t(other.x.data())), 3000};
  ASSERT_FALSE(bool(prepared->launch(values, nullptr)));
  expectAddedOnce(other, before);
  EXPECT_EQ(prepared->generalLaunches(), 0);
  // Another size: the general path (its own choice and scratch).
  Buffers larger(9000);
  before = larger.acc;
  uint64_t largerValues[] = {uint64_t(uintptr_t(larger.acc.data())),
                             uint64_t(uintptr_t(larger.x.data())), 9000};
  ASSERT_FALSE(bool(prepared->launch(largerValues, nullptr)));
  EXPECT_EQ(prepared->generalLaunches(), 1);
  expectAddedOnce(larger, before);
  // A size that does not fit the i32 it was prepared as is an error.
  uint64_t hugeValues[] = {values[0], values[1], uint64_t(1) << 32 | 3000};
  std::string huge = llvm::toString(prepared->launch(hugeValues, nullptr));
  EXPECT_NE(huge.find("does not fit the i32"), std::string::npos) << huge;
  // A wrong count of values is an error.
  EXPECT_EQ(
      llvm::toString(prepared->launch(llvm::ArrayRef(values, 2), nullptr)),
      "operation 'test_accumulate': a prepared launch takes 3 values, "
      "got 2");
}

namespace {

/// got[i] within abs 1e-6 + rel 1e-5 of want[i] (NaN where want[i] is);
/// `what` labels a failure. Call it in ASSERT_NO_FATAL_FAILURE.
void expectNearReference(llvm::ArrayRef<float> got, llvm::ArrayRef<double> want,
                         const std::string &what = "") {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i]))
      ASSERT_TRUE(std::isnan(got[i])) << what << " " << i;
    else
      ASSERT_NEAR(got[i], want[i], 1e-6 + 1e-5 * std::abs(want[i]))
          << what << " " << i;
  }
}

void expectSoftmaxDim0(int64_t rows, int64_t cols, int64_t stride) {
  std::vector<float> x = columnsInput(rows, cols, stride);
  std::vector<float> y(rows * stride, -7.0f);
  std::vector<double> want(rows * stride, -7.0);
  referenceSoftmaxColumns(x.data(), want.data(), rows, cols, stride, stride,
                          [](float v) { return double(v); });
  ASSERT_FALSE(bool(examples::softmaxDim0().run(
      cpu(), {y.data(), x.data(), int32_t(stride), int32_t(stride),
              int32_t(rows), int32_t(cols)})));
  // The padding between rows keeps -7 (want's too).
  expectNearReference(y, want);
}

} // namespace

// Both algorithms are timed, and the chosen one's output matches the double
// reference, strided rows and special values included.
TEST(SoftmaxDim0, MatchesTheReferenceOnTheCPU) {
  ScopedCacheDirectory cache;
  expectSoftmaxDim0(1823, 781, 800);
  expectSoftmaxDim0(4097, 3, 3);
  expectSoftmaxDim0(1, 1, 1);
}

// Each algorithm alone, forced by the untimed pick, matches too.
TEST(SoftmaxDim0, EachAlgorithmMatches) {
  ScopedCacheDirectory cache;
  ScopedEnv off("BLOCKJIT_AUTOTUNE", "0");
  const OperationSpec &spec = examples::softmaxDim0().spec();
  for (size_t a = 0; a < spec.algorithms.size(); ++a) {
    OperationSpec forced = spec;
    forced.untimed = [a](llvm::ArrayRef<Arg>, TargetKind) { return a; };
    Operation op(std::move(forced));
    const int64_t rows = 257, cols = 67;
    std::vector<float> x = columnsInput(rows, cols, cols);
    std::vector<float> y(rows * cols);
    std::vector<double> want(rows * cols);
    referenceSoftmaxColumns(x.data(), want.data(), rows, cols, cols, cols,
                            [](float v) { return double(v); });
    ASSERT_FALSE(
        bool(op.run(cpu(), {y.data(), x.data(), int32_t(cols), int32_t(cols),
                            int32_t(rows), int32_t(cols)})))
        << spec.algorithms[a].name;
    ASSERT_NO_FATAL_FAILURE(
        expectNearReference(y, want, spec.algorithms[a].name));
  }
}

// The untimed pick: the split (algorithm 1) on tall matrices, from 16384
// rows on the GPU and from 4096 on the CPU (where its rows read as 1-D
// blocks beat whole columns); one launch (0) below.
TEST(SoftmaxDim0, UntimedPickPerTarget) {
  auto pick = [](int64_t rows, TargetKind target) {
    float *none = nullptr;
    std::vector<Arg> args = {none, none, 781, 781, int32_t(rows), 781};
    return examples::softmaxDim0().spec().untimed(args, target);
  };
  EXPECT_EQ(pick(16383, TargetKind::CUDA), 0u);
  EXPECT_EQ(pick(16384, TargetKind::CUDA), 1u);
  EXPECT_EQ(pick(4095, TargetKind::CPU), 0u);
  EXPECT_EQ(pick(4096, TargetKind::CPU), 1u);
}

// In place (output = input): timing's runs are undone before the real one.
TEST(SoftmaxDim0, InPlace) {
  ScopedCacheDirectory cache;
  const int64_t rows = 300, cols = 40;
  std::vector<float> x = columnsInput(rows, cols, cols);
  std::vector<double> want(rows * cols);
  referenceSoftmaxColumns(x.data(), want.data(), rows, cols, cols, cols,
                          [](float v) { return double(v); });
  // A fresh operation: its first run times (and restores) here.
  Operation op(examples::softmaxDim0().spec());
  ASSERT_FALSE(
      bool(op.run(cpu(), {x.data(), x.data(), int32_t(cols), int32_t(cols),
                          int32_t(rows), int32_t(cols)})));
  EXPECT_EQ(op.choicesTimed(), 1);
  expectNearReference(x, want);
}

// Preparing does not run the algorithm on the caller's buffers (tuning
// restores what it writes): an in-place prepared operation computes softmax
// of the input, not of its softmax.
TEST(SoftmaxDim0, PreparedInPlace) {
  ScopedCacheDirectory cache;
  const int64_t rows = 200, cols = 30;
  std::vector<float> x = columnsInput(rows, cols, cols);
  const std::vector<float> original = x;
  std::vector<double> want(rows * cols);
  referenceSoftmaxColumns(x.data(), want.data(), rows, cols, cols, cols,
                          [](float v) { return double(v); });
  Operation op(examples::softmaxDim0().spec());
  auto prepared =
      op.prepare(cpu(), {x.data(), x.data(), int32_t(cols), int32_t(cols),
                         int32_t(rows), int32_t(cols)});
  ASSERT_TRUE(bool(prepared)) << llvm::toString(prepared.takeError());
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_TRUE(x[i] == original[i] ||
                (std::isnan(x[i]) && std::isnan(original[i])))
        << i;
  uint64_t values[] = {uint64_t(uintptr_t(x.data())),
                       uint64_t(uintptr_t(x.data())),
                       uint64_t(cols),
                       uint64_t(cols),
                       uint64_t(rows),
                       uint64_t(cols)};
  ASSERT_FALSE(bool(prepared->launch(values, nullptr)));
  expectNearReference(x, want);
}

namespace {

/// A C ABI argument: an f32 pointer, an i32.
blockjit_arg cPointerArg(const float *p) {
  blockjit_arg a{BLOCKJIT_ARG_POINTER, BLOCKJIT_F32, {}};
  a.value.pointer = p;
  return a;
}
blockjit_arg cI32Arg(int64_t v) {
  blockjit_arg a{BLOCKJIT_ARG_I32, 0, {}};
  a.value.i32 = int32_t(v);
  return a;
}

} // namespace

// The C ABI launches and prepares operations by name, as kernels.
TEST(SoftmaxDim0, ThroughTheCABI) {
  ScopedCacheDirectory cache;
  EXPECT_NE(std::string(blockjit_operation_names()).find("softmax_dim0"),
            std::string::npos);
  const int64_t rows = 100, cols = 33;
  std::vector<float> x = columnsInput(rows, cols, cols), y(rows * cols);
  std::vector<double> want(rows * cols);
  referenceSoftmaxColumns(x.data(), want.data(), rows, cols, cols, cols,
                          [](float v) { return double(v); });
  blockjit_arg args[] = {cPointerArg(y.data()), cPointerArg(x.data()),
                         cI32Arg(cols),         cI32Arg(cols),
                         cI32Arg(rows),         cI32Arg(cols)};
  blockjit_launch_options options{};
  options.target = BLOCKJIT_TARGET_CPU;
  ASSERT_EQ(blockjit_launch("softmax_dim0", args, 6, &options), 0)
      << blockjit_last_error();
  ASSERT_NO_FATAL_FAILURE(expectNearReference(y, want));

  std::fill(y.begin(), y.end(), 0.0f);
  blockjit_prepared *prepared = nullptr;
  ASSERT_EQ(blockjit_prepare("softmax_dim0", args, 6, &options, &prepared), 0)
      << blockjit_last_error();
  const char *config = nullptr;
  blockjit_kernel_info info{};
  ASSERT_EQ(blockjit_prepared_info(prepared, &info, &config), 0);
  EXPECT_EQ(std::string(config).rfind("algorithm=softmax_columns", 0), 0u)
      << config;
  EXPECT_GE(info.threads_per_program, 1);
  uint64_t values[] = {uint64_t(uintptr_t(y.data())),
                       uint64_t(uintptr_t(x.data())),
                       uint64_t(cols),
                       uint64_t(cols),
                       uint64_t(rows),
                       uint64_t(cols)};
  ASSERT_EQ(blockjit_launch_prepared(prepared, values, 6, nullptr), 0)
      << blockjit_last_error();
  ASSERT_NO_FATAL_FAILURE(expectNearReference(y, want));
  blockjit_release(prepared);

  EXPECT_NE(blockjit_warmup("softmax_dim0", args, 6, &options, nullptr), 0);
  EXPECT_NE(std::string(blockjit_last_error()).find("is an operation"),
            std::string::npos)
      << blockjit_last_error();
  // Bad arguments are errors, never a crash: a null input (restoring the
  // output during timing must not read it either), too few arguments, an
  // integer input the kernels cannot load -inf into.
  // (4 x the rows: another key, so that choosing, not a choice held in
  // memory, meets the null pointer.)
  blockjit_arg nullInput[] = {cPointerArg(y.data()), cPointerArg(nullptr),
                              cI32Arg(cols),         cI32Arg(cols),
                              cI32Arg(rows * 4),     cI32Arg(cols)};
  EXPECT_NE(blockjit_launch("softmax_dim0", nullInput, 6, &options), 0);
  EXPECT_NE(std::string(blockjit_last_error()).find("is a null pointer"),
            std::string::npos)
      << blockjit_last_error();
  EXPECT_NE(blockjit_launch("softmax_dim0", args, 5, &options), 0);
  blockjit_arg intInput[] = {cPointerArg(y.data()), cPointerArg(x.data()),
                             cI32Arg(cols),         cI32Arg(cols),
                             cI32Arg(rows * 8),     cI32Arg(cols)};
  intInput[1].dtype = BLOCKJIT_I32;
  EXPECT_NE(blockjit_launch("softmax_dim0", intInput, 6, &options), 0);
  EXPECT_NE(std::string(blockjit_last_error()).find("no algorithm runs"),
            std::string::npos)
      << blockjit_last_error();
  EXPECT_NE(blockjit_launch("no_such_thing", args, 6, &options), 0);
  EXPECT_NE(std::string(blockjit_last_error()).find("operations: "),
            std::string::npos)
      << blockjit_last_error();
}

namespace {

/// softmax_rows (a fresh operation, so it chooses here) of rowsInput into
/// a separate output, or in place; checks it against the double reference
/// and returns its choice.
OperationChoice expectSoftmaxRows(int64_t rows, int64_t cols, int64_t stride,
                                  bool inPlace = false) {
  std::vector<float> x = rowsInput(rows, cols, stride);
  std::vector<double> want(rows * stride, -5.0);
  examples::referenceSoftmax(x.data(), want.data(), rows, cols, stride, stride,
                             [](float v) { return double(v); });
  std::vector<float> y(rows * stride, -5.0f);
  float *out = inPlace ? x.data() : y.data();
  Operation op(examples::softmaxRows().spec());
  std::vector<Arg> args = {
      out,           x.data(),     int32_t(stride), int32_t(stride),
      int32_t(rows), int32_t(cols)};
  auto choice = op.choose(cpu(), args);
  EXPECT_TRUE(bool(choice)) << llvm::toString(choice.takeError());
  if (!choice)
    return {};
  EXPECT_FALSE(bool(op.run(cpu(), args)));
  expectNearReference(inPlace ? x : y, want,
                      std::to_string(rows) + "x" + std::to_string(cols));
  return **choice;
}

} // namespace

// Rows that softmax's block holds: both algorithms are timed, and the
// chosen one matches the double reference (strided rows, -inf, NaN, 3e38,
// an all -inf row), out of place and in place.
TEST(SoftmaxRows, TimesBothWhereSoftmaxHoldsTheRow) {
  ScopedCacheDirectory cache;
  for (auto [rows, cols, stride] :
       {std::tuple<int64_t, int64_t, int64_t>{1823, 781, 800},
        {9, 4097, 4097},
        {1, 1, 1}}) {
    OperationChoice choice = expectSoftmaxRows(rows, cols, stride);
    EXPECT_EQ(choice.timings.size(), 2u) << rows << "x" << cols;
    EXPECT_TRUE(choice.skipped.empty());
  }
  OperationChoice inPlace = expectSoftmaxRows(300, 1000, 1000, true);
  EXPECT_EQ(inPlace.timings.size(), 2u);
}

// Rows longer than softmax's block: softmax refuses them (said in the
// choice), softmax_online runs; untimed, the pick is softmax_online there
// and softmax below.
TEST(SoftmaxRows, LongerRowsThanSoftmaxHoldsRunOnline) {
  ScopedCacheDirectory cache;
  const int64_t cols = examples::kSoftmaxMaxBlock + 1;
  OperationChoice choice = expectSoftmaxRows(5, cols, cols);
  EXPECT_EQ(examples::softmaxRows().spec().algorithms[choice.algorithm].name,
            "softmax_online");
  ASSERT_EQ(choice.skipped.size(), 1u);
  EXPECT_EQ(choice.skipped[0].first, "softmax");
  EXPECT_NE(choice.skipped[0].second.find(
                "is longer than its largest block (1048576)"),
            std::string::npos)
      << choice.skipped[0].second;

  ScopedEnv off("BLOCKJIT_AUTOTUNE", "0");
  OperationChoice untimedLong = expectSoftmaxRows(2, cols, cols + 3, true);
  EXPECT_TRUE(untimedLong.untimed);
  EXPECT_EQ(untimedLong.algorithm, 1u);
  OperationChoice untimedShort = expectSoftmaxRows(7, 1000, 1003);
  EXPECT_EQ(untimedShort.algorithm, 0u);
}

// The untimed pick on the GPU takes softmax_online from a block of 2^20
// (cols > 2^19: measured faster there), on the CPU only past softmax's
// block; the softmax example's --kernel auto follows the same rule.
TEST(SoftmaxRows, UntimedPickPerTarget) {
  auto pick = [](int64_t cols, TargetKind target) {
    float *none = nullptr;
    std::vector<Arg> args = {none, none, 1, 1, 1, int32_t(cols)};
    return examples::softmaxRows().spec().untimed(args, target);
  };
  const int64_t half = examples::kSoftmaxMaxBlock / 2;
  EXPECT_EQ(pick(half, TargetKind::CUDA), 0u);
  EXPECT_EQ(pick(half + 1, TargetKind::CUDA), 1u);
  EXPECT_EQ(pick(examples::kSoftmaxMaxBlock, TargetKind::CPU), 0u);
  EXPECT_EQ(pick(examples::kSoftmaxMaxBlock + 1, TargetKind::CPU), 1u);
}

// An untimed pick that refuses the arguments is an error, not a launch.
TEST(SoftmaxRows, UntimedPickThatRefusesIsAnError) {
  ScopedEnv off("BLOCKJIT_AUTOTUNE", "0");
  OperationSpec forced = examples::softmaxRows().spec();
  forced.untimed = [](llvm::ArrayRef<Arg>, TargetKind) { return size_t(0); };
  Operation op(std::move(forced));
  const int64_t cols = examples::kSoftmaxMaxBlock + 1;
  std::vector<float> x(cols), y(cols);
  auto choice = op.choose(cpu(), {y.data(), x.data(), int32_t(cols),
                                  int32_t(cols), 1, int32_t(cols)});
  ASSERT_FALSE(bool(choice));
  std::string message = llvm::toString(choice.takeError());
  EXPECT_NE(message.find("its untimed pick softmax refuses these arguments: "
                         "a row of 1048577 elements"),
            std::string::npos)
      << message;
}

// The C ABI launches it by name.
TEST(SoftmaxRows, ThroughTheCABI) {
  ScopedCacheDirectory cache;
  EXPECT_NE(std::string(blockjit_operation_names()).find("softmax_rows"),
            std::string::npos);
  const int64_t rows = 64, cols = 333;
  std::vector<float> x = rowsInput(rows, cols, cols), y(rows * cols);
  std::vector<double> want(rows * cols);
  examples::referenceSoftmax(x.data(), want.data(), rows, cols, cols, cols,
                             [](float v) { return double(v); });
  blockjit_arg args[] = {cPointerArg(y.data()), cPointerArg(x.data()),
                         cI32Arg(cols),         cI32Arg(cols),
                         cI32Arg(rows),         cI32Arg(cols)};
  blockjit_launch_options options{};
  options.target = BLOCKJIT_TARGET_CPU;
  ASSERT_EQ(blockjit_launch("softmax_rows", args, 6, &options), 0)
      << blockjit_last_error();
  expectNearReference(y, want);
}
