// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=1" \
// RUN:   --convert-blk-to-nvvm | FileCheck %s

// Stores are vectorized like loads: contiguous, aligned, uniformly masked
// elements of one thread are packed into a vector and written by one
// llvm.store, under one scf.if on the mask of the first lane (no branch when
// unmasked). 128 elements over 32 threads: 4 per thread.

// CHECK-LABEL: func.func @masked_f32
// CHECK-SAME:    (%[[OUT:[^:]*]]: !blk.ptr<f32>
// CHECK:         %[[V0:.*]] = arith.sitofp %{{.*}} : i32 to f32
// CHECK-NEXT:    %[[V1:.*]] = arith.sitofp %{{.*}} : i32 to f32
// CHECK-NEXT:    %[[V2:.*]] = arith.sitofp %{{.*}} : i32 to f32
// CHECK-NEXT:    %[[V3:.*]] = arith.sitofp %{{.*}} : i32 to f32
// CHECK-NEXT:    %[[P0:.*]] = blk.addptr %[[OUT]], %{{.*}} : !blk.ptr<f32>, i32
// CHECK:         %[[M0:.*]] = arith.cmpi slt, %{{.*}} : i32
// CHECK:         scf.if %[[M0]] {
// CHECK-NEXT:      %[[U:.*]] = llvm.mlir.undef : vector<4xf32>
// CHECK-NEXT:      arith.constant 0 : i32
// CHECK-NEXT:      %[[I0:.*]] = llvm.insertelement %[[V0]], %[[U]][%{{.*}} : i32] : vector<4xf32>
// CHECK-NEXT:      arith.constant 1 : i32
// CHECK-NEXT:      %[[I1:.*]] = llvm.insertelement %[[V1]], %[[I0]][%{{.*}} : i32] : vector<4xf32>
// CHECK-NEXT:      arith.constant 2 : i32
// CHECK-NEXT:      %[[I2:.*]] = llvm.insertelement %[[V2]], %[[I1]][%{{.*}} : i32] : vector<4xf32>
// CHECK-NEXT:      arith.constant 3 : i32
// CHECK-NEXT:      %[[I3:.*]] = llvm.insertelement %[[V3]], %[[I2]][%{{.*}} : i32] : vector<4xf32>
// CHECK-NEXT:      %[[LP:.*]] = builtin.unrealized_conversion_cast %[[P0]] : !blk.ptr<f32> to !llvm.ptr<1>
// CHECK-NEXT:      llvm.store %[[I3]], %[[LP]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NEXT:    }
// CHECK-NOT:     llvm.store
// CHECK-NOT:     blk.store
// CHECK:         return
func.func @masked_f32(%out: !blk.ptr<f32> {blk.divisibility = 16 : i32},
                      %n: i32 {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %v = arith.sitofp %r : tensor<128xi32> to tensor<128xf32>
  %b = blk.splat %out : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  %nb = blk.splat %n : i32 -> tensor<128xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<128xi32>
  blk.store %p, %v, %m : tensor<128x!blk.ptr<f32>>
  return
}

// -----

// Unmasked: the vector store is not wrapped in a branch.
// CHECK-LABEL: func.func @unmasked_f32
// CHECK-NOT:     scf.if
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NOT:     llvm.store
// CHECK-NOT:     blk.store
// CHECK-NOT:     scf.if
// CHECK:         return
func.func @unmasked_f32(%out: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %v = arith.sitofp %r : tensor<128xi32> to tensor<128xf32>
  %b = blk.splat %out : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  blk.store %p, %v : tensor<128x!blk.ptr<f32>>
  return
}

// -----

// Without blk.divisibility on the row length the mask may change at any
// element: one vector store when all four lanes are on, else one scalar
// blk.store per lane under its own scf.if.
// CHECK-LABEL: func.func @masked_unaligned_length
// CHECK:         %[[M0:.*]] = arith.cmpi slt, %{{.*}}, %arg1 : i32
// CHECK:         arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NEXT:    arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NEXT:    %[[ALL:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NEXT:    scf.if %[[ALL]] {
// CHECK:           llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.if %[[M0]] {
// CHECK-NEXT:        blk.store %{{.*}}, %{{.*}} : !blk.ptr<f32>
// CHECK-NEXT:      }
// CHECK-COUNT-3:   scf.if %{{.*}} {
// CHECK-NEXT:        blk.store %{{.*}}, %{{.*}} : !blk.ptr<f32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @masked_unaligned_length(%out: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %n: i32) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %v = arith.sitofp %r : tensor<128xi32> to tensor<128xf32>
  %b = blk.splat %out : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  %nb = blk.splat %n : i32 -> tensor<128xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<128xi32>
  blk.store %p, %v, %m : tensor<128x!blk.ptr<f32>>
  return
}

// -----

// f16 (1024 elements over 32 threads: 8 per chunk, 4 chunks): four
// vector<8xf16> stores of 16 bytes, one per chunk.
// CHECK-LABEL: func.func @masked_f16
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<1>
// CHECK-NOT:     llvm.store
// CHECK-NOT:     blk.store
// CHECK:         return
func.func @masked_f16(%out: !blk.ptr<f16> {blk.divisibility = 16 : i32},
                      %n: i32 {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  %v = arith.sitofp %r : tensor<1024xi32> to tensor<1024xf16>
  %b = blk.splat %out : !blk.ptr<f16> -> tensor<1024x!blk.ptr<f16>>
  %p = blk.addptr %b, %r : tensor<1024x!blk.ptr<f16>>, tensor<1024xi32>
  %nb = blk.splat %n : i32 -> tensor<1024xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<1024xi32>
  blk.store %p, %v, %m : tensor<1024x!blk.ptr<f16>>
  return
}

// -----

// An f32 store in a block laid out for an f16 load (8 elements per thread)
// is split into two 16-byte vector<4xf32> stores per chunk.
// CHECK-LABEL: func.func @f32_store_f16_layout
// CHECK:         llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xf16>
// CHECK-COUNT-2: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NOT:     llvm.store
// CHECK:         return
func.func @f32_store_f16_layout(%in: !blk.ptr<f16> {blk.divisibility = 16 : i32},
                                %out: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 256 : tensor<256xi32>
  %b = blk.splat %in : !blk.ptr<f16> -> tensor<256x!blk.ptr<f16>>
  %p = blk.addptr %b, %r : tensor<256x!blk.ptr<f16>>, tensor<256xi32>
  %x = blk.load %p : tensor<256x!blk.ptr<f16>>
  %y = arith.extf %x : tensor<256xf16> to tensor<256xf32>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<256x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<256x!blk.ptr<f32>>, tensor<256xi32>
  blk.store %op, %y : tensor<256x!blk.ptr<f32>>
  return
}
