//===- AutotuneGPUTest.cpp - the autotuner and prepared launches on CUDA --===//
//
// On a CUDA device: softmax's tuner times several configs on the caller's
// stream (events, L2 flush), its result is read back from the disk by a new
// tuner, the tuned launch is right; a restored device buffer keeps its
// contents through tuning; a prepared launch with a misaligned pointer takes
// the general path instead of faulting. Skips without a device.
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/Kernels.h"
#include "runtime/Autotune.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/Executor.h"
#include "runtime/PreparedLaunch.h"
#include "tests/common/RequireGPU.h"
#include "tests/common/ScopedCacheDirectory.h"

#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace blockjit;

namespace {

/// Rows of `cols` values i % 13 - 6.
std::vector<float> rowsOf(int rows, int cols) {
  std::vector<float> values(size_t(rows) * cols);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = float(int(i % 13) - 6);
  return values;
}

void expectSoftmax(const std::vector<float> &in, const std::vector<float> &out,
                   int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    double max = -INFINITY, sum = 0;
    for (int c = 0; c < cols; ++c)
      max = std::max(max, double(in[size_t(r) * cols + c]));
    for (int c = 0; c < cols; ++c)
      sum += std::exp(double(in[size_t(r) * cols + c]) - max);
    for (int c = 0; c < cols; ++c) {
      double want = std::exp(double(in[size_t(r) * cols + c]) - max) / sum;
      ASSERT_NEAR(out[size_t(r) * cols + c], want, 1e-6) << r << "," << c;
    }
  }
}

} // namespace

TEST(GPUAutotune, SoftmaxIsTimedThenReadFromTheDisk) {
  REQUIRE_GPU();
  ScopedCacheDirectory cache;
  const int rows = 1000, cols = 3000;
  std::vector<float> host = rowsOf(rows, cols), result(host.size());
  auto in = DeviceBuffer::copyOf(TargetKind::CUDA, llvm::ArrayRef(host));
  auto out = DeviceBuffer::allocate(TargetKind::CUDA, host.size() * 4);
  ASSERT_TRUE(in && out);
  std::vector<Arg> args = {out->arg<float>(), in->arg<float>(), cols, cols,
                           rows, cols, Constexpr(4096)};
  AutotuneSpec spec = examples::softmaxTuner().spec();
  Autotuner tuner(examples::softmax(), spec);
  auto tuned = tuner.choose(onGPU(), args);
  ASSERT_TRUE(bool(tuned)) << llvm::toString(tuned.takeError());
  EXPECT_GE(tuned->result->timings.size(), 2u);
  EXPECT_FALSE(tuned->result->untimed);
  EXPECT_EQ(tuner.tuningsRun(), 1);
  for (auto &[config, ms] : tuned->result->timings)
    EXPECT_GT(ms, 0.0) << config.str();
  ASSERT_FALSE(bool(tuner.launch(onGPU(), args)));
  ASSERT_FALSE(bool(executorFor(TargetKind::CUDA).synchronize(0)));
  ASSERT_FALSE(bool(out->download(result)));
  expectSoftmax(host, result, rows, cols);

  Autotuner again(examples::softmax(), spec);
  auto fromDisk = again.choose(onGPU(), args);
  ASSERT_TRUE(bool(fromDisk)) << llvm::toString(fromDisk.takeError());
  EXPECT_TRUE(fromDisk->result->fromDiskCache);
  EXPECT_EQ(fromDisk->result->config, tuned->result->config);
  EXPECT_EQ(again.tuningsRun(), 0);
}

// Where registers keep a CTA off each SM, tuning also times its fastest
// configs capped (registerCapForOneMoreCTA): softmax's rows of 4000 f32 in
// registers on 1 or 2 warps (64-128 elements a thread, more than 64
// registers, so registers bind before the SM's 32 CTAs or 2048 threads do;
// blocks of 8192 would wait in shared memory instead). Each
// config whose resources give a cap is timed capped, or skipped saying why
// (the driver's occupancy shows no extra CTA); the tuned launch is right
// either way, and a new tuner reads the same config back from the disk.
TEST(GPUAutotune, RegisterBoundConfigsAreTimedCapped) {
  REQUIRE_GPU();
  ScopedCacheDirectory cache;
  const int rows = 300, cols = 8000;
  std::vector<float> host = rowsOf(rows, cols), result(host.size());
  auto in = DeviceBuffer::copyOf(TargetKind::CUDA, llvm::ArrayRef(host));
  auto out = DeviceBuffer::allocate(TargetKind::CUDA, host.size() * 4);
  ASSERT_TRUE(in && out);
  std::vector<Arg> args = {
      out->arg<float>(), in->arg<float>(), cols, cols, rows, cols,
      Constexpr(8192)};
  AutotuneSpec spec;
  spec.configs = {{1, 1, 1, {}}, {2, 1, 1, {}}};
  spec.grid = [](const TuningConfig &, const KernelResources &,
                 llvm::ArrayRef<Arg>) { return Grid{rows}; };
  spec.repetitions = 5;
  Autotuner tuner(examples::softmax(), spec);
  auto tuned = tuner.choose(onGPU(), args);
  ASSERT_TRUE(bool(tuned)) << llvm::toString(tuned.takeError());
  int caps = 0;
  std::string seen; // what the device gave each config, for a failure
  for (const TuningConfig &config : spec.configs) {
    LaunchOptions options = onGPU();
    config.applyTo(options);
    auto resources = warmup(tuner.kernel(), options, args);
    ASSERT_TRUE(bool(resources)) << llvm::toString(resources.takeError());
    TuningConfig capped = config;
    capped.maxRegisters = registerCapForOneMoreCTA(*resources);
    seen += llvm::formatv("\n  {0}: {1} registers, {2} threads, {3} "
                          "programs an SM, {4} bytes of shared memory",
                          config.str(), resources->registers,
                          resources->threadsPerProgram,
                          resources->maxProgramsPerProcessor,
                          resources->sharedMemoryBytes)
                .str();
    if (!capped.maxRegisters)
      continue;
    ++caps;
    bool timed = false, skipped = false;
    for (auto &[c, ms] : tuned->result->timings)
      timed |= c == capped;
    for (auto &[c, why] : tuned->result->skipped)
      skipped |= c == capped && why.find("still") != std::string::npos;
    EXPECT_TRUE(timed || skipped)
        << capped.str() << " (" << resources->registers << " registers, "
        << resources->maxProgramsPerProcessor << " CTAs an SM uncapped)";
  }
  EXPECT_GE(caps, 1) << "no config here has its CTAs an SM bound by "
                        "registers:"
                     << seen;
  ASSERT_FALSE(bool(tuner.launch(onGPU(), args)));
  ASSERT_FALSE(bool(executorFor(TargetKind::CUDA).synchronize(0)));
  ASSERT_FALSE(bool(out->download(result)));
  expectSoftmax(host, result, rows, cols);

  Autotuner again(examples::softmax(), spec);
  auto fromDisk = again.choose(onGPU(), args);
  ASSERT_TRUE(bool(fromDisk)) << llvm::toString(fromDisk.takeError());
  EXPECT_TRUE(fromDisk->result->fromDiskCache);
  EXPECT_EQ(fromDisk->result->config, tuned->result->config);
}

TEST(GPUAutotune, RestoredDeviceBufferKeepsItsContents) {
  REQUIRE_GPU();
  ScopedCacheDirectory cache;
  // softmax in place: every timed run would overwrite the input.
  const int rows = 64, cols = 1000;
  std::vector<float> host = rowsOf(rows, cols), result(host.size());
  auto data = DeviceBuffer::copyOf(TargetKind::CUDA, llvm::ArrayRef(host));
  ASSERT_TRUE(bool(data));
  std::vector<Arg> args = {data->arg<float>(), data->arg<float>(), cols, cols,
                           rows, cols, Constexpr(1024)};
  AutotuneSpec spec = examples::softmaxTuner().spec();
  spec.restore = {{"input_ptr", [](llvm::ArrayRef<Arg>) {
                     return int64_t(rows) * cols * 4;
                   }}};
  Autotuner tuner(examples::softmax(), spec);
  auto tuned = tuner.choose(onGPU(), args);
  ASSERT_TRUE(bool(tuned)) << llvm::toString(tuned.takeError());
  ASSERT_FALSE(bool(data->download(result)));
  EXPECT_EQ(result, host);
  // One launch now gives one softmax.
  ASSERT_FALSE(bool(tuner.launch(onGPU(), args)));
  ASSERT_FALSE(bool(executorFor(TargetKind::CUDA).synchronize(0)));
  ASSERT_FALSE(bool(data->download(result)));
  expectSoftmax(host, result, rows, cols);
}

// The registered softmax and softmax_online tuners give an in-place output
// back after timing (they did not: each timed run applied softmax again).
TEST(GPUAutotune, RegisteredSoftmaxTunersInPlaceComputeOnce) {
  REQUIRE_GPU();
  const int rows = 64, cols = 3000;
  for (Autotuner *tuner :
       {&examples::softmaxTuner(), &examples::softmaxOnlineTuner()}) {
    ScopedCacheDirectory cache;
    std::vector<float> host = rowsOf(rows, cols), result(host.size());
    auto data = DeviceBuffer::copyOf(TargetKind::CUDA, llvm::ArrayRef(host));
    ASSERT_TRUE(bool(data));
    std::vector<Arg> args = {
        data->arg<float>(), data->arg<float>(), cols, cols, rows, cols,
        Constexpr(4096)};
    auto tuned = tuner->choose(onGPU(), args);
    ASSERT_TRUE(bool(tuned)) << llvm::toString(tuned.takeError());
    EXPECT_FALSE(tuned->result->untimed) << tuner->kernel().name();
    ASSERT_FALSE(bool(data->download(result)));
    EXPECT_EQ(result, host) << tuner->kernel().name();
    ASSERT_FALSE(bool(tuner->launch(onGPU(), args)));
    ASSERT_FALSE(bool(executorFor(TargetKind::CUDA).synchronize(0)));
    ASSERT_FALSE(bool(data->download(result)));
    expectSoftmax(host, result, rows, cols);
  }
}

TEST(GPUAutotune, PreparedLaunchWithAMisalignedPointerTakesTheGeneralPath) {
  REQUIRE_GPU();
  const int rows = 8, cols = 1024;
  std::vector<float> host = rowsOf(rows, cols + 4), result(host.size());
  auto in = DeviceBuffer::copyOf(TargetKind::CUDA, llvm::ArrayRef(host));
  auto out = DeviceBuffer::allocate(TargetKind::CUDA, host.size() * 4);
  ASSERT_TRUE(in && out);
  LaunchOptions options = onGPU();
  options.grid = {rows};
  std::vector<Arg> args = {out->arg<float>(), in->arg<float>(), cols, cols,
                           rows, cols, Constexpr(1024)};
  auto prepared = PreparedLaunch::prepare(*examples::softmax(), options, args);
  ASSERT_TRUE(bool(prepared)) << llvm::toString(prepared.takeError());
  // 4 bytes past a 16-byte boundary: the prepared kernel's vector loads
  // would fault; the launch compiles the scalar specialization instead.
  auto address = [](const DeviceBuffer &b, int offset) {
    return uint64_t(uintptr_t(b.arg<float>().pointer)) + offset;
  };
  uint64_t values[] = {address(*out, 4), address(*in, 4), cols, cols, rows,
                       cols};
  ASSERT_FALSE(bool(prepared->launch(values, nullptr)));
  ASSERT_FALSE(bool(executorFor(TargetKind::CUDA).synchronize(0)));
  ASSERT_FALSE(bool(out->download(result)));
  std::vector<float> shiftedIn(host.begin() + 1, host.begin() + 1 + rows * cols);
  std::vector<float> shiftedOut(result.begin() + 1,
                                result.begin() + 1 + rows * cols);
  expectSoftmax(shiftedIn, shiftedOut, rows, cols);
}
