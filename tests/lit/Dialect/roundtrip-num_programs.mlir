// RUN: blockjit-opt %s | blockjit-opt | FileCheck %s
// RUN: blockjit-opt %s --mlir-print-op-generic | blockjit-opt | FileCheck %s

// blk.num_programs on each of the three grid axes.

// CHECK-LABEL: func.func @num_programs_axes
// CHECK-NEXT:    %[[X:.*]] = blk.num_programs 0 : i32
// CHECK-NEXT:    %[[Y:.*]] = blk.num_programs 1 : i32
// CHECK-NEXT:    %[[Z:.*]] = blk.num_programs 2 : i32
// CHECK-NEXT:    return %[[X]], %[[Y]], %[[Z]] : i32, i32, i32
func.func @num_programs_axes() -> (i32, i32, i32) {
  %x = blk.num_programs 0 : i32
  %y = blk.num_programs 1 : i32
  %z = blk.num_programs 2 : i32
  return %x, %y, %z : i32, i32, i32
}

// program_id and num_programs side by side: a persistent-loop step.
// CHECK-LABEL: func.func @grid_stride
// CHECK:         %[[P:.*]] = blk.program_id 0 : i32
// CHECK:         %[[N:.*]] = blk.num_programs 0 : i32
// CHECK:         arith.addi %[[P]], %[[N]] : i32
func.func @grid_stride() -> i32 {
  %p = blk.program_id 0 : i32
  %n = blk.num_programs 0 : i32
  %next = arith.addi %p, %n : i32
  return %next : i32
}
