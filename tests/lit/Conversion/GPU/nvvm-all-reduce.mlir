// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" --convert-blk-to-nvvm --canonicalize --cse | FileCheck %s

// blkgpu.all_reduce leaves each line's result in the threads that hold the
// line. 16x64 f32 over 4 warps (vector 4): the 64 columns are 2 register
// bits and 4 lane bits, the 16 rows 1 lane bit, 2 warp bits and 1 register
// bit. Each thread combines its 2 x 4 registers into 2 partials (one per
// row it holds), then 4 butterfly shuffles each (offsets 1, 2, 4, 8; not
// 16, a row bit): no shared memory, no barrier.

// CHECK-LABEL: func.func @rows_in_lanes
// CHECK-NOT:     nvvm.barrier0
// CHECK-COUNT-2: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c1_i32
// CHECK-COUNT-2: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c2_i32
// CHECK-COUNT-2: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c4_i32
// CHECK-COUNT-2: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c8_i32
// CHECK-NOT:     nvvm.shfl.sync
// CHECK-NOT:     nvvm.barrier0
// CHECK:         return
func.func @rows_in_lanes(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<16x64x!blk.ptr<f32>>
  %x = blk.load %p : tensor<16x64x!blk.ptr<f32>>
  %m = blkgpu.all_reduce max %x axis = 1 : tensor<16x64xf32>
  %q = blk.splat %out : !blk.ptr<f32> -> tensor<16x64x!blk.ptr<f32>>
  blk.store %q, %m : tensor<16x64x!blk.ptr<f32>>
  return
}

// -----

// Down the columns of 256x8 f16 over 4 warps (vector 8): the 256 rows are
// the 5 lane bits, the 2 warp bits and 1 register bit. Each thread sums its
// 2 x 8 registers in f32 into 8 partials (one per column), shuffles each
// over the 5 lane bits, then lane 0 of each warp writes its 8 partials side
// by side at slot warp * 8 + column (byte 32 * warp, 16-byte aligned: two
// vector<4xf32> stores); after a barrier every thread reads each warp's 8
// partials as two vector<4xf32> loads (8 loads in all) and adds the 4
// warps' partials of each column in warp order, and a barrier frees the
// array (4 x 8 f32: 128 bytes).

// CHECK:       llvm.mlir.global internal @__blk_smem_columns_in_warps() {{.*}} : !llvm.array<128 x i8>
// CHECK-LABEL: func.func @columns_in_warps
// CHECK:         %[[SMEM:.*]] = llvm.mlir.addressof @__blk_smem_columns_in_warps : !llvm.ptr<3>
// CHECK:         arith.extf
// CHECK-COUNT-8: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c1_i32
// CHECK-COUNT-8: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c16_i32
// CHECK:         %[[WARP:.*]] = arith.shrui %[[TID:.*]], %c5_i32 : i32
// CHECK:         %[[LANE:.*]] = arith.andi %[[TID]], %c31_i32 : i32
// CHECK:         %[[WRITER:.*]] = arith.cmpi eq, %[[LANE]], %c0_i32 : i32
// CHECK:         scf.if %[[WRITER]] {
// CHECK-NEXT:      %[[FIRST:.*]] = arith.muli %[[WARP]], %c8_i32 : i32
// CHECK-NEXT:      %[[HALF1:.*]] = llvm.getelementptr %[[SMEM]][%[[FIRST]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-COUNT-4:   llvm.insertelement
// CHECK-NEXT:      llvm.store %{{.*}}, %[[HALF1]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NEXT:      %[[HALF2:.*]] = llvm.getelementptr %[[HALF1]][4] : (!llvm.ptr<3>) -> !llvm.ptr<3>, f32
// CHECK-COUNT-4:   llvm.insertelement
// CHECK-NEXT:      llvm.store %{{.*}}, %[[HALF2]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NEXT:    }
// CHECK-NEXT:    nvvm.barrier0
// Warp 0's partials of columns 0 and 4 (the first lane of each vector),
// then each later warp's added in turn.
// CHECK:         %[[W0A:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NEXT:    %[[W0C0:.*]] = llvm.extractelement %[[W0A]][%c0_i32 : i32] : vector<4xf32>
// CHECK:         %[[W0B:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NEXT:    %[[W0C4:.*]] = llvm.extractelement %[[W0B]][%c0_i32 : i32] : vector<4xf32>
// CHECK:         %[[W1A:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NEXT:    %[[W1C0:.*]] = llvm.extractelement %[[W1A]][%c0_i32 : i32] : vector<4xf32>
// CHECK:         %[[W1B:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NEXT:    %[[W1C4:.*]] = llvm.extractelement %[[W1B]][%c0_i32 : i32] : vector<4xf32>
// CHECK:         %[[S1C0:.*]] = arith.addf %[[W0C0]], %[[W1C0]] : f32
// CHECK:         %[[S1C4:.*]] = arith.addf %[[W0C4]], %[[W1C4]] : f32
// CHECK:         %[[W2A:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NEXT:    %[[W2C0:.*]] = llvm.extractelement %[[W2A]][%c0_i32 : i32] : vector<4xf32>
// CHECK:         %[[W2B:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NEXT:    %[[W2C4:.*]] = llvm.extractelement %[[W2B]][%c0_i32 : i32] : vector<4xf32>
// CHECK:         %[[S2C0:.*]] = arith.addf %[[S1C0]], %[[W2C0]] : f32
// CHECK:         %[[S2C4:.*]] = arith.addf %[[S1C4]], %[[W2C4]] : f32
// CHECK:         %[[W3A:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NEXT:    %[[W3C0:.*]] = llvm.extractelement %[[W3A]][%c0_i32 : i32] : vector<4xf32>
// CHECK:         %[[W3B:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NEXT:    %[[W3C4:.*]] = llvm.extractelement %[[W3B]][%c0_i32 : i32] : vector<4xf32>
// CHECK:         arith.addf %[[S2C0]], %[[W3C0]] : f32
// CHECK:         arith.addf %[[S2C4]], %[[W3C4]] : f32
// CHECK-NOT:     llvm.load
// CHECK:         nvvm.barrier0
// CHECK-NOT:     nvvm.barrier0
// CHECK:         arith.truncf %{{.*}} : f32 to f16
// CHECK:         return
func.func @columns_in_warps(%in: !blk.ptr<f16>, %out: !blk.ptr<f16>) {
  %p = blk.splat %in : !blk.ptr<f16> -> tensor<256x8x!blk.ptr<f16>>
  %x = blk.load %p : tensor<256x8x!blk.ptr<f16>>
  %m = blkgpu.all_reduce sum %x axis = 0 : tensor<256x8xf16>
  %q = blk.splat %out : !blk.ptr<f16> -> tensor<256x8x!blk.ptr<f16>>
  blk.store %q, %m : tensor<256x8x!blk.ptr<f16>>
  return
}

// -----

// The broadcast of a range (as blk-sink-broadcasts leaves the row index of
// a tile) is computed from each element's linear index: row = linear >> 6
// for a 16x64 block, with no shared memory.

// CHECK-LABEL: func.func @row_index
// CHECK-NOT:     llvm.store
// CHECK:         arith.shrui %{{.*}}, %c6_i32 : i32
// CHECK-NOT:     nvvm.barrier0
// CHECK:         return
func.func @row_index(%out: !blk.ptr<i32>) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %r2 = blk.expand_dims %r axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
  %rb = blk.broadcast %r2 : tensor<16x1xi32> -> tensor<16x64xi32>
  %q = blk.splat %out : !blk.ptr<i32> -> tensor<16x64x!blk.ptr<i32>>
  blk.store %q, %rb : tensor<16x64x!blk.ptr<i32>>
  return
}
