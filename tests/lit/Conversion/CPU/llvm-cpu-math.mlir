// RUN: blockjit-opt %s --convert-blk-to-loops --convert-blk-to-llvm-cpu \
// RUN:   | FileCheck %s --implicit-check-not=llvm.intr.exp --implicit-check-not=@expf

// math.exp is expanded into a polynomial (range reduction with floor, a
// chain of fma, reconstruction of 2^k by shifting into the exponent bits)
// that the host compiler can vectorize, instead of llvm.intr.exp or a libm
// call. f16 is widened to f32 around the approximation. A NaN input gives
// the input itself: the approximation alone would convert NaN to an integer
// (fptosi), which is poison in LLVM IR.

// CHECK-LABEL: llvm.func internal @exp_scalar
// CHECK:         %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK:         llvm.fcmp "uge" %[[X]], %{{.*}} : f32
// CHECK:         llvm.intr.floor(%{{.*}}) : (f32) -> f32
// CHECK-COUNT-7: llvm.intr.fma(%{{.*}}, %{{.*}}, %{{.*}}) : (f32, f32, f32) -> f32
// CHECK:         %[[K:.*]] = llvm.fptosi %{{.*}} : f32 to i32
// CHECK:         %[[BITS:.*]] = llvm.shl %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    %[[POW2:.*]] = llvm.bitcast %[[BITS]] : i32 to f32
// CHECK-NEXT:    %[[E:.*]] = llvm.fmul %{{.*}}, %[[POW2]] : f32
// CHECK-NEXT:    %[[NAN:.*]] = llvm.fcmp "uno" %[[X]], %[[X]] : f32
// CHECK-NEXT:    %[[R:.*]] = llvm.select %[[NAN]], %[[X]], %[[E]] : i1, f32
// CHECK-NEXT:    llvm.store %[[R]], %{{.*}} : f32, !llvm.ptr
func.func @exp_scalar(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %x = blk.load %in : !blk.ptr<f32>
  %e = math.exp %x : f32
  blk.store %out, %e : !blk.ptr<f32>
  return
}

// CHECK-LABEL: llvm.func internal @exp_f16_block
// CHECK:         %[[X:.*]] = llvm.fpext %{{.*}} : f16 to f32
// CHECK-NEXT:    llvm.fcmp "uge" %[[X]], %{{.*}} : f32
// CHECK:         llvm.intr.floor
// CHECK:         llvm.intr.fma
// CHECK:         %[[POW2:.*]] = llvm.bitcast %{{.*}} : i32 to f32
// CHECK-NEXT:    %[[E:.*]] = llvm.fmul %{{.*}}, %[[POW2]] : f32
// CHECK-NEXT:    %[[EH:.*]] = llvm.fptrunc %[[E]] : f32 to f16
// CHECK-NEXT:    %[[NAN:.*]] = llvm.fcmp "uno" %[[XH:.*]], %[[XH]] : f16
// CHECK-NEXT:    %[[R:.*]] = llvm.select %[[NAN]], %[[XH]], %[[EH]] : i1, f16
// CHECK-NEXT:    llvm.store %[[R]], %{{.*}} : f16, !llvm.ptr
func.func @exp_f16_block(%in: !blk.ptr<f16>, %out: !blk.ptr<f16>) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %base = blk.splat %in : !blk.ptr<f16> -> tensor<16x!blk.ptr<f16>>
  %p = blk.addptr %base, %r : tensor<16x!blk.ptr<f16>>, tensor<16xi32>
  %x = blk.load %p : tensor<16x!blk.ptr<f16>>
  %e = math.exp %x : tensor<16xf16>
  %ob = blk.splat %out : !blk.ptr<f16> -> tensor<16x!blk.ptr<f16>>
  %op = blk.addptr %ob, %r : tensor<16x!blk.ptr<f16>>, tensor<16xi32>
  blk.store %op, %e : tensor<16x!blk.ptr<f16>>
  return
}
