//===- Kernels.h - the example kernels shipped with blockjit ---*- C++ -*-===//
#ifndef BLOCKJIT_EXAMPLES_KERNELS_KERNELS_H
#define BLOCKJIT_EXAMPLES_KERNELS_KERNELS_H

#include "frontend/blockjit.h"

#include <algorithm>

namespace blockjit::examples {

/// softmax(output_ptr, input_ptr, input_row_stride, output_row_stride,
///         n_rows, n_cols; BLOCK_SIZE)
const std::shared_ptr<KernelDef> &softmax();
/// num_warps for softmax rows of BLOCK_SIZE elements on the GPU: about 32
/// elements per thread (measured on the H100 by bench/tune_softmax_warps.py).
inline int softmaxNumWarps(int64_t blockSize) {
  if (blockSize == 2048)
    return 4;
  return int(std::max<int64_t>(1, std::min<int64_t>(16, blockSize / 1024)));
}

/// vector_add(x_ptr, y_ptr, output_ptr, n_elements; BLOCK_SIZE)
const std::shared_ptr<KernelDef> &vectorAdd();

} // namespace blockjit::examples

#endif // BLOCKJIT_EXAMPLES_KERNELS_KERNELS_H
