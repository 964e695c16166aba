// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" \
// RUN:   --convert-blk-to-nvvm | FileCheck %s

// f16 (and bf16) reductions accumulate in f32: every element is widened
// before it is combined, the shuffles and the shared array are f32, and only
// the final value is truncated back.

// CHECK:       llvm.mlir.global internal @__blk_warp_exchange_{{[A-Za-z0-9_]+}}() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<32 x i8>
// CHECK-LABEL: func.func @f16_sum
// CHECK-COUNT-8: arith.extf %{{.*}} : f16 to f32
// CHECK-COUNT-7: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-COUNT-5: nvvm.shfl.sync  bfly %{{.*}} : f32 -> f32
// CHECK:         llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// The 4 warps' f32 slots side by side: one 16-byte load, then the identity
// and the slots summed in warp order.
// CHECK:         nvvm.barrier0
// CHECK-NEXT:    llvm.getelementptr %{{.*}}[0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, f32
// CHECK-NEXT:    llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-COUNT-4: llvm.extractelement %{{.*}} : vector<4xf32>
// CHECK-NEXT:    arith.constant 0.000000e+00 : f32
// CHECK-COUNT-3: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    %[[ACC:.*]] = arith.addf %{{.*}} : f32
// CHECK-NEXT:    %[[H:.*]] = arith.truncf %[[ACC]] : f32 to f16
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %[[ZERO]] : i32
// CHECK-NEXT:    scf.if %[[FIRST]] {
// CHECK-NEXT:      blk.store %{{.*}}, %[[H]] : !blk.ptr<f16>
func.func @f16_sum(%in: !blk.ptr<f16> {blk.divisibility = 16 : i32}, %out: !blk.ptr<f16>) {
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  %b = blk.splat %in : !blk.ptr<f16> -> tensor<1024x!blk.ptr<f16>>
  %p = blk.addptr %b, %r : tensor<1024x!blk.ptr<f16>>, tensor<1024xi32>
  %x = blk.load %p : tensor<1024x!blk.ptr<f16>>
  %s = blk.reduce sum %x axis = 0 : tensor<1024xf16> -> f16
  blk.store %out, %s : !blk.ptr<f16>
  return
}

// -----

// bf16 max: widened the same way.
// CHECK-LABEL: func.func @bf16_max
// CHECK-COUNT-8: arith.extf %{{.*}} : bf16 to f32
// CHECK-COUNT-7: arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK-COUNT-5: nvvm.shfl.sync  bfly %{{.*}} : f32 -> f32
// CHECK:         arith.truncf %{{.*}} : f32 to bf16
func.func @bf16_max(%in: !blk.ptr<bf16> {blk.divisibility = 16 : i32}, %out: !blk.ptr<bf16>) {
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  %b = blk.splat %in : !blk.ptr<bf16> -> tensor<1024x!blk.ptr<bf16>>
  %p = blk.addptr %b, %r : tensor<1024x!blk.ptr<bf16>>, tensor<1024xi32>
  %x = blk.load %p : tensor<1024x!blk.ptr<bf16>>
  %s = blk.reduce max %x axis = 0 : tensor<1024xbf16> -> bf16
  blk.store %out, %s : !blk.ptr<bf16>
  return
}

// -----

// A block smaller than the threads (64 elements, 128 threads) is replicated:
// thread t holds element t & 63, and threads 64..127 contribute the identity
// (INT_MIN for an i32 max) instead of their replica, which is all the
// thread holds: the shuffles start from it.
// CHECK:       llvm.mlir.global internal @__blk_warp_exchange_{{[A-Za-z0-9_]+}}() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<32 x i8>
// CHECK-LABEL: func.func @replicated_i32_max
// CHECK:         %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x range <i32, 0, {{[0-9]+}}> : i32
// CHECK:         %[[C63:.*]] = arith.constant 63 : i32
// CHECK-NEXT:    %[[IDX:.*]] = arith.andi %{{.*}}, %[[C63]] : i32
// CHECK-NEXT:    %[[P:.*]] = blk.addptr %{{.*}}, %[[IDX]] : !blk.ptr<i32>, i32
// CHECK-NEXT:    %[[X:.*]] = blk.load %[[P]] : !blk.ptr<i32>
// CHECK:         %[[C64:.*]] = arith.constant 64 : i32
// CHECK:         %[[VALID:.*]] = arith.cmpi slt, %{{.*}}, %[[C64]] : i32
// CHECK-NEXT:    %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK-NEXT:    %[[SEL:.*]] = arith.select %[[VALID]], %[[X]], %[[MIN]] : i32
// CHECK:         nvvm.shfl.sync  bfly %{{.*}}, %[[SEL]], %{{.*}}, %{{.*}} : i32 -> i32
// CHECK-COUNT-4: nvvm.shfl.sync  bfly %{{.*}} : i32 -> i32
// CHECK:         nvvm.barrier0
func.func @replicated_i32_max(%in: !blk.ptr<i32> {blk.divisibility = 16 : i32}, %out: !blk.ptr<i32>) {
  %r = blk.make_range 0 to 64 : tensor<64xi32>
  %b = blk.splat %in : !blk.ptr<i32> -> tensor<64x!blk.ptr<i32>>
  %p = blk.addptr %b, %r : tensor<64x!blk.ptr<i32>>, tensor<64xi32>
  %x = blk.load %p : tensor<64x!blk.ptr<i32>>
  %s = blk.reduce max %x axis = 0 : tensor<64xi32> -> i32
  blk.store %out, %s : !blk.ptr<i32>
  return
}
