//===- SoftmaxColumns.cpp - softmax over dim 0 of a row-major matrix -----===//
//
// Each program walks strips of BLOCK_N consecutive columns (strip
// program_id(0), then + num_programs(0)). A strip is one [BLOCK_M, BLOCK_N]
// block with BLOCK_M = next_power_of_2(n_rows): whole columns, so that the
// max and the sum are reductions along axis 0 of the block, kept as
// [1, BLOCK_N] (keep_dims) and broadcast back over the rows. The block's
// addresses are row * stride + column: consecutive lanes read consecutive
// columns of a row, so loads and stores are coalesced along the contiguous
// dimension (docs/EXAMPLES.md draws the layout).
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/FamilyRegistration.h"
#include "examples/kernels/Kernels.h"

#include <cmath>

namespace blockjit::examples {

void softmax_columns_kernel(Ptr<> output_ptr, Ptr<> input_ptr,
                            Int input_row_stride, Int output_row_stride,
                            Int n_rows, Int n_cols, Constexpr BLOCK_M,
                            Constexpr BLOCK_N) {
  Int strip_start = program_id(0);
  Int strip_step = num_programs(0);
  Tensor n_strips = cdiv(n_cols, BLOCK_N);
  // Triton's rows[:, None]: a [BLOCK_M, 1] column of row indices.
  Tensor rows = arange(0, BLOCK_M).expand_dims(1);
  Tensor row_mask = rows < n_rows;
  for_range(strip_start, n_strips, strip_step, [&](Int strip) {
    // cols[None, :]: a [1, BLOCK_N] row of column indices.
    Tensor cols = (strip * BLOCK_N + arange(0, BLOCK_N)).expand_dims(0);
    Tensor mask = row_mask & (cols < n_cols);
    Tensor input_ptrs = input_ptr + (rows * input_row_stride + cols);
    // Masked rows read -inf: they change neither a column's max nor its sum.
    Tensor x = load(input_ptrs, mask, -INFINITY).to(DType::F32);
    Tensor numerator = exp(x - max(x, 0, /*keep_dims=*/true));
    Tensor softmax_output = numerator / sum(numerator, 0, /*keep_dims=*/true);
    Tensor output_ptrs = output_ptr + (rows * output_row_stride + cols);
    store(output_ptrs, softmax_output, mask);
  });
}

const std::shared_ptr<KernelDef> &softmaxColumns() {
  static auto kernel =
      jit("softmax_columns", softmax_columns_kernel,
          {"output_ptr", "input_ptr", "input_row_stride", "output_row_stride",
           "n_rows", "n_cols", "BLOCK_M", "BLOCK_N"});
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
              .value_or(ColumnBlocks{c.blockSize, 1});
      return familyExampleKey(*softmaxColumns(), c, {blocks.m, blocks.n});
    },
    softmaxColumnsTuner,
});

} // namespace blockjit::examples
