// RUN: blockjit-opt %s -cse | FileCheck %s

// Identical pure blk ops are merged by CSE.
// CHECK-LABEL: func.func @pure_ops
// CHECK-COUNT-1: blk.program_id 0 : i32
// CHECK-NOT:     blk.program_id 0
// CHECK:         blk.program_id 1 : i32
// CHECK-COUNT-1: blk.make_range 0 to 4 : tensor<4xi32>
// CHECK-NOT:     blk.make_range
// CHECK-COUNT-1: blk.splat
// CHECK-NOT:     blk.splat
// CHECK-COUNT-1: blk.addptr
// CHECK-NOT:     blk.addptr
// CHECK:         return %[[X:.*]], %[[X]], %{{.*}}, %[[R:.*]], %[[R]], %[[A:.*]], %[[A]] :
func.func @pure_ops(%p: !blk.ptr<f32>) -> (i32, i32, i32, tensor<4xi32>, tensor<4xi32>,
                                           tensor<4x!blk.ptr<f32>>, tensor<4x!blk.ptr<f32>>) {
  %x = blk.program_id 0 : i32
  %y = blk.program_id 0 : i32
  %z = blk.program_id 1 : i32
  %r = blk.make_range 0 to 4 : tensor<4xi32>
  %s = blk.make_range 0 to 4 : tensor<4xi32>
  %ps1 = blk.splat %p : !blk.ptr<f32> -> tensor<4x!blk.ptr<f32>>
  %ps2 = blk.splat %p : !blk.ptr<f32> -> tensor<4x!blk.ptr<f32>>
  %a = blk.addptr %ps1, %r : tensor<4x!blk.ptr<f32>>, tensor<4xi32>
  %b = blk.addptr %ps2, %s : tensor<4x!blk.ptr<f32>>, tensor<4xi32>
  return %x, %y, %z, %r, %s, %a, %b : i32, i32, i32, tensor<4xi32>, tensor<4xi32>,
                                      tensor<4x!blk.ptr<f32>>, tensor<4x!blk.ptr<f32>>
}

// Different reduce kinds or axes are different ops.
// CHECK-LABEL: func.func @reduce_kinds
// CHECK:         blk.reduce max
// CHECK:         blk.reduce min
// CHECK:         blk.reduce sum %{{.*}} axis = 0
// CHECK:         blk.reduce sum %{{.*}} axis = 1
// CHECK-NOT:     blk.reduce
func.func @reduce_kinds(%x: tensor<4x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a = blk.reduce max %x axis = 0 : tensor<4x4xf32> -> tensor<4xf32>
  %b = blk.reduce min %x axis = 0 : tensor<4x4xf32> -> tensor<4xf32>
  %c = blk.reduce sum %x axis = 0 : tensor<4x4xf32> -> tensor<4xf32>
  %d = blk.reduce sum %x axis = 1 : tensor<4x4xf32> -> tensor<4xf32>
  %e = blk.reduce sum %x axis = 1 : tensor<4x4xf32> -> tensor<4xf32>
  return %a, %b, %c, %d, %e : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// Two loads with no store between them read the same value; a store in
// between keeps the second load. Stores are never merged.
// CHECK-LABEL: func.func @memory
// CHECK:         %[[A:.*]] = blk.load %[[P:.*]] : tensor<4x!blk.ptr<f32>>
// CHECK-NEXT:    blk.store %[[P]], %{{.*}} : tensor<4x!blk.ptr<f32>>
// CHECK-NEXT:    %[[C:.*]] = blk.load %[[P]] : tensor<4x!blk.ptr<f32>>
// CHECK-NEXT:    blk.store %[[P]], %{{.*}} : tensor<4x!blk.ptr<f32>>
// CHECK-NEXT:    blk.store %[[P]], %{{.*}} : tensor<4x!blk.ptr<f32>>
// CHECK-NEXT:    return %[[A]], %[[A]], %[[C]]
func.func @memory(%p: tensor<4x!blk.ptr<f32>>, %v: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a = blk.load %p : tensor<4x!blk.ptr<f32>>
  %b = blk.load %p : tensor<4x!blk.ptr<f32>>
  blk.store %p, %v : tensor<4x!blk.ptr<f32>>
  %c = blk.load %p : tensor<4x!blk.ptr<f32>>
  blk.store %p, %v : tensor<4x!blk.ptr<f32>>
  blk.store %p, %v : tensor<4x!blk.ptr<f32>>
  return %a, %b, %c : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
