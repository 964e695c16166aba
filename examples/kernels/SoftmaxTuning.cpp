//===- SoftmaxTuning.cpp - the configurations softmax is tuned over ------===//
//
// The search spaces of softmax and softmax_online and the rules that prune
// and rank them before anything compiles; softmax's spec serves every row
// kernel of its family (rowTuningSpec). The autotuner (runtime/Autotune.h)
// times what survives on the caller's shape and keeps the fastest on disk;
// with $BLOCKJIT_AUTOTUNE=0 the best-ranked config runs untimed.
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/Kernels.h"
#include "examples/kernels/RowTuning.h"

#include "compiler/Specialization.h"
#include "compiler/gpu/NVPTXTarget.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>

namespace blockjit::examples {

namespace {

// Argument positions of softmax and softmax_online (SoftmaxSignature.h).
constexpr RowArgPositions kSoftmaxArgs = {/*input=*/1, /*rows=*/4,
                                          /*cols=*/5, /*block=*/6};

// Configs with several programs per CTA that softmax's tuner times at most.
constexpr int kTimedSharedCTAConfigs = 8;
// The row tuners key on the row count's power of two: its exact value
// matters less than its size.
constexpr KeyBucket kRowsKeyBucket = KeyBucket::PowerOfTwo;

// Rows per program of the non-persistent grid of programs that load rows
// ahead (num_stages > 1) or spread over clusters: about 8 rows each, far
// more programs than fit at once, let the hardware balance them and keep
// the rows-ahead pipeline busy. On the H200: bf16 262144 on 16 CTAs of 4
// warps, 3 stages, 8192 rows: 3799 GB/s persistent (21 clusters), 4025 at
// 1024 clusters, 2930 at 8192 (one cluster a row pays each cluster's entry
// and barriers for a single row); f32 50000 on 8 CTAs of 4 warps, 42949
// rows: 3666 persistent, 4006-4033 at 4096-8192 clusters (8 rows a cluster
// is 5369), 3895 at 42949; bf16 layernorm 32768 x 12288 on 16 warps, 2
// stages: 3734 persistent, 3895 at 4096 programs (one config each, no L2
// flush; tuned, bench/softmax_family_gpu.py: 0.901 -> 0.928 x copy).
constexpr int64_t kPipelinedRowsPerProgram = 8;

// The range tuning refines rows per program over (rowsPerProgramRefined):
// from 8 it times 4 and 16, and so on while a neighbour is among the best.
// 8 is not best everywhere (H200, one config each, no L2 flush): bf16 50000
// on 8 CTAs of 2 warps, 2 stages, 42949 rows: 3978 GB/s at 8 rows a
// cluster, 4023 at 4; f32 262144 on 16 CTAs of 4 warps, 8192 rows: 4033 at
// 8, 4057-4069 at 16-64; bf16 layernorm 4096 x 12288 on 16 warps, 2 stages:
// 3403 at 8, 3475 at 4.
constexpr int64_t kMinRowsPerProgram = 2, kMaxRowsPerProgram = 64;

int elementBytesOf(llvm::ArrayRef<Arg> args, int input) {
  return args.size() > size_t(input) ? int(dtypeBytes(args[input].dtype)) : 4;
}

int64_t blockOf(llvm::ArrayRef<Arg> args, int block) {
  return args.size() > size_t(block) ? args[block].i64 : 1024;
}

/// Elements of the block each thread holds.
double elementsPerThread(int64_t block, const TuningConfig &c) {
  return double(block) / (32.0 * c.numWarps * c.numCTAs);
}

/// Whether rows of `block` elements may be spread over a cluster: rows of
/// 64 KB and more (QuACK's rule: none up to 32K f32 / 16K bf16).
bool clusterable(int64_t block, int elementBytes) {
  return block * elementBytes >= 65536;
}

/// Clusters leave each thread at least this many elements. Fewer only adds
/// CTAs to exchange with (long rows measured best at 64-128 a thread on the
/// H100 and H200), and every cluster size x num_warps pair kept is timed
/// (rowTuningSpec's coverGroup).
constexpr double kMinClusterElementsPerThread = 32;

/// Whether the compiler keeps the rows `c` loads ahead in shared memory:
/// their copies in registers would take more than liveRegisterWords, and
/// the s - 1 rows ahead of a CTA's share fit in its shared memory. Tried
/// for rows longer than 64 KB only (those registers cannot prefetch), so
/// that shorter rows keep the configs measured best.
bool rowsAheadFitInShared(const TuningConfig &c, int64_t block,
                          int elementBytes, const Target &target) {
  double perThread = elementsPerThread(block, c);
  int64_t threads = int64_t(32) * c.numWarps * c.programsPerCTA;
  int64_t ahead = int64_t(c.numStages - 1) * (block / c.numCTAs) * elementBytes;
  return block * elementBytes > 65536 && c.programsPerCTA == 1 &&
         perThread * c.numStages > double(liveRegisterWords(threads)) &&
         ahead <= sharedMemoryForBlocks(target.smArch);
}

} // namespace

Grid rowGrid(const TuningConfig &config, const KernelResources &resources,
             llvm::ArrayRef<Arg> args, int rowsIndex, int64_t rowsPerItem) {
  int64_t rows = std::max<int64_t>(integerArgAt(args, rowsIndex, 1), 1);
  if (int64_t perProgram = config.gridParam(kRowsPerProgram); perProgram > 0)
    return {int(
        std::clamp<int64_t>(llvm::divideCeil(rows, perProgram), 1, INT32_MAX))};
  return {persistentGrid(resources, llvm::divideCeil(rows, rowsPerItem))};
}

std::vector<TuningConfig> softmaxSearchSpace() {
  std::vector<TuningConfig> space;
  for (int ctas : {1, 2, 4, 8, 16})
    for (int warps : {1, 2, 4, 8, 16, 32})
      for (int stages : {1, 2, 3, 4, 6, 8})
        for (int64_t perProgram : {int64_t(0), int64_t(1),
                                   kPipelinedRowsPerProgram})
          // Programs of 1 or 2 warps may share CTAs of 4 warps (an SM holds
          // at most 32 CTAs: one-warp CTAs fill half of it; 2, 4 and 8
          // one-warp programs per CTA measured alike).
          for (int programs : {1, 2, 4}) {
            if (programs > 1 && (ctas > 1 || warps * programs != 4))
              continue;
            // Clusters take several rows a program (one a row is slow);
            // several rows a program pay where rows are loaded ahead.
            if ((perProgram == 1 && ctas > 1) ||
                (perProgram == kPipelinedRowsPerProgram && ctas == 1 &&
                 (stages == 1 || programs > 1)))
              continue;
            TuningConfig config{
                warps, stages, ctas, {}, {{kRowsPerProgram, perProgram}}};
            config.programsPerCTA = programs;
            space.push_back(std::move(config));
          }
  return space;
}

std::vector<TuningConfig> softmaxPrune(llvm::ArrayRef<TuningConfig> configs,
                                       int64_t block, int elementBytes,
                                       const Target &target) {
  std::vector<TuningConfig> kept;
  for (const TuningConfig &c : configs) {
    // The CPU backend ignores warps, stages and clusters: one config.
    if (target.kind == TargetKind::CPU) {
      if (kept.empty())
        kept.push_back({4, 1, 1, {}, {{kRowsPerProgram, 0}}});
      continue;
    }
    double perThread = elementsPerThread(block, c);
    // At least one element per thread; at most 128 (blocks larger than
    // that per thread are kept in shared memory, which is slower than a
    // cluster where one exists).
    // (Blocks smaller than a warp keep one warp.)
    bool oneWarp = c.numWarps == 1 && c.numCTAs == 1;
    if ((perThread < 1 && !oneWarp) || perThread > 128)
      continue;
    // Several rows a program in one CTA pay for rows of 32 KB and more
    // (bf16 layernorm at 12288 columns: +4-9 % a config, +3 % tuned at
    // 32768 rows); below, a persistent grid or one program a row measured
    // best (bf16 4096 x 4096 layernorm, 32768 x 781 softmax).
    if (c.numCTAs == 1 && c.gridParam(kRowsPerProgram) > 1 &&
        block * elementBytes < 32768)
      continue;
    // Clusters need sm_90 and only pay for rows that one CTA holds badly
    // (clusterable); each CTA keeps at least 4096 elements.
    if (c.numCTAs > 1 &&
        (target.smArch < 90 || !clusterable(block, elementBytes) ||
         block / c.numCTAs < 4096 || perThread < kMinClusterElementsPerThread))
      continue;
    // Each row in flight adds what a thread holds: at most 128 elements in
    // all in registers (measured: 0.06-0.15 x copy at 256 per thread),
    // unless the compiler keeps the rows ahead in shared memory
    // (blk-stage-in-shared: past liveRegisterWords) and they fit there.
    if (c.numStages > 1 && perThread * c.numStages > 128 &&
        !rowsAheadFitInShared(c, block, elementBytes, target))
      continue;
    kept.push_back(c);
  }
  // Programs sharing CTAs rank first wherever they apply; the best
  // kTimedSharedCTAConfigs of them leave the rest of the timed configs to
  // one program per CTA (which wins for rows of 8 KB on one warp).
  std::vector<TuningConfig> shared;
  for (const TuningConfig &c : kept)
    if (c.programsPerCTA > 1)
      shared.push_back(c);
  std::stable_sort(shared.begin(), shared.end(),
                   [&](const TuningConfig &a, const TuningConfig &b) {
                     return softmaxEstimate(a, block, elementBytes) <
                            softmaxEstimate(b, block, elementBytes);
                   });
  if (shared.size() > size_t(kTimedSharedCTAConfigs))
    shared.resize(kTimedSharedCTAConfigs);
  llvm::erase_if(kept, [&](const TuningConfig &c) {
    return c.programsPerCTA > 1 && !llvm::is_contained(shared, c);
  });
  // Rows longer than 128 elements per thread of 32 warps without clusters
  // (before sm_90): the most threads, the block in shared memory or spilled.
  if (kept.empty())
    kept.push_back({32, 1, 1, {}, {{kRowsPerProgram, 0}}});
  return kept;
}

double softmaxEstimate(const TuningConfig &c, int64_t block, int elementBytes) {
  // Best measured (docs/tune_softmax_*.csv): about 64 elements (128-256
  // bytes) per thread, the next row in flight, the smallest cluster.
  // Each config's grids rank side by side: in one CTA the persistent one
  // first, on a cluster 8 rows a cluster (the tuner's pick at every long
  // row on the H200, docs/softmax_long_rows_h200_head_20261129.csv).
  double perThread = elementsPerThread(block, c);
  double cost = std::abs(std::log2(perThread * elementBytes / 256.0));
  // Rows in flight: enough that a thread has about 128 bytes loading
  // (65536 x 64 f32 on one warp: 0.80 x copy at 2 stages, 0.84 at 5-8;
  // 32768 x 256: 0.98 -> 1.00 at 6), one row ahead for large blocks.
  double idealStages =
      std::clamp(128.0 / (perThread * elementBytes), 2.0, 8.0);
  cost += c.numStages == 1
              ? 0.5
              : 0.3 * std::abs(std::log2(c.numStages / idealStages));
  cost += 0.25 * std::log2(double(c.numCTAs));
  // CTAs of fewer than 4 warps leave the SM half empty (65536 x 64 f32 on
  // one warp: 0.91 x torch alone in its CTA, 0.97 with 4 per CTA).
  cost +=
      0.15 * std::max(0.0, std::log2(4.0 / (c.numWarps * c.programsPerCTA)));
  bool persistent = c.gridParam(kRowsPerProgram) == 0;
  cost += persistent == (c.numCTAs > 1) ? 0.01 : 0;
  return cost;
}

std::vector<TuningConfig> softmaxRankedConfigs(int64_t block, int elementBytes,
                                               const Target &target) {
  std::vector<TuningConfig> kept =
      softmaxPrune(softmaxSearchSpace(), block, elementBytes, target);
  std::stable_sort(kept.begin(), kept.end(),
                   [&](const TuningConfig &a, const TuningConfig &b) {
                     return softmaxEstimate(a, block, elementBytes) <
                            softmaxEstimate(b, block, elementBytes);
                   });
  return kept;
}

TuningBuffer rowMajorBuffer(std::string name, int pointer, int rowStride,
                            RowArgPositions where) {
  return {std::move(name), [=](llvm::ArrayRef<Arg> args) -> int64_t {
            int64_t rows = integerArgAt(args, where.rows, 0);
            int64_t cols = integerArgAt(args, where.cols, 0);
            if (rows <= 0 || cols <= 0 || args.size() <= size_t(pointer))
              return 0;
            int64_t elements =
                (rows - 1) * integerArgAt(args, rowStride, cols) + cols;
            return elements * int64_t(dtypeBytes(args[pointer].dtype));
          }};
}

TuningBuffer outputOverInput(std::string name, int output, int outputStride,
                             int input, int inputStride,
                             RowArgPositions where) {
  TuningBuffer out = rowMajorBuffer(name, output, outputStride, where);
  TuningBuffer in = rowMajorBuffer("", input, inputStride, where);
  return {std::move(name), [=](llvm::ArrayRef<Arg> args) -> int64_t {
            int64_t outBytes = out.bytes(args), inBytes = in.bytes(args);
            if (outBytes <= 0)
              return int64_t(0);
            // (Not two pointers: the caller reports the arguments.)
            if (args.size() <= size_t(std::max(output, input)) ||
                args[output].kind != Arg::Kind::Pointer ||
                args[input].kind != Arg::Kind::Pointer || inBytes <= 0)
              return outBytes;
            auto start = [&](int i) { return uintptr_t(args[i].pointer); };
            bool apart = start(output) + uint64_t(outBytes) <= start(input) ||
                         start(input) + uint64_t(inBytes) <= start(output);
            return apart ? 0 : outBytes;
          }};
}

std::vector<TuningConfig> blockSteps(
    const TuningConfig &c, bool stepBlockM,
    llvm::function_ref<std::optional<TuningConfig>(int, int64_t, int64_t)>
        next) {
  int64_t blockM = c.constexprValue("BLOCK_M", 1);
  int64_t blockN = c.constexprValue("BLOCK_N", 1);
  std::vector<TuningConfig> near;
  auto add = [&](int warps, int64_t m, int64_t n) {
    if (std::optional<TuningConfig> step = next(warps, m, n))
      near.push_back(std::move(*step));
  };
  if (stepBlockM) {
    add(c.numWarps, blockM / 2, blockN);
    add(c.numWarps, blockM * 2, blockN);
  }
  add(c.numWarps, blockM, blockN / 2);
  add(c.numWarps, blockM, blockN * 2);
  add(c.numWarps / 2, blockM, blockN);
  add(c.numWarps * 2, blockM, blockN);
  return near;
}

std::vector<TuningConfig> rowsPerProgramRefined(const TuningConfig &c) {
  std::vector<TuningConfig> near;
  int64_t rows = c.gridParam(kRowsPerProgram);
  if (rows < kMinRowsPerProgram) // a persistent grid, or one row a program
    return near;
  for (int64_t next : {rows / 2, rows * 2})
    if (next >= kMinRowsPerProgram && next <= kMaxRowsPerProgram)
      near.push_back(c.withGridParam(kRowsPerProgram, next));
  return near;
}

std::vector<TuningConfig> evictionRefined(const TuningConfig &c,
                                          const Target &target) {
  std::vector<TuningConfig> near;
  if (target.kind != TargetKind::CUDA ||
      !hasEvictionPriorities(target.smArch) || c.numCTAs > 1 ||
      c.loadEviction != DefaultEviction::Normal ||
      c.storeEviction != DefaultEviction::Normal)
    return near;
  near.push_back(
      c.withEviction(DefaultEviction::Last, DefaultEviction::Normal));
  return near;
}

AutotuneSpec rowTuningSpec(RowArgPositions where,
                           std::vector<TuningBuffer> restore) {
  AutotuneSpec spec;
  spec.configs = softmaxSearchSpace();
  spec.key = {{"n_cols"}, {"n_rows", kRowsKeyBucket}};
  spec.grid = [where](const TuningConfig &c, const KernelResources &resources,
                      llvm::ArrayRef<Arg> args) {
    return rowGrid(c, resources, args, where.rows);
  };
  spec.prune = [where](llvm::ArrayRef<TuningConfig> configs,
                       llvm::ArrayRef<Arg> args, const Target &target) {
    return softmaxPrune(configs, blockOf(args, where.block),
                        elementBytesOf(args, where.input), target);
  };
  spec.estimate = [where](const TuningConfig &c, llvm::ArrayRef<Arg> args,
                          const Target &) {
    return softmaxEstimate(c, blockOf(args, where.block),
                           elementBytesOf(args, where.input));
  };
  spec.topK = kSoftmaxTuningTopK;
  // Every num_warps x num_stages pair of one CTA is timed (Triton's space,
  // which blockjit's then contains): the model ranks elements per thread
  // well but rows in flight poorly when each program gets about one row
  // (f32 4096 x 768: it ranked 2 warps x 1 stage 17th; timed, it is the
  // fastest, 1961 GB/s vs 1877 for the model's pick).
  // Likewise every cluster size x num_warps pair (its best-ranked stages
  // and grid): the model ranks a long row's bytes per thread, not the work
  // per element that must hide behind memory. On the H200, bf16 65536 was
  // timed at 128 elements a thread only (0.886 x copy); 64 a thread, in 8
  // CTAs of 4 warps, runs at 0.917 (docs/softmax_long_rows_h200_*.csv).
  // Grids of several rows a program are timed apart from the others: which
  // wins depends on how the programs fall on the SMs (H200, bf16 262144 on
  // 16 CTAs of 4 warps, 3 stages, 3 CTAs an SM: 3799 GB/s persistent, 4025
  // at 8 rows a cluster; f32 200000 on 16 CTAs of 8 warps, one CTA an SM:
  // 3980 persistent, 3740 at 1024 clusters (8 rows a cluster is 1343); bf16
  // layernorm 4096 x 12288 on 16 warps, 2 stages: 3180 persistent, 3403 at
  // 8 rows a program).
  spec.coverGroup = [](const TuningConfig &c) -> int64_t {
    bool severalRows = c.gridParam(kRowsPerProgram) > 1;
    return c.numCTAs == 1
               ? c.numWarps * 64 + c.numStages + (severalRows ? 32 : 0)
               : 4096 + c.numCTAs * 128 + c.numWarps * 2 + severalRows;
  };
  spec.refine = [](const TuningConfig &c, llvm::ArrayRef<Arg>,
                   const Target &target) {
    std::vector<TuningConfig> near = rowsPerProgramRefined(c);
    for (TuningConfig &hinted : evictionRefined(c, target))
      near.push_back(std::move(hinted));
    return near;
  };
  spec.restore = std::move(restore);
  return spec;
}

/// The output buffer's rows, which tuning runs overwrite: in place (output
/// = input), each timed run would apply softmax to the last one's result.
static TuningBuffer softmaxOutput() {
  return outputOverInput("output_ptr", 0, /*outputStride=*/3, /*input=*/1,
                         /*inputStride=*/2, kSoftmaxArgs);
}

Autotuner &softmaxTuner() {
  static Autotuner tuner(softmax(),
                         rowTuningSpec(kSoftmaxArgs, {softmaxOutput()}));
  return tuner;
}

Autotuner &softmaxOnlineTuner() {
  static Autotuner tuner(softmaxOnline(), [] {
    AutotuneSpec spec;
    for (int64_t chunk : {1024, 2048, 4096, 8192})
      for (int warps : {4, 8, 16})
        spec.configs.push_back({warps, 1, 1, {{"BLOCK_SIZE", chunk}}});
    spec.key = {{"n_cols", KeyBucket::PowerOfTwo},
                {"n_rows", KeyBucket::PowerOfTwo}};
    spec.grid = [](const TuningConfig &c, const KernelResources &resources,
                   llvm::ArrayRef<Arg> args) {
      return rowGrid(c, resources, args, kSoftmaxArgs.rows);
    };
    spec.restore = {softmaxOutput()};
    spec.prune = [](llvm::ArrayRef<TuningConfig> configs,
                    llvm::ArrayRef<Arg>, const Target &target) {
      std::vector<TuningConfig> kept;
      for (const TuningConfig &c : configs) {
        // The CPU ignores warps: only the chunk size matters there. On the
        // GPU each thread holds 4 to 64 elements of a chunk (in place needs
        // at least one per thread, SoftmaxOnline.cpp).
        double perThread = double(c.constexprs[0].second) / (32 * c.numWarps);
        if (target.kind == TargetKind::CPU ? c.numWarps == 4
                                           : perThread >= 4 && perThread <= 64)
          kept.push_back(c);
      }
      return kept;
    };
    // The chunk measured best on the H100: 4096 elements over 8 warps.
    spec.estimate = [](const TuningConfig &c, llvm::ArrayRef<Arg>,
                       const Target &) {
      return std::abs(std::log2(double(c.constexprs[0].second) /
                                kSoftmaxOnlineBlock)) +
             0.5 * std::abs(std::log2(double(c.numWarps) /
                                      kSoftmaxOnlineNumWarps));
    };
    return spec;
  }());
  return tuner;
}

} // namespace blockjit::examples
