// RUN: blockjit-opt %s | blockjit-opt | FileCheck %s
// RUN: blockjit-opt %s --mlir-print-op-generic | blockjit-opt | FileCheck %s

// Sum 16 rows of an i32 matrix over column tiles of 64: a 2-D block reduced
// along axis 1, accumulated in scf.for iter_args, stored as 16 results.
// The pointer block advances through iter_args too.

// CHECK-LABEL: func.func @row_sum
// CHECK:         %[[ACC0:.*]] = arith.constant dense<0> : tensor<16xi32>
// CHECK:         %[[RES:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ACC0]], %[[PTRS:.*]] = %{{.*}}) -> (tensor<16xi32>, tensor<16x64x!blk.ptr<i32>>) : i32 {
// CHECK:           %[[TILE:.*]] = blk.load %[[PTRS]] : tensor<16x64x!blk.ptr<i32>>
// CHECK:           %[[PART:.*]] = blk.reduce sum %[[TILE]] axis = 1 : tensor<16x64xi32> -> tensor<16xi32>
// CHECK:           %[[NEXT:.*]] = arith.addi %[[ACC]], %[[PART]] : tensor<16xi32>
// CHECK:           %[[STEP:.*]] = blk.addptr %[[PTRS]], %{{.*}} : tensor<16x64x!blk.ptr<i32>>, tensor<16x64xi32>
// CHECK:           scf.yield %[[NEXT]], %[[STEP]] : tensor<16xi32>, tensor<16x64x!blk.ptr<i32>>
// CHECK:         }
// CHECK:         %[[OUTS:.*]] = blk.splat %{{.*}} : !blk.ptr<i32> -> tensor<16x!blk.ptr<i32>>
// CHECK:         %[[OUTP:.*]] = blk.addptr %[[OUTS]], %{{.*}} : tensor<16x!blk.ptr<i32>>, tensor<16xi32>
// CHECK:         blk.store %[[OUTP]], %[[RES]]#0 : tensor<16x!blk.ptr<i32>>
func.func @row_sum(%a: !blk.ptr<i32>, %out: !blk.ptr<i32>, %stride: i32, %n_tiles: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %rows = blk.make_range 0 to 16 : tensor<16xi32>
  %cols = blk.make_range 0 to 64 : tensor<64xi32>
  %r2 = blk.expand_dims %rows axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
  %c2 = blk.expand_dims %cols axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %strides = blk.splat %stride : i32 -> tensor<16x1xi32>
  %roff = arith.muli %r2, %strides : tensor<16x1xi32>
  %roffb = blk.broadcast %roff : tensor<16x1xi32> -> tensor<16x64xi32>
  %coffb = blk.broadcast %c2 : tensor<1x64xi32> -> tensor<16x64xi32>
  %offs = arith.addi %roffb, %coffb : tensor<16x64xi32>
  %as = blk.splat %a : !blk.ptr<i32> -> tensor<16x64x!blk.ptr<i32>>
  %ptrs0 = blk.addptr %as, %offs : tensor<16x64x!blk.ptr<i32>>, tensor<16x64xi32>
  %c64 = arith.constant dense<64> : tensor<16x64xi32>
  %acc0 = arith.constant dense<0> : tensor<16xi32>
  %res:2 = scf.for %t = %c0 to %n_tiles step %c1
      iter_args(%acc = %acc0, %ptrs = %ptrs0) -> (tensor<16xi32>, tensor<16x64x!blk.ptr<i32>>) : i32 {
    %tile = blk.load %ptrs : tensor<16x64x!blk.ptr<i32>>
    %part = blk.reduce sum %tile axis = 1 : tensor<16x64xi32> -> tensor<16xi32>
    %next = arith.addi %acc, %part : tensor<16xi32>
    %step = blk.addptr %ptrs, %c64 : tensor<16x64x!blk.ptr<i32>>, tensor<16x64xi32>
    scf.yield %next, %step : tensor<16xi32>, tensor<16x64x!blk.ptr<i32>>
  }
  %outs = blk.splat %out : !blk.ptr<i32> -> tensor<16x!blk.ptr<i32>>
  %outp = blk.addptr %outs, %rows : tensor<16x!blk.ptr<i32>>, tensor<16xi32>
  blk.store %outp, %res#0 : tensor<16x!blk.ptr<i32>>
  return
}
