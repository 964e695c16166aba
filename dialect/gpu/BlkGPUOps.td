//===- BlkGPUOps.td - GPU-only operations on laid-out blocks --------------===//
#ifndef BLOCKJIT_DIALECT_GPU_BLKGPUOPS_TD
#define BLOCKJIT_DIALECT_GPU_BLKGPUOPS_TD

include "dialect/gpu/BlkGPUBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

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

    `blk-fuse-cluster-softmax` makes it from the two reductions of softmax,
    halving the cluster round trips per row.
  }];
  let arguments = (ins AnyFloat:$local_max, AnyFloat:$local_sum);
  let results = (outs AnyFloat:$max, AnyFloat:$sum);
  let assemblyFormat = "$local_max `,` $local_sum attr-dict `:` type($max)";
  let hasVerifier = 1;
}

#endif // BLOCKJIT_DIALECT_GPU_BLKGPUOPS_TD
