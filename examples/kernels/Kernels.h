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

/// How softmax runs rows of BLOCK_SIZE elements of `elementBytes` each on
/// the GPU: num_warps, num_stages and num_ctas.
struct SoftmaxConfig {
  int numWarps = 4;
  int numStages = 1;
  int numCTAs = 1;
};
/// The long-row heuristic, until the autotuner chooses: up to 16384 the
/// one-CTA rule above; beyond, a thread-block cluster that gives each CTA
/// 16384 to 32768 elements, measured on the H100 with
/// bench/tune_softmax_cluster.py (docs/tune_softmax_cluster*.csv) with
/// softmax's reductions fused into one exchange per row. Most keep the next
/// row in flight (num_stages 2) where registers allow.
/// bench/softmax_long_rows.py uses the same table.
inline SoftmaxConfig softmaxConfig(int64_t blockSize, int elementBytes) {
  if (blockSize <= 16384)
    return {softmaxNumWarps(blockSize), softmaxNumStages(blockSize), 1};
  bool narrow = elementBytes <= 2;
  if (blockSize == 32768)
    return narrow ? SoftmaxConfig{16, 2, 1} : SoftmaxConfig{32, 1, 1};
  if (blockSize == 65536)
    return narrow ? SoftmaxConfig{4, 2, 4} : SoftmaxConfig{16, 1, 2};
  if (blockSize == 131072)
    return narrow ? SoftmaxConfig{8, 2, 8} : SoftmaxConfig{8, 2, 8};
  if (blockSize == 262144)
    return narrow ? SoftmaxConfig{8, 2, 16} : SoftmaxConfig{16, 1, 8};
  // 2^19 and 2^20 (kSoftmaxMaxBlock): 16 CTAs, 32 or 64 elements per thread.
  int warps = int(std::min<int64_t>(32, blockSize / (16 * 1024)));
  return {warps, narrow ? 2 : 1, 16};
}

/// softmax_online(output_ptr, input_ptr, input_row_stride,
///                output_row_stride, n_rows, n_cols; BLOCK_SIZE): the same
/// softmax for rows longer than one block: each row is read twice in chunks
/// of BLOCK_SIZE (any power of two; n_cols is not bounded by it), with a
/// running max and sum in f32, and written once (SoftmaxOnline.cpp).
const std::shared_ptr<KernelDef> &softmaxOnline();
/// The largest block softmax holds in one program: on the GPU 32 warps of
/// 32 threads with kMaxElementsPerThread (compiler/gpu/Layout.h, 1024)
/// elements each; the CPU backend takes the same bound (beyond it the
/// row's f32 temporaries outgrow the caches while a chunk stays in L1/L2).
inline constexpr int64_t kSoftmaxMaxBlock = int64_t(1) << 20;
/// Whether a row of `cols` elements needs softmax_online (its block,
/// next_power_of_2(cols), would exceed kSoftmaxMaxBlock).
inline bool softmaxNeedsOnline(int64_t cols) { return cols > kSoftmaxMaxBlock; }
/// softmax_online's chunk and num_warps: 4096 elements over 8 warps, 16 per
/// thread (four 16-byte vector loads of f32).
inline constexpr int64_t kSoftmaxOnlineBlock = 4096;
inline constexpr int kSoftmaxOnlineNumWarps = 8;

/// vector_add(x_ptr, y_ptr, output_ptr, n_elements; BLOCK_SIZE)
const std::shared_ptr<KernelDef> &vectorAdd();

} // namespace blockjit::examples

#endif // BLOCKJIT_EXAMPLES_KERNELS_KERNELS_H
