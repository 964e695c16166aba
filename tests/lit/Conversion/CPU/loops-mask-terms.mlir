// RUN: blockjit-opt %s --convert-blk-to-loops --canonicalize | FileCheck %s

// How the loops stage tests the terms of a load's or store's mask
// (compiler/cpu/MaskTerms.h): a term `index < bound` along the innermost
// dimension bounds its loop (end = clamp(bound - start - offset, 0, size),
// in 64 bits), a term constant along it is tested once per line, and only
// the rest would be tested per element (loops-load-masked.mlir). The
// bounded loop over the active elements, whose end is not a constant, runs
// as whole 64-byte vectors [0, end & -16) and a remainder [end & -16, end)
// with the tail-folding loop annotation (vectorize with predication, width
// 16, interleave 1); neither tests the mask per element.

// CHECK:       #[[IL:loop_interleave[0-9_]*]] = #llvm.loop_interleave<count = 1 : i32>
// CHECK-NEXT:  #[[VEC:loop_vectorize[0-9_]*]] = #llvm.loop_vectorize<disable = false, predicateEnable = true, scalableEnable = false, width = 16 : i32>
// CHECK-NEXT:  #[[ANN:loop_annotation[0-9_]*]] = #llvm.loop_annotation<vectorize = #[[VEC]], interleave = #[[IL]]>

// `n > start + range(4, 20)`: the swapped compare, a make_range that does
// not start at 0 and an offset constant along the lanes. Ints wrap: where
// start + 19 passes INT32_MAX (start > 2147483628) the index wraps and the
// term holds again past the wrap, so that line tests it per element; else
// it bounds the loop.
// CHECK-LABEL: func.func @offset_prefix
// CHECK-SAME:    (%[[OUT:[^:]*]]: !blk.ptr<f32>, %[[START:[^:]*]]: i32, %[[N:[^:]*]]: i32
// CHECK:         %[[CM16:.*]] = arith.constant -16 : index
// CHECK:         %[[LIMIT:.*]] = arith.constant 2147483628 : i64
// CHECK:         %[[WS64:.*]] = arith.extsi %[[START]] : i32 to i64
// CHECK-NEXT:    %[[WRAPS:.*]] = arith.cmpi sgt, %[[WS64]], %[[LIMIT]] : i64
// CHECK-NEXT:    scf.if %[[WRAPS]] {
// CHECK-NEXT:      scf.for
// CHECK:             %[[TEST:.*]] = arith.cmpi sgt, %[[N]], %{{.*}} : i32
// CHECK-NEXT:        scf.if %[[TEST]] {
// CHECK:               blk.store
// CHECK:         } else {
// CHECK-NEXT:      %[[N64:.*]] = arith.extsi %[[N]] : i32 to i64
// CHECK-NEXT:      %[[A:.*]] = arith.subi %[[N64]], %[[C4:.*]] : i64
// CHECK-NEXT:      %[[S64:.*]] = arith.extsi %[[START]] : i32 to i64
// CHECK-NEXT:      %[[B:.*]] = arith.subi %[[A]], %[[S64]] : i64
// CHECK-NEXT:      %[[MIN:.*]] = arith.minsi %[[B]], %[[C16:.*]] : i64
// CHECK-NEXT:      %[[MAX:.*]] = arith.maxsi %[[MIN]], %[[C0:.*]] : i64
// CHECK-NEXT:      %[[END:.*]] = arith.index_cast %[[MAX]] : i64 to index
// CHECK-NEXT:      %[[SPLIT:.*]] = arith.andi %[[END]], %[[CM16]] : index
// CHECK-NEXT:      scf.for %{{.*}} = %{{.*}} to %[[SPLIT]] step
// CHECK-NOT:         scf.if
// CHECK:             blk.store
// CHECK-NEXT:      }{{$}}
// CHECK-NEXT:      scf.for %{{.*}} = %[[SPLIT]] to %[[END]] step
// CHECK-NOT:         scf.if
// CHECK:             blk.store
// CHECK-NEXT:      } {llvm.loop_annotation = #[[ANN]]}
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @offset_prefix(%out: !blk.ptr<f32>, %start: i32, %n: i32, %v: f32) {
  %r = blk.make_range 4 to 20 : tensor<16xi32>
  %s = blk.splat %start : i32 -> tensor<16xi32>
  %offs = arith.addi %s, %r : tensor<16xi32>
  %nb = blk.splat %n : i32 -> tensor<16xi32>
  %mask = arith.cmpi sgt, %nb, %offs : tensor<16xi32>
  %base = blk.splat %out : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %p = blk.addptr %base, %offs : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  %vb = blk.splat %v : f32 -> tensor<16xf32>
  blk.store %p, %vb, %mask : tensor<16x!blk.ptr<f32>>
  return
}

// `range <= n` unsigned: n is zero-extended (a negative i32 is a huge
// unsigned bound, every lane active) and the bound is n + 1.
// CHECK-LABEL: func.func @inclusive_unsigned
// CHECK-SAME:    (%[[OUT:[^:]*]]: !blk.ptr<f32>, %[[N:[^:]*]]: i32
// CHECK:         %[[N64:.*]] = arith.extui %[[N]] : i32 to i64
// CHECK-NEXT:    %[[B:.*]] = arith.addi %[[N64]], %{{.*}} : i64
// CHECK-NEXT:    arith.minsi %[[B]]
// CHECK-NEXT:    arith.maxsi
// CHECK-NEXT:    %[[END:.*]] = arith.index_cast
// CHECK-NEXT:    %[[SPLIT:.*]] = arith.andi %[[END]], %{{.*}} : index
// CHECK-NEXT:    scf.for %{{.*}} = %{{.*}} to %[[SPLIT]] step
// CHECK:         scf.for %{{.*}} = %[[SPLIT]] to %[[END]] step
// CHECK:         } {llvm.loop_annotation = #[[ANN]]}
func.func @inclusive_unsigned(%out: !blk.ptr<f32>, %n: i32, %v: f32) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %nb = blk.splat %n : i32 -> tensor<16xi32>
  %mask = arith.cmpi ule, %r, %nb : tensor<16xi32>
  %base = blk.splat %out : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %p = blk.addptr %base, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  %vb = blk.splat %v : f32 -> tensor<16xf32>
  blk.store %p, %vb, %mask : tensor<16x!blk.ptr<f32>>
  return
}

// A 2-D tile masked by `(rows < m) & (cols < n)`: per row, the column
// prefix bounds the inner loops (whole vectors, then the remainder) and the
// row term picks 0 lanes or that bound; the load's other lanes get 0 in a
// third loop, the store skips them. No per-element test is left. (The 2-D
// load is still copied into a buffer.)
// CHECK-LABEL: func.func @tile
// CHECK-SAME:    (%{{[^:]*}}: !blk.ptr<f32>, %{{[^:]*}}: !blk.ptr<f32>, %[[M:[^:]*]]: i32, %[[N:[^:]*]]: i32)
// CHECK:         scf.for %[[ROW:.*]] = %{{.*}} to %[[C4:.*]] step
// CHECK:           %[[COLEND:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK-NEXT:      %[[R:.*]] = arith.index_cast %[[ROW]] : index to i32
// CHECK-NEXT:      %[[ROWOK:.*]] = arith.cmpi slt, %[[R]], %[[M]] : i32
// CHECK-NEXT:      %[[END:.*]] = arith.select %[[ROWOK]], %[[COLEND]], %{{.*}} : index
// CHECK-NEXT:      %[[SPLIT:.*]] = arith.andi %[[END]], %{{.*}} : index
// CHECK-NEXT:      scf.for %{{.*}} = %{{.*}} to %[[SPLIT]] step
// CHECK-NOT:         scf.if
// CHECK:             blk.load
// CHECK:             memref.store
// CHECK-NEXT:      }{{$}}
// CHECK-NEXT:      scf.for %{{.*}} = %[[SPLIT]] to %[[END]] step
// CHECK-NOT:         scf.if
// CHECK:             blk.load
// CHECK:             memref.store
// CHECK-NEXT:      } {llvm.loop_annotation = #[[ANN]]}
// CHECK-NEXT:      scf.for %{{.*}} = %[[END]] to %{{.*}} step
// CHECK-NEXT:        memref.store
// CHECK:         scf.for %[[ROW2:.*]] = %{{.*}} to %[[C4]] step
// CHECK:           %[[END2:.*]] = arith.select
// CHECK-NEXT:      %[[SPLIT2:.*]] = arith.andi %[[END2]], %{{.*}} : index
// CHECK-NEXT:      scf.for %{{.*}} = %{{.*}} to %[[SPLIT2]] step
// CHECK-NOT:         scf.if
// CHECK:             blk.store
// CHECK-NEXT:      }{{$}}
// CHECK-NEXT:      scf.for %{{.*}} = %[[SPLIT2]] to %[[END2]] step
// CHECK-NOT:         scf.if
// CHECK:             blk.store
// CHECK-NEXT:      } {llvm.loop_annotation = #[[ANN]]}
// CHECK-NOT:     scf.if
// CHECK:         return
func.func @tile(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>, %m: i32, %n: i32) {
  %rm = blk.make_range 0 to 4 : tensor<4xi32>
  %rn = blk.make_range 0 to 8 : tensor<8xi32>
  %rm2 = blk.expand_dims %rm axis = 1 : tensor<4xi32> -> tensor<4x1xi32>
  %rn2 = blk.expand_dims %rn axis = 0 : tensor<8xi32> -> tensor<1x8xi32>
  %rmb = blk.broadcast %rm2 : tensor<4x1xi32> -> tensor<4x8xi32>
  %rnb = blk.broadcast %rn2 : tensor<1x8xi32> -> tensor<4x8xi32>
  %mb = blk.splat %m : i32 -> tensor<4x8xi32>
  %nb = blk.splat %n : i32 -> tensor<4x8xi32>
  %rowok = arith.cmpi slt, %rmb, %mb : tensor<4x8xi32>
  %colok = arith.cmpi slt, %rnb, %nb : tensor<4x8xi32>
  %mask = arith.andi %rowok, %colok : tensor<4x8xi1>
  %stride = blk.splat %n : i32 -> tensor<4x8xi32>
  %rowoff = arith.muli %rmb, %stride : tensor<4x8xi32>
  %offs = arith.addi %rowoff, %rnb : tensor<4x8xi32>
  %ib = blk.splat %in : !blk.ptr<f32> -> tensor<4x8x!blk.ptr<f32>>
  %ip = blk.addptr %ib, %offs : tensor<4x8x!blk.ptr<f32>>, tensor<4x8xi32>
  %x = blk.load %ip, %mask : tensor<4x8x!blk.ptr<f32>>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<4x8x!blk.ptr<f32>>
  %op = blk.addptr %ob, %offs : tensor<4x8x!blk.ptr<f32>>, tensor<4x8xi32>
  blk.store %op, %x, %mask : tensor<4x8x!blk.ptr<f32>>
  return
}

// The DSL's form of the same mask (softmax_columns): the column indices
// `start + range` are made 1-D, expanded to [1, 8] and compared there, and
// the [1, 8] compare is broadcast to the tile. The broadcast compare is
// still a prefix: the inner loops end at clamp(n - start, 0, 8), its offset
// (1-D, below the expand_dims) and bound read at index 0 of the axes they
// lack. Unless start + 7 wraps past INT32_MAX (then each line tests the
// column term per element), no per-element test is left.
// CHECK-LABEL: func.func @tile_broadcast_compare
// CHECK-SAME:    (%{{[^:]*}}: !blk.ptr<f32>, %{{[^:]*}}: !blk.ptr<f32>, %[[M:[^:]*]]: i32, %[[N:[^:]*]]: i32, %[[START:[^:]*]]: i32)
// CHECK:         %[[TOP:.*]] = arith.constant 2147483640 : i64
// CHECK:         scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT:      %[[WS64:.*]] = arith.extsi %[[START]] : i32 to i64
// CHECK-NEXT:      %[[WRAPS:.*]] = arith.cmpi sgt, %[[WS64]], %[[TOP]] : i64
// CHECK-NEXT:      scf.if %[[WRAPS]] {
// CHECK:             arith.cmpi slt, %{{.*}}, %[[N]] : i32
// CHECK:           } else {
// CHECK:             %[[N64:.*]] = arith.extsi %[[N]] : i32 to i64
// CHECK-NEXT:        %[[S64:.*]] = arith.extsi %[[START]] : i32 to i64
// CHECK-NEXT:        %[[LEFT:.*]] = arith.subi %[[N64]], %[[S64]] : i64
// CHECK-NEXT:        %[[MIN:.*]] = arith.minsi %[[LEFT]], %{{.*}} : i64
// CHECK-NEXT:        %[[MAX:.*]] = arith.maxsi %[[MIN]], %{{.*}} : i64
// CHECK-NEXT:        %[[COLEND:.*]] = arith.index_cast %[[MAX]] : i64 to index
// CHECK-NEXT:        %[[R:.*]] = arith.index_cast %[[ROW]] : index to i32
// CHECK-NEXT:        %[[ROWOK:.*]] = arith.cmpi slt, %[[R]], %[[M]] : i32
// CHECK-NEXT:        %[[END:.*]] = arith.select %[[ROWOK]], %[[COLEND]], %{{.*}} : index
// CHECK-NEXT:        %[[SPLIT:.*]] = arith.andi %[[END]]
// CHECK-NEXT:        scf.for
// CHECK-NOT:           scf.if
// CHECK:               memref.store
// CHECK:         return
func.func @tile_broadcast_compare(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>, %m: i32, %n: i32, %start: i32) {
  %rm = blk.make_range 0 to 4 : tensor<4xi32>
  %rn = blk.make_range 0 to 8 : tensor<8xi32>
  %s = blk.splat %start : i32 -> tensor<8xi32>
  %cols = arith.addi %s, %rn : tensor<8xi32>
  %rm2 = blk.expand_dims %rm axis = 1 : tensor<4xi32> -> tensor<4x1xi32>
  %cols2 = blk.expand_dims %cols axis = 0 : tensor<8xi32> -> tensor<1x8xi32>
  %m1 = blk.splat %m : i32 -> tensor<4x1xi32>
  %n1 = blk.splat %n : i32 -> tensor<1x8xi32>
  %rowok1 = arith.cmpi slt, %rm2, %m1 : tensor<4x1xi32>
  %colok1 = arith.cmpi slt, %cols2, %n1 : tensor<1x8xi32>
  %rowok = blk.broadcast %rowok1 : tensor<4x1xi1> -> tensor<4x8xi1>
  %colok = blk.broadcast %colok1 : tensor<1x8xi1> -> tensor<4x8xi1>
  %mask = arith.andi %rowok, %colok : tensor<4x8xi1>
  %rmb = blk.broadcast %rm2 : tensor<4x1xi32> -> tensor<4x8xi32>
  %colsb = blk.broadcast %cols2 : tensor<1x8xi32> -> tensor<4x8xi32>
  %stride = blk.splat %n : i32 -> tensor<4x8xi32>
  %rowoff = arith.muli %rmb, %stride : tensor<4x8xi32>
  %offs = arith.addi %rowoff, %colsb : tensor<4x8xi32>
  %ib = blk.splat %in : !blk.ptr<f32> -> tensor<4x8x!blk.ptr<f32>>
  %ip = blk.addptr %ib, %offs : tensor<4x8x!blk.ptr<f32>>, tensor<4x8xi32>
  %x = blk.load %ip, %mask : tensor<4x8x!blk.ptr<f32>>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<4x8x!blk.ptr<f32>>
  %op = blk.addptr %ob, %offs : tensor<4x8x!blk.ptr<f32>>, tensor<4x8xi32>
  blk.store %op, %x, %mask : tensor<4x8x!blk.ptr<f32>>
  return
}
