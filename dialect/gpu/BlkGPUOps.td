//===- BlkGPUOps.td - GPU-only operations on laid-out blocks --------------===//
#ifndef BLOCKJIT_DIALECT_GPU_BLKGPUOPS_TD
#define BLOCKJIT_DIALECT_GPU_BLKGPUOPS_TD

include "dialect/BlkBase.td"
include "dialect/gpu/BlkGPUBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def BlkGPU_ClusterSoftmaxStatsOp
    : Op<BlkGPU_Dialect, "cluster_softmax_stats",
         [AllTypesMatch<["local_max", "local_sum", "max", "sum"]>]> {
  let summary = "A block's max and sum of exp(x - max) from each CTA's own";
  let description = [{
    In a program that runs on a thread-block cluster, each CTA passes the
    maximum `local_max` of its piece of a block and `local_sum`, the sum of
    exp(x - local_max) over its piece (0 where local_max is -inf). The op
    exchanges the pairs across the cluster once and returns, in every CTA,
    the block's maximum `max` = max over CTAs of local_max, and `sum` =
    the sum over CTAs of local_sum * exp(local_max - max), a CTA with
    local_max = -inf adding 0. Every CTA combines the pairs in rank order, so
    all get the same bits. A NaN maximum propagates to both results.

    With `axis`, the operands are blocks of rank 2 or more, the results of
    CTA-local `blkgpu.all_reduce`s along `axis` (each element holds its
    line's max or sum over the CTA's piece), and each line is combined
    across the CTAs that hold a piece of it: every element of the results
    gets its line's `max` and `sum`. All lines travel in one exchange.

    `blk-fuse-cluster-softmax` makes it from the two reductions of softmax,
    halving the cluster round trips per row (or per strip of columns).

    ```mlir
    %max, %sum = blkgpu.cluster_softmax_stats %m, %s : f32
    %lmax, %lsum = blkgpu.cluster_softmax_stats %bm, %bs {axis = 0 : i32}
        : tensor<4096x16xf32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[AnyFloat, RankedTensorOf<[AnyFloat]>]>:$local_max,
                       AnyTypeOf<[AnyFloat, RankedTensorOf<[AnyFloat]>]>:$local_sum,
                       OptionalAttr<I32Attr>:$axis);
  let results = (outs AnyTypeOf<[AnyFloat, RankedTensorOf<[AnyFloat]>]>:$max,
                      AnyTypeOf<[AnyFloat, RankedTensorOf<[AnyFloat]>]>:$sum);
  let assemblyFormat = "$local_max `,` $local_sum attr-dict `:` type($max)";
  let hasVerifier = 1;
}

def BlkGPU_AsyncLoadOp
    : Op<BlkGPU_Dialect, "async_load",
         [AttrSizedOperandSegments, MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Start loading a block from global into shared memory";
  let description = [{
    What `blk.load` does, but the block lands in the shared memory of its
    CTA (the `#blkgpu.shared` result) instead of in registers, copied with
    `cp.async` so the bytes in flight are not bounded by the registers a
    thread has. Lanes whose mask is false do not touch global memory and
    hold `other` (0 when absent). The block takes the bytes at `offset` of
    the kernel's dynamic shared memory, or, with `into`, the bytes of a
    block kept there earlier, which it overwrites (a ring of buffers for
    rows loaded ahead). Only `blkgpu.local_load` reads the result.
    `eviction` is the `blk.load`'s hint, which the copies carry to L2
    (`cp.async ... .L2::cache_hint`, where blk.load's accesses would).

    The copy is asynchronous: each op's copies form one group, and a
    thread may read its elements only after a `blkgpu.async_wait` that
    leaves fewer groups pending than were started after this one.
    `blk-stage-in-shared` makes it from a `blk.load` whose block would not
    fit in the registers of its threads, and from the loads that
    `blk-pipeline-loads` issues ahead when their copies would not.

    ```mlir
    %s = blkgpu.async_load %ptrs mask %m : tensor<65536xi1, #blocked>
        other %o : tensor<65536xf32, #blocked> {offset = 0 : i64}
        : tensor<65536x!blk.ptr<f32>, #blocked> -> tensor<65536xf32, #shared>
    blkgpu.async_wait {pending = 0 : i32}
    ```
  }];
  let arguments = (ins AnyRankedTensor:$ptr, Optional<AnyRankedTensor>:$mask,
                       Optional<AnyRankedTensor>:$other,
                       Optional<AnyRankedTensor>:$into,
                       OptionalAttr<I64Attr>:$offset,
                       OptionalAttr<Blk_EvictionAttr>:$eviction);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $ptr (`mask` $mask^ `:` type($mask))? (`other` $other^ `:` type($other))?
    (`into` $into^ `:` type($into))? attr-dict `:` type($ptr) `->` type($result)
  }];
  let hasVerifier = 1;
}

def BlkGPU_AsyncWaitOp
    : Op<BlkGPU_Dialect, "async_wait", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Wait until at most `pending` async_load groups are in flight";
  let description = [{
    Blocks the thread until all but the `pending` most recently started
    `blkgpu.async_load` copies of this thread have landed in shared memory
    (`cp.async.wait_group`); the blocks of those that landed can be read.
    `pending = 0` waits for every copy; a loop that keeps d rows in flight
    waits with d - 1 groups pending before it reads the oldest.
  }];
  let arguments = (ins I32Attr:$pending);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def BlkGPU_LocalLoadOp
    : Op<BlkGPU_Dialect, "local_load", [Pure, AttrSizedOperandSegments]> {
  let summary = "Read a block kept in shared memory into registers";
  let description = [{
    The block that `blkgpu.async_load` keeps in shared memory, laid out in
    registers again (each thread reads the elements it would have loaded,
    so no barrier is needed). `blk-stage-in-shared` puts one right before
    each use, so that each thread holds its elements only briefly, or, for
    a row a loop loaded ahead, one at the top of the iteration that uses
    it. The source is a `blkgpu.async_load` or a loop's iter_arg carrying
    one.

    With the async_load's `mask` (and `other`), where they are in scope,
    the elements the mask leaves out read as `other` (0 without it), which
    is what their slots hold: a mask that folds to false (a vector a mask
    bound's range puts past the row) then gives LLVM the constant, and the
    read and the math on it fold away.
  }];
  let arguments = (ins AnyRankedTensor:$src, Optional<AnyRankedTensor>:$mask,
                       Optional<AnyRankedTensor>:$other);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $src (`mask` `(` $mask^ `:` type($mask) `)`)?
    (`other` `(` $other^ `:` type($other) `)`)? attr-dict `:` type($src)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def BlkGPU_AllReduceOp
    : Op<BlkGPU_Dialect, "all_reduce", [Pure, SameOperandsAndResultType]> {
  let summary = "Reduce along an axis and give every element its line's result";
  let description = [{
    `blk.reduce` along `axis`, broadcast back to the operand's shape: each
    element of the result holds the reduction of the line (the elements
    that differ from it only along `axis`) it lies on. The result keeps the
    operand's layout, so the reduction combines in-thread, across lanes
    (butterfly shuffles) and, where the axis spans warps, through shared
    memory, and nothing is redistributed: every thread ends up holding the
    results of the lines it holds a part of (Triton's slice layout, seen
    through its broadcast). f16/bf16 accumulate in f32.

    `blk-sink-broadcasts` makes it from `broadcast(expand_dims(reduce(x)))`,
    as in `x - max(x, axis=1, keep_dims=True)`.

    ```mlir
    %m = blkgpu.all_reduce max %x axis = 1 : tensor<16x64xf32>
    ```
  }];
  let arguments = (ins Blk_ReduceKindAttr:$kind, AnyRankedTensor:$src,
                       I32Attr:$axis);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat =
      "`` $kind $src `axis` `=` $axis attr-dict `:` type($src)";
  let hasVerifier = 1;
}

#endif // BLOCKJIT_DIALECT_GPU_BLKGPUOPS_TD
