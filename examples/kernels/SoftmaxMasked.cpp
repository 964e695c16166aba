//===- SoftmaxMasked.cpp - softmax(x + mask) -----------------------------===//
//
// softmax's structure (Softmax.cpp) with an additive mask (0 keeps an
// element, -inf drops it, anything else biases it) of any float type, read
// from its own rows. mask_row_stride = 0 gives every row the same mask row:
// torch's broadcast of an [N] mask over an [M, N] input, read from L2.
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/FamilyRegistration.h"
#include "examples/kernels/Kernels.h"
#include "examples/kernels/RowTuning.h"

#include <cmath>

namespace blockjit::examples {

void softmax_masked_kernel(Ptr<> output_ptr, Ptr<> input_ptr, Ptr<> mask_ptr,
                           Int input_row_stride, Int output_row_stride,
                           Int mask_row_stride, Int n_rows, Int n_cols,
                           Constexpr BLOCK_SIZE) {
  Int row_start = program_id(0);
  Int row_step = num_programs(0);
  for_range(row_start, n_rows, row_step, [&](Int row_idx) {
    Tensor col_offsets = arange(0, BLOCK_SIZE);
    Tensor mask = col_offsets < n_cols;
    Tensor input_ptrs = input_ptr + row_idx * input_row_stride + col_offsets;
    Tensor mask_ptrs = mask_ptr + row_idx * mask_row_stride + col_offsets;
    // Masked lanes: -inf + 0, which changes neither the max nor the sum.
    Tensor row = load(input_ptrs, mask, -INFINITY).to(DType::F32) +
                 load(mask_ptrs, mask, 0).to(DType::F32);
    Tensor numerator = exp(row - max(row, 0));
    Tensor softmax_output = numerator / sum(numerator, 0);
    Tensor output_ptrs = output_ptr + row_idx * output_row_stride + col_offsets;
    store(output_ptrs, softmax_output, mask);
  });
}

const std::shared_ptr<KernelDef> &softmaxMasked() {
  static auto kernel =
      jit("softmax_masked", softmax_masked_kernel,
          {"output_ptr", "input_ptr", "mask_ptr", "input_row_stride",
           "output_row_stride", "mask_row_stride", "n_rows", "n_cols",
           "BLOCK_SIZE"});
  return kernel;
}

Autotuner &softmaxMaskedTuner() {
  constexpr RowArgPositions where = {1, 6, 7, 8};
  static Autotuner tuner(
      softmaxMasked(),
      rowTuningSpec(where, {rowMajorBuffer("output_ptr", 0, 4, where)}));
  return tuner;
}

static KernelRegistration registration(rowKernelEntry(
    "softmax_masked", "row-wise softmax(x + mask), mask rows or one shared row",
    softmaxMasked(), softmaxMaskedTuner));

} // namespace blockjit::examples
