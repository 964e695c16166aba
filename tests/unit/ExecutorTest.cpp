//===- ExecutorTest.cpp - the CPU executor, its buffers and events -------===//
//
// The Executor interface on the CPU target (runtime/CPUExecutor.h states its
// rules): what a CPU launch honours and rejects, its one device, buffers of
// host memory through DeviceBuffer, host-clock events. The CUDA executor's
// counterparts are in tests/gpu/ExecutorTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "runtime/Executor.h"
#include "examples/kernels/Kernels.h"
#include "runtime/CPUExecutor.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/Event.h"
#include "runtime/KernelCache.h"
#include "runtime/Launch.h"

#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace blockjit;

namespace {

std::string errorText(llvm::Error error) {
  if (error)
    return llvm::toString(std::move(error));
  return "";
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// out = x + y over 1000 floats on CPU buffers, launched with `options`
/// (grid and target set here).
struct VectorAddFixture {
  static constexpr int64_t n = 1000, block = 128;
  std::vector<float> x, y;
  std::optional<DeviceBuffer> dx, dy, dout;

  VectorAddFixture() : x(n), y(n) {
    for (int64_t i = 0; i < n; ++i) {
      x[i] = float(i);
      y[i] = 0.5f * float(i % 7);
    }
    auto bx = DeviceBuffer::copyOf(TargetKind::CPU, llvm::ArrayRef(x));
    auto by = DeviceBuffer::copyOf(TargetKind::CPU, llvm::ArrayRef(y));
    auto bout = DeviceBuffer::allocate(TargetKind::CPU, n * sizeof(float));
    if (!bx || !by || !bout) {
      ADD_FAILURE() << llvm::toString(llvm::joinErrors(
          bx.takeError(), llvm::joinErrors(by.takeError(), bout.takeError())));
      return;
    }
    dx.emplace(std::move(*bx));
    dy.emplace(std::move(*by));
    dout.emplace(std::move(*bout));
  }
  /// Fills the output with a sentinel, launches, returns the launch's error.
  std::string run(LaunchOptions options) {
    if (!dout)
      return "no buffers";
    if (llvm::Error e = dout->fill(0xff))
      return errorText(std::move(e));
    options.target = TargetKind::CPU;
    options.grid = {int((n + block - 1) / block)};
    return errorText(
        launch(*examples::vectorAdd(), options,
               {dx->arg<float>(), dy->arg<float>(), dout->arg<float>(),
                int32_t(n), Constexpr(block)}));
  }
  /// "" when the output is x + y.
  std::string checkSum() const {
    std::vector<float> out(n);
    if (llvm::Error e = dout->download(out))
      return errorText(std::move(e));
    for (int64_t i = 0; i < n; ++i)
      if (out[i] != x[i] + y[i])
        return "out[" + std::to_string(i) + "] = " + std::to_string(out[i]);
    return "";
  }
  /// "" when the output still holds the sentinel (nothing ran).
  std::string checkUntouched() const {
    std::vector<uint32_t> out(n);
    if (llvm::Error e = dout->download(out))
      return errorText(std::move(e));
    for (int64_t i = 0; i < n; ++i)
      if (out[i] != 0xffffffffu)
        return "out[" + std::to_string(i) + "] was written";
    return "";
  }
};

//===----------------------------------------------------------------------===//
// What a CPU launch honours
//===----------------------------------------------------------------------===//

// The stated rule (CPUExecutor.h): clusters other than (1, 1, 1) and
// cooperative launches are errors, nothing runs; scheduling hints and
// dynamic shared memory are accepted and change nothing.
TEST(CPUExecutor, ClusterOtherThanOneIsAnError) {
  VectorAddFixture f;
  for (Grid cluster : {Grid{2, 1, 1}, Grid{1, 2, 1}, Grid{1, 1, 4}}) {
    LaunchOptions options;
    options.cluster = cluster;
    std::string error = f.run(options);
    EXPECT_TRUE(contains(error, "cluster")) << error;
    EXPECT_TRUE(contains(error, "must be (1, 1, 1)")) << error;
    EXPECT_EQ(f.checkUntouched(), "");
  }
  LaunchOptions one;
  one.cluster = {1, 1, 1};
  ASSERT_EQ(f.run(one), "");
  EXPECT_EQ(f.checkSum(), "");
}

TEST(CPUExecutor, CooperativeLaunchIsAnErrorHintsAreAccepted) {
  VectorAddFixture f;
  LaunchOptions cooperative;
  cooperative.attributes = {{LaunchAttribute::Kind::Cooperative, 1}};
  std::string error = f.run(cooperative);
  EXPECT_TRUE(contains(error, "cooperative")) << error;
  EXPECT_EQ(f.checkUntouched(), "");

  LaunchOptions hints;
  hints.attributes = {
      {LaunchAttribute::Kind::Priority, -1},
      {LaunchAttribute::Kind::ProgrammaticStreamSerialization, 1},
      {LaunchAttribute::Kind::Cooperative, 0}};
  ASSERT_EQ(f.run(hints), "");
  EXPECT_EQ(f.checkSum(), "");
}

TEST(CPUExecutor, DynamicSharedMemoryIsIgnoredUnlessNegative) {
  VectorAddFixture f;
  LaunchOptions options;
  options.dynamicSharedMemoryBytes = 64 * 1024;
  ASSERT_EQ(f.run(options), "");
  EXPECT_EQ(f.checkSum(), "");
  options.dynamicSharedMemoryBytes = -1;
  std::string error = f.run(options);
  EXPECT_TRUE(contains(error, "negative")) << error;
  EXPECT_EQ(f.checkUntouched(), "");
}

TEST(CPUExecutor, TheHostIsTheOneDevice) {
  Executor &cpu = executorFor(TargetKind::CPU);
  EXPECT_EQ(cpu.kind(), TargetKind::CPU);
  EXPECT_EQ(cpu.deviceCount(), 1);
  auto name = cpu.deviceName(0);
  ASSERT_TRUE(bool(name)) << llvm::toString(name.takeError());
  EXPECT_TRUE(contains(*name, "cpu")) << *name;

  VectorAddFixture f;
  LaunchOptions options;
  options.device = 1;
  std::string error = f.run(options);
  EXPECT_TRUE(contains(error, "no device 1")) << error;
  EXPECT_EQ(f.checkUntouched(), "");

  auto buffer = DeviceBuffer::allocate(TargetKind::CPU, 16, 1);
  ASSERT_FALSE(bool(buffer));
  error = llvm::toString(buffer.takeError());
  EXPECT_TRUE(contains(error, "no device 1")) << error;
  auto event = Event::create(TargetKind::CPU, 1);
  ASSERT_FALSE(bool(event));
  llvm::consumeError(event.takeError());
}

// The kernel the cache loaded is the one the executor describes, and a
// launch through the executor itself runs it.
TEST(CPUExecutor, LoadedKernelLaunchesThroughTheExecutor) {
  VectorAddFixture f;
  ASSERT_EQ(f.run(LaunchOptions()), ""); // compiles and loads
  LaunchOptions options;
  options.target = TargetKind::CPU;
  std::vector<Arg> args = {f.dx->arg<float>(), f.dy->arg<float>(),
                           f.dout->arg<float>(), int32_t(f.n),
                           Constexpr(f.block)};
  auto info = warmup(*examples::vectorAdd(), options, args);
  ASSERT_TRUE(bool(info)) << llvm::toString(info.takeError());
  EXPECT_EQ(info->processors, int(cpuThreadCount()));
  EXPECT_EQ(info->threadsPerProgram, 1);
  EXPECT_EQ(info->maxProgramsPerProcessor, 1);

  auto key = specializationFor(*examples::vectorAdd(), options, args);
  ASSERT_TRUE(bool(key)) << llvm::toString(key.takeError());
  auto compiled = KernelCache::instance().get(*examples::vectorAdd(), *key);
  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
  auto loaded = compiled->loaded(0);
  ASSERT_TRUE(bool(loaded)) << llvm::toString(loaded.takeError());
  EXPECT_NE(loaded->handle, nullptr);
  EXPECT_EQ(loaded->device, 0);

  ASSERT_EQ(errorText(f.dout->fill(0)), "");
  void *x = f.dx->data(), *y = f.dy->data(), *out = f.dout->data();
  int32_t n = f.n;
  void *slots[] = {&x, &y, &out, &n};
  LaunchConfig config;
  config.grid = {int((f.n + f.block - 1) / f.block)};
  ASSERT_EQ(
      errorText(executorFor(TargetKind::CPU).launch(*loaded, config, slots)),
      "");
  EXPECT_EQ(f.checkSum(), "");
  // Each dimension positive, even where their product is (-2 * -2 = 4).
  config.grid = {-2, -2, 1};
  std::string error =
      errorText(executorFor(TargetKind::CPU).launch(*loaded, config, slots));
  EXPECT_TRUE(contains(error, "must be positive")) << error;
  config.grid = {1};
  config.device = 3;
  error =
      errorText(executorFor(TargetKind::CPU).launch(*loaded, config, slots));
  EXPECT_TRUE(contains(error, "no device 3")) << error;
}

// BLOCKJIT_PERF_MAP=1: each CPU kernel linked into the process is listed
// in /tmp/perf-PID.map ("START SIZE NAME", hex) so that perf names its
// code; the entry point's range is the kernel's specialization and symbol.
TEST(CPUExecutor, PerfMapNamesLoadedKernels) {
  std::string path = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
  ::setenv("BLOCKJIT_PERF_MAP", "1", 1);
  std::vector<float> x(100, 1.0f), y(100, 2.0f);
  auto bx = DeviceBuffer::copyOf(TargetKind::CPU, llvm::ArrayRef(x));
  auto by = DeviceBuffer::copyOf(TargetKind::CPU, llvm::ArrayRef(y));
  auto bout = DeviceBuffer::allocate(TargetKind::CPU, 100 * sizeof(float));
  ASSERT_TRUE(bx && by && bout);
  LaunchOptions options;
  options.target = TargetKind::CPU;
  options.grid = {4};
  // A block size no other test uses: this specialization is linked here.
  std::string error =
      errorText(launch(*examples::vectorAdd(), options,
                       {bx->arg<float>(), by->arg<float>(), bout->arg<float>(),
                        int32_t(100), Constexpr(32)}));
  ::unsetenv("BLOCKJIT_PERF_MAP");
  ASSERT_EQ(error, "");
  std::ifstream map(path);
  ASSERT_TRUE(map.good()) << path;
  bool listed = false;
  std::string start, size, name;
  while (map >> start >> size && std::getline(map, name))
    if (contains(name, "vector_add") && contains(name, "BLOCK_SIZE=32") &&
        contains(name, ":vector_add_blockjit_entry")) {
      listed = true;
      EXPECT_GT(std::stoull(start, nullptr, 16), 0u);
      EXPECT_GT(std::stoull(size, nullptr, 16), 0u);
    }
  EXPECT_TRUE(listed) << "no vector_add entry in " << path;
  std::remove(path.c_str());
}

TEST(LaunchConfig, PlainMeansNothingBeyondGridStreamAndDevice) {
  LaunchConfig config;
  config.grid = {8, 2};
  config.stream = &config;
  EXPECT_TRUE(config.isPlain());
  config.cluster = {2};
  EXPECT_FALSE(config.isPlain());
  config.cluster = {1, 1, -1};
  EXPECT_FALSE(config.isPlain()); // a size of 1 is not (1, 1, 1)
  config.cluster = {};
  config.dynamicSharedMemoryBytes = 1;
  EXPECT_FALSE(config.isPlain());
  config.dynamicSharedMemoryBytes = 0;
  LaunchAttribute priority{LaunchAttribute::Kind::Priority, 0};
  config.attributes = priority;
  EXPECT_FALSE(config.isPlain());
}

//===----------------------------------------------------------------------===//
// DeviceBuffer on the CPU: host memory
//===----------------------------------------------------------------------===//

TEST(CPUDeviceBuffer, TypedRoundTripAtOffsets) {
  std::vector<int32_t> host = {1, 2, 3, 4, 5, 6, 7, 8};
  auto buffer = DeviceBuffer::copyOf(TargetKind::CPU, llvm::ArrayRef(host));
  ASSERT_TRUE(bool(buffer)) << llvm::toString(buffer.takeError());
  EXPECT_EQ(buffer->target(), TargetKind::CPU);
  EXPECT_EQ(buffer->size(), host.size() * sizeof(int32_t));
  // Aligned like cuMemAlloc, so specializations agree across targets.
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer->data()) % 256, 0u);
  std::vector<int32_t> part = {-1, -2};
  ASSERT_EQ(errorText(buffer->upload(part, 3)), "");
  std::vector<int32_t> back(host.size());
  ASSERT_EQ(errorText(buffer->download(back)), "");
  EXPECT_EQ(back, (std::vector<int32_t>{1, 2, 3, -1, -2, 6, 7, 8}));
  std::vector<int32_t> tail(3);
  ASSERT_EQ(errorText(buffer->download(tail, 5)), "");
  EXPECT_EQ(tail, (std::vector<int32_t>{6, 7, 8}));
  ASSERT_EQ(errorText(buffer->fill(0)), "");
  ASSERT_EQ(errorText(buffer->download(back)), "");
  EXPECT_EQ(back, std::vector<int32_t>(8, 0));
  Arg arg = buffer->arg<int32_t>();
  EXPECT_EQ(arg.pointer, buffer->data());
  EXPECT_EQ(arg.dtype, DType::I32);
}

TEST(CPUDeviceBuffer, CopiesOutsideTheBufferAreErrors) {
  auto buffer = DeviceBuffer::allocate(TargetKind::CPU, 16);
  ASSERT_TRUE(bool(buffer)) << llvm::toString(buffer.takeError());
  std::vector<float> five(5);
  std::string error = errorText(buffer->upload(five));
  EXPECT_TRUE(contains(error, "outside the device buffer of 16 bytes"))
      << error;
  std::vector<float> two(2);
  error = errorText(buffer->download(two, 3));
  EXPECT_TRUE(contains(error, "at offset 12")) << error;
  EXPECT_EQ(errorText(buffer->download(two, 2)), "");
}

TEST(CPUDeviceBuffer, MovedFromBufferOwnsNothing) {
  auto buffer = DeviceBuffer::allocate(TargetKind::CPU, 64);
  ASSERT_TRUE(bool(buffer)) << llvm::toString(buffer.takeError());
  void *data = buffer->data();
  DeviceBuffer moved = std::move(*buffer);
  EXPECT_EQ(moved.data(), data);
  EXPECT_EQ(moved.size(), 64u);
  EXPECT_EQ(buffer->data(), nullptr);
  EXPECT_EQ(buffer->size(), 0u);
  std::vector<char> byte(1);
  EXPECT_NE(errorText(buffer->upload(byte)), "");
}

//===----------------------------------------------------------------------===//
// Events on the CPU: the host clock
//===----------------------------------------------------------------------===//

TEST(CPUEvent, ElapsedTimeIsTheHostClock) {
  auto start = Event::create(TargetKind::CPU),
       end = Event::create(TargetKind::CPU);
  ASSERT_TRUE(bool(start)) << llvm::toString(start.takeError());
  ASSERT_TRUE(bool(end)) << llvm::toString(end.takeError());
  // Not recorded yet.
  auto early = Event::elapsedMilliseconds(*start, *end);
  ASSERT_FALSE(bool(early));
  EXPECT_TRUE(contains(llvm::toString(early.takeError()), "recorded"));
  ASSERT_EQ(errorText(start->record()), "");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(errorText(end->record()), "");
  ASSERT_EQ(errorText(end->synchronize()), "");
  auto ms = Event::elapsedMilliseconds(*start, *end);
  ASSERT_TRUE(bool(ms)) << llvm::toString(ms.takeError());
  EXPECT_GE(*ms, 19.0f);
  EXPECT_LT(*ms, 10000.0f);
  Event moved = std::move(*start);
  EXPECT_NE(errorText(start->record()), "");
  EXPECT_EQ(errorText(moved.record()), "");
}

//===----------------------------------------------------------------------===//
// The CUDA executor without a driver: errors, never a crash
//===----------------------------------------------------------------------===//

TEST(CudaExecutorWithoutDriver, EveryCallIsAnError) {
  Executor &cuda = executorFor(TargetKind::CUDA);
  EXPECT_EQ(cuda.kind(), TargetKind::CUDA);
  if (cuda.deviceCount() > 0)
    GTEST_SKIP() << "a CUDA device is present (tests/gpu covers it)";
  auto buffer = DeviceBuffer::allocate(TargetKind::CUDA, 16);
  ASSERT_FALSE(bool(buffer));
  std::string error = llvm::toString(buffer.takeError());
  EXPECT_TRUE(contains(error, "CUDA") || contains(error, "cuInit")) << error;
  auto event = Event::create(TargetKind::CUDA);
  ASSERT_FALSE(bool(event));
  llvm::consumeError(event.takeError());
  EXPECT_NE(errorText(cuda.synchronize(0)), "");
  auto name = cuda.deviceName(0);
  ASSERT_FALSE(bool(name));
  llvm::consumeError(name.takeError());
}

} // namespace
