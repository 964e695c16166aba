// RUN: blockjit-opt %s --blk-assign-layouts="num-warps=1" --convert-blk-to-nvvm \
// RUN:   --convert-blk-to-llvm-gpu | FileCheck %s --check-prefixes=CHECK,W1
// RUN: blockjit-opt %s --blk-assign-layouts="num-warps=2" --convert-blk-to-nvvm \
// RUN:   --convert-blk-to-llvm-gpu | FileCheck %s --check-prefixes=CHECK,W2
// RUN: blockjit-opt %s --blk-assign-layouts="num-warps=4" --convert-blk-to-nvvm \
// RUN:   --convert-blk-to-llvm-gpu | FileCheck %s --check-prefixes=CHECK,W4
// RUN: blockjit-opt %s --blk-assign-layouts="num-warps=8" --convert-blk-to-nvvm \
// RUN:   --convert-blk-to-llvm-gpu | FileCheck %s --check-prefixes=CHECK,W8
// RUN: blockjit-opt %s --blk-assign-layouts="num-warps=32" --convert-blk-to-nvvm \
// RUN:   --convert-blk-to-llvm-gpu | FileCheck %s --check-prefixes=CHECK,W32
// No generic (address space 0) pointer anywhere:
// RUN: blockjit-opt %s --blk-assign-layouts="num-warps=4" --convert-blk-to-nvvm \
// RUN:   --convert-blk-to-llvm-gpu | not grep -E '!llvm\.ptr([^<]|$)'

// Every kernel (a func.func with a body) becomes an llvm.func marked
// nvvm.kernel, with nvvm.maxntid = 32 * num_warps threads in x (so ptxas
// can budget registers for exactly that block size). !blk.ptr parameters
// are global-memory pointers (!llvm.ptr<1>), scalars keep their types, and
// the parameter order is unchanged. An external declaration is not a kernel.

// CHECK:       llvm.func @helper(i32) -> i32
// CHECK-NOT:     nvvm.kernel
// CHECK-SAME:    {{$}}
// CHECK-LABEL: llvm.func @kern
// CHECK-SAME:    (%{{[^:]*}}: !llvm.ptr<1> {blk.divisibility = 16 : i32}, %{{[^:]*}}: !llvm.ptr<1>, %{{[^:]*}}: i32, %{{[^:]*}}: f32)
// W1-SAME:       attributes {nvvm.kernel, nvvm.maxntid = array<i32: 32, 1, 1>}
// W2-SAME:       attributes {nvvm.kernel, nvvm.maxntid = array<i32: 64, 1, 1>}
// W4-SAME:       attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>}
// W8-SAME:       attributes {nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>}
// W32-SAME:      attributes {nvvm.kernel, nvvm.maxntid = array<i32: 1024, 1, 1>}
// Pointer arithmetic stays in the global address space.
// CHECK:         llvm.getelementptr inbounds %{{.*}} : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f16
// CHECK:         llvm.getelementptr inbounds %{{.*}} : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
// CHECK:         llvm.return
func.func private @helper(i32) -> i32

func.func @kern(%x: !blk.ptr<f16> {blk.divisibility = 16 : i32}, %y: !blk.ptr<f32>,
                %n: i32, %s: f32) {
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  %b = blk.splat %x : !blk.ptr<f16> -> tensor<1024x!blk.ptr<f16>>
  %p = blk.addptr %b, %r : tensor<1024x!blk.ptr<f16>>, tensor<1024xi32>
  %nb = blk.splat %n : i32 -> tensor<1024xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<1024xi32>
  %v = blk.load %p, %m : tensor<1024x!blk.ptr<f16>>
  %w = arith.extf %v : tensor<1024xf16> to tensor<1024xf32>
  %sb = blk.splat %s : f32 -> tensor<1024xf32>
  %z = arith.mulf %w, %sb : tensor<1024xf32>
  %yb = blk.splat %y : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %q = blk.addptr %yb, %r : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  blk.store %q, %z, %m : tensor<1024x!blk.ptr<f32>>
  return
}
