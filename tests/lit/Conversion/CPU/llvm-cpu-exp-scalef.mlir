// RUN: blockjit-opt %s --convert-blk-to-loops '--convert-blk-to-llvm-cpu=scalef=true' \
// RUN:   | FileCheck %s --check-prefix=SCALEF --implicit-check-not=llvm.intr.exp
// RUN: blockjit-opt %s --convert-blk-to-loops --convert-blk-to-llvm-cpu \
// RUN:   | FileCheck %s --check-prefix=SHIFT --implicit-check-not=llvm.intr.exp2

// f32 exp and exp2 on the host (compiler/MathLowering.cpp, HostExpF32):
// the input clamped (e^-104 and 2^-151 are 0, e^89 and 2^129 inf), k by
// roundeven, r by Cody-Waite (two fma) for exp and (x - k) ln 2 for exp2,
// e^r = 1 + r + r^2 P(r) with P of degree 5, then the scale by 2^k:
// - scalef=true (the CPU backend's choice on an AVX-512 host): llvm.ldexp,
//   one vscalefps, with a plain fptosi (k is small: no saturating selects);
// - otherwise exp2 scales in two exact steps through the exponent bits, and
//   exp keeps MLIR's approximation (floor, the bits shifted once).
// A NaN input gives the input (the guard's select).

// SCALEF-LABEL: llvm.func internal @exp_scalar
// SCALEF:         %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// SCALEF-NEXT:    llvm.fcmp "olt" %[[X]], %{{.*}} : f32
// SCALEF-NEXT:    llvm.select
// SCALEF-NEXT:    llvm.fcmp "ogt"
// SCALEF-NEXT:    %[[C:.*]] = llvm.select
// SCALEF-NEXT:    %[[T:.*]] = llvm.fmul %[[C]], %{{.*}} : f32
// SCALEF-NEXT:    %[[K:.*]] = llvm.intr.roundeven(%[[T]]) : (f32) -> f32
// SCALEF-NEXT:    llvm.intr.fma(%[[K]], %{{.*}}, %[[C]])
// SCALEF-NEXT:    llvm.intr.fma(%[[K]]
// SCALEF-COUNT-5: llvm.intr.fma
// SCALEF-NEXT:    llvm.fmul
// SCALEF-NEXT:    llvm.intr.fma
// SCALEF-NEXT:    %[[ER:.*]] = llvm.fadd
// SCALEF-NEXT:    %[[KI:.*]] = llvm.fptosi %[[K]] : f32 to i32
// SCALEF-NEXT:    %[[E:.*]] = llvm.intr.ldexp(%[[ER]], %[[KI]]) : (f32, i32) -> f32
// SCALEF-NEXT:    %[[NAN:.*]] = llvm.fcmp "uno" %[[X]], %[[X]] : f32
// SCALEF-NEXT:    %[[R:.*]] = llvm.select %[[NAN]], %[[X]], %[[E]] : i1, f32
// SCALEF-NEXT:    llvm.store %[[R]]

// SHIFT-LABEL: llvm.func internal @exp_scalar
// SHIFT:         llvm.intr.floor
// SHIFT-NOT:     llvm.intr.ldexp
// SHIFT:         llvm.return
func.func @exp_scalar(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %x = blk.load %in : !blk.ptr<f32>
  %e = math.exp %x : f32
  blk.store %out, %e : !blk.ptr<f32>
  return
}

// SCALEF-LABEL: llvm.func internal @exp2_block
// SCALEF:         %[[K:.*]] = llvm.intr.roundeven(%[[C:.*]]) : (f32) -> f32
// SCALEF-NEXT:    %[[D:.*]] = llvm.fsub %[[C]], %[[K]] : f32
// SCALEF-NEXT:    llvm.fmul %[[D]], %{{.*}} : f32
// SCALEF:         %[[KI:.*]] = llvm.fptosi %[[K]] : f32 to i32
// SCALEF-NEXT:    llvm.intr.ldexp(%{{.*}}, %[[KI]]) : (f32, i32) -> f32

// SHIFT-LABEL: llvm.func internal @exp2_block
// SHIFT:         %[[KI:.*]] = llvm.fptosi %{{.*}} : f32 to i32
// SHIFT-NEXT:    %[[HALF:.*]] = llvm.ashr %[[KI]], %{{.*}} : i32
// SHIFT-NEXT:    %[[REST:.*]] = llvm.sub %[[KI]], %[[HALF]] : i32
// SHIFT:         llvm.bitcast %{{.*}} : i32 to f32
// SHIFT:         llvm.bitcast %{{.*}} : i32 to f32
// SHIFT-NEXT:    llvm.fmul
// SHIFT-NEXT:    llvm.fmul
// SHIFT-NOT:     llvm.intr.ldexp
// SHIFT:         llvm.return
func.func @exp2_block(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  %x = blk.load %p : tensor<16x!blk.ptr<f32>>
  %e = math.exp2 %x : tensor<16xf32>
  %o = blk.splat %out : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %q = blk.addptr %o, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  blk.store %q, %e : tensor<16x!blk.ptr<f32>>
  return
}
