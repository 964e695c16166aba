// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" --convert-blk-to-nvvm --canonicalize --cse | FileCheck %s

// 64-bit reductions of a 1-D block: each butterfly step shuffles the value
// in two 32-bit halves (5 steps, 10 shuffles), then the warps combine
// through a half of the warp exchange array (two halves of 4 warps x 8
// bytes).

// CHECK:       llvm.mlir.global internal @__blk_warp_exchange_f64_sum() {{.*}} : !llvm.array<64 x i8>
// CHECK-LABEL: func.func @f64_sum
// CHECK-COUNT-10: nvvm.shfl.sync  bfly %{{.*}} : i32 -> i32
// CHECK-NOT:     nvvm.shfl.sync
// CHECK:         llvm.store %{{.*}} : f64, !llvm.ptr<3>
// CHECK:         nvvm.barrier0
func.func @f64_sum(%in: !blk.ptr<f64> {blk.divisibility = 16 : i32}, %out: !blk.ptr<f64>) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<f64> -> tensor<128x!blk.ptr<f64>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f64>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<f64>>
  %s = blk.reduce sum %x axis = 0 : tensor<128xf64> -> f64
  blk.store %out, %s : !blk.ptr<f64>
  return
}

// -----

// CHECK-LABEL: func.func @i64_max
// CHECK-COUNT-10: nvvm.shfl.sync  bfly %{{.*}} : i32 -> i32
// CHECK:         arith.maxsi %{{.*}} : i64
func.func @i64_max(%in: !blk.ptr<i64> {blk.divisibility = 16 : i32}, %out: !blk.ptr<i64>) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<i64> -> tensor<128x!blk.ptr<i64>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<i64>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<i64>>
  %s = blk.reduce max %x axis = 0 : tensor<128xi64> -> i64
  blk.store %out, %s : !blk.ptr<i64>
  return
}
