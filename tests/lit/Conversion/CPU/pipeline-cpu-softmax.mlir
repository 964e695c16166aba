// RUN: blockjit-opt %s --blockjit-cpu-pipeline \
// RUN:   | FileCheck %s --implicit-check-not=scf. --implicit-check-not=cf. \
// RUN:       --implicit-check-not=memref. --implicit-check-not=blk. \
// RUN:       --implicit-check-not=arith. --implicit-check-not=math. \
// RUN:       --implicit-check-not=func.func --implicit-check-not='tensor<' \
// RUN:       --implicit-check-not=llvm.intr.exp

// The whole CPU pipeline (blk stage, loops stage, LLVM stage) on the row-wise
// softmax of tests/lit/Dialect/softmax.mlir ends in the LLVM dialect: the
// kernel is internal and always_inline (on an AVX-512 host also with
// prefer_vector_width = "512"), with the grid as six trailing i32
// parameters, and @softmax_blockjit_entry unpacks args/grid and calls it
// for each program of its range.

// CHECK-LABEL: llvm.func internal @softmax
// CHECK-SAME:    (%[[OUT:[^:]*]]: !llvm.ptr, %[[IN:[^:]*]]: !llvm.ptr, %[[IN_STRIDE:[^:]*]]: i32, %[[OUT_STRIDE:[^:]*]]: i32,
// CHECK-SAME:     %[[N_ROWS:[^:]*]]: i32, %[[N_COLS:[^:]*]]: i32, %[[PID:[^:]*]]: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32,
// CHECK-SAME:     %[[NP:[^:]*]]: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32)
// CHECK-SAME:    attributes {always_inline{{.*}}}
//                two row buffers (x and exp(x - max)), allocated once
// CHECK-COUNT-2: llvm.alloca %{{.*}} x f32 {alignment = 64 : i64} : (i64) -> !llvm.ptr
// CHECK-NOT:     llvm.alloca
//                the persistent row loop: from pid, step num_programs
// CHECK:         llvm.br ^[[ROWS:bb[0-9]+]](%[[PID]] : i32)
// CHECK-NEXT:  ^[[ROWS]](%[[ROW:[^:]*]]: i32):
// CHECK-NEXT:    llvm.icmp "slt" %[[ROW]], %[[N_ROWS]] : i32
//                masked load: lanes below clamp(n_cols, 0, 1024) load
//                (row offsets in i64: they cannot wrap), the others get -inf
// CHECK:         %[[ROW64:.*]] = llvm.sext %[[ROW]] : i32 to i64
// CHECK-NEXT:    %[[INROW_OFF:.*]] = llvm.mul %[[ROW64]], %{{.*}} overflow<nsw> : i64
// CHECK-NEXT:    %[[INROW:.*]] = llvm.getelementptr inbounds %[[IN]][%[[INROW_OFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[N64:.*]] = llvm.sext %[[N_COLS]] : i32 to i64
// CHECK-NEXT:    %[[MIN:.*]] = llvm.intr.smin(%[[N64]], %{{.*}}) : (i64, i64) -> i64
// CHECK-NEXT:    %[[END:.*]] = llvm.intr.smax(%[[MIN]], %{{.*}}) : (i64, i64) -> i64
// CHECK:         llvm.icmp "slt" %{{.*}}, %[[END]] : i64
// CHECK:         llvm.load %{{.*}} : !llvm.ptr -> f32
//                max, exp polynomial, sum
// CHECK:         llvm.intr.maximum
// CHECK:         llvm.fsub
// CHECK:         llvm.intr.fma
// CHECK:         llvm.fadd %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<reassoc>} : f32
//                masked store of exp / sum, lanes below the same end
// CHECK:         %[[OUTROW_OFF:.*]] = llvm.mul %[[ROW64]], %{{.*}} overflow<nsw> : i64
// CHECK-NEXT:    %[[OUTROW:.*]] = llvm.getelementptr inbounds %[[OUT]][%[[OUTROW_OFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK:         llvm.icmp "slt" %{{.*}}, %[[END]] : i64
// CHECK:         %[[P:.*]] = llvm.getelementptr inbounds %[[OUTROW]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK:         %[[R:.*]] = llvm.fdiv %{{.*}}, %[[SUM:.*]] : f32
// CHECK-NEXT:    %[[Y:.*]] = llvm.fmul %{{.*}}, %[[R]] : f32
// CHECK-NEXT:    llvm.store %[[Y]], %[[P]] : f32, !llvm.ptr
//                the copy that divides, for a sum out of the reciprocal's range
// CHECK:         %[[Z:.*]] = llvm.fdiv %{{.*}}, %[[SUM]] : f32
// CHECK-NEXT:    llvm.store %[[Z]], %{{.*}} : f32, !llvm.ptr
//                next row
// CHECK:         %[[NEXT:.*]] = llvm.add %[[ROW]], %[[NP]] : i32
// CHECK-NEXT:    llvm.br ^[[ROWS]](%[[NEXT]] : i32)
// CHECK:         llvm.return
// CHECK-NEXT:  }

// CHECK-LABEL: llvm.func @softmax_blockjit_entry
// CHECK-SAME:    (%[[ARGS:[^:]*]]: !llvm.ptr, %[[GRID:[^:]*]]: !llvm.ptr, %[[SCRATCH:[^:]*]]: !llvm.ptr, %{{[^:]*}}: i64, %{{[^:]*}}: i64){{.*}} {
// CHECK-COUNT-2: llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK:         llvm.getelementptr %[[ARGS]][5] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK:         llvm.getelementptr %[[GRID]][2] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK:         llvm.call @softmax({{.*}}) : (!llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> ()
// CHECK:         llvm.return

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
