//===- ExecutorTest.cpp - the CUDA executor's launches, buffers, events --===//
//
// What runtime/CudaExecutor.h promises beyond a plain launch: dynamic shared
// memory (above the default 48 KiB too), thread-block clusters, launch
// attributes, and the launches it rejects with an error that leaves the
// context usable; DeviceBuffer and Event on a CUDA device. Every test skips
// without a CUDA device; cluster tests need sm_90. vector_add (one 128-thread
// program per 128 elements) checks each launch's result exactly.
//
//===----------------------------------------------------------------------===//
#include "runtime/Executor.h"
#include "compiler/Registration.h"
#include "examples/kernels/Kernels.h"
#include "runtime/CudaDriver.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/DiskCache.h"
#include "runtime/Event.h"
#include "runtime/KernelCache.h"
#include "tests/common/ScopedCacheDirectory.h"
#include "runtime/Launch.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "tests/common/RequireGPU.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

using namespace blockjit;

namespace {

/// sm_XX of device 0 (0 if unknown).
int smArch() {
  auto props = cuda::deviceProperties(0);
  if (!props) {
    llvm::consumeError(props.takeError());
    return 0;
  }
  return props->smArch;
}

#define REQUIRE_CLUSTERS()                                                     \
  do {                                                                         \
    REQUIRE_GPU();                                                             \
    if (smArch() < 90)                                                         \
      GTEST_SKIP() << "clusters need sm_90, device 0 is sm_" << smArch();      \
  } while (0)

std::string errorText(llvm::Error error) {
  if (error)
    return llvm::toString(std::move(error));
  return "";
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// out = x + y over `n` floats in device buffers, 128 elements per program
/// (grid n / 128).
class VectorAdd {
public:
  static constexpr int64_t kBlock = 128;

  explicit VectorAdd(int64_t n) : n(n), x(n), y(n) {
    for (int64_t i = 0; i < n; ++i) {
      x[i] = float(i % 1000);
      y[i] = 0.25f * float(i % 13);
    }
    auto bx = DeviceBuffer::copyOf(TargetKind::CUDA, llvm::ArrayRef(x));
    auto by = DeviceBuffer::copyOf(TargetKind::CUDA, llvm::ArrayRef(y));
    auto bout = DeviceBuffer::allocate(TargetKind::CUDA, n * sizeof(float));
    if (!bx || !by || !bout) {
      error = errorText(llvm::joinErrors(
          bx.takeError(), llvm::joinErrors(by.takeError(), bout.takeError())));
      return;
    }
    dx.emplace(std::move(*bx));
    dy.emplace(std::move(*by));
    dout.emplace(std::move(*bout));
  }

  /// "" when the buffers are ready.
  std::string error;

  int grid() const { return int(n / kBlock); }

  /// Fills the output with a sentinel and launches with `options` (grid and
  /// target set here unless the grid is already other than 1); "" or the
  /// launch's error.
  std::string run(LaunchOptions options) {
    if (!error.empty())
      return error;
    if (llvm::Error e = dout->fill(0xff))
      return errorText(std::move(e));
    options.target = TargetKind::CUDA;
    if (options.grid.isOne())
      options.grid = {grid()};
    return errorText(launch(*examples::vectorAdd(), options, args()));
  }
  std::vector<Arg> args() const {
    return {dx->arg<float>(), dy->arg<float>(), dout->arg<float>(), int32_t(n),
            Constexpr(kBlock)};
  }
  /// "" when the output is x + y (waits for the device first).
  std::string checkSum() const {
    if (llvm::Error e = cudaExecutor().synchronize(0))
      return errorText(std::move(e));
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
    if (llvm::Error e = cudaExecutor().synchronize(0))
      return errorText(std::move(e));
    std::vector<uint32_t> out(n);
    if (llvm::Error e = dout->download(out))
      return errorText(std::move(e));
    for (int64_t i = 0; i < n; ++i)
      if (out[i] != 0xffffffffu)
        return "out[" + std::to_string(i) + "] was written";
    return "";
  }

private:
  int64_t n;
  std::vector<float> x, y;
  std::optional<DeviceBuffer> dx, dy, dout;
};

LaunchOptions withCluster(Grid cluster, int dynamicSharedMemoryBytes = 0) {
  LaunchOptions options;
  options.cluster = cluster;
  options.dynamicSharedMemoryBytes = dynamicSharedMemoryBytes;
  return options;
}

//===----------------------------------------------------------------------===//
// Dynamic shared memory and clusters
//===----------------------------------------------------------------------===//

TEST(CudaExecutor, DynamicSharedMemoryWithoutCluster) {
  REQUIRE_GPU();
  VectorAdd add(2048);
  ASSERT_EQ(add.error, "");
  ASSERT_EQ(add.run(withCluster({1, 1, 1}, 1024)), "");
  EXPECT_EQ(add.checkSum(), "");
  ASSERT_EQ(add.run(withCluster({1, 1, 1}, 48 * 1024 - 1024)), "");
  EXPECT_EQ(add.checkSum(), "");
  // warmup's occupancy counts the dynamic shared memory: 40 KiB per program
  // leaves room for fewer programs than 128 threads alone do.
  LaunchOptions options;
  options.target = TargetKind::CUDA;
  auto plain = warmup(*examples::vectorAdd(), options, add.args());
  options.dynamicSharedMemoryBytes = 40 * 1024;
  auto large = warmup(*examples::vectorAdd(), options, add.args());
  ASSERT_TRUE(bool(plain)) << llvm::toString(plain.takeError());
  ASSERT_TRUE(bool(large)) << llvm::toString(large.takeError());
  EXPECT_LT(large->maxProgramsPerProcessor, plain->maxProgramsPerProcessor);
}

TEST(CudaExecutor, ClustersThatDivideTheGrid) {
  REQUIRE_CLUSTERS();
  VectorAdd add(2048); // grid 16
  ASSERT_EQ(add.error, "");
  for (Grid cluster : {Grid{2, 1, 1}, Grid{4, 1, 1}, Grid{8, 1, 1}}) {
    SCOPED_TRACE(testing::Message() << "cluster " << cluster.x);
    ASSERT_EQ(add.run(withCluster(cluster, 1024)), "");
    EXPECT_EQ(add.checkSum(), "");
    ASSERT_EQ(add.run(withCluster(cluster)), "");
    EXPECT_EQ(add.checkSum(), "");
  }
  // A 2-D grid with a 2-D cluster (both rows of programs write the same
  // sums: vector_add reads program_id(0) only).
  LaunchOptions options = withCluster({2, 2, 1}, 1024);
  options.grid = {add.grid(), 2, 1};
  ASSERT_EQ(add.run(options), "");
  EXPECT_EQ(add.checkSum(), "");
}

// Above the portable 8 programs the function allows non-portable sizes; the
// H100 launches clusters of 16.
TEST(CudaExecutor, NonPortableClusterOfSixteen) {
  REQUIRE_CLUSTERS();
  VectorAdd add(4096); // grid 32
  ASSERT_EQ(add.error, "");
  ASSERT_EQ(add.run(withCluster({16, 1, 1})), "");
  EXPECT_EQ(add.checkSum(), "");
}

TEST(CudaExecutor, ClusterThatDoesNotDivideTheGridIsAnError) {
  REQUIRE_GPU();
  VectorAdd add(2048); // grid 16
  ASSERT_EQ(add.error, "");
  for (Grid cluster : {Grid{3, 1, 1}, Grid{32, 1, 1}, Grid{1, 2, 1}}) {
    std::string error = add.run(withCluster(cluster));
    EXPECT_TRUE(contains(error, "does not divide the grid (16, 1, 1)"))
        << error;
    EXPECT_EQ(add.checkUntouched(), "");
  }
  for (Grid cluster : {Grid{0, 1, 1}, Grid{2, -1, 1}}) {
    std::string error = add.run(withCluster(cluster));
    EXPECT_TRUE(contains(error, "must be positive")) << error;
    EXPECT_EQ(add.checkUntouched(), "");
  }
  // The context is fine: a plain launch still runs.
  ASSERT_EQ(add.run(LaunchOptions()), "");
  EXPECT_EQ(add.checkSum(), "");
}

// Beyond 48 KiB the function's limit is raised once; beyond what the
// device allows per program is an error, and the context stays usable.
TEST(CudaExecutor, LargeDynamicSharedMemory) {
  REQUIRE_GPU();
  if (smArch() < 80)
    GTEST_SKIP() << "needs 100 KiB of shared memory per program (sm_80+)";
  VectorAdd add(2048);
  ASSERT_EQ(add.error, "");
  ASSERT_EQ(add.run(withCluster({1, 1, 1}, 100 * 1024)), "");
  EXPECT_EQ(add.checkSum(), "");
  ASSERT_EQ(add.run(withCluster({1, 1, 1}, 60 * 1024)), ""); // below: as is
  EXPECT_EQ(add.checkSum(), "");
  std::string error = add.run(withCluster({1, 1, 1}, 1 << 30));
  EXPECT_TRUE(contains(error, "exceed")) << error;
  EXPECT_EQ(add.checkUntouched(), "");
  error = add.run(withCluster({1, 1, 1}, -4));
  EXPECT_TRUE(contains(error, "negative")) << error;
  ASSERT_EQ(add.run(LaunchOptions()), "");
  EXPECT_EQ(add.checkSum(), "");
}

//===----------------------------------------------------------------------===//
// Launch attributes
//===----------------------------------------------------------------------===//

TEST(CudaExecutor, LaunchAttributes) {
  REQUIRE_GPU();
  VectorAdd add(2048);
  ASSERT_EQ(add.error, "");
  LaunchOptions priority;
  priority.attributes = {{LaunchAttribute::Kind::Priority, 0}};
  ASSERT_EQ(add.run(priority), "");
  EXPECT_EQ(add.checkSum(), "");
  // 16 programs of 128 threads are resident together on any device.
  LaunchOptions cooperative;
  cooperative.attributes = {{LaunchAttribute::Kind::Cooperative, 1}};
  ASSERT_EQ(add.run(cooperative), "");
  EXPECT_EQ(add.checkSum(), "");

  LaunchOptions twice;
  twice.attributes = {{LaunchAttribute::Kind::Priority, 0},
                      {LaunchAttribute::Kind::Priority, 1}};
  std::string error = add.run(twice);
  EXPECT_TRUE(contains(error, "twice")) << error;
  EXPECT_EQ(add.checkUntouched(), "");
  LaunchOptions tooMany;
  tooMany.attributes.assign(LaunchConfig::kMaxLaunchAttributes + 1,
                            {LaunchAttribute::Kind::Priority, 0});
  error = add.run(tooMany);
  EXPECT_TRUE(contains(error, "at most")) << error;
  EXPECT_EQ(add.checkUntouched(), "");
}

TEST(CudaExecutor, AttributesWithACluster) {
  REQUIRE_CLUSTERS();
  VectorAdd add(2048);
  ASSERT_EQ(add.error, "");
  LaunchOptions options = withCluster({2, 1, 1}, 2048);
  options.attributes = {
      {LaunchAttribute::Kind::Priority, 0},
      {LaunchAttribute::Kind::ProgrammaticStreamSerialization, 1}};
  ASSERT_EQ(add.run(options), "");
  EXPECT_EQ(add.checkSum(), "");
}

// A kernel runs on the device it was loaded on.
TEST(CudaExecutor, LaunchOnAnotherDeviceIsAnError) {
  REQUIRE_GPU();
  VectorAdd add(2048);
  ASSERT_EQ(add.error, "");
  ASSERT_EQ(add.run(LaunchOptions()), "");
  LaunchOptions options;
  options.target = TargetKind::CUDA;
  auto key = specializationFor(*examples::vectorAdd(), options, add.args());
  ASSERT_TRUE(bool(key)) << llvm::toString(key.takeError());
  auto compiled = KernelCache::instance().get(*examples::vectorAdd(), *key);
  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
  auto loaded = compiled->loaded(0);
  ASSERT_TRUE(bool(loaded)) << llvm::toString(loaded.takeError());
  LaunchConfig config;
  config.grid = {add.grid()};
  config.device = 1;
  std::string error =
      errorText(cudaExecutor().launch(*loaded, config, nullptr));
  EXPECT_TRUE(contains(error, "device 1")) << error;
  ASSERT_EQ(errorText(cudaExecutor().synchronize(0)), "");
}

//===----------------------------------------------------------------------===//
// Loading: once per device, recompiling what the driver rejects
//===----------------------------------------------------------------------===//

// A disk cache entry that passes every check of DiskCache.cpp but that the
// driver rejects is discarded, recompiled and replaced when it loads.
TEST(CudaExecutor, CachedArtifactTheDriverRejectsIsRecompiled) {
  REQUIRE_GPU();
  ScopedCacheDirectory cache;
  ASSERT_FALSE(cache.directory.empty());

  VectorAdd add(2048);
  ASSERT_EQ(add.error, "");
  ASSERT_EQ(add.run(LaunchOptions()), ""); // compiles and stores the entry
  EXPECT_EQ(add.checkSum(), "");
  LaunchOptions options;
  options.target = TargetKind::CUDA;
  auto key = specializationFor(*examples::vectorAdd(), options, add.args());
  ASSERT_TRUE(bool(key)) << llvm::toString(key.takeError());
  auto found = diskCacheKeyFor(*examples::vectorAdd(), *key);
  ASSERT_TRUE(bool(found)) << llvm::toString(found.takeError());
  DiskCacheKey diskKey = *found;
  ASSERT_TRUE(llvm::sys::fs::exists(diskKey.path())) << diskKey.path();
  auto stored = readDiskCache(diskKey);
  ASSERT_TRUE(stored.has_value());
  CompiledArtifact bad = *stored;
  bad.format = ArtifactFormat::PTX;
  bad.binary = ".version 8.0\n.target sm_" + std::to_string(smArch()) +
               "\n.address_size 64\n.visible .entry " + bad.entryName +
               "() { not an instruction; }\n";
  writeDiskCache(diskKey, bad);

  KernelCache::instance().clear();
  testing::internal::CaptureStderr();
  ASSERT_EQ(add.run(LaunchOptions()), "");
  std::string warning = testing::internal::GetCapturedStderr();
  EXPECT_EQ(add.checkSum(), "");
  EXPECT_TRUE(contains(warning, "discarding cache entry " + diskKey.path()))
      << warning;
  auto replaced = readDiskCache(diskKey);
  ASSERT_TRUE(replaced.has_value());
  EXPECT_NE(replaced->binary, bad.binary);
}

//===----------------------------------------------------------------------===//
// Buffers and events on a CUDA device
//===----------------------------------------------------------------------===//

TEST(CudaDeviceBuffer, FillAndTypedCopiesAtOffsets) {
  REQUIRE_GPU();
  auto buffer = DeviceBuffer::allocate(TargetKind::CUDA, 8 * sizeof(int32_t));
  ASSERT_TRUE(bool(buffer)) << llvm::toString(buffer.takeError());
  EXPECT_EQ(buffer->target(), TargetKind::CUDA);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer->data()) % 256, 0u);
  ASSERT_EQ(errorText(buffer->fill(0x01)), "");
  std::vector<int32_t> part = {-1, -2};
  ASSERT_EQ(errorText(buffer->upload(part, 6)), "");
  std::vector<int32_t> back(8);
  ASSERT_EQ(errorText(buffer->download(back)), "");
  EXPECT_EQ(back,
            (std::vector<int32_t>{0x01010101, 0x01010101, 0x01010101,
                                  0x01010101, 0x01010101, 0x01010101, -1, -2}));
  std::string error = errorText(buffer->upload(part, 7));
  EXPECT_TRUE(contains(error, "outside the device buffer")) << error;
}

// The flush before every timed run (tuner, operations): after the work
// already on the stream it returns persisting L2 lines to normal (no error
// on a device and driver that have them) and fills its scratch.
TEST(CudaExecutor, FlushCacheOnStreamFillsItsScratch) {
  REQUIRE_GPU();
  // Every driver of a GPU with persisting lines (sm_80+) has the reset.
  if (smArch() >= 80) {
    auto api = cuda::driverOn(0);
    ASSERT_TRUE(bool(api)) << llvm::toString(api.takeError());
    EXPECT_NE(api->cuCtxResetPersistingL2Cache, nullptr);
  }
  VectorAdd add(1 << 20);
  ASSERT_EQ(add.error, "");
  auto scratch = DeviceBuffer::allocate(TargetKind::CUDA, 1 << 20);
  ASSERT_TRUE(bool(scratch)) << llvm::toString(scratch.takeError());
  ASSERT_EQ(add.run(LaunchOptions()), ""); // pending work before the flush
  Executor &executor = executorFor(TargetKind::CUDA);
  ASSERT_EQ(errorText(executor.flushCacheOnStream(scratch->data(), 0x5a,
                                                  1 << 20, nullptr, 0)),
            "");
  std::vector<uint8_t> back(1 << 20);
  ASSERT_EQ(errorText(scratch->download(back)), "");
  EXPECT_EQ(back, std::vector<uint8_t>(1 << 20, 0x5a));
  EXPECT_EQ(add.checkSum(), "");
}

TEST(CudaEvent, TimesLaunches) {
  REQUIRE_GPU();
  VectorAdd add(1 << 20);
  ASSERT_EQ(add.error, "");
  auto start = Event::create(TargetKind::CUDA),
       end = Event::create(TargetKind::CUDA);
  ASSERT_TRUE(bool(start)) << llvm::toString(start.takeError());
  ASSERT_TRUE(bool(end)) << llvm::toString(end.takeError());
  ASSERT_EQ(add.run(LaunchOptions()), ""); // compile outside the timing
  ASSERT_EQ(errorText(start->record()), "");
  for (int i = 0; i < 10; ++i)
    ASSERT_EQ(add.run(LaunchOptions()), "");
  ASSERT_EQ(errorText(end->record()), "");
  auto ms = Event::elapsedMilliseconds(*start, *end);
  ASSERT_TRUE(bool(ms)) << llvm::toString(ms.takeError());
  EXPECT_GT(*ms, 0.0f);
  EXPECT_LT(*ms, 10000.0f);
  EXPECT_EQ(add.checkSum(), "");
}

} // namespace
