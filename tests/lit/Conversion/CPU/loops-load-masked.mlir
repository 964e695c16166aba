// RUN: blockjit-opt %s --convert-blk-to-loops | FileCheck %s

// A masked block load becomes loops over the lanes. A mask `range < n` is a
// prefix of the lanes (compiler/cpu/MaskTerms.h): the first loops load lanes
// [0, clamp(n, 0, 16)) with no test at all (a per-lane test would vectorize
// as a masked load, several times slower), split into whole vectors and a
// remainder that LLVM vectorizes as one masked vector (tail folding, see the
// loop annotation); the last writes `other` into lanes [clamp(n, 0, 16), 16)
// without touching memory. A block read after a store (which may have
// changed memory) lives in a stack buffer allocated once at function entry,
// before the row loop; one whose every read comes before the next store is
// not copied, and a loop reading all its lanes loads the active ones again,
// testing the mask per lane. A load whose pointers depend on the row loop's
// induction variable prefetches the next row's active lanes.

// The annotation of the loops over the rest of a row's vectors: one masked
// vector of 16 f32 or i32 (of 32 f16 below).
// CHECK-DAG:   #[[VEC16:loop_vectorize[0-9]*]] = #llvm.loop_vectorize<disable = false, predicateEnable = true, scalableEnable = false, width = 16 : i32>
// CHECK-DAG:   #[[VEC32:loop_vectorize[0-9]*]] = #llvm.loop_vectorize<disable = false, predicateEnable = true, scalableEnable = false, width = 32 : i32>
// CHECK-DAG:   #[[TAIL16:loop_annotation[0-9]*]] = #llvm.loop_annotation<vectorize = #[[VEC16]], interleave = #[[ONE:loop_interleave[0-9]*]]>
// CHECK-DAG:   #[[TAIL32:loop_annotation[0-9]*]] = #llvm.loop_annotation<vectorize = #[[VEC32]], interleave = #[[ONE]]>
// CHECK-DAG:   #[[ONE]] = #llvm.loop_interleave<count = 1 : i32>

// Clearing the output before the max is a store between the load and its
// reduction: the block is copied as it is loaded.
// CHECK-LABEL: func.func @masked_load_other
// CHECK-SAME:    (%[[OUT:[^:]*]]: !blk.ptr<f32>, %[[IN:[^:]*]]: !blk.ptr<f32>, %[[N:[^:]*]]: i32, %[[ROWS:[^:]*]]: i32)
// CHECK-NEXT:    %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16xf32>
// CHECK-NOT:     memref.alloca
// CHECK:         scf.for %[[ROW:.*]] = %{{.*}} to %[[ROWS]] step %{{.*}} : i32 {
// CHECK-NOT:       memref.alloca
// CHECK:           %[[ROWPTR:.*]] = blk.addptr %[[IN]], %{{.*}} : !blk.ptr<f32>, i32
// CHECK:           %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[C16:.*]] = arith.constant 16 : index
// CHECK:           %[[N64:.*]] = arith.extsi %[[N]] : i32 to i64
// CHECK:           %[[MIN:.*]] = arith.minsi %[[N64]], %{{.*}} : i64
// CHECK:           %[[CLAMP:.*]] = arith.maxsi %{{.*}}, %[[MIN]] : i64
// CHECK-NEXT:      %[[END:.*]] = arith.index_cast %[[CLAMP]] : i64 to index
//                  the whole vectors of [0, END) end at SPLIT
// CHECK-NEXT:      %[[COUNT:.*]] = arith.subi %[[END]], %[[C0]] : index
// CHECK-NEXT:      %[[MASK16:.*]] = arith.constant -16 : index
// CHECK-NEXT:      %[[WHOLE:.*]] = arith.andi %[[COUNT]], %[[MASK16]] : index
// CHECK-NEXT:      %[[SPLIT:.*]] = arith.addi %[[C0]], %[[WHOLE]] : index
// CHECK:           %[[MAXV:.*]] = scf.for %[[I:[^ ]*]] = %[[C0]] to %[[SPLIT]] step %{{.*}} iter_args(%[[ACC:[^ ]*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:        %[[COL:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:        %[[PTR:.*]] = blk.addptr %[[ROWPTR]], %[[COL]] : !blk.ptr<f32>, i32
// CHECK-NEXT:        %[[LD:.*]] = blk.load %[[PTR]] : !blk.ptr<f32>
// CHECK-NEXT:        memref.store %[[LD]], %[[BUF]][%[[I]]] : memref<16xf32>
//                    the row's max, in the loop that loads it
// CHECK-NEXT:        %[[M:.*]] = arith.maximumf %[[ACC]], %[[LD]] fastmath<nsz> : f32
// CHECK-NEXT:        scf.yield %[[M]] : f32
// CHECK-NEXT:      }
// CHECK:           %[[MAX0:.*]] = scf.for %[[I:[^ ]*]] = %[[SPLIT]] to %[[END]] step %{{.*}} iter_args(%[[ACC:[^ ]*]] = %[[MAXV]]) -> (f32) {
// CHECK-NEXT:        %[[COL:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:        %[[PTR:.*]] = blk.addptr %[[ROWPTR]], %[[COL]] : !blk.ptr<f32>, i32
// CHECK-NEXT:        %[[LD:.*]] = blk.load %[[PTR]] : !blk.ptr<f32>
// CHECK-NEXT:        memref.store %[[LD]], %[[BUF]][%[[I]]] : memref<16xf32>
// CHECK-NEXT:        %[[M:.*]] = arith.maximumf %[[ACC]], %[[LD]] fastmath<nsz> : f32
// CHECK-NEXT:        scf.yield %[[M]] : f32
// CHECK-NEXT:      } {llvm.loop_annotation = #[[TAIL16]]}
// CHECK:           %[[MAX1:.*]] = scf.for %[[J:[^ ]*]] = %[[END]] to %[[C16]] step %{{.*}} iter_args(%[[ACC2:[^ ]*]] = %[[MAX0]]) -> (f32) {
// CHECK-NOT:         blk.load
// CHECK-NEXT:        %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT:        memref.store %[[NINF]], %[[BUF]][%[[J]]] : memref<16xf32>
// CHECK-NEXT:        arith.maximumf %[[ACC2]], %[[NINF]] fastmath<nsz> : f32
// CHECK:           }
//                  a zero max is recomputed from the buffer with signed zeros
// CHECK:           %[[Z:.*]] = arith.cmpf oeq, %[[MAX1]], %{{.*}} : f32
// CHECK-NEXT:      %[[MAX:.*]] = scf.if %[[Z]] -> (f32) {
// CHECK:               memref.load %[[BUF]]
// CHECK-NOT:           blk.load
// CHECK:           } else {
//                  the next row's first lines (see @masked_load_reload)
// CHECK:           blk.prefetch
// CHECK:           blk.store %[[OUT]], %[[ZERO:.*]] : !blk.ptr<f32>
// CHECK-NEXT:      blk.store %[[OUT]], %[[MAX]] : !blk.ptr<f32>
// CHECK-NOT:     blk.load %{{.*}} : tensor
func.func @masked_load_other(%out: !blk.ptr<f32>, %in: !blk.ptr<f32>, %n: i32, %rows: i32) {
  %cols = blk.make_range 0 to 16 : tensor<16xi32>
  %nb = blk.splat %n : i32 -> tensor<16xi32>
  %mask = arith.cmpi slt, %cols, %nb : tensor<16xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<16xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant 0.0 : f32
  scf.for %row = %c0 to %rows step %c1 : i32 {
    %off = arith.muli %row, %n : i32
    %row_ptr = blk.addptr %in, %off : !blk.ptr<f32>, i32
    %row_ptrs = blk.splat %row_ptr : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
    %ptrs = blk.addptr %row_ptrs, %cols : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
    %x = blk.load %ptrs, %mask, %ninf : tensor<16x!blk.ptr<f32>>
    blk.store %out, %zero : !blk.ptr<f32>
    %m = blk.reduce max %x axis = 0 : tensor<16xf32> -> f32
    blk.store %out, %m : !blk.ptr<f32>
  }
  return
}

// Without the store between them, the block is read from memory again: no
// buffer, and the loops over [0, END) only compute the max. The max's
// signed-zero pass reads all 16 lanes, so it loads lane j only where the
// mask holds (j < n) and takes `other` elsewhere. Then the next row
// (ROW + 1) is prefetched, one line of 16 f32 at a time over its active
// lanes.
// CHECK-LABEL: func.func @masked_load_reload
// CHECK-SAME:    (%[[OUT:[^:]*]]: !blk.ptr<f32>, %[[IN:[^:]*]]: !blk.ptr<f32>, %[[N:[^:]*]]: i32, %[[ROWS:[^:]*]]: i32)
// CHECK-NOT:     memref
// CHECK:         %[[ONEI:.*]] = arith.constant 1 : i32
// CHECK-NOT:     memref
// CHECK:         scf.for %[[ROW:.*]] = %{{.*}} to %[[ROWS]] step %[[ONEI]] : i32 {
// CHECK-NEXT:      %[[OFF:.*]] = arith.muli %[[ROW]], %[[N]] : i32
// CHECK-NEXT:      %[[ROWPTR:.*]] = blk.addptr %[[IN]], %[[OFF]] : !blk.ptr<f32>, i32
// CHECK-NOT:       memref
// CHECK:           %[[C16:.*]] = arith.constant 16 : index
// CHECK:           %[[END:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:           %[[SPLIT:.*]] = arith.addi %{{.*}} : index
// CHECK-NOT:       memref
// CHECK:           %[[MAXV:.*]] = scf.for %[[I:[^ ]*]] = %{{.*}} to %[[SPLIT]] step %{{.*}} iter_args(%[[ACC:[^ ]*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:        %[[COL:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:        %[[PTR:.*]] = blk.addptr %[[ROWPTR]], %[[COL]] : !blk.ptr<f32>, i32
// CHECK-NEXT:        %[[LD:.*]] = blk.load %[[PTR]] : !blk.ptr<f32>
// CHECK-NEXT:        %[[M:.*]] = arith.maximumf %[[ACC]], %[[LD]] fastmath<nsz> : f32
// CHECK-NEXT:        scf.yield %[[M]] : f32
// CHECK-NEXT:      }
// CHECK:           %[[MAX0:.*]] = scf.for %[[I:[^ ]*]] = %[[SPLIT]] to %[[END]] step %{{.*}} iter_args(%[[ACC:[^ ]*]] = %[[MAXV]]) -> (f32) {
// CHECK-NEXT:        %[[COL:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:        %[[PTR:.*]] = blk.addptr %[[ROWPTR]], %[[COL]] : !blk.ptr<f32>, i32
// CHECK-NEXT:        %[[LD:.*]] = blk.load %[[PTR]] : !blk.ptr<f32>
// CHECK-NEXT:        %[[M:.*]] = arith.maximumf %[[ACC]], %[[LD]] fastmath<nsz> : f32
// CHECK-NEXT:        scf.yield %[[M]] : f32
// CHECK-NEXT:      } {llvm.loop_annotation = #[[TAIL16]]}
// CHECK:           %[[MAX1:.*]] = scf.for %[[J:[^ ]*]] = %[[END]] to %[[C16]] step %{{.*}} iter_args(%[[ACC2:[^ ]*]] = %[[MAX0]]) -> (f32) {
// CHECK-NEXT:        %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT:        %[[M:.*]] = arith.maximumf %[[ACC2]], %[[NINF]] fastmath<nsz> : f32
// CHECK-NEXT:        scf.yield %[[M]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[NEXTROW:.*]] = arith.addi %[[ROW]], %[[ONEI]] : i32
// CHECK:           %[[Z:.*]] = arith.cmpf oeq, %[[MAX1]], %{{.*}} : f32
// CHECK-NEXT:      %[[MAX:.*]] = scf.if %[[Z]] -> (f32) {
// CHECK:             scf.for %[[K:[^ ]*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC3:[^ ]*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:          %[[KCOL:.*]] = arith.index_cast %[[K]] : index to i32
// CHECK-NEXT:          %[[KPTR:.*]] = blk.addptr %[[ROWPTR]], %[[KCOL]] : !blk.ptr<f32>, i32
// CHECK-NEXT:          %[[KLANE:.*]] = arith.index_cast %[[K]] : index to i32
// CHECK-NEXT:          %[[KIN:.*]] = arith.cmpi slt, %[[KLANE]], %[[N]] : i32
// CHECK-NEXT:          %[[KX:.*]] = scf.if %[[KIN]] -> (f32) {
// CHECK-NEXT:            %[[KLD:.*]] = blk.load %[[KPTR]] : !blk.ptr<f32>
// CHECK-NEXT:            scf.yield %[[KLD]] : f32
// CHECK-NEXT:          } else {
// CHECK-NEXT:            %[[KNINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT:            scf.yield %[[KNINF]] : f32
// CHECK-NEXT:          }
// CHECK-NEXT:          %[[KM:.*]] = arith.maximumf %[[ACC3]], %[[KX]] : f32
// CHECK-NEXT:          scf.yield %[[KM]] : f32
// CHECK-NEXT:        }
// CHECK:           } else {
// CHECK-NEXT:        scf.yield %[[MAX1]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[LIMIT:.*]] = arith.constant 16 : index
// CHECK-NEXT:      %[[PEND:.*]] = arith.minsi %[[END]], %[[LIMIT]] : index
// CHECK-NEXT:      %[[LINE:.*]] = arith.constant 16 : index
// CHECK-NEXT:      %[[P0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      scf.for %[[P:[^ ]*]] = %[[P0]] to %[[PEND]] step %[[LINE]] {
// CHECK-NEXT:        %[[PCOL:.*]] = arith.index_cast %[[P]] : index to i32
// CHECK-NEXT:        %[[NOFF:.*]] = arith.muli %[[NEXTROW]], %[[N]] : i32
// CHECK-NEXT:        %[[NROWPTR:.*]] = blk.addptr %[[IN]], %[[NOFF]] : !blk.ptr<f32>, i32
// CHECK-NEXT:        %[[PPTR:.*]] = blk.addptr %[[NROWPTR]], %[[PCOL]] : !blk.ptr<f32>, i32
// CHECK-NEXT:        blk.prefetch %[[PPTR]] : !blk.ptr<f32>
// CHECK-NEXT:      }
// CHECK-NEXT:      blk.store %[[OUT]], %[[MAX]] : !blk.ptr<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @masked_load_reload(%out: !blk.ptr<f32>, %in: !blk.ptr<f32>, %n: i32, %rows: i32) {
  %cols = blk.make_range 0 to 16 : tensor<16xi32>
  %nb = blk.splat %n : i32 -> tensor<16xi32>
  %mask = arith.cmpi slt, %cols, %nb : tensor<16xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<16xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %row = %c0 to %rows step %c1 : i32 {
    %off = arith.muli %row, %n : i32
    %row_ptr = blk.addptr %in, %off : !blk.ptr<f32>, i32
    %row_ptrs = blk.splat %row_ptr : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
    %ptrs = blk.addptr %row_ptrs, %cols : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
    %x = blk.load %ptrs, %mask, %ninf : tensor<16x!blk.ptr<f32>>
    %m = blk.reduce max %x axis = 0 : tensor<16xf32> -> f32
    blk.store %out, %m : !blk.ptr<f32>
  }
  return
}

// `other` need not be a constant: a splat of an argument fills the lanes
// past the prefix (here straight into the sum: the block is read before any
// store, so no buffer). Lanes of i32 are 16 to a vector, as for f32.
// CHECK-LABEL: func.func @masked_load_other_splat
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<i32>, %[[N:[^:]*]]: i32, %[[FILL:[^:]*]]: i32, %[[OUT:[^:]*]]: !blk.ptr<i32>)
// CHECK-NOT:     memref
// CHECK:         %[[END:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:         %[[SPLIT:.*]] = arith.addi %{{.*}} : index
// CHECK:         %[[S0:.*]] = scf.for %{{.*}} = %{{.*}} to %[[SPLIT]] step
// CHECK:           blk.load %{{.*}} : !blk.ptr<i32>
// CHECK:         %[[S1:.*]] = scf.for %{{.*}} = %[[SPLIT]] to %[[END]] step %{{.*}} iter_args(%{{.*}} = %[[S0]])
// CHECK:           blk.load %{{.*}} : !blk.ptr<i32>
// CHECK:         } {llvm.loop_annotation = #[[TAIL16]]}
// CHECK:         %[[S:.*]] = scf.for %{{.*}} = %[[END]] to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[S1]]) -> (i32) {
// CHECK-NEXT:      %[[A:.*]] = arith.addi %[[ACC]], %[[FILL]] : i32
// CHECK-NEXT:      scf.yield %[[A]] : i32
// CHECK-NEXT:    }
// CHECK-NOT:     memref
// CHECK:         blk.store %[[OUT]], %[[S]] : !blk.ptr<i32>
func.func @masked_load_other_splat(%in: !blk.ptr<i32>, %n: i32, %fill: i32,
                                   %out: !blk.ptr<i32>) {
  %r = blk.make_range 0 to 8 : tensor<8xi32>
  %nb = blk.splat %n : i32 -> tensor<8xi32>
  %mask = arith.cmpi slt, %r, %nb : tensor<8xi32>
  %base = blk.splat %in : !blk.ptr<i32> -> tensor<8x!blk.ptr<i32>>
  %p = blk.addptr %base, %r : tensor<8x!blk.ptr<i32>>, tensor<8xi32>
  %other = blk.splat %fill : i32 -> tensor<8xi32>
  %x = blk.load %p, %mask, %other : tensor<8x!blk.ptr<i32>>
  %s = blk.reduce sum %x axis = 0 : tensor<8xi32> -> i32
  blk.store %out, %s : !blk.ptr<i32>
  return
}

// Without `other`, masked-off lanes read as zero, still without a load.
// Lanes of f16 are 32 to a vector: the remainder loop's annotation asks for
// width 32.
// CHECK-LABEL: func.func @masked_load_no_other
// CHECK-NOT:     memref
// CHECK:         %[[END:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK-NEXT:    %[[COUNT:.*]] = arith.subi %[[END]], %[[C0:.*]] : index
// CHECK-NEXT:    %[[MASK32:.*]] = arith.constant -32 : index
// CHECK-NEXT:    %[[WHOLE:.*]] = arith.andi %[[COUNT]], %[[MASK32]] : index
// CHECK-NEXT:    %[[SPLIT:.*]] = arith.addi %[[C0]], %[[WHOLE]] : index
// CHECK:         scf.for %{{.*}} = %[[C0]] to %[[SPLIT]] step
// CHECK:           blk.load %{{.*}} : !blk.ptr<f16>
// CHECK:         scf.for %{{.*}} = %[[SPLIT]] to %[[END]] step
// CHECK:           blk.load %{{.*}} : !blk.ptr<f16>
// CHECK:         } {llvm.loop_annotation = #[[TAIL32]]}
// CHECK:         scf.for %{{.*}} = %[[END]] to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f16
// CHECK-NEXT:      %[[ZX:.*]] = arith.extf %[[Z]] : f16 to f32
// CHECK-NEXT:      arith.addf %[[ACC]], %[[ZX]] fastmath<reassoc> : f32
// CHECK-NOT:     memref
// CHECK:         return
func.func @masked_load_no_other(%in: !blk.ptr<f16>, %n: i32, %out: !blk.ptr<f16>) {
  %r = blk.make_range 0 to 8 : tensor<8xi32>
  %nb = blk.splat %n : i32 -> tensor<8xi32>
  %mask = arith.cmpi slt, %r, %nb : tensor<8xi32>
  %base = blk.splat %in : !blk.ptr<f16> -> tensor<8x!blk.ptr<f16>>
  %p = blk.addptr %base, %r : tensor<8x!blk.ptr<f16>>, tensor<8xi32>
  %x = blk.load %p, %mask : tensor<8x!blk.ptr<f16>>
  %s = blk.reduce sum %x axis = 0 : tensor<8xf16> -> f16
  blk.store %out, %s : !blk.ptr<f16>
  return
}

// A mask that is no prefix of the lanes (here, lanes whose loaded flag is
// set) is still tested per lane: the load sits in the `then` branch of an
// scf.if and the `else` branch stores `other`, so masked-off lanes touch no
// memory; the sum of the block is carried through both branches. Such a
// block is always copied to a buffer (a reload would test the mask again);
// the flags, read before any store, are loaded again where the mask is
// tested.
// CHECK-LABEL: func.func @masked_load_per_lane
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<f32>, %[[FLAGS:[^:]*]]: !blk.ptr<i32>, %[[OUT:[^:]*]]: !blk.ptr<f32>)
// CHECK-NEXT:    %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<8xf32>
// CHECK-NOT:     memref.alloca
// CHECK:         scf.for %[[I:[^ ]*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:[^ ]*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:      %[[FOFF:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:      %[[FPTR:.*]] = blk.addptr %[[FLAGS]], %[[FOFF]] : !blk.ptr<i32>, i32
// CHECK-NEXT:      %[[F:.*]] = blk.load %[[FPTR]] : !blk.ptr<i32>
// CHECK-NEXT:      %[[FZ:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[M:.*]] = arith.cmpi ne, %[[F]], %[[FZ]] : i32
// CHECK-NEXT:      %[[S:.*]] = scf.if %[[M]] -> (f32) {
// CHECK:             %[[LD:.*]] = blk.load %{{.*}} : !blk.ptr<f32>
// CHECK-NEXT:        memref.store %[[LD]], %[[BUF]][%[[I]]] : memref<8xf32>
// CHECK-NEXT:        %[[A:.*]] = arith.addf %[[ACC]], %[[LD]] fastmath<reassoc> : f32
// CHECK-NEXT:        scf.yield %[[A]] : f32
// CHECK-NEXT:      } else {
// CHECK-NEXT:        %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:        memref.store %[[Z]], %[[BUF]][%[[I]]] : memref<8xf32>
// CHECK-NEXT:        %[[B:.*]] = arith.addf %[[ACC]], %[[Z]] fastmath<reassoc> : f32
// CHECK-NEXT:        scf.yield %[[B]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %[[S]] : f32
// CHECK-NEXT:    }
func.func @masked_load_per_lane(%in: !blk.ptr<f32>, %flags: !blk.ptr<i32>,
                                %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 8 : tensor<8xi32>
  %fb = blk.splat %flags : !blk.ptr<i32> -> tensor<8x!blk.ptr<i32>>
  %fp = blk.addptr %fb, %r : tensor<8x!blk.ptr<i32>>, tensor<8xi32>
  %f = blk.load %fp : tensor<8x!blk.ptr<i32>>
  %zero = arith.constant dense<0> : tensor<8xi32>
  %mask = arith.cmpi ne, %f, %zero : tensor<8xi32>
  %base = blk.splat %in : !blk.ptr<f32> -> tensor<8x!blk.ptr<f32>>
  %p = blk.addptr %base, %r : tensor<8x!blk.ptr<f32>>, tensor<8xi32>
  %x = blk.load %p, %mask : tensor<8x!blk.ptr<f32>>
  %s = blk.reduce sum %x axis = 0 : tensor<8xf32> -> f32
  blk.store %out, %s : !blk.ptr<f32>
  return
}
