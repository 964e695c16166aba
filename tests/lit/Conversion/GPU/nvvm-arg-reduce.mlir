// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" \
// RUN:   --convert-blk-to-nvvm | FileCheck %s
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=1" \
// RUN:   --convert-blk-to-nvvm | FileCheck %s --check-prefix=W1
// 1-D f32: 5 butterfly steps shuffling the value and the index (10); f64
// moves its value in two 32-bit halves (15 more); the 2-D one none.
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" \
// RUN:   --convert-blk-to-nvvm | grep -c "nvvm.shfl.sync  bfly" | FileCheck %s --check-prefix=SHFL
// One barrier in each 1-D cross-warp step with 4 warps (its pairs go
// through a half of the warp exchange array, the halves taken in turn: see
// nvvm-reduce.mlir), two per exchange through the scratch array (2-D: after
// publishing and after reading; the broadcast of a range that builds its
// pointers needs none), none in a 1-D reduction with one warp.
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" \
// RUN:   --convert-blk-to-nvvm | grep -c "nvvm.barrier0" | FileCheck %s --check-prefix=BAR4

// SHFL: {{^}}25{{$}}
// BAR4: {{^}}4{{$}}

// blk.arg_reduce carries (value, index) pairs. In-thread, element k of the
// thread has linear index tid * 4 + k; the identity is (-inf, INT32_MAX).
// CHECK-DAG:   llvm.mlir.global internal @__blk_warp_exchange_argmax_f32() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
// CHECK-LABEL: func.func @argmax_f32
// CHECK:         %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x range <i32, 0, {{[0-9]+}}> : i32
// CHECK:         %[[IMAX:.*]] = arith.constant 2147483647 : i32
// CHECK:         %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[BASE:.*]] = arith.muli %[[TID]], %{{.*}} : i32
// CHECK:         %[[I0:.*]] = arith.addi %[[BASE]], %{{.*}} : i32
// CHECK:         arith.cmpi slt, %[[I0]], %[[IMAX]] : i32
// CHECK:         arith.cmpf uno
// CHECK:         arith.cmpf ogt
// CHECK:         arith.select %{{.*}}, %{{.*}}, %[[NINF]] : f32
// CHECK:         arith.select %{{.*}}, %[[I0]], %[[IMAX]] : i32
// Across the warp: the value, then the index, at each offset.
// CHECK:         nvvm.shfl.sync  bfly %{{.*}} : f32 -> f32
// CHECK:         nvvm.shfl.sync  bfly %{{.*}} : i32 -> i32
// Across warps: lane 0 stores its value at [warp] and its index at byte
// 16 + 4 * warp (the index section starts 16-byte aligned), then everyone
// reads each section's 4 warps side by side (one 16-byte load of the values,
// one of the indices) and combines the 4 pairs in warp order from the
// identity. The pairs take a half (32 bytes) of the warp exchange array.
// CHECK:         %[[ARRAY:.*]] = llvm.mlir.addressof @__blk_warp_exchange_argmax_f32 : !llvm.ptr<3>
// CHECK-NEXT:    %[[OFFSET:.*]] = llvm.mul %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    %[[SMEM:.*]] = llvm.getelementptr %[[ARRAY]][%[[OFFSET]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT:    %[[ISEC:.*]] = llvm.getelementptr %[[SMEM]][16] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK:         scf.if
// CHECK:           llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK:           llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK-NEXT:    %[[GV:.*]] = llvm.getelementptr %[[SMEM]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, f32
// CHECK-NEXT:    %[[VV:.*]] = llvm.load %[[GV]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NEXT:    arith.constant 0 : i32
// CHECK-NEXT:    %[[V0:.*]] = llvm.extractelement %[[VV]][%{{.*}} : i32] : vector<4xf32>
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    %[[V1:.*]] = llvm.extractelement %[[VV]][%{{.*}} : i32] : vector<4xf32>
// CHECK-NEXT:    arith.constant 2 : i32
// CHECK-NEXT:    %[[V2:.*]] = llvm.extractelement %[[VV]][%{{.*}} : i32] : vector<4xf32>
// CHECK-NEXT:    arith.constant 3 : i32
// CHECK-NEXT:    %[[V3:.*]] = llvm.extractelement %[[VV]][%{{.*}} : i32] : vector<4xf32>
// CHECK-NEXT:    %[[GI:.*]] = llvm.getelementptr %[[ISEC]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i32
// CHECK-NEXT:    %[[VI:.*]] = llvm.load %[[GI]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NEXT:    arith.constant 0 : i32
// CHECK-NEXT:    %[[I0:.*]] = llvm.extractelement %[[VI]][%{{.*}} : i32] : vector<4xi32>
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    %[[I1:.*]] = llvm.extractelement %[[VI]][%{{.*}} : i32] : vector<4xi32>
// CHECK-NEXT:    arith.constant 2 : i32
// CHECK-NEXT:    %[[I2:.*]] = llvm.extractelement %[[VI]][%{{.*}} : i32] : vector<4xi32>
// CHECK-NEXT:    arith.constant 3 : i32
// CHECK-NEXT:    %[[I3:.*]] = llvm.extractelement %[[VI]][%{{.*}} : i32] : vector<4xi32>
// CHECK-NEXT:    %[[IMAX2:.*]] = arith.constant 2147483647 : i32
// CHECK-NEXT:    %[[NINF2:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT:    arith.cmpi slt, %[[I0]], %[[IMAX2]] : i32
// CHECK:         arith.cmpf ogt, %[[V0]], %[[NINF2]] : f32
// CHECK:         %[[B0:.*]] = arith.select %{{.*}}, %[[V0]], %[[NINF2]] : f32
// CHECK-NEXT:    %[[J0:.*]] = arith.select %{{.*}}, %[[I0]], %[[IMAX2]] : i32
// CHECK-NEXT:    arith.cmpi slt, %[[I1]], %[[J0]] : i32
// CHECK:         arith.cmpf ogt, %[[V1]], %[[B0]] : f32
// CHECK:         %[[B1:.*]] = arith.select %{{.*}}, %[[V1]], %[[B0]] : f32
// CHECK-NEXT:    %[[J1:.*]] = arith.select %{{.*}}, %[[I1]], %[[J0]] : i32
// CHECK-NEXT:    arith.cmpi slt, %[[I2]], %[[J1]] : i32
// CHECK:         arith.cmpf ogt, %[[V2]], %[[B1]] : f32
// CHECK:         %[[B2:.*]] = arith.select %{{.*}}, %[[V2]], %[[B1]] : f32
// CHECK-NEXT:    %[[J2:.*]] = arith.select %{{.*}}, %[[I2]], %[[J1]] : i32
// CHECK-NEXT:    arith.cmpi slt, %[[I3]], %[[J2]] : i32
// CHECK:         arith.cmpf ogt, %[[V3]], %[[B2]] : f32
// CHECK:         arith.select %{{.*}}, %[[V3]], %[[B2]] : f32
// CHECK-NEXT:    arith.select %{{.*}}, %[[I3]], %[[J2]] : i32
// CHECK-NOT:     nvvm.barrier0
// CHECK:         return
// W1-LABEL:    func.func @argmax_f32
// W1-NOT:        nvvm.barrier0
// W1-NOT:        addr_space = 3
// W1:            return
func.func @argmax_f32(%in: !blk.ptr<f32>, %out: !blk.ptr<i32>) {
  %r = blk.make_range 0 to 512 : tensor<512xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<512x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<512x!blk.ptr<f32>>, tensor<512xi32>
  %x = blk.load %p : tensor<512x!blk.ptr<f32>>
  %i = blk.arg_reduce max %x axis = 0 : tensor<512xf32> -> i32
  blk.store %out, %i : !blk.ptr<i32>
  return
}

// -----

// A block of 16 f64 on 128 threads: replicas (raw index >= 16) compete as
// the identity (+inf, INT32_MAX), so they never win; the f64 value is
// shuffled as two halves.
// CHECK-LABEL: func.func @argmin_f64_small
// CHECK:         %[[RAW:.*]] = arith.addi
// CHECK:         %[[VALID:.*]] = arith.cmpi slt, %{{.*}}, %c16_i32 : i32
// CHECK:         arith.select %[[VALID]], %{{.*}}, %{{.*}} : f64
// CHECK:         arith.select %[[VALID]], %{{.*}}, %{{.*}} : i32
// CHECK:         arith.bitcast %{{.*}} : f64 to i64
// CHECK:         nvvm.shfl.sync  bfly %{{.*}} : i32 -> i32
// CHECK:         nvvm.shfl.sync  bfly %{{.*}} : i32 -> i32
// CHECK:         arith.bitcast %{{.*}} : i64 to f64
func.func @argmin_f64_small(%in: !blk.ptr<f64>, %out: !blk.ptr<i32>) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %b = blk.splat %in : !blk.ptr<f64> -> tensor<16x!blk.ptr<f64>>
  %p = blk.addptr %b, %r : tensor<16x!blk.ptr<f64>>, tensor<16xi32>
  %x = blk.load %p : tensor<16x!blk.ptr<f64>>
  %i = blk.arg_reduce min %x axis = 0 : tensor<16xf64> -> i32
  blk.store %out, %i : !blk.ptr<i32>
  return
}

// -----

// 2-D along axis 1: the block (i16 widened to i32) goes to shared memory,
// then each thread scans the row of each index it holds, in order.
// CHECK-LABEL: func.func @argmax_rows_i16
// CHECK:         arith.extsi %{{.*}} : i16 to i32
// CHECK:         llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (i32, i32) {
// CHECK:           llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK:           arith.cmpi sgt
// CHECK:         nvvm.barrier0
func.func @argmax_rows_i16(%in: !blk.ptr<i16>, %out: !blk.ptr<i32>) {
  %r = blk.make_range 0 to 64 : tensor<64xi32>
  %r2 = blk.expand_dims %r axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %r3 = blk.broadcast %r2 : tensor<1x64xi32> -> tensor<8x64xi32>
  %b = blk.splat %in : !blk.ptr<i16> -> tensor<8x64x!blk.ptr<i16>>
  %p = blk.addptr %b, %r3 : tensor<8x64x!blk.ptr<i16>>, tensor<8x64xi32>
  %x = blk.load %p : tensor<8x64x!blk.ptr<i16>>
  %i = blk.arg_reduce max %x axis = 1 : tensor<8x64xi16> -> tensor<8xi32>
  %r8 = blk.make_range 0 to 8 : tensor<8xi32>
  %o = blk.splat %out : !blk.ptr<i32> -> tensor<8x!blk.ptr<i32>>
  %q = blk.addptr %o, %r8 : tensor<8x!blk.ptr<i32>>, tensor<8xi32>
  blk.store %q, %i : tensor<8x!blk.ptr<i32>>
  return
}
