// RUN: blockjit-opt %s --convert-blk-to-loops | FileCheck %s

// A masked 1-D load whose mask is a prefix (`range < n`) and whose `other`
// is the same everywhere leaves a block whose tail [end, 16) is all
// `other`. A buffered op computed elementwise from it (and from values the
// same everywhere) computes only [0, end) and fills the tail with its value
// at `other`, computed once: exp(-inf - max) is not evaluated per padding
// element. [0, end) is a loop over whole vectors and a remainder loop that
// LLVM vectorizes as one masked vector (tail folding, width 16 for f32, no
// interleaving); no loop computes past end. Its fused sum adds the tail's
// elements after the tail's loop, which only stores: not at all where
// adding the fill once leaves the sum's bits unchanged (softmax's fill
// exp(-inf - max) = 0), else once per tail element; results are those of
// computing every element. The
// block itself, read before any store, is not copied: the loops over
// [0, end) load it again with no test (their range implies the mask).

// CHECK-DAG:   #[[VEC:loop_vectorize[0-9]*]] = #llvm.loop_vectorize<disable = false, predicateEnable = true, scalableEnable = false, width = 16 : i32>
// CHECK-DAG:   #[[ONE:loop_interleave[0-9]*]] = #llvm.loop_interleave<count = 1 : i32>
// CHECK-DAG:   #[[TAIL:loop_annotation[0-9]*]] = #llvm.loop_annotation<vectorize = #[[VEC]], interleave = #[[ONE]]>

// The exp pass runs as chunks of 256 elements (16 vectors), each of which
// first prefetches for writing the lines of the output that the store of
// the row will write.
// CHECK-LABEL: func.func @softmax_row
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<f32>, %[[OUT:[^:]*]]: !blk.ptr<f32>, %[[N:[^:]*]]: i32)
// CHECK-NEXT:    %[[E:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16xf32>
// CHECK-NOT:     memref.alloca
// CHECK:         %[[END:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:         %[[MSPLIT:.*]] = arith.addi %{{.*}} : index
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[MSPLIT]] step
// CHECK-NOT:       memref.store
// CHECK:           blk.load
// CHECK:         scf.for %{{.*}} = %[[MSPLIT]] to %[[END]] step
// CHECK-NOT:       memref.store
// CHECK:           blk.load
// CHECK:         } {llvm.loop_annotation = #[[TAIL]]}
// CHECK:         scf.for %{{.*}} = %[[END]] to %{{.*}} step
// CHECK:         %[[MAX:.*]] = scf.if
//                the tail's element, once: exp(-inf - max)
// CHECK:         %[[T:.*]] = arith.subf %[[NINF:.*]], %[[MAX]] : f32
// CHECK-NEXT:    %[[FILL:.*]] = math.exp %[[T]] : f32
//                the whole vectors of [0, end) end at SPLIT; chunks of 256
//                elements up to CEND
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[COUNT:.*]] = arith.subi %[[END]], %[[C0]] : index
// CHECK-NEXT:    %[[MASK16:.*]] = arith.constant -16 : index
// CHECK-NEXT:    %[[WHOLE:.*]] = arith.andi %[[COUNT]], %[[MASK16]] : index
// CHECK-NEXT:    %[[SPLIT:.*]] = arith.addi %[[C0]], %[[WHOLE]] : index
// CHECK-NEXT:    %[[MASK256:.*]] = arith.constant -256 : index
// CHECK-NEXT:    %[[CCOUNT:.*]] = arith.subi %[[SPLIT]], %[[C0]] : index
// CHECK-NEXT:    %[[CWHOLE:.*]] = arith.andi %[[CCOUNT]], %[[MASK256]] : index
// CHECK-NEXT:    %[[CEND:.*]] = arith.addi %[[C0]], %[[CWHOLE]] : index
// CHECK-NEXT:    %[[C256:.*]] = arith.constant 256 : index
//                each chunk sums its own elements from 0 and adds that to
//                the running sum once (LLVM would otherwise put the running
//                sum in one vector lane and add a share of the row to it
//                element by element)
// CHECK-NEXT:    %[[S0:.*]] = scf.for %[[CH:[^ ]*]] = %[[C0]] to %[[CEND]] step %[[C256]] iter_args(%[[CACC:[^ ]*]] = %[[ZERO:[^ ]*]]) -> (f32) {
// CHECK-NEXT:      %[[LINE:.*]] = arith.constant 16 : index
// CHECK-NEXT:      %[[CLEN:.*]] = arith.constant 256 : index
// CHECK-NEXT:      %[[CHEND:.*]] = arith.addi %[[CH]], %[[CLEN]] : index
// CHECK-NEXT:      scf.for %[[P:[^ ]*]] = %[[CH]] to %[[CHEND]] step %[[LINE]] {
// CHECK-NEXT:        %[[POFF:.*]] = arith.index_cast %[[P]] : index to i32
// CHECK-NEXT:        %[[PPTR:.*]] = blk.addptr %[[OUT]], %[[POFF]] : !blk.ptr<f32>, i32
// CHECK-NEXT:        blk.prefetch %[[PPTR]] write : !blk.ptr<f32>
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[CLEN2:.*]] = arith.constant 256 : index
// CHECK-NEXT:      %[[CHEND2:.*]] = arith.addi %[[CH]], %[[CLEN2]] : index
// CHECK-NEXT:      %[[ONEC:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[CS:.*]] = scf.for %[[I:[^ ]*]] = %[[CH]] to %[[CHEND2]] step %[[ONEC]] iter_args(%[[ACC:[^ ]*]] = %[[ZERO]]) -> (f32) {
// CHECK-NEXT:        %[[OFF:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:        %[[PTR:.*]] = blk.addptr %[[IN]], %[[OFF]] : !blk.ptr<f32>, i32
// CHECK-NEXT:        %[[XI:.*]] = blk.load %[[PTR]] : !blk.ptr<f32>
// CHECK-NEXT:        %[[D:.*]] = arith.subf %[[XI]], %[[MAX]] : f32
// CHECK-NEXT:        %[[EI:.*]] = math.exp %[[D]] : f32
// CHECK-NEXT:        memref.store %[[EI]], %[[E]][%[[I]]] : memref<16xf32>
// CHECK-NEXT:        %[[A:.*]] = arith.addf %[[ACC]], %[[EI]] fastmath<reassoc> : f32
// CHECK-NEXT:        scf.yield %[[A]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[CSUM:.*]] = arith.addf %[[CACC]], %[[CS]] fastmath<reassoc> : f32
// CHECK-NEXT:      scf.yield %[[CSUM]] : f32
// CHECK-NEXT:    }
//                the whole vectors past the chunks
// CHECK:         %[[S1:.*]] = scf.for %[[I:[^ ]*]] = %[[CEND]] to %[[SPLIT]] step %{{.*}} iter_args(%[[ACC:[^ ]*]] = %[[S0]]) -> (f32) {
// CHECK-NEXT:      %[[OFF:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:      %[[PTR:.*]] = blk.addptr %[[IN]], %[[OFF]] : !blk.ptr<f32>, i32
// CHECK-NEXT:      %[[XI:.*]] = blk.load %[[PTR]] : !blk.ptr<f32>
// CHECK-NEXT:      arith.subf %[[XI]], %[[MAX]] : f32
// CHECK-NEXT:      math.exp
// CHECK-NEXT:      memref.store %{{.*}}, %[[E]][%[[I]]]
// CHECK:         }
//                the rest of [0, end), as one masked vector
// CHECK-NEXT:    %[[ONER:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[S2:.*]] = scf.for %[[I:[^ ]*]] = %[[SPLIT]] to %[[END]] step %[[ONER]] iter_args(%[[ACC:[^ ]*]] = %[[S1]]) -> (f32) {
// CHECK-NEXT:      %[[OFF:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:      %[[PTR:.*]] = blk.addptr %[[IN]], %[[OFF]] : !blk.ptr<f32>, i32
// CHECK-NEXT:      %[[XI:.*]] = blk.load %[[PTR]] : !blk.ptr<f32>
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[XI]], %[[MAX]] : f32
// CHECK-NEXT:      %[[EI:.*]] = math.exp %[[D]] : f32
// CHECK-NEXT:      memref.store %[[EI]], %[[E]][%[[I]]] : memref<16xf32>
// CHECK-NEXT:      %[[A:.*]] = arith.addf %[[ACC]], %[[EI]] fastmath<reassoc> : f32
// CHECK-NEXT:      scf.yield %[[A]] : f32
// CHECK-NEXT:    } {llvm.loop_annotation = #[[TAIL]]}
//                the tail [end, 16): the fill stored, no exp, no sum
// CHECK-NEXT:    %[[ONEF:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[S3:.*]] = scf.for %[[J:[^ ]*]] = %[[END]] to %[[C16]] step %[[ONEF]] iter_args(%[[ACC:[^ ]*]] = %[[S2]]) -> (f32) {
// CHECK-NEXT:      memref.store %[[FILL]], %[[E]][%[[J]]] : memref<16xf32>
// CHECK-NEXT:      scf.yield %[[ACC]] : f32
// CHECK-NEXT:    }
//                the sum then adds the fill once per tail element, unless one
//                addition leaves its bits unchanged (a fill of 0)
// CHECK-NEXT:    %[[ONCE:.*]] = arith.addf %[[S3]], %[[FILL]] fastmath<reassoc> : f32
// CHECK-NEXT:    %[[AFTER:.*]] = arith.bitcast %[[ONCE]] : f32 to i32
// CHECK-NEXT:    %[[BEFORE:.*]] = arith.bitcast %[[S3]] : f32 to i32
// CHECK-NEXT:    %[[SAME:.*]] = arith.cmpi eq, %[[BEFORE]], %[[AFTER]] : i32
// CHECK-NEXT:    %[[S:.*]] = scf.if %[[SAME]] -> (f32) {
// CHECK-NEXT:      scf.yield %[[S3]] : f32
// CHECK-NEXT:    } else {
// CHECK:           scf.for %{{.*}} = %[[END]] to %{{.*}} step %{{.*}} iter_args(%[[TACC:[^ ]*]] = %[[S3]]) -> (f32) {
// CHECK-NEXT:        %[[TA:.*]] = arith.addf %[[TACC]], %[[FILL]] fastmath<reassoc> : f32
// CHECK-NEXT:        scf.yield %[[TA]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NOT:     math.exp
//                the masked store: whole vectors, then one masked vector
// CHECK:         %[[SEND:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:         %[[SSPLIT:.*]] = arith.addi %{{.*}} : index
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[SSPLIT]] step
// CHECK:           arith.divf %{{.*}}, %[[S]] : f32
// CHECK:         scf.for %{{.*}} = %[[SSPLIT]] to %[[SEND]] step
// CHECK:           blk.store
// CHECK-NEXT:    } {llvm.loop_annotation = #[[TAIL]]}
// CHECK-NOT:     math.exp
// CHECK:         return
func.func @softmax_row(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>, %n: i32) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %nb = blk.splat %n : i32 -> tensor<16xi32>
  %mask = arith.cmpi slt, %r, %nb : tensor<16xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<16xf32>
  %base = blk.splat %in : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %p = blk.addptr %base, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  %x = blk.load %p, %mask, %ninf : tensor<16x!blk.ptr<f32>>
  %m = blk.reduce max %x axis = 0 : tensor<16xf32> -> f32
  %mb = blk.splat %m : f32 -> tensor<16xf32>
  %d = arith.subf %x, %mb : tensor<16xf32>
  %e = math.exp %d : tensor<16xf32>
  %s = blk.reduce sum %e axis = 0 : tensor<16xf32> -> f32
  %sb = blk.splat %s : f32 -> tensor<16xf32>
  %y = arith.divf %e, %sb : tensor<16xf32>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  blk.store %op, %y, %mask : tensor<16x!blk.ptr<f32>>
  return
}

// A per-lane `other` (here the lane index as a float) gives no tail: every
// element of exp is computed in one loop over all 16 lanes. That loop's
// range does not imply the mask: it loads x again only where the mask
// holds and computes `other` elsewhere.
// CHECK-LABEL: func.func @other_per_lane
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<f32>, %[[OUT:[^:]*]]: !blk.ptr<f32>, %[[N:[^:]*]]: i32)
// CHECK-NEXT:    %[[E:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16xf32>
// CHECK-NOT:     memref.alloca
// CHECK-NOT:     math.exp
// CHECK:         scf.for %[[I:[^ ]*]] = %{{.*}} to %[[C16:c16[_0-9]*]] step %{{.*}} iter_args(%[[ACC:[^ ]*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:      %[[OFF:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:      %[[PTR:.*]] = blk.addptr %[[IN]], %[[OFF]] : !blk.ptr<f32>, i32
// CHECK-NEXT:      %[[LANE:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:      %[[ACTIVE:.*]] = arith.cmpi slt, %[[LANE]], %[[N]] : i32
// CHECK-NEXT:      %[[X:.*]] = scf.if %[[ACTIVE]] -> (f32) {
// CHECK-NEXT:        %[[LD:.*]] = blk.load %[[PTR]] : !blk.ptr<f32>
// CHECK-NEXT:        scf.yield %[[LD]] : f32
// CHECK-NEXT:      } else {
// CHECK-NEXT:        %[[OI:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:        %[[OTHER:.*]] = arith.sitofp %[[OI]] : i32 to f32
// CHECK-NEXT:        scf.yield %[[OTHER]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[EI:.*]] = math.exp %[[X]] : f32
// CHECK-NEXT:      memref.store %[[EI]], %[[E]][%[[I]]] : memref<16xf32>
// CHECK-NEXT:      arith.addf %[[ACC]], %[[EI]] fastmath<reassoc> : f32
// CHECK-NOT:     math.exp
// CHECK:         return
func.func @other_per_lane(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>, %n: i32) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %nb = blk.splat %n : i32 -> tensor<16xi32>
  %mask = arith.cmpi slt, %r, %nb : tensor<16xi32>
  %other = arith.sitofp %r : tensor<16xi32> to tensor<16xf32>
  %base = blk.splat %in : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %p = blk.addptr %base, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  %x = blk.load %p, %mask, %other : tensor<16x!blk.ptr<f32>>
  %e = math.exp %x : tensor<16xf32>
  %s = blk.reduce sum %e axis = 0 : tensor<16xf32> -> f32
  %sb = blk.splat %s : f32 -> tensor<16xf32>
  %y = arith.divf %e, %sb : tensor<16xf32>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  blk.store %op, %y : tensor<16x!blk.ptr<f32>>
  return
}
