// RUN: blockjit-opt %s --blk-assign-layouts="num-warps=1" --convert-blk-to-nvvm \
// RUN:   | FileCheck %s --implicit-check-not="tensor<"

// Loops keep their comparison: an unsigned scf.for stays unsigned, whether it
// carries blocks (rebuilt with the thread's elements as iter_args, 2 here: 64
// elements over 32 threads) or not (left as it is). The hand-written lowering
// rebuilt every loop as a signed one.

// CHECK-LABEL: func.func @unsigned_loops
// CHECK:         %[[ACC:.*]]:2 = scf.for unsigned %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32)  : i32 {
// CHECK:         llvm.insertelement %[[ACC]]#0
// CHECK:         llvm.insertelement %[[ACC]]#1
// CHECK:         scf.for unsigned %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}}  : i32 {
// CHECK-NEXT:      blk.addptr %{{.*}}, %[[K]] : !blk.ptr<f32>, i32
func.func @unsigned_loops(%out: !blk.ptr<f32> {blk.divisibility = 16 : i32},
                          %n: i32) {
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %one = arith.constant dense<1.0> : tensor<64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for unsigned %k = %c0 to %n step %c1
      iter_args(%a = %zero) -> (tensor<64xf32>) : i32 {
    %a2 = arith.addf %a, %one : tensor<64xf32>
    scf.yield %a2 : tensor<64xf32>
  }
  %r = blk.make_range 0 to 64 : tensor<64xi32>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<64x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<64x!blk.ptr<f32>>, tensor<64xi32>
  blk.store %op, %acc : tensor<64x!blk.ptr<f32>>
  %f = arith.constant 0.0 : f32
  scf.for unsigned %k = %c0 to %n step %c1 : i32 {
    %p = blk.addptr %out, %k : !blk.ptr<f32>, i32
    blk.store %p, %f : !blk.ptr<f32>
  }
  return
}
