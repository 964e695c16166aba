// RUN: blockjit-opt %s | blockjit-opt | FileCheck %s
// RUN: blockjit-opt %s --mlir-print-op-generic | blockjit-opt | FileCheck %s

// Scalar pointers: no mask, mask, mask + other.
// CHECK-LABEL: func.func @load_scalar
// CHECK-SAME:    (%[[P:.*]]: !blk.ptr<f32>, %[[M:.*]]: i1, %[[O:.*]]: f32)
// CHECK-NEXT:    %[[A:.*]] = blk.load %[[P]] : !blk.ptr<f32>
// CHECK-NEXT:    %[[B:.*]] = blk.load %[[P]], %[[M]] : !blk.ptr<f32>
// CHECK-NEXT:    %[[C:.*]] = blk.load %[[P]], %[[M]], %[[O]] : !blk.ptr<f32>
// CHECK-NEXT:    return %[[A]], %[[B]], %[[C]] : f32, f32, f32
func.func @load_scalar(%p: !blk.ptr<f32>, %m: i1, %o: f32) -> (f32, f32, f32) {
  %a = blk.load %p : !blk.ptr<f32>
  %b = blk.load %p, %m : !blk.ptr<f32>
  %c = blk.load %p, %m, %o : !blk.ptr<f32>
  return %a, %b, %c : f32, f32, f32
}

// Blocks of f16 pointers: the result is a tensor of the pointee type.
// CHECK-LABEL: func.func @load_tensor_f16
// CHECK-SAME:    (%[[P:.*]]: tensor<128x!blk.ptr<f16>>, %[[M:.*]]: tensor<128xi1>, %[[O:.*]]: tensor<128xf16>)
// CHECK-NEXT:    %[[A:.*]] = blk.load %[[P]] : tensor<128x!blk.ptr<f16>>
// CHECK-NEXT:    %[[B:.*]] = blk.load %[[P]], %[[M]] : tensor<128x!blk.ptr<f16>>
// CHECK-NEXT:    %[[C:.*]] = blk.load %[[P]], %[[M]], %[[O]] : tensor<128x!blk.ptr<f16>>
// CHECK-NEXT:    return %[[A]], %[[B]], %[[C]] : tensor<128xf16>, tensor<128xf16>, tensor<128xf16>
func.func @load_tensor_f16(%p: tensor<128x!blk.ptr<f16>>, %m: tensor<128xi1>, %o: tensor<128xf16>)
    -> (tensor<128xf16>, tensor<128xf16>, tensor<128xf16>) {
  %a = blk.load %p : tensor<128x!blk.ptr<f16>>
  %b = blk.load %p, %m : tensor<128x!blk.ptr<f16>>
  %c = blk.load %p, %m, %o : tensor<128x!blk.ptr<f16>>
  return %a, %b, %c : tensor<128xf16>, tensor<128xf16>, tensor<128xf16>
}

// bf16 pointees, 2-D block.
// CHECK-LABEL: func.func @load_tensor_bf16
// CHECK:         %[[O:.*]] = arith.constant dense<0.000000e+00> : tensor<16x32xbf16>
// CHECK:         %[[L:.*]] = blk.load %{{.*}}, %{{.*}}, %[[O]] : tensor<16x32x!blk.ptr<bf16>>
// CHECK:         return %[[L]] : tensor<16x32xbf16>
func.func @load_tensor_bf16(%p: tensor<16x32x!blk.ptr<bf16>>, %m: tensor<16x32xi1>) -> tensor<16x32xbf16> {
  %zero = arith.constant dense<0.0> : tensor<16x32xbf16>
  %l = blk.load %p, %m, %zero : tensor<16x32x!blk.ptr<bf16>>
  return %l : tensor<16x32xbf16>
}

// i32 pointees, scalar and block.
// CHECK-LABEL: func.func @load_i32
// CHECK:         %[[S:.*]] = blk.load %{{.*}} : !blk.ptr<i32>
// CHECK:         %[[T:.*]] = blk.load %{{.*}}, %{{.*}} : tensor<64x!blk.ptr<i32>>
// CHECK:         return %[[S]], %[[T]] : i32, tensor<64xi32>
func.func @load_i32(%p: !blk.ptr<i32>, %q: tensor<64x!blk.ptr<i32>>, %m: tensor<64xi1>) -> (i32, tensor<64xi32>) {
  %s = blk.load %p : !blk.ptr<i32>
  %t = blk.load %q, %m : tensor<64x!blk.ptr<i32>>
  return %s, %t : i32, tensor<64xi32>
}

// The masked load with -inf padding of a softmax row; a discardable attribute
// prints between the operands and the type.
// CHECK-LABEL: func.func @load_ninf
// CHECK:         %[[NINF:.*]] = arith.constant dense<0xFF800000> : tensor<1024xf32>
// CHECK:         blk.load %{{.*}}, %{{.*}}, %[[NINF]] {cache = "evict_first"} : tensor<1024x!blk.ptr<f32>>
func.func @load_ninf(%p: tensor<1024x!blk.ptr<f32>>, %m: tensor<1024xi1>) -> tensor<1024xf32> {
  %ninf = arith.constant dense<0xFF800000> : tensor<1024xf32>
  %x = blk.load %p, %m, %ninf {cache = "evict_first"} : tensor<1024x!blk.ptr<f32>>
  return %x : tensor<1024xf32>
}
