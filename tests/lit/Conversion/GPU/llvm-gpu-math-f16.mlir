// RUN: blockjit-opt %s --blockjit-gpu-pipeline | FileCheck %s

// exp and pow of f16 compute in f32 on the GPU (compiler/MathLowering.cpp):
// x * log2(e) and y * log2|x| rounded to f16 would be off by up to 0.5%
// after exp2. Only the result is rounded back to f16.

// CHECK-LABEL: llvm.func @exp_pow_f16
// CHECK:         %[[X:.*]] = llvm.fpext %{{.*}} : f16 to f32
// CHECK-NEXT:    %[[S:.*]] = llvm.fmul %[[X]], %{{.*}} : f32
// CHECK-NEXT:    %[[E:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[S]]) : (f32) -> f32
// CHECK-NEXT:    %[[EH:.*]] = llvm.fptrunc %[[E]] : f32 to f16
// CHECK:         llvm.fpext %[[EH]] : f16 to f32
// CHECK:         llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%{{.*}}) : (f32) -> f32
// CHECK-NOT:     llvm.fmul %{{.*}} : f16
// CHECK:         llvm.fptrunc %{{.*}} : f32 to f16
// CHECK:         llvm.store
func.func @exp_pow_f16(%in: !blk.ptr<f16>, %out: !blk.ptr<f16>) {
  %x = blk.load %in : !blk.ptr<f16>
  %e = math.exp %x : f16
  %p = math.powf %e, %x : f16
  blk.store %out, %p : !blk.ptr<f16>
  return
}
