// RUN: blockjit-opt %s | blockjit-opt | FileCheck %s
// RUN: blockjit-opt %s --mlir-print-op-generic | blockjit-opt | FileCheck %s
// RUN: blockjit-opt %s -canonicalize | FileCheck %s --check-prefix=CANON

// Copy a 32x64 bf16 tile (scaled by 2) with 2-D offsets built the Triton way:
// rows[:, None] * stride + cols[None, :], masked at (m, n).

// CHECK-LABEL: func.func @tile_copy
// CHECK:         %[[ROWS:.*]] = blk.make_range 0 to 32 : tensor<32xi32>
// CHECK:         %[[COLS:.*]] = blk.make_range 0 to 64 : tensor<64xi32>
// CHECK:         %[[R2:.*]] = blk.expand_dims %[[ROWS]] axis = 1 : tensor<32xi32> -> tensor<32x1xi32>
// CHECK:         %[[C2:.*]] = blk.expand_dims %[[COLS]] axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
// CHECK:         %[[STRIDES:.*]] = blk.splat %{{.*}} : i32 -> tensor<32x1xi32>
// CHECK:         %[[ROFF:.*]] = arith.muli %[[R2]], %[[STRIDES]] : tensor<32x1xi32>
// CHECK:         %[[ROFFB:.*]] = blk.broadcast %[[ROFF]] : tensor<32x1xi32> -> tensor<32x64xi32>
// CHECK:         %[[COFFB:.*]] = blk.broadcast %[[C2]] : tensor<1x64xi32> -> tensor<32x64xi32>
// CHECK:         %[[OFFS:.*]] = arith.addi %[[ROFFB]], %[[COFFB]] : tensor<32x64xi32>
// CHECK:         %[[RM:.*]] = arith.cmpi slt, %[[R2]], %{{.*}} : tensor<32x1xi32>
// CHECK:         %[[CM:.*]] = arith.cmpi slt, %[[C2]], %{{.*}} : tensor<1x64xi32>
// CHECK:         %[[RMB:.*]] = blk.broadcast %[[RM]] : tensor<32x1xi1> -> tensor<32x64xi1>
// CHECK:         %[[CMB:.*]] = blk.broadcast %[[CM]] : tensor<1x64xi1> -> tensor<32x64xi1>
// CHECK:         %[[MASK:.*]] = arith.andi %[[RMB]], %[[CMB]] : tensor<32x64xi1>
// CHECK:         %[[SRC:.*]] = blk.splat %{{.*}} : !blk.ptr<bf16> -> tensor<32x64x!blk.ptr<bf16>>
// CHECK:         %[[SP:.*]] = blk.addptr %[[SRC]], %[[OFFS]] : tensor<32x64x!blk.ptr<bf16>>, tensor<32x64xi32>
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<32x64xbf16>
// CHECK:         %[[V:.*]] = blk.load %[[SP]], %[[MASK]], %[[ZERO]] : tensor<32x64x!blk.ptr<bf16>>
// CHECK:         %[[TWO:.*]] = blk.splat %{{.*}} : bf16 -> tensor<32x64xbf16>
// CHECK:         %[[W:.*]] = arith.mulf %[[V]], %[[TWO]] : tensor<32x64xbf16>
// CHECK:         %[[DST:.*]] = blk.splat %{{.*}} : !blk.ptr<bf16> -> tensor<32x64x!blk.ptr<bf16>>
// CHECK:         %[[DP:.*]] = blk.addptr %[[DST]], %[[OFFS]] : tensor<32x64x!blk.ptr<bf16>>, tensor<32x64xi32>
// CHECK:         blk.store %[[DP]], %[[W]], %[[MASK]] : tensor<32x64x!blk.ptr<bf16>>

// Canonicalization turns the splat of the constant 2 into a dense constant
// that feeds the multiply, and keeps the real broadcasts.
// CANON-LABEL: func.func @tile_copy
// CANON:         %[[TWO:.*]] = arith.constant dense<2.000000e+00> : tensor<32x64xbf16>
// CANON-NOT:     blk.splat %{{.*}} : bf16
// CANON-DAG:     blk.broadcast %{{.*}} : tensor<32x1xi32> -> tensor<32x64xi32>
// CANON-DAG:     blk.broadcast %{{.*}} : tensor<1x64xi32> -> tensor<32x64xi32>
// CANON:         %[[V:.*]] = blk.load
// CANON-NEXT:    arith.mulf %[[V]], %[[TWO]] : tensor<32x64xbf16>
// CANON:         blk.store

func.func @tile_copy(%src: !blk.ptr<bf16>, %dst: !blk.ptr<bf16>, %stride: i32, %m: i32, %n: i32) {
  %rows = blk.make_range 0 to 32 : tensor<32xi32>
  %cols = blk.make_range 0 to 64 : tensor<64xi32>
  %r2 = blk.expand_dims %rows axis = 1 : tensor<32xi32> -> tensor<32x1xi32>
  %c2 = blk.expand_dims %cols axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %strides = blk.splat %stride : i32 -> tensor<32x1xi32>
  %roff = arith.muli %r2, %strides : tensor<32x1xi32>
  %roffb = blk.broadcast %roff : tensor<32x1xi32> -> tensor<32x64xi32>
  %coffb = blk.broadcast %c2 : tensor<1x64xi32> -> tensor<32x64xi32>
  %offs = arith.addi %roffb, %coffb : tensor<32x64xi32>
  %ms = blk.splat %m : i32 -> tensor<32x1xi32>
  %ns = blk.splat %n : i32 -> tensor<1x64xi32>
  %rm = arith.cmpi slt, %r2, %ms : tensor<32x1xi32>
  %cm = arith.cmpi slt, %c2, %ns : tensor<1x64xi32>
  %rmb = blk.broadcast %rm : tensor<32x1xi1> -> tensor<32x64xi1>
  %cmb = blk.broadcast %cm : tensor<1x64xi1> -> tensor<32x64xi1>
  %mask = arith.andi %rmb, %cmb : tensor<32x64xi1>
  %srcs = blk.splat %src : !blk.ptr<bf16> -> tensor<32x64x!blk.ptr<bf16>>
  %sp = blk.addptr %srcs, %offs : tensor<32x64x!blk.ptr<bf16>>, tensor<32x64xi32>
  %zero = arith.constant dense<0.0> : tensor<32x64xbf16>
  %v = blk.load %sp, %mask, %zero : tensor<32x64x!blk.ptr<bf16>>
  %c2f = arith.constant 2.0 : bf16
  %two = blk.splat %c2f : bf16 -> tensor<32x64xbf16>
  %w = arith.mulf %v, %two : tensor<32x64xbf16>
  %dsts = blk.splat %dst : !blk.ptr<bf16> -> tensor<32x64x!blk.ptr<bf16>>
  %dp = blk.addptr %dsts, %offs : tensor<32x64x!blk.ptr<bf16>>, tensor<32x64xi32>
  blk.store %dp, %w, %mask : tensor<32x64x!blk.ptr<bf16>>
  return
}
