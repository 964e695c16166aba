// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=1" \
// RUN:   --convert-blk-to-nvvm | FileCheck %s

// Elementwise ops, math included, are applied to each of the thread's
// elements (4 here: 128 over 32 threads). exp and log stay math ops here:
// the LLVM stage lowers them for NVPTX for scalars and block elements alike
// (compiler/MathLowering.cpp; tests llvm-gpu-math*.mlir).

// CHECK-LABEL: func.func @exp
// CHECK-COUNT-4: llvm.extractelement
// CHECK-COUNT-4: math.exp %{{.*}} : f32
// CHECK-NOT:     math.exp
// CHECK:         return
func.func @exp(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<f32>>
  %e = math.exp %x : tensor<128xf32>
  blk.store %p, %e : tensor<128x!blk.ptr<f32>>
  return
}

// -----

// CHECK-LABEL: func.func @log
// CHECK-COUNT-4: math.log %{{.*}} : f32
// CHECK-NOT:     math.log
// CHECK:         return
func.func @log(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<f32>>
  %l = math.log %x : tensor<128xf32>
  blk.store %p, %l : tensor<128x!blk.ptr<f32>>
  return
}

// -----

// Dividing a block by one scalar (a splat of a reduction result) computes
// the reciprocal once and multiplies each element by it; dividing by a
// block of distinct values stays one divf per element.
// CHECK-LABEL: func.func @divide_by_sum
// CHECK:         %[[X0:.*]] = llvm.extractelement %{{.*}} : vector<4xf32>
// CHECK:         %[[X1:.*]] = llvm.extractelement %{{.*}} : vector<4xf32>
// CHECK:         %[[X2:.*]] = llvm.extractelement %{{.*}} : vector<4xf32>
// CHECK:         %[[X3:.*]] = llvm.extractelement %{{.*}} : vector<4xf32>
// CHECK-COUNT-5: nvvm.shfl.sync  bfly
// CHECK-NEXT:    %[[SUM:.*]] = arith.addf %{{.*}} : f32
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[RCP:.*]] = arith.divf %[[ONE]], %[[SUM]] : f32
// CHECK-NEXT:    %[[Y0:.*]] = arith.mulf %[[X0]], %[[RCP]] : f32
// CHECK-NEXT:    %[[Y1:.*]] = arith.mulf %[[X1]], %[[RCP]] : f32
// CHECK-NEXT:    %[[Y2:.*]] = arith.mulf %[[X2]], %[[RCP]] : f32
// CHECK-NEXT:    %[[Y3:.*]] = arith.mulf %[[X3]], %[[RCP]] : f32
// CHECK-NEXT:    arith.divf %[[Y0]], %[[X0]] : f32
// CHECK-NEXT:    arith.divf %[[Y1]], %[[X1]] : f32
// CHECK-NEXT:    arith.divf %[[Y2]], %[[X2]] : f32
// CHECK-NEXT:    arith.divf %[[Y3]], %[[X3]] : f32
// CHECK-NOT:     arith.divf
// CHECK:         return
func.func @divide_by_sum(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<f32>>
  %s = blk.reduce sum %x axis = 0 : tensor<128xf32> -> f32
  %sb = blk.splat %s : f32 -> tensor<128xf32>
  %y = arith.divf %x, %sb : tensor<128xf32>
  %z = arith.divf %y, %x : tensor<128xf32>
  blk.store %p, %z : tensor<128x!blk.ptr<f32>>
  return
}
