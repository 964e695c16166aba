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
//
// Per row: the input row is not copied (its only buffer is exp(x - max)'s):
// the max pass reads it from memory, over whole 64-byte vectors [0, split)
// and a tail-folded remainder [split, end) (loop annotation: vectorize with
// predication, width 16); a max that came out zero is recomputed with signed
// zeros, reloading the row with its mask tested per element (-inf past
// n_cols). The exp pass reads the row again, in chunks of 256 elements,
// each starting with prefetches (one per 64 bytes) of the next unit of
// work's row (rw = 0) and of this row's output (rw = 1); then the vectors
// past the last chunk, the remainder, and the padding [end, 1024) filled with
// exp(-inf - max) computed once. The store of exp / sum also runs as whole
// vectors plus a tail-folded remainder.

// CHECK:       #[[IL:loop_interleave[0-9_]*]] = #llvm.loop_interleave<count = 1 : i32>
// CHECK-NEXT:  #[[VEC:loop_vectorize[0-9_]*]] = #llvm.loop_vectorize<disable = false, predicateEnable = true, scalableEnable = false, width = 16 : i32>
// CHECK-NEXT:  #[[ANN:loop_annotation[0-9_]*]] = #llvm.loop_annotation<vectorize = #[[VEC]], interleave = #[[IL]]>

// CHECK-LABEL: llvm.func internal @softmax
// CHECK-SAME:    (%[[OUT:[^:]*]]: !llvm.ptr, %[[IN:[^:]*]]: !llvm.ptr, %[[IN_STRIDE:[^:]*]]: i32, %[[OUT_STRIDE:[^:]*]]: i32,
// CHECK-SAME:     %[[N_ROWS:[^:]*]]: i32, %[[N_COLS:[^:]*]]: i32, %[[PID:[^:]*]]: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32,
// CHECK-SAME:     %[[NP:[^:]*]]: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32)
// CHECK-SAME:    attributes {always_inline{{.*}}}
// CHECK-DAG:     %[[C16:.*]] = llvm.mlir.constant(16 : index) : i64
// CHECK-DAG:     %[[C256:.*]] = llvm.mlir.constant(256 : index) : i64
// CHECK-DAG:     %[[CM256:.*]] = llvm.mlir.constant(-256 : index) : i64
// CHECK-DAG:     %[[CM16:.*]] = llvm.mlir.constant(-16 : index) : i64
// CHECK-DAG:     %[[C1024:.*]] = llvm.mlir.constant(1024 : index) : i64
// CHECK-DAG:     %[[NINF:.*]] = llvm.mlir.constant(0xFF800000 : f32) : f32
//                one row buffer (exp(x - max)), allocated once; x has none
// CHECK:         %[[BUF:.*]] = llvm.alloca %[[C1024]] x f32 {alignment = 64 : i64} : (i64) -> !llvm.ptr
// CHECK-NOT:     llvm.alloca
//                the persistent row loop: from pid, step num_programs
// CHECK:         llvm.br ^[[ROWS:bb[0-9]+]](%[[PID]] : i32)
// CHECK-NEXT:  ^[[ROWS]](%[[ROW:[^:]*]]: i32):
// CHECK-NEXT:    llvm.icmp "slt" %[[ROW]], %[[N_ROWS]] : i32
//                active lanes end at clamp(n_cols, 0, 1024) (row offsets in
//                i64: they cannot wrap); whole vectors end at end & -16
// CHECK:         %[[ROW64:.*]] = llvm.sext %[[ROW]] : i32 to i64
// CHECK-NEXT:    %[[INROW_OFF:.*]] = llvm.mul %[[ROW64]], %[[IN_STRIDE64:.*]] overflow<nsw> : i64
// CHECK-NEXT:    %[[INROW:.*]] = llvm.getelementptr inbounds %[[IN]][%[[INROW_OFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[N64:.*]] = llvm.sext %[[N_COLS]] : i32 to i64
// CHECK-NEXT:    %[[MIN:.*]] = llvm.intr.smin(%[[N64]], %{{.*}}) : (i64, i64) -> i64
// CHECK-NEXT:    %[[END:.*]] = llvm.intr.smax(%[[MIN]], %{{.*}}) : (i64, i64) -> i64
// CHECK-NEXT:    %[[SPLIT:.*]] = llvm.and %[[END]], %[[CM16]] : i64
//                max pass over the input row itself: whole vectors...
// CHECK-NEXT:    llvm.br ^[[MAX:bb[0-9]+]](%{{.*}}, %[[NINF]] : i64, f32)
// CHECK-NEXT:  ^[[MAX]](%[[I:[^ ,:]+]]: i64, %[[M:[^ ,:]+]]: f32):
// CHECK-NEXT:    llvm.icmp "slt" %[[I]], %[[SPLIT]] : i64
// CHECK:         %[[XP:.*]] = llvm.getelementptr inbounds %[[INROW]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[X:.*]] = llvm.load %[[XP]] : !llvm.ptr -> f32
// CHECK-NEXT:    llvm.intr.maximum(%[[M]], %[[X]]) {fastmathFlags = #llvm.fastmath<nsz>} : (f32, f32) -> f32
//                ...then the tail-folded remainder up to end (the -inf lanes
//                past it are not visited)
// CHECK:       ^[[MAXREM:bb[0-9]+]](%[[J:[^ ,:]+]]: i64, %{{[^ ,:]+}}: f32):
// CHECK-NEXT:    llvm.icmp "slt" %[[J]], %[[END]] : i64
// CHECK:         %[[XP:.*]] = llvm.getelementptr inbounds %[[INROW]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[X:.*]] = llvm.load %[[XP]] : !llvm.ptr -> f32
// CHECK-NEXT:    llvm.intr.maximum(%{{.*}}, %[[X]]) {fastmathFlags = #llvm.fastmath<nsz>} : (f32, f32) -> f32
// CHECK-NEXT:    llvm.add %[[J]], %{{.*}} : i64
// CHECK-NEXT:    llvm.br ^[[MAXREM]](%{{.*}} : i64, f32) {loop_annotation = #[[ANN]]}
//                the next unit of work: row + num_programs, or past n_rows
//                the next program's first row, pid + 1
// CHECK:         %[[NR:.*]] = llvm.add %[[ROW]], %[[NP]] : i32
// CHECK-NEXT:    %[[NPID:.*]] = llvm.add %[[PID]], %{{.*}} : i32
// CHECK-NEXT:    %[[NROK:.*]] = llvm.icmp "slt" %[[NR]], %[[N_ROWS]] : i32
// CHECK-NEXT:    %[[NEXTROW:.*]] = llvm.select %[[NROK]], %[[NR]], %[[NPID]] : i1, i32
//                a max that came out zero: again with signed zeros, over all
//                1024 lanes, each reloaded where its mask holds, else -inf
// CHECK-NEXT:    llvm.fcmp "oeq" %{{.*}}, %{{.*}} : f32
// CHECK:         llvm.icmp "slt" %{{.*}}, %[[C1024]] : i64
// CHECK:         %[[ZP:.*]] = llvm.getelementptr inbounds %[[INROW]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[COLOK:.*]] = llvm.icmp "slt" %{{.*}}, %[[N_COLS]] : i32
// CHECK-NEXT:    llvm.cond_br %[[COLOK]], ^[[LOADZ:bb[0-9]+]], ^[[OTHERZ:bb[0-9]+]]
// CHECK-NEXT:  ^[[LOADZ]]:
// CHECK-NEXT:    llvm.load %[[ZP]] : !llvm.ptr -> f32
// CHECK:       ^[[OTHERZ]]:
// CHECK-NEXT:    llvm.br ^{{bb[0-9]+}}(%[[NINF]] : f32)
// CHECK:         llvm.intr.maximum(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
// CHECK:       ^{{bb[0-9]+}}(%[[MAXV:[^ ,:]+]]: f32):
//                exp(-inf - max) for the padding, computed once
//                (2^k by llvm.ldexp on AVX-512 hosts, by its exponent bits
//                elsewhere), then the NaN guard on exp's argument
// CHECK:         %[[PADARG:.*]] = llvm.fsub %[[NINF]], %[[MAXV]] : f32
// CHECK:         llvm.intr.fma
// CHECK:         llvm.fcmp "uno" %[[PADARG]], %[[PADARG]] : f32
// CHECK-NEXT:    %[[FILL:.*]] = llvm.select
// CHECK-NEXT:    %[[SPLIT256:.*]] = llvm.and %[[SPLIT]], %[[CM256]] : i64
//                exp pass over [0, split & -256) in chunks of 256...
// CHECK-NEXT:    llvm.br ^[[CHUNK:bb[0-9]+]](%{{.*}}, %{{.*}} : i64, f32)
// CHECK-NEXT:  ^[[CHUNK]](%[[K:[^ ,:]+]]: i64, %{{[^ ,:]+}}: f32):
// CHECK-NEXT:    llvm.icmp "slt" %[[K]], %[[SPLIT256]] : i64
// CHECK-NEXT:    llvm.cond_br %{{.*}}, ^[[BODY:bb[0-9]+]], ^{{bb[0-9]+}}
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NEXT:    %[[KEND:.*]] = llvm.add %[[K]], %[[C256]] : i64
//                ...each first prefetching, 64 bytes apart, the next row's
//                elements of the chunk (read)...
// CHECK-NEXT:    llvm.br ^[[PFR:bb[0-9]+]](%[[K]] : i64)
// CHECK-NEXT:  ^[[PFR]](%[[P:[^ ,:]+]]: i64):
// CHECK-NEXT:    llvm.icmp "slt" %[[P]], %[[KEND]] : i64
// CHECK:         %[[NROW64:.*]] = llvm.sext %[[NEXTROW]] : i32 to i64
// CHECK-NEXT:    %[[NOFF:.*]] = llvm.mul %[[NROW64]], %[[IN_STRIDE64]] overflow<nsw> : i64
// CHECK-NEXT:    %[[NBASE:.*]] = llvm.getelementptr inbounds %[[IN]][%[[NOFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[NPTR:.*]] = llvm.getelementptr inbounds %[[NBASE]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    "llvm.intr.prefetch"(%[[NPTR]]) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}> : (!llvm.ptr) -> ()
// CHECK-NEXT:    %[[P2:.*]] = llvm.add %[[P]], %[[C16]] : i64
// CHECK-NEXT:    llvm.br ^[[PFR]](%[[P2]] : i64)
//                ...and this row's output elements of the chunk (write)...
// CHECK:         llvm.br ^[[PFW:bb[0-9]+]](%[[K]] : i64)
// CHECK-NEXT:  ^[[PFW]](%[[Q:[^ ,:]+]]: i64):
// CHECK-NEXT:    llvm.icmp "slt" %[[Q]], %[[KEND]] : i64
// CHECK:         %[[OOFF:.*]] = llvm.mul %[[ROW64]], %{{.*}} overflow<nsw> : i64
// CHECK-NEXT:    %[[OBASE:.*]] = llvm.getelementptr inbounds %[[OUT]][%[[OOFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[OPTR:.*]] = llvm.getelementptr inbounds %[[OBASE]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    "llvm.intr.prefetch"(%[[OPTR]]) <{cache = 1 : i32, hint = 3 : i32, rw = 1 : i32}> : (!llvm.ptr) -> ()
// CHECK-NEXT:    %[[Q2:.*]] = llvm.add %[[Q]], %[[C16]] : i64
// CHECK-NEXT:    llvm.br ^[[PFW]](%[[Q2]] : i64)
//                ...then computing the chunk: x reloaded, exp polynomial into
//                the buffer, sum
// CHECK:         llvm.br ^[[EXP:bb[0-9]+]](%[[K]], %{{.*}} : i64, f32)
// CHECK-NEXT:  ^[[EXP]](%[[E:[^ ,:]+]]: i64, %[[S:[^ ,:]+]]: f32):
// CHECK-NEXT:    llvm.icmp "slt" %[[E]], %[[KEND]] : i64
// CHECK:         %[[XP:.*]] = llvm.getelementptr inbounds %[[INROW]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[X:.*]] = llvm.load %[[XP]] : !llvm.ptr -> f32
// CHECK-NEXT:    %[[XD:.*]] = llvm.fsub %[[X]], %[[MAXV]] : f32
// CHECK:         llvm.intr.fma
// CHECK:         %[[GUARD:.*]] = llvm.fcmp "uno" %[[XD]], %[[XD]] : f32
// CHECK-NEXT:    %[[EV:.*]] = llvm.select %[[GUARD]], %[[XD]], %{{.*}} : i1, f32
// CHECK-NEXT:    %[[BP:.*]] = llvm.getelementptr inbounds|nuw %[[BUF]][%[[E]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %[[EV]], %[[BP]] : f32, !llvm.ptr
// CHECK-NEXT:    llvm.fadd %[[S]], %[[EV]] {fastmathFlags = #llvm.fastmath<reassoc>} : f32
// CHECK:         llvm.add %[[K]], %[[C256]] : i64
// CHECK-NEXT:    llvm.br ^[[CHUNK]](
//                the vectors past the last chunk: [split & -256, split)
// CHECK:       ^[[REST:bb[0-9]+]](%[[I:[^ ,:]+]]: i64, %{{[^ ,:]+}}: f32):
// CHECK-NEXT:    llvm.icmp "slt" %[[I]], %[[SPLIT]] : i64
// CHECK:         llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK:         llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr
// CHECK:         llvm.br ^[[REST]](%{{.*}} : i64, f32){{$}}
//                the tail-folded remainder [split, end)
// CHECK:       ^[[REM:bb[0-9]+]](%[[I:[^ ,:]+]]: i64, %{{[^ ,:]+}}: f32):
// CHECK-NEXT:    llvm.icmp "slt" %[[I]], %[[END]] : i64
// CHECK:         llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK:         llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr
// CHECK:         llvm.br ^[[REM]](%{{.*}} : i64, f32) {loop_annotation = #[[ANN]]}
//                the padding [end, 1024): exp(-inf - max) stored, no load,
//                no sum
// CHECK:       ^[[PAD:bb[0-9]+]](%[[I:[^ ,:]+]]: i64):
// CHECK-NEXT:    llvm.icmp "slt" %[[I]], %[[C1024]] : i64
// CHECK-NEXT:    llvm.cond_br %{{.*}}, ^[[BODY:bb[0-9]+]], ^{{bb[0-9]+}}
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NEXT:    %[[FP:.*]] = llvm.getelementptr inbounds|nuw %[[BUF]][%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %[[FILL]], %[[FP]] : f32, !llvm.ptr
// CHECK-NEXT:    llvm.add %[[I]], %{{.*}} : i64
// CHECK-NEXT:    llvm.br ^[[PAD]](%{{.*}} : i64){{$}}
//                the sum adds the fill once per padding element only where
//                adding it once changes the sum's bits (a fill of 0 does not)
// CHECK-NEXT:  ^{{bb[0-9]+}}:
// CHECK-NEXT:    %[[ONCE:.*]] = llvm.fadd %[[PRE:[^ ,]+]], %[[FILL]] {fastmathFlags = #llvm.fastmath<reassoc>} : f32
// CHECK-NEXT:    %[[AFTER:.*]] = llvm.bitcast %[[ONCE]] : f32 to i32
// CHECK-NEXT:    %[[BEFORE:.*]] = llvm.bitcast %[[PRE]] : f32 to i32
// CHECK-NEXT:    llvm.icmp "eq" %[[BEFORE]], %[[AFTER]] : i32
// CHECK:         llvm.fadd %{{.*}}, %[[FILL]] {fastmathFlags = #llvm.fastmath<reassoc>} : f32
// CHECK:       ^{{bb[0-9]+}}(%[[SUM:[^ ,:]+]]: f32):
//                store of exp / sum, lanes below end: whole vectors, by the
//                reciprocal when the sum is in its range...
// CHECK:         %[[OUTROW_OFF:.*]] = llvm.mul %[[ROW64]], %{{.*}} overflow<nsw> : i64
// CHECK-NEXT:    %[[OUTROW:.*]] = llvm.getelementptr inbounds %[[OUT]][%[[OUTROW_OFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.intr.fabs(%[[SUM]]) : (f32) -> f32
// CHECK:         %[[INRANGE:.*]] = llvm.and %{{.*}}, %{{.*}} : i1
// CHECK-NEXT:    llvm.cond_br %[[INRANGE]], ^{{bb[0-9]+}}, ^{{bb[0-9]+}}
// CHECK:       ^[[SV:bb[0-9]+]](%[[I:[^ ,:]+]]: i64):
// CHECK-NEXT:    llvm.icmp "slt" %[[I]], %[[SPLIT]] : i64
// CHECK:         %[[P:.*]] = llvm.getelementptr inbounds %[[OUTROW]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[EP:.*]] = llvm.getelementptr inbounds|nuw %[[BUF]][%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[EV:.*]] = llvm.load %[[EP]] : !llvm.ptr -> f32
// CHECK-NEXT:    %[[R:.*]] = llvm.fdiv %{{.*}}, %[[SUM]] : f32
// CHECK-NEXT:    %[[Y:.*]] = llvm.fmul %[[EV]], %[[R]] : f32
// CHECK-NEXT:    llvm.store %[[Y]], %[[P]] : f32, !llvm.ptr
// CHECK-NEXT:    llvm.add %[[I]], %{{.*}} : i64
// CHECK-NEXT:    llvm.br ^[[SV]](%{{.*}} : i64){{$}}
//                ...the copy that divides, for a sum out of the reciprocal's
//                range...
// CHECK:       ^[[DV:bb[0-9]+]](%[[I:[^ ,:]+]]: i64):
// CHECK-NEXT:    llvm.icmp "slt" %[[I]], %[[SPLIT]] : i64
// CHECK:         %[[Z:.*]] = llvm.fdiv %{{.*}}, %[[SUM]] : f32
// CHECK-NEXT:    llvm.store %[[Z]], %{{.*}} : f32, !llvm.ptr
// CHECK-NEXT:    llvm.add %[[I]], %{{.*}} : i64
// CHECK-NEXT:    llvm.br ^[[DV]](%{{.*}} : i64){{$}}
//                ...then the tail-folded remainder [split, end), both ways
// CHECK:         llvm.cond_br %[[INRANGE]], ^{{bb[0-9]+}}, ^{{bb[0-9]+}}
// CHECK:       ^[[SR:bb[0-9]+]](%[[I:[^ ,:]+]]: i64):
// CHECK-NEXT:    llvm.icmp "slt" %[[I]], %[[END]] : i64
// CHECK:         %[[R:.*]] = llvm.fdiv %{{.*}}, %[[SUM]] : f32
// CHECK-NEXT:    %[[Y:.*]] = llvm.fmul %{{.*}}, %[[R]] : f32
// CHECK-NEXT:    llvm.store %[[Y]], %{{.*}} : f32, !llvm.ptr
// CHECK-NEXT:    llvm.add %[[I]], %{{.*}} : i64
// CHECK-NEXT:    llvm.br ^[[SR]](%{{.*}} : i64) {loop_annotation = #[[ANN]]}
// CHECK:       ^[[DR:bb[0-9]+]](%[[I:[^ ,:]+]]: i64):
// CHECK-NEXT:    llvm.icmp "slt" %[[I]], %[[END]] : i64
// CHECK:         %[[Z:.*]] = llvm.fdiv %{{.*}}, %[[SUM]] : f32
// CHECK-NEXT:    llvm.store %[[Z]], %{{.*}} : f32, !llvm.ptr
// CHECK-NEXT:    llvm.add %[[I]], %{{.*}} : i64
// CHECK-NEXT:    llvm.br ^[[DR]](%{{.*}} : i64) {loop_annotation = #[[ANN]]}
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
