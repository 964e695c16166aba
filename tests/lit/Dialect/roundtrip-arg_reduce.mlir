// RUN: blockjit-opt %s | blockjit-opt | FileCheck %s

// CHECK-LABEL: func.func @arg_reduce
// CHECK:         blk.arg_reduce max %{{.*}} axis = 0 : tensor<128xf32> -> i32
// CHECK:         blk.arg_reduce min %{{.*}} axis = 1 : tensor<4x8xi8> -> tensor<4xi32>
// CHECK:         blk.arg_reduce max %{{.*}} axis = 0 : tensor<4x8xbf16> -> tensor<8xi32>
func.func @arg_reduce(%a: tensor<128xf32>, %b: tensor<4x8xi8>, %c: tensor<4x8xbf16>) {
  %0 = blk.arg_reduce max %a axis = 0 : tensor<128xf32> -> i32
  %1 = blk.arg_reduce min %b axis = 1 : tensor<4x8xi8> -> tensor<4xi32>
  %2 = blk.arg_reduce max %c axis = 0 : tensor<4x8xbf16> -> tensor<8xi32>
  return
}
