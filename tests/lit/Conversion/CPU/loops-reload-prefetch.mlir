// RUN: blockjit-opt %s --convert-blk-to-loops --canonicalize --cse | FileCheck %s

// A 1-D load read only before the next store is read from memory again where
// it is used, not copied into a buffer first; one read after a store keeps
// its buffer. After a load's own loop, the next unit of work's block is
// prefetched: the next program's (program_id + 1) or the next iteration's of
// the loop its pointers depend on (past the loop's end, the next program's
// first). The loop that stores an expensive value over a row runs in chunks
// of 16 lines that prefetch those loads and, for writing, the following
// store's lines, instead.

// CHECK-DAG: #[[VEC:.*]] = #llvm.loop_vectorize<disable = false, predicateEnable = true, scalableEnable = false, width = 16 : i32>
// CHECK-DAG: #[[IL:.*]] = #llvm.loop_interleave<count = 1 : i32>
// CHECK-DAG: #[[TAIL:.*]] = #llvm.loop_annotation<vectorize = #[[VEC]], interleave = #[[IL]]>

// The max reads the row in its own loop, whole vectors then the masked
// remainder (tail folded); the sum of exp reads it again, testing the mask
// per element (its loop runs over the whole block).
// CHECK-LABEL: func.func @reloaded
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<f32>, %{{[^:]*}}: !blk.ptr<f32>, %[[N:[^:]*]]: i32)
// CHECK-NOT:     memref.alloca
// CHECK:         %[[WHOLE:.*]] = arith.andi %[[END:.*]], %c-16 : index
// CHECK:         %[[MAX0:.*]] = scf.for %[[I:.*]] = %c0 to %[[WHOLE]] step %c1 iter_args
// CHECK:           %[[P:.*]] = blk.addptr %[[IN]], %{{.*}} : !blk.ptr<f32>, i32
// CHECK-NEXT:      %[[X:.*]] = blk.load %[[P]] : !blk.ptr<f32>
// CHECK-NEXT:      arith.maximumf %{{.*}}, %[[X]] fastmath<nsz> : f32
// CHECK:         %[[MAX1:.*]] = scf.for %{{.*}} = %[[WHOLE]] to %[[END]] step %c1 iter_args(%{{.*}} = %[[MAX0]])
// CHECK:           blk.load
// CHECK:         } {llvm.loop_annotation = #[[TAIL]]}
// CHECK:         scf.for %[[J:.*]] = %c0 to %c64 step %c1 iter_args
// CHECK:           %[[IN_MASK:.*]] = arith.cmpi slt, %{{.*}}, %[[N]] : i32
// CHECK-NEXT:      %[[Y:.*]] = scf.if %[[IN_MASK]] -> (f32) {
// CHECK-NEXT:        blk.load %{{.*}} : !blk.ptr<f32>
// CHECK:           math.exp
// CHECK-NOT:     memref.alloca
// CHECK:         return
func.func @reloaded(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>, %n: i32) {
  %r = blk.make_range 0 to 64 : tensor<64xi32>
  %ns = blk.splat %n : i32 -> tensor<64xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<64xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<64xf32>
  %base = blk.splat %in : !blk.ptr<f32> -> tensor<64x!blk.ptr<f32>>
  %p = blk.addptr %base, %r : tensor<64x!blk.ptr<f32>>, tensor<64xi32>
  %x = blk.load %p, %m, %ninf : tensor<64x!blk.ptr<f32>>
  %mx = blk.reduce max %x axis = 0 : tensor<64xf32> -> f32
  %s = blk.splat %mx : f32 -> tensor<64xf32>
  %d = arith.subf %x, %s : tensor<64xf32>
  %e = math.exp %d : tensor<64xf32>
  %t = blk.reduce sum %e axis = 0 : tensor<64xf32> -> f32
  blk.store %out, %t : !blk.ptr<f32>
  return
}

// The store to %in may change what the load read: the block is copied
// first, and the loop that stores x * x reads the copy.
// CHECK-LABEL: func.func @buffered
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<f32>, %[[OUT:[^:]*]]: !blk.ptr<f32>)
// CHECK:         %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<64xf32>
// CHECK:         scf.for %[[I:.*]] = %c0 to %c64 step %c1 {
// CHECK:           %[[X:.*]] = blk.load %{{.*}} : !blk.ptr<f32>
// CHECK-NEXT:      memref.store %[[X]], %[[BUF]][%[[I]]] : memref<64xf32>
// CHECK:         blk.store %[[IN]], %{{.*}} : !blk.ptr<f32>
// CHECK:         scf.for %[[J:.*]] = %c0 to %c64 step %c1 {
// CHECK:           %[[Y:.*]] = memref.load %[[BUF]][%[[J]]] : memref<64xf32>
// CHECK-NEXT:      %[[SQ:.*]] = arith.mulf %[[Y]], %[[Y]] : f32
// CHECK-NEXT:      blk.store %{{.*}}, %[[SQ]] : !blk.ptr<f32>
func.func @buffered(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 64 : tensor<64xi32>
  %base = blk.splat %in : !blk.ptr<f32> -> tensor<64x!blk.ptr<f32>>
  %p = blk.addptr %base, %r : tensor<64x!blk.ptr<f32>>, tensor<64xi32>
  %x = blk.load %p : tensor<64x!blk.ptr<f32>>
  %c = arith.constant 0.0 : f32
  blk.store %in, %c : !blk.ptr<f32>
  %y = arith.mulf %x, %x : tensor<64xf32>
  %obase = blk.splat %out : !blk.ptr<f32> -> tensor<64x!blk.ptr<f32>>
  %q = blk.addptr %obase, %r : tensor<64x!blk.ptr<f32>>, tensor<64xi32>
  blk.store %q, %y : tensor<64x!blk.ptr<f32>>
  return
}

// Pointers from program_id: program_id + 1's row, one prefetch per 64 bytes.
// CHECK-LABEL: func.func @next_program
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<f32>, %{{[^:]*}}: !blk.ptr<f32>)
// CHECK:         %[[PID:.*]] = blk.program_id 0 : i32
// CHECK:         scf.for
// CHECK:           blk.load
// CHECK:         %[[NEXT:.*]] = arith.addi %[[PID]], %c1_i32 : i32
// CHECK-NEXT:    scf.for %[[I:.*]] = %c0 to %c64 step %c16 {
// CHECK-NEXT:      %[[OFF:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:      %[[ROW:.*]] = arith.muli %[[NEXT]], %c64_i32 : i32
// CHECK-NEXT:      %[[START:.*]] = blk.addptr %[[IN]], %[[ROW]] : !blk.ptr<f32>, i32
// CHECK-NEXT:      %[[P:.*]] = blk.addptr %[[START]], %[[OFF]] : !blk.ptr<f32>, i32
// CHECK-NEXT:      blk.prefetch %[[P]] : !blk.ptr<f32>
// CHECK-NEXT:    }
func.func @next_program(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %pid = blk.program_id 0 : i32
  %c64 = arith.constant 64 : i32
  %row = arith.muli %pid, %c64 : i32
  %start = blk.addptr %in, %row : !blk.ptr<f32>, i32
  %r = blk.make_range 0 to 64 : tensor<64xi32>
  %base = blk.splat %start : !blk.ptr<f32> -> tensor<64x!blk.ptr<f32>>
  %p = blk.addptr %base, %r : tensor<64x!blk.ptr<f32>>, tensor<64xi32>
  %x = blk.load %p : tensor<64x!blk.ptr<f32>>
  %t = blk.reduce sum %x axis = 0 : tensor<64xf32> -> f32
  %o = blk.addptr %out, %pid : !blk.ptr<f32>, i32
  blk.store %o, %t : !blk.ptr<f32>
  return
}

// Pointers from a loop's induction variable: its next value while in the
// loop, else where the next program starts the loop.
// CHECK-LABEL: func.func @next_iteration
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<f32>, %{{[^:]*}}: !blk.ptr<f32>, %[[M:[^:]*]]: i32)
// CHECK:         %[[PID:.*]] = blk.program_id 0 : i32
// CHECK:         %[[NP:.*]] = blk.num_programs 0 : i32
// CHECK:         scf.for %[[ROW:.*]] = %[[PID]] to %[[M]] step %[[NP]] : i32 {
// CHECK:           blk.load
// CHECK:           %[[FOLLOWING:.*]] = arith.addi %[[ROW]], %[[NP]] : i32
// CHECK-NEXT:      %[[NEXTPID:.*]] = arith.addi %[[PID]], %c1_i32 : i32
// CHECK-NEXT:      %[[INLOOP:.*]] = arith.cmpi slt, %[[FOLLOWING]], %[[M]] : i32
// CHECK-NEXT:      %[[NEXT:.*]] = arith.select %[[INLOOP]], %[[FOLLOWING]], %[[NEXTPID]] : i32
// CHECK-NEXT:      scf.for %{{.*}} = %c0 to %c64 step %c16 {
// CHECK:             arith.muli %[[NEXT]], %c64_i32 : i32
// CHECK:             blk.prefetch
func.func @next_iteration(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>, %m: i32) {
  %pid = blk.program_id 0 : i32
  %np = blk.num_programs 0 : i32
  %c64 = arith.constant 64 : i32
  %r = blk.make_range 0 to 64 : tensor<64xi32>
  scf.for %row = %pid to %m step %np : i32 {
    %off = arith.muli %row, %c64 : i32
    %start = blk.addptr %in, %off : !blk.ptr<f32>, i32
    %base = blk.splat %start : !blk.ptr<f32> -> tensor<64x!blk.ptr<f32>>
    %p = blk.addptr %base, %r : tensor<64x!blk.ptr<f32>>, tensor<64xi32>
    %x = blk.load %p : tensor<64x!blk.ptr<f32>>
    %t = blk.reduce sum %x axis = 0 : tensor<64xf32> -> f32
    %o = blk.addptr %out, %row : !blk.ptr<f32>, i32
    blk.store %o, %t : !blk.ptr<f32>
  }
  return
}

// exp(x) is stored (two uses): its loop runs in chunks of 256 elements, each
// first prefetching the next program's row and, for writing, the output row
// (whose pointer, computed after the loop in the source, is recomputed
// inside it). No burst after the load: the chunks took its prefetches.
// CHECK-LABEL: func.func @interleaved
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<f32>, %[[OUT:[^:]*]]: !blk.ptr<f32>, %[[N:[^:]*]]: i32)
// CHECK:         %[[PID:.*]] = blk.program_id 0 : i32
// CHECK:         %[[ROW:.*]] = arith.muli %[[PID]], %[[N]] : i32
// CHECK:         %[[NEXT:.*]] = arith.addi %[[PID]], %c1_i32 : i32
// CHECK:         %[[WHOLE:.*]] = arith.andi %{{.*}}, %c-16 : index
// CHECK-NEXT:    %[[CHUNKS:.*]] = arith.andi %[[WHOLE]], %c-256 : index
// CHECK-NEXT:    scf.for %[[C:.*]] = %c0 to %[[CHUNKS]] step %c256 iter_args
// CHECK-NEXT:      %[[CEND:.*]] = arith.addi %[[C]], %c256 : index
// CHECK-NEXT:      scf.for %{{.*}} = %[[C]] to %[[CEND]] step %c16 {
// CHECK:             arith.muli %[[NEXT]], %[[N]] : i32
// CHECK:             blk.prefetch %{{.*}} : !blk.ptr<f32>
// CHECK:           scf.for %{{.*}} = %[[C]] to %[[CEND]] step %c16 {
// CHECK:             blk.addptr %[[OUT]], %[[ROW]] : !blk.ptr<f32>, i32
// CHECK:             blk.prefetch %{{.*}} write : !blk.ptr<f32>
// CHECK:           scf.for %{{.*}} = %[[C]] to %[[CEND]] step %c1 iter_args
// CHECK:             blk.load
// CHECK-NEXT:        math.exp
// CHECK-NEXT:        memref.store
// CHECK:         } {llvm.loop_annotation = #{{.*}}}
// CHECK-NOT:     blk.prefetch
// CHECK:         return
func.func @interleaved(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>, %n: i32) {
  %pid = blk.program_id 0 : i32
  %row = arith.muli %pid, %n : i32
  %start = blk.addptr %in, %row : !blk.ptr<f32>, i32
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  %ns = blk.splat %n : i32 -> tensor<1024xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<1024xi32>
  %base = blk.splat %start : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %p = blk.addptr %base, %r : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<1024xf32>
  %x = blk.load %p, %m, %ninf : tensor<1024x!blk.ptr<f32>>
  %e = math.exp %x : tensor<1024xf32>
  %t = blk.reduce sum %e axis = 0 : tensor<1024xf32> -> f32
  %s = blk.splat %t : f32 -> tensor<1024xf32>
  %y = arith.divf %e, %s : tensor<1024xf32>
  %ostart = blk.addptr %out, %row : !blk.ptr<f32>, i32
  %obase = blk.splat %ostart : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %q = blk.addptr %obase, %r : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  blk.store %q, %y, %m : tensor<1024x!blk.ptr<f32>>
  return
}
