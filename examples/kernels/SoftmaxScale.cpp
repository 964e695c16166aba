//===- SoftmaxScale.cpp - softmax(x) * scale -----------------------------===//
//
// softmax's structure (Softmax.cpp) with the output scaled: one scalar
// division per row (scale / sum) and one multiplication per element.
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/FamilyRegistration.h"
#include "examples/kernels/Kernels.h"
#include "examples/kernels/RowTuning.h"

#include <cmath>

namespace blockjit::examples {

void softmax_scale_kernel(Ptr<> output_ptr, Ptr<> input_ptr,
                          Int input_row_stride, Int output_row_stride,
                          Int n_rows, Int n_cols, Float scale,
                          Constexpr BLOCK_SIZE) {
  Int row_start = program_id(0);
  Int row_step = num_programs(0);
  for_range(row_start, n_rows, row_step, [&](Int row_idx) {
    Tensor col_offsets = arange(0, BLOCK_SIZE);
    Tensor mask = col_offsets < n_cols;
    Tensor input_ptrs = input_ptr + row_idx * input_row_stride + col_offsets;
    Tensor row = load(input_ptrs, mask, -INFINITY).to(DType::F32);
    Tensor numerator = exp(row - max(row, 0));
    Tensor output = numerator * (scale / sum(numerator, 0));
    Tensor output_ptrs = output_ptr + row_idx * output_row_stride + col_offsets;
    store(output_ptrs, output, mask);
  });
}

const std::shared_ptr<KernelDef> &softmaxScale() {
  static auto kernel =
      jit("softmax_scale", softmax_scale_kernel,
          {"output_ptr", "input_ptr", "input_row_stride", "output_row_stride",
           "n_rows", "n_cols", "scale", "BLOCK_SIZE"});
  return kernel;
}

Autotuner &softmaxScaleTuner() {
  constexpr RowArgPositions where = {1, 4, 5, 7};
  static Autotuner tuner(
      softmaxScale(),
      rowTuningSpec(where, {rowMajorBuffer("output_ptr", 0, 3, where)}));
  return tuner;
}

static KernelRegistration
    registration(rowKernelEntry("softmax_scale", "row-wise softmax(x) * scale",
                                softmaxScale(), softmaxScaleTuner));

} // namespace blockjit::examples
