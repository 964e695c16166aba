// RUN: blockjit-opt %s | blockjit-opt | FileCheck %s
// RUN: blockjit-opt %s --mlir-print-op-generic | blockjit-opt | FileCheck %s

// z[i] = x[i] + y[i] for a block of 256 elements per program, masked at n.

// CHECK-LABEL: func.func @vector_add
// CHECK-SAME:    (%[[X:[^:]*]]: !blk.ptr<f16>, %[[Y:[^:]*]]: !blk.ptr<f16>, %[[Z:[^:]*]]: !blk.ptr<f16>, %[[N:[^:]*]]: i32)
// CHECK:         %[[PID:.*]] = blk.program_id 0 : i32
// CHECK:         %[[START:.*]] = arith.muli %[[PID]], %{{.*}} : i32
// CHECK:         %[[R:.*]] = blk.make_range 0 to 256 : tensor<256xi32>
// CHECK:         %[[STARTS:.*]] = blk.splat %[[START]] : i32 -> tensor<256xi32>
// CHECK:         %[[OFFS:.*]] = arith.addi %[[STARTS]], %[[R]] : tensor<256xi32>
// CHECK:         %[[NS:.*]] = blk.splat %[[N]] : i32 -> tensor<256xi32>
// CHECK:         %[[MASK:.*]] = arith.cmpi slt, %[[OFFS]], %[[NS]] : tensor<256xi32>
// CHECK:         %[[XS:.*]] = blk.splat %[[X]] : !blk.ptr<f16> -> tensor<256x!blk.ptr<f16>>
// CHECK:         %[[XP:.*]] = blk.addptr %[[XS]], %[[OFFS]] : tensor<256x!blk.ptr<f16>>, tensor<256xi32>
// CHECK:         %[[XV:.*]] = blk.load %[[XP]], %[[MASK]] : tensor<256x!blk.ptr<f16>>
// CHECK:         %[[YS:.*]] = blk.splat %[[Y]] : !blk.ptr<f16> -> tensor<256x!blk.ptr<f16>>
// CHECK:         %[[YP:.*]] = blk.addptr %[[YS]], %[[OFFS]] : tensor<256x!blk.ptr<f16>>, tensor<256xi32>
// CHECK:         %[[YV:.*]] = blk.load %[[YP]], %[[MASK]] : tensor<256x!blk.ptr<f16>>
// CHECK:         %[[SUM:.*]] = arith.addf %[[XV]], %[[YV]] : tensor<256xf16>
// CHECK:         %[[ZS:.*]] = blk.splat %[[Z]] : !blk.ptr<f16> -> tensor<256x!blk.ptr<f16>>
// CHECK:         %[[ZP:.*]] = blk.addptr %[[ZS]], %[[OFFS]] : tensor<256x!blk.ptr<f16>>, tensor<256xi32>
// CHECK:         blk.store %[[ZP]], %[[SUM]], %[[MASK]] : tensor<256x!blk.ptr<f16>>
// CHECK-NEXT:    return
func.func @vector_add(%x: !blk.ptr<f16>, %y: !blk.ptr<f16>, %z: !blk.ptr<f16>, %n: i32) {
  %block = arith.constant 256 : i32
  %pid = blk.program_id 0 : i32
  %start = arith.muli %pid, %block : i32
  %r = blk.make_range 0 to 256 : tensor<256xi32>
  %starts = blk.splat %start : i32 -> tensor<256xi32>
  %offs = arith.addi %starts, %r : tensor<256xi32>
  %ns = blk.splat %n : i32 -> tensor<256xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<256xi32>
  %xs = blk.splat %x : !blk.ptr<f16> -> tensor<256x!blk.ptr<f16>>
  %xp = blk.addptr %xs, %offs : tensor<256x!blk.ptr<f16>>, tensor<256xi32>
  %xv = blk.load %xp, %mask : tensor<256x!blk.ptr<f16>>
  %ys = blk.splat %y : !blk.ptr<f16> -> tensor<256x!blk.ptr<f16>>
  %yp = blk.addptr %ys, %offs : tensor<256x!blk.ptr<f16>>, tensor<256xi32>
  %yv = blk.load %yp, %mask : tensor<256x!blk.ptr<f16>>
  %sum = arith.addf %xv, %yv : tensor<256xf16>
  %zs = blk.splat %z : !blk.ptr<f16> -> tensor<256x!blk.ptr<f16>>
  %zp = blk.addptr %zs, %offs : tensor<256x!blk.ptr<f16>>, tensor<256xi32>
  blk.store %zp, %sum, %mask : tensor<256x!blk.ptr<f16>>
  return
}
