// RUN: blockjit-opt %s --blk-pipeline-loads="num-stages=2" | FileCheck %s
// RUN: blockjit-opt %s --blk-pipeline-loads="num-stages=3" | FileCheck %s --check-prefix=DEEP
// RUN: blockjit-opt %s --blk-pipeline-loads="num-stages=1" | FileCheck %s --check-prefix=OFF
// RUN: not blockjit-opt %s --blk-pipeline-loads="num-stages=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not blockjit-opt %s --blk-pipeline-loads="num-stages=-1" 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not blockjit-opt %s --blk-pipeline-loads="num-stages=9" 2>&1 | FileCheck %s --check-prefix=NINE

// blk-pipeline-loads on its own, on loops as the blk stage leaves them
// (invariant ranges, masks and splats hoisted). A load directly in an
// scf.for body whose pointer, mask and `other` are computed (by pure ops of
// the body) only from the induction variable and values from outside the
// loop is issued one iteration ahead: a prologue before the loop loads the
// first iteration (masked off when lb >= ub), the body starts with the load
// of iteration iv + step (masked off when iv + step >= ub or when the
// addition wrapped around, and-ed with the load's own mask) and carries it to
// the next iteration through a new iter_arg, which replaces the load's uses.
//
// num-stages = 1 leaves every loop alone; num-stages = s prefetches s - 1
// iterations ahead through s - 1 iter_args per load (the DEEP run: the
// prologue loads iterations lb and lb + step, the body the one at
// iv + 2 * step, and the carried loads shift by one each iteration). Loads
// k >= 2 steps ahead also require step <= INT_MAX / k: iv + k * step then
// wraps, if at all, below iv, where the wrap test catches it, while a
// product k * step that wrapped could land on a later valid row.
// num-stages outside 1..8 is an error (checkNumStages).
//
// Not prefetched: a load whose address depends on a loaded value (the
// gather's data load), on an iter_arg (a pointer advanced through the loop),
// a load nested in an scf.if, and a load of a pointer parameter the loop
// also stores through (the store of this or the previous iteration may write
// what it reads). Distinct pointer parameters are assumed not to overlap.
// A nested loop is pipelined first; its prologue load then sits in the outer
// body and is itself prefetched one outer iteration ahead.

// ZERO: error: num_stages must be in 1..8, got 0{{$}}
// NEG: error: num_stages must be in 1..8, got -1{{$}}
// NINE: error: num_stages must be in 1..8, got 9{{$}}

// The persistent row loop of softmax (tests/lit/Dialect/softmax.mlir): a
// non-constant step (num_programs), a masked block load with `other`.
// CHECK-LABEL: func.func @rows
// CHECK-SAME:    (%[[OUT:[^:]*]]: !blk.ptr<f32>, %[[IN:[^:]*]]: !blk.ptr<f32>, %[[STRIDE:[^:]*]]: i32, %[[N_ROWS:[^:]*]]: i32, %[[N_COLS:[^:]*]]: i32)
// CHECK:         %[[PID:.*]] = blk.program_id 0 : i32
// CHECK:         %[[NP:.*]] = blk.num_programs 0 : i32
// CHECK:         %[[COLS:.*]] = blk.make_range 0 to 128
// CHECK:         %[[MASK:.*]] = arith.cmpi slt, %[[COLS]], %{{.*}} : tensor<128xi32>
// CHECK:         %[[NINF:.*]] = arith.constant dense<0xFF800000> : tensor<128xf32>
//                prologue: the row of the first iteration (pid), if pid < n_rows
// CHECK-NEXT:    %[[OFF0:.*]] = arith.muli %[[PID]], %[[STRIDE]] : i32
// CHECK-NEXT:    %[[BASE0:.*]] = blk.addptr %[[IN]], %[[OFF0]] : !blk.ptr<f32>, i32
// CHECK-NEXT:    %[[BASES0:.*]] = blk.splat %[[BASE0]]
// CHECK-NEXT:    %[[PTRS0:.*]] = blk.addptr %[[BASES0]], %[[COLS]]
// CHECK-NEXT:    %[[IN0:.*]] = arith.cmpi slt, %[[PID]], %[[N_ROWS]] : i32
// CHECK-NEXT:    %[[IN0S:.*]] = blk.splat %[[IN0]] : i1 -> tensor<128xi1>
// CHECK-NEXT:    %[[MASK0:.*]] = arith.andi %[[MASK]], %[[IN0S]] : tensor<128xi1>
// CHECK-NEXT:    %[[X0:.*]] = blk.load %[[PTRS0]], %[[MASK0]], %[[NINF]] : tensor<128x!blk.ptr<f32>>
// CHECK-NEXT:    scf.for %[[ROW:.*]] = %[[PID]] to %[[N_ROWS]] step %[[NP]] iter_args(%[[X:.*]] = %[[X0]]) -> (tensor<128xf32>)
//                first in the body: the next row, off past n_rows
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %[[ROW]], %[[NP]] : i32
// CHECK-NEXT:      %[[OFF1:.*]] = arith.muli %[[NEXT]], %[[STRIDE]] : i32
// CHECK-NEXT:      %[[BASE1:.*]] = blk.addptr %[[IN]], %[[OFF1]] : !blk.ptr<f32>, i32
// CHECK-NEXT:      %[[BASES1:.*]] = blk.splat %[[BASE1]]
// CHECK-NEXT:      %[[PTRS1:.*]] = blk.addptr %[[BASES1]], %[[COLS]]
// CHECK-NEXT:      %[[BELOW:.*]] = arith.cmpi slt, %[[NEXT]], %[[N_ROWS]] : i32
// CHECK-NEXT:      %[[NOWRAP:.*]] = arith.cmpi sge, %[[NEXT]], %[[ROW]] : i32
// CHECK-NEXT:      %[[IN1:.*]] = arith.andi %[[BELOW]], %[[NOWRAP]] : i1
// CHECK-NEXT:      %[[IN1S:.*]] = blk.splat %[[IN1]] : i1 -> tensor<128xi1>
// CHECK-NEXT:      %[[MASK1:.*]] = arith.andi %[[MASK]], %[[IN1S]] : tensor<128xi1>
// CHECK-NEXT:      %[[X1:.*]] = blk.load %[[PTRS1]], %[[MASK1]], %[[NINF]] : tensor<128x!blk.ptr<f32>>
//                the row's work uses the carried load; the original load is gone
// CHECK-NOT:       blk.load
// CHECK:           blk.reduce max %[[X]] axis = 0
// CHECK:           blk.store
// CHECK-NEXT:      scf.yield %[[X1]] : tensor<128xf32>
// CHECK-NEXT:    }
//
// DEEP-LABEL: func.func @rows
// DEEP:         %[[PID:.*]] = blk.program_id 0 : i32
// DEEP:         %[[NP:.*]] = blk.num_programs 0 : i32
// DEEP:         %[[X0:.*]] = blk.load
// DEEP:         %[[SECOND:.*]] = arith.addi %[[PID]], %[[NP]] : i32
// DEEP:         arith.cmpi sge, %[[SECOND]], %[[PID]] : i32
// DEEP:         %[[X1:.*]] = blk.load
// DEEP-NEXT:    scf.for %[[ROW:.*]] = %[[PID]] to %{{.*}} step %[[NP]] iter_args(%[[X:.*]] = %[[X0]], %[[Y:.*]] = %[[X1]]) -> (tensor<128xf32>, tensor<128xf32>)
// DEEP-NEXT:      %[[TWO:.*]] = arith.constant 2 : i32
// DEEP-NEXT:      %[[TWOSTEPS:.*]] = arith.muli %[[NP]], %[[TWO]] : i32
// DEEP-NEXT:      %[[AHEAD:.*]] = arith.addi %[[ROW]], %[[TWOSTEPS]] : i32
// DEEP-NEXT:      %[[LIMIT:.*]] = arith.constant 1073741823 : i32
// DEEP-NEXT:      %[[FITS:.*]] = arith.cmpi sle, %[[NP]], %[[LIMIT]] : i32
// DEEP:           %[[BELOW:.*]] = arith.cmpi slt, %[[AHEAD]], %{{.*}} : i32
// DEEP-NEXT:      %[[NOWRAP:.*]] = arith.cmpi sge, %[[AHEAD]], %[[ROW]] : i32
// DEEP-NEXT:      %[[RUNS:.*]] = arith.andi %[[BELOW]], %[[NOWRAP]] : i1
// DEEP-NEXT:      arith.andi %[[RUNS]], %[[FITS]] : i1
// DEEP:           %[[X2:.*]] = blk.load
// DEEP-NOT:       blk.load
// DEEP:           blk.reduce max %[[X]] axis = 0
// DEEP:           scf.yield %[[Y]], %[[X2]] : tensor<128xf32>, tensor<128xf32>
//
// OFF-LABEL: func.func @rows
// OFF-NOT:     iter_args
// OFF:         scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// OFF-NEXT:      arith.muli %[[ROW]]
// OFF:           blk.load
// OFF:           blk.reduce max
func.func @rows(%out: !blk.ptr<f32>, %in: !blk.ptr<f32>, %stride: i32, %n_rows: i32, %n_cols: i32) {
  %pid = blk.program_id 0 : i32
  %np = blk.num_programs 0 : i32
  %cols = blk.make_range 0 to 128 : tensor<128xi32>
  %nc = blk.splat %n_cols : i32 -> tensor<128xi32>
  %mask = arith.cmpi slt, %cols, %nc : tensor<128xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<128xf32>
  scf.for %row = %pid to %n_rows step %np : i32 {
    %off = arith.muli %row, %stride : i32
    %base = blk.addptr %in, %off : !blk.ptr<f32>, i32
    %bases = blk.splat %base : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
    %ptrs = blk.addptr %bases, %cols : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
    %x = blk.load %ptrs, %mask, %ninf : tensor<128x!blk.ptr<f32>>
    %m = blk.reduce max %x axis = 0 : tensor<128xf32> -> f32
    %q = blk.addptr %out, %row : !blk.ptr<f32>, i32
    blk.store %q, %m : !blk.ptr<f32>
  }
  return
}

// Two unmasked scalar loads, constant step 4: each gets its own prologue load
// and iter_arg; the prefetch mask is the bare i1 (no splat, nothing to and).
// CHECK-LABEL: func.func @two_loads
// CHECK-SAME:    (%{{[^:]*}}: !blk.ptr<f32>, %[[X:[^:]*]]: !blk.ptr<f32>, %[[Y:[^:]*]]: !blk.ptr<f32>, %[[N:[^:]*]]: i32)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : i32
// CHECK:         %[[PX0:.*]] = blk.addptr %[[X]], %[[C0]]
// CHECK-NEXT:    %[[M0:.*]] = arith.cmpi slt, %[[C0]], %[[N]] : i32
// CHECK-NEXT:    %[[A0:.*]] = blk.load %[[PX0]], %[[M0]] : !blk.ptr<f32>
// CHECK-NEXT:    %[[PY0:.*]] = blk.addptr %[[Y]], %[[C0]]
// CHECK-NEXT:    %[[M0Y:.*]] = arith.cmpi slt, %[[C0]], %[[N]] : i32
// CHECK-NEXT:    %[[B0:.*]] = blk.load %[[PY0]], %[[M0Y]] : !blk.ptr<f32>
// CHECK-NEXT:    scf.for %[[I:.*]] = %[[C0]] to %[[N]] step %[[C4]] iter_args(%[[A:.*]] = %[[A0]], %[[B:.*]] = %[[B0]]) -> (f32, f32)
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %[[I]], %[[C4]] : i32
// CHECK-NEXT:      %[[PX1:.*]] = blk.addptr %[[X]], %[[NEXT]]
// CHECK-NEXT:      arith.cmpi slt, %[[NEXT]], %[[N]] : i32
// CHECK-NEXT:      arith.cmpi sge, %[[NEXT]], %{{.*}} : i32
// CHECK-NEXT:      %[[M1:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NEXT:      %[[A1:.*]] = blk.load %[[PX1]], %[[M1]] : !blk.ptr<f32>
// CHECK-NEXT:      %[[PY1:.*]] = blk.addptr %[[Y]], %[[NEXT]]
// CHECK-NEXT:      arith.cmpi slt, %[[NEXT]], %[[N]] : i32
// CHECK-NEXT:      arith.cmpi sge, %[[NEXT]], %{{.*}} : i32
// CHECK-NEXT:      %[[M1Y:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NEXT:      %[[B1:.*]] = blk.load %[[PY1]], %[[M1Y]] : !blk.ptr<f32>
// CHECK-NOT:       blk.load
// CHECK:           arith.addf %[[A]], %[[B]] : f32
// CHECK:           scf.yield %[[A1]], %[[B1]] : f32, f32
//
// OFF-LABEL: func.func @two_loads
// OFF-NOT:     iter_args
// OFF:         scf.for
// OFF-COUNT-2:   blk.load %{{[^,]*}} : !blk.ptr<f32>
func.func @two_loads(%out: !blk.ptr<f32>, %x: !blk.ptr<f32>, %y: !blk.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  scf.for %i = %c0 to %n step %c4 : i32 {
    %px = blk.addptr %x, %i : !blk.ptr<f32>, i32
    %a = blk.load %px : !blk.ptr<f32>
    %py = blk.addptr %y, %i : !blk.ptr<f32>, i32
    %b = blk.load %py : !blk.ptr<f32>
    %s = arith.addf %a, %b : f32
    %po = blk.addptr %out, %i : !blk.ptr<f32>, i32
    blk.store %po, %s : !blk.ptr<f32>
  }
  return
}

// A gather: the index load is prefetched, the data load (its address is a
// loaded value, computed inside the loop) stays where it is and now reads
// the carried index.
// CHECK-LABEL: func.func @gather
// CHECK-SAME:    (%{{[^:]*}}: !blk.ptr<f32>, %[[IDX:[^:]*]]: !blk.ptr<i32>, %[[X:[^:]*]]: !blk.ptr<f32>, %{{[^:]*}}: i32)
// CHECK:         %[[J0:.*]] = blk.load %{{.*}}, %{{.*}} : !blk.ptr<i32>
// CHECK-NEXT:    scf.for %[[I:.*]] = {{.*}} iter_args(%[[J:.*]] = %[[J0]]) -> (i32)
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %[[I]], %{{.*}} : i32
// CHECK-NEXT:      %[[PI1:.*]] = blk.addptr %[[IDX]], %[[NEXT]]
// CHECK-NEXT:      arith.cmpi slt, %[[NEXT]], %{{.*}} : i32
// CHECK-NEXT:      arith.cmpi sge, %[[NEXT]], %{{.*}} : i32
// CHECK-NEXT:      %[[M1:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NEXT:      %[[J1:.*]] = blk.load %[[PI1]], %[[M1]] : !blk.ptr<i32>
// CHECK:           %[[PX:.*]] = blk.addptr %[[X]], %[[J]] : !blk.ptr<f32>, i32
// CHECK-NEXT:      blk.load %[[PX]] : !blk.ptr<f32>
// CHECK:           scf.yield %[[J1]] : i32
func.func @gather(%out: !blk.ptr<f32>, %idx: !blk.ptr<i32>, %x: !blk.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %pi = blk.addptr %idx, %i : !blk.ptr<i32>, i32
    %j = blk.load %pi : !blk.ptr<i32>
    %px = blk.addptr %x, %j : !blk.ptr<f32>, i32
    %v = blk.load %px : !blk.ptr<f32>
    %po = blk.addptr %out, %i : !blk.ptr<f32>, i32
    blk.store %po, %v : !blk.ptr<f32>
  }
  return
}

// A load through a pointer carried in iter_args, and a load in an scf.if:
// neither is prefetched, the loops keep their iter_args.
// CHECK-LABEL: func.func @carried_pointer
// CHECK-NOT:     blk.load
// CHECK:         scf.for %{{.*}} iter_args(%[[P:.*]] = %{{.*}}, %{{.*}} = %{{.*}}) -> (!blk.ptr<f32>, f32)
// CHECK-NEXT:      blk.load %[[P]] : !blk.ptr<f32>
// CHECK-NOT:       blk.load
// CHECK:           scf.yield %{{.*}}, %{{.*}} : !blk.ptr<f32>, f32
func.func @carried_pointer(%out: !blk.ptr<f32>, %x: !blk.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %zero = arith.constant 0.0 : f32
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%p = %x, %acc = %zero) -> (!blk.ptr<f32>, f32) : i32 {
    %v = blk.load %p : !blk.ptr<f32>
    %a = arith.addf %acc, %v : f32
    %next = blk.addptr %p, %c8 : !blk.ptr<f32>, i32
    scf.yield %next, %a : !blk.ptr<f32>, f32
  }
  blk.store %out, %r#1 : !blk.ptr<f32>
  return
}

// CHECK-LABEL: func.func @conditional
// CHECK-NOT:     blk.load
// CHECK:         scf.for %{{[^ ]*}} = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT:      scf.if
// CHECK-NEXT:        blk.addptr
// CHECK-NEXT:        blk.load %{{[^,]*}} : !blk.ptr<f32>
func.func @conditional(%out: !blk.ptr<f32>, %x: !blk.ptr<f32>, %n: i32, %flag: i1) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    scf.if %flag {
      %px = blk.addptr %x, %i : !blk.ptr<f32>, i32
      %v = blk.load %px : !blk.ptr<f32>
      %po = blk.addptr %out, %i : !blk.ptr<f32>, i32
      blk.store %po, %v : !blk.ptr<f32>
    }
  }
  return
}

// x[i + 1] = x[i]: iteration i + 1 reads what iteration i stores. A prefetch
// reads x[i + 1] before that store (this was a bug: the loop copied each
// original x[i] instead of spreading x[0]); a load of a parameter the loop
// stores through is left alone. The same holds for a store then a load of
// one address in one iteration (the prefetch would read it an iteration
// before the store).
// CHECK-LABEL: func.func @store_then_load
// CHECK-NOT:     blk.load
// CHECK:         scf.for %[[I:[^ ]*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT:      %[[P:.*]] = blk.addptr %{{.*}}, %[[I]]
// CHECK-NEXT:      blk.load %[[P]] : !blk.ptr<f32>
// CHECK:           blk.store
// CHECK:         scf.for %[[K:[^ ]*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT:      %[[Q:.*]] = blk.addptr %{{.*}}, %[[K]]
// CHECK-NEXT:      blk.store %[[Q]]
// CHECK-NEXT:      blk.load %[[Q]] : !blk.ptr<f32>
func.func @store_then_load(%x: !blk.ptr<f32>, %y: !blk.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %p = blk.addptr %x, %i : !blk.ptr<f32>, i32
    %v = blk.load %p : !blk.ptr<f32>
    %i1 = arith.addi %i, %c1 : i32
    %q = blk.addptr %x, %i1 : !blk.ptr<f32>, i32
    blk.store %q, %v : !blk.ptr<f32>
  }
  scf.for %k = %c0 to %n step %c1 : i32 {
    %q = blk.addptr %y, %k : !blk.ptr<f32>, i32
    blk.store %q, %one : !blk.ptr<f32>
    %v = blk.load %q : !blk.ptr<f32>
    %r = blk.addptr %x, %k : !blk.ptr<f32>, i32
    blk.store %r, %v : !blk.ptr<f32>
  }
  return
}

// A loop with unsigned bounds compares unsigned: the prologue and prefetch
// masks use ult. (They used slt: with ub >= 2^31 every prefetch was masked
// off and the loop computed on undefined values; with iv + step >= 2^31 > ub
// the prefetch read past the end.)
// CHECK-LABEL: func.func @unsigned_loop
// CHECK-SAME:    (%{{[^:]*}}: !blk.ptr<f32>, %{{[^:]*}}: !blk.ptr<f32>, %[[LO:[^:]*]]: i32, %[[N:[^:]*]]: i32)
// CHECK:         arith.cmpi ult, %[[LO]], %[[N]] : i32
// CHECK:         scf.for unsigned %[[I:[^ ]*]] = %[[LO]] to %[[N]]
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %[[I]]
// CHECK-NEXT:      blk.addptr
// CHECK-NEXT:      arith.cmpi ult, %[[NEXT]], %[[N]] : i32
func.func @unsigned_loop(%x: !blk.ptr<f32>, %y: !blk.ptr<f32>, %lo: i32, %n: i32) {
  %c1 = arith.constant 1 : i32
  scf.for unsigned %i = %lo to %n step %c1 : i32 {
    %p = blk.addptr %x, %i : !blk.ptr<f32>, i32
    %v = blk.load %p : !blk.ptr<f32>
    %q = blk.addptr %y, %i : !blk.ptr<f32>, i32
    blk.store %q, %v : !blk.ptr<f32>
  }
  return
}

// Nested loops: the inner loop's load (x[i*m + j]) is prefetched in the
// inner loop; its prologue (x[i*m], masked by 0 < m) lands in the outer body,
// where, like the outer load of x[i*m], it is prefetched for row i + 1
// (masked by 0 < m and i + 1 < n).
// CHECK-LABEL: func.func @nested
// CHECK-SAME:    (%[[X:[^:]*]]: !blk.ptr<f32>, %{{[^:]*}}: !blk.ptr<f32>, %[[N:[^:]*]]: i32, %[[M:[^:]*]]: i32)
// CHECK:         %[[F0:.*]] = blk.load %{{.*}}, %{{.*}} : !blk.ptr<f32>
// CHECK:         %[[G0:.*]] = blk.load %{{.*}}, %{{.*}} : !blk.ptr<f32>
// CHECK-NEXT:    scf.for %[[I:[^ ]*]] = {{.*}} iter_args(%[[F:.*]] = %[[F0]], %[[G:.*]] = %[[G0]]) -> (f32, f32)
// CHECK-NEXT:      %[[NEXTI:.*]] = arith.addi %[[I]]
// CHECK:           arith.cmpi slt, %[[NEXTI]], %[[N]] : i32
// CHECK:           %[[F1:.*]] = blk.load
// CHECK:           %[[INNER:.*]] = arith.cmpi slt, %{{.*}}, %[[M]] : i32
// CHECK-NEXT:      arith.cmpi slt, %[[NEXTI]], %[[N]] : i32
// CHECK-NEXT:      arith.cmpi sge, %[[NEXTI]], %{{.*}} : i32
// CHECK-NEXT:      %[[OUTER:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NEXT:      %[[BOTH:.*]] = arith.andi %[[INNER]], %[[OUTER]] : i1
// CHECK-NEXT:      %[[G1:.*]] = blk.load %{{.*}}, %[[BOTH]] : !blk.ptr<f32>
// CHECK:           scf.for %[[J:[^ ]*]] = %{{.*}} to %[[M]] step %{{.*}} iter_args(%{{.*}} = %[[F]], %{{.*}} = %[[G]]) -> (f32, f32)
// CHECK-NEXT:        %[[NEXTJ:.*]] = arith.addi %[[J]]
// CHECK:             arith.cmpi slt, %[[NEXTJ]], %[[M]] : i32
// CHECK-NEXT:        arith.cmpi sge, %[[NEXTJ]], %[[J]] : i32
// CHECK-NEXT:        arith.andi
// CHECK-NEXT:        blk.load
// CHECK:           scf.yield %[[F1]], %[[G1]] : f32, f32
func.func @nested(%x: !blk.ptr<f32>, %y: !blk.ptr<f32>, %n: i32, %m: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %row = arith.muli %i, %m : i32
    %pr = blk.addptr %x, %row : !blk.ptr<f32>, i32
    %first = blk.load %pr : !blk.ptr<f32>
    %s = scf.for %j = %c0 to %m step %c1 iter_args(%acc = %first) -> (f32) : i32 {
      %o = arith.addi %row, %j : i32
      %p = blk.addptr %x, %o : !blk.ptr<f32>, i32
      %v = blk.load %p : !blk.ptr<f32>
      %a = arith.addf %acc, %v : f32
      scf.yield %a : f32
    }
    %q = blk.addptr %y, %i : !blk.ptr<f32>, i32
    blk.store %q, %s : !blk.ptr<f32>
  }
  return
}

// A load whose pointer, mask and `other` are all defined outside the loop
// (a layernorm's weights) is issued once, before the loop, masked off when
// the loop runs no iteration (lb >= ub); the loop no longer loads it (no
// prefetch, no iter_arg). A load of an invariant pointer the loop also
// stores through stays in the loop: the store may change what it reads.
// CHECK-LABEL: func.func @invariant
// CHECK-SAME:    (%[[X:[^:]*]]: !blk.ptr<f32>, %[[W:[^:]*]]: !blk.ptr<f32>, %[[ACC:[^:]*]]: !blk.ptr<f32>, %[[N:[^:]*]]: i32)
// CHECK:         %[[WPTRS:.*]] = blk.addptr %{{.*}}, %{{.*}} : tensor<64x!blk.ptr<f32>>
// CHECK:         %[[RUNS:.*]] = arith.cmpi slt, %[[C0:.*]], %[[N]] : i32
// CHECK-NEXT:    %[[RUNSS:.*]] = blk.splat %[[RUNS]] : i1 -> tensor<64xi1>
// CHECK-NEXT:    %[[WV:.*]] = blk.load %[[WPTRS]], %[[RUNSS]] : tensor<64x!blk.ptr<f32>>
// CHECK:         scf.for %{{.*}} = %[[C0]] to %[[N]] step %{{.*}} iter_args(%{{[^ ]*}} = %{{.*}}) -> (tensor<64xf32>)
// CHECK:           %[[A:.*]] = blk.load %[[ACC]] : !blk.ptr<f32>
// CHECK:           arith.mulf %{{.*}}, %[[WV]] : tensor<64xf32>
// CHECK:           blk.store %[[ACC]]
// CHECK:         }
// OFF-LABEL: func.func @invariant
// OFF:         scf.for
// OFF:           blk.load
// OFF:           blk.load
func.func @invariant(%x: !blk.ptr<f32>, %w: !blk.ptr<f32>, %acc: !blk.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cols = blk.make_range 0 to 64 : tensor<64xi32>
  %wb = blk.splat %w : !blk.ptr<f32> -> tensor<64x!blk.ptr<f32>>
  %wp = blk.addptr %wb, %cols : tensor<64x!blk.ptr<f32>>, tensor<64xi32>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %wv = blk.load %wp : tensor<64x!blk.ptr<f32>>
    %a = blk.load %acc : !blk.ptr<f32>
    %row = arith.muli %i, %c1 : i32
    %xr = blk.addptr %x, %row : !blk.ptr<f32>, i32
    %xb = blk.splat %xr : !blk.ptr<f32> -> tensor<64x!blk.ptr<f32>>
    %xp = blk.addptr %xb, %cols : tensor<64x!blk.ptr<f32>>, tensor<64xi32>
    %xv = blk.load %xp : tensor<64x!blk.ptr<f32>>
    %p = arith.mulf %xv, %wv : tensor<64xf32>
    %s = blk.reduce sum %p axis = 0 : tensor<64xf32> -> f32
    %t = arith.addf %a, %s : f32
    blk.store %acc, %t : !blk.ptr<f32>
  }
  return
}
