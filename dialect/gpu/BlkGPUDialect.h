//===- BlkGPUDialect.h - the blkgpu dialect: GPU block layouts --*- C++ -*-===//
#ifndef BLOCKJIT_DIALECT_GPU_BLKGPUDIALECT_H
#define BLOCKJIT_DIALECT_GPU_BLKGPUDIALECT_H

#include "dialect/BlkDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/IR/TensorEncoding.h"
#include "llvm/ADT/SmallVector.h"

namespace blockjit::blkgpu {

/// Threads per warp: what the threadsPerWarp of every layout multiply to.
inline constexpr unsigned kWarpSize = 32;
/// The most warps a CTA may have (1024 threads, the CUDA limit).
inline constexpr unsigned kMaxWarpsPerCTA = 32;
/// CTAs of one cluster (16 is non-portable on sm_90).
inline constexpr unsigned kMaxCTAsPerCluster = 16;
/// Programs sharing one CTA: each synchronizes on a named barrier of its
/// own, and a CTA has 16.
inline constexpr unsigned kMaxProgramsPerCTA = 16;

/// The CTA part of a layout: `CTAsPerCluster[d]` CTAs along dimension d, the
/// block cut into `CTASplitNum[d]` pieces along d, CTA indices split over
/// the dimensions in `CTAOrder` (fastest first).
struct CTALayout {
  llvm::SmallVector<unsigned> CTAsPerCluster, CTASplitNum, CTAOrder;

  /// One CTA holding the whole block: the default, which is not printed.
  static CTALayout single(unsigned rank);
  bool isSingle() const { return *this == single(CTAOrder.size()); }
  unsigned numCTAs() const;
  bool operator==(const CTALayout &other) const = default;
};

} // namespace blockjit::blkgpu

#include "dialect/gpu/BlkGPUDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/gpu/BlkGPUAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialect/gpu/BlkGPUOps.h.inc"

namespace blockjit::blkgpu {

/// Whether `layout` spreads a block over registers (a #blkgpu.blocked or a
/// #blkgpu.slice), as opposed to shared memory.
bool isDistributedLayout(mlir::Attribute layout);

/// The #blkgpu.blocked at the root of a distributed layout (itself, or the
/// parent of its slices); null for any other attribute.
BlockedLayoutAttr rootBlockedLayout(mlir::Attribute layout);

/// Warps per CTA of a distributed layout (the product of its root's
/// warpsPerCTA); 0 for any other attribute.
int64_t warpsOf(mlir::Attribute layout);

/// CTAs of the cluster a distributed layout spreads over (the product of its
/// root's CTAsPerCluster); 0 for any other attribute.
int64_t clusterCTAsOf(mlir::Attribute layout);

} // namespace blockjit::blkgpu

#endif // BLOCKJIT_DIALECT_GPU_BLKGPUDIALECT_H
