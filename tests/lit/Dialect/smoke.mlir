// RUN: blockjit-opt %s | FileCheck %s
// CHECK: blk.reduce max
func.func @k(%p: !blk.ptr<f32>, %n: i32) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %s = blk.splat %p : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %a = blk.addptr %s, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  %ns = blk.splat %n : i32 -> tensor<128xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<128xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<128xf32>
  %x = blk.load %a, %m, %ninf : tensor<128x!blk.ptr<f32>>
  %mx = blk.reduce max %x axis = 0 : tensor<128xf32> -> f32
  blk.store %a, %x, %m : tensor<128x!blk.ptr<f32>>
  return
}
