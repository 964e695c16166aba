// RUN: blockjit-opt %s | FileCheck %s
// RUN: blockjit-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: blockjit-opt %s --mlir-print-op-generic | blockjit-opt --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// The input is in generic form: it must print in the custom forms, and the
// generic printout must show the properties (axis, start/end, reduce kind,
// operandSegmentSizes) that the custom forms encode.

// CHECK-LABEL: func.func @generic
// CHECK:         blk.program_id 1 : i32
// CHECK:         blk.num_programs 2 : i32
// CHECK:         %[[R:.*]] = blk.make_range 0 to 16 : tensor<16xi32>
// CHECK:         %[[S:.*]] = blk.splat %{{.*}} : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
// CHECK:         %[[A:.*]] = blk.addptr %[[S]], %[[R]] : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
// CHECK:         %[[L0:.*]] = blk.load %[[A]] : tensor<16x!blk.ptr<f32>>
// CHECK:         %[[L1:.*]] = blk.load %[[A]], %[[M:.*]] : tensor<16x!blk.ptr<f32>>
// CHECK:         %[[L2:.*]] = blk.load %[[A]], %[[M]], %[[L0]] : tensor<16x!blk.ptr<f32>>
// CHECK:         %[[E:.*]] = blk.expand_dims %[[L2]] axis = 0 : tensor<16xf32> -> tensor<1x16xf32>
// CHECK:         %[[B:.*]] = blk.broadcast %[[E]] : tensor<1x16xf32> -> tensor<4x16xf32>
// CHECK:         blk.reduce sum %[[B]] axis = 1 : tensor<4x16xf32> -> tensor<4xf32>
// CHECK:         blk.reduce min %[[L1]] axis = 0 : tensor<16xf32> -> f32
// CHECK:         blk.store %[[A]], %[[L2]], %[[M]] : tensor<16x!blk.ptr<f32>>
// CHECK:         blk.store %[[A]], %[[L1]] : tensor<16x!blk.ptr<f32>>

// GENERIC-LABEL: "func.func"
// GENERIC:         "blk.program_id"() <{axis = 1 : i32}> : () -> i32
// GENERIC:         "blk.num_programs"() <{axis = 2 : i32}> : () -> i32
// GENERIC:         "blk.make_range"() <{end = 16 : i32, start = 0 : i32}> : () -> tensor<16xi32>
// GENERIC:         "blk.splat"(%{{.*}}) : (!blk.ptr<f32>) -> tensor<16x!blk.ptr<f32>>
// GENERIC:         "blk.addptr"(%{{.*}}, %{{.*}}) : (tensor<16x!blk.ptr<f32>>, tensor<16xi32>) -> tensor<16x!blk.ptr<f32>>
// GENERIC:         "blk.load"(%{{.*}}) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<16x!blk.ptr<f32>>) -> tensor<16xf32>
// GENERIC:         "blk.load"(%{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<16x!blk.ptr<f32>>, tensor<16xi1>) -> tensor<16xf32>
// GENERIC:         "blk.load"(%{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<16x!blk.ptr<f32>>, tensor<16xi1>, tensor<16xf32>) -> tensor<16xf32>
// GENERIC:         "blk.expand_dims"(%{{.*}}) <{axis = 0 : i32}> : (tensor<16xf32>) -> tensor<1x16xf32>
// GENERIC:         "blk.broadcast"(%{{.*}}) : (tensor<1x16xf32>) -> tensor<4x16xf32>
// GENERIC:         "blk.reduce"(%{{.*}}) <{axis = 1 : i32, kind = #blk<reduce_kind sum>}> : (tensor<4x16xf32>) -> tensor<4xf32>
// GENERIC:         "blk.reduce"(%{{.*}}) <{axis = 0 : i32, kind = #blk<reduce_kind min>}> : (tensor<16xf32>) -> f32
// GENERIC:         "blk.store"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<16x!blk.ptr<f32>>, tensor<16xf32>, tensor<16xi1>) -> ()
// GENERIC:         "blk.store"(%{{.*}}, %{{.*}}) : (tensor<16x!blk.ptr<f32>>, tensor<16xf32>) -> ()

"func.func"() <{function_type = (!blk.ptr<f32>, tensor<16xi1>) -> (), sym_name = "generic"}> ({
^bb0(%p: !blk.ptr<f32>, %m: tensor<16xi1>):
  %pid = "blk.program_id"() <{axis = 1 : i32}> : () -> i32
  %np = "blk.num_programs"() <{axis = 2 : i32}> : () -> i32
  %r = "blk.make_range"() <{start = 0 : i32, end = 16 : i32}> : () -> tensor<16xi32>
  %s = "blk.splat"(%p) : (!blk.ptr<f32>) -> tensor<16x!blk.ptr<f32>>
  %a = "blk.addptr"(%s, %r) : (tensor<16x!blk.ptr<f32>>, tensor<16xi32>) -> tensor<16x!blk.ptr<f32>>
  %l0 = "blk.load"(%a) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<16x!blk.ptr<f32>>) -> tensor<16xf32>
  %l1 = "blk.load"(%a, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<16x!blk.ptr<f32>>, tensor<16xi1>) -> tensor<16xf32>
  %l2 = "blk.load"(%a, %m, %l0) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<16x!blk.ptr<f32>>, tensor<16xi1>, tensor<16xf32>) -> tensor<16xf32>
  %e = "blk.expand_dims"(%l2) <{axis = 0 : i32}> : (tensor<16xf32>) -> tensor<1x16xf32>
  %b = "blk.broadcast"(%e) : (tensor<1x16xf32>) -> tensor<4x16xf32>
  %sum = "blk.reduce"(%b) <{kind = #blk<reduce_kind sum>, axis = 1 : i32}> : (tensor<4x16xf32>) -> tensor<4xf32>
  %min = "blk.reduce"(%l1) <{kind = #blk<reduce_kind min>, axis = 0 : i32}> : (tensor<16xf32>) -> f32
  "blk.store"(%a, %l2, %m) : (tensor<16x!blk.ptr<f32>>, tensor<16xf32>, tensor<16xi1>) -> ()
  "blk.store"(%a, %l1) : (tensor<16x!blk.ptr<f32>>, tensor<16xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()
