//===- Layout.h - which thread owns which block element --------*- C++ -*-===//
#ifndef BLOCKJIT_COMPILER_GPU_LAYOUT_H
#define BLOCKJIT_COMPILER_GPU_LAYOUT_H

#include "mlir/IR/BuiltinTypes.h"

#include <cstdint>

namespace blockjit {

inline constexpr int kWarpSize = 32;
inline constexpr const char *kNumWarpsAttr = "blk.num_warps";
/// The most block elements one GPU thread may own. Its registers hold them
/// all, spilling beyond ~200; code generation time grows faster than the
/// block past this (ptxas on sm_90: 512 per thread ~1 s, 1024 ~4 s, 2048
/// ~3 minutes).
inline constexpr int64_t kMaxElementsPerThread = 1024;

/// The element-to-thread map of a #blk.blocked block, in numbers. A block of
/// any rank is distributed through its row-major linear index, like a 1-D
/// block of all its elements.
struct Layout1D {
  int64_t size = 1;     // elements in the block
  int64_t vector = 1;   // contiguous elements per chunk (sizePerThread)
  int64_t threads = 32; // threads per program
  int64_t tile() const { return vector * threads; }
  /// Elements each thread owns: whole chunks, repeated over the block.
  int64_t perThread() const {
    return vector * std::max<int64_t>(1, size / tile());
  }
  /// Element k of thread t sits at (rawIndex % size); raw indices >= size
  /// are replicas (blocks smaller than one tile).
  int64_t rawIndex(int64_t thread, int64_t k) const {
    return (k / vector) * tile() + thread * vector + k % vector;
  }
  bool replicated() const { return size < tile(); }
};

/// The 1-D layout of a laid-out block type (asserts it has one).
Layout1D layoutOf(mlir::RankedTensorType type);

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_GPU_LAYOUT_H
