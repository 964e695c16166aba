//===- AutotuneTest.cpp - the autotuner and the prepared launch, on the CPU ===//
//
// The autotuner times configs on the caller's target; on the CPU (what CI
// has) configs differ through a Constexpr that sets how much busy work each
// program does, so the fastest one is known. Also: results on disk (a second
// process tunes nothing), corrupt entries, pruning, concurrent first calls,
// restored buffers, BLOCKJIT_AUTOTUNE=0, and PreparedLaunch / the C ABI's
// prepared handle.
//
//===----------------------------------------------------------------------===//
#include "runtime/Autotune.h"
#include "examples/kernels/Kernels.h"
#include "examples/kernels/RowTuning.h"
#include "runtime/PreparedLaunch.h"
#include "runtime/blockjit_c.h"
#include "tests/common/ScopedCacheDirectory.h"
#include "tests/common/ScopedEnv.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace blockjit;

namespace {

/// acc[i] += x[i] + 0 * t, where t is WORK rounds of t = t * 0.999 + 0.001
/// from x (finite, so 0 * t is a zero the compiler cannot fold away): the
/// result does not depend on WORK, the time does.
void accumulate_kernel(Ptr<float> acc_ptr, Ptr<float> x_ptr, Int n,
                       Constexpr WORK, Constexpr BLOCK) {
  Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
  Tensor mask = offsets < n;
  Tensor x = load(x_ptr + offsets, mask, 0.0);
  std::vector<Tensor> t =
      for_range(0, WORK, 1, {x},
                [&](Int, std::vector<Tensor> c) -> std::vector<Tensor> {
                  return {c[0] * 0.999 + 0.001};
                });
  Tensor acc = load(acc_ptr + offsets, mask, 0.0);
  store(acc_ptr + offsets, acc + (x + t[0] * 0.0), mask);
}

const std::shared_ptr<KernelDef> &accumulateKernel() {
  static auto kernel = jit("tuned_accumulate", accumulate_kernel,
                           {"acc_ptr", "x_ptr", "n", "WORK", "BLOCK"});
  return kernel;
}

enum { kAcc, kX, kN, kWork, kBlock };

TuningConfig work(int64_t rounds) { return {4, 1, 1, {{"WORK", rounds}}}; }

/// A spec over WORK = 20000, 1, 2000 (the fastest in the middle of the list).
AutotuneSpec accumulateSpec() {
  AutotuneSpec spec;
  spec.configs = {work(20000), work(1), work(2000)};
  spec.key = {{"n", KeyBucket::PowerOfTwo}};
  spec.grid = [](const TuningConfig &, const KernelResources &,
                 llvm::ArrayRef<Arg> args) {
    return Grid{int((args[kN].i32 + args[kBlock].i64 - 1) / args[kBlock].i64)};
  };
  // The accumulation is in place: every timed run would add x again.
  spec.restore = {{"acc_ptr", [](llvm::ArrayRef<Arg> args) {
                     return int64_t(args[kN].i32) * 4;
                   }}};
  spec.repetitions = 5;
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
    return {acc.data(), x.data(), int32_t(acc.size()), Constexpr(0),
            Constexpr(1024)};
  }
};

LaunchOptions cpu() {
  LaunchOptions options;
  options.target = TargetKind::CPU;
  return options;
}

std::vector<std::string> filesIn(const std::string &directory) {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(directory, ec), end;
       it != end && !ec; it.increment(ec))
    files.push_back(it->path());
  return files;
}

} // namespace

// A config's named values: read with a default when absent, set in place
// when present (the name keeps its position in str()), appended otherwise;
// the config itself is left as it was.
TEST(TuningConfig, NamedConstexprsAndGridParamsReadAndSet) {
  TuningConfig config{4, 2, 1, {{"BLOCK", 1024}}, {{"ROWS", 8}}};
  EXPECT_EQ(config.constexprValue("BLOCK", 0), 1024);
  EXPECT_EQ(config.constexprValue("CHUNK", 7), 7);
  EXPECT_EQ(config.gridParam("ROWS"), 8);
  EXPECT_EQ(config.gridParam("SPLIT", 3), 3);
  EXPECT_EQ(config.withConstexpr("BLOCK", 512).str(),
            "warps=4,stages=2,ctas=1,BLOCK=512,grid:ROWS=8");
  EXPECT_EQ(config.withConstexpr("CHUNK", 256).str(),
            "warps=4,stages=2,ctas=1,BLOCK=1024,CHUNK=256,grid:ROWS=8");
  EXPECT_EQ(config.withGridParam("ROWS", 16).str(),
            "warps=4,stages=2,ctas=1,BLOCK=1024,grid:ROWS=16");
  EXPECT_EQ(config.withGridParam("SPLIT", 2).str(),
            "warps=4,stages=2,ctas=1,BLOCK=1024,grid:ROWS=8,grid:SPLIT=2");
  EXPECT_EQ(config.str(), "warps=4,stages=2,ctas=1,BLOCK=1024,grid:ROWS=8");
  TuningConfig hinted =
      config.withEviction(DefaultEviction::Last, DefaultEviction::First);
  EXPECT_EQ(hinted.str(), "warps=4,stages=2,ctas=1,loads=evict_last,"
                          "stores=evict_first,BLOCK=1024,grid:ROWS=8");
  LaunchOptions options;
  hinted.applyTo(options);
  EXPECT_EQ(options.loadEviction, DefaultEviction::Last);
  EXPECT_EQ(options.storeEviction, DefaultEviction::First);
  EXPECT_FALSE(hinted == config);
  TuningConfig capped = hinted;
  capped.maxRegisters = 128;
  EXPECT_EQ(capped.str(),
            "warps=4,stages=2,ctas=1,maxnreg=128,loads="
            "evict_last,stores=evict_first,BLOCK=1024,grid:ROWS=8");
  capped.applyTo(options);
  EXPECT_EQ(options.maxRegisters, 128);
  EXPECT_FALSE(capped == hinted);
}

namespace {
/// Resources of a kernel of `warps` warps a CTA (`programs` programs of
/// warps / programs each) taking `registers` a thread, `ctas` of them an SM.
KernelResources residentWith(int registers, int warps, int ctas,
                             int programs = 1) {
  KernelResources resources;
  resources.registers = registers;
  resources.threadsPerProgram = 32 * warps / programs;
  resources.programsPerCTA = programs;
  resources.maxProgramsPerProcessor = ctas * programs;
  return resources;
}
} // namespace

// The cap that fits one more CTA an SM where registers bound the CTAs
// (4 sub-partitions of 16K registers an SM, each warp's in one, 8 a thread
// at a time): 168 registers keep 4-warp CTAs to 3 an SM, 128 fit 4; 199
// keep 2-warp CTAs to 4 (2 warps a sub-partition), 168 fit 5 (the H200's
// driver agrees on both); none where threads or shared memory bound
// them (fewer CTAs than registers allow), or where the cap would take more
// than a third of the registers.
TEST(RegisterCap, OneMoreCTAWhereRegistersBindIt) {
  EXPECT_EQ(registerCapForOneMoreCTA(residentWith(168, 4, 3)), 128);
  // 161..168 all take 168 a thread.
  EXPECT_EQ(registerCapForOneMoreCTA(residentWith(161, 4, 3)), 128);
  EXPECT_EQ(registerCapForOneMoreCTA(residentWith(199, 2, 4)), 168);
  // 1 warp of 255 registers with 32 KB of shared memory: 6 CTAs an SM,
  // where registers would allow 8.
  EXPECT_EQ(registerCapForOneMoreCTA(residentWith(255, 1, 6)), 0);
  // 8 warps of 40: 6 CTAs; 7 need 32 or fewer.
  EXPECT_EQ(registerCapForOneMoreCTA(residentWith(40, 8, 6)), 32);
  // 16 warps of 80: 1 CTA; 2 need 64 (more than two thirds of 80).
  EXPECT_EQ(registerCapForOneMoreCTA(residentWith(80, 16, 1)), 64);
  // Two programs of 4 warps a CTA count as one CTA of 8 warps.
  EXPECT_EQ(registerCapForOneMoreCTA(residentWith(40, 8, 6, 2)), 32);
  // Shared memory keeps it to 2 CTAs where registers would allow 3.
  EXPECT_EQ(registerCapForOneMoreCTA(residentWith(168, 4, 2)), 0);
  // 8 warps of 255: one CTA; two would need 128, half the registers.
  EXPECT_EQ(registerCapForOneMoreCTA(residentWith(255, 8, 1)), 0);
  // 1024-thread CTAs of 32 registers: 2 an SM; 3 would need 16 registers,
  // below the least cap.
  EXPECT_EQ(registerCapForOneMoreCTA(residentWith(32, 32, 2)), 0);
  // 1-warp CTAs of 24 registers: the SM's 32 CTAs bind, not registers.
  EXPECT_EQ(registerCapForOneMoreCTA(residentWith(24, 1, 32)), 0);
  EXPECT_EQ(registerCapForOneMoreCTA(KernelResources()), 0);
}

// A tuning entry names a config reachable from the spec, or one of those
// with the cap tuning gave it; anything else names none (and is tuned
// again).
TEST(RegisterCap, StoredEntryNamesAReachableConfigOrItCapped) {
  std::vector<TuningConfig> reachable = {{4, 1, 1, {{"BLOCK", 1024}}},
                                         {8, 2, 1, {{"BLOCK", 2048}}}};
  reachable[1].loadEviction = DefaultEviction::Last;
  auto named = [&](llvm::StringRef line) {
    return storedConfigAmong(line, reachable);
  };
  EXPECT_EQ(named("config warps=4,stages=1,ctas=1,BLOCK=1024"), reachable[0]);
  TuningConfig capped = reachable[1];
  capped.maxRegisters = 128;
  ASSERT_EQ(capped.str(),
            "warps=8,stages=2,ctas=1,maxnreg=128,loads=evict_last,BLOCK=2048");
  EXPECT_EQ(named("config " + capped.str()), capped);
  EXPECT_EQ(named("config warps=8,stages=1,ctas=1,maxnreg=128,BLOCK=2048"),
            std::nullopt);
  EXPECT_EQ(named("config warps=4,stages=1,ctas=1,maxnreg=,BLOCK=1024"),
            std::nullopt);
  EXPECT_EQ(named("config warps=4,stages=1,ctas=1,BLOCK=512"), std::nullopt);
  EXPECT_EQ(named(""), std::nullopt);
}

// The row tuner's eviction neighbour: loads evict_last of a one-CTA config
// without hints, on GPUs whose PTX has eviction priorities, at any input
// size (the tuner's flush returns persisting lines to normal, so a hinted
// run's lines do not flatter the next one); none for clusters (where
// evict_last loads measured up to 20 % slower), for a config already
// hinted, or on the CPU and GPUs without eviction priorities in their PTX
// (before sm_80, and blockjit's sm_80 and sm_86 on PTX 7.0-7.1), where the
// hints are dropped and the copy would time the same code twice.
TEST(SoftmaxTuning, EvictionNeighbourOfOneCTAConfigs) {
  TuningConfig plain{4, 2, 1, {}, {{"ROWS", 1}}};
  auto near = examples::evictionRefined(plain, Target::cuda(90));
  ASSERT_EQ(near.size(), 1u);
  EXPECT_EQ(near[0].str(),
            "warps=4,stages=2,ctas=1,loads=evict_last,grid:ROWS=1");
  EXPECT_EQ(examples::evictionRefined(plain, Target::cuda(89)).size(), 1u);
  EXPECT_TRUE(examples::evictionRefined(plain, Target::cuda(80)).empty());
  EXPECT_TRUE(examples::evictionRefined(plain, Target::cuda(86)).empty());
  EXPECT_TRUE(examples::evictionRefined(plain, Target::cuda(75)).empty());
  EXPECT_TRUE(examples::evictionRefined(plain, Target::cpu()).empty());
  TuningConfig cluster{4, 1, 8, {}, {{"ROWS", 8}}};
  EXPECT_TRUE(examples::evictionRefined(cluster, Target::cuda(90)).empty());
  EXPECT_TRUE(examples::evictionRefined(near[0], Target::cuda(90)).empty());
  // The row tuner's refine offers it beside the rows per program, for a
  // small input as for a large one, and not on the CPU.
  auto names = [](const std::vector<TuningConfig> &configs) {
    std::vector<std::string> text;
    for (const TuningConfig &c : configs)
      text.push_back(c.str());
    return text;
  };
  TuningConfig rows{4, 2, 1, {}, {{"ROWS", 8}}};
  float *none = nullptr;
  auto argsOf = [&](int32_t cols, int32_t rows) {
    return std::vector<Arg>{none, none, cols,           cols,
                            rows, cols, Constexpr(cols)};
  };
  const AutotuneSpec &spec = examples::softmaxTuner().spec();
  const std::vector<std::string> expected{
      "warps=4,stages=2,ctas=1,grid:ROWS=4",
      "warps=4,stages=2,ctas=1,grid:ROWS=16",
      "warps=4,stages=2,ctas=1,loads=evict_last,grid:ROWS=8"};
  EXPECT_EQ(names(spec.refine(rows, argsOf(2048, 32768), Target::cuda(90))),
            expected);
  EXPECT_EQ(names(spec.refine(rows, argsOf(781, 1823), Target::cuda(90))),
            expected);
  EXPECT_EQ(names(spec.refine(rows, argsOf(781, 1823), Target::cpu())),
            (std::vector<std::string>{"warps=4,stages=2,ctas=1,grid:ROWS=4",
                                      "warps=4,stages=2,ctas=1,grid:ROWS=16"}));
}

TEST(Autotune, PicksTheFastestConfigAndRestoresBuffers) {
  ScopedCacheDirectory cache;
  Autotuner tuner(accumulateKernel(), accumulateSpec());
  Buffers b(1 << 14);
  std::vector<float> before = b.acc;
  auto tuned = tuner.choose(cpu(), b.args());
  ASSERT_TRUE(bool(tuned)) << llvm::toString(tuned.takeError());
  EXPECT_EQ(tuned->result->config, work(1)) << tuned->result->config.str();
  EXPECT_EQ(tuned->result->timings.size(), 3u);
  EXPECT_FALSE(tuned->result->fromDiskCache);
  EXPECT_EQ(tuner.tuningsRun(), 1);
  // The config's WORK replaced the caller's, and the grid covers n.
  EXPECT_EQ(tuned->args[kWork].i64, 1);
  EXPECT_EQ(tuned->options.grid.x, 16);
  // Dozens of timed runs accumulated into acc; restore gave it back.
  EXPECT_EQ(b.acc, before);
  ASSERT_FALSE(bool(tuner.launch(cpu(), b.args())));
  for (size_t i = 0; i < b.acc.size(); ++i)
    ASSERT_EQ(b.acc[i], before[i] + b.x[i]) << i;
  EXPECT_EQ(tuner.tuningsRun(), 1); // the launch found the result in memory
}

TEST(Autotune, ResultOnDiskMeansNoTuning) {
  ScopedCacheDirectory cache;
  Buffers b(1 << 12);
  {
    Autotuner tuner(accumulateKernel(), accumulateSpec());
    ASSERT_FALSE(bool(tuner.launch(cpu(), b.args())));
    EXPECT_EQ(tuner.tuningsRun(), 1);
  }
  Autotuner again(accumulateKernel(), accumulateSpec());
  auto tuned = again.choose(cpu(), b.args());
  ASSERT_TRUE(bool(tuned)) << llvm::toString(tuned.takeError());
  EXPECT_TRUE(tuned->result->fromDiskCache);
  EXPECT_EQ(tuned->result->config, work(1));
  EXPECT_EQ(again.tuningsRun(), 0);
  // A row count in the same power-of-two bucket shares the entry; another
  // bucket tunes.
  Buffers sameBucket(4000), otherBucket(5000);
  ASSERT_TRUE(bool(again.choose(cpu(), sameBucket.args())));
  EXPECT_EQ(again.tuningsRun(), 0);
  ASSERT_TRUE(bool(again.choose(cpu(), otherBucket.args())));
  EXPECT_EQ(again.tuningsRun(), 1);
  // So does another config list (the disk key has the whole list).
  AutotuneSpec wider = accumulateSpec();
  wider.configs.push_back(work(2));
  Autotuner widerTuner(accumulateKernel(), wider);
  ASSERT_TRUE(bool(widerTuner.choose(cpu(), b.args())));
  EXPECT_EQ(widerTuner.tuningsRun(), 1);
}

TEST(Autotune, CorruptOrTruncatedEntriesAreTunedAgain) {
  for (bool truncate : {false, true}) {
    ScopedCacheDirectory cache;
    Buffers b(1 << 12);
    Autotuner tuner(accumulateKernel(), accumulateSpec());
    ASSERT_TRUE(bool(tuner.choose(cpu(), b.args())));
    // Damage every entry (tuning result and artifacts alike).
    for (const std::string &file : filesIn(cache.directory)) {
      auto content = llvm::MemoryBuffer::getFile(file);
      ASSERT_TRUE(bool(content));
      std::string bytes = (*content)->getBuffer().str();
      if (truncate)
        bytes.resize(bytes.size() / 2);
      else
        bytes[bytes.size() - 3] ^= 0x55;
      std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
    }
    tuner.forgetInMemory();
    KernelCache::instance().clear();
    testing::internal::CaptureStderr();
    auto tuned = tuner.choose(cpu(), b.args());
    std::string warnings = testing::internal::GetCapturedStderr();
    ASSERT_TRUE(bool(tuned)) << llvm::toString(tuned.takeError());
    EXPECT_FALSE(tuned->result->fromDiskCache);
    EXPECT_EQ(tuner.tuningsRun(), 2) << truncate;
    EXPECT_NE(warnings.find(truncate ? "truncated" : "checksum mismatch"),
              std::string::npos)
        << warnings;
  }
}

TEST(Autotune, PrunedAndRejectedConfigsAreSkippedWithoutAnError) {
  ScopedCacheDirectory cache;
  AutotuneSpec spec = accumulateSpec();
  // num_warps 3 is not a power of two: the compiler rejects it before
  // anything compiles. BLOCK 1000 fails to trace (not a power of two).
  spec.configs.push_back({3, 1, 1, {{"WORK", 1}}});
  spec.configs.push_back({4, 1, 1, {{"WORK", 1}, {"BLOCK", 1000}}});
  std::vector<std::string> seen;
  spec.prune = [&](llvm::ArrayRef<TuningConfig> configs, llvm::ArrayRef<Arg>,
                   const Target &target) {
    EXPECT_EQ(target.kind, TargetKind::CPU);
    std::vector<TuningConfig> kept;
    for (const TuningConfig &c : configs) {
      seen.push_back(c.str());
      if (!(c == work(1))) // the fastest is pruned
        kept.push_back(c);
    }
    return kept;
  };
  Autotuner tuner(accumulateKernel(), spec);
  Buffers b(1 << 12);
  auto tuned = tuner.choose(cpu(), b.args());
  ASSERT_TRUE(bool(tuned)) << llvm::toString(tuned.takeError());
  EXPECT_EQ(seen.size(), 5u);
  EXPECT_EQ(tuned->result->config, work(2000));
  for (auto &[config, ms] : tuned->result->timings)
    EXPECT_NE(config, work(1));
  ASSERT_EQ(tuned->result->skipped.size(), 2u);
  EXPECT_NE(tuned->result->skipped[0].second.find("num_warps"),
            std::string::npos)
      << tuned->result->skipped[0].second;
  EXPECT_NE(tuned->result->skipped[1].second.find("power of two"),
            std::string::npos)
      << tuned->result->skipped[1].second;
}

TEST(Autotune, NoConfigLeftIsAnErrorListingWhy) {
  ScopedCacheDirectory cache;
  AutotuneSpec spec = accumulateSpec();
  spec.configs = {{3, 1, 1, {}}, {4, 1, 1, {{"BLOCK", 1000}}}};
  Autotuner tuner(accumulateKernel(), spec);
  Buffers b(64);
  auto tuned = tuner.choose(cpu(), b.args());
  ASSERT_FALSE(bool(tuned));
  std::string message = llvm::toString(tuned.takeError());
  EXPECT_NE(message.find("tuned_accumulate"), std::string::npos) << message;
  EXPECT_NE(message.find("warps=3"), std::string::npos) << message;
  EXPECT_NE(message.find("BLOCK=1000"), std::string::npos) << message;
}

TEST(Autotune, ConfigNamingANonConstexprIsAnError) {
  AutotuneSpec spec = accumulateSpec();
  spec.configs = {{4, 1, 1, {{"n", 5}}}, work(1)};
  Autotuner tuner(accumulateKernel(), spec);
  Buffers b(64);
  auto tuned = tuner.choose(cpu(), b.args());
  ASSERT_FALSE(bool(tuned));
  EXPECT_NE(llvm::toString(tuned.takeError()).find("not a Constexpr"),
            std::string::npos);
}

TEST(Autotune, TopKKeepsTheBestRankedAndTuningOffTimesNothing) {
  ScopedCacheDirectory cache;
  AutotuneSpec spec = accumulateSpec();
  // A model that ranks more work as cheaper: with topK 2 the fastest config
  // is never compiled.
  spec.estimate = [](const TuningConfig &c, llvm::ArrayRef<Arg>,
                     const Target &) {
    return -double(c.constexprs[0].second);
  };
  spec.topK = 2;
  Autotuner tuner(accumulateKernel(), spec);
  Buffers b(1 << 12);
  auto tuned = tuner.choose(cpu(), b.args());
  ASSERT_TRUE(bool(tuned)) << llvm::toString(tuned.takeError());
  EXPECT_EQ(tuned->result->timings.size(), 2u);
  EXPECT_EQ(tuned->result->config, work(2000));

  ScopedEnv off("BLOCKJIT_AUTOTUNE", "0");
  Autotuner untimed(accumulateKernel(), spec);
  auto first = untimed.choose(cpu(), b.args());
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  EXPECT_TRUE(first->result->untimed);
  EXPECT_EQ(first->result->config, work(20000)); // the model's best
  EXPECT_EQ(untimed.tuningsRun(), 0);
}

TEST(Autotune, CoverGroupsTimeTheBestOfEveryGroupBeyondTopK) {
  ScopedCacheDirectory cache;
  AutotuneSpec spec = accumulateSpec();
  spec.configs = {work(20000), work(1), work(2000), work(3000)};
  // The same misranking model, topK 1; WORK 1 and 3000 form one group and
  // WORK 2000 another (20000, the model's best, none): the best-ranked of
  // each group is timed too, so the fastest config is found.
  spec.estimate = [](const TuningConfig &c, llvm::ArrayRef<Arg>,
                     const Target &) {
    return -double(c.constexprs[0].second);
  };
  spec.topK = 1;
  spec.coverGroup = [](const TuningConfig &c) -> int64_t {
    int64_t rounds = c.constexprs[0].second;
    return rounds == 20000 ? -1 : rounds == 2000 ? 1 : 0;
  };
  Autotuner tuner(accumulateKernel(), spec);
  Buffers b(1 << 12);
  auto tuned = tuner.choose(cpu(), b.args());
  ASSERT_TRUE(bool(tuned)) << llvm::toString(tuned.takeError());
  std::vector<int64_t> timed;
  for (auto &[config, ms] : tuned->result->timings)
    timed.push_back(config.constexprs[0].second);
  // In rank order: the top 1, group 0's best (3000), group 1's (2000); WORK
  // 1 ranks below 3000 in its group and is not timed.
  EXPECT_EQ(timed, (std::vector<int64_t>{20000, 3000, 2000}));
  EXPECT_EQ(tuned->result->config, work(2000));
}

/// WORK 20000 and 2000, refined to a tenth of the work down to 1.
static AutotuneSpec tenthsRefineSpec() {
  AutotuneSpec spec = accumulateSpec();
  spec.configs = {work(20000), work(2000)};
  spec.refine = [](const TuningConfig &c, llvm::ArrayRef<Arg>, const Target &) {
    int64_t rounds = c.constexprs[0].second;
    return rounds >= 10 ? std::vector<TuningConfig>{work(rounds / 10)}
                        : std::vector<TuningConfig>{};
  };
  return spec;
}

// refine's neighbours of the best three are timed round after round: from
// WORK 2000 (the first pass's best) down a tenth at a time to 2, the
// fastest, though neither 200, 20 nor 2 is in the spec's configs; the
// result on disk names one of them and a second tuner accepts it.
TEST(Autotune, RefineClimbsFromTheBestAndItsResultIsKeptOnDisk) {
  ScopedCacheDirectory cache;
  AutotuneSpec spec = tenthsRefineSpec();
  Buffers b(1 << 12);
  std::vector<float> before = b.acc;
  TuningConfig chosen;
  {
    Autotuner tuner(accumulateKernel(), spec);
    auto tuned = tuner.choose(cpu(), b.args());
    ASSERT_TRUE(bool(tuned)) << llvm::toString(tuned.takeError());
    std::vector<int64_t> timed;
    for (auto &[config, ms] : tuned->result->timings)
      timed.push_back(config.constexprs[0].second);
    EXPECT_EQ(timed, (std::vector<int64_t>{20000, 2000, 200, 20, 2}));
    chosen = tuned->result->config;
    // 2 and 20 rounds are close; 200 is ten times 20.
    EXPECT_TRUE(chosen == work(2) || chosen == work(20)) << chosen.str();
    EXPECT_EQ(b.acc, before); // restored after the refined runs too
  }
  Autotuner again(accumulateKernel(), spec);
  auto stored = again.choose(cpu(), b.args());
  ASSERT_TRUE(bool(stored)) << llvm::toString(stored.takeError());
  EXPECT_TRUE(stored->result->fromDiskCache);
  EXPECT_EQ(stored->result->config, chosen);
  EXPECT_EQ(again.tuningsRun(), 0);
}

// A refine whose every neighbour is faster (half the work) would climb for
// ever: it stops after kRefineRounds rounds, one new config each.
TEST(Autotune, RefineStopsAfterItsRounds) {
  ScopedCacheDirectory cache;
  AutotuneSpec spec = accumulateSpec();
  spec.configs = {work(1 << 14), work(1 << 13)};
  spec.refine = [](const TuningConfig &c, llvm::ArrayRef<Arg>, const Target &) {
    return std::vector<TuningConfig>{work(c.constexprs[0].second / 2)};
  };
  // Halving the work must show in the scores even on a loaded CI machine:
  // the smallest config still runs 512 rounds over 4096 elements (about a
  // millisecond), and seven runs each.
  spec.repetitions = 7;
  Autotuner tuner(accumulateKernel(), spec);
  Buffers b(1 << 12);
  auto tuned = tuner.choose(cpu(), b.args());
  ASSERT_TRUE(bool(tuned)) << llvm::toString(tuned.takeError());
  EXPECT_EQ(tuned->result->timings.size(), size_t(2 + kRefineRounds));
  EXPECT_EQ(tuned->result->config, work((1 << 13) >> kRefineRounds));
}

// A stored config that this tuner's refine cannot reach (it came from a
// refine that went further) is discarded and the key tuned again.
TEST(Autotune, AStoredConfigRefineCannotReachIsTunedAgain) {
  ScopedCacheDirectory cache;
  AutotuneSpec spec = tenthsRefineSpec();
  Buffers b(1 << 12);
  {
    Autotuner tuner(accumulateKernel(), spec);
    auto tuned = tuner.choose(cpu(), b.args());
    ASSERT_TRUE(bool(tuned)) << llvm::toString(tuned.takeError());
    ASSERT_LE(tuned->result->config.constexprs[0].second, 20);
  }
  AutotuneSpec noRefine = spec;
  noRefine.refine = nullptr;
  Autotuner again(accumulateKernel(), noRefine);
  auto tuned = again.choose(cpu(), b.args());
  ASSERT_TRUE(bool(tuned)) << llvm::toString(tuned.takeError());
  EXPECT_FALSE(tuned->result->fromDiskCache);
  EXPECT_EQ(again.tuningsRun(), 1);
  EXPECT_EQ(tuned->result->config, work(2000));
}

TEST(Autotune, ConcurrentFirstCallsTuneOnce) {
  ScopedCacheDirectory cache;
  Autotuner tuner(accumulateKernel(), accumulateSpec());
  std::vector<Buffers> buffers(4, Buffers(1 << 12));
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (Buffers &b : buffers)
    threads.emplace_back([&] {
      auto tuned = tuner.choose(cpu(), b.args());
      if (!tuned) {
        llvm::consumeError(tuned.takeError());
        ++failures;
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(tuner.tuningsRun(), 1);
}

TEST(Autotune, SoftmaxOnTheCPUHasOneConfigAndRunsIt) {
  ScopedCacheDirectory cache;
  std::vector<float> in(3 * 781, 1.0f), out(3 * 781);
  std::vector<Arg> args = {out.data(), in.data(), 781, 781, 3, 781,
                           Constexpr(1024)};
  auto tuned = examples::softmaxTuner().choose(cpu(), args);
  ASSERT_TRUE(bool(tuned)) << llvm::toString(tuned.takeError());
  EXPECT_TRUE(tuned->result->untimed);
  ASSERT_FALSE(bool(launch(examples::softmaxTuner().kernel(), tuned->options,
                           tuned->args)));
  for (float y : out)
    ASSERT_FLOAT_EQ(y, 1.0f / 781);
}

// In place (output = input), every timed run reads what the last wrote:
// the tuner gives the output back after timing, so the call is one
// softmax. softmax_online times its 4 chunks on the CPU (before its tuner
// restored the output, this gave softmax of softmax ...: 1.6e-3 off at
// 3000 columns); softmax (one config on the CPU, untimed here) is checked
// on the GPU (GPUAutotune.RegisteredSoftmaxTunersInPlaceComputeOnce).
TEST(Autotune, SoftmaxOnlineTunedInPlaceComputesOnce) {
  const int rows = 4, cols = 3000;
  std::vector<float> host(rows * cols);
  for (size_t i = 0; i < host.size(); ++i)
    host[i] = float(int(i * 37 % 601) - 300) / 100;
  host[cols + 5] = -INFINITY;
  auto softmaxRow = [&](int r, int c) {
    double m = -INFINITY, s = 0;
    for (int k = 0; k < cols; ++k)
      m = std::max(m, double(host[r * cols + k]));
    for (int k = 0; k < cols; ++k)
      s += std::exp(double(host[r * cols + k]) - m);
    return std::exp(double(host[r * cols + c]) - m) / s;
  };
  for (Autotuner *tuner : {&examples::softmaxOnlineTuner()}) {
    ScopedCacheDirectory cache;
    std::vector<float> data = host;
    std::vector<Arg> args = {data.data(), data.data(), cols,           cols,
                             rows,        cols,        Constexpr(4096)};
    auto tuned = tuner->choose(cpu(), args);
    ASSERT_TRUE(bool(tuned)) << llvm::toString(tuned.takeError());
    EXPECT_FALSE(tuned->result->untimed);
    EXPECT_EQ(data, host) << tuner->kernel().name();
    ASSERT_FALSE(bool(launch(tuner->kernel(), tuned->options, tuned->args)));
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c)
        ASSERT_NEAR(data[r * cols + c], softmaxRow(r, c), 1e-9)
            << tuner->kernel().name() << " row " << r << " column " << c;
  }
}

// The row softmaxes' tuners (and softmax_rows, softmax_dim0) restore the
// output only where its rows overlap the input's: in place or overlapping
// views copy it, separate buffers copy nothing (a large output is not
// duplicated on the device).
TEST(Autotune, SoftmaxRestoresTheOutputOnlyOverTheInput) {
  const int rows = 8, cols = 100;
  std::vector<float> a(rows * cols + 50), b(rows * cols);
  auto bytes = [&](float *out, float *in) {
    std::vector<Arg> args = {out, in, cols, cols, rows, cols, Constexpr(128)};
    const TuningBuffer &restore = examples::softmaxTuner().spec().restore.at(0);
    return restore.bytes(args);
  };
  const int64_t whole = int64_t(rows) * cols * 4;
  EXPECT_EQ(bytes(a.data(), a.data()), whole);
  EXPECT_EQ(bytes(a.data() + 50, a.data()), whole);
  EXPECT_EQ(bytes(a.data(), a.data() + rows * cols - 1), whole);
  EXPECT_EQ(bytes(b.data(), a.data()), 0);
  // Adjacent, not overlapping: the input ends where the output starts.
  std::vector<float> both(2 * rows * cols);
  EXPECT_EQ(bytes(both.data() + rows * cols, both.data()), 0);
  EXPECT_EQ(examples::softmaxOnlineTuner().spec().restore.at(0).bytes(
                {b.data(), a.data(), cols, cols, rows, cols, Constexpr(128)}),
            0);
}

// Run by SecondProcessTunesNothing in a child process (when
// BLOCKJIT_TEST_AUTOTUNE_REPORT names a file); otherwise it returns at once.
TEST(Autotune, ChildProcessHelper) {
  const char *report = std::getenv("BLOCKJIT_TEST_AUTOTUNE_REPORT");
  if (!report)
    return;
  Autotuner tuner(accumulateKernel(), accumulateSpec());
  Buffers b(1 << 12);
  auto tuned = tuner.choose(cpu(), b.args());
  std::ofstream out(report);
  if (!tuned) {
    out << "error " << llvm::toString(tuned.takeError());
    return;
  }
  out << "tunings=" << tuner.tuningsRun()
      << " disk=" << tuned->result->fromDiskCache
      << " config=" << tuned->result->config.str();
}

TEST(Autotune, SecondProcessTunesNothing) {
  ScopedCacheDirectory cache;
  std::string self = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
  ASSERT_FALSE(self.empty());
  std::string report = cache.directory + "/report.txt";
  std::vector<std::string> environment;
  for (char **e = environ; *e; ++e)
    environment.push_back(*e);
  environment.push_back("BLOCKJIT_TEST_AUTOTUNE_REPORT=" + report);
  std::vector<llvm::StringRef> env(environment.begin(), environment.end());
  auto runChild = [&] {
    std::vector<llvm::StringRef> argv = {
        self, "--gtest_filter=Autotune.ChildProcessHelper"};
    std::string error;
    // The child's own output would read as this binary's to test.sh.
    std::optional<llvm::StringRef> quiet[] = {std::nullopt, llvm::StringRef(""),
                                             llvm::StringRef("")};
    int rc = llvm::sys::ExecuteAndWait(self, argv, env, quiet, 0, 0, &error);
    EXPECT_EQ(rc, 0) << error;
    auto text = llvm::MemoryBuffer::getFile(report);
    return text ? (*text)->getBuffer().str() : std::string("no report");
  };
  EXPECT_EQ(runChild(), "tunings=1 disk=0 config=warps=4,stages=1,ctas=1,WORK=1");
  EXPECT_EQ(runChild(), "tunings=0 disk=1 config=warps=4,stages=1,ctas=1,WORK=1");
}

//===----------------------------------------------------------------------===//
// Prepared launches
//===----------------------------------------------------------------------===//

namespace {

/// vector_add's runtime values: x, y, out, n.
std::vector<uint64_t> addValues(const float *x, const float *y, float *out,
                                int64_t n) {
  return {uint64_t(uintptr_t(x)), uint64_t(uintptr_t(y)),
          uint64_t(uintptr_t(out)), uint64_t(n)};
}

} // namespace

TEST(PreparedLaunch, RunsWithNewBuffersAndFallsBackWhenAnAssumptionBreaks) {
  ScopedCacheDirectory cache;
  const int n = 4096 + 64;
  alignas(64) static float x[n], y[n], out[n];
  for (int i = 0; i < n; ++i) {
    x[i] = float(i);
    y[i] = float(2 * i);
  }
  LaunchOptions options = cpu();
  options.grid = {int((4096 + 255) / 256)};
  std::vector<Arg> args = {x, y, out, int32_t(4096), Constexpr(256)};
  auto prepared = PreparedLaunch::prepare(*examples::vectorAdd(), options, args);
  ASSERT_TRUE(bool(prepared)) << llvm::toString(prepared.takeError());
  EXPECT_EQ(prepared->numValues(), 4u);
  auto check = [&](const float *a, const float *b, const float *o, int count) {
    for (int i = 0; i < count; ++i)
      ASSERT_EQ(o[i], a[i] + b[i]) << i;
  };
  // Same specialization, swapped buffers.
  auto values = addValues(y, x, out, 4096);
  ASSERT_FALSE(bool(prepared->launch(values, nullptr)));
  check(y, x, out, 4096);
  // Pointers 4 bytes off their 16-byte alignment and an odd n: the
  // specialization assumed both divisible by 16, so this launch takes the
  // general path, and is still right.
  std::fill(out, out + n, 0.0f);
  values = addValues(x + 1, y + 1, out + 1, 4095);
  ASSERT_FALSE(bool(prepared->launch(values, nullptr)));
  check(x + 1, y + 1, out + 1, 4095);
  // Errors: the wrong count, a null pointer, an i32 that does not fit.
  EXPECT_TRUE(bool(prepared->launch(llvm::ArrayRef(values).drop_back(), nullptr)));
  std::string null = llvm::toString(
      prepared->launch(addValues(x, nullptr, out, 16), nullptr));
  EXPECT_NE(null.find("y_ptr"), std::string::npos) << null;
  std::string big = llvm::toString(
      prepared->launch(addValues(x, y, out, int64_t(1) << 40), nullptr));
  EXPECT_NE(big.find("does not fit"), std::string::npos) << big;
}

// A launch whose integer is 0 compiles the kernel with the constant (the
// key says zero=); a prepared launch of it given a nonzero value takes the
// general path and is still right. softmax_masked with one mask row
// (mask_row_stride 0) and then with a mask per row, on the CPU.
TEST(PreparedLaunch, AnIntegerSpecializedAsZeroFallsBackWhenNonzero) {
  ScopedCacheDirectory cache;
  const int rows = 3, cols = 5;
  std::vector<float> x(rows * cols), mask(rows * cols), out(rows * cols);
  for (int i = 0; i < rows * cols; ++i) {
    x[i] = float(i % 7) * 0.5f;
    mask[i] = i < cols ? 0.0f : float(i % 3);
  }
  auto softmaxRow = [&](int row, int maskRow, int c) {
    double m = -INFINITY, sum = 0;
    for (int k = 0; k < cols; ++k)
      m = std::max(m, double(x[row * cols + k]) + mask[maskRow * cols + k]);
    for (int k = 0; k < cols; ++k)
      sum += std::exp(double(x[row * cols + k]) + mask[maskRow * cols + k] - m);
    return std::exp(double(x[row * cols + c]) + mask[maskRow * cols + c] - m) /
           sum;
  };
  LaunchOptions options = cpu();
  options.grid = {rows};
  std::vector<Arg> args = {out.data(), x.data(), mask.data(), int32_t(cols),
                           int32_t(cols), int32_t(0), int32_t(rows),
                           int32_t(cols), Constexpr(8)};
  auto key = specializationFor(*examples::softmaxMasked(), options, args);
  ASSERT_TRUE(bool(key)) << llvm::toString(key.takeError());
  EXPECT_EQ(key->divisibility[5], kIsZero);
  EXPECT_NE(specializationName(*examples::softmaxMasked(), *key)
                .find("|zero=5|"),
            std::string::npos);
  auto prepared =
      PreparedLaunch::prepare(*examples::softmaxMasked(), options, args);
  ASSERT_TRUE(bool(prepared)) << llvm::toString(prepared.takeError());
  std::vector<uint64_t> values = {
      uint64_t(uintptr_t(out.data())), uint64_t(uintptr_t(x.data())),
      uint64_t(uintptr_t(mask.data())), uint64_t(cols), uint64_t(cols),
      0, uint64_t(rows), uint64_t(cols)};
  for (uint64_t maskStride : {uint64_t(0), uint64_t(cols)}) {
    SCOPED_TRACE(maskStride);
    values[5] = maskStride;
    std::fill(out.begin(), out.end(), -1.0f);
    ASSERT_FALSE(bool(prepared->launch(values, nullptr)));
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c)
        EXPECT_NEAR(out[r * cols + c], softmaxRow(r, maskStride ? r : 0, c),
                    1e-6)
            << r << "," << c;
  }
}

// An integer traced as the constant 0 keeps its meaning wherever it goes:
// a divisor (x / 0 == x, x % 0 == 0, LANGUAGE.md), a loop bound (no
// iteration), a factor and an offset; the same kernel launched with 3
// gives the general specialization's results.
TEST(ZeroSpecialization, AnIntegerEqualToZeroKeepsItsMeaning) {
  ScopedCacheDirectory cache;
  auto kernel = jit("zero_uses",
                    [](Ptr<int32_t> out, Ptr<int32_t> x, Int k, Int n) {
                      Tensor i = arange(0, 16);
                      Tensor v = load(x + i);
                      store(out + i, v / k);
                      store(out + 16 + i, v % k);
                      store(out + 32 + i, v * k + n + k);
                      for_range(0, k, 1,
                                [&](Int j) { store(out + 48 + j, j); });
                    });
  std::vector<int32_t> x(16);
  for (int i = 0; i < 16; ++i)
    x[i] = (i - 8) * 7 + 1;
  for (int32_t k : {0, 3}) {
    SCOPED_TRACE(k);
    std::vector<int32_t> out(64, -1);
    LaunchOptions options = cpu();
    std::vector<Arg> args = {out.data(), x.data(), k, int32_t(5)};
    auto key = specializationFor(*kernel, options, args);
    ASSERT_TRUE(bool(key)) << llvm::toString(key.takeError());
    EXPECT_EQ(key->divisibility[2] == kIsZero, k == 0);
    ASSERT_FALSE(bool(launch(*kernel, options, args)));
    for (int i = 0; i < 16; ++i) {
      EXPECT_EQ(out[i], k ? x[i] / k : x[i]) << i;
      EXPECT_EQ(out[16 + i], k ? x[i] % k : 0) << i;
      EXPECT_EQ(out[32 + i], x[i] * k + 5 + k) << i;
      EXPECT_EQ(out[48 + i], i < k ? i : -1) << i;
    }
  }
}

// A loop step computed from an integer specialized as 0 folds to 0: the
// compile stops with an error naming the loop's line (scf.for is undefined
// with such a step: it looped forever before the specialization, and ran
// once after it, silently). The same kernel with k = 1 runs.
TEST(ZeroSpecialization, AStepThatFoldsToZeroIsAnError) {
  ScopedCacheDirectory cache;
  int line = 0;
  auto kernel = jit("zero_step", [&](Ptr<int32_t> out, Int k, Int n) {
    line = __LINE__ + 1;
    for_range(0, n, k * 2, [&](Int j) { store(out + j, j); });
  });
  std::vector<int32_t> out(8, -1);
  std::vector<Arg> args = {out.data(), int32_t(0), int32_t(4)};
  std::string error = llvm::toString(launch(*kernel, cpu(), args));
  EXPECT_NE(error.find("AutotuneTest.cpp:" + std::to_string(line) + ": "),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("steps by 0; a for_range step must be positive"),
            std::string::npos)
      << error;
  args[1] = int32_t(1);
  ASSERT_FALSE(bool(launch(*kernel, cpu(), args)));
  EXPECT_EQ(out, (std::vector<int32_t>{0, -1, 2, -1, -1, -1, -1, -1}));
}

TEST(PreparedLaunch, CABIHandleWithAutotuning) {
  ScopedCacheDirectory cache;
  const int rows = 5, cols = 300;
  std::vector<float> in(rows * cols), out(rows * cols);
  for (int i = 0; i < rows * cols; ++i)
    in[i] = float(i % 11);
  blockjit_arg args[7] = {};
  args[0].kind = args[1].kind = BLOCKJIT_ARG_POINTER;
  args[0].dtype = args[1].dtype = BLOCKJIT_F32;
  args[0].value.pointer = out.data();
  args[1].value.pointer = in.data();
  int32_t ints[4] = {cols, cols, rows, cols};
  for (int i = 0; i < 4; ++i) {
    args[2 + i].kind = BLOCKJIT_ARG_I32;
    args[2 + i].value.i32 = ints[i];
  }
  args[6].kind = BLOCKJIT_ARG_CONSTEXPR;
  args[6].value.i64 = 512;
  blockjit_launch_options options = {};
  options.target = BLOCKJIT_TARGET_CPU;
  options.autotune = 1;
  blockjit_prepared *prepared = nullptr;
  ASSERT_EQ(blockjit_prepare("softmax", args, 7, &options, &prepared), 0)
      << blockjit_last_error();
  blockjit_kernel_info info;
  const char *config = nullptr;
  ASSERT_EQ(blockjit_prepared_info(prepared, &info, &config), 0);
  EXPECT_NE(std::string(config).find("BLOCK_SIZE=512"), std::string::npos)
      << config;
  uint64_t values[6] = {uint64_t(uintptr_t(out.data())),
                        uint64_t(uintptr_t(in.data())), cols, cols, rows, cols};
  ASSERT_EQ(blockjit_launch_prepared(prepared, values, 6, nullptr), 0)
      << blockjit_last_error();
  for (int r = 0; r < rows; ++r) {
    double sum = 0;
    for (int c = 0; c < cols; ++c)
      sum += std::exp(double(in[r * cols + c]));
    for (int c = 0; c < cols; ++c)
      ASSERT_NEAR(out[r * cols + c], std::exp(double(in[r * cols + c])) / sum,
                  1e-6);
  }
  EXPECT_EQ(blockjit_launch_prepared(prepared, values, 5, nullptr), 1);
  EXPECT_NE(std::string(blockjit_last_error()).find("6 runtime arguments"),
            std::string::npos)
      << blockjit_last_error();
  blockjit_release(prepared);
  // A kernel without a tuner cannot be launched with autotune.
  EXPECT_EQ(blockjit_launch("vector_add", args, 5, &options), 1);
  EXPECT_NE(std::string(blockjit_last_error()).find("no autotuner"),
            std::string::npos);
}

namespace blockjit {
void PrintTo(const TuningConfig &config, std::ostream *os) {
  *os << config.str();
}
} // namespace blockjit

TEST(SoftmaxTuning, EveryBlockHasRankedConfigsThatFitTheRules) {
  for (Target target : {Target::cpu(), Target::cuda(80), Target::cuda(90)})
    for (int bytes : {2, 4})
      for (int64_t block = 1; block <= (int64_t(1) << 20); block *= 2) {
        auto ranked = examples::softmaxRankedConfigs(block, bytes, target);
        ASSERT_FALSE(ranked.empty()) << target.str() << " " << block;
        if (target.kind == TargetKind::CPU) {
          EXPECT_EQ(ranked.size(), 1u);
          continue;
        }
        for (const TuningConfig &c : ranked) {
          EXPECT_TRUE(c.numCTAs == 1 || target.smArch >= 90) << c.str();
          double perThread = double(block) / (32.0 * c.numWarps * c.numCTAs);
          // A cluster leaves every thread 32 elements or more.
          EXPECT_TRUE(c.numCTAs == 1 || perThread >= 32) << c.str();
          // Rows in flight fit in registers, or, for rows longer than
          // 64 KB, wait in shared memory where the compiler puts them.
          int64_t threads = int64_t(32) * c.numWarps * c.programsPerCTA;
          bool aheadInShared =
              block * bytes > 65536 &&
              perThread * c.numStages > double(liveRegisterWords(threads)) &&
              (c.numStages - 1) * (block / c.numCTAs) * bytes <=
                  sharedMemoryForBlocks(target.smArch);
          EXPECT_TRUE(perThread * c.numStages <= 128 || aheadInShared ||
                      ranked.size() == 1)
              << block << " " << c.str();
          // Several programs per CTA: small programs, CTAs of 4 warps, never
          // on a cluster; and named as such.
          if (c.programsPerCTA > 1) {
            EXPECT_TRUE(c.numCTAs == 1 && c.numWarps * c.programsPerCTA == 4)
                << c.str();
            EXPECT_NE(
                c.str().find(",programs=" + std::to_string(c.programsPerCTA)),
                std::string::npos);
          }
        }
        // One-warp rows rank programs sharing a CTA first (0.91 -> 0.97 x
        // torch at 65536 x 64 f32 on the H100).
        if (block * bytes <= 256 && target.kind == TargetKind::CUDA) {
          EXPECT_GT(ranked.front().programsPerCTA, 1) << block;
        }
        // The cost model ranks them: front() is what runs untimed.
        for (size_t i = 1; i < ranked.size(); ++i)
          EXPECT_LE(examples::softmaxEstimate(ranked[i - 1], block, bytes),
                    examples::softmaxEstimate(ranked[i], block, bytes));
      }
}

// The timed set: the best topK by the cost model, and the best-ranked
// config of every cover group beyond them; without topK, everything.
TEST(Autotune, TimedConfigsAreTheTopKAndEachGroupsBest) {
  AutotuneSpec spec;
  std::vector<TuningConfig> ranked;
  for (int warps : {1, 2, 4, 8, 16})
    ranked.push_back({warps, 1, 1, {}});
  EXPECT_EQ(timedConfigs(spec, ranked),
            (std::vector<size_t>{0, 1, 2, 3, 4}));
  spec.topK = 2;
  EXPECT_EQ(timedConfigs(spec, ranked), (std::vector<size_t>{0, 1}));
  // Groups: warps <= 2, warps 4-8, and 16 in no group.
  spec.coverGroup = [](const TuningConfig &c) -> int64_t {
    return c.numWarps <= 2 ? 0 : c.numWarps <= 8 ? 1 : -1;
  };
  EXPECT_EQ(timedConfigs(spec, ranked), (std::vector<size_t>{0, 1, 2}));
}

namespace {

using Shape = std::tuple<int, int, int64_t>;

/// The shapes `shapeOf` gives the ranked configs (none: not counted), and
/// those of the ones `timed` names.
std::pair<std::set<Shape>, std::set<Shape>> rankedAndTimedShapes(
    llvm::ArrayRef<TuningConfig> ranked, llvm::ArrayRef<size_t> timed,
    llvm::function_ref<std::optional<Shape>(const TuningConfig &)> shapeOf) {
  std::set<Shape> shapes, timedShapes;
  for (size_t i = 0; i < ranked.size(); ++i)
    if (std::optional<Shape> shape = shapeOf(ranked[i])) {
      shapes.insert(*shape);
      if (llvm::is_contained(timed, i))
        timedShapes.insert(*shape);
    }
  return {shapes, timedShapes};
}

} // namespace

// Long rows on sm_90: every cluster size x num_warps of the pruned space is
// timed (the model alone misjudged bf16's elements per thread), each with
// both grids (persistent, and 8 rows a cluster: which wins depends on how
// the clusters fall on the SMs), beside the model's best ranked.
TEST(SoftmaxTuning, LongRowsTimeEveryClusterShape) {
  AutotuneSpec spec = examples::rowTuningSpec({});
  for (int bytes : {2, 4})
    for (int64_t block : {int64_t(65536), int64_t(262144)}) {
      auto ranked =
          examples::softmaxRankedConfigs(block, bytes, Target::cuda(90));
      std::vector<size_t> timed = timedConfigs(spec, ranked);
      // (num_ctas, num_warps, several rows a program) of each cluster
      // config; a cluster's non-persistent grid gives each program 8 rows.
      auto [shapes, timedShapes] = rankedAndTimedShapes(
          ranked, timed, [](const TuningConfig &c) -> std::optional<Shape> {
            if (c.numCTAs == 1)
              return std::nullopt;
            EXPECT_TRUE(c.gridParam("ROWS") == 0 || c.gridParam("ROWS") == 8)
                << c.str();
            return Shape(c.numCTAs, c.numWarps,
                         int64_t(c.gridParam("ROWS") > 0));
          });
      EXPECT_FALSE(shapes.empty()) << block;
      EXPECT_EQ(shapes, timedShapes) << bytes << " " << block;
      // Untimed ($BLOCKJIT_AUTOTUNE=0), a cluster runs 8 rows a cluster,
      // the tuner's pick at every long row measured.
      if (block == 262144) {
        EXPECT_GT(ranked.front().numCTAs, 1) << ranked.front().str();
      }
      if (ranked.front().numCTAs > 1) {
        EXPECT_EQ(ranked.front().gridParam("ROWS"), 8) << ranked.front().str();
      }
      for (auto [ctas, warps, perRow] : shapes)
        EXPECT_TRUE(shapes.count({ctas, warps, 1 - perRow}))
            << "both grids of " << ctas << " CTAs of " << warps << " warps";
      for (size_t i = 0; i < size_t(examples::kSoftmaxTuningTopK); ++i)
        EXPECT_TRUE(llvm::is_contained(timed, i)) << i;
      // Tuning stays short: a few dozen configs at most.
      EXPECT_LE(timed.size(), 48u) << bytes << " " << block;
      RecordProperty(std::to_string(bytes) + "x" + std::to_string(block),
                     int(timed.size()));
    }
}

// Rows of 32 KB and more loaded ahead in one CTA (num_stages > 1): each
// warps x stages pair is timed on a persistent grid and on one of 8 rows a
// program (the hardware balances the programs; a persistent grid's last
// rows fall unevenly). Shorter rows keep the persistent grid.
TEST(SoftmaxTuning, RowsAheadTimeBothGrids) {
  AutotuneSpec spec = examples::rowTuningSpec({});
  for (int bytes : {2, 4})
    for (int64_t block : {int64_t(1024), int64_t(16384), int64_t(32768)}) {
      bool several = block * bytes >= 32768;
      auto ranked =
          examples::softmaxRankedConfigs(block, bytes, Target::cuda(90));
      std::vector<size_t> timed = timedConfigs(spec, ranked);
      // (num_warps, num_stages, ROWS) of each one-CTA config that loads
      // rows ahead on a grid of several rows a program or a persistent one.
      auto [shapes, timedShapes] = rankedAndTimedShapes(
          ranked, timed, [&](const TuningConfig &c) -> std::optional<Shape> {
            if (c.numCTAs > 1 || c.programsPerCTA > 1)
              return std::nullopt;
            int64_t rows = c.gridParam("ROWS");
            EXPECT_TRUE(rows == 0 || rows == 1 ||
                        (rows == 8 && c.numStages > 1 && several))
                << c.str();
            if (c.numStages == 1 || rows == 1)
              return std::nullopt;
            return Shape(c.numWarps, c.numStages, rows);
          });
      EXPECT_FALSE(shapes.empty()) << block;
      EXPECT_EQ(shapes, timedShapes) << bytes << " " << block;
      bool anySeveral = false;
      for (auto [warps, stages, rows] : shapes) {
        anySeveral |= rows == 8;
        if (several) {
          EXPECT_TRUE(shapes.count({warps, stages, 8 - rows}))
              << "both grids of " << warps << " warps, " << stages
              << " stages, " << block << " x " << bytes << " bytes";
        }
      }
      EXPECT_EQ(anySeveral, several) << bytes << " " << block;
      // Tuning stays short: a few dozen configs at most.
      EXPECT_LE(timed.size(), 48u) << bytes << " " << block;
      RecordProperty(std::to_string(bytes) + "x" + std::to_string(block),
                     int(timed.size()));
    }
}

// The row kernels' grid: persistent (the programs resident at once, no more
// than rows) with grid:ROWS=0, else about ROWS rows a program.
TEST(SoftmaxTuning, RowGridTakesRowsPerProgram) {
  AutotuneSpec spec = examples::rowTuningSpec({});
  float buffer = 0;
  KernelResources resources;
  resources.maxResidentPrograms = 21;
  auto gridFor = [&](int64_t perProgram, int32_t rows) {
    std::vector<Arg> args{&buffer, &buffer, 64,  64,
                          rows,    64,      Constexpr(64)};
    TuningConfig config{4, 3, 16, {}, {{"ROWS", perProgram}}};
    return spec.grid(config, resources, args).x;
  };
  EXPECT_EQ(gridFor(0, 8192), 21);
  EXPECT_EQ(gridFor(0, 5), 5);
  EXPECT_EQ(gridFor(1, 8192), 8192);
  EXPECT_EQ(gridFor(8, 8192), 1024);
  EXPECT_EQ(gridFor(8, 8193), 1025);
  EXPECT_EQ(gridFor(8, 3), 1);
  EXPECT_EQ(gridFor(8, 0), 1);
}

// Rows per program are refined by halving and doubling within 2..64; the
// persistent grid and one row a program have nothing to refine; every row
// kernel's spec refines so.
TEST(SoftmaxTuning, RowsPerProgramRefineHalvesAndDoubles) {
  auto rowsOf = [](const std::vector<TuningConfig> &configs) {
    std::vector<int64_t> rows;
    for (const TuningConfig &c : configs) {
      rows.push_back(c.gridParam("ROWS"));
      EXPECT_EQ(c.numWarps, 4);
      EXPECT_EQ(c.numStages, 3);
      EXPECT_EQ(c.numCTAs, 16);
    }
    return rows;
  };
  auto refined = [&](int64_t perProgram) {
    return rowsOf(examples::rowsPerProgramRefined(
        TuningConfig{4, 3, 16, {}, {{"ROWS", perProgram}}}));
  };
  EXPECT_EQ(refined(8), (std::vector<int64_t>{4, 16}));
  EXPECT_EQ(refined(2), (std::vector<int64_t>{4}));
  EXPECT_EQ(refined(64), (std::vector<int64_t>{32}));
  EXPECT_TRUE(refined(0).empty());
  EXPECT_TRUE(refined(1).empty());
  AutotuneSpec spec = examples::rowTuningSpec({});
  ASSERT_TRUE(bool(spec.refine));
  EXPECT_EQ(rowsOf(spec.refine(TuningConfig{4, 3, 16, {}, {{"ROWS", 8}}}, {},
                               Target::cuda(90))),
            (std::vector<int64_t>{4, 16}));
}

// layernorm's tuning: softmax's whole-row configs, each setting
// CHUNK_SIZE = 0 whatever the caller passed, and on the GPU only, rows read
// in chunks (at least two a row, 2-32 elements a thread) on one program a
// row; a chunk's refinement halves and doubles it within those limits and a
// whole row's its rows per program.
TEST(LayerNormTuning, ChunksOnTheGPUOnlyWithinTheirLimits) {
  const AutotuneSpec &spec = examples::layerNormTuner().spec();
  ASSERT_TRUE(spec.prune && spec.refine && spec.estimate && spec.coverGroup);
  float buffer = 0;
  auto argsFor = [&](int32_t cols) {
    return std::vector<Arg>{&buffer,       &buffer,
                            &buffer,       &buffer,
                            cols,          cols,
                            4096,          cols,
                            1e-5f,         Constexpr(next_power_of_2(cols)),
                            Constexpr(256)};
  };
  auto chunkOf = [](const TuningConfig &c) {
    int64_t chunk = -1;
    for (const auto &[name, value] : c.constexprs)
      if (name == "CHUNK_SIZE") {
        EXPECT_EQ(chunk, -1) << "CHUNK_SIZE twice in " << c.str();
        chunk = value;
      }
    return chunk;
  };
  for (int32_t cols : {781, 4096, 12288}) {
    std::vector<Arg> args = argsFor(cols);
    int64_t block = next_power_of_2(cols);
    int chunked = 0;
    for (const TuningConfig &c :
         spec.prune(spec.configs, args, Target::cuda(90))) {
      int64_t chunk = chunkOf(c);
      ASSERT_GE(chunk, 0) << "no CHUNK_SIZE in " << c.str();
      if (chunk == 0)
        continue;
      ++chunked;
      EXPECT_LE(chunk * 2, block) << c.str();
      double perThread = double(chunk) / (32.0 * c.numWarps);
      EXPECT_GE(perThread, 2) << c.str();
      EXPECT_LE(perThread, 32) << c.str();
      EXPECT_EQ(c.gridParam("ROWS"), 1) << c.str();
      // Each chunk config's refinement stays within the same limits.
      for (const TuningConfig &n : spec.refine(c, args, Target::cuda(90))) {
        int64_t next = chunkOf(n);
        EXPECT_TRUE(next == chunk / 2 || next == chunk * 2) << n.str();
        EXPECT_LE(next * 2, block) << n.str();
        EXPECT_EQ(n.numWarps, c.numWarps) << n.str();
      }
    }
    // A 1024-wide block has no chunk worth two a row of 2+ a thread on 4+
    // warps of 1024 or more; the wider ones do.
    if (block >= 4096)
      EXPECT_GT(chunked, 0) << cols;
    else
      EXPECT_EQ(chunked, 0) << cols;
    // The CPU: one config, the whole row.
    std::vector<TuningConfig> cpu =
        spec.prune(spec.configs, args, Target::cpu());
    ASSERT_EQ(cpu.size(), 1u);
    EXPECT_EQ(chunkOf(cpu[0]), 0);
  }
  // A whole row's refinement moves its rows per program, not its chunk;
  // a neighbour with an eviction hint keeps them (it differs in the hint).
  TuningConfig whole{16, 2, 1, {{"CHUNK_SIZE", 0}}, {{"ROWS", 8}}};
  for (const TuningConfig &n :
       spec.refine(whole, argsFor(12288), Target::cuda(90))) {
    EXPECT_EQ(chunkOf(n), 0) << n.str();
    bool hinted = n.loadEviction != DefaultEviction::Normal ||
                  n.storeEviction != DefaultEviction::Normal;
    if (hinted)
      EXPECT_EQ(n.gridParam("ROWS"), 8) << n.str();
    else
      EXPECT_NE(n.gridParam("ROWS"), 8) << n.str();
  }
}

// softmax_columns' timed configs: whole columns (one block of
// next_power_of_2(rows) rows, read once) and chunks shorter than the column
// (read twice), each within its per-thread and cluster limits, a few of
// every (num_ctas, num_stages, pass count); the CPU gets one config, whole
// columns up to 2^20 elements a block.
// softmax_columns refines a timed config one step at a time: chunks' BLOCK_M,
// BLOCK_N and num_warps halved and doubled (a whole column keeps its
// height), each neighbour within the limits the first pass keeps.
TEST(SoftmaxColumnsTuning, RefineStepsOneBlockDimensionOrTheWarps) {
  const AutotuneSpec &spec = examples::softmaxColumnsTuner().spec();
  ASSERT_TRUE(bool(spec.refine));
  float buffer = 0;
  std::vector<Arg> args{&buffer, &buffer,      1024,         1024,        32768,
                        1024,    Constexpr(1), Constexpr(1), Constexpr(1)};
  auto config = [](int warps, int ctas, int64_t m, int64_t n, bool whole) {
    return TuningConfig{
        warps,
        2,
        ctas,
        {{"BLOCK_M", m}, {"BLOCK_N", n}, {"WHOLE_COLUMN", whole}}};
  };
  auto names = [](const std::vector<TuningConfig> &configs) {
    std::set<std::string> out;
    for (const TuningConfig &c : configs)
      out.insert(c.str());
    return out;
  };
  // Chunks of 512 x 32 on 8 CTAs of 4 warps (16 elements a thread, the
  // most at two stages): every step that keeps 4-16 a thread.
  std::vector<TuningConfig> near =
      spec.refine(config(4, 8, 512, 32, false), args, Target::cuda(90));
  EXPECT_EQ(names(near),
            names({config(4, 8, 256, 32, false), config(4, 8, 512, 16, false),
                   config(8, 8, 512, 32, false)}));
  // A whole 32768-row column keeps its height: BLOCK_N and warps only.
  near = spec.refine(config(4, 16, 32768, 16, true), args, Target::cuda(90));
  for (const TuningConfig &c : near)
    EXPECT_EQ(c.constexprs[0].second, 32768) << c.str();
  EXPECT_FALSE(near.empty());
  // Before sm_90 a cluster config has no neighbours worth timing.
  EXPECT_TRUE(spec.refine(config(4, 8, 512, 32, false), args, Target::cuda(80))
                  .empty());
}

TEST(SoftmaxColumnsTuning, TimesWholeColumnsAndChunksWithinTheirLimits) {
  const AutotuneSpec &spec = examples::softmaxColumnsTuner().spec();
  float buffer = 0;
  auto argsFor = [&](int32_t rows, int32_t cols) {
    return std::vector<Arg>{&buffer, &buffer, cols, cols, rows, cols,
                            Constexpr(1), Constexpr(1), Constexpr(1)};
  };
  auto value = [](const TuningConfig &c, const std::string &name) {
    for (const auto &[key, v] : c.constexprs)
      if (key == name)
        return v;
    ADD_FAILURE() << "no " << name << " in " << c.str();
    return int64_t(0);
  };
  for (auto [rows, cols] : {std::pair{4096, 781}, std::pair{4096, 4096},
                            std::pair{32768, 1024}, std::pair{1823, 781}}) {
    std::vector<Arg> args = argsFor(rows, cols);
    std::vector<TuningConfig> timed =
        spec.prune(spec.configs, args, Target::cuda(90));
    ASSERT_FALSE(timed.empty());
    EXPECT_LE(int(timed.size()), spec.topK);
    std::set<int64_t> passes;
    std::map<std::tuple<int, int, int64_t>, int> perGroup;
    for (const TuningConfig &c : timed) {
      int64_t blockM = value(c, "BLOCK_M"), blockN = value(c, "BLOCK_N");
      int64_t whole = value(c, "WHOLE_COLUMN");
      passes.insert(whole);
      double perThread =
          double(blockM * blockN) / (32.0 * c.numWarps * c.numCTAs);
      if (whole) {
        EXPECT_EQ(blockM, next_power_of_2(rows)) << c.str();
        EXPECT_LE(perThread, 128) << c.str();
      } else {
        EXPECT_LT(blockM, rows) << c.str();
        EXPECT_LE(perThread, 32) << c.str();
        EXPECT_LE(c.numStages, 2) << c.str();
      }
      EXPECT_GE(perThread, 4) << c.str();
      // A cluster holds the strip's columns in its exchange buffer.
      EXPECT_LE(blockN * c.numCTAs, 1024) << c.str();
      int &inGroup = perGroup[std::make_tuple(c.numCTAs, c.numStages, whole)];
      EXPECT_LE(++inGroup, whole ? 3 : 4) << c.str();
    }
    EXPECT_EQ(passes, (std::set<int64_t>{0, 1})) << rows << "x" << cols;
    // Before sm_90, no clusters.
    for (const TuningConfig &c :
         spec.prune(spec.configs, args, Target::cuda(80)))
      EXPECT_EQ(c.numCTAs, 1) << c.str();
    // The CPU: one config, the whole column where the block stays within
    // 2^20 elements (all four shapes here), the default BLOCK_N.
    std::vector<TuningConfig> cpu = spec.prune(spec.configs, args, Target::cpu());
    ASSERT_EQ(cpu.size(), 1u);
    auto blocks = examples::softmaxColumnsBlocks(rows, cols);
    ASSERT_TRUE(bool(blocks));
    EXPECT_EQ(value(cpu[0], "BLOCK_M"), next_power_of_2(rows));
    EXPECT_EQ(value(cpu[0], "BLOCK_N"), blocks->n);
    EXPECT_EQ(value(cpu[0], "WHOLE_COLUMN"), 1);
    EXPECT_FALSE(blocks->wholeColumn);
  }
  // Taller columns on the CPU: the default chunks of 64 rows.
  {
    std::vector<Arg> args = argsFor(65536, 781);
    std::vector<TuningConfig> cpu =
        spec.prune(spec.configs, args, Target::cpu());
    ASSERT_EQ(cpu.size(), 1u);
    EXPECT_EQ(value(cpu[0], "BLOCK_M"), 64);
    EXPECT_EQ(value(cpu[0], "BLOCK_N"), 32);
    EXPECT_EQ(value(cpu[0], "WHOLE_COLUMN"), 0);
  }
  // A short column is whole in the default blocks.
  auto shortColumns = examples::softmaxColumnsBlocks(33, 100);
  ASSERT_TRUE(bool(shortColumns));
  EXPECT_TRUE(shortColumns->wholeColumn);
  EXPECT_EQ(shortColumns->m, 64);
}

// softmax_columns_stats / _combine / _normalize (SoftmaxColumnsSplit.cpp):
// the row blocks, the grids and the configs each tuner times.
TEST(SoftmaxColumnsSplitTuning, RowBlocksGiveAtLeast512Programs) {
  // Strips of 1024 columns times row blocks: 512 programs or more (up to
  // twice that, the row blocks rounded down to a power of two), row blocks
  // a power of two of at least 32 rows.
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{32768, 781},
                            {32768, 1024},
                            {32768, 4096},
                            {32768, 12288},
                            {4096, 781},
                            {32257, 781},
                            {1823, 781},
                            {32769, 20},
                            {1, 17},
                            {9, 4097}}) {
    int64_t perSplit = examples::softmaxColumnsSplitRows(rows, cols);
    int64_t splits = examples::softmaxColumnsSplits(rows, cols);
    EXPECT_GE(perSplit, 32) << rows << "x" << cols;
    EXPECT_TRUE(llvm::isPowerOf2_64(uint64_t(perSplit)));
    int64_t programs = cdiv(cols, 1024) * splits;
    if (perSplit > 32) { // not held up by the 32-row floor
      EXPECT_GE(programs, 512) << rows << "x" << cols;
    }
    EXPECT_LE(programs, 2 * (512 + cdiv(cols, 1024))) << rows << "x" << cols;
    int64_t combineBlock = examples::softmaxColumnsCombineBlock(rows, cols);
    EXPECT_TRUE(llvm::isPowerOf2_64(uint64_t(combineBlock)));
    EXPECT_LE(combineBlock, 64);
    EXPECT_GE(combineBlock, std::min<int64_t>(splits, 64));
  }
  // 32768 x 781: one strip of whole rows, 512 blocks of 64 rows;
  // 32768 x 12288: 12 strips, 64 blocks of 512 rows.
  EXPECT_EQ(examples::softmaxColumnsSplitRows(32768, 781), 64);
  EXPECT_EQ(examples::softmaxColumnsSplits(32768, 781), 512);
  EXPECT_EQ(examples::softmaxColumnsSplitRows(32768, 12288), 512);
  EXPECT_EQ(examples::softmaxColumnsSplitRows(4096, 781), 32);
}

TEST(SoftmaxColumnsSplitTuning, TunersTimeConfigsWithinTheirLimits) {
  float buffer = 0;
  KernelResources resources;
  resources.maxResidentPrograms = 264;
  for (auto [rows, cols] : {std::pair<int32_t, int32_t>{32768, 781},
                            {4096, 12288},
                            {1823, 781},
                            {5, 3}}) {
    int32_t perSplit = int32_t(examples::softmaxColumnsSplitRows(rows, cols));
    int32_t splits = int32_t(examples::softmaxColumnsSplits(rows, cols));
    // stats: 4 to 64 elements of a chunk a thread (32 with a second
    // stage), chunks of 2 to 8 rows, a grid of (strips, row blocks), the
    // CPU one config.
    const AutotuneSpec &stats = examples::softmaxColumnsStatsTuner().spec();
    std::vector<Arg> statsArgs{&buffer, &buffer,  cols,         rows,
                               cols,    perSplit, Constexpr(1), Constexpr(1)};
    std::vector<TuningConfig> timed =
        stats.prune(stats.configs, statsArgs, Target::cuda(90));
    ASSERT_FALSE(timed.empty());
    for (const TuningConfig &c : timed) {
      double perThread = double(c.constexprValue("BLOCK_M", 0) *
                                c.constexprValue("BLOCK_N", 0)) /
                         (32.0 * c.numWarps);
      EXPECT_GE(perThread, 4) << c.str();
      EXPECT_LE(perThread, c.numStages > 1 ? 32 : 64) << c.str();
      EXPECT_LE(c.constexprValue("BLOCK_M", 0), std::min(8, perSplit));
      Grid grid = stats.grid(c, resources, statsArgs);
      EXPECT_EQ(grid.x, cdiv(cols, c.constexprValue("BLOCK_N", 1)));
      EXPECT_EQ(grid.y, splits);
    }
    // The CPU: chunks of 4 whole rows (up to 1024 columns).
    std::vector<TuningConfig> cpuStats =
        stats.prune(stats.configs, statsArgs, Target::cpu());
    ASSERT_EQ(cpuStats.size(), 1u);
    EXPECT_EQ(cpuStats[0].constexprValue("BLOCK_M", 0), 4);
    EXPECT_EQ(cpuStats[0].constexprValue("BLOCK_N", 0),
              std::clamp<int64_t>(next_power_of_2(cols), 64, 1024));
    // combine: one program per strip, 2 to 32 elements of a block a
    // thread, no more row blocks at a time than there are (up to 16).
    const AutotuneSpec &combine = examples::softmaxColumnsCombineTuner().spec();
    int64_t blockS = examples::softmaxColumnsCombineBlock(rows, cols);
    std::vector<Arg> combineArgs{&buffer, &buffer,           splits,
                                 cols,    Constexpr(blockS), Constexpr(1)};
    timed = combine.prune(combine.configs, combineArgs, Target::cuda(90));
    ASSERT_FALSE(timed.empty());
    bool allAtOnce = false;
    for (const TuningConfig &c : timed) {
      EXPECT_EQ(combine.grid(c, resources, combineArgs).x,
                cdiv(cols, c.constexprValue("BLOCK_N", 1)))
          << c.str();
      int64_t configBlockS = c.constexprValue("BLOCK_S", 0);
      double perThread = double(configBlockS * c.constexprValue("BLOCK_N", 0)) /
                         (32.0 * c.numWarps);
      EXPECT_GE(perThread, 2) << c.str();
      EXPECT_LE(perThread, 32) << c.str();
      EXPECT_LE(configBlockS,
                std::max<int64_t>(16, next_power_of_2(int64_t(splits))))
          << c.str();
      allAtOnce |= configBlockS >= std::min<int64_t>(512, splits);
    }
    EXPECT_TRUE(allAtOnce) << rows << "x" << cols;
    // The CPU: the caller's BLOCK_S (at least 16) on 64 columns.
    std::vector<TuningConfig> cpuCombine =
        combine.prune(combine.configs, combineArgs, Target::cpu());
    ASSERT_EQ(cpuCombine.size(), 1u);
    EXPECT_EQ(cpuCombine[0].constexprValue("BLOCK_S", 0),
              std::max<int64_t>(16, blockS));
    EXPECT_EQ(cpuCombine[0].constexprValue("BLOCK_N", 0), 64);
    // normalize: whole rows (BLOCK_N up to the row's power of two) on a
    // persistent grid of at most one program per chunk of rows, or
    // (grid:ROWS=BLOCK_M) on one program per chunk; both grids are timed.
    const AutotuneSpec &normalize =
        examples::softmaxColumnsNormalizeTuner().spec();
    std::vector<Arg> normalizeArgs{&buffer, &buffer,      &buffer,
                                   cols,    cols,         rows,
                                   cols,    Constexpr(1), Constexpr(1)};
    timed = normalize.prune(normalize.configs, normalizeArgs, Target::cuda(90));
    ASSERT_FALSE(timed.empty());
    int persistent = 0, perChunk = 0;
    for (const TuningConfig &c : timed) {
      int64_t blockM = c.constexprValue("BLOCK_M", 0);
      EXPECT_LE(c.constexprValue("BLOCK_N", 0),
                std::max<int64_t>(64, next_power_of_2(cols)))
          << c.str();
      Grid grid = normalize.grid(c, resources, normalizeArgs);
      EXPECT_GE(grid.x, 1);
      if (int64_t perProgram = c.gridParam(examples::kRowsPerProgram)) {
        ++perChunk;
        EXPECT_EQ(perProgram, blockM) << c.str();
        EXPECT_EQ(grid.x, cdiv(rows, blockM)) << c.str();
      } else {
        ++persistent;
        EXPECT_LE(grid.x, std::min<int64_t>(264, cdiv(rows, blockM)))
            << c.str();
      }
    }
    EXPECT_GT(persistent, 0);
    EXPECT_EQ(perChunk, persistent);
    EXPECT_EQ(
        normalize.prune(normalize.configs, normalizeArgs, Target::cpu()).size(),
        1u);
  }
}
