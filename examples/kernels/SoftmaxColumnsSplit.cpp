//===- SoftmaxColumnsSplit.cpp - softmax over dim 0 in three launches ----===//
//
// softmax_columns splits a strip's rows over at most one cluster (16 CTAs),
// so a tall matrix with few strips (32768 x 781) keeps few SMs' worth of
// loads in flight. These three kernels split the rows over the whole grid
// instead, as Inductor's split reductions do, with launch boundaries as
// the grid-wide barriers:
//
//   softmax_columns_stats      program (strip, split) reads rows
//                              [split * rows_per_split, +rows_per_split) of
//                              its strip of BLOCK_N columns once, BLOCK_M
//                              rows at a time, and writes each column's
//                              maximum and sum of exp(x - max) over them
//                              (softmax_online's update, down the column) to
//                              stats: [2, n_splits, n_cols] f32.
//   softmax_columns_combine    program (strip) combines the n_splits
//                              statistics of its columns into column_stats:
//                              [2, n_cols] f32 (up to a few MB, from L2).
//   softmax_columns_normalize  for each block of BLOCK_N columns (one
//                              where a row fits), its statistics loaded
//                              once, programs take chunks of BLOCK_M rows
//                              and write exp(x - max) / sum.
//
// The matrix is read twice and written once, as chunked softmax_columns
// does, but every program reads whole rows of the strip (BLOCK_N up to 2048
// columns, a row's contiguous run) and there are as many programs as the
// grid holds. stats reads a strip's rows as 1-D blocks, not as one
// [BLOCK_M, BLOCK_N] tile: a tile row of a matrix whose row stride is not a
// multiple of 16 bytes loaded one element at a time, with its 64-bit
// address and mask, and its running pair took two exps an element (H200,
// bf16 32768 x 4096: 140 -> 79 us; 32768 x 781: 43 -> 30 us). The grid's x
// axis runs over strips, so consecutive programs read neighbouring columns
// of the same rows (what DRAM serves best). normalize writes whole rows
// where BLOCK_N covers them: strips of an odd-length row start mid-sector,
// and a sector that two programs write at different times can reach DRAM
// half written (read, merged and written again). It takes the rows in
// reverse: the row blocks stats read last, which L2 may still hold, are
// re-read first. Its column statistics stay in registers across the rows
// (re-read per row of one-row chunks, with a division an element, they had
// made it issue-bound: bf16 32768 x 781 72 -> 38 us).
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/FamilyRegistration.h"
#include "examples/kernels/Kernels.h"
#include "examples/kernels/RowTuning.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

namespace blockjit::examples {

namespace {

/// Row blocks are sized so that strips of kSplitStripColumns columns give
/// at least kSplitPrograms programs (about four per SM of a 132-SM GPU:
/// narrow matrices have few strips, so their rows split finer), a power of
/// two of at least kSplitMinRows rows each (rounded down). More row blocks
/// keep more of stats' loads in flight but give combine more to read (H200,
/// docs/softmax_columns_split_h200_stats_rows.txt, run 2: bf16 32768 x 781,
/// stats on one stage + combine, 41.3 us at 64 rows a block, 53.2 at 128,
/// 81.6 at 256; fp32 32768 x 12288 stats alone 386 us at 64 rows, 372 at
/// 256 and 512).
constexpr int64_t kSplitPrograms = 512;
constexpr int64_t kSplitStripColumns = 1024;
constexpr int64_t kSplitMinRows = 32;
/// combine's default BLOCK_S (its tuner's configs choose their own): at
/// most this many row blocks' statistics at a time.
constexpr int64_t kMaxCombineBlock = 64;

/// What sums of exp(. - m) subtract for a maximum m: m, or 0 where m is
/// -inf, so that a sum of only -inf stays 0 (exp(-inf - -inf) would be
/// NaN); +inf or NaN make the sum NaN, as softmax does.
Tensor shiftOf(const Tensor &m) { return where(m == -INFINITY, 0.0, m); }

/// The running maximum m and sum s of exp(. - m) per element, merged with
/// another such pair (m2, s2).
std::vector<Tensor> onlineUpdate(const Tensor &m, const Tensor &s,
                                 const Tensor &m2, const Tensor &s2) {
  Tensor mNew = maximum(m, m2);
  Tensor shift = shiftOf(mNew);
  return {mNew, s * exp(m - shift) + s2 * exp(m2 - shift)};
}

/// Each column's maximum and sum, [1, BLOCK_N], from per-element running
/// statistics: the rows combined, each sum rescaled to the column maximum.
/// A column of only -inf has maximum -inf and sum 0 (and gives NaN when
/// normalized, as softmax does); NaN or +inf give NaN.
std::vector<Tensor> columnStats(const Tensor &m, const Tensor &s) {
  Tensor colMax = max(m, 0, /*keep_dims=*/true);
  return {colMax, sum(s * exp(m - shiftOf(colMax)), 0, /*keep_dims=*/true)};
}

} // namespace

void softmax_columns_stats_kernel(Ptr<float> stats_ptr, Ptr<> input_ptr,
                                  Int input_row_stride, Int n_rows, Int n_cols,
                                  Int rows_per_split, Constexpr BLOCK_M,
                                  Constexpr BLOCK_N) {
  // Each row of the strip is a 1-D block of BLOCK_N columns (a row's
  // contiguous run, loaded as the row kernels load rows), BLOCK_M of them a
  // chunk, unrolled at trace time so that their loads issue together. Every
  // row of a chunk has the same layout, so each thread holds the same
  // columns of all of them: the chunk's maximum is taken in-thread, the
  // running sum rescaled once a chunk, and each element costs one exp.
  Int strip = program_id(0);
  Int split = program_id(1);
  Int n_splits = num_programs(1);
  Tensor cols = strip * BLOCK_N + arange(0, BLOCK_N);
  Tensor col_mask = cols < n_cols;
  Int row_start = split * rows_per_split;
  // (n_rows - row_start: row_start + rows_per_split may pass 2^31.)
  Tensor row_end = row_start + minimum(rows_per_split, n_rows - row_start);
  std::vector<Tensor> running = for_range(
      row_start, row_end, BLOCK_M,
      {full({BLOCK_N}, -INFINITY, DType::F32),
       full({BLOCK_N}, 0.0, DType::F32)},
      [&](Int chunk_start, std::vector<Tensor> carried) {
        std::vector<Tensor> rows;
        for (int64_t r = 0; r < BLOCK_M.value; ++r) {
          Tensor row = chunk_start + r;
          Tensor mask = col_mask & (row < row_end);
          rows.push_back(
              load(input_ptr + row * input_row_stride + cols, mask, -INFINITY)
                  .to(DType::F32));
        }
        Tensor chunk_max = rows[0];
        for (size_t r = 1; r < rows.size(); ++r)
          chunk_max = maximum(chunk_max, rows[r]);
        Tensor col_max = maximum(carried[0], chunk_max);
        Tensor shift = shiftOf(col_max);
        Tensor sum = carried[1] * exp(carried[0] - shift);
        for (const Tensor &x : rows)
          sum = sum + exp(x - shift);
        return std::vector<Tensor>{col_max, sum};
      });
  store(stats_ptr + (split * n_cols + cols), running[0], col_mask);
  store(stats_ptr + ((n_splits + split) * n_cols + cols), running[1], col_mask);
}

void softmax_columns_combine_kernel(Ptr<float> column_stats_ptr,
                                    Ptr<float> stats_ptr, Int n_splits,
                                    Int n_cols, Constexpr BLOCK_S,
                                    Constexpr BLOCK_N) {
  Tensor cols = (program_id(0) * BLOCK_N + arange(0, BLOCK_N)).expand_dims(0);
  Tensor col_mask = cols < n_cols;
  // The row blocks' maxima and sums of these columns, BLOCK_S at a time.
  Tensor split_rows = arange(0, BLOCK_S).expand_dims(1);
  std::vector<Tensor> running = for_range(
      0, n_splits, BLOCK_S,
      {full({BLOCK_S, BLOCK_N}, -INFINITY, DType::F32),
       full({BLOCK_S, BLOCK_N}, 0.0, DType::F32)},
      [&](Int split_start, std::vector<Tensor> carried) {
        Tensor splits = split_start + split_rows;
        Tensor mask = (splits < n_splits) & col_mask;
        Tensor m = load(stats_ptr + (splits * n_cols + cols), mask, -INFINITY);
        Tensor s =
            load(stats_ptr + ((n_splits + splits) * n_cols + cols), mask, 0.0);
        return onlineUpdate(carried[0], carried[1], m, s);
      });
  std::vector<Tensor> stats = columnStats(running[0], running[1]);
  store(column_stats_ptr + cols, stats[0], col_mask);
  store(column_stats_ptr + (n_cols + cols), stats[1], col_mask);
}

void softmax_columns_normalize_kernel(Ptr<> output_ptr, Ptr<> input_ptr,
                                      Ptr<float> column_stats_ptr,
                                      Int input_row_stride,
                                      Int output_row_stride, Int n_rows,
                                      Int n_cols, Constexpr BLOCK_M,
                                      Constexpr BLOCK_N) {
  // For each block of BLOCK_N columns (one where a row fits: its column
  // statistics then stay in registers for the program's whole life, not
  // re-read every row), chunks of BLOCK_M rows, the last rows first (see
  // above), one program a chunk or a persistent program over chunks (the
  // tuner's grid); a chunk of a block goes to the same program for every
  // block, so each row is written left to right by one program. Each row of
  // a chunk is a 1-D block (the chunk unrolled at trace time), so rows take
  // the row kernels' accesses and masks (f32 32768 x 781 on one program a
  // row: 63 -> 56 us against [BLOCK_M, BLOCK_N] blocks).
  Tensor n_chunks = cdiv(n_rows, BLOCK_M);
  for_range(0, n_cols, BLOCK_N, [&](Int col_start) {
    Tensor cols = col_start + arange(0, BLOCK_N);
    Tensor col_mask = cols < n_cols;
    Tensor col_max = load(column_stats_ptr + cols, col_mask, 0.0);
    // Each column's 1 / sum once (a one-row block divides element by
    // element otherwise): within 1.5 ulp of dividing, as softmax_columns'
    // division by a sum broadcast down the rows is lowered.
    Tensor col_scale =
        1.0 / load(column_stats_ptr + (n_cols + cols), col_mask, 1.0);
    for_range(program_id(0), n_chunks, num_programs(0), [&](Int chunk) {
      Tensor first_row = (n_chunks - 1 - chunk) * BLOCK_M;
      for (int64_t r = 0; r < BLOCK_M.value; ++r) {
        Tensor row = first_row + r;
        Tensor mask = col_mask & (row < n_rows);
        Tensor x =
            load(input_ptr + row * input_row_stride + cols, mask, -INFINITY)
                .to(DType::F32);
        store(output_ptr + row * output_row_stride + cols,
              exp(x - col_max) * col_scale, mask);
      }
    });
  });
}

const std::shared_ptr<KernelDef> &softmaxColumnsStats() {
  static auto kernel =
      jit("softmax_columns_stats", softmax_columns_stats_kernel,
          {"stats_ptr", "input_ptr", "input_row_stride", "n_rows", "n_cols",
           "rows_per_split", "BLOCK_M", "BLOCK_N"});
  return kernel;
}

const std::shared_ptr<KernelDef> &softmaxColumnsCombine() {
  static auto kernel =
      jit("softmax_columns_combine", softmax_columns_combine_kernel,
          {"column_stats_ptr", "stats_ptr", "n_splits", "n_cols", "BLOCK_S",
           "BLOCK_N"});
  return kernel;
}

const std::shared_ptr<KernelDef> &softmaxColumnsNormalize() {
  static auto kernel =
      jit("softmax_columns_normalize", softmax_columns_normalize_kernel,
          {"output_ptr", "input_ptr", "column_stats_ptr", "input_row_stride",
           "output_row_stride", "n_rows", "n_cols", "BLOCK_M", "BLOCK_N"});
  return kernel;
}

int64_t softmaxColumnsSplitRows(int64_t rows, int64_t cols) {
  rows = std::max<int64_t>(rows, 1);
  int64_t strips = cdiv(std::max<int64_t>(cols, 1), kSplitStripColumns);
  int64_t splits = cdiv(kSplitPrograms, strips);
  return std::max<int64_t>(
      kSplitMinRows,
      int64_t(llvm::bit_floor(uint64_t(std::max<int64_t>(1, rows / splits)))));
}

int64_t softmaxColumnsSplits(int64_t rows, int64_t cols) {
  return cdiv(std::max<int64_t>(rows, 1), softmaxColumnsSplitRows(rows, cols));
}

int64_t softmaxColumnsCombineBlock(int64_t rows, int64_t cols) {
  return std::min(kMaxCombineBlock,
                  next_power_of_2(softmaxColumnsSplits(rows, cols)));
}

} // namespace blockjit::examples
