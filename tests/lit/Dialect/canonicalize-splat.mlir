// RUN: blockjit-opt %s -canonicalize | FileCheck %s

// splat(constant) -> arith.constant dense<...>.
// CHECK-LABEL: func.func @splat_f32
// CHECK-NOT:     blk.splat
// CHECK:         %[[C:.*]] = arith.constant dense<1.500000e+00> : tensor<128xf32>
// CHECK-NOT:     blk.splat
// CHECK:         return %[[C]] : tensor<128xf32>
func.func @splat_f32() -> tensor<128xf32> {
  %c = arith.constant 1.5 : f32
  %s = blk.splat %c : f32 -> tensor<128xf32>
  return %s : tensor<128xf32>
}

// CHECK-LABEL: func.func @splat_ninf
// CHECK:         %[[C:.*]] = arith.constant dense<0xFF800000> : tensor<1024xf32>
// CHECK-NEXT:    return %[[C]]
func.func @splat_ninf() -> tensor<1024xf32> {
  %c = arith.constant 0xFF800000 : f32
  %s = blk.splat %c : f32 -> tensor<1024xf32>
  return %s : tensor<1024xf32>
}

// CHECK-LABEL: func.func @splat_i32_2d
// CHECK:         %[[C:.*]] = arith.constant dense<7> : tensor<4x8xi32>
// CHECK-NEXT:    return %[[C]]
func.func @splat_i32_2d() -> tensor<4x8xi32> {
  %c = arith.constant 7 : i32
  %s = blk.splat %c : i32 -> tensor<4x8xi32>
  return %s : tensor<4x8xi32>
}

// CHECK-LABEL: func.func @splat_i1
// CHECK:         %[[C:.*]] = arith.constant dense<true> : tensor<16xi1>
// CHECK-NEXT:    return %[[C]]
func.func @splat_i1() -> tensor<16xi1> {
  %t = arith.constant true
  %s = blk.splat %t : i1 -> tensor<16xi1>
  return %s : tensor<16xi1>
}

// CHECK-LABEL: func.func @splat_f16
// CHECK:         %[[C:.*]] = arith.constant dense<0.000000e+00> : tensor<64xf16>
// CHECK-NEXT:    return %[[C]]
func.func @splat_f16() -> tensor<64xf16> {
  %z = arith.constant 0.0 : f16
  %s = blk.splat %z : f16 -> tensor<64xf16>
  return %s : tensor<64xf16>
}

// Two splats of the same constant to the same type become one constant.
// CHECK-LABEL: func.func @splat_dedup
// CHECK:         %[[C:.*]] = arith.constant dense<3> : tensor<8xi64>
// CHECK-NEXT:    return %[[C]], %[[C]]
func.func @splat_dedup() -> (tensor<8xi64>, tensor<8xi64>) {
  %c = arith.constant 3 : i64
  %a = blk.splat %c : i64 -> tensor<8xi64>
  %b = blk.splat %c : i64 -> tensor<8xi64>
  return %a, %b : tensor<8xi64>, tensor<8xi64>
}
