//===- CasesSoftmaxColumnsSplit.cpp - softmax over dim 0, three launches -===//
//
// softmax_columns_stats, softmax_columns_combine and
// softmax_columns_normalize (examples/kernels/SoftmaxColumnsSplit.cpp),
// each checked on its own: the stats of every row block against the double
// reference's; combine, given the reference's row-block stats rounded to
// f32, against each column's; normalize, given the column stats rounded to
// f32, against the column softmax. Shapes: 1 to 32769 rows (row blocks of
// 32 rows, softmaxColumnsSplitRows', and of 100 and 999 given, which no
// chunk divides: a chunk then ends at its row block's end; a partial last
// block), 5 to 4097 columns (a partial last strip or column chunk);
// softmax's special rows
// laid out as columns (a column of -inf, a +inf, a NaN, +-1000, denormals,
// one-hot: a row block can hold only -inf while the column does not), NaN
// in the padding between rows; f32, f16, bf16 and bf16 in with f32 out;
// stats' chunks from 2 rows x 16 columns to 4 x 1024 (normalize: 1 x 64
// to 4 x 1024), one and two stages, fewer persistent programs than row
// chunks; in place.
//
// Tolerance: stats and combine abs 1e-6 + rel 1e-5 (the maxima come out
// exact; a sum of up to 1000 exps in f32); normalize softmax's, abs 1e-6
// in f32, plus one ulp of a 16-bit output.
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/Kernels.h"
#include "examples/kernels/ReferenceFamily.h"
#include "tests/differential/SoftmaxFamilyInputs.h"

namespace blockjit::difftest::family {

namespace {

/// The blocks and launch of one case.
struct SplitBlocks {
  int64_t m, n;
  int warps = 4, stages = 1;
  std::string variant;
};

int64_t rowsPerSplit(Shape s) {
  return examples::softmaxColumnsSplitRows(s.rows, s.cols);
}

/// Each row block's stats ([2, n_splits, cols]) of the input as `in`
/// holds it, or with `rows` = s.rows each column's ([2, cols]).
std::vector<double> referenceStats(DType in, const std::vector<double> &x,
                                   Shape s, int64_t rows) {
  std::vector<double> rounded(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    rounded[i] = roundTo(in, x[i]);
  std::vector<double> stats(2 * cdiv(s.rows, rows) * s.cols);
  examples::referenceSoftmaxColumnsStats(rounded.data(), stats.data(), s.rows,
                                         s.cols, s.inStride(), rows,
                                         [](double v) { return v; });
  return stats;
}

/// Row blocks of `perSplit` rows (0: softmaxColumnsSplitRows').
Case statsCase(DType in, Shape s, const SplitBlocks &b, int64_t perSplit = 0) {
  std::string variant = b.variant;
  if (perSplit)
    variant += (variant.empty() ? "rows" : "_rows") + std::to_string(perSplit);
  else
    perSplit = rowsPerSplit(s);
  Case c{caseName("softmax_columns_stats", in, DType::F32, s, variant),
         {"example:softmax_columns_stats"},
         examples::softmaxColumnsStats()};
  c.buffers = {{DType::F32, sentinel(2 * cdiv(s.rows, perSplit) * s.cols)},
               {in, specialColumns(in, s, unsigned(s.rows * 5 + s.cols))}};
  c.args = {bufArg(0),
            bufArg(1),
            i32Arg(int32_t(s.inStride())),
            i32Arg(int32_t(s.rows)),
            i32Arg(int32_t(s.cols)),
            i32Arg(int32_t(perSplit)),
            constArg(b.m),
            constArg(b.n)};
  c.grid = {int(cdiv(s.cols, b.n)), int(cdiv(s.rows, perSplit)), 1};
  c.numWarps = b.warps;
  c.numStages = b.stages;
  c.reference = [s, perSplit](Buffers &buffers) {
    examples::referenceSoftmaxColumnsStats(
        buffers[1].data(), buffers[0].data(), s.rows, s.cols, s.inStride(),
        perSplit, [](double x) { return x; });
  };
  c.tolerance = {1e-6, 1e-5, "softmax_columns_stats: abs 1e-6 + rel 1e-5"};
  return c;
}

/// Combines row blocks' stats ([2, splits, cols], f32-rounded) into each
/// column's, as softmax_columns_combine does, in double.
std::vector<double> combineStats(const std::vector<double> &stats,
                                 int64_t splits, int64_t cols) {
  std::vector<double> column(2 * cols);
  for (int64_t c = 0; c < cols; ++c) {
    std::vector<double> maxima(splits);
    for (int64_t k = 0; k < splits; ++k)
      maxima[k] = stats[k * cols + c];
    double maximum = examples::reference::maxOf(maxima), sum = 0;
    double shift = maximum == -INFINITY ? 0.0 : maximum;
    for (int64_t k = 0; k < splits; ++k)
      sum += stats[(splits + k) * cols + c] * std::exp(maxima[k] - shift);
    column[c] = maximum;
    column[cols + c] = sum;
  }
  return column;
}

/// Row blocks of `perSplit` rows (0: softmaxColumnsSplitRows'), combined
/// BLOCK_S = `blockS` at a time (0: softmaxColumnsCombineBlock's).
Case combineCase(DType in, Shape s, int64_t blockN, int warps,
                 const std::string &variant, int64_t perSplit = 0,
                 int64_t blockS = 0, int stages = 1) {
  if (!perSplit)
    perSplit = rowsPerSplit(s);
  if (!blockS)
    blockS = examples::softmaxColumnsCombineBlock(s.rows, s.cols);
  int64_t splits = cdiv(s.rows, perSplit);
  Case c{caseName("softmax_columns_combine", in, DType::F32, s, variant),
         {"example:softmax_columns_combine"},
         examples::softmaxColumnsCombine()};
  std::vector<double> x = specialColumns(in, s, unsigned(s.rows * 5 + s.cols));
  c.buffers = {{DType::F32, sentinel(2 * s.cols)},
               {DType::F32, referenceStats(in, x, s, perSplit)}};
  c.args = {bufArg(0),
            bufArg(1),
            i32Arg(int32_t(splits)),
            i32Arg(int32_t(s.cols)),
            constArg(blockS),
            constArg(blockN)};
  c.grid = {int(cdiv(s.cols, blockN)), 1, 1};
  c.numWarps = warps;
  c.numStages = stages;
  c.reference = [splits, s](Buffers &buffers) {
    buffers[0] = combineStats(buffers[1], splits, s.cols);
  };
  c.tolerance = {1e-6, 1e-5, "softmax_columns_combine: abs 1e-6 + rel 1e-5"};
  return c;
}

Case normalizeCase(DType in, DType out, Shape s, const SplitBlocks &b,
                   bool inPlace = false) {
  std::string variant = b.variant + (inPlace ? "_in_place" : "");
  Case c{caseName("softmax_columns_normalize", in, out, s, variant),
         {"example:softmax_columns_normalize"},
         examples::softmaxColumnsNormalize()};
  std::vector<double> x = specialColumns(in, s, unsigned(s.rows * 5 + s.cols));
  // In place: the output is the input's buffer (and type, and stride).
  c.buffers = {{DType::F32, referenceStats(in, x, s, s.rows)}, {in, x}};
  if (!inPlace)
    c.buffers.push_back({out, sentinel(s.rows * s.outStride())});
  int output = inPlace ? 1 : 2;
  int64_t outStride = inPlace ? s.inStride() : s.outStride();
  c.args = {bufArg(output),
            bufArg(1),
            bufArg(0),
            i32Arg(int32_t(s.inStride())),
            i32Arg(int32_t(outStride)),
            i32Arg(int32_t(s.rows)),
            i32Arg(int32_t(s.cols)),
            constArg(b.m),
            constArg(b.n)};
  // Persistent: fewer programs than chunks of rows where there are several.
  c.grid = {int(std::max<int64_t>(1, cdiv(s.rows, b.m) / 3)), 1, 1};
  c.numWarps = b.warps;
  c.numStages = b.stages;
  c.reference = [s, output, outStride](Buffers &buffers) {
    std::vector<double> result(buffers[output].size());
    examples::referenceSoftmaxColumns(buffers[1].data(), result.data(), s.rows,
                                      s.cols, s.inStride(), outStride,
                                      [](double v) { return v; });
    writeRows(buffers[output], result, s, outStride);
  };
  c.tolerance = outputTolerance(inPlace ? in : out, 1e-6, 0,
                                "softmax_columns f32: abs 1e-6 (+1 ulp)");
  return c;
}

} // namespace

void addColumnSplitCases(std::vector<Case> &cases) {
  const Shape shapes[] = {{1, 17},   {17, 781},   {781, 33},  {4097, 5},
                          {9, 4097}, {1823, 781}, {32769, 20}};
  // stats': chunks of BLOCK_M rows of BLOCK_N columns.
  const SplitBlocks blocks[] = {{4, 1024, 4, 1, ""},
                                {2, 16, 1, 1, "bm2_bn16_w1"},
                                {8, 256, 8, 2, "bm8_bn256_s2"}};
  // normalize's: whole rows of up to 1024 columns, or columns in chunks.
  const SplitBlocks rowBlocks[] = {{4, 1024, 4, 1, ""},
                                   {1, 64, 1, 1, "bm1_bn64_w1"},
                                   {8, 256, 8, 2, "bm8_bn256_s2"}};
  for (Shape s : shapes) {
    for (const SplitBlocks &b : blocks) {
      // The widest blocks once, on the irregular shape.
      if (!b.variant.empty() && !(s.rows == 1823 && s.cols == 781) && b.m != 2)
        continue;
      for (DType t : {DType::F32, DType::F16, DType::BF16})
        cases.push_back(statsCase(t, s, b));
      if (b.variant.empty())
        for (DType t : {DType::F32, DType::BF16})
          cases.push_back(combineCase(t, s, 64, 4, ""));
    }
    for (const SplitBlocks &b : rowBlocks) {
      if (!b.variant.empty() && !(s.rows == 1823 && s.cols == 781) && b.m != 1)
        continue;
      for (auto [in, out] : dtypePairs())
        cases.push_back(normalizeCase(in, out, s, b));
    }
  }
  // Row blocks that chunks of 8 rows do not divide (a chunk stops at its
  // block's end, not at n_rows), and their stats combined 4 at a time.
  for (DType t : {DType::F32, DType::BF16}) {
    cases.push_back(statsCase(t, {1823, 781}, blocks[2], 100));
    cases.push_back(statsCase(t, {32769, 20}, blocks[2], 999));
  }
  cases.push_back(
      combineCase(DType::F32, {1823, 781}, 64, 4, "rows100_bs4", 100, 4));
  // Narrow strips on one warp; 128 columns a program.
  cases.push_back(combineCase(DType::F32, {1823, 781}, 16, 1, "bn16_w1"));
  cases.push_back(combineCase(DType::F32, {32769, 20}, 128, 4, "bn128"));
  // The tuner's picks on the H200 for many row blocks: 512 at a time on 8
  // columns and 8 warps, the next block loading (32769 rows: 1025 blocks of
  // 32, two and a bit blocks of 512; 1823 rows: 57 blocks, one masked
  // block of 512).
  for (Shape s : {Shape{32769, 20}, Shape{1823, 781}})
    cases.push_back(combineCase(DType::F32, s, 8, 8, "bs512_bn8_w8_s2",
                                /*perSplit=*/32, /*blockS=*/512,
                                /*stages=*/2));
  // Strips of 2048 columns (the tuner's pick at 4096 and 12288 columns):
  // 4097 columns end in a strip of one column.
  for (DType t : {DType::F32, DType::BF16})
    cases.push_back(statsCase(t, {9, 4097}, {4, 2048, 8, 1, "bm4_bn2048_w8"}));
  // In place, as softmax_columns may be called.
  cases.push_back(normalizeCase(DType::F32, DType::F32, {1823, 781},
                                rowBlocks[0], /*inPlace=*/true));
  cases.push_back(normalizeCase(DType::BF16, DType::BF16, {1823, 781},
                                rowBlocks[0], /*inPlace=*/true));
}

} // namespace blockjit::difftest::family
