// RUN: blockjit-opt %s | blockjit-opt | FileCheck %s
// RUN: blockjit-opt %s --mlir-print-op-generic | blockjit-opt | FileCheck %s

// 1-D blocks reduce to a scalar, with each kind.
// CHECK-LABEL: func.func @reduce_1d
// CHECK-SAME:    (%[[X:.*]]: tensor<128xf32>)
// CHECK-NEXT:    %[[MAX:.*]] = blk.reduce max %[[X]] axis = 0 : tensor<128xf32> -> f32
// CHECK-NEXT:    %[[MIN:.*]] = blk.reduce min %[[X]] axis = 0 : tensor<128xf32> -> f32
// CHECK-NEXT:    %[[SUM:.*]] = blk.reduce sum %[[X]] axis = 0 : tensor<128xf32> -> f32
// CHECK-NEXT:    return %[[MAX]], %[[MIN]], %[[SUM]] : f32, f32, f32
func.func @reduce_1d(%x: tensor<128xf32>) -> (f32, f32, f32) {
  %max = blk.reduce max %x axis = 0 : tensor<128xf32> -> f32
  %min = blk.reduce min %x axis = 0 : tensor<128xf32> -> f32
  %sum = blk.reduce sum %x axis = 0 : tensor<128xf32> -> f32
  return %max, %min, %sum : f32, f32, f32
}

// 2-D blocks along axis 0 (drops rows) and axis 1 (drops columns).
// CHECK-LABEL: func.func @reduce_2d
// CHECK:         blk.reduce max %{{.*}} axis = 0 : tensor<16x32xf32> -> tensor<32xf32>
// CHECK:         blk.reduce min %{{.*}} axis = 1 : tensor<16x32xf32> -> tensor<16xf32>
// CHECK:         blk.reduce sum %{{.*}} axis = 0 : tensor<16x32xf32> -> tensor<32xf32>
// CHECK:         blk.reduce sum %{{.*}} axis = 1 : tensor<16x32xf32> -> tensor<16xf32>
func.func @reduce_2d(%x: tensor<16x32xf32>) {
  %0 = blk.reduce max %x axis = 0 : tensor<16x32xf32> -> tensor<32xf32>
  %1 = blk.reduce min %x axis = 1 : tensor<16x32xf32> -> tensor<16xf32>
  %2 = blk.reduce sum %x axis = 0 : tensor<16x32xf32> -> tensor<32xf32>
  %3 = blk.reduce sum %x axis = 1 : tensor<16x32xf32> -> tensor<16xf32>
  return
}

// Integer and half-precision element types; a 3-D block.
// CHECK-LABEL: func.func @reduce_types
// CHECK:         blk.reduce sum %{{.*}} axis = 0 : tensor<64xi32> -> i32
// CHECK:         blk.reduce max %{{.*}} axis = 0 : tensor<64xf16> -> f16
// CHECK:         blk.reduce min %{{.*}} axis = 1 : tensor<8x4xbf16> -> tensor<8xbf16>
// CHECK:         blk.reduce sum %{{.*}} axis = 2 : tensor<2x4x8xi64> -> tensor<2x4xi64>
func.func @reduce_types(%a: tensor<64xi32>, %b: tensor<64xf16>, %c: tensor<8x4xbf16>, %d: tensor<2x4x8xi64>) {
  %0 = blk.reduce sum %a axis = 0 : tensor<64xi32> -> i32
  %1 = blk.reduce max %b axis = 0 : tensor<64xf16> -> f16
  %2 = blk.reduce min %c axis = 1 : tensor<8x4xbf16> -> tensor<8xbf16>
  %3 = blk.reduce sum %d axis = 2 : tensor<2x4x8xi64> -> tensor<2x4xi64>
  return
}
