//===- Kernels.h - the example kernels shipped with blockjit ---*- C++ -*-===//
#ifndef BLOCKJIT_EXAMPLES_KERNELS_KERNELS_H
#define BLOCKJIT_EXAMPLES_KERNELS_KERNELS_H

#include "frontend/blockjit.h"
#include "runtime/Autotune.h"
#include "runtime/Operation.h"

#include <algorithm>
#include <vector>

namespace blockjit::examples {

/// softmax(output_ptr, input_ptr, input_row_stride, output_row_stride,
///         n_rows, n_cols; BLOCK_SIZE)
const std::shared_ptr<KernelDef> &softmax();

/// softmax's configuration space: num_warps 1..32 x num_stages 1..8 x
/// num_ctas 1..16 x a grid: persistent (grid:ROWS=0), one program per row
/// (grid:ROWS=1, one CTA) or about 8 rows a program (grid:ROWS=8, clusters
/// and one CTA with num_stages > 1), which tuning refines to 2..64
/// (rowsPerProgramRefined) (SoftmaxTuning.cpp).
std::vector<TuningConfig> softmaxSearchSpace();
/// The configs of `configs` worth trying for rows of BLOCK_SIZE `block` of
/// `elementBytes` each on `target`: 1 to 128 elements per thread, clusters
/// only on sm_90 for rows of 64 KB or more, rows in flight up to 128
/// elements per thread in all; the CPU keeps one (its backend ignores these
/// options).
std::vector<TuningConfig> softmaxPrune(llvm::ArrayRef<TuningConfig> configs,
                                       int64_t block, int elementBytes,
                                       const Target &target);
/// The cost model that ranks softmax configs (smaller is better): about 256
/// bytes per thread, the next row in flight, the smallest cluster.
double softmaxEstimate(const TuningConfig &config, int64_t block,
                       int elementBytes);
/// The pruned search space, best-ranked first: front() is what runs
/// untimed ($BLOCKJIT_AUTOTUNE=0) and what tests use as a default config.
std::vector<TuningConfig> softmaxRankedConfigs(int64_t block, int elementBytes,
                                               const Target &target);
/// The configs tuning times next when `config` is among the fastest: its
/// rows per program halved and doubled (2 to 64), none for a persistent
/// grid or one row a program (AutotuneSpec::refine).
std::vector<TuningConfig> rowsPerProgramRefined(const TuningConfig &config);
/// The config tuning also times when `config` (one CTA a program, no
/// hints) is among the fastest on a GPU with eviction priorities
/// (hasEvictionPriorities: sm_80+ on PTX 7.4+): its loads evict_last
/// (Inductor's hint on a row's reads). On the H100 it makes one-CTA rows
/// about 1 % faster at M = 32768 (bf16 32768 x 4096 softmax 2933 -> 2956
/// GB/s, backward 2994 -> 3021), on the H200 2-4 %, and up to 8 % at M =
/// 4096 (H200, bf16 softmax_backward 4096 x 4096 on 8 warps 3272 -> 3529,
/// the same on 8 copies of the inputs in turn: docs/eviction_hints_h200.txt
/// section 6); on cluster rows it cost up to 20 %, and on some one-CTA
/// configs 8 %, so only timing says where. The timing is fair at every size
/// because each timed run's flush returns persisting lines to normal first
/// (Executor::flushCacheOnStream): without that, a 16-32 MB input read with
/// evict_last was found in L2 by the next run (bf16 softmax 4096 x 1024 on
/// the H100: 1531 GB/s plain, 1866 evict_last, a copy's 1553).
std::vector<TuningConfig> evictionRefined(const TuningConfig &config,
                                          const Target &target);
/// How many of the ranked configs the tuner times (each grid of a compiled
/// config counts as one).
inline constexpr int kSoftmaxTuningTopK = 16;
/// softmax's autotuner: key n_cols (exact) and n_rows (next power of two),
/// a persistent grid of the occupancy's programs.
Autotuner &softmaxTuner();

/// softmax_online(output_ptr, input_ptr, input_row_stride,
///                output_row_stride, n_rows, n_cols; BLOCK_SIZE): the same
/// softmax for rows longer than one block: each row is read twice in chunks
/// of BLOCK_SIZE (any power of two; n_cols is not bounded by it), with a
/// running max and sum in f32, and written once (SoftmaxOnline.cpp).
const std::shared_ptr<KernelDef> &softmaxOnline();
/// The largest block softmax holds in one program: on the GPU 32 warps of
/// 32 threads with kMaxElementsPerThread (compiler/gpu/Layout.h, 1024)
/// elements each; the CPU backend takes the same bound (beyond it the
/// row's f32 temporaries outgrow the caches while a chunk stays in L1/L2).
inline constexpr int64_t kSoftmaxMaxBlock = int64_t(1) << 20;
/// Whether a row of `cols` elements needs softmax_online (its block,
/// next_power_of_2(cols), would exceed kSoftmaxMaxBlock).
inline bool softmaxNeedsOnline(int64_t cols) { return cols > kSoftmaxMaxBlock; }
/// Whether softmax_online is the untimed pick for rows of `cols` elements on
/// `target` (the softmax example's --kernel auto, softmax_rows untimed): on
/// the GPU from a block of kSoftmaxMaxBlock (cols > 2^19), where the
/// whole-row kernel's 16-CTA cluster no longer keeps the row on chip (H200,
/// 2^20 columns: softmax_online 2740 vs 2318 GB/s f32, 2392 vs 2289 bf16;
/// 524288: softmax 3373 vs 2744; docs/softmax_long_rows_h200_rows_operation_*),
/// elsewhere where softmax needs it.
inline bool softmaxPrefersOnline(int64_t cols, TargetKind target) {
  return target == TargetKind::CUDA ? cols > kSoftmaxMaxBlock / 2
                                    : softmaxNeedsOnline(cols);
}
/// softmax_online's best-ranked chunk and num_warps (what runs untimed and
/// what fixed-config tests use): 4096 elements over 8 warps, 16 per thread
/// (four 16-byte vector loads of f32).
inline constexpr int64_t kSoftmaxOnlineBlock = 4096;
inline constexpr int kSoftmaxOnlineNumWarps = 8;
/// softmax_online's autotuner: the chunk (BLOCK_SIZE 1024..8192) and
/// num_warps, keyed by n_cols and n_rows rounded up to powers of two.
Autotuner &softmaxOnlineTuner();

//===----------------------------------------------------------------------===//
// The softmax family (docs/EXAMPLES.md): row kernels with softmax's
// persistent rows (row_start = program_id(0), step num_programs(0)) and
// BLOCK_SIZE = next_power_of_2(n_cols); every one computes in f32 and
// stores in its output pointer's type. Each comes with an autotuner over
// softmax's search space (rowTuningSpec, RowTuning.h) and a double
// reference in ReferenceFamily.h.
//===----------------------------------------------------------------------===//

/// log_softmax(output_ptr, input_ptr, input_row_stride, output_row_stride,
///             n_rows, n_cols; BLOCK_SIZE): x - max - log(sum exp(x - max)).
const std::shared_ptr<KernelDef> &logSoftmax();
Autotuner &logSoftmaxTuner();

/// softmax_temperature(output_ptr, input_ptr, input_row_stride,
///                     output_row_stride, n_rows, n_cols, Float temperature;
///                     BLOCK_SIZE): softmax(x / temperature).
const std::shared_ptr<KernelDef> &softmaxTemperature();
Autotuner &softmaxTemperatureTuner();

/// softmax_scale(output_ptr, input_ptr, input_row_stride, output_row_stride,
///               n_rows, n_cols, Float scale; BLOCK_SIZE): softmax(x) * scale.
const std::shared_ptr<KernelDef> &softmaxScale();
Autotuner &softmaxScaleTuner();

/// softmax_masked(output_ptr, input_ptr, mask_ptr, input_row_stride,
///                output_row_stride, mask_row_stride, n_rows, n_cols;
///                BLOCK_SIZE): softmax(x + mask[row]), an additive mask of
/// any float type; mask_row_stride 0 shares one mask row among all rows.
const std::shared_ptr<KernelDef> &softmaxMasked();
Autotuner &softmaxMaskedTuner();

/// softmax_causal(output_ptr, input_ptr, input_row_stride,
///                output_row_stride, n_rows, n_cols; BLOCK_SIZE): element
/// (r, c) with c > r counts as -inf (top-left aligned, like
/// torch.ones(M, N).tril()); it is not read, and its output is 0.
const std::shared_ptr<KernelDef> &softmaxCausal();
Autotuner &softmaxCausalTuner();

/// softmax_columns(output_ptr, input_ptr, input_row_stride,
///                 output_row_stride, n_rows, n_cols; BLOCK_M, BLOCK_N,
///                 WHOLE_COLUMN):
/// softmax over dim 0 of a row-major matrix. Programs walk strips of
/// BLOCK_N consecutive columns. WHOLE_COLUMN = 1 needs BLOCK_M >= n_rows
/// and reads a strip once, as one block; WHOLE_COLUMN = 0 reads it twice in
/// [BLOCK_M, BLOCK_N] chunks of rows (any n_rows) with a running max and
/// sum per column.
const std::shared_ptr<KernelDef> &softmaxColumns();
/// softmax_columns' blocks for an M x N matrix.
struct ColumnBlocks {
  int64_t m = 1, n = 1;
  /// WHOLE_COLUMN: m >= the matrix's rows, each strip one block.
  bool wholeColumn = true;
};
/// The default blocks: BLOCK_N = min(next_power_of_2(cols), 32) columns
/// (a 128-byte line of f32 per row), BLOCK_M = min(next_power_of_2(rows),
/// 64) rows per chunk. An error for an empty matrix.
llvm::Expected<ColumnBlocks> softmaxColumnsBlocks(int64_t rows, int64_t cols);
/// softmax_columns' autotuner: BLOCK_M (8..32768) x BLOCK_N (8..128) x
/// num_warps x num_stages x num_ctas, chunks or whole columns, keyed by
/// n_rows and n_cols rounded up to powers of two.
Autotuner &softmaxColumnsTuner();
/// What softmax_columns' tuning times next when `config` is among the
/// fastest: its BLOCK_M (chunks), BLOCK_N and num_warps halved and doubled,
/// where still worth timing (AutotuneSpec::refine).
std::vector<TuningConfig> softmaxColumnsRefined(const TuningConfig &config,
                                                llvm::ArrayRef<Arg> args,
                                                const Target &target);

/// softmax over dim 0 in three launches, for tall matrices whose strips
/// are too few to keep a GPU busy on clusters (SoftmaxColumnsSplit.cpp).
/// softmax_columns_stats(stats_ptr, input_ptr, input_row_stride, n_rows,
///                       n_cols, rows_per_split; BLOCK_M, BLOCK_N), one
/// program per (strip of BLOCK_N columns, block of rows_per_split rows) on
/// a 2-D grid, reading BLOCK_M rows (1-D blocks) at a time, writes each row
/// block's column maxima and sums of exp(x - max) to stats_ptr, an f32 [2,
/// n_splits, n_cols] array (maxima, then sums);
/// softmax_columns_combine(column_stats_ptr, stats_ptr, n_splits, n_cols;
///                         BLOCK_S, BLOCK_N), one program per strip,
/// combines them (BLOCK_S row blocks at a time) into column_stats_ptr, f32
/// [2, n_cols]; softmax_columns_normalize(output_ptr, input_ptr,
/// column_stats_ptr, input_row_stride, output_row_stride, n_rows, n_cols;
/// BLOCK_M, BLOCK_N), over chunks of BLOCK_M rows (BLOCK_N columns at a
/// time, each row a 1-D block), writes exp(x - max) / sum.
const std::shared_ptr<KernelDef> &softmaxColumnsStats();
const std::shared_ptr<KernelDef> &softmaxColumnsCombine();
const std::shared_ptr<KernelDef> &softmaxColumnsNormalize();
/// Rows a row block takes for a rows x cols matrix: a power of two, at
/// least 32, that gives at least 512 programs over strips of 1024 columns.
int64_t softmaxColumnsSplitRows(int64_t rows, int64_t cols);
/// The row blocks (stats' grid rows, n_splits).
int64_t softmaxColumnsSplits(int64_t rows, int64_t cols);
/// combine's default BLOCK_S (its tuner's configs choose their own): every
/// row block at once, at most 64 at a time.
int64_t softmaxColumnsCombineBlock(int64_t rows, int64_t cols);
/// The split kernels' tuners. stats: chunks of BLOCK_M rows x BLOCK_N
/// columns (2..8 x 64..2048) x num_warps 1..16 x num_stages 1..2, keyed by
/// n_rows and n_cols rounded up to powers of two and rows_per_split, on the
/// grid (strips, row blocks); combine: BLOCK_S 16..512 x BLOCK_N 8..128 x
/// num_warps 1..8 x num_stages 1..2 on one program per strip; normalize: chunks
/// of 1..32 rows x 64..4096 columns x num_warps x num_stages on a persistent
/// grid or one program a chunk.
Autotuner &softmaxColumnsStatsTuner();
Autotuner &softmaxColumnsCombineTuner();
Autotuner &softmaxColumnsNormalizeTuner();

/// softmax_dim0(output_ptr, input_ptr, input_row_stride, output_row_stride,
///              n_rows, n_cols): softmax over dim 0 by the faster of
/// softmax_columns (one launch) and softmax_columns_split (three) for the
/// shape, timed on first use and kept on disk (runtime/Operation.h;
/// registered for the C ABI). Input and output of any float type.
Operation &softmaxDim0();

/// softmax_rows(output_ptr, input_ptr, input_row_stride, output_row_stride,
///              n_rows, n_cols): row-wise softmax of any length by the
/// faster of softmax (one block a row; it refuses rows longer than
/// kSoftmaxMaxBlock) and softmax_online (chunks) for the shape, timed on
/// first use and kept on disk (SoftmaxRows.cpp; registered for the C ABI).
Operation &softmaxRows();

/// softmax_backward(dx_ptr, y_ptr, dy_ptr, dx_row_stride, y_row_stride,
///                  dy_row_stride, n_rows, n_cols; BLOCK_SIZE):
/// dx = y * (dy - sum(y * dy)), the gradient of softmax's input.
const std::shared_ptr<KernelDef> &softmaxBackward();
Autotuner &softmaxBackwardTuner();

/// layernorm(output_ptr, input_ptr, weight_ptr, bias_ptr, input_row_stride,
///           output_row_stride, n_rows, n_cols, Float eps; BLOCK_SIZE):
/// (x - mean) * rstd * weight + bias with the biased variance, as
/// torch.nn.functional.layer_norm over the last dimension.
const std::shared_ptr<KernelDef> &layerNorm();
Autotuner &layerNormTuner();

/// vector_add(x_ptr, y_ptr, output_ptr, n_elements; BLOCK_SIZE)
const std::shared_ptr<KernelDef> &vectorAdd();

} // namespace blockjit::examples

#endif // BLOCKJIT_EXAMPLES_KERNELS_KERNELS_H
