//===- SoftmaxColumnsTuning.cpp - softmax_columns' blocks and tuner ------===//
//
// softmax_columns holds whole columns (BLOCK_M = next_power_of_2(n_rows));
// what is left to choose is the strip width BLOCK_N and num_warps. Wider
// strips read longer runs of each row (at least 16 bytes of f32 at
// BLOCK_N = 4), narrower ones give more programs. The default rule keeps
// the tile at kSoftmaxColumnsBlockElements; the tuner times the widths and
// warps around it.
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/Kernels.h"
#include "examples/kernels/RowTuning.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

namespace blockjit::examples {

namespace {

// Argument positions (SoftmaxColumns.cpp).
enum { kInput = 1, kRows = 4, kCols = 5, kBlockM = 6, kBlockN = 7 };

/// The widest strip worth trying; 256 f32 columns is 1 KB of each row.
constexpr int64_t kMaxBlockN = 256;

/// The default BLOCK_N for whole columns of `blockM` rows (see
/// softmaxColumnsBlocks); 0 when a column alone exceeds kSoftmaxMaxBlock.
int64_t defaultBlockN(int64_t blockM, int64_t cols) {
  if (blockM > kSoftmaxMaxBlock)
    return 0;
  int64_t n =
      std::min(next_power_of_2(std::max<int64_t>(cols, 1)),
               std::max<int64_t>(4, kSoftmaxColumnsBlockElements / blockM));
  while (n > 1 && blockM * n > kSoftmaxMaxBlock)
    n /= 2;
  return n;
}

int64_t blockNOf(const TuningConfig &c) { return c.constexprs[0].second; }

/// Grid: a persistent one over the strips.
Grid stripGrid(const TuningConfig &, const KernelResources &resources,
               llvm::ArrayRef<Arg> args) {
  int64_t cols = integerArgAt(args, kCols, 1);
  int64_t strips =
      cdiv(cols, std::max<int64_t>(1, integerArgAt(args, kBlockN, 1)));
  return {persistentGrid(resources, std::max<int64_t>(strips, 1))};
}

std::vector<TuningConfig> prune(llvm::ArrayRef<TuningConfig> configs,
                                llvm::ArrayRef<Arg> args,
                                const Target &target) {
  int64_t blockM = integerArgAt(args, kBlockM, 1);
  int64_t cols = integerArgAt(args, kCols, 1);
  int64_t fallback = defaultBlockN(blockM, cols);
  std::vector<TuningConfig> kept;
  // Columns too long for one block: nothing can run (the example says why
  // before it gets here, softmaxColumnsBlocks).
  if (fallback == 0)
    return kept;
  for (const TuningConfig &c : configs) {
    int64_t blockN = blockNOf(c);
    // The CPU ignores warps: the default width only.
    if (target.kind == TargetKind::CPU) {
      if (blockN == fallback && c.numWarps == 4)
        kept.push_back(c);
      continue;
    }
    if (blockN > next_power_of_2(cols) || blockM * blockN > kSoftmaxMaxBlock)
      continue;
    // 1 to 128 elements per thread, as softmax (one warp for tiny tiles).
    double perThread = double(blockM * blockN) / (32.0 * c.numWarps);
    if ((perThread < 1 && c.numWarps != 1) || perThread > 128)
      continue;
    kept.push_back(c);
  }
  if (kept.empty())
    kept.push_back({32, 1, 1, {{"BLOCK_N", fallback}}});
  return kept;
}

/// Smaller is better: about 128 bytes per thread, rows read in runs of at
/// least 32 bytes (a sector), and enough strips for a large GPU's SMs.
double estimate(const TuningConfig &c, llvm::ArrayRef<Arg> args,
                const Target &) {
  int64_t blockM = integerArgAt(args, kBlockM, 1);
  int64_t cols = integerArgAt(args, kCols, 1);
  double bytes =
      args.size() > kInput ? double(dtypeBytes(args[kInput].dtype)) : 4.0;
  double blockN = double(blockNOf(c));
  double perThread = double(blockM) * blockN / (32.0 * c.numWarps);
  double cost = std::abs(std::log2(perThread * bytes / 128.0));
  cost += blockN * bytes < 32 ? std::log2(32 / (blockN * bytes)) : 0;
  double strips = std::ceil(double(cols) / blockN);
  cost += strips < 132 ? 0.5 * std::log2(132 / strips) : 0;
  return cost;
}

} // namespace

llvm::Expected<ColumnBlocks> softmaxColumnsBlocks(int64_t rows, int64_t cols) {
  if (rows < 1 || cols < 1)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("softmax_columns: {0} x {1} has no elements", rows, cols)
            .str());
  int64_t blockM = next_power_of_2(rows);
  int64_t blockN = defaultBlockN(blockM, cols);
  if (blockN == 0)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("softmax_columns: a column of {0} rows does not fit "
                      "one block (BLOCK_M = next_power_of_2(n_rows) = {1}; "
                      "at most {2} elements)",
                      rows, blockM, kSoftmaxMaxBlock)
            .str());
  return ColumnBlocks{blockM, blockN};
}

Autotuner &softmaxColumnsTuner() {
  static Autotuner tuner(softmaxColumns(), [] {
    AutotuneSpec spec;
    for (int64_t blockN = 1; blockN <= kMaxBlockN; blockN *= 2)
      for (int warps : {1, 2, 4, 8, 16, 32})
        spec.configs.push_back({warps, 1, 1, {{"BLOCK_N", blockN}}});
    spec.key = {{"n_rows", KeyBucket::PowerOfTwo},
                {"n_cols", KeyBucket::PowerOfTwo}};
    spec.grid = stripGrid;
    spec.prune = prune;
    spec.estimate = estimate;
    spec.topK = 12;
    // In place (output_ptr == input_ptr) must survive the timed runs.
    spec.restore = {rowMajorBuffer("output_ptr", 0, /*rowStride=*/3,
                                   {kInput, kRows, kCols, kBlockM})};
    return spec;
  }());
  return tuner;
}

} // namespace blockjit::examples
