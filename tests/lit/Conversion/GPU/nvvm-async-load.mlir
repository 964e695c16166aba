// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=1" \
// RUN:   --blk-stage-in-shared --convert-blk-to-nvvm --canonicalize --cse | FileCheck %s

// The lowering of a block kept in shared memory: 8192 f32 over 32 threads
// (256 each), 16-byte chunks. blkgpu.async_load becomes one cp.async per
// chunk into the extern dynamic shared array, at the chunk's index in the
// CTA's share, then one commit and a wait for the group. Masked chunks
// without `other` copy 0 bytes (cp.async zero-fills); with `other` (-inf)
// they store it under a branch instead. blkgpu.local_load reads each chunk
// back with one 16-byte ld.shared.

// CHECK:       llvm.mlir.global external @__blk_dynamic_shared() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: func.func @zero_fill
// CHECK:         %[[SIZE:.*]] = arith.select %{{.*}}, %c16_i32, %c0_i32 : i32
// CHECK:         nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg, %[[SIZE]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-COUNT-63: nvvm.cp.async.shared.global
// CHECK-NEXT:    nvvm.cp.async.commit.group
// CHECK-NEXT:    nvvm.cp.async.wait.group 0
// CHECK-COUNT-64: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NOT:     llvm.load {{.*}}!llvm.ptr<1>
func.func @zero_fill(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %n: i32 {blk.divisibility = 16 : i32}, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 8192 : tensor<8192xi32>
  %nb = blk.splat %n : i32 -> tensor<8192xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<8192xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<8192x!blk.ptr<f32>>
  %ptrs = blk.addptr %p, %r : tensor<8192x!blk.ptr<f32>>, tensor<8192xi32>
  %x = blk.load %ptrs, %m : tensor<8192x!blk.ptr<f32>>
  %s = blk.reduce sum %x axis = 0 : tensor<8192xf32> -> f32
  blk.store %out, %s : !blk.ptr<f32>
  return
}

// -----

// CHECK-LABEL: func.func @other_under_a_branch
// CHECK:         scf.if %{{.*}} {
// CHECK:           nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK-NEXT:    } else {
// CHECK:           llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NEXT:    }
// CHECK:         nvvm.cp.async.commit.group
func.func @other_under_a_branch(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %n: i32 {blk.divisibility = 16 : i32}, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 8192 : tensor<8192xi32>
  %nb = blk.splat %n : i32 -> tensor<8192xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<8192xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<8192x!blk.ptr<f32>>
  %ptrs = blk.addptr %p, %r : tensor<8192x!blk.ptr<f32>>, tensor<8192xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<8192xf32>
  %x = blk.load %ptrs, %m, %ninf : tensor<8192x!blk.ptr<f32>>
  %s = blk.reduce sum %x axis = 0 : tensor<8192xf32> -> f32
  blk.store %out, %s : !blk.ptr<f32>
  return
}
