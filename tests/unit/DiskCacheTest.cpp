//===- DiskCacheTest.cpp - the on-disk artifact cache --------------------===//
#include "runtime/DiskCache.h"
#include "examples/kernels/Kernels.h"
#include "runtime/KernelCache.h"
#include "runtime/Launch.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <unistd.h>
#include <vector>

using namespace blockjit;

namespace {

/// Points BLOCKJIT_CACHE_DIR at a fresh temporary directory for one test.
class DiskCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    char pattern[] = "/tmp/blockjit-diskcache-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    directory = pattern;
    const char *old = std::getenv("BLOCKJIT_CACHE_DIR");
    previous = old ? std::optional<std::string>(old) : std::nullopt;
    setenv("BLOCKJIT_CACHE_DIR", directory.c_str(), 1);
    KernelCache::instance().clear();
  }
  void TearDown() override {
    if (previous)
      setenv("BLOCKJIT_CACHE_DIR", previous->c_str(), 1);
    else
      unsetenv("BLOCKJIT_CACHE_DIR");
    llvm::sys::fs::remove_directories(directory);
    KernelCache::instance().clear();
  }
  std::vector<std::string> entries() {
    std::vector<std::string> files;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(directory, ec), end;
         it != end && !ec; it.increment(ec))
      files.push_back(it->path());
    return files;
  }
  /// Runs softmax on the CPU (one fresh in-memory cache) and checks it.
  const CompiledKernel &run(int64_t cols) {
    KernelCache::instance().clear();
    int64_t rows = 3;
    std::vector<float> in(rows * cols), out(rows * cols);
    for (size_t i = 0; i < in.size(); ++i)
      in[i] = float(i % 7) - 3;
    LaunchOptions options;
    options.target = TargetKind::CPU;
    std::vector<Arg> args = {out.data(),
                             in.data(),
                             int32_t(cols),
                             int32_t(cols),
                             int32_t(rows),
                             int32_t(cols),
                             Constexpr(next_power_of_2(cols))};
    llvm::Error error = launch(*examples::softmax(), options, args);
    EXPECT_FALSE(bool(error)) << llvm::toString(std::move(error));
    float total = 0;
    for (int64_t c = 0; c < cols; ++c)
      total += out[c];
    EXPECT_NEAR(total, 1.0f, 1e-5);
    auto key = specializationFor(*examples::softmax(), options, args);
    auto compiled = KernelCache::instance().get(*examples::softmax(), *key);
    EXPECT_TRUE(bool(compiled));
    return *compiled;
  }
  std::string directory;
  std::optional<std::string> previous;
};

TEST_F(DiskCacheTest, MissWritesHitReads) {
  EXPECT_FALSE(run(100).fromDiskCache);
  ASSERT_EQ(entries().size(), 1u);
  EXPECT_TRUE(run(100).fromDiskCache);
  EXPECT_FALSE(run(200).fromDiskCache); // another specialization
  EXPECT_EQ(entries().size(), 2u);
}

TEST_F(DiskCacheTest, TruncatedEntryIsRecompiledAndRewritten) {
  run(100);
  std::string path = entries().at(0);
  uint64_t size;
  ASSERT_FALSE(llvm::sys::fs::file_size(path, size));
  ASSERT_EQ(truncate(path.c_str(), off_t(size / 2)), 0);
  EXPECT_FALSE(run(100).fromDiskCache);
  EXPECT_TRUE(run(100).fromDiskCache); // the rewrite is whole again
}

TEST_F(DiskCacheTest, CorruptEntryIsRecompiled) {
  run(100);
  std::string path = entries().at(0);
  {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(-10, std::ios::end);
    file.put('\x5a').put('\xa5');
  }
  EXPECT_FALSE(run(100).fromDiskCache);
  EXPECT_TRUE(run(100).fromDiskCache);
}

TEST_F(DiskCacheTest, GarbageFileIsAMiss) {
  std::string key(64, 'a');
  std::ofstream(directory + "/" + key + ".bjc") << "not a cache entry";
  EXPECT_FALSE(readDiskCache(key).has_value());
}

TEST_F(DiskCacheTest, KeyDependsOnIRAndOptions) {
  PipelineOptions a, b;
  b.numWarps = 8;
  EXPECT_EQ(diskCacheKey("ir", a), diskCacheKey("ir", a));
  EXPECT_NE(diskCacheKey("ir", a), diskCacheKey("ir2", a));
  EXPECT_NE(diskCacheKey("ir", a), diskCacheKey("ir", b));
  b = a;
  b.backend = Backend::GPU;
  EXPECT_NE(diskCacheKey("ir", a), diskCacheKey("ir", b));
}

TEST_F(DiskCacheTest, EmptyDirectorySettingDisablesTheCache) {
  setenv("BLOCKJIT_CACHE_DIR", "", 1);
  EXPECT_FALSE(run(100).fromDiskCache);
  EXPECT_FALSE(run(100).fromDiskCache);
  setenv("BLOCKJIT_CACHE_DIR", directory.c_str(), 1);
  EXPECT_TRUE(entries().empty());
}

} // namespace
