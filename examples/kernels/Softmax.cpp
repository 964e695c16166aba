//===- Softmax.cpp - fused row-wise softmax, as in Triton's tutorial -----===//
//
// Each program walks rows pid, pid + num_programs, ...; a row is read once,
// reduced twice in registers (max, then sum of exponentials) and written once.
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/Kernels.h"
#include "examples/kernels/SoftmaxSignature.h"

#include <cmath>

namespace blockjit::examples {

void softmax_kernel(Ptr<> output_ptr, Ptr<> input_ptr, Int input_row_stride,
                    Int output_row_stride, Int n_rows, Int n_cols,
                    Constexpr BLOCK_SIZE) {
  // Starting row of the program; programs stride over the rows.
  Int row_start = program_id(0);
  Int row_step = num_programs(0);
  for_range(row_start, n_rows, row_step, [&](Int row_idx) {
    // The stride is how much to advance the pointer to get to the next row.
    Tensor row_start_ptr = input_ptr + row_idx * input_row_stride;
    // BLOCK_SIZE is the next power of two >= n_cols, so a row fits a block.
    Tensor col_offsets = arange(0, BLOCK_SIZE);
    Tensor input_ptrs = row_start_ptr + col_offsets;
    // Masked lanes read -inf, which does not change the max or the sum.
    Tensor mask = col_offsets < n_cols;
    Tensor row = load(input_ptrs, mask, -INFINITY).to(DType::F32);
    // Subtract the maximum for numerical stability.
    Tensor row_minus_max = row - max(row, 0);
    Tensor numerator = exp(row_minus_max);
    Tensor denominator = sum(numerator, 0);
    Tensor softmax_output = numerator / denominator;
    // Write back (converted to the output's element type).
    Tensor output_row_start_ptr = output_ptr + row_idx * output_row_stride;
    Tensor output_ptrs = output_row_start_ptr + col_offsets;
    store(output_ptrs, softmax_output, mask);
  });
}

const std::shared_ptr<KernelDef> &softmax() {
  static auto kernel =
      jit("softmax", softmax_kernel, softmaxParamNames());
  return kernel;
}

static KernelRegistration registration({
    "softmax",
    "fused row-wise softmax (persistent rows, one read and one write)",
    softmax(),
    softmaxExampleKey,
    softmaxTuner,
});

} // namespace blockjit::examples
