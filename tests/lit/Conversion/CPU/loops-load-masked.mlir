// RUN: blockjit-opt %s --convert-blk-to-loops | FileCheck %s

// A masked block load becomes loops over the lanes. A mask `range < n` is a
// prefix of the lanes (compiler/cpu/MaskTerms.h): the first loop loads lanes
// [0, clamp(n, 0, 16)) with no test at all (a per-lane test would vectorize
// as a masked load, several times slower), the second writes `other` into
// lanes [clamp(n, 0, 16), 16) without touching memory. The result lives in a
// stack buffer allocated once at function entry, before the row loop.

// CHECK-LABEL: func.func @masked_load_other
// CHECK-SAME:    (%[[OUT:[^:]*]]: !blk.ptr<f32>, %[[IN:[^:]*]]: !blk.ptr<f32>, %[[N:[^:]*]]: i32, %[[ROWS:[^:]*]]: i32)
// CHECK-NEXT:    %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16xf32>
// CHECK-NOT:     memref.alloca
// CHECK:         scf.for %[[ROW:.*]] = %{{.*}} to %[[ROWS]] step %{{.*}} : i32 {
// CHECK-NOT:       memref.alloca
// CHECK:           %[[ROWPTR:.*]] = blk.addptr %[[IN]], %{{.*}} : !blk.ptr<f32>, i32
// CHECK:           %[[C16:.*]] = arith.constant 16 : index
// CHECK:           %[[N64:.*]] = arith.extsi %[[N]] : i32 to i64
// CHECK:           %[[MIN:.*]] = arith.minsi %[[N64]], %{{.*}} : i64
// CHECK:           %[[CLAMP:.*]] = arith.maxsi %{{.*}}, %[[MIN]] : i64
// CHECK:           %[[END:.*]] = arith.index_cast %[[CLAMP]] : i64 to index
// CHECK:           %[[MAX0:.*]] = scf.for %[[I:[^ ]*]] = %{{.*}} to %[[END]] step %{{.*}} iter_args(%[[ACC:[^ ]*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:        %[[COL:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:        %[[PTR:.*]] = blk.addptr %[[ROWPTR]], %[[COL]] : !blk.ptr<f32>, i32
// CHECK-NEXT:        %[[LD:.*]] = blk.load %[[PTR]] : !blk.ptr<f32>
// CHECK-NEXT:        memref.store %[[LD]], %[[BUF]][%[[I]]] : memref<16xf32>
//                    the row's max, in the loop that loads it
// CHECK-NEXT:        %[[M:.*]] = arith.maximumf %[[ACC]], %[[LD]] fastmath<nsz> : f32
// CHECK-NEXT:        scf.yield %[[M]] : f32
// CHECK-NEXT:      }
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
// CHECK:           blk.store %[[OUT]], %[[MAX]] : !blk.ptr<f32>
// CHECK-NOT:     blk.load %{{.*}} : tensor
func.func @masked_load_other(%out: !blk.ptr<f32>, %in: !blk.ptr<f32>, %n: i32, %rows: i32) {
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
// past the prefix.
// CHECK-LABEL: func.func @masked_load_other_splat
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<i32>, %[[N:[^:]*]]: i32, %[[FILL:[^:]*]]: i32, %[[OUT:[^:]*]]: !blk.ptr<i32>)
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[END:.*]] step
// CHECK:           blk.load %{{.*}} : !blk.ptr<i32>
// CHECK:         scf.for %[[J:.*]] = %[[END]] to
// CHECK-NEXT:      memref.store %[[FILL]], %{{.*}}[%[[J]]]
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
// CHECK-LABEL: func.func @masked_load_no_other
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[END:.*]] step
// CHECK:           blk.load %{{.*}} : !blk.ptr<f16>
// CHECK:         scf.for %[[J:.*]] = %[[END]] to
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f16
// CHECK-NEXT:      memref.store %[[Z]], %{{.*}}[%[[J]]]
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
// memory; the sum of the block is carried through both branches.
// CHECK-LABEL: func.func @masked_load_per_lane
// CHECK:         scf.for %[[I:[^ ]*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:[^ ]*]] = %{{.*}}) -> (f32) {
// CHECK:           %[[M:.*]] = arith.cmpi ne, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:      %[[S:.*]] = scf.if %[[M]] -> (f32) {
// CHECK:             %[[LD:.*]] = blk.load %{{.*}} : !blk.ptr<f32>
// CHECK-NEXT:        memref.store %[[LD]], %{{.*}}[%[[I]]] : memref<8xf32>
// CHECK-NEXT:        %[[A:.*]] = arith.addf %[[ACC]], %[[LD]] fastmath<reassoc> : f32
// CHECK-NEXT:        scf.yield %[[A]] : f32
// CHECK-NEXT:      } else {
// CHECK-NEXT:        %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:        memref.store %[[Z]], %{{.*}}[%[[I]]] : memref<8xf32>
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
