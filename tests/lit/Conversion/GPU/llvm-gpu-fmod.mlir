// RUN: blockjit-opt %s --blockjit-gpu-pipeline --split-input-file | FileCheck %s

// Float % on the GPU is an exact fmod (compiler/MathLowering.cpp): NVPTX's
// frem is x - trunc(x / y) * y, wrong once x / y passes 2^24 (found on the
// H100 by tests/differential, ew_rem_f32_f32_f32). The mantissas are
// divided long-hand in i64 steps of 64 - 24 = 40 bits (f32) or 11 bits
// (f64) in a loop, then renormalized with ctlz.

// CHECK-LABEL: llvm.func @rem_f32
// CHECK-NOT:     llvm.frem
// CHECK:         %[[STEP:.*]] = llvm.mlir.constant(40 : i64)
// CHECK:         llvm.bitcast %{{.*}} : f32 to i32
// CHECK:         llvm.urem %{{.*}} : i64
// CHECK:         llvm.cond_br
// CHECK:         llvm.intr.umin(%{{.*}}, %[[STEP]])
// CHECK:         llvm.urem %{{.*}} : i64
// CHECK:         "llvm.intr.ctlz"(%{{.*}}) <{is_zero_poison = false}> : (i64) -> i64
// CHECK-NOT:     llvm.frem
// CHECK:         llvm.store
func.func @rem_f32(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %x = blk.load %in : !blk.ptr<f32>
  %y = blk.load %out : !blk.ptr<f32>
  %r = arith.remf %x, %y : f32
  blk.store %out, %r : !blk.ptr<f32>
  return
}

// -----

// f64 steps by 11 bits; f16 computes in f32, where its fmod is exact.
// CHECK-LABEL: llvm.func @rem_f64_f16
// CHECK-NOT:     llvm.frem
// CHECK:         llvm.mlir.constant(11 : i64)
// CHECK:         llvm.fpext %{{.*}} : f16 to f32
// CHECK:         llvm.fptrunc %{{.*}} : f32 to f16
// CHECK-NOT:     llvm.frem
func.func @rem_f64_f16(%a: !blk.ptr<f64>, %h: !blk.ptr<f16>) {
  %x = blk.load %a : !blk.ptr<f64>
  %r = arith.remf %x, %x : f64
  blk.store %a, %r : !blk.ptr<f64>
  %y = blk.load %h : !blk.ptr<f16>
  %s = arith.remf %y, %y : f16
  blk.store %h, %s : !blk.ptr<f16>
  return
}
