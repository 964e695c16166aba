// RUN: blockjit-opt %s | blockjit-opt | FileCheck %s
// RUN: blockjit-opt %s --mlir-print-op-generic | blockjit-opt | FileCheck %s

// CHECK-LABEL: func.func @make_range
// CHECK-NEXT:    blk.make_range 0 to 1 : tensor<1xi32>
// CHECK-NEXT:    blk.make_range 0 to 128 : tensor<128xi32>
// CHECK-NEXT:    blk.make_range 0 to 1024 : tensor<1024xi32>
// CHECK-NEXT:    blk.make_range 64 to 128 : tensor<64xi32>
// CHECK-NEXT:    blk.make_range 7 to 9 : tensor<2xi32>
// CHECK-NEXT:    blk.make_range -8 to -4 : tensor<4xi32>
// CHECK-NEXT:    return
func.func @make_range() {
  %a = blk.make_range 0 to 1 : tensor<1xi32>
  %b = blk.make_range 0 to 128 : tensor<128xi32>
  %c = blk.make_range 0 to 1024 : tensor<1024xi32>
  %d = blk.make_range 64 to 128 : tensor<64xi32>
  %e = blk.make_range 7 to 9 : tensor<2xi32>
  %f = blk.make_range -8 to -4 : tensor<4xi32>
  return
}

// CHECK-LABEL: func.func @make_range_attr
// CHECK:         blk.make_range 0 to 16 {note} : tensor<16xi32>
func.func @make_range_attr() -> tensor<16xi32> {
  %r = blk.make_range 0 to 16 {note} : tensor<16xi32>
  return %r : tensor<16xi32>
}
