//===- Kernels.h - the example kernels shipped with blockjit ---*- C++ -*-===//
#ifndef BLOCKJIT_EXAMPLES_KERNELS_KERNELS_H
#define BLOCKJIT_EXAMPLES_KERNELS_KERNELS_H

#include "frontend/blockjit.h"

#include <algorithm>

namespace blockjit::examples {

/// softmax(output_ptr, input_ptr, input_row_stride, output_row_stride,
///         n_rows, n_cols; BLOCK_SIZE)
const std::shared_ptr<KernelDef> &softmax();
/// num_warps and num_stages for softmax rows of BLOCK_SIZE elements on the
/// GPU, measured on the H100 with bench/tune_softmax_warps.py: from 2048 on,
/// 64 elements per thread with the next row prefetched (num_stages 2).
inline int softmaxNumWarps(int64_t blockSize) {
  if (blockSize <= 512)
    return 2;
  if (blockSize == 1024)
    return 4;
  // Beyond 2^19, 16 warps would exceed the GPU backend's 1024 elements per
  // thread: all 32 (rows that long belong in shared memory or a cluster).
  if (blockSize > (int64_t(1) << 19))
    return 32;
  return int(std::min<int64_t>(16, blockSize / 2048));
}
inline int softmaxNumStages(int64_t blockSize) {
  return blockSize == 512 ? 1 : 2;
}

/// vector_add(x_ptr, y_ptr, output_ptr, n_elements; BLOCK_SIZE)
const std::shared_ptr<KernelDef> &vectorAdd();

} // namespace blockjit::examples

#endif // BLOCKJIT_EXAMPLES_KERNELS_KERNELS_H
