//===- DiskCacheTest.cpp - the on-disk artifact cache --------------------===//
#include "runtime/DiskCache.h"
#include "compiler/Fingerprint.h"
#include "compiler/Registration.h"
#include "examples/kernels/Kernels.h"
#include "runtime/KernelCache.h"
#include "runtime/Launch.h"
#include "tests/common/ScopedCacheDirectory.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/raw_ostream.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <tuple>
#include <unistd.h>
#include <vector>

using namespace blockjit;

namespace {

/// Runs each test on a fresh BLOCKJIT_CACHE_DIR.
class DiskCacheTest : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_FALSE(cache.directory.empty()); }
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
  ScopedCacheDirectory cache;
  const std::string &directory = cache.directory;
};

TEST_F(DiskCacheTest, MissWritesHitReads) {
  EXPECT_FALSE(run(100).fromDiskCache);
  ASSERT_EQ(entries().size(), 1u);
  EXPECT_TRUE(run(100).fromDiskCache);
  EXPECT_FALSE(run(200).fromDiskCache); // another specialization
  EXPECT_EQ(entries().size(), 2u);
}

// Every field of the artifact survives the disk: a field the entry forgot
// (ctasPerProgram once) makes a warm-cache launch differ from a cold one.
TEST_F(DiskCacheTest, EveryArtifactFieldRoundTrips) {
  CompiledArtifact written;
  written.format = ArtifactFormat::PTX;
  written.entryName = "kernel";
  written.binary = ".visible .entry kernel()\n{\n}\n";
  written.threadsPerProgram = 384;
  written.ctasPerProgram = 8;
  written.sharedMemoryBytes = 4100;
  written.dynamicSharedMemoryBytes = 131072;
  written.cpuScratchBytes = 123456789012;
  auto roundTrip = [](const std::string &name,
                      const CompiledArtifact &artifact) {
    DiskCacheKey key = diskCacheKey(name);
    writeDiskCache(key, artifact);
    return readDiskCache(key);
  };
  std::optional<CompiledArtifact> read = roundTrip("round trip", written);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->format, written.format);
  EXPECT_EQ(read->entryName, written.entryName);
  EXPECT_EQ(read->binary, written.binary);
  EXPECT_EQ(read->threadsPerProgram, written.threadsPerProgram);
  EXPECT_EQ(read->ctasPerProgram, written.ctasPerProgram);
  EXPECT_EQ(read->sharedMemoryBytes, written.sharedMemoryBytes);
  EXPECT_EQ(read->dynamicSharedMemoryBytes, written.dynamicSharedMemoryBytes);
  EXPECT_EQ(read->cpuScratchBytes, written.cpuScratchBytes);
  // Programs sharing CTAs never run on a cluster: a second entry.
  CompiledArtifact shared = written;
  shared.ctasPerProgram = 1;
  shared.programsPerCTA = 2;
  std::optional<CompiledArtifact> readShared =
      roundTrip("round trip, programs", shared);
  ASSERT_TRUE(readShared.has_value());
  EXPECT_EQ(readShared->programsPerCTA, 2);
  static_assert(sizeof(CompiledArtifact) ==
                    2 * sizeof(std::string) +
                        5 * sizeof(int) /*threads, CTAs, programs, shared,
                                          dynamic*/
                        + sizeof(int) /*pad*/ + sizeof(int64_t) +
                        sizeof(int64_t) /*format+pad*/,
                "a new CompiledArtifact field must be written to the disk "
                "cache and checked here");
}

// An entry whose cluster size is impossible is discarded, not launched.
TEST_F(DiskCacheTest, EntryWithImpossibleClusterIsDiscarded) {
  CompiledArtifact artifact;
  artifact.format = ArtifactFormat::PTX;
  artifact.entryName = "kernel";
  artifact.binary = ".visible .entry kernel()\n{\n}\n";
  for (int ctas : {0, 17}) {
    artifact.ctasPerProgram = ctas;
    DiskCacheKey key = diskCacheKey("cluster " + std::to_string(ctas));
    writeDiskCache(key, artifact);
    testing::internal::CaptureStderr();
    EXPECT_FALSE(readDiskCache(key).has_value()) << ctas;
    std::string warning = testing::internal::GetCapturedStderr();
    EXPECT_NE(warning.find("not a loadable artifact"), std::string::npos)
        << warning;
  }
}

// So is one whose programs per CTA are impossible, make a CTA of more than
// 1024 threads (without overflowing), or share a cluster's CTAs.
TEST_F(DiskCacheTest, EntryWithImpossibleProgramsPerCTAIsDiscarded) {
  CompiledArtifact artifact;
  artifact.format = ArtifactFormat::PTX;
  artifact.entryName = "kernel";
  artifact.binary = ".visible .entry kernel()\n{\n}\n";
  for (auto [threads, programs, ctas] :
       {std::tuple(32, 0, 1), std::tuple(32, 17, 1), std::tuple(256, 8, 1),
        std::tuple(32, 2, 2), std::tuple(1 << 28, 16, 1)}) {
    artifact.threadsPerProgram = threads;
    artifact.programsPerCTA = programs;
    artifact.ctasPerProgram = ctas;
    DiskCacheKey key =
        diskCacheKey("programs " + std::to_string(threads) + "x" +
                     std::to_string(programs) + "x" + std::to_string(ctas));
    writeDiskCache(key, artifact);
    testing::internal::CaptureStderr();
    EXPECT_FALSE(readDiskCache(key).has_value()) << threads << "x" << programs;
    std::string warning = testing::internal::GetCapturedStderr();
    EXPECT_NE(warning.find("not a loadable artifact"), std::string::npos)
        << warning;
  }
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

TEST_F(DiskCacheTest, GarbageFileIsAMissAndIsRemoved) {
  DiskCacheKey key = diskCacheKey(artifactKeyMaterial("ir", CompileOptions{}));
  std::ofstream(key.path()) << "not a cache entry";
  testing::internal::CaptureStderr();
  EXPECT_FALSE(readDiskCache(key).has_value());
  std::string warning = testing::internal::GetCapturedStderr();
  EXPECT_NE(warning.find("discarding cache entry " + key.path()),
            std::string::npos)
      << warning;
  EXPECT_FALSE(llvm::sys::fs::exists(key.path()));
}

TEST_F(DiskCacheTest, KeyDependsOnIRAndOptions) {
  auto key = [](llvm::StringRef ir, const CompileOptions &options) {
    return diskCacheKey(artifactKeyMaterial(ir, options));
  };
  CompileOptions a, b;
  b.numWarps = 8;
  EXPECT_EQ(key("ir", a).hash, key("ir", a).hash);
  EXPECT_NE(key("ir", a).hash, key("ir2", a).hash);
  EXPECT_NE(key("ir", a).hash, key("ir", b).hash);
  b = a;
  b.numStages = 2;
  EXPECT_NE(key("ir", a).hash, key("ir", b).hash);
  b = a;
  b.numCTAs = 2;
  EXPECT_NE(key("ir", a).hash, key("ir", b).hash);
  b = a;
  b.target = Target::cuda(90);
  EXPECT_NE(key("ir", a).hash, key("ir", b).hash);
  CompileOptions c = b;
  c.target = Target::cuda(80);
  EXPECT_NE(key("ir", b).hash, key("ir", c).hash);
  EXPECT_NE(key("ir", a).material.find("ir"), std::string::npos);
}

// An entry whose checksum is right but which was written for another key
// (a hash collision, a bug, a file copied by hand) is never used.
TEST_F(DiskCacheTest, EntryOfAnotherSpecializationIsNotUsed) {
  run(100);
  run(200);
  auto files = entries();
  ASSERT_EQ(files.size(), 2u);
  // Put the 200-column entry under the name of the 100-column one: its
  // result would be wrong (BLOCK 256 vs 128 is fine, but n_cols is not the
  // point: the recorded key differs).
  std::string first = files[0], second = files[1];
  ASSERT_FALSE(llvm::sys::fs::copy_file(second, first));
  testing::internal::CaptureStderr();
  bool aFromDisk = run(100).fromDiskCache; // run() checks the result
  bool bFromDisk = run(200).fromDiskCache;
  std::string warnings = testing::internal::GetCapturedStderr();
  // The overwritten name was recompiled, the other entry was still good.
  EXPECT_NE(aFromDisk, bFromDisk);
  EXPECT_NE(warnings.find("another specialization"), std::string::npos)
      << warnings;
  // Both entries are whole and used again.
  EXPECT_TRUE(run(100).fromDiskCache);
  EXPECT_TRUE(run(200).fromDiskCache);
}

// A well-formed entry (right checksum, right key) whose artifact is not an
// object file is discarded, recompiled and replaced.
TEST_F(DiskCacheTest, EntryWithBadContentIsReplaced) {
  run(100);
  std::string path = entries().at(0);
  KernelCache::instance().clear();
  // Rewrite the entry through the cache's own writer with a bad binary.
  auto compiled = run(100).artifact; // from disk
  CompiledArtifact bad = compiled;
  bad.binary = "\x7f"
               "ELF but not an object file";
  // Find the key by recomputing it the way the runtime does (run() uses
  // 16-byte aligned vectors, as `dummy` is).
  alignas(64) static float dummy[4];
  auto key = specializationFor(*examples::softmax(),
                               [] {
                                 LaunchOptions o;
                                 o.target = TargetKind::CPU;
                                 return o;
                               }(),
                               {dummy, dummy, int32_t(100), int32_t(100),
                                int32_t(3), int32_t(100), Constexpr(128)});
  ASSERT_TRUE(bool(key));
  auto found = diskCacheKeyFor(*examples::softmax(), *key);
  ASSERT_TRUE(bool(found)) << llvm::toString(found.takeError());
  DiskCacheKey diskKey = *found;
  ASSERT_EQ(diskKey.path(), path);
  writeDiskCache(diskKey, bad);
  testing::internal::CaptureStderr();
  EXPECT_FALSE(run(100).fromDiskCache); // checks the result
  std::string warning = testing::internal::GetCapturedStderr();
  EXPECT_NE(warning.find("discarding cache entry " + path), std::string::npos)
      << warning;
  EXPECT_TRUE(run(100).fromDiskCache);
}

TEST_F(DiskCacheTest, EmptyDirectorySettingDisablesTheCache) {
  setenv("BLOCKJIT_CACHE_DIR", "", 1);
  EXPECT_FALSE(run(100).fromDiskCache);
  EXPECT_FALSE(run(100).fromDiskCache);
  setenv("BLOCKJIT_CACHE_DIR", directory.c_str(), 1);
  EXPECT_TRUE(entries().empty());
}

} // namespace

// The key names the compiler that made the entry: a hash of its sources at
// build time (not the git commit: an uncommitted change counts), LLVM, and
// the host CPU or the ptxas that made a cubin.
TEST_F(DiskCacheTest, KeyHoldsTheCompilerFingerprint) {
  auto diskCacheKey = [](llvm::StringRef ir, const CompileOptions &options) {
    return blockjit::diskCacheKey(artifactKeyMaterial(ir, options));
  };
  CompileOptions cpu, gpu;
  gpu.target = Target::cuda(90);
  std::string fingerprint = sourceFingerprint();
  EXPECT_EQ(fingerprint.size(), 64u);
  EXPECT_NE(diskCacheKey("ir", cpu).material.find(fingerprint),
            std::string::npos);
  EXPECT_NE(diskCacheKey("ir", cpu).material.find("host "), std::string::npos);
  setenv("BLOCKJIT_PTXAS", "none", 1);
  std::string noPtxas = diskCacheKey("ir", gpu).material;
  setenv("BLOCKJIT_PTXAS", "/bin/true", 1);
  std::string withPtxas = diskCacheKey("ir", gpu).material;
  unsetenv("BLOCKJIT_PTXAS");
  EXPECT_NE(noPtxas.find("ptx (no ptxas)"), std::string::npos) << noPtxas;
  EXPECT_NE(withPtxas.find("ptxas /bin/true"), std::string::npos) << withPtxas;
  EXPECT_NE(diskCacheKey("ir", gpu).hash, diskCacheKey("ir", cpu).hash);
}
