// RUN: blockjit-opt %s --split-input-file --convert-blk-to-loops | FileCheck %s
// RUN: blockjit-opt %s --split-input-file --blockjit-cpu-pipeline | FileCheck %s --check-prefix=LLVM

// The whole CPU pipeline leaves no scan and no region behind.
// LLVM-NOT: blk.scan
// LLVM-NOT: blk.scan_return

// A 1-D scan: the first element is copied, then one scf.for carries the
// running value; the combine region is inlined with (running, next). The
// scanned block is read only by the scan, before the store, so it is not
// copied into a buffer: each element is reloaded from memory (blk.load);
// only the scan's result has a buffer.
// CHECK-LABEL: func.func @scan_1d
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<f32>)
// CHECK:         %[[OUT:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16xf32>
// CHECK-NOT:     memref.alloca
//                the first element, at a constant index 0 (%c0...)
// CHECK:         %[[C0I:.*]] = arith.index_cast %[[C0:c0(_[0-9]+)?]] : index to i32
// CHECK-NEXT:    %[[P0:.*]] = blk.addptr %[[IN]], %[[C0I]] : !blk.ptr<f32>, i32
// CHECK-NEXT:    %[[FIRST:.*]] = blk.load %[[P0]] : !blk.ptr<f32>
// CHECK-NEXT:    memref.store %[[FIRST]], %[[OUT]][%[[C0]]] : memref<16xf32>
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[FIRST]]) -> (f32) {
// CHECK-NEXT:      %[[II:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:      %[[P:.*]] = blk.addptr %[[IN]], %[[II]] : !blk.ptr<f32>, i32
// CHECK-NEXT:      %[[E:.*]] = blk.load %[[P]] : !blk.ptr<f32>
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[E]] : f32
// CHECK-NEXT:      memref.store %[[S]], %[[OUT]][%[[I]]] : memref<16xf32>
// CHECK-NEXT:      scf.yield %[[S]] : f32
// CHECK-NEXT:    }
// CHECK-NOT:     blk.scan
//                then the result is stored from its buffer
// CHECK:           %[[R:.*]] = memref.load %[[OUT]][%{{.*}}] : memref<16xf32>
// CHECK-NEXT:      blk.store %{{.*}}, %[[R]] : !blk.ptr<f32>
func.func @scan_1d(%p: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %ps = blk.splat %p : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %a = blk.addptr %ps, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  %x = blk.load %a : tensor<16x!blk.ptr<f32>>
  %s = blk.scan %x axis = 0 : tensor<16xf32> {
  ^bb0(%l: f32, %rr: f32):
    %c = arith.addf %l, %rr : f32
    blk.scan_return %c : f32
  }
  blk.store %a, %s : tensor<16x!blk.ptr<f32>>
  return
}

// -----

// A reverse scan along axis 0 of a 4x8 block: a loop over the 8 columns,
// each starting at row 3 and walking up (row 3 - i), combining the running
// product (left) with the next element (right). A 2-D block is still copied
// into a buffer and the scan reads it from there.
// CHECK-LABEL: func.func @scan_2d_reverse
// CHECK:         %[[OUT:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4x8xi32>
// CHECK:         %[[X:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4x8xi32>
// CHECK:         memref.store %{{.*}}, %[[X]]
// CHECK:           %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:      %[[FIRST:.*]] = memref.load %[[X]][%[[C3]], %[[J:.*]]] : memref<4x8xi32>
// CHECK-NEXT:      memref.store %[[FIRST]], %[[OUT]][%[[C3]], %[[J]]] : memref<4x8xi32>
// CHECK:           scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[FIRST]]) -> (i32) {
// CHECK-NEXT:        %[[C3B:.*]] = arith.constant 3 : index
// CHECK-NEXT:        %[[ROW:.*]] = arith.subi %[[C3B]], %[[I]] : index
// CHECK-NEXT:        %[[E:.*]] = memref.load %[[X]][%[[ROW]], %[[J]]] : memref<4x8xi32>
// CHECK-NEXT:        %[[P:.*]] = arith.muli %[[ACC]], %[[E]] : i32
// CHECK-NEXT:        memref.store %[[P]], %[[OUT]][%[[ROW]], %[[J]]] : memref<4x8xi32>
// CHECK-NEXT:        scf.yield %[[P]] : i32
func.func @scan_2d_reverse(%in: !blk.ptr<i32>, %out: !blk.ptr<i32>) {
  %rows = blk.make_range 0 to 4 : tensor<4xi32>
  %cols = blk.make_range 0 to 8 : tensor<8xi32>
  %c8 = arith.constant 8 : i32
  %s = blk.splat %c8 : i32 -> tensor<4x1xi32>
  %r2 = blk.expand_dims %rows axis = 1 : tensor<4xi32> -> tensor<4x1xi32>
  %roff = arith.muli %r2, %s : tensor<4x1xi32>
  %c2 = blk.expand_dims %cols axis = 0 : tensor<8xi32> -> tensor<1x8xi32>
  %rb = blk.broadcast %roff : tensor<4x1xi32> -> tensor<4x8xi32>
  %cb = blk.broadcast %c2 : tensor<1x8xi32> -> tensor<4x8xi32>
  %off = arith.addi %rb, %cb : tensor<4x8xi32>
  %base = blk.splat %in : !blk.ptr<i32> -> tensor<4x8x!blk.ptr<i32>>
  %p = blk.addptr %base, %off : tensor<4x8x!blk.ptr<i32>>, tensor<4x8xi32>
  %x = blk.load %p : tensor<4x8x!blk.ptr<i32>>
  %y = blk.scan %x axis = 0 reverse : tensor<4x8xi32> {
  ^bb0(%a: i32, %b: i32):
    %c = arith.muli %a, %b : i32
    blk.scan_return %c : i32
  }
  %obase = blk.splat %out : !blk.ptr<i32> -> tensor<4x8x!blk.ptr<i32>>
  %op = blk.addptr %obase, %off : tensor<4x8x!blk.ptr<i32>>, tensor<4x8xi32>
  blk.store %op, %y : tensor<4x8x!blk.ptr<i32>>
  return
}
