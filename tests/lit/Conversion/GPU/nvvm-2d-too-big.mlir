// RUN: blockjit-opt %s --split-input-file --verify-diagnostics \
// RUN:   --blk-assign-layouts="num-warps=4" --convert-blk-to-nvvm

// A 2-D reduction exchanges the whole block through shared memory: a
// 128x128 f32 block needs 64 KiB, more than a program's 48 KiB.

// expected-error @+1 {{'func.func' op needs 65536 bytes of shared memory to exchange block elements between threads; a program has at most 49152 (use smaller blocks)}}
func.func @too_big(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %x = arith.constant dense<1.0> : tensor<128x128xf32>
  %s = blk.reduce sum %x axis = 0 : tensor<128x128xf32> -> tensor<128xf32>
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  blk.store %op, %s : tensor<128x!blk.ptr<f32>>
  return
}
