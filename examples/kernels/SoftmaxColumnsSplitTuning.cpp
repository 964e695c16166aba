//===- SoftmaxColumnsSplitTuning.cpp - the split kernels' tuners ---------===//
//
// softmax_columns_stats: chunks of BLOCK_M rows (2..8) x BLOCK_N columns
// (64..2048) x num_warps 1..16 x num_stages 1..2 (the next chunk loading
// while one is combined), one program per (strip, row block) on a 2-D
// grid; rows_per_split is the caller's (softmaxColumnsSplitRows), in the
// key with n_rows and n_cols rounded up to powers of two.
// softmax_columns_combine, up to a few MB from L2, takes BLOCK_S 16..512
// row blocks x BLOCK_N 8..128 columns over 1 to 8 warps and 1 or 2
// stages, one program per strip.
// softmax_columns_normalize: chunks of 1..32 whole rows, 64..4096 columns
// at a time, on a persistent grid.
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/FamilyRegistration.h"
#include "examples/kernels/Kernels.h"
#include "examples/kernels/RowTuning.h"

#include <algorithm>
#include <cmath>

namespace blockjit::examples {

namespace {

/// Where each kernel's arguments sit: stats' input, n_rows, n_cols and
/// rows_per_split; normalize's input, n_rows and n_cols (and BLOCK_M);
/// combine's n_cols and BLOCK_S.
enum {
  kStatsInput = 1,
  kStatsRows = 3,
  kStatsCols = 4,
  kStatsRowsPerSplit = 5
};
constexpr RowArgPositions kNormalizeArgs{1, 5, 6, 7};
enum { kCombineSplits = 2, kCombineCols = 3, kCombineBlockS = 4 };

constexpr int64_t kBlockMs[] = {2, 4, 8};
constexpr int64_t kBlockNs[] = {64, 128, 256, 512, 1024, 2048};
/// Programs that keep a large GPU busy: four per SM of an H100.
constexpr double kBusyPrograms = 528;
constexpr int kTimed = 12;

TuningConfig splitConfig(int warps, int stages, int64_t blockM,
                         int64_t blockN) {
  return {warps, stages, 1, {{"BLOCK_M", blockM}, {"BLOCK_N", blockN}}};
}

struct SplitShape {
  int64_t rows, cols, rowsPerSplit;
  double bytes;
};

/// stats' shape: its matrix, row blocks and element size.
SplitShape shapeOf(llvm::ArrayRef<Arg> args) {
  SplitShape s;
  s.rows = std::max<int64_t>(1, integerArgAt(args, kStatsRows, 1));
  s.cols = std::max<int64_t>(1, integerArgAt(args, kStatsCols, 1));
  s.rowsPerSplit =
      std::max<int64_t>(1, integerArgAt(args, kStatsRowsPerSplit, s.rows));
  s.bytes = args.size() > size_t(kStatsInput)
                ? double(dtypeBytes(args[kStatsInput].dtype))
                : 4.0;
  return s;
}

/// The CPU's (and the untuned) blocks: chunks of 4 rows of up to 1024
/// columns.
TuningConfig defaultConfig(const SplitShape &s) {
  return splitConfig(
      4, 1, std::min<int64_t>(4, next_power_of_2(s.rowsPerSplit)),
      std::clamp<int64_t>(next_power_of_2(s.cols), kBlockNs[0], 1024));
}

/// 4 to 64 elements of a chunk per thread (32 with the next chunk loading),
/// no wider than the matrix (beyond the narrowest strip) and no taller than
/// a split.
bool worthTiming(const TuningConfig &c, const SplitShape &s) {
  int64_t blockM = c.constexprValue("BLOCK_M", 1);
  int64_t blockN = c.constexprValue("BLOCK_N", 1);
  double perThread = double(blockM * blockN) / (32.0 * c.numWarps);
  if (perThread < 4 || perThread > (c.numStages > 1 ? 32 : 64))
    return false;
  if (blockN > next_power_of_2(s.cols) && blockN != kBlockNs[0])
    return false;
  return blockM <= std::max(kBlockMs[0], next_power_of_2(s.rowsPerSplit));
}

/// Smaller is better: 32 elements of a chunk a thread (the best measured on
/// the H200: 16-64), a whole row or 1024 of its columns a strip, enough
/// programs for the GPU, the next chunk loading where a split takes several
/// chunks.
double estimate(const TuningConfig &c, const SplitShape &s) {
  double blockM = double(c.constexprValue("BLOCK_M", 1));
  double blockN = double(c.constexprValue("BLOCK_N", 1));
  double perThread = blockM * blockN / (32.0 * c.numWarps);
  double cost = std::abs(std::log2(perThread / 32));
  // Chunks of 4 or 8 rows (none of 2 among the fastest measured).
  cost += blockM < 4 ? 0.5 : 0;
  double run = double(std::min<int64_t>(next_power_of_2(s.cols), 1024));
  cost += blockN < run ? std::log2(run / blockN) : 0;
  double programs = std::ceil(double(s.cols) / blockN) *
                    std::ceil(double(s.rows) / double(s.rowsPerSplit));
  cost += programs < kBusyPrograms ? std::log2(kBusyPrograms / programs) : 0;
  double chunks = std::ceil(double(s.rowsPerSplit) / blockM);
  if (c.numStages > 1)
    cost += chunks >= 4 ? -0.25 : 0.25;
  return cost;
}

AutotuneSpec statsSpec() {
  AutotuneSpec spec;
  for (int64_t blockM : kBlockMs)
    for (int64_t blockN : kBlockNs)
      for (int warps : {1, 2, 4, 8, 16})
        for (int stages : {1, 2})
          spec.configs.push_back(splitConfig(warps, stages, blockM, blockN));
  spec.key = {{"n_rows", KeyBucket::PowerOfTwo},
              {"n_cols", KeyBucket::PowerOfTwo},
              {"rows_per_split", KeyBucket::Exact}};
  spec.grid = [](const TuningConfig &c, const KernelResources &,
                 llvm::ArrayRef<Arg> args) {
    SplitShape s = shapeOf(args);
    return Grid{int(cdiv(s.cols, c.constexprValue("BLOCK_N", 1))),
                int(cdiv(s.rows, s.rowsPerSplit)), 1};
  };
  spec.prune = [](llvm::ArrayRef<TuningConfig> configs,
                  llvm::ArrayRef<Arg> args, const Target &target) {
    SplitShape s = shapeOf(args);
    // The CPU ignores warps and stages: its blocks only.
    if (target.kind == TargetKind::CPU)
      return std::vector<TuningConfig>{defaultConfig(s)};
    std::vector<TuningConfig> kept;
    for (const TuningConfig &c : configs)
      if (worthTiming(c, s))
        kept.push_back(c);
    if (kept.empty())
      kept.push_back(defaultConfig(s));
    return kept;
  };
  spec.estimate = [](const TuningConfig &c, llvm::ArrayRef<Arg> args,
                     const Target &) { return estimate(c, shapeOf(args)); };
  spec.topK = kTimed;
  // Each of the fastest one step away: BLOCK_M, BLOCK_N and num_warps
  // halved and doubled, within the space.
  spec.refine = [](const TuningConfig &c, llvm::ArrayRef<Arg> args,
                   const Target &) {
    SplitShape s = shapeOf(args);
    return blockSteps(
        c, /*stepBlockM=*/true,
        [&](int warps, int64_t m, int64_t n) -> std::optional<TuningConfig> {
          TuningConfig next = splitConfig(warps, c.numStages, m, n);
          if (warps >= 1 && warps <= 16 && m >= kBlockMs[0] &&
              m <= std::end(kBlockMs)[-1] && n >= kBlockNs[0] &&
              n <= std::end(kBlockNs)[-1] && worthTiming(next, s))
            return next;
          return std::nullopt;
        });
  };
  return spec;
}

/// The example specialization blockjit-dump compiles: the default blocks
/// of a 32768 x 1024 f32 matrix (64 rows a split, the rule's).
SpecializationKey exampleKey(const KernelDef &kernel, const ExampleConfig &c) {
  TuningConfig blocks = defaultConfig({32768, 1024, 64, 4});
  return familyExampleKey(kernel, c,
                          {blocks.constexprValue("BLOCK_M", 64),
                           blocks.constexprValue("BLOCK_N", 64)});
}

/// normalize: chunks of BLOCK_M whole rows (1..32 rows x 64..4096 columns,
/// 4 to 32 elements a thread, 16 with the next chunk loading), on a
/// persistent grid or with grid:ROWS=BLOCK_M (rows a program, as the row
/// kernels' grid parameter counts them) one program a chunk, which the
/// hardware balances (f32 32768 x 781: 56 against 62 us); the CPU takes 4
/// rows of up to 1024 columns on a persistent grid.
AutotuneSpec normalizeSpec() {
  AutotuneSpec spec;
  for (int64_t blockM : {1, 2, 4, 8, 16, 32})
    for (int64_t blockN : {64, 128, 256, 512, 1024, 2048, 4096})
      for (int warps : {1, 2, 4, 8, 16})
        for (int stages : {1, 2})
          for (int64_t rowsPerProgram : {int64_t(0), blockM})
            spec.configs.push_back({warps,
                                    stages,
                                    1,
                                    {{"BLOCK_M", blockM}, {"BLOCK_N", blockN}},
                                    {{kRowsPerProgram, rowsPerProgram}}});
  spec.key = {{"n_rows", KeyBucket::PowerOfTwo},
              {"n_cols", KeyBucket::PowerOfTwo}};
  // A persistent program's work item is a chunk of BLOCK_M rows.
  spec.grid = [](const TuningConfig &c, const KernelResources &resources,
                 llvm::ArrayRef<Arg> args) {
    return rowGrid(c, resources, args, kNormalizeArgs.rows,
                   c.constexprValue("BLOCK_M", 1));
  };
  auto shape = [](llvm::ArrayRef<Arg> args) {
    return SplitShape{
        std::max<int64_t>(1, integerArgAt(args, kNormalizeArgs.rows, 1)),
        std::max<int64_t>(1, integerArgAt(args, kNormalizeArgs.cols, 1)), 1,
        args.size() > size_t(kNormalizeArgs.input)
            ? double(dtypeBytes(args[kNormalizeArgs.input].dtype))
            : 4.0};
  };
  spec.prune = [shape](llvm::ArrayRef<TuningConfig> configs,
                       llvm::ArrayRef<Arg> args, const Target &target) {
    SplitShape s = shape(args);
    int64_t width = next_power_of_2(s.cols);
    std::vector<TuningConfig> kept;
    for (const TuningConfig &c : configs) {
      int64_t blockM = c.constexprValue("BLOCK_M", 1);
      int64_t blockN = c.constexprValue("BLOCK_N", 1);
      double perThread = double(blockM * blockN) / (32.0 * c.numWarps);
      bool worth = perThread >= 4 && perThread <= (c.numStages > 1 ? 16 : 32) &&
                   (blockN <= width || blockN == 64) &&
                   blockM <= next_power_of_2(s.rows);
      if (target.kind == TargetKind::CPU
              ? blockM == 4 && blockN == std::clamp<int64_t>(width, 64, 1024) &&
                    c.numWarps == 4 && c.numStages == 1 &&
                    c.gridParam(kRowsPerProgram) == 0
              : worth)
        kept.push_back(c);
    }
    if (kept.empty())
      kept.push_back(configs.front());
    return kept;
  };
  // Smaller is better: 16 elements a thread, a row in one chunk (or 4 KB of
  // it), the next chunk loading.
  spec.estimate = [shape](const TuningConfig &c, llvm::ArrayRef<Arg> args,
                          const Target &) {
    SplitShape s = shape(args);
    double blockM = double(c.constexprValue("BLOCK_M", 1));
    double blockN = double(c.constexprValue("BLOCK_N", 1));
    double perThread = blockM * blockN / (32.0 * c.numWarps);
    double widest =
        std::min<double>(double(next_power_of_2(s.cols)), 4096 / s.bytes);
    return std::abs(std::log2(perThread / 16)) +
           std::abs(std::log2(blockN / widest)) + (c.numStages > 1 ? -0.25 : 0);
  };
  // Each block config twice (its two grids, estimated alike).
  spec.topK = 2 * kTimed;
  spec.restore = {
      rowMajorBuffer("output_ptr", 0, /*rowStride=*/4, kNormalizeArgs)};
  return spec;
}

/// combine: BLOCK_S row blocks (16..512) x BLOCK_N columns (8..128) at a
/// time over 1..8 warps, 1 or 2 stages, one program per strip, 2 to 32
/// elements of a block a thread; the CPU takes the caller's BLOCK_S
/// (softmaxColumnsCombineBlock) and 64 columns. Many row blocks want them
/// all at once on narrow strips and many warps (H200, 781 columns, 512
/// blocks: 6.9 us for 512 x 8 on 8 warps, 14 for 64 x 16 on 4).
AutotuneSpec combineSpec() {
  AutotuneSpec spec;
  for (int64_t blockS : {16, 32, 64, 128, 256, 512})
    for (int64_t blockN : {8, 16, 32, 64, 128})
      for (int warps : {1, 2, 4, 8})
        for (int stages : {1, 2})
          spec.configs.push_back(
              {warps, stages, 1, {{"BLOCK_S", blockS}, {"BLOCK_N", blockN}}});
  spec.key = {{"n_splits", KeyBucket::Exact},
              {"n_cols", KeyBucket::PowerOfTwo}};
  spec.grid = [](const TuningConfig &c, const KernelResources &,
                 llvm::ArrayRef<Arg> args) {
    return Grid{
        int(cdiv(std::max<int64_t>(1, integerArgAt(args, kCombineCols, 1)),
                 c.constexprValue("BLOCK_N", 1))),
        1, 1};
  };
  auto splitsOf = [](llvm::ArrayRef<Arg> args) {
    return std::max<int64_t>(1, integerArgAt(args, kCombineSplits, 1));
  };
  spec.prune = [splitsOf](llvm::ArrayRef<TuningConfig> configs,
                          llvm::ArrayRef<Arg> args, const Target &target) {
    int64_t cols = std::max<int64_t>(1, integerArgAt(args, kCombineCols, 1));
    int64_t callerBlockS =
        args.size() > size_t(kCombineBlockS) ? args[kCombineBlockS].i64 : 1;
    int64_t allSplits = next_power_of_2(splitsOf(args));
    std::vector<TuningConfig> kept;
    for (const TuningConfig &c : configs) {
      int64_t blockS = c.constexprValue("BLOCK_S", 1);
      int64_t blockN = c.constexprValue("BLOCK_N", 1);
      double perThread = double(blockS * blockN) / (32.0 * c.numWarps);
      bool fits = blockN <= std::max<int64_t>(16, next_power_of_2(cols)) &&
                  blockS <= std::max<int64_t>(16, allSplits) &&
                  perThread >= 2 && perThread <= 32;
      if (target.kind == TargetKind::CPU
              ? blockS == std::clamp<int64_t>(next_power_of_2(callerBlockS), 16,
                                              512) &&
                    blockN == 64 && c.numWarps == 4 && c.numStages == 1
              : fits)
        kept.push_back(c);
    }
    if (kept.empty())
      kept.push_back(configs.front());
    return kept;
  };
  // Smaller is better: 8 elements of a block a thread, every row block at
  // once (up to 512), the next block loading where there are several.
  spec.estimate = [splitsOf](const TuningConfig &c, llvm::ArrayRef<Arg> args,
                             const Target &) {
    double blockS = double(c.constexprValue("BLOCK_S", 1));
    double perThread =
        blockS * double(c.constexprValue("BLOCK_N", 1)) / (32.0 * c.numWarps);
    double all =
        double(std::min<int64_t>(512, next_power_of_2(splitsOf(args))));
    double cost = std::abs(std::log2(perThread / 8));
    cost += blockS < all ? 0.5 * std::log2(all / blockS) : 0;
    return cost + (c.numStages > 1 ? (blockS < all ? -0.25 : 0.25) : 0);
  };
  spec.topK = 16;
  return spec;
}

} // namespace

Autotuner &softmaxColumnsStatsTuner() {
  static Autotuner tuner(softmaxColumnsStats(), statsSpec());
  return tuner;
}

Autotuner &softmaxColumnsCombineTuner() {
  static Autotuner tuner(softmaxColumnsCombine(), combineSpec());
  return tuner;
}

Autotuner &softmaxColumnsNormalizeTuner() {
  // In place (output_ptr == input_ptr) must survive the timed runs.
  static Autotuner tuner(softmaxColumnsNormalize(), normalizeSpec());
  return tuner;
}

static KernelRegistration statsRegistration({
    "softmax_columns_stats",
    "softmax over dim 0, launch 1 of 3: per row block, each column's max and "
    "sum of exp",
    softmaxColumnsStats(),
    [](const ExampleConfig &c) {
      return exampleKey(*softmaxColumnsStats(), c);
    },
    softmaxColumnsStatsTuner,
});

static KernelRegistration combineRegistration({
    "softmax_columns_combine",
    "softmax over dim 0, launch 2 of 3: the row blocks' statistics combined "
    "per column",
    softmaxColumnsCombine(),
    [](const ExampleConfig &c) {
      return familyExampleKey(*softmaxColumnsCombine(), c,
                              {softmaxColumnsCombineBlock(32768, 1024), 64});
    },
    softmaxColumnsCombineTuner,
});

static KernelRegistration normalizeRegistration({
    "softmax_columns_normalize",
    "softmax over dim 0, launch 3 of 3: exp(x - max) / sum per row block",
    softmaxColumnsNormalize(),
    [](const ExampleConfig &c) {
      return familyExampleKey(*softmaxColumnsNormalize(), c, {4, 1024});
    },
    softmaxColumnsNormalizeTuner,
});

} // namespace blockjit::examples
