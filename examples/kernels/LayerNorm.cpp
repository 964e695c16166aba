//===- LayerNorm.cpp - fused layer normalization over rows ----------------===//
//
// (x - mean) * rstd * weight + bias per row, with the biased variance and
// rstd = 1 / sqrt(var + eps), as torch.nn.functional.layer_norm over the
// last dimension and Triton's layer-norm tutorial: softmax's persistent
// rows (Softmax.cpp), the row held in registers, two reductions (the mean,
// then the variance of the centred row, which is exact for constant rows).
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/FamilyRegistration.h"
#include "examples/kernels/Kernels.h"
#include "examples/kernels/RowTuning.h"

namespace blockjit::examples {

void layernorm_kernel(Ptr<> output_ptr, Ptr<> input_ptr, Ptr<> weight_ptr,
                      Ptr<> bias_ptr, Int input_row_stride,
                      Int output_row_stride, Int n_rows, Int n_cols, Float eps,
                      Constexpr BLOCK_SIZE) {
  Int row_start = program_id(0);
  Int row_step = num_programs(0);
  for_range(row_start, n_rows, row_step, [&](Int row_idx) {
    Tensor col_offsets = arange(0, BLOCK_SIZE);
    Tensor mask = col_offsets < n_cols;
    Tensor input_ptrs = input_ptr + row_idx * input_row_stride + col_offsets;
    Tensor x = load(input_ptrs, mask, 0).to(DType::F32);
    Tensor mean = sum(x, 0) / n_cols;
    // Masked lanes 0, so that they add nothing to the variance.
    Tensor centred = where(mask, x - mean, 0.0);
    Tensor variance = sum(centred * centred, 0) / n_cols;
    Tensor rstd = 1.0 / sqrt(variance + eps);
    // Weight and bias do not depend on the row: with num_stages >= 2 the
    // compiler loads them once, before the row loop (blk-pipeline-loads);
    // with 1 they are read per row (from L2) and only the row stays live
    // across the reductions.
    Tensor weight = load(weight_ptr + col_offsets, mask, 0).to(DType::F32);
    Tensor bias = load(bias_ptr + col_offsets, mask, 0).to(DType::F32);
    Tensor output = centred * rstd * weight + bias;
    Tensor output_ptrs = output_ptr + row_idx * output_row_stride + col_offsets;
    store(output_ptrs, output, mask);
  });
}

const std::shared_ptr<KernelDef> &layerNorm() {
  static auto kernel = jit("layernorm", layernorm_kernel,
                           {"output_ptr", "input_ptr", "weight_ptr", "bias_ptr",
                            "input_row_stride", "output_row_stride", "n_rows",
                            "n_cols", "eps", "BLOCK_SIZE"});
  return kernel;
}

Autotuner &layerNormTuner() {
  constexpr RowArgPositions where = {1, 6, 7, 9};
  static Autotuner tuner(
      layerNorm(),
      rowTuningSpec(where, {rowMajorBuffer("output_ptr", 0, 5, where)}));
  return tuner;
}

static KernelRegistration registration(rowKernelEntry(
    "layernorm", "fused layer normalization of rows (biased variance, eps)",
    layerNorm(), layerNormTuner));

} // namespace blockjit::examples
