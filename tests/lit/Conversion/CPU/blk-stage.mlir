// RUN: blockjit-opt %s --canonicalize --cse --loop-invariant-code-motion \
// RUN:   --canonicalize | FileCheck %s --implicit-check-not=llvm. \
// RUN:   --implicit-check-not=memref.

// The blk stage both backends start with (canonicalize, CSE, LICM,
// canonicalize): blocks stay blocks and nothing is lowered. The row-invariant
// part of a softmax written entirely inside its persistent row loop
// (make_range, the n_cols splat, the mask, the -inf constant) is hoisted out
// of the loop; the row-dependent pointer arithmetic, the load and the store
// stay inside. The dead math.exp and the `addptr p, 0` disappear.

// CHECK-LABEL: func.func @softmax_in_loop
// CHECK-SAME:    (%[[OUT:[^:]*]]: !blk.ptr<f32>, %[[IN:[^:]*]]: !blk.ptr<f32>, %[[STRIDE:[^:]*]]: i32,
// CHECK-SAME:     %[[N_ROWS:[^:]*]]: i32, %[[N_COLS:[^:]*]]: i32)
// CHECK-DAG:     %[[NINF:.*]] = arith.constant dense<0xFF800000> : tensor<256xf32>
// CHECK-DAG:     %[[PID:.*]] = blk.program_id 0 : i32
// CHECK-DAG:     %[[NP:.*]] = blk.num_programs 0 : i32
// CHECK-DAG:     %[[COLS:.*]] = blk.make_range 0 to 256 : tensor<256xi32>
// CHECK-DAG:     %[[NCOLS:.*]] = blk.splat %[[N_COLS]] : i32 -> tensor<256xi32>
// CHECK-DAG:     %[[MASK:.*]] = arith.cmpi slt, %[[COLS]], %[[NCOLS]] : tensor<256xi32>
// CHECK:         scf.for %[[ROW:.*]] = %[[PID]] to %[[N_ROWS]] step %[[NP]] : i32 {
// CHECK-NOT:       blk.make_range
// CHECK-NOT:       arith.cmpi
// CHECK-NOT:       arith.constant
// CHECK:           %[[OFF:.*]] = arith.muli %[[ROW]], %[[STRIDE]] : i32
// CHECK-NEXT:      %[[ROWP:.*]] = blk.addptr %[[IN]], %[[OFF]] : !blk.ptr<f32>, i32
// CHECK-NEXT:      %[[ROWPS:.*]] = blk.splat %[[ROWP]] : !blk.ptr<f32> -> tensor<256x!blk.ptr<f32>>
// CHECK-NEXT:      %[[PTRS:.*]] = blk.addptr %[[ROWPS]], %[[COLS]] : tensor<256x!blk.ptr<f32>>, tensor<256xi32>
// CHECK-NEXT:      %[[X:.*]] = blk.load %[[PTRS]], %[[MASK]], %[[NINF]] : tensor<256x!blk.ptr<f32>>
// CHECK-NEXT:      %[[MAX:.*]] = blk.reduce max %[[X]] axis = 0 : tensor<256xf32> -> f32
// CHECK:           math.exp
// CHECK-NOT:       math.exp
// CHECK:           blk.reduce sum
// CHECK:           arith.divf
// CHECK:           %[[OROW:.*]] = blk.addptr %[[OUT]], %[[OFF]] : !blk.ptr<f32>, i32
// CHECK-NEXT:      %[[OROWS:.*]] = blk.splat %[[OROW]] : !blk.ptr<f32> -> tensor<256x!blk.ptr<f32>>
// CHECK-NEXT:      %[[OPTRS:.*]] = blk.addptr %[[OROWS]], %[[COLS]] : tensor<256x!blk.ptr<f32>>, tensor<256xi32>
// CHECK-NEXT:      blk.store %[[OPTRS]], %{{.*}}, %[[MASK]] : tensor<256x!blk.ptr<f32>>
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @softmax_in_loop(%out: !blk.ptr<f32>, %in: !blk.ptr<f32>, %stride: i32,
                           %n_rows: i32, %n_cols: i32) {
  %pid = blk.program_id 0 : i32
  %np = blk.num_programs 0 : i32
  scf.for %row = %pid to %n_rows step %np : i32 {
    %cols = blk.make_range 0 to 256 : tensor<256xi32>
    %n_cols_block = blk.splat %n_cols : i32 -> tensor<256xi32>
    %mask = arith.cmpi slt, %cols, %n_cols_block : tensor<256xi32>
    %ninf = arith.constant dense<0xFF800000> : tensor<256xf32>
    %off = arith.muli %row, %stride : i32
    %row_ptr = blk.addptr %in, %off : !blk.ptr<f32>, i32
    %c0 = arith.constant 0 : i32
    %row_ptr0 = blk.addptr %row_ptr, %c0 : !blk.ptr<f32>, i32
    %row_ptrs = blk.splat %row_ptr0 : !blk.ptr<f32> -> tensor<256x!blk.ptr<f32>>
    %ptrs = blk.addptr %row_ptrs, %cols : tensor<256x!blk.ptr<f32>>, tensor<256xi32>
    %x = blk.load %ptrs, %mask, %ninf : tensor<256x!blk.ptr<f32>>
    %max = blk.reduce max %x axis = 0 : tensor<256xf32> -> f32
    %max_block = blk.splat %max : f32 -> tensor<256xf32>
    %shifted = arith.subf %x, %max_block : tensor<256xf32>
    %num = math.exp %shifted : tensor<256xf32>
    %dead = math.exp %x : tensor<256xf32>
    %den = blk.reduce sum %num axis = 0 : tensor<256xf32> -> f32
    %den_block = blk.splat %den : f32 -> tensor<256xf32>
    %y = arith.divf %num, %den_block : tensor<256xf32>
    %out_row = blk.addptr %out, %off : !blk.ptr<f32>, i32
    %out_row_block = blk.splat %out_row : !blk.ptr<f32> -> tensor<256x!blk.ptr<f32>>
    %out_ptrs = blk.addptr %out_row_block, %cols : tensor<256x!blk.ptr<f32>>, tensor<256xi32>
    blk.store %out_ptrs, %y, %mask : tensor<256x!blk.ptr<f32>>
  }
  return
}
