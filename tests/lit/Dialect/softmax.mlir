// RUN: blockjit-opt %s | blockjit-opt | FileCheck %s
// RUN: blockjit-opt %s --mlir-print-op-generic | blockjit-opt | FileCheck %s
// RUN: blockjit-opt %s -canonicalize -cse | FileCheck %s --check-prefix=CANON

// Row-wise softmax, one row per iteration of a persistent loop: program `pid`
// handles rows pid, pid + num_programs, ... . A row has at most 1024 columns;
// lanes past n_cols load -inf, so they add exp(-inf) = 0 to the sum, and are
// not stored.

// CHECK-LABEL: func.func @softmax
// CHECK-SAME:    (%[[OUT:[^:]*]]: !blk.ptr<f32>, %[[IN:[^:]*]]: !blk.ptr<f32>, %[[IN_STRIDE:[^:]*]]: i32,
// CHECK-SAME:     %[[OUT_STRIDE:[^:]*]]: i32, %[[N_ROWS:[^:]*]]: i32, %[[N_COLS:[^:]*]]: i32)
// CHECK:         %[[PID:.*]] = blk.program_id 0 : i32
// CHECK:         %[[NP:.*]] = blk.num_programs 0 : i32
// CHECK:         %[[COLS:.*]] = blk.make_range 0 to 1024 : tensor<1024xi32>
// CHECK:         %[[NCOLS:.*]] = blk.splat %[[N_COLS]] : i32 -> tensor<1024xi32>
// CHECK:         %[[MASK:.*]] = arith.cmpi slt, %[[COLS]], %[[NCOLS]] : tensor<1024xi32>
// CHECK:         %[[NINF:.*]] = arith.constant dense<0xFF800000> : tensor<1024xf32>
// CHECK:         scf.for %[[ROW:.*]] = %[[PID]] to %[[N_ROWS]] step %[[NP]] : i32 {
// CHECK:           %[[IN_OFF:.*]] = arith.muli %[[ROW]], %[[IN_STRIDE]] : i32
// CHECK:           %[[IN_ROW:.*]] = blk.addptr %[[IN]], %[[IN_OFF]] : !blk.ptr<f32>, i32
// CHECK:           %[[IN_SPLAT:.*]] = blk.splat %[[IN_ROW]] : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
// CHECK:           %[[IN_PTRS:.*]] = blk.addptr %[[IN_SPLAT]], %[[COLS]] : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
// CHECK:           %[[X:.*]] = blk.load %[[IN_PTRS]], %[[MASK]], %[[NINF]] : tensor<1024x!blk.ptr<f32>>
// CHECK:           %[[MAX:.*]] = blk.reduce max %[[X]] axis = 0 : tensor<1024xf32> -> f32
// CHECK:           %[[MAXS:.*]] = blk.splat %[[MAX]] : f32 -> tensor<1024xf32>
// CHECK:           %[[SHIFTED:.*]] = arith.subf %[[X]], %[[MAXS]] : tensor<1024xf32>
// CHECK:           %[[NUM:.*]] = math.exp %[[SHIFTED]] : tensor<1024xf32>
// CHECK:           %[[DEN:.*]] = blk.reduce sum %[[NUM]] axis = 0 : tensor<1024xf32> -> f32
// CHECK:           %[[DENS:.*]] = blk.splat %[[DEN]] : f32 -> tensor<1024xf32>
// CHECK:           %[[Y:.*]] = arith.divf %[[NUM]], %[[DENS]] : tensor<1024xf32>
// CHECK:           %[[OUT_OFF:.*]] = arith.muli %[[ROW]], %[[OUT_STRIDE]] : i32
// CHECK:           %[[OUT_ROW:.*]] = blk.addptr %[[OUT]], %[[OUT_OFF]] : !blk.ptr<f32>, i32
// CHECK:           %[[OUT_SPLAT:.*]] = blk.splat %[[OUT_ROW]] : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
// CHECK:           %[[OUT_PTRS:.*]] = blk.addptr %[[OUT_SPLAT]], %[[COLS]] : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
// CHECK:           blk.store %[[OUT_PTRS]], %[[Y]], %[[MASK]] : tensor<1024x!blk.ptr<f32>>
// CHECK:         }
// CHECK:         return

// After -canonicalize -cse nothing of the kernel may disappear: every op feeds
// the masked store.
// CANON-LABEL: func.func @softmax
// CANON-DAG:     blk.program_id 0 : i32
// CANON-DAG:     blk.num_programs 0 : i32
// CANON-DAG:     blk.make_range 0 to 1024 : tensor<1024xi32>
// CANON-DAG:     arith.constant dense<0xFF800000> : tensor<1024xf32>
// CANON:         scf.for
// CANON:           blk.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<1024x!blk.ptr<f32>>
// CANON:           blk.reduce max
// CANON:           arith.subf
// CANON:           math.exp
// CANON:           blk.reduce sum
// CANON:           arith.divf
// CANON:           blk.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<1024x!blk.ptr<f32>>

func.func @softmax(%out: !blk.ptr<f32>, %in: !blk.ptr<f32>, %in_row_stride: i32,
                   %out_row_stride: i32, %n_rows: i32, %n_cols: i32) {
  %pid = blk.program_id 0 : i32
  %np = blk.num_programs 0 : i32
  %cols = blk.make_range 0 to 1024 : tensor<1024xi32>
  %n_cols_block = blk.splat %n_cols : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %cols, %n_cols_block : tensor<1024xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<1024xf32>
  scf.for %row = %pid to %n_rows step %np : i32 {
    %in_off = arith.muli %row, %in_row_stride : i32
    %in_row = blk.addptr %in, %in_off : !blk.ptr<f32>, i32
    %in_row_block = blk.splat %in_row : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
    %in_ptrs = blk.addptr %in_row_block, %cols : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
    %x = blk.load %in_ptrs, %mask, %ninf : tensor<1024x!blk.ptr<f32>>
    %max = blk.reduce max %x axis = 0 : tensor<1024xf32> -> f32
    %max_block = blk.splat %max : f32 -> tensor<1024xf32>
    %shifted = arith.subf %x, %max_block : tensor<1024xf32>
    %num = math.exp %shifted : tensor<1024xf32>
    %den = blk.reduce sum %num axis = 0 : tensor<1024xf32> -> f32
    %den_block = blk.splat %den : f32 -> tensor<1024xf32>
    %y = arith.divf %num, %den_block : tensor<1024xf32>
    %out_off = arith.muli %row, %out_row_stride : i32
    %out_row = blk.addptr %out, %out_off : !blk.ptr<f32>, i32
    %out_row_block = blk.splat %out_row : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
    %out_ptrs = blk.addptr %out_row_block, %cols : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
    blk.store %out_ptrs, %y, %mask : tensor<1024x!blk.ptr<f32>>
  }
  return
}
