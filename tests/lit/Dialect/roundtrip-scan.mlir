// RUN: blockjit-opt %s | blockjit-opt | FileCheck %s
// RUN: blockjit-opt %s --mlir-print-op-generic | blockjit-opt | FileCheck %s

// A 1-D sum scan and a reverse 2-D scan along axis 0 whose combine is not
// commutative; the region is printed with its arguments.
// CHECK-LABEL: func.func @scans
// CHECK-SAME:    (%[[X:.*]]: tensor<128xf32>, %[[Y:.*]]: tensor<4x8xi32>)
// CHECK:         %[[S:.*]] = blk.scan %[[X]] axis = 0 : tensor<128xf32> {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT:      %[[C:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT:      blk.scan_return %[[C]] : f32
// CHECK-NEXT:    }
// CHECK:         %[[T:.*]] = blk.scan %[[Y]] axis = 0 reverse : tensor<4x8xi32> {
// CHECK-NEXT:    ^bb0(%[[L:.*]]: i32, %[[R:.*]]: i32):
// CHECK:           arith.select
// CHECK-NEXT:      blk.scan_return
// CHECK-NEXT:    }
// CHECK:         return %[[S]], %[[T]] : tensor<128xf32>, tensor<4x8xi32>
func.func @scans(%x: tensor<128xf32>, %y: tensor<4x8xi32>) -> (tensor<128xf32>, tensor<4x8xi32>) {
  %s = blk.scan %x axis = 0 : tensor<128xf32> {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    blk.scan_return %c : f32
  }
  %t = blk.scan %y axis = 0 reverse : tensor<4x8xi32> {
  ^bb0(%l: i32, %r: i32):
    %zero = arith.constant 0 : i32
    %nz = arith.cmpi ne, %l, %zero : i32
    %k = arith.select %nz, %l, %r : i32
    blk.scan_return %k : i32
  }
  return %s, %t : tensor<128xf32>, tensor<4x8xi32>
}
