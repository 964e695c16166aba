//===- BlkGPUAttrs.td - the layouts of blocks on a GPU --------------------===//
#ifndef BLOCKJIT_DIALECT_GPU_BLKGPUATTRS_TD
#define BLOCKJIT_DIALECT_GPU_BLKGPUATTRS_TD

include "dialect/gpu/BlkGPUBase.td"
include "mlir/IR/TensorEncoding.td"

class BlkGPU_Layout<string name, string layoutMnemonic>
    : AttrDef<BlkGPU_Dialect, name,
              [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let mnemonic = layoutMnemonic;
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

// The CTA part of a layout: how a block is split over the CTAs of a cluster.
defvar BlkGPU_CTAParameters = (ins ArrayRefParameter<"unsigned">:$CTAsPerCluster,
                                   ArrayRefParameter<"unsigned">:$CTASplitNum,
                                   ArrayRefParameter<"unsigned">:$CTAOrder);

def BlkGPU_BlockedLayoutAttr : BlkGPU_Layout<"BlockedLayout", "blocked"> {
  let summary = "a block spread over the registers of a CTA's threads, per dimension";
  let description = [{
    Which thread of which CTA holds each element of a block, dimension by
    dimension (Triton's blocked layout):

    ```mlir
    #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32],
                     warpsPerCTA = [1, 4], order = [1, 0]}>
    ```

    One CTA covers a tile of `sizePerThread[d] * threadsPerWarp[d] *
    warpsPerCTA[d]` elements along each dimension d. Thread t of the CTA is
    lane t % 32 of warp t / 32. The lane splits into positions l[d] <
    threadsPerWarp[d], dimensions taken in `order` (fastest first), and the
    warp likewise into w[d] < warpsPerCTA[d]. Along d the thread holds
    `sizePerThread[d]` consecutive elements from (w[d] * threadsPerWarp[d] +
    l[d]) * sizePerThread[d]. A block larger than the tile repeats it,
    shape[d] / tile[d] times along d. A thread's register k counts its
    elements of one tile first, dimensions in `order`, then the repeats,
    also in `order`. A block smaller than the tile wraps: coordinates are
    taken modulo its shape, and whatever wraps holds replicas.

    The CTA part splits the block over the CTAs of a cluster:
    `CTAsPerCluster[d]` CTAs along d (a CTA's index split in `CTAOrder`);
    `CTASplitNum[d]` of them share dimension d, and the CTA at position p[d]
    holds share p[d] % CTASplitNum[d] (CTAs past the shares hold replicas).
    Along d the shares take turns tile by tile: when a share holds several
    tiles, repeat j of the tile in share p covers tile j * CTASplitNum[d] + p
    of the dimension; otherwise share p is the contiguous range p (see
    docs/LAYOUTS.md). It defaults to
    one CTA (all 1, `CTAOrder` = [rank-1, ..., 0]) and is printed only when
    it differs.

    Every entry is a power of two; threadsPerWarp makes 32 threads, and
    warpsPerCTA the module's `blkgpu.num_warps` warps (at most 32); `order` and
    `CTAOrder` are permutations of the dimensions; a dimension is split
    into at most its CTAs. As an encoding, the rank is the block's.
  }];
  let parameters = !con((ins ArrayRefParameter<"unsigned">:$sizePerThread,
                             ArrayRefParameter<"unsigned">:$threadsPerWarp,
                             ArrayRefParameter<"unsigned">:$warpsPerCTA,
                             ArrayRefParameter<"unsigned">:$order),
                        BlkGPU_CTAParameters);
  let builders = [
    AttrBuilder<(ins "::llvm::ArrayRef<unsigned>":$sizePerThread,
                     "::llvm::ArrayRef<unsigned>":$threadsPerWarp,
                     "::llvm::ArrayRef<unsigned>":$warpsPerCTA,
                     "::llvm::ArrayRef<unsigned>":$order), [{
      CTALayout cta = CTALayout::single(order.size());
      return $_get($_ctxt, sizePerThread, threadsPerWarp, warpsPerCTA, order,
                   cta.CTAsPerCluster, cta.CTASplitNum, cta.CTAOrder);
    }]>
  ];
  let extraClassDeclaration = [{
    unsigned getRank() const { return getOrder().size(); }
    CTALayout getCTALayout() const {
      return {llvm::to_vector(getCTAsPerCluster()),
              llvm::to_vector(getCTASplitNum()),
              llvm::to_vector(getCTAOrder())};
    }
  }];
}

def BlkGPU_SliceLayoutAttr : BlkGPU_Layout<"SliceLayout", "slice"> {
  let summary = "the layout of a block reduced along one dimension of its parent";
  let description = [{
    The layout of the result of reducing a block laid out as `parent` (a
    `#blkgpu.blocked` or another slice) along dimension `dim`; its rank is
    the parent's minus one:

    ```mlir
    #blkgpu.slice<{dim = 1, parent = #blkgpu.blocked<{sizePerThread = [1, 4],
        threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>}>
    ```

    Its map is the parent's on the block's shape with a dimension of size 1
    inserted at `dim`, with `dim` then dropped from the coordinates: the
    threads that differ only along `dim` hold the same elements (all but
    position 0 are replicas), and the registers along `dim` collapse into
    one. A reduction along `dim` thus ends with its result in every thread
    that held part of its row, with no data moved.
  }];
  let parameters = (ins "unsigned":$dim, "::mlir::Attribute":$parent);
  let extraClassDeclaration = [{
    unsigned getRank() const;
  }];
}

def BlkGPU_SharedLayoutAttr : BlkGPU_Layout<"SharedLayout", "shared"> {
  let summary = "a block held in shared memory, rows swizzled";
  let description = [{
    A block stored in the shared memory of its CTA instead of registers:

    ```mlir
    #blkgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
    ```

    Dimension `order[0]` is contiguous, then `order[1]`, and so on. Along
    `order[0]` (columns, C of them) each row r (the index along
    `order[1]`; 0 for a 1-D block) is swizzled against bank conflicts: the
    element in column c is stored in column c xor ((phase * vec) mod C),
    phase = (r / perPhase) mod maxPhase. Groups of `vec` elements stay
    together; `maxPhase` = 1 does not swizzle. The CTA part is that of
    `#blkgpu.blocked`: each CTA holds its piece of the block.

    vec, perPhase and maxPhase are powers of two; `order` and `CTAOrder`
    are permutations of the dimensions.
  }];
  let parameters = !con((ins "unsigned":$vec, "unsigned":$perPhase,
                             "unsigned":$maxPhase,
                             ArrayRefParameter<"unsigned">:$order),
                        BlkGPU_CTAParameters);
  let builders = [
    AttrBuilder<(ins "unsigned":$vec, "unsigned":$perPhase,
                     "unsigned":$maxPhase,
                     "::llvm::ArrayRef<unsigned>":$order), [{
      CTALayout cta = CTALayout::single(order.size());
      return $_get($_ctxt, vec, perPhase, maxPhase, order, cta.CTAsPerCluster,
                   cta.CTASplitNum, cta.CTAOrder);
    }]>
  ];
  let extraClassDeclaration = [{
    unsigned getRank() const { return getOrder().size(); }
    CTALayout getCTALayout() const {
      return {llvm::to_vector(getCTAsPerCluster()),
              llvm::to_vector(getCTASplitNum()),
              llvm::to_vector(getCTAOrder())};
    }
  }];
}

#endif // BLOCKJIT_DIALECT_GPU_BLKGPUATTRS_TD
