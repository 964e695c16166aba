// RUN: blockjit-opt %s --blk-assign-layouts="num-warps=2" | FileCheck %s \
// RUN:   --implicit-check-not="xf32>" --implicit-check-not="xi32>" \
// RUN:   --implicit-check-not="x!blk.ptr<f32>>"

// Every block value gets the layout, not only op results: dense splat
// constants are re-typed (their value kept), scf.for iter_args, the
// loop's results and the yielded values all carry the encoding, so the loop
// still verifies. Scalar constants, scalar iter_args and the function
// signature are left alone. (No block type is left without an encoding.)
// The window slides by one element per iteration, so its loads cannot be
// vectors and the block gets one element per thread (coalesced).

// CHECK-LABEL: func.func @retype
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<f32> {{.*}}, %[[OUT:[^:]*]]: !blk.ptr<f32> {{.*}}, %[[N:[^:]*]]: i32)
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<256xf32, #blkgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>>
// CHECK-DAG:     %[[ONES:.*]] = arith.constant dense<1> : tensor<256xi32, #blkgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>>
// CHECK-DAG:     %[[FZ:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : i32
// CHECK:         %[[RES:.*]]:2 = scf.for %{{.*}} = %[[C0]] to %[[N]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]], %[[T:.*]] = %[[FZ]]) -> (tensor<256xf32, #blkgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>>, f32)  : i32 {
// CHECK:           %[[X:.*]] = blk.load %{{.*}} : tensor<256x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>>
// CHECK:           %[[ACC2:.*]] = arith.addf %[[ACC]], %[[X]] : tensor<256xf32, #blkgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>>
// CHECK:           %[[S:.*]] = blk.reduce sum %[[X]] axis = 0 : tensor<256xf32, #blkgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>> -> f32
// CHECK:           %[[T2:.*]] = arith.addf %[[T]], %[[S]] : f32
// CHECK:           scf.yield %[[ACC2]], %[[T2]] : tensor<256xf32, #blkgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>>, f32
// CHECK:         }
// CHECK:         blk.store %{{.*}}, %[[RES]]#0 : tensor<256x!blk.ptr<f32>, #blkgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>>
// CHECK:         blk.store %[[OUT]], %[[RES]]#1 : !blk.ptr<f32>
func.func @retype(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %out: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %n: i32) {
  %r = blk.make_range 0 to 256 : tensor<256xi32>
  %ones = arith.constant dense<1> : tensor<256xi32>
  %r1 = arith.addi %r, %ones : tensor<256xi32>
  %zero = arith.constant dense<0.0> : tensor<256xf32>
  %fz = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc, %tot = scf.for %k = %c0 to %n step %c1 iter_args(%a = %zero, %t = %fz) -> (tensor<256xf32>, f32) : i32 {
    %kp = blk.addptr %in, %k : !blk.ptr<f32>, i32
    %base = blk.splat %kp : !blk.ptr<f32> -> tensor<256x!blk.ptr<f32>>
    %p = blk.addptr %base, %r1 : tensor<256x!blk.ptr<f32>>, tensor<256xi32>
    %x = blk.load %p : tensor<256x!blk.ptr<f32>>
    %a2 = arith.addf %a, %x : tensor<256xf32>
    %s = blk.reduce sum %x axis = 0 : tensor<256xf32> -> f32
    %t2 = arith.addf %t, %s : f32
    scf.yield %a2, %t2 : tensor<256xf32>, f32
  }
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<256x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<256x!blk.ptr<f32>>, tensor<256xi32>
  blk.store %op, %acc : tensor<256x!blk.ptr<f32>>
  blk.store %out, %tot : !blk.ptr<f32>
  return
}
