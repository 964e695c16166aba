// RUN: blockjit-opt %s --blk-assign-layouts="num-warps=4" --convert-blk-to-nvvm \
// RUN:   | FileCheck %s

// Two kernels with reductions in one module: each kernel gets its own
// shared-memory warp exchange global, so the names must not collide across
// kernels (the module must still verify).

// CHECK-DAG:   llvm.mlir.global internal @__blk_warp_exchange_first() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<32 x i8>
// CHECK-DAG:   llvm.mlir.global internal @__blk_warp_exchange_second() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<32 x i8>
// CHECK-LABEL: func.func @first
// CHECK:         llvm.mlir.addressof @__blk_warp_exchange_first : !llvm.ptr<3>
// CHECK-LABEL: func.func @second
// CHECK:         llvm.mlir.addressof @__blk_warp_exchange_second : !llvm.ptr<3>
func.func @first(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 512 : tensor<512xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<512x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<512x!blk.ptr<f32>>, tensor<512xi32>
  %x = blk.load %p : tensor<512x!blk.ptr<f32>>
  %s = blk.reduce sum %x axis = 0 : tensor<512xf32> -> f32
  blk.store %out, %s : !blk.ptr<f32>
  return
}
func.func @second(%in: !blk.ptr<i32> {blk.divisibility = 16 : i32}, %out: !blk.ptr<i32>) {
  %r = blk.make_range 0 to 512 : tensor<512xi32>
  %b = blk.splat %in : !blk.ptr<i32> -> tensor<512x!blk.ptr<i32>>
  %p = blk.addptr %b, %r : tensor<512x!blk.ptr<i32>>, tensor<512xi32>
  %x = blk.load %p : tensor<512x!blk.ptr<i32>>
  %s = blk.reduce min %x axis = 0 : tensor<512xi32> -> i32
  blk.store %out, %s : !blk.ptr<i32>
  return
}
