// Printing is a fixpoint in the custom and the generic form, both forms give
// the same module, and so does a bytecode round trip.
// RUN: blockjit-opt %s -o %t.custom1
// RUN: blockjit-opt %t.custom1 -o %t.custom2
// RUN: diff %t.custom1 %t.custom2
// RUN: blockjit-opt %s --mlir-print-op-generic -o %t.generic1
// RUN: blockjit-opt %t.generic1 --mlir-print-op-generic -o %t.generic2
// RUN: diff %t.generic1 %t.generic2
// RUN: blockjit-opt %t.generic1 | diff %t.custom1 -
// RUN: blockjit-opt %s --emit-bytecode -o %t.mlirbc
// RUN: blockjit-opt %t.mlirbc | diff %t.custom1 -
// RUN: FileCheck %s < %t.custom1

// CHECK-LABEL: func.func @all_ops
// CHECK:         blk.program_id 0 : i32
// CHECK:         blk.num_programs 1 : i32
// CHECK:         blk.make_range 0 to 64 : tensor<64xi32>
// CHECK:         blk.splat %{{.*}} : !blk.ptr<bf16> -> tensor<64x!blk.ptr<bf16>>
// CHECK:         blk.addptr %{{.*}}, %{{.*}} : tensor<64x!blk.ptr<bf16>>, tensor<64xi32>
// CHECK:         blk.load %{{.*}}, %{{.*}}, %{{.*}} {tag} : tensor<64x!blk.ptr<bf16>>
// CHECK:         blk.expand_dims %{{.*}} axis = 1 : tensor<64xbf16> -> tensor<64x1xbf16>
// CHECK:         blk.broadcast %{{.*}} : tensor<64x1xbf16> -> tensor<64x4xbf16>
// CHECK:         blk.reduce min %{{.*}} axis = 1 : tensor<64x4xbf16> -> tensor<64xbf16>
// CHECK:         blk.reduce sum %{{.*}} axis = 0 : tensor<64xbf16> -> bf16
// CHECK:         blk.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x!blk.ptr<bf16>>
// CHECK:         blk.store %{{.*}}, %{{.*}} : !blk.ptr<bf16>
func.func @all_ops(%p: !blk.ptr<bf16>, %n: i32) {
  %pid = blk.program_id 0 : i32
  %np = blk.num_programs 1 : i32
  %r = blk.make_range 0 to 64 : tensor<64xi32>
  %ps = blk.splat %p : !blk.ptr<bf16> -> tensor<64x!blk.ptr<bf16>>
  %ptrs = blk.addptr %ps, %r : tensor<64x!blk.ptr<bf16>>, tensor<64xi32>
  %ns = blk.splat %n : i32 -> tensor<64xi32>
  %mask = arith.cmpi slt, %r, %ns : tensor<64xi32>
  %zero = arith.constant dense<0.0> : tensor<64xbf16>
  %x = blk.load %ptrs, %mask, %zero {tag} : tensor<64x!blk.ptr<bf16>>
  %e = blk.expand_dims %x axis = 1 : tensor<64xbf16> -> tensor<64x1xbf16>
  %b = blk.broadcast %e : tensor<64x1xbf16> -> tensor<64x4xbf16>
  %m = blk.reduce min %b axis = 1 : tensor<64x4xbf16> -> tensor<64xbf16>
  %s = blk.reduce sum %m axis = 0 : tensor<64xbf16> -> bf16
  blk.store %ptrs, %m, %mask : tensor<64x!blk.ptr<bf16>>
  blk.store %p, %s : !blk.ptr<bf16>
  return
}
