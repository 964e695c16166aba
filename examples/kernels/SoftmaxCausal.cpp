//===- SoftmaxCausal.cpp - softmax under a causal (lower-triangular) mask -===//
//
// softmax's structure (Softmax.cpp) where row r keeps columns 0..r (top-left
// aligned, torch.ones(M, N).tril()): the columns beyond the diagonal are not
// read (the load's mask) and count as -inf, so their outputs are 0. Column 0
// is always kept, so no row is all -inf by the mask.
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/FamilyRegistration.h"
#include "examples/kernels/Kernels.h"
#include "examples/kernels/RowTuning.h"

#include <cmath>

namespace blockjit::examples {

void softmax_causal_kernel(Ptr<> output_ptr, Ptr<> input_ptr,
                           Int input_row_stride, Int output_row_stride,
                           Int n_rows, Int n_cols, Constexpr BLOCK_SIZE) {
  Int row_start = program_id(0);
  Int row_step = num_programs(0);
  for_range(row_start, n_rows, row_step, [&](Int row_idx) {
    Tensor col_offsets = arange(0, BLOCK_SIZE);
    Tensor mask = col_offsets < n_cols;
    Tensor causal = mask & (col_offsets <= row_idx);
    Tensor input_ptrs = input_ptr + row_idx * input_row_stride + col_offsets;
    Tensor row = load(input_ptrs, causal, -INFINITY).to(DType::F32);
    Tensor numerator = exp(row - max(row, 0));
    Tensor softmax_output = numerator / sum(numerator, 0);
    // The whole row is written: zeros beyond the diagonal.
    Tensor output_ptrs = output_ptr + row_idx * output_row_stride + col_offsets;
    store(output_ptrs, softmax_output, mask);
  });
}

const std::shared_ptr<KernelDef> &softmaxCausal() {
  static auto kernel =
      jit("softmax_causal", softmax_causal_kernel,
          {"output_ptr", "input_ptr", "input_row_stride", "output_row_stride",
           "n_rows", "n_cols", "BLOCK_SIZE"});
  return kernel;
}

Autotuner &softmaxCausalTuner() {
  constexpr RowArgPositions where = {1, 4, 5, 6};
  static Autotuner tuner(
      softmaxCausal(),
      rowTuningSpec(where, {rowMajorBuffer("output_ptr", 0, 3, where)}));
  return tuner;
}

static KernelRegistration registration(rowKernelEntry(
    "softmax_causal", "row-wise softmax under a causal mask (c > r is -inf)",
    softmaxCausal(), softmaxCausalTuner));

} // namespace blockjit::examples
