// RUN: blockjit-opt %s --split-input-file --blockjit-gpu-pipeline | FileCheck %s \
// RUN:   --implicit-check-not=llvm.intr.sin --implicit-check-not=llvm.intr.cos \
// RUN:   --implicit-check-not=llvm.intr.log --implicit-check-not=llvm.intr.tanh \
// RUN:   --implicit-check-not=llvm.intr.pow --implicit-check-not=llvm.call \
// RUN:   '--implicit-check-not=llvm.intr.exp('

// The math functions of the DSL (issue 12) lower for NVPTX the same way on
// scalars and on block elements (compiler/MathLowering.cpp): sin, cos, erf,
// tanh and log2 as MLIR's polynomial approximations (chains of fma; NaN in
// gives NaN out, through the "uno" select where the approximation alone
// would give poison), floor, ceil and fma as instructions (cvt.rmi, cvt.rpi,
// fma.rn), pow as exp2(y * log2|x|) (ex2.approx) with C's special cases (trunc tests
// for integral exponents; NaN selected where no rule gives a number). Nothing is left
// that NVPTX cannot select, and nothing calls a library.

// CHECK-LABEL: llvm.func @sin_scalar
// CHECK:         llvm.intr.fma
// CHECK:         llvm.fcmp "uno"
func.func @sin_scalar(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %x = blk.load %in : !blk.ptr<f32>
  %y = math.sin %x : f32
  blk.store %out, %y : !blk.ptr<f32>
  return
}

// -----

// CHECK-LABEL: llvm.func @sin_block
// CHECK:         llvm.intr.fma
// CHECK:         llvm.fcmp "uno"
func.func @sin_block(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<f32>>
  %y = math.sin %x : tensor<128xf32>
  %o = blk.splat %out : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %q = blk.addptr %o, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  blk.store %q, %y : tensor<128x!blk.ptr<f32>>
  return
}

// -----

// CHECK-LABEL: llvm.func @cos_scalar
// CHECK:         llvm.intr.fma
// CHECK:         llvm.fcmp "uno"
func.func @cos_scalar(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %x = blk.load %in : !blk.ptr<f32>
  %y = math.cos %x : f32
  blk.store %out, %y : !blk.ptr<f32>
  return
}

// -----

// CHECK-LABEL: llvm.func @cos_block
// CHECK:         llvm.intr.fma
// CHECK:         llvm.fcmp "uno"
func.func @cos_block(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<f32>>
  %y = math.cos %x : tensor<128xf32>
  %o = blk.splat %out : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %q = blk.addptr %o, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  blk.store %q, %y : tensor<128x!blk.ptr<f32>>
  return
}

// -----

// CHECK-LABEL: llvm.func @erf_scalar
// CHECK:         llvm.intr.fma
// CHECK:         llvm.fcmp "uno"
func.func @erf_scalar(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %x = blk.load %in : !blk.ptr<f32>
  %y = math.erf %x : f32
  blk.store %out, %y : !blk.ptr<f32>
  return
}

// -----

// CHECK-LABEL: llvm.func @erf_block
// CHECK:         llvm.intr.fma
// CHECK:         llvm.fcmp "uno"
func.func @erf_block(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<f32>>
  %y = math.erf %x : tensor<128xf32>
  %o = blk.splat %out : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %q = blk.addptr %o, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  blk.store %q, %y : tensor<128x!blk.ptr<f32>>
  return
}

// -----

// CHECK-LABEL: llvm.func @tanh_scalar
// CHECK:         llvm.intr.fma
func.func @tanh_scalar(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %x = blk.load %in : !blk.ptr<f32>
  %y = math.tanh %x : f32
  blk.store %out, %y : !blk.ptr<f32>
  return
}

// -----

// CHECK-LABEL: llvm.func @tanh_block
// CHECK:         llvm.intr.fma
func.func @tanh_block(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<f32>>
  %y = math.tanh %x : tensor<128xf32>
  %o = blk.splat %out : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %q = blk.addptr %o, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  blk.store %q, %y : tensor<128x!blk.ptr<f32>>
  return
}

// -----

// CHECK-LABEL: llvm.func @log2_scalar
// CHECK:         llvm.intr.fma
// CHECK:         llvm.fcmp "uno"
func.func @log2_scalar(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %x = blk.load %in : !blk.ptr<f32>
  %y = math.log2 %x : f32
  blk.store %out, %y : !blk.ptr<f32>
  return
}

// -----

// CHECK-LABEL: llvm.func @log2_block
// CHECK:         llvm.intr.fma
// CHECK:         llvm.fcmp "uno"
func.func @log2_block(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<f32>>
  %y = math.log2 %x : tensor<128xf32>
  %o = blk.splat %out : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %q = blk.addptr %o, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  blk.store %q, %y : tensor<128x!blk.ptr<f32>>
  return
}

// -----

// CHECK-LABEL: llvm.func @floor_scalar
// CHECK:         llvm.intr.floor
func.func @floor_scalar(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %x = blk.load %in : !blk.ptr<f32>
  %y = math.floor %x : f32
  blk.store %out, %y : !blk.ptr<f32>
  return
}

// -----

// CHECK-LABEL: llvm.func @floor_block
// CHECK:         llvm.intr.floor
func.func @floor_block(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<f32>>
  %y = math.floor %x : tensor<128xf32>
  %o = blk.splat %out : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %q = blk.addptr %o, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  blk.store %q, %y : tensor<128x!blk.ptr<f32>>
  return
}

// -----

// CHECK-LABEL: llvm.func @ceil_scalar
// CHECK:         llvm.intr.ceil
func.func @ceil_scalar(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %x = blk.load %in : !blk.ptr<f32>
  %y = math.ceil %x : f32
  blk.store %out, %y : !blk.ptr<f32>
  return
}

// -----

// CHECK-LABEL: llvm.func @ceil_block
// CHECK:         llvm.intr.ceil
func.func @ceil_block(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<f32>>
  %y = math.ceil %x : tensor<128xf32>
  %o = blk.splat %out : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %q = blk.addptr %o, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  blk.store %q, %y : tensor<128x!blk.ptr<f32>>
  return
}

// -----

// CHECK-LABEL: llvm.func @fma_scalar
// CHECK:         llvm.intr.fma(%[[X:.*]], %[[X]], %[[X]])
func.func @fma_scalar(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %x = blk.load %in : !blk.ptr<f32>
  %y = math.fma %x, %x, %x : f32
  blk.store %out, %y : !blk.ptr<f32>
  return
}

// -----

// CHECK-LABEL: llvm.func @fma_block
// CHECK:         llvm.intr.fma(%[[X:.*]], %[[X]], %[[X]])
func.func @fma_block(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<f32>>
  %y = math.fma %x, %x, %x : tensor<128xf32>
  %o = blk.splat %out : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %q = blk.addptr %o, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  blk.store %q, %y : tensor<128x!blk.ptr<f32>>
  return
}

// -----

// CHECK-LABEL: llvm.func @pow_scalar
// CHECK:         llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK:         llvm.intr.trunc
// CHECK:         llvm.fcmp "uno"
func.func @pow_scalar(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %x = blk.load %in : !blk.ptr<f32>
  %y = math.powf %x, %x : f32
  blk.store %out, %y : !blk.ptr<f32>
  return
}

// -----

// CHECK-LABEL: llvm.func @pow_block
// CHECK:         llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK:         llvm.intr.trunc
// CHECK:         llvm.fcmp "uno"
func.func @pow_block(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<f32>>
  %y = math.powf %x, %x : tensor<128xf32>
  %o = blk.splat %out : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %q = blk.addptr %o, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  blk.store %q, %y : tensor<128x!blk.ptr<f32>>
  return
}
