// RUN: blockjit-opt %s --convert-blk-to-loops | FileCheck %s

// A masked block load becomes a loop over the lanes. Masked-off lanes must not
// touch memory, so the scalar blk.load sits in the `then` branch of an scf.if
// and `other` is yielded by the `else` branch (no select of a loaded value).
// The result lives in a stack buffer allocated once at function entry, before
// the row loop, not once per row.

// CHECK-LABEL: func.func @masked_load_other
// CHECK-SAME:    (%[[OUT:[^:]*]]: !blk.ptr<f32>, %[[IN:[^:]*]]: !blk.ptr<f32>, %[[N:[^:]*]]: i32, %[[ROWS:[^:]*]]: i32)
// CHECK-NEXT:    %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16xf32>
// CHECK-NOT:     memref.alloca
// CHECK:         scf.for %[[ROW:.*]] = %{{.*}} to %[[ROWS]] step %{{.*}} : i32 {
// CHECK-NOT:       memref.alloca
// CHECK:           %[[ROWPTR:.*]] = blk.addptr %[[IN]], %{{.*}} : !blk.ptr<f32>, i32
// CHECK:           %[[C16:.*]] = arith.constant 16 : index
// CHECK:           scf.for %[[I:.*]] = %{{.*}} to %[[C16]] step %{{.*}} {
// CHECK:             %[[COL:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK:             %[[PTR:.*]] = blk.addptr %[[ROWPTR]], %[[COL]] : !blk.ptr<f32>, i32
// CHECK:             %[[COL2:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK:             %[[M:.*]] = arith.cmpi slt, %[[COL2]], %[[N]] : i32
// CHECK-NEXT:        %[[X:.*]] = scf.if %[[M]] -> (f32) {
// CHECK-NEXT:          %[[LD:.*]] = blk.load %[[PTR]] : !blk.ptr<f32>
// CHECK-NEXT:          scf.yield %[[LD]] : f32
// CHECK-NEXT:        } else {
// CHECK-NOT:           blk.load
// CHECK-NEXT:          %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT:          scf.yield %[[NINF]] : f32
// CHECK-NEXT:        }
// CHECK-NEXT:        memref.store %[[X]], %[[BUF]][%[[I]]] : memref<16xf32>
// CHECK-NEXT:      }
// CHECK:           %[[MAX:.*]] = scf.for {{.*}} -> (f32) {
// CHECK:             memref.load %[[BUF]]
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

// `other` need not be a constant: a splat of an argument is read per lane in
// the else branch.
// CHECK-LABEL: func.func @masked_load_other_splat
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<i32>, %[[N:[^:]*]]: i32, %[[FILL:[^:]*]]: i32, %[[OUT:[^:]*]]: !blk.ptr<i32>)
// CHECK:         scf.if %{{.*}} -> (i32) {
// CHECK-NEXT:      blk.load %{{.*}} : !blk.ptr<i32>
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %[[FILL]] : i32
// CHECK-NEXT:    }
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
// CHECK:         scf.if %{{.*}} -> (f16) {
// CHECK-NEXT:      blk.load %{{.*}} : !blk.ptr<f16>
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f16
// CHECK-NEXT:      scf.yield %[[Z]] : f16
// CHECK-NEXT:    }
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
