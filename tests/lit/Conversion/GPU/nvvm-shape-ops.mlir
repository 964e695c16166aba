// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=1" --convert-blk-to-nvvm | FileCheck %s

// reshape keeps the row-major linear index, which distributes every block
// (docs/LAYOUTS.md): a 4x8 block and a 32 block of one element count share
// their 1-D layout, so each thread already holds its result elements. No
// shared memory, no barrier.
// CHECK-NOT:   llvm.mlir.global
// CHECK-LABEL: func.func @reshape_moves_nothing
// CHECK:         %[[X:.*]] = blk.load %{{.*}} : !blk.ptr<f32>
// CHECK-NOT:     nvvm.barrier0
// CHECK:         blk.store %{{.*}}, %[[X]] : !blk.ptr<f32>
// CHECK-NOT:     nvvm.barrier0
func.func @reshape_moves_nothing(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 32 : tensor<32xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<32x!blk.ptr<f32>>
  %a = blk.addptr %p, %r : tensor<32x!blk.ptr<f32>>, tensor<32xi32>
  %x = blk.load %a : tensor<32x!blk.ptr<f32>>
  %x2 = blk.reshape %x : tensor<32xf32> -> tensor<4x8xf32>
  %r2 = blk.reshape %r : tensor<32xi32> -> tensor<4x8xi32>
  %q = blk.splat %out : !blk.ptr<f32> -> tensor<4x8x!blk.ptr<f32>>
  %b = blk.addptr %q, %r2 : tensor<4x8x!blk.ptr<f32>>, tensor<4x8xi32>
  blk.store %b, %x2 : tensor<4x8x!blk.ptr<f32>>
  return
}

// -----

// permute: each thread publishes its elements of the 4x8 source at their
// linear index, and after a barrier reads result element (i, j) of 8x4 at
// source index j * 8 + i; a barrier then guards the array's next use.
// The array holds 32 pointers (8 bytes each): 256 bytes.
// CHECK:       llvm.mlir.global internal @__blk_smem_transpose() {{.*}} : !llvm.array<256 x i8>
// CHECK-LABEL: func.func @transpose
// CHECK:         %[[T:.*]] = nvvm.read.ptx.sreg.tid.x range <i32, 0, {{[0-9]+}}> : i32
// CHECK:         llvm.store %{{.*}}, %{{.*}} : !llvm.ptr<1>, !llvm.ptr<3>
// CHECK:         nvvm.barrier0
//                the result's (i, j) = (linear >> 2, linear & 3)
// CHECK:         %[[J:.*]] = arith.andi %[[LIN:.*]], %{{.*}} : i32
// CHECK:         %[[I0:.*]] = arith.shrui %[[LIN]], %{{.*}} : i32
// CHECK:         %[[I:.*]] = arith.andi %[[I0]], %{{.*}} : i32
//                the source index j * 8 + i
// CHECK:         %[[ROW:.*]] = arith.ori %{{.*}}, %[[J]] : i32
// CHECK:         %[[ROW8:.*]] = arith.shli %[[ROW]], %{{.*}} : i32
// CHECK:         %[[SRC:.*]] = arith.ori %[[ROW8]], %[[I]] : i32
// CHECK:         %[[SLOT:.*]] = llvm.getelementptr %{{.*}}[%[[SRC]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.ptr<1>
// CHECK:         llvm.load %[[SLOT]] : !llvm.ptr<3> -> !llvm.ptr<1>
// CHECK:         nvvm.barrier0
// CHECK:         blk.store
func.func @transpose(%out: !blk.ptr<i8>, %v: i8) {
  %r = blk.make_range 0 to 32 : tensor<32xi32>
  %r2 = blk.reshape %r : tensor<32xi32> -> tensor<4x8xi32>
  %q = blk.splat %out : !blk.ptr<i8> -> tensor<4x8x!blk.ptr<i8>>
  %b = blk.addptr %q, %r2 : tensor<4x8x!blk.ptr<i8>>, tensor<4x8xi32>
  %t = blk.permute %b order = [1, 0] : tensor<4x8x!blk.ptr<i8>> -> tensor<8x4x!blk.ptr<i8>>
  %s = blk.splat %v : i8 -> tensor<8x4xi8>
  blk.store %t, %s : tensor<8x4x!blk.ptr<i8>>
  return
}

// -----

// join: element k of each operand goes to slots 2k and 2k + 1 of the
// result; split reads them back from 2k and 2k + 1. Each is fenced by
// barriers (the 16x2 f16 result of 32 elements: 64 bytes).
// CHECK:       llvm.mlir.global internal @__blk_smem_join_split() {{.*}} : !llvm.array<64 x i8>
// CHECK-LABEL: func.func @join_split
// CHECK:         %[[EVEN:.*]] = arith.shli %{{.*}}, %[[ONE:.*]] : i32
// CHECK:         %[[ODD:.*]] = arith.ori %[[EVEN]], %[[ONE]] : i32
// CHECK:         %[[E:.*]] = llvm.getelementptr %{{.*}}[%[[EVEN]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// CHECK:         llvm.store %[[A:.*]], %[[E]] : f16, !llvm.ptr<3>
// CHECK:         %[[O:.*]] = llvm.getelementptr %{{.*}}[%[[ODD]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// CHECK:         llvm.store %[[B:.*]], %[[O]] : f16, !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK:         llvm.load %{{.*}} : !llvm.ptr<3> -> f16
// CHECK:         nvvm.barrier0
//                split: publish, barrier, two reads, barrier
// CHECK:         llvm.store %{{.*}}, %{{.*}} : f16, !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK:         %[[EVEN2:.*]] = arith.shli
// CHECK:         %[[ODD2:.*]] = arith.ori %[[EVEN2]]
// CHECK:         llvm.getelementptr %{{.*}}[%[[EVEN2]]]
// CHECK:         %[[LO:.*]] = llvm.load
// CHECK:         llvm.getelementptr %{{.*}}[%[[ODD2]]]
// CHECK:         %[[HI:.*]] = llvm.load
// CHECK:         nvvm.barrier0
// CHECK:         arith.subf %[[LO]], %[[HI]] : f16
func.func @join_split(%in: !blk.ptr<f16>, %out: !blk.ptr<f16>) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %p = blk.splat %in : !blk.ptr<f16> -> tensor<16x!blk.ptr<f16>>
  %a = blk.addptr %p, %r : tensor<16x!blk.ptr<f16>>, tensor<16xi32>
  %x = blk.load %a : tensor<16x!blk.ptr<f16>>
  %y = arith.negf %x : tensor<16xf16>
  %j = blk.join %x, %y : tensor<16xf16> -> tensor<16x2xf16>
  %k = arith.mulf %j, %j : tensor<16x2xf16>
  %lo, %hi = blk.split %k : tensor<16x2xf16> -> tensor<16xf16>
  %d = arith.subf %lo, %hi : tensor<16xf16>
  %q = blk.splat %out : !blk.ptr<f16> -> tensor<16x!blk.ptr<f16>>
  %b = blk.addptr %q, %r : tensor<16x!blk.ptr<f16>>, tensor<16xi32>
  blk.store %b, %d : tensor<16x!blk.ptr<f16>>
  return
}
