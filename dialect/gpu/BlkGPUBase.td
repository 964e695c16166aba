//===- BlkGPUBase.td - the blkgpu dialect: GPU-only block layouts --------===//
#ifndef BLOCKJIT_DIALECT_GPU_BLKGPUBASE_TD
#define BLOCKJIT_DIALECT_GPU_BLKGPUBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def BlkGPU_Dialect : Dialect {
  let name = "blkgpu";
  let cppNamespace = "::blockjit::blkgpu";
  let summary = "How blocks of blk IR are laid out on a GPU";
  let description = [{
    The target-neutral `blk` dialect says what a program computes on whole
    blocks; this dialect says where a block's elements live on a GPU: which
    thread of which CTA holds each element in registers (`#blkgpu.blocked`,
    `#blkgpu.slice`), or how a block is stored in shared memory
    (`#blkgpu.shared`). The layouts are tensor encodings, attached by
    `blk-assign-layouts`. The module attribute `blkgpu.num_warps` records
    the warps of every CTA, `blkgpu.num_ctas` the CTAs of the cluster that
    runs one program (absent: 1), and `blkgpu.cluster_fallback` why a kernel
    asked for a cluster runs each program in one CTA. docs/LAYOUTS.md
    describes each map.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  // blkgpu.all_reduce carries blk's reduce kind attribute.
  let dependentDialects = ["::blockjit::blk::BlkDialect"];
  let extraClassDeclaration = [{
    /// The module attribute holding the warps per CTA (an i32).
    static constexpr ::llvm::StringLiteral kNumWarpsAttrName =
        "blkgpu.num_warps";
    /// The module attribute holding the CTAs per program (an i32; absent: 1).
    static constexpr ::llvm::StringLiteral kNumCTAsAttrName =
        "blkgpu.num_ctas";
    /// The module attribute holding the programs that share one CTA, each
    /// on its own blkgpu.num_warps warps (an i32; absent: 1).
    static constexpr ::llvm::StringLiteral kProgramsPerCTAAttrName =
        "blkgpu.programs_per_cta";
    /// The module attribute holding the dynamic shared memory the blocks
    /// kept on chip take per CTA, in bytes (an i64; absent: none).
    static constexpr ::llvm::StringLiteral kDynamicSharedBytesAttrName =
        "blkgpu.dynamic_shared_bytes";
    /// The module attribute saying why blocks too large for registers stay
    /// there (a string).
    static constexpr ::llvm::StringLiteral kResidencyAttrName =
        "blkgpu.residency";
    /// The module attribute saying why a cluster was asked for but each
    /// program runs in one CTA (a string).
    static constexpr ::llvm::StringLiteral kClusterFallbackAttrName =
        "blkgpu.cluster_fallback";
    /// A unit attribute on a blk.reduce of a block split over a cluster:
    /// reduce the CTA's own piece only (blk-fuse-cluster-softmax combines
    /// the pieces later, with blkgpu.cluster_softmax_stats).
    static constexpr ::llvm::StringLiteral kCTALocalAttrName =
        "blkgpu.cta_local";
    /// A unit attribute of blk.make_range and blk.broadcast (it matters on
    /// ranges and range broadcasts, which read the thread index):
    /// blk-rematerialize-addresses cloned the op in front of an access, and
    /// its indices come from a copy of the thread index that LLVM cannot
    /// see through, so they are computed there, neither hoisted nor shared.
    static constexpr ::llvm::StringLiteral kRematerializedAttrName =
        "blkgpu.rematerialized";
    /// A unit attribute of scf.if: blk-version-prefix-masks made it around
    /// one access, on a condition the same for the whole program; the GPU
    /// lowering carries blocks through it (no other scf.if may).
    static constexpr ::llvm::StringLiteral kVersionedAccessAttrName =
        "blkgpu.versioned_access";
    /// A unit attribute of blk.load: blk-version-prefix-masks found its
    /// mask changing in its loop and the same over each vector; the GPU
    /// lowering reads a vector that is off from a stand-in in global memory
    /// (its value then `other`) instead of branching around it.
    static constexpr ::llvm::StringLiteral kBranchFreeLoadAttrName =
        "blkgpu.branch_free";
    /// A dense i64 array on blk.load: the dimensions of its block along
    /// which its pointers, mask and `other` are the same (blk-sink-broadcasts
    /// stretched a loaded row over them). The GPU lowering loads one
    /// register of each run of a thread's registers that differ only along
    /// them and gives the others its values.
    static constexpr ::llvm::StringLiteral kStretchedDimsAttrName =
        "blkgpu.stretched_dims";

  private:
    void registerAttributes();

  public:
  }];
}

#endif // BLOCKJIT_DIALECT_GPU_BLKGPUBASE_TD
