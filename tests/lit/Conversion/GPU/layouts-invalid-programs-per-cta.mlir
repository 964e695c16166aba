// RUN: not blockjit-opt %s --blk-assign-layouts="num-warps=4 programs-per-cta=3" 2>&1 | FileCheck %s --check-prefix=THREE
// RUN: not blockjit-opt %s --blk-assign-layouts="num-warps=8 programs-per-cta=8" 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: not blockjit-opt %s --blk-assign-layouts="num-warps=1 num-ctas=2 programs-per-cta=2" 2>&1 | FileCheck %s --check-prefix=CLUSTER
// RUN: not blockjit-opt %s --blk-assign-layouts="num-warps=2 programs-per-cta=8" --convert-blk-to-nvvm 2>&1 | FileCheck %s --check-prefix=SHARED

// programs-per-cta is a power of two in 1..16, its CTA at most 1024
// threads, and 1 on a cluster: otherwise the pass fails with an error on
// the module.

// THREE:   error: programs_per_cta must be a power of two in 1..16, got 3{{$}}
// THREADS: error: programs_per_cta = 8 of num_warps = 8 make a CTA of 2048 threads; a CTA has at most 1024{{$}}
// CLUSTER: error: programs_per_cta = 2 and num_ctas = 2: a program spread over a cluster has its CTAs to itself (use one of the two){{$}}

// Each program has a scratch array of its own: 8 programs that each
// transpose a 64x64 f32 block (16 KiB) need 128 KiB.
// SHARED:  error: 'func.func' op needs 131072 bytes of shared memory to exchange block elements between threads (for its 8 programs per CTA); a CTA has at most 49152 (use smaller blocks or fewer programs per CTA)
func.func @transpose(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 4096 : tensor<4096xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<4096x!blk.ptr<f32>>
  %a = blk.addptr %p, %r : tensor<4096x!blk.ptr<f32>>, tensor<4096xi32>
  %x = blk.load %a : tensor<4096x!blk.ptr<f32>>
  %x2 = blk.reshape %x : tensor<4096xf32> -> tensor<64x64xf32>
  %t = blk.permute %x2 order = [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  %t1 = blk.reshape %t : tensor<64x64xf32> -> tensor<4096xf32>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<4096x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<4096x!blk.ptr<f32>>, tensor<4096xi32>
  blk.store %op, %t1 : tensor<4096x!blk.ptr<f32>>
  return
}
