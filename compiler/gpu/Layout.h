//===- Layout.h - which thread holds which block element --------*- C++ -*-===//
//
// The maps of the #blkgpu layouts in numbers (docs/LAYOUTS.md): the general
// per-dimension map of the register layouts, the shared-memory swizzle, and
// the 1-D view (Layout1D) of the linear layouts the GPU lowering implements
// today.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_COMPILER_GPU_LAYOUT_H
#define BLOCKJIT_COMPILER_GPU_LAYOUT_H

#include "dialect/gpu/BlkGPUDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace blockjit {

inline constexpr int kWarpSize = int(blkgpu::kWarpSize);
inline constexpr llvm::StringLiteral kNumWarpsAttr =
    blkgpu::BlkGPUDialect::kNumWarpsAttrName;
inline constexpr llvm::StringLiteral kNumCTAsAttr =
    blkgpu::BlkGPUDialect::kNumCTAsAttrName;
inline constexpr llvm::StringLiteral kProgramsPerCTAAttr =
    blkgpu::BlkGPUDialect::kProgramsPerCTAAttrName;
inline constexpr llvm::StringLiteral kDynamicSharedBytesAttr =
    blkgpu::BlkGPUDialect::kDynamicSharedBytesAttrName;
/// The most block elements one GPU thread may own. Its registers hold them
/// all, spilling beyond ~200; code generation time grows faster than the
/// block past this (ptxas on sm_90: 512 per thread ~1 s, 1024 ~4 s, 2048
/// ~3 minutes).
inline constexpr int64_t kMaxElementsPerThread = 1024;

//===----------------------------------------------------------------------===//
// The per-dimension map of #blkgpu.blocked and #blkgpu.slice
//===----------------------------------------------------------------------===//

/// Where a register layout puts the elements of a block of one shape: the
/// coordinates held by register k of thread t of CTA c. Holders whose
/// position falls outside the block (a block smaller than the tile, threads
/// along a sliced dimension, CTAs past the pieces) hold replicas: every
/// element has exactly one holder that is not a replica, its owner.
class DistributedMap {
public:
  /// The map of `layout` (a #blkgpu.blocked or #blkgpu.slice) on a block of
  /// `shape`; nullopt if it is neither or does not fit the shape (rank,
  /// static power-of-two sizes), which a verified tensor type rules out.
  static std::optional<DistributedMap> get(mlir::Attribute layout,
                                           llvm::ArrayRef<int64_t> shape);

  int64_t numCTAs() const;
  int64_t threadsPerCTA() const;
  int64_t elementsPerThread() const;

  /// The coordinates (in the block) of register `k` of thread `thread` of
  /// CTA `cta`, wrapped into the block.
  llvm::SmallVector<int64_t> coordinates(int64_t cta, int64_t thread,
                                         int64_t k) const;
  /// Whether that register holds a replica rather than the element's owner.
  bool isReplica(int64_t cta, int64_t thread, int64_t k) const;

private:
  // Everything is in the dimensions of the root #blkgpu.blocked: the block's
  // shape with a 1 inserted at each sliced dimension.
  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<bool> sliced;
  llvm::SmallVector<int64_t> sizePerThread, threadsPerWarp, warpsPerCTA;
  llvm::SmallVector<unsigned> order;
  blkgpu::CTALayout cta;

  /// Per dimension: the position of the holder within its CTA's piece
  /// (possibly past it), the CTA's position, and the piece's size.
  struct Position {
    llvm::SmallVector<int64_t> local, ctaPosition, pieceSize;
  };
  Position position(int64_t cta, int64_t thread, int64_t k) const;
  int64_t registersAlong(unsigned d) const;
  int64_t repeatsAlong(unsigned d) const;
};

//===----------------------------------------------------------------------===//
// The map of #blkgpu.shared
//===----------------------------------------------------------------------===//

/// The offset, in elements, at which `layout` stores the element at
/// `coordinates` of a CTA's piece of shape `shape` in shared memory.
int64_t sharedOffset(blkgpu::SharedLayoutAttr layout,
                     llvm::ArrayRef<int64_t> shape,
                     llvm::ArrayRef<int64_t> coordinates);

//===----------------------------------------------------------------------===//
// The linear layouts: what blk-assign-layouts assigns and the lowering
// implements
//===----------------------------------------------------------------------===//

/// The element-to-thread map of a linear layout, in numbers. A block of any
/// rank is distributed through its row-major linear index, like a 1-D block
/// of all its elements. A block split over the CTAs of a cluster gives its
/// tiles to the CTAs in turn (tile i to CTA i % ctas), so that a row's
/// masked tail costs every CTA alike; a block that is not split is held
/// whole by every CTA.
struct Layout1D {
  int64_t size = 1;     // elements in the block
  int64_t vector = 1;   // contiguous elements per chunk (sizePerThread)
  int64_t threads = 32; // threads per CTA
  int64_t ctas = 1;     // pieces, one per CTA of the cluster (1: not split)
  int64_t piece() const { return size / ctas; }
  int64_t tile() const { return vector * threads; }
  /// Elements each thread owns: whole chunks, repeated over its piece.
  int64_t perThread() const {
    return vector * std::max<int64_t>(1, piece() / tile());
  }
  /// Element k of thread t sits at (rawIndex % piece) of its CTA's piece;
  /// raw indices >= piece are replicas (blocks smaller than one tile).
  int64_t rawIndex(int64_t thread, int64_t k) const {
    return (k / vector) * tile() + thread * vector + k % vector;
  }
  bool replicated() const { return piece() < tile(); }
  bool split() const { return ctas > 1; }
  /// The block element that register k of thread t of CTA c holds: its
  /// thread's chunk of tile (k / vector) of the CTA's turns.
  int64_t index(int64_t cta, int64_t thread, int64_t k) const {
    if (!split())
      return rawIndex(thread, k) % size;
    return ((k / vector) * ctas + cta) * tile() + thread * vector + k % vector;
  }
};

/// Where the bits of one dimension's coordinate live in a linear layout.
/// The row-major linear index's bits are the coordinates' bits (power-of-two
/// shapes); Layout1D puts index bit i < a in register bit i, the next b bits
/// in thread bits, the next c bits (a split block) in the CTA's rank, and
/// the rest in register bits above the chunk (a = log2 vector, b = log2
/// threads, c = log2 ctas).
struct AxisBits {
  int64_t registerMask = 0, threadMask = 0, ctaMask = 0;
};
AxisBits axisBitsOf(llvm::ArrayRef<int64_t> shape, const Layout1D &layout,
                    int64_t axis);

/// The bits of a thread's register index along the blkgpu.stretched_dims
/// of `load` (a blk.load laid out as `layout`; 0 without the mark, or where
/// such a bit falls inside a vector chunk): its pointers, mask and `other`
/// are the same in registers that differ only there, so one of them is
/// loaded (Memory.cpp) and held (StageInShared.cpp counts it once).
int64_t stretchedRegisterBits(mlir::Operation *load, const Layout1D &layout);

/// Each value exchanged across a cluster takes an 8-byte slot of the
/// cluster buffer (every scalar fits), in each of its two halves.
inline constexpr int64_t kClusterSlotBytes = 8;

/// Slots of the cluster buffer a CTA's 32-bit partials of `groups` lines
/// take in an all_reduce's exchange: packed, four to an aligned pair of
/// slots (16 bytes, one st.async.v4 and one vector load), one or two to a
/// slot.
inline int64_t clusterLineSlots(int64_t groups) {
  return groups <= 2 ? 1 : 2 * ((groups + 3) / 4);
}

/// Bytes of cluster buffer that hold `halfSlots` slots in each of its two
/// halves, which interleave in 16-byte blocks of two slots.
inline int64_t clusterBufferBytes(int64_t halfSlots) {
  return 2 * int64_t(llvm::alignTo(halfSlots, 2)) * kClusterSlotBytes;
}
/// The most bytes of cluster buffer one all_reduce of a split block may
/// take: it is static shared memory, beside the scratch array, under the
/// 48 KB static limit.
inline constexpr int64_t kMaxClusterAllReduceBytes = 16384;

/// Whether a reduction of `element`s (blk.reduce, blkgpu.all_reduce) may
/// combine its partials across the CTAs of a cluster: accumulators of at
/// most 32 bits; 64-bit ones are not supported there yet.
bool partialsCrossCluster(mlir::Type element);

/// The bytes of cluster buffer a blkgpu.all_reduce of a block of `shape`
/// along `axis` takes, both halves: each CTA sends every CTA one value per
/// line of its piece, packed (clusterLineSlots). 0 when the axis keeps
/// within each CTA (no exchange).
int64_t clusterAllReduceBytes(llvm::ArrayRef<int64_t> shape,
                              const Layout1D &layout, int64_t axis);

/// The #blkgpu.blocked layout that spreads a block of `shape` (power-of-two
/// sizes) through its row-major linear index: `vector` consecutive elements
/// per thread, then 32 lanes, then `numWarps` warps, then `splitCTAs` CTAs
/// of a cluster of `clusterCTAs` (1 = every CTA holds the whole block),
/// each filling the dimensions innermost first (what is left goes to
/// dimension 0, which then wraps), then repeats. The CTAs thus take turns
/// tile by tile (Layout1D::index). E.g. a [R, C] block with C
/// >= vector * threads gets sizePerThread = [1, vector], threadsPerWarp =
/// [1, 32], warpsPerCTA = [1, numWarps], order = [1, 0].
blkgpu::BlockedLayoutAttr linearBlockedLayout(mlir::MLIRContext *context,
                                              llvm::ArrayRef<int64_t> shape,
                                              int64_t vector, int numWarps,
                                              int64_t clusterCTAs = 1,
                                              int64_t splitCTAs = 1);

/// The 1-D view of `type`'s layout, if it is the linear #blkgpu.blocked
/// layout of its own vector (sizePerThread's product) and warps.
std::optional<Layout1D> linearLayoutOf(mlir::RankedTensorType type);

/// The 1-D view of a block type with a linear layout (asserts it has one:
/// verifyLinearLayouts reports the others as errors).
Layout1D layoutOf(mlir::RankedTensorType type);

/// The CTAs per program `module` records (blkgpu.num_ctas; 1 without it).
int numCTAsOf(mlir::ModuleOp module);
/// The programs per CTA `module` records (blkgpu.programs_per_cta; 1
/// without it).
int programsPerCTAOf(mlir::ModuleOp module);
/// The threads of a CTA of `module`: num_warps x kWarpSize x its programs
/// per CTA; 0 without blkgpu.num_warps (nothing laid out per thread yet).
/// The one count %tid.x's range, maxntid and shared-memory staging use.
int64_t threadsPerCTAOf(mlir::ModuleOp module);

/// Reports (as errors on the ops) every block under `root` whose layout the
/// GPU lowering does not implement: no layout, not the linear layout of
/// `numWarps` warps in a cluster of `numCTAs`, or not the one layout every
/// block of its element count shares (the lowering has no layout
/// conversions).
mlir::LogicalResult verifyLinearLayouts(mlir::Operation *root, int numWarps,
                                        int numCTAs = 1);

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_GPU_LAYOUT_H
