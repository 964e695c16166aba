//===- SoftmaxColumnsTuning.cpp - softmax_columns' blocks and tuner ------===//
//
// softmax_columns reads strips of BLOCK_N columns, either whole
// (WHOLE_COLUMN = 1, BLOCK_M = next_power_of_2(rows): read once) or in
// chunks of BLOCK_M rows (read twice); the blocks are free, with num_warps,
// num_stages (the next chunk loading while one is combined) and num_ctas.
// Wide strips read whole 128-byte lines of each row (32 f32); the block,
// the warps and the CTAs set how many elements each thread holds. A matrix
// has only N / BLOCK_N strips (25 for 781 f32 columns in lines), too few
// programs for 132 SMs, so on sm_90 a strip runs on a cluster whose CTAs
// split its rows (the column maximum and sum cross the cluster once per
// strip; docs/LAYOUTS.md): 16 CTAs give 400 CTAs for those 25 strips, and
// a cluster of 16 holds a 32768-row strip of 16 f32 columns (2 MB) on
// chip, where chunks would read it twice. The default rule takes 32
// columns and up to 64 rows over 4 warps; the tuner times the shapes
// around it.
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/Kernels.h"
#include "examples/kernels/RowTuning.h"

#include "compiler/gpu/Layout.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace blockjit::examples {

namespace {

// Argument positions (SoftmaxColumns.cpp).
enum { kInput = 1, kRows = 4, kCols = 5, kBlockM = 6, kBlockN = 7 };

/// The strip widths and block heights tried (tall blocks for clusters and
/// whole columns).
constexpr int64_t kBlockNs[] = {8, 16, 32, 64, 128};
constexpr int64_t kBlockMs[] = {8,    16,   32,   64,   128,  256,
                                512,  1024, 2048, 4096, 8192, 16384,
                                32768};
/// Chunks taller than this are not in the space: a column that long is
/// better read whole. Nor are deeper pipelines of chunks (three chunks live
/// already: the running max and sum and the chunk).
constexpr int64_t kMaxChunkRows = 4096;
constexpr int kMaxChunkStages = 2;
/// A strip's column maxima and sums cross the cluster as one slot per
/// column and CTA, in each of the buffer's two halves: the compiler keeps
/// such a kernel on a cluster while that fits kMaxClusterAllReduceBytes,
/// else runs it in one CTA.
constexpr int64_t kMaxColumnsTimesCTAs =
    kMaxClusterAllReduceBytes / (2 * kClusterSlotBytes);
/// Elements of a whole-column block per thread: up to a register-file's
/// share (beyond, the compiler keeps the block in shared memory).
constexpr double kMaxWholeColumnPerThread = 128;
/// The largest whole-column block the CPU takes (4 MB of f32).
constexpr int64_t kMaxCPUWholeColumnElements = int64_t(1) << 20;
/// Configs of each cluster size and pipelining depth timed (the best by the
/// estimate), in chunks and in whole columns.
constexpr int kTimedPerChunkGroup = 4;
constexpr int kTimedPerWholeGroup = 3;
/// CTAs of a large GPU that keep it busy: two per SM of an H100.
constexpr double kBusyCTAs = 264;

ColumnBlocks defaultBlocks(int64_t rows, int64_t cols) {
  int64_t blockM =
      std::min<int64_t>(next_power_of_2(std::max<int64_t>(rows, 1)), 64);
  return {blockM,
          std::min<int64_t>(next_power_of_2(std::max<int64_t>(cols, 1)), 32),
          blockM >= rows};
}

/// The CPU's blocks: the whole column where the block stays within
/// kMaxCPUWholeColumnElements (one read of the strip, its reductions
/// vectorized row by row: 1823 x 781 f32 1.7 x, 32768 x 128 1.7 x the
/// chunks on a Zen 5), else the default chunks.
ColumnBlocks cpuBlocks(int64_t rows, int64_t cols) {
  ColumnBlocks blocks = defaultBlocks(rows, cols);
  int64_t whole = next_power_of_2(std::max<int64_t>(rows, 1));
  if (whole * blocks.n <= kMaxCPUWholeColumnElements)
    blocks = {whole, blocks.n, true};
  return blocks;
}

TuningConfig columnConfig(int warps, int stages, int ctas, int64_t blockM,
                          int64_t blockN, bool wholeColumn) {
  return {warps,
          stages,
          ctas,
          {{"BLOCK_M", blockM},
           {"BLOCK_N", blockN},
           {"WHOLE_COLUMN", wholeColumn ? 1 : 0}}};
}

/// Grid: a persistent one over the strips.
Grid stripGrid(const TuningConfig &, const KernelResources &resources,
               llvm::ArrayRef<Arg> args) {
  int64_t cols = integerArgAt(args, kCols, 1);
  int64_t strips =
      cdiv(cols, std::max<int64_t>(1, integerArgAt(args, kBlockN, 1)));
  return {persistentGrid(resources, std::max<int64_t>(strips, 1))};
}

/// Smaller is better: 16 elements per thread in chunks (32 in a whole
/// column, which holds nothing else), rows read in runs of 128 bytes (a
/// line), two CTAs per SM of a large GPU (weighed more; a cluster
/// multiplies a strip's CTAs), a chunked strip that L2 still holds when
/// pass 2 re-reads it.
double estimate(const TuningConfig &c, llvm::ArrayRef<Arg> args,
                const Target &) {
  int64_t rows = integerArgAt(args, kRows, 1);
  int64_t cols = integerArgAt(args, kCols, 1);
  double bytes =
      args.size() > kInput ? double(dtypeBytes(args[kInput].dtype)) : 4.0;
  double blockM = double(c.constexprValue("BLOCK_M", 1));
  double blockN = double(c.constexprValue("BLOCK_N", 1));
  bool whole = c.constexprValue("WHOLE_COLUMN", 1) != 0;
  double perThread = blockM * blockN / (32.0 * c.numWarps * c.numCTAs);
  double cost = std::abs(std::log2(perThread / (whole ? 32.0 : 16.0)));
  // Narrow strips read part of each line, but few strips idle SMs: with
  // 781 columns, 32-wide strips make 25 programs for 132 SMs.
  cost += blockN * bytes < 128 ? 0.5 * std::log2(128 / (blockN * bytes)) : 0;
  double strips = std::ceil(double(cols) / blockN);
  double ctas = strips * c.numCTAs;
  cost += ctas < kBusyCTAs ? std::log2(kBusyCTAs / ctas) : 0;
  // The chunked strips in flight (one per cluster of resident CTAs) are read
  // twice; beyond about half of an H100's 50 MB L2 the second read goes to
  // DRAM: three trips over the matrix instead of two.
  double inFlight = std::min(strips, kBusyCTAs / c.numCTAs);
  double footprint = inFlight * double(rows) * blockN * bytes;
  if (!whole)
    cost += footprint > 24e6 ? std::log2(1.5) : 0;
  // Each CTA of a cluster waits at the exchanges of every strip.
  cost += 0.25 * std::log2(double(c.numCTAs));
  // The next chunk loading while this one is combined pays where a strip
  // takes several chunks; it holds a second chunk per thread.
  double chunks = std::ceil(double(rows) / blockM);
  if (c.numStages > 1 && !whole)
    cost += chunks >= 4 ? -0.25 : 0.25;
  return cost;
}

/// Whether `c` is worth timing for a rows x cols matrix on `target`.
bool worthTiming(const TuningConfig &c, int64_t rows, int64_t cols,
                 const Target &target) {
  int64_t blockM = c.constexprValue("BLOCK_M", 1);
  int64_t blockN = c.constexprValue("BLOCK_N", 1);
  bool whole = c.constexprValue("WHOLE_COLUMN", 1) != 0;
  // No wider than the matrix (beyond the narrowest choice). A whole column
  // is one block of the column's height; a chunk is shorter than the column
  // (else the whole column reads the same block once).
  if (blockN > next_power_of_2(cols) && blockN != kBlockNs[0])
    return false;
  if (whole ? blockM != std::max(next_power_of_2(rows), kBlockMs[0])
            : blockM >= rows)
    return false;
  double perThread = double(blockM * blockN) / (32.0 * c.numWarps * c.numCTAs);
  if (whole) {
    // 4 to 128 elements per thread; the next strips load ahead (into shared
    // memory where registers run short).
    if (perThread < 4 || perThread > kMaxWholeColumnPerThread)
      return false;
  } else if (perThread < 4 || perThread > 32 ||
             (c.numStages > 1 && perThread > 16)) {
    // 4 to 32 elements of each chunk per thread (three chunks live: the
    // running max and sum and the chunk).
    return false;
  }
  // Clusters: sm_90, a block that gives every CTA whole tiles of 16-byte
  // chunks (else it runs in one CTA), and a cluster buffer that holds the
  // strip's columns.
  if (c.numCTAs > 1 &&
      (target.smArch < 90 || blockM * blockN / c.numCTAs < 4 * 32 * c.numWarps ||
       blockN * c.numCTAs > kMaxColumnsTimesCTAs))
    return false;
  return true;
}

std::vector<TuningConfig> prune(llvm::ArrayRef<TuningConfig> configs,
                                llvm::ArrayRef<Arg> args,
                                const Target &target) {
  int64_t rows = integerArgAt(args, kRows, 1);
  int64_t cols = integerArgAt(args, kCols, 1);
  ColumnBlocks fallback = defaultBlocks(rows, cols);
  TuningConfig fallbackConfig =
      columnConfig(4, 1, 1, fallback.m, fallback.n, fallback.wholeColumn);
  // The CPU ignores warps: its blocks only.
  if (target.kind == TargetKind::CPU) {
    ColumnBlocks cpu = cpuBlocks(rows, cols);
    return {columnConfig(4, 1, 1, cpu.m, cpu.n, cpu.wholeColumn)};
  }
  std::vector<TuningConfig> kept;
  for (const TuningConfig &c : configs)
    if (worthTiming(c, rows, cols, target))
      kept.push_back(c);
  // The best few of each cluster size, depth and pass count by the estimate
  // go on to be timed: the estimate cannot weigh a cluster's exchanges
  // against its extra CTAs, or one read of a whole column held on chip
  // against two of chunks, well enough to rank them in one list (wide
  // matrices, with strips for every SM, run best on single CTAs; narrow
  // ones on clusters of 8-16).
  std::vector<std::pair<double, TuningConfig>> ranked;
  for (TuningConfig &c : kept)
    ranked.push_back({estimate(c, args, target), std::move(c)});
  std::stable_sort(
      ranked.begin(), ranked.end(),
      [](const auto &a, const auto &b) { return a.first < b.first; });
  kept.clear();
  std::map<std::tuple<int, int, int64_t>, int> perGroup;
  for (auto &[cost, c] : ranked) {
    int64_t whole = c.constexprValue("WHOLE_COLUMN", 1);
    int &timed = perGroup[{c.numCTAs, c.numStages, whole}];
    if (++timed <= (whole ? kTimedPerWholeGroup : kTimedPerChunkGroup))
      kept.push_back(std::move(c));
  }
  if (kept.empty())
    kept.push_back(fallbackConfig);
  return kept;
}

/// The configs one step from `c` that are worth timing: its chunk height
/// (BLOCK_M, chunks only: a whole column's is the column's), its strip width
/// (BLOCK_N) and its warps halved and doubled. The first pass times a few
/// of each cluster size and depth by an estimate that ranks blocks poorly
/// (the strips in flight, their lines and their exchanges all move).
std::vector<TuningConfig>
refine(const TuningConfig &c, llvm::ArrayRef<Arg> args, const Target &target) {
  int64_t rows = integerArgAt(args, kRows, 1);
  int64_t cols = integerArgAt(args, kCols, 1);
  bool whole = c.constexprValue("WHOLE_COLUMN", 1) != 0;
  return blockSteps(
      c, /*stepBlockM=*/!whole,
      [&](int warps, int64_t m, int64_t n) -> std::optional<TuningConfig> {
        TuningConfig next =
            columnConfig(warps, c.numStages, c.numCTAs, m, n, whole);
        // Within the space's ranges (chunks no taller than kMaxChunkRows).
        if (warps >= 1 && warps <= 16 && m >= kBlockMs[0] &&
            (whole || m <= kMaxChunkRows) && n >= kBlockNs[0] &&
            n <= std::end(kBlockNs)[-1] &&
            worthTiming(next, rows, cols, target))
          return next;
        return std::nullopt;
      });
}

} // namespace

std::vector<TuningConfig> softmaxColumnsRefined(const TuningConfig &config,
                                                llvm::ArrayRef<Arg> args,
                                                const Target &target) {
  return refine(config, args, target);
}

llvm::Expected<ColumnBlocks> softmaxColumnsBlocks(int64_t rows, int64_t cols) {
  if (rows < 1 || cols < 1)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("softmax_columns: {0} x {1} has no elements", rows, cols)
            .str());
  return defaultBlocks(rows, cols);
}

Autotuner &softmaxColumnsTuner() {
  static Autotuner tuner(softmaxColumns(), [] {
    AutotuneSpec spec;
    for (int64_t blockM : kBlockMs)
      for (int64_t blockN : kBlockNs)
        for (int warps : {1, 2, 4, 8, 16})
          for (int stages : {1, 2, 3})
            for (int ctas : {1, 2, 4, 8, 16})
              for (bool whole : {false, true})
                if (whole ||
                    (blockM <= kMaxChunkRows && stages <= kMaxChunkStages))
                  spec.configs.push_back(columnConfig(warps, stages, ctas,
                                                      blockM, blockN, whole));
    spec.key = {{"n_rows", KeyBucket::PowerOfTwo},
                {"n_cols", KeyBucket::PowerOfTwo}};
    spec.grid = stripGrid;
    spec.prune = prune;
    spec.estimate = estimate;
    spec.refine = refine;
    // Cluster sizes x (chunks at two depths, whole columns at three).
    spec.topK =
        5 * (kMaxChunkStages * kTimedPerChunkGroup + 3 * kTimedPerWholeGroup);
    // In place (output_ptr == input_ptr) must survive the timed runs.
    spec.restore = {rowMajorBuffer("output_ptr", 0, /*rowStride=*/3,
                                   {kInput, kRows, kCols, kBlockM})};
    return spec;
  }());
  return tuner;
}

} // namespace blockjit::examples
