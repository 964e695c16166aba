//===- CasesSoftmaxColumns.cpp - softmax over dim 0 ----------------------===//
//
// softmax_columns (examples/kernels/SoftmaxColumns.cpp) holds whole columns
// in [BLOCK_M, BLOCK_N] blocks read once, or reads them twice in chunks of
// rows. Its cases: M = 1, 17, 781, 4097, 1823 and 32769 rows (BLOCK_M 1 to
// 65536), N from 5 to 4097 columns, the default BLOCK_N
// (examples::softmaxColumnsBlocks) and widths that leave a partial last
// strip (N = 33 over 8, 1-column strips), fewer programs than strips;
// softmax's special rows laid out as columns (a column of -inf, a +inf, a
// NaN, +-1000, denormals, one-hot), NaN in the padding between rows, f32,
// f16, bf16 and bf16 in with f32 out; strips split over clusters of 2, 4
// and 16 CTAs (whole columns and chunks; the reductions cross the cluster).
//
// Tolerance: softmax's, abs 1e-6 in f32, plus one ulp of a 16-bit output.
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/Kernels.h"
#include "examples/kernels/ReferenceFamily.h"
#include "tests/differential/SoftmaxFamilyInputs.h"

namespace blockjit::difftest::family {

namespace {

/// blockM 0: the whole column in one block (BLOCK_M = next_power_of_2(rows),
/// WHOLE_COLUMN = 1); else chunks of blockM rows, read twice (WHOLE_COLUMN =
/// 0, also where one chunk holds the column).
Case columnCase(DType in, DType out, Shape s, int64_t blockN,
                const std::string &variant, int64_t blockM = 0) {
  Case c{caseName("softmax_columns", in, out, s, variant),
         {"example:softmax_columns"},
         examples::softmaxColumns()};
  c.buffers = {{in, specialColumns(in, s, unsigned(s.rows * 7 + s.cols))},
               {out, sentinel(s.rows * s.outStride())}};
  bool wholeColumn = blockM == 0;
  if (wholeColumn)
    blockM = next_power_of_2(s.rows);
  c.args = {bufArg(1),
            bufArg(0),
            i32Arg(int32_t(s.inStride())),
            i32Arg(int32_t(s.outStride())),
            i32Arg(int32_t(s.rows)),
            i32Arg(int32_t(s.cols)),
            constArg(blockM),
            constArg(blockN),
            constArg(wholeColumn ? 1 : 0)};
  // Fewer programs than strips where there are several.
  c.grid = {int(std::max<int64_t>(1, cdiv(s.cols, blockN) / 2))};
  // About 32 elements per thread, 1 to 32 warps.
  c.numWarps = int(std::clamp<int64_t>(blockM * blockN / (32 * 32), 1, 32));
  c.reference = [s](Buffers &b) {
    std::vector<double> result(b[1].size());
    examples::referenceSoftmaxColumns(b[0].data(), result.data(), s.rows,
                                      s.cols, s.inStride(), s.outStride(),
                                      [](double x) { return x; });
    writeRows(b[1], result, s, s.outStride());
  };
  c.tolerance =
      outputTolerance(out, 1e-6, 0, "softmax_columns f32: abs 1e-6 (+1 ulp)");
  return c;
}

} // namespace

void addColumnCases(std::vector<Case> &cases) {
  const Shape shapes[] = {{1, 17},   {17, 781}, {781, 33},
                          {4097, 5}, {9, 4097}, {1823, 781}};
  for (Shape s : shapes) {
    // The whole column in one block, read once (WHOLE_COLUMN = 1).
    int64_t blockN =
        llvm::expectedToOptional(examples::softmaxColumnsBlocks(s.rows, s.cols))
            .value_or(examples::ColumnBlocks{})
            .n;
    for (auto [in, out] : dtypePairs())
      cases.push_back(columnCase(in, out, s, blockN, ""));
    // Columns longer than a chunk: read in chunks of 16 rows, the running
    // max and sum carried from chunk to chunk.
    for (DType t : {DType::F32, DType::BF16})
      cases.push_back(columnCase(t, t, s, blockN, "chunk16", 16));
    // Two passes over one chunk that holds the whole column.
    cases.push_back(columnCase(DType::F32, DType::F32, s, blockN, "one_chunk",
                               next_power_of_2(s.rows)));
  }
  // Strips split down their rows over the CTAs of a cluster (the column
  // maximum and sum cross the cluster): whole columns and chunks of 256
  // rows, clusters of 2, 4 and 16; shapes too small to split run in one
  // CTA.
  for (Shape s :
       {Shape{1823, 781}, Shape{4097, 5}, Shape{781, 33}, Shape{9, 4097}}) {
    int64_t blockN =
        llvm::expectedToOptional(examples::softmaxColumnsBlocks(s.rows, s.cols))
            .value_or(examples::ColumnBlocks{})
            .n;
    for (int ctas : {2, 4, 16}) {
      std::string variant = "ctas" + std::to_string(ctas);
      cases.push_back(columnCase(DType::F32, DType::F32, s, blockN, variant));
      cases.back().numCTAs = ctas;
      cases.push_back(columnCase(DType::F32, DType::F32, s, blockN,
                                 variant + "_chunk256", 256));
      cases.back().numCTAs = ctas;
    }
    cases.push_back(columnCase(DType::BF16, DType::BF16, s, blockN, "ctas4"));
    cases.back().numCTAs = 4;
    // The next chunk prefetched while one is combined, on a cluster.
    cases.push_back(columnCase(DType::F32, DType::F32, s, blockN,
                               "ctas4_chunk256_stages2", 256));
    cases.back().numCTAs = 4;
    cases.back().numStages = 2;
  }
  // A tall column (2^15 + 1 rows, a 65536-row block, a partial last strip
  // of 4 of 8 columns) read once, split over 16 CTAs.
  for (DType t : {DType::F32, DType::BF16}) {
    cases.push_back(columnCase(t, t, {32769, 20}, 8, "ctas16_tall"));
    cases.back().numCTAs = 16;
  }
  // Wide strips on 4 warps: the rows of a chunk take one thread bit, fewer
  // than the CTAs, so each thread sends its columns to two CTAs.
  cases.push_back(columnCase(DType::F32, DType::F32, {781, 1000}, 256,
                             "bn256_chunk64_ctas4", 64));
  cases.back().numCTAs = 4;
  cases.back().numWarps = 4;
  // Partial last strips: 33 columns in strips of 8 and of 1.
  for (int64_t blockN : {8, 1})
    cases.push_back(columnCase(DType::F32, DType::F32, {781, 33}, blockN,
                               "bn" + std::to_string(blockN)));
}

} // namespace blockjit::difftest::family
