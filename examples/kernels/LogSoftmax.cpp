//===- LogSoftmax.cpp - fused row-wise log-softmax -----------------------===//
//
// softmax's structure (Softmax.cpp) with the output x - max - log(sum):
// one read and one write per element, the row held in registers.
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/FamilyRegistration.h"
#include "examples/kernels/Kernels.h"
#include "examples/kernels/RowTuning.h"

#include <cmath>

namespace blockjit::examples {

void log_softmax_kernel(Ptr<> output_ptr, Ptr<> input_ptr, Int input_row_stride,
                        Int output_row_stride, Int n_rows, Int n_cols,
                        Constexpr BLOCK_SIZE) {
  Int row_start = program_id(0);
  Int row_step = num_programs(0);
  for_range(row_start, n_rows, row_step, [&](Int row_idx) {
    Tensor col_offsets = arange(0, BLOCK_SIZE);
    Tensor mask = col_offsets < n_cols;
    Tensor input_ptrs = input_ptr + row_idx * input_row_stride + col_offsets;
    Tensor row = load(input_ptrs, mask, -INFINITY).to(DType::F32);
    Tensor row_minus_max = row - max(row, 0);
    // log of a sum in [1, n_cols]: no overflow, no underflow.
    Tensor log_sum = log(sum(exp(row_minus_max), 0));
    Tensor output = row_minus_max - log_sum;
    Tensor output_ptrs = output_ptr + row_idx * output_row_stride + col_offsets;
    store(output_ptrs, output, mask);
  });
}

const std::shared_ptr<KernelDef> &logSoftmax() {
  static auto kernel =
      jit("log_softmax", log_softmax_kernel,
          {"output_ptr", "input_ptr", "input_row_stride", "output_row_stride",
           "n_rows", "n_cols", "BLOCK_SIZE"});
  return kernel;
}

Autotuner &logSoftmaxTuner() {
  constexpr RowArgPositions where = {1, 4, 5, 6};
  static Autotuner tuner(
      logSoftmax(),
      rowTuningSpec(where, {rowMajorBuffer("output_ptr", 0, 3, where)}));
  return tuner;
}

static KernelRegistration registration(rowKernelEntry(
    "log_softmax",
    "fused row-wise log-softmax: x - max - log(sum(exp(x - max)))",
    logSoftmax(), logSoftmaxTuner));

} // namespace blockjit::examples
