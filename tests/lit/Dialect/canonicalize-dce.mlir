// RUN: blockjit-opt %s -canonicalize | FileCheck %s

// Dead pure blk ops disappear; stores are kept (they write memory).
// Unused loads only read memory and are removed as well.

// CHECK-LABEL: func.func @dead_code
// CHECK-SAME:    (%[[P:.*]]: tensor<16x!blk.ptr<f32>>, %[[V:.*]]: tensor<16xf32>)
// CHECK-NOT:     blk.program_id
// CHECK-NOT:     blk.num_programs
// CHECK-NOT:     blk.make_range
// CHECK-NOT:     blk.expand_dims
// CHECK-NOT:     blk.broadcast
// CHECK-NOT:     blk.reduce
// CHECK-NOT:     blk.addptr
// CHECK-NOT:     blk.load
// CHECK:         blk.store %[[P]], %[[V]] : tensor<16x!blk.ptr<f32>>
// CHECK-NEXT:    return
func.func @dead_code(%p: tensor<16x!blk.ptr<f32>>, %v: tensor<16xf32>) {
  %pid = blk.program_id 0 : i32
  %np = blk.num_programs 0 : i32
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %e = blk.expand_dims %v axis = 0 : tensor<16xf32> -> tensor<1x16xf32>
  %b = blk.broadcast %e : tensor<1x16xf32> -> tensor<4x16xf32>
  %s = blk.reduce sum %b axis = 0 : tensor<4x16xf32> -> tensor<16xf32>
  %a = blk.addptr %p, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  %l = blk.load %a : tensor<16x!blk.ptr<f32>>
  blk.store %p, %v : tensor<16x!blk.ptr<f32>>
  return
}

// A store whose value is a dead-looking chain keeps the chain alive.
// CHECK-LABEL: func.func @live_chain
// CHECK:         %[[R:.*]] = blk.make_range 0 to 16 : tensor<16xi32>
// CHECK:         %[[A:.*]] = blk.addptr %{{.*}}, %[[R]]
// CHECK:         %[[L:.*]] = blk.load %[[A]] : tensor<16x!blk.ptr<f32>>
// CHECK:         blk.store %{{.*}}, %[[L]] : tensor<16x!blk.ptr<f32>>
func.func @live_chain(%p: tensor<16x!blk.ptr<f32>>, %q: tensor<16x!blk.ptr<f32>>) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %a = blk.addptr %p, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  %l = blk.load %a : tensor<16x!blk.ptr<f32>>
  blk.store %q, %l : tensor<16x!blk.ptr<f32>>
  return
}
