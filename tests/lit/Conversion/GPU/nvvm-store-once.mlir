// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" \
// RUN:   --convert-blk-to-nvvm | FileCheck %s

// Every element is stored once, by its owner. A 16-element block over 128
// threads is held by 8 threads per element; only the thread whose raw index
// (tid) is below 16 stores, so an in-place `store(p, load(p) + 1)` cannot
// store twice (a slower warp would otherwise reload the stored value).
// CHECK-LABEL: func.func @replicated_block
// CHECK:         %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x range <i32, 0, {{[0-9]+}}> : i32
// CHECK:         %[[SIXTEEN:.*]] = arith.constant 16 : i32
// CHECK:         %[[OWNER:.*]] = arith.cmpi slt, %{{.*}}, %[[SIXTEEN]] : i32
// CHECK-NEXT:    scf.if %[[OWNER]] {
// CHECK-NEXT:      blk.store %{{.*}}, %{{.*}} : !blk.ptr<f32>
// CHECK-NEXT:    }
func.func @replicated_block(%p: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %b = blk.splat %p : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %ptrs = blk.addptr %b, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  %x = blk.load %ptrs : tensor<16x!blk.ptr<f32>>
  %one = arith.constant dense<1.0> : tensor<16xf32>
  %y = arith.addf %x, %one : tensor<16xf32>
  blk.store %ptrs, %y : tensor<16x!blk.ptr<f32>>
  return
}

// -----

// A masked replicated store: the owner test and the mask together.
// CHECK-LABEL: func.func @replicated_masked
// CHECK:         %[[MASK:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK:         %[[SIZE:.*]] = arith.constant 32 : i32
// CHECK:         %[[OWNER:.*]] = arith.cmpi slt, %{{.*}}, %[[SIZE]] : i32
// CHECK-NEXT:    %[[BOTH:.*]] = arith.andi %[[MASK]], %[[OWNER]] : i1
// CHECK-NEXT:    scf.if %[[BOTH]] {
// CHECK-NEXT:      blk.store
func.func @replicated_masked(%p: !blk.ptr<i32>, %n: i32) {
  %r = blk.make_range 0 to 32 : tensor<32xi32>
  %b = blk.splat %p : !blk.ptr<i32> -> tensor<32x!blk.ptr<i32>>
  %ptrs = blk.addptr %b, %r : tensor<32x!blk.ptr<i32>>, tensor<32xi32>
  %nb = blk.splat %n : i32 -> tensor<32xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<32xi32>
  blk.store %ptrs, %r, %m : tensor<32x!blk.ptr<i32>>
  return
}

// -----

// A block as large as the threads has no replicas: no owner test.
// CHECK-LABEL: func.func @not_replicated
// CHECK-NOT:     scf.if
// CHECK:         blk.store %{{.*}}, %{{.*}} : !blk.ptr<f32>
// CHECK-NOT:     scf.if
// CHECK:         return
func.func @not_replicated(%p: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %p : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %ptrs = blk.addptr %b, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  %v = arith.sitofp %r : tensor<128xi32> to tensor<128xf32>
  blk.store %ptrs, %v : tensor<128x!blk.ptr<f32>>
  return
}

// -----

// A store to a scalar pointer: every thread computes the value, thread 0
// stores it, under the mask when there is one.
// CHECK-LABEL: func.func @scalar_masked
// CHECK-SAME:    (%[[P:[^:]*]]: !blk.ptr<f32>, %[[V:[^:]*]]: f32, %[[M:[^:]*]]: i1)
// CHECK-NEXT:    %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x range <i32, 0, {{[0-9]+}}> : i32
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %[[ZERO]] : i32
// CHECK-NEXT:    %[[BOTH:.*]] = arith.andi %[[M]], %[[FIRST]] : i1
// CHECK-NEXT:    scf.if %[[BOTH]] {
// CHECK-NEXT:      blk.store %[[P]], %[[V]] : !blk.ptr<f32>
// CHECK-NEXT:    }
func.func @scalar_masked(%p: !blk.ptr<f32>, %v: f32, %m: i1) {
  blk.store %p, %v, %m : !blk.ptr<f32>
  return
}
