//===- SoftmaxTemperature.cpp - softmax(x / temperature) -----------------===//
//
// softmax's structure (Softmax.cpp) with the row divided by a runtime
// temperature first (an IEEE division, as x / T in torch; the reciprocal
// times x would round twice).
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/FamilyRegistration.h"
#include "examples/kernels/Kernels.h"
#include "examples/kernels/RowTuning.h"

#include <cmath>

namespace blockjit::examples {

void softmax_temperature_kernel(Ptr<> output_ptr, Ptr<> input_ptr,
                                Int input_row_stride, Int output_row_stride,
                                Int n_rows, Int n_cols, Float temperature,
                                Constexpr BLOCK_SIZE) {
  Int row_start = program_id(0);
  Int row_step = num_programs(0);
  for_range(row_start, n_rows, row_step, [&](Int row_idx) {
    Tensor col_offsets = arange(0, BLOCK_SIZE);
    Tensor mask = col_offsets < n_cols;
    Tensor input_ptrs = input_ptr + row_idx * input_row_stride + col_offsets;
    // Masked lanes read what is -inf after the division: +inf for a negative
    // temperature. (A where() on the quotient instead costs 10x on the CPU.)
    Tensor masked_value = where(temperature < 0, INFINITY, -INFINITY);
    Tensor row =
        load(input_ptrs, mask, masked_value).to(DType::F32) / temperature;
    Tensor numerator = exp(row - max(row, 0));
    Tensor softmax_output = numerator / sum(numerator, 0);
    Tensor output_ptrs = output_ptr + row_idx * output_row_stride + col_offsets;
    store(output_ptrs, softmax_output, mask);
  });
}

const std::shared_ptr<KernelDef> &softmaxTemperature() {
  static auto kernel =
      jit("softmax_temperature", softmax_temperature_kernel,
          {"output_ptr", "input_ptr", "input_row_stride", "output_row_stride",
           "n_rows", "n_cols", "temperature", "BLOCK_SIZE"});
  return kernel;
}

Autotuner &softmaxTemperatureTuner() {
  constexpr RowArgPositions where = {1, 4, 5, 7};
  static Autotuner tuner(
      softmaxTemperature(),
      rowTuningSpec(where, {rowMajorBuffer("output_ptr", 0, 3, where)}));
  return tuner;
}

static KernelRegistration registration(
    rowKernelEntry("softmax_temperature", "row-wise softmax(x / temperature)",
                   softmaxTemperature(), softmaxTemperatureTuner));

} // namespace blockjit::examples
