//===- SoftmaxOnline.cpp - softmax of rows longer than one block ---------===//
//
// For rows too long for one program to hold (softmax keeps a whole row in
// registers): each program walks rows pid, pid + num_programs, ... and reads
// a row twice in chunks of BLOCK_SIZE elements. Pass 1 keeps, per lane of
// the chunk, a running maximum m and a running sum s of exp(x - m) (the
// online update m' = max(m, x), s' = s * exp(m - m') + exp(x - m')); the
// lanes are then combined into the row's maximum M and sum S. Pass 2 re-reads
// the row and writes exp(x - M) / S. Two reads and one write per element.
//
// The special values give what softmax (and torch.softmax) gives: a NaN or a
// +inf anywhere in a row, or a row of only -inf, makes the whole row NaN; a
// -inf element of any other row gives 0.
//
// In place (output_ptr == input_ptr) needs, on the GPU, a chunk of at least
// 32 * num_warps elements: a smaller block is held by several threads, each
// of which stores it, and pass 2 has no barrier between a thread's load and
// another thread's store of the same element (softmax reads the whole row
// before its reductions' barriers, so it has no such window).
//
//===----------------------------------------------------------------------===//
#include "compiler/gpu/Layout.h"
#include "examples/kernels/Kernels.h"
#include "examples/kernels/SoftmaxSignature.h"

#include <cmath>

namespace blockjit::examples {

// softmax holds at most 32 warps x 32 threads x kMaxElementsPerThread.
static_assert(kSoftmaxMaxBlock == 32 * kWarpSize * kMaxElementsPerThread);

void softmax_online_kernel(Ptr<> output_ptr, Ptr<> input_ptr,
                           Int input_row_stride, Int output_row_stride,
                           Int n_rows, Int n_cols, Constexpr BLOCK_SIZE) {
  Int row_start = program_id(0);
  Int row_step = num_programs(0);
  for_range(row_start, n_rows, row_step, [&](Int row_idx) {
    Tensor row_start_ptr = input_ptr + row_idx * input_row_stride;
    Tensor output_row_start_ptr = output_ptr + row_idx * output_row_stride;
    // Pass 1: per-lane running maximum and sum of exponentials, in f32
    // whatever the input type. Masked lanes read -inf and change neither.
    std::vector<Tensor> running = for_range(
        0, n_cols, BLOCK_SIZE,
        {full({BLOCK_SIZE}, -INFINITY, DType::F32),
         full({BLOCK_SIZE}, 0.0, DType::F32)},
        [&](Int chunk_start, std::vector<Tensor> carried) {
          Tensor col_offsets = chunk_start + arange(0, BLOCK_SIZE);
          Tensor mask = col_offsets < n_cols;
          Tensor x =
              load(row_start_ptr + col_offsets, mask, -INFINITY).to(DType::F32);
          Tensor m = carried[0], s = carried[1];
          // NaN propagates through maximum, and then through s.
          Tensor m_new = maximum(m, x);
          // While a lane has seen only -inf, m_new is -inf and
          // exp(-inf - -inf) would be NaN: subtract 0 instead, so that the
          // lane's sum stays 0. A +inf keeps m_new (exp(inf - inf) is NaN,
          // which is the row's result, as in softmax).
          Tensor shift = where(m_new == -INFINITY, 0.0, m_new);
          Tensor s_new = s * exp(m - shift) + exp(x - shift);
          return std::vector<Tensor>{m_new, s_new};
        });
    // The row's maximum and sum: each lane's sum rescaled to the maximum.
    // A row of only -inf has row_max -inf, and x - row_max below is NaN, as
    // in softmax; lanes that saw only -inf add 0 * exp(-inf - row_max) = 0.
    Tensor row_max = max(running[0], 0);
    Tensor row_sum = sum(running[1] * exp(running[0] - row_max), 0);
    // Pass 2: re-read the row and write exp(x - row_max) / row_sum, in the
    // output's element type.
    for_range(0, n_cols, BLOCK_SIZE, [&](Int chunk_start) {
      Tensor col_offsets = chunk_start + arange(0, BLOCK_SIZE);
      Tensor mask = col_offsets < n_cols;
      Tensor x =
          load(row_start_ptr + col_offsets, mask, -INFINITY).to(DType::F32);
      Tensor softmax_output = exp(x - row_max) / row_sum;
      store(output_row_start_ptr + col_offsets, softmax_output, mask);
    });
  });
}

const std::shared_ptr<KernelDef> &softmaxOnline() {
  static auto kernel =
      jit("softmax_online", softmax_online_kernel, softmaxParamNames());
  return kernel;
}

static KernelRegistration registration({
    "softmax_online",
    "softmax of long rows in chunks (running max and sum, two reads)",
    softmaxOnline(),
    softmaxExampleKey,
    softmaxOnlineTuner,
});

} // namespace blockjit::examples
