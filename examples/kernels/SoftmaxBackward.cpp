//===- SoftmaxBackward.cpp - the gradient of softmax's input -------------===//
//
// dx = y * (dy - sum(y * dy)) per row, where y is softmax's output and dy
// the gradient of its output: softmax's persistent rows (Softmax.cpp), two
// rows read and one written per row, one reduction.
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/FamilyRegistration.h"
#include "examples/kernels/Kernels.h"
#include "examples/kernels/RowTuning.h"

namespace blockjit::examples {

void softmax_backward_kernel(Ptr<> dx_ptr, Ptr<> y_ptr, Ptr<> dy_ptr,
                             Int dx_row_stride, Int y_row_stride,
                             Int dy_row_stride, Int n_rows, Int n_cols,
                             Constexpr BLOCK_SIZE) {
  Int row_start = program_id(0);
  Int row_step = num_programs(0);
  for_range(row_start, n_rows, row_step, [&](Int row_idx) {
    Tensor col_offsets = arange(0, BLOCK_SIZE);
    Tensor mask = col_offsets < n_cols;
    // Masked lanes read 0: they add nothing to the sum.
    Tensor y = load(y_ptr + row_idx * y_row_stride + col_offsets, mask, 0)
                   .to(DType::F32);
    Tensor dy = load(dy_ptr + row_idx * dy_row_stride + col_offsets, mask, 0)
                    .to(DType::F32);
    Tensor dot = sum(y * dy, 0);
    Tensor dx = y * (dy - dot);
    store(dx_ptr + row_idx * dx_row_stride + col_offsets, dx, mask);
  });
}

const std::shared_ptr<KernelDef> &softmaxBackward() {
  static auto kernel =
      jit("softmax_backward", softmax_backward_kernel,
          {"dx_ptr", "y_ptr", "dy_ptr", "dx_row_stride", "y_row_stride",
           "dy_row_stride", "n_rows", "n_cols", "BLOCK_SIZE"});
  return kernel;
}

Autotuner &softmaxBackwardTuner() {
  constexpr RowArgPositions where = {1, 6, 7, 8};
  static Autotuner tuner(
      softmaxBackward(),
      rowTuningSpec(where, {rowMajorBuffer("dx_ptr", 0, 3, where)}));
  return tuner;
}

static KernelRegistration registration(rowKernelEntry(
    "softmax_backward", "softmax's backward: dx = y * (dy - sum(y * dy))",
    softmaxBackward(), softmaxBackwardTuner));

} // namespace blockjit::examples
