//===- SoftmaxColumns.cpp - softmax over dim 0 of a row-major matrix -----===//
//
// Each program walks strips of BLOCK_N consecutive columns (strip
// program_id(0), then + num_programs(0)). A strip is read as
// [BLOCK_M, BLOCK_N] blocks whose addresses are row * stride + column:
// consecutive lanes read consecutive columns of a row, so loads and stores
// are coalesced along the contiguous dimension and a wide strip (32 f32
// columns: a 128-byte line per row) reads whole lines.
//
// WHOLE_COLUMN = 1 (BLOCK_M >= n_rows, like the row softmax's BLOCK_SIZE >=
// n_cols): the strip is one block, read once, reduced down its rows and
// written, the column softmax transposed. On sm_90 a cluster splits the
// block's rows over its CTAs and keeps them on chip, so a 32768-row strip
// is read from DRAM once (docs/LAYOUTS.md, clusters and shared memory).
//
// WHOLE_COLUMN = 0 (any n_rows): the strip is read in chunks of BLOCK_M
// rows. Pass 1 keeps, per element of the chunk, a running maximum and sum
// of exp (softmax_online's update, down the column), reduced down the
// chunk's rows at the end; pass 2 re-reads the strip and writes
// exp(x - max) / sum.
//
// The reductions kept as [1, BLOCK_N] (keep_dims) and broadcast back over
// the rows stay in registers and shuffles on the GPU (blkgpu.all_reduce,
// docs/LAYOUTS.md). docs/EXAMPLES.md draws the layout.
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/FamilyRegistration.h"
#include "examples/kernels/Kernels.h"

#include <cmath>

namespace blockjit::examples {

void softmax_columns_kernel(Ptr<> output_ptr, Ptr<> input_ptr,
                            Int input_row_stride, Int output_row_stride,
                            Int n_rows, Int n_cols, Constexpr BLOCK_M,
                            Constexpr BLOCK_N, Constexpr WHOLE_COLUMN) {
  Int strip_start = program_id(0);
  Int strip_step = num_programs(0);
  Tensor n_strips = cdiv(n_cols, BLOCK_N);
  // Triton's rows[:, None]: a [BLOCK_M, 1] column of a chunk's row indices.
  Tensor chunk_rows = arange(0, BLOCK_M).expand_dims(1);
  for_range(strip_start, n_strips, strip_step, [&](Int strip) {
    // cols[None, :]: a [1, BLOCK_N] row of column indices.
    Tensor cols = (strip * BLOCK_N + arange(0, BLOCK_N)).expand_dims(0);
    Tensor col_mask = cols < n_cols;
    if (WHOLE_COLUMN.value) {
      // The strip in one block: masked lanes read -inf, which changes
      // neither the maximum nor the sum.
      Tensor mask = (chunk_rows < n_rows) & col_mask;
      Tensor x = load(input_ptr + (chunk_rows * input_row_stride + cols),
                      mask, -INFINITY)
                     .to(DType::F32);
      Tensor numerator = exp(x - max(x, 0, /*keep_dims=*/true));
      Tensor denominator = sum(numerator, 0, /*keep_dims=*/true);
      store(output_ptr + (chunk_rows * output_row_stride + cols),
            numerator / denominator, mask);
      return;
    }
    // Pass 1: per element of the chunk, the running maximum m and sum s of
    // exp(x - m) down its column, in f32. Masked lanes read -inf and change
    // neither.
    std::vector<Tensor> running = for_range(
        0, n_rows, BLOCK_M,
        {full({BLOCK_M, BLOCK_N}, -INFINITY, DType::F32),
         full({BLOCK_M, BLOCK_N}, 0.0, DType::F32)},
        [&](Int chunk_start, std::vector<Tensor> carried) {
          Tensor rows = chunk_start + chunk_rows;
          Tensor mask = (rows < n_rows) & col_mask;
          Tensor x =
              load(input_ptr + (rows * input_row_stride + cols), mask,
                   -INFINITY)
                  .to(DType::F32);
          Tensor m = carried[0], s = carried[1];
          Tensor m_new = maximum(m, x);
          // While an element has seen only -inf, subtract 0 so its sum
          // stays 0 (exp(-inf - -inf) would be NaN).
          Tensor shift = where(m_new == -INFINITY, 0.0, m_new);
          Tensor s_new = s * exp(m - shift) + exp(x - shift);
          return std::vector<Tensor>{m_new, s_new};
        });
    // Each column's maximum and sum: the chunk's rows combined, each sum
    // rescaled to the column's maximum. NaN or +inf in a column, or a
    // column of only -inf, gives NaN, as softmax does.
    Tensor col_max = max(running[0], 0, /*keep_dims=*/true);
    Tensor col_sum =
        sum(running[1] * exp(running[0] - col_max), 0, /*keep_dims=*/true);
    // Pass 2: re-read the strip and write, in the output's element type.
    // (Reading it backwards, the chunks read last first, measured slower.)
    for_range(0, n_rows, BLOCK_M, [&](Int chunk_start) {
      Tensor rows = chunk_start + chunk_rows;
      Tensor mask = (rows < n_rows) & col_mask;
      Tensor x =
          load(input_ptr + (rows * input_row_stride + cols), mask, -INFINITY)
              .to(DType::F32);
      store(output_ptr + (rows * output_row_stride + cols),
            exp(x - col_max) / col_sum, mask);
    });
  });
}

const std::shared_ptr<KernelDef> &softmaxColumns() {
  static auto kernel =
      jit("softmax_columns", softmax_columns_kernel,
          {"output_ptr", "input_ptr", "input_row_stride", "output_row_stride",
           "n_rows", "n_cols", "BLOCK_M", "BLOCK_N", "WHOLE_COLUMN"});
  return kernel;
}

static KernelRegistration registration({
    "softmax_columns",
    "softmax over dim 0 (columns), strips of BLOCK_N columns as 2-D blocks",
    softmaxColumns(),
    [](const ExampleConfig &c) {
      // --block-size is BLOCK_M (the rows); BLOCK_N the default rule's for
      // long rows.
      ColumnBlocks blocks =
          llvm::expectedToOptional(
              softmaxColumnsBlocks(c.blockSize, kSoftmaxMaxBlock))
              .value_or(ColumnBlocks{c.blockSize, 1, true});
      return familyExampleKey(*softmaxColumns(), c,
                              {blocks.m, blocks.n, blocks.wholeColumn});
    },
    softmaxColumnsTuner,
});

} // namespace blockjit::examples
