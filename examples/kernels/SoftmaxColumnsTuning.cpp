//===- SoftmaxColumnsTuning.cpp - softmax_columns' blocks and tuner ------===//
//
// softmax_columns reads strips of BLOCK_N columns in chunks of BLOCK_M rows;
// both are free, with num_warps, num_stages (the next chunk loading while
// one is combined) and num_ctas. Wide strips read whole
// 128-byte lines of each row (32 f32); the chunk, the warps and the CTAs set
// how many elements each thread holds (three blocks of them live: the
// running max and sum and the chunk). A matrix has only N / BLOCK_N strips
// (25 for 781 f32 columns in lines), too few programs for 132 SMs, so on
// sm_90 a strip runs on a cluster whose CTAs split each chunk's rows (the
// column maximum and sum cross the cluster once per strip; docs/LAYOUTS.md):
// 16 CTAs give 400 CTAs for those 25 strips. The default rule takes 32
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

namespace blockjit::examples {

namespace {

// Argument positions (SoftmaxColumns.cpp).
enum { kInput = 1, kRows = 4, kCols = 5, kBlockM = 6, kBlockN = 7 };

/// The strip widths and chunk heights tried (tall chunks for clusters).
constexpr int64_t kBlockNs[] = {8, 16, 32, 64, 128};
constexpr int64_t kBlockMs[] = {8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
/// A strip's column maxima and sums cross the cluster as one slot per
/// column and CTA, in each of the buffer's two halves: the compiler keeps
/// such a kernel on a cluster while that fits kMaxClusterAllReduceBytes,
/// else runs it in one CTA.
constexpr int64_t kMaxColumnsTimesCTAs =
    kMaxClusterAllReduceBytes / (2 * kClusterSlotBytes);
/// Configs of each cluster size and pipelining depth timed (the best by
/// the estimate).
constexpr int kTimedPerGroup = 4;
/// CTAs of a large GPU that keep it busy: two per SM of an H100.
constexpr double kBusyCTAs = 264;

ColumnBlocks defaultBlocks(int64_t rows, int64_t cols) {
  return {std::min<int64_t>(next_power_of_2(std::max<int64_t>(rows, 1)), 64),
          std::min<int64_t>(next_power_of_2(std::max<int64_t>(cols, 1)), 32)};
}

int64_t constexprOf(const TuningConfig &c, llvm::StringRef name) {
  for (const auto &[key, value] : c.constexprs)
    if (key == name)
      return value;
  return 1;
}

/// Grid: a persistent one over the strips.
Grid stripGrid(const TuningConfig &, const KernelResources &resources,
               llvm::ArrayRef<Arg> args) {
  int64_t cols = integerArgAt(args, kCols, 1);
  int64_t strips =
      cdiv(cols, std::max<int64_t>(1, integerArgAt(args, kBlockN, 1)));
  return {persistentGrid(resources, std::max<int64_t>(strips, 1))};
}

/// Smaller is better: 16 elements per thread, rows read in runs of 128
/// bytes (a line), two CTAs per SM of a large GPU (weighed more; a cluster
/// multiplies a strip's CTAs), a strip that L2 still holds when pass 2
/// re-reads it, and whole columns in one chunk where they are short.
double estimate(const TuningConfig &c, llvm::ArrayRef<Arg> args,
                const Target &) {
  int64_t rows = integerArgAt(args, kRows, 1);
  int64_t cols = integerArgAt(args, kCols, 1);
  double bytes =
      args.size() > kInput ? double(dtypeBytes(args[kInput].dtype)) : 4.0;
  double blockM = double(constexprOf(c, "BLOCK_M"));
  double blockN = double(constexprOf(c, "BLOCK_N"));
  double perThread = blockM * blockN / (32.0 * c.numWarps * c.numCTAs);
  double cost = std::abs(std::log2(perThread / 16.0));
  // Narrow strips read part of each line, but few strips idle SMs: with
  // 781 columns, 32-wide strips make 25 programs for 132 SMs.
  cost += blockN * bytes < 128 ? 0.5 * std::log2(128 / (blockN * bytes)) : 0;
  double strips = std::ceil(double(cols) / blockN);
  double ctas = strips * c.numCTAs;
  cost += ctas < kBusyCTAs ? std::log2(kBusyCTAs / ctas) : 0;
  // The strips in flight (one per cluster of resident CTAs) are read twice;
  // beyond about half of an H100's 50 MB L2 the second read goes to DRAM:
  // three trips over the matrix instead of two.
  double inFlight = std::min(strips, kBusyCTAs / c.numCTAs);
  double footprint = inFlight * double(rows) * blockN * bytes;
  cost += footprint > 24e6 ? std::log2(1.5) : 0;
  cost += blockM < double(next_power_of_2(rows)) && rows <= 256 ? 0.5 : 0;
  // Each CTA of a cluster waits at the exchanges of every strip.
  cost += 0.25 * std::log2(double(c.numCTAs));
  // The next chunk loading while this one is combined pays where a strip
  // takes several chunks; it holds a second chunk per thread.
  double chunks = std::ceil(double(rows) / blockM);
  if (c.numStages > 1)
    cost += chunks >= 4 ? -0.25 : 0.25;
  return cost;
}

std::vector<TuningConfig> prune(llvm::ArrayRef<TuningConfig> configs,
                                llvm::ArrayRef<Arg> args,
                                const Target &target) {
  int64_t rows = integerArgAt(args, kRows, 1);
  int64_t cols = integerArgAt(args, kCols, 1);
  ColumnBlocks fallback = defaultBlocks(rows, cols);
  std::vector<TuningConfig> kept;
  for (const TuningConfig &c : configs) {
    int64_t blockM = constexprOf(c, "BLOCK_M");
    int64_t blockN = constexprOf(c, "BLOCK_N");
    // The CPU ignores warps: the default blocks only.
    if (target.kind == TargetKind::CPU) {
      if (blockM == fallback.m && blockN == fallback.n && c.numWarps == 4)
        kept.push_back(c);
      continue;
    }
    // No wider than the matrix, no taller than its columns (beyond the
    // smallest choice).
    if ((blockN > next_power_of_2(cols) && blockN != kBlockNs[0]) ||
        (blockM > next_power_of_2(rows) && blockM != kBlockMs[0]))
      continue;
    // 4 to 32 elements of each block per thread.
    double perThread =
        double(blockM * blockN) / (32.0 * c.numWarps * c.numCTAs);
    if (perThread < 4 || perThread > 32 || (c.numStages > 1 && perThread > 16))
      continue;
    // Clusters: sm_90, a chunk that gives every CTA whole tiles of 16-byte
    // chunks (else it runs in one CTA), and a cluster buffer that holds the
    // strip's columns.
    if (c.numCTAs > 1 && (target.smArch < 90 ||
                          blockM * blockN / c.numCTAs < 4 * 32 * c.numWarps ||
                          blockN * c.numCTAs > kMaxColumnsTimesCTAs))
      continue;
    kept.push_back(c);
  }
  // The best few of each cluster size and depth by the estimate go on to be
  // timed: the estimate cannot weigh a cluster's exchanges against its extra
  // CTAs well enough to rank them in one list (wide matrices, with strips
  // for every SM, run best on single CTAs; narrow ones on clusters of 8-16).
  std::vector<std::pair<double, TuningConfig>> ranked;
  for (TuningConfig &c : kept)
    ranked.push_back({estimate(c, args, target), std::move(c)});
  std::stable_sort(
      ranked.begin(), ranked.end(),
      [](const auto &a, const auto &b) { return a.first < b.first; });
  kept.clear();
  std::map<std::pair<int, int>, int> perGroup;
  for (auto &[cost, c] : ranked)
    if (++perGroup[{c.numCTAs, c.numStages}] <= kTimedPerGroup)
      kept.push_back(std::move(c));
  if (kept.empty())
    kept.push_back(
        {4, 1, 1, {{"BLOCK_M", fallback.m}, {"BLOCK_N", fallback.n}}});
  return kept;
}

} // namespace

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
          for (int stages : {1, 2})
            for (int ctas : {1, 2, 4, 8, 16})
              spec.configs.push_back(
                  {warps,
                   stages,
                   ctas,
                   {{"BLOCK_M", blockM}, {"BLOCK_N", blockN}}});
    spec.key = {{"n_rows", KeyBucket::PowerOfTwo},
                {"n_cols", KeyBucket::PowerOfTwo}};
    spec.grid = stripGrid;
    spec.prune = prune;
    spec.estimate = estimate;
    spec.topK = 5 * 2 * kTimedPerGroup; // cluster sizes x depths
    // In place (output_ptr == input_ptr) must survive the timed runs.
    spec.restore = {rowMajorBuffer("output_ptr", 0, /*rowStride=*/3,
                                   {kInput, kRows, kCols, kBlockM})};
    return spec;
  }());
  return tuner;
}

} // namespace blockjit::examples
