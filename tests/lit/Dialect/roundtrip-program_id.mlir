// RUN: blockjit-opt %s | blockjit-opt | FileCheck %s
// RUN: blockjit-opt %s --mlir-print-op-generic | blockjit-opt | FileCheck %s

// blk.program_id on each of the three grid axes.

// CHECK-LABEL: func.func @program_id_axes
// CHECK-NEXT:    %[[X:.*]] = blk.program_id 0 : i32
// CHECK-NEXT:    %[[Y:.*]] = blk.program_id 1 : i32
// CHECK-NEXT:    %[[Z:.*]] = blk.program_id 2 : i32
// CHECK-NEXT:    return %[[X]], %[[Y]], %[[Z]] : i32, i32, i32
func.func @program_id_axes() -> (i32, i32, i32) {
  %x = blk.program_id 0 : i32
  %y = blk.program_id 1 : i32
  %z = blk.program_id 2 : i32
  return %x, %y, %z : i32, i32, i32
}

// Discardable attributes survive the round trip.
// CHECK-LABEL: func.func @program_id_attr
// CHECK:         blk.program_id 1 {tag = "row"} : i32
func.func @program_id_attr() -> i32 {
  %x = blk.program_id 1 {tag = "row"} : i32
  return %x : i32
}

// The result feeds ordinary arith.
// CHECK-LABEL: func.func @program_id_use
// CHECK:         %[[P:.*]] = blk.program_id 0 : i32
// CHECK:         arith.muli %[[P]], %{{.*}} : i32
func.func @program_id_use(%block: i32) -> i32 {
  %p = blk.program_id 0 : i32
  %o = arith.muli %p, %block : i32
  return %o : i32
}
