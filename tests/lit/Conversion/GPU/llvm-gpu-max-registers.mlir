// RUN: blockjit-opt %s --blk-assign-layouts="num-warps=4" --convert-blk-to-nvvm \
// RUN:   --convert-blk-to-llvm-gpu="max-registers=128" | FileCheck %s --check-prefix=CAP
// RUN: blockjit-opt %s --blk-assign-layouts="num-warps=4" --convert-blk-to-nvvm \
// RUN:   --convert-blk-to-llvm-gpu | FileCheck %s --check-prefix=NOCAP
// RUN: not blockjit-opt %s --blk-assign-layouts="num-warps=4" --convert-blk-to-nvvm \
// RUN:   --convert-blk-to-llvm-gpu="max-registers=256" 2>&1 | FileCheck %s --check-prefix=BAD

// A register cap (CompileOptions::maxRegisters, the tuner's maxnreg=)
// becomes nvvm.maxnreg on each kernel beside nvvm.maxntid (PTX's .maxnreg,
// which ptxas obeys by spilling); without one the kernel carries none; a
// cap outside 24..255 is an error naming the range.

// CAP-LABEL: llvm.func @kern
// CAP-SAME:    attributes {nvvm.kernel, nvvm.maxnreg = 128 : i32, nvvm.maxntid = array<i32: 128, 1, 1>}
// NOCAP-LABEL: llvm.func @kern
// NOCAP-NOT:   nvvm.maxnreg
// NOCAP-SAME:  attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>}
// BAD: error: max_registers must be 0 (no cap) or in 24..255, got 256
func.func @kern(%x: !blk.ptr<f32>, %n: i32) {
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  %b = blk.splat %x : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  %v = blk.load %p : tensor<1024x!blk.ptr<f32>>
  %w = arith.addf %v, %v : tensor<1024xf32>
  blk.store %p, %w : tensor<1024x!blk.ptr<f32>>
  return
}
