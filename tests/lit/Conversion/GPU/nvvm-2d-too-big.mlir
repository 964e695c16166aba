// RUN: blockjit-opt %s --split-input-file --verify-diagnostics \
// RUN:   --blk-assign-layouts="num-warps=4" --convert-blk-to-nvvm

// An exchange through shared memory larger than a program's 48 KiB is an
// error, not a silent overflow: the permute of a 128x128 f32 block
// publishes all of it (64 KiB).

// expected-error @+1 {{'func.func' op needs 65536 bytes of shared memory to exchange block elements between threads; a CTA has at most 49152 (use smaller blocks)}}
func.func @too_big(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 16384 : tensor<16384xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<16384x!blk.ptr<f32>>
  %a = blk.addptr %p, %r : tensor<16384x!blk.ptr<f32>>, tensor<16384xi32>
  %x = blk.load %a : tensor<16384x!blk.ptr<f32>>
  %x2 = blk.reshape %x : tensor<16384xf32> -> tensor<128x128xf32>
  %t = blk.permute %x2 order = [1, 0] : tensor<128x128xf32> -> tensor<128x128xf32>
  %t1 = blk.reshape %t : tensor<128x128xf32> -> tensor<16384xf32>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<16384x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<16384x!blk.ptr<f32>>, tensor<16384xi32>
  blk.store %op, %t1 : tensor<16384x!blk.ptr<f32>>
  return
}

// -----

// A 2-D reduction of that block no longer needs it: the sums are combined
// in registers and shuffles (and across the 4 warps, 512 bytes), and only
// the 128 column sums cross threads.
func.func @reduce_fits(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %x = arith.constant dense<1.0> : tensor<128x128xf32>
  %s = blk.reduce sum %x axis = 0 : tensor<128x128xf32> -> tensor<128xf32>
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  blk.store %op, %s : tensor<128x!blk.ptr<f32>>
  return
}
