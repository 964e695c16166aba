// RUN: blockjit-opt %s --split-input-file --convert-blk-to-loops \
// RUN:   --convert-blk-to-llvm-cpu | FileCheck %s \
// RUN:   --implicit-check-not=llvm.intr.sin --implicit-check-not=llvm.intr.cos \
// RUN:   --implicit-check-not=llvm.intr.log --implicit-check-not=llvm.intr.tanh \
// RUN:   --implicit-check-not=llvm.intr.pow --implicit-check-not=@powf \
// RUN:   --implicit-check-not=@sinf --implicit-check-not=@cosf \
// RUN:   --implicit-check-not=@erff --implicit-check-not=@tanhf

// The math functions of the DSL (issue 12) on the host, scalars and block
// elements alike (compiler/MathLowering.cpp): sin, cos, erf, tanh, log2 as
// MLIR's polynomial approximations (vectorizable, the same polynomials as on
// the GPU, NaN-safe), floor, ceil and fma as LLVM intrinsics, and pow as
// exp2(y * log2|x|) with C's special cases like on the GPU (trunc tests for
// integral exponents) instead of calling libm's powf.

// CHECK-LABEL: llvm.func internal @sin_scalar
// CHECK:         llvm.intr.fma
// CHECK:         llvm.fcmp "uno"
func.func @sin_scalar(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %x = blk.load %in : !blk.ptr<f32>
  %y = math.sin %x : f32
  blk.store %out, %y : !blk.ptr<f32>
  return
}

// -----

// CHECK-LABEL: llvm.func internal @sin_block
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

// CHECK-LABEL: llvm.func internal @cos_scalar
// CHECK:         llvm.intr.fma
// CHECK:         llvm.fcmp "uno"
func.func @cos_scalar(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %x = blk.load %in : !blk.ptr<f32>
  %y = math.cos %x : f32
  blk.store %out, %y : !blk.ptr<f32>
  return
}

// -----

// CHECK-LABEL: llvm.func internal @cos_block
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

// CHECK-LABEL: llvm.func internal @erf_scalar
// CHECK:         llvm.intr.fma
// CHECK:         llvm.fcmp "uno"
func.func @erf_scalar(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %x = blk.load %in : !blk.ptr<f32>
  %y = math.erf %x : f32
  blk.store %out, %y : !blk.ptr<f32>
  return
}

// -----

// CHECK-LABEL: llvm.func internal @erf_block
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

// CHECK-LABEL: llvm.func internal @tanh_scalar
// CHECK:         llvm.intr.fma
func.func @tanh_scalar(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %x = blk.load %in : !blk.ptr<f32>
  %y = math.tanh %x : f32
  blk.store %out, %y : !blk.ptr<f32>
  return
}

// -----

// CHECK-LABEL: llvm.func internal @tanh_block
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

// CHECK-LABEL: llvm.func internal @log2_scalar
// CHECK:         llvm.intr.fma
// CHECK:         llvm.fcmp "uno"
func.func @log2_scalar(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %x = blk.load %in : !blk.ptr<f32>
  %y = math.log2 %x : f32
  blk.store %out, %y : !blk.ptr<f32>
  return
}

// -----

// CHECK-LABEL: llvm.func internal @log2_block
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

// CHECK-LABEL: llvm.func internal @floor_scalar
// CHECK:         llvm.intr.floor
func.func @floor_scalar(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %x = blk.load %in : !blk.ptr<f32>
  %y = math.floor %x : f32
  blk.store %out, %y : !blk.ptr<f32>
  return
}

// -----

// CHECK-LABEL: llvm.func internal @floor_block
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

// CHECK-LABEL: llvm.func internal @ceil_scalar
// CHECK:         llvm.intr.ceil
func.func @ceil_scalar(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %x = blk.load %in : !blk.ptr<f32>
  %y = math.ceil %x : f32
  blk.store %out, %y : !blk.ptr<f32>
  return
}

// -----

// CHECK-LABEL: llvm.func internal @ceil_block
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

// CHECK-LABEL: llvm.func internal @fma_scalar
// CHECK:         llvm.intr.fma(%[[X:.*]], %[[X]], %[[X]])
func.func @fma_scalar(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %x = blk.load %in : !blk.ptr<f32>
  %y = math.fma %x, %x, %x : f32
  blk.store %out, %y : !blk.ptr<f32>
  return
}

// -----

// CHECK-LABEL: llvm.func internal @fma_block
// CHECK:         llvm.intr.fma(%{{.*}}, %{{.*}}, %{{.*}}) : (f32, f32, f32) -> f32
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

// CHECK-LABEL: llvm.func internal @pow_scalar
// CHECK:         llvm.intr.roundeven
// CHECK:         llvm.intr.trunc
// CHECK:         llvm.fcmp "uno"
func.func @pow_scalar(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %x = blk.load %in : !blk.ptr<f32>
  %y = math.powf %x, %x : f32
  blk.store %out, %y : !blk.ptr<f32>
  return
}

// -----

// CHECK-LABEL: llvm.func internal @pow_block
// CHECK:         llvm.intr.roundeven
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
