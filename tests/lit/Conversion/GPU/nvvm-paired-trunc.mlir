// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=1" \
// RUN:   --convert-blk-to-nvvm="sm-arch=90" | FileCheck %s
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=1" \
// RUN:   --convert-blk-to-nvvm | FileCheck %s --check-prefix=ANY-ARCH

// From sm_80, f32 -> bf16/f16 converts two elements per instruction (the
// ff2bf16x2/ff2f16x2 intrinsics, the high half first), and a vector store of
// such pairs writes them as 32-bit words, so no half crosses into the
// store's guarded block alone. Without an arch, each element converts alone.
// 128 elements over 32 threads: 4 per thread, two pairs.

// CHECK-LABEL: func.func @store_bf16
// CHECK:         %[[X0:.*]] = arith.sitofp %{{.*}} : i32 to f32
// CHECK-NEXT:    %[[X1:.*]] = arith.sitofp %{{.*}} : i32 to f32
// CHECK-NEXT:    %[[X2:.*]] = arith.sitofp %{{.*}} : i32 to f32
// CHECK-NEXT:    %[[X3:.*]] = arith.sitofp %{{.*}} : i32 to f32
// CHECK-NEXT:    %[[P0:.*]] = llvm.call_intrinsic "llvm.nvvm.ff2bf16x2.rn"(%[[X1]], %[[X0]]) : (f32, f32) -> vector<2xbf16>
// CHECK:         llvm.extractelement %[[P0]]
// CHECK:         llvm.extractelement %[[P0]]
// CHECK-NEXT:    %[[P1:.*]] = llvm.call_intrinsic "llvm.nvvm.ff2bf16x2.rn"(%[[X3]], %[[X2]]) : (f32, f32) -> vector<2xbf16>
// CHECK-NOT:     arith.truncf
// CHECK:         scf.if
// CHECK:           %[[W0:.*]] = llvm.bitcast %[[P0]] : vector<2xbf16> to i32
// CHECK-NEXT:      %[[V0:.*]] = llvm.insertelement %[[W0]]
// CHECK:           %[[W1:.*]] = llvm.bitcast %[[P1]] : vector<2xbf16> to i32
// CHECK-NEXT:      %[[V1:.*]] = llvm.insertelement %[[W1]], %[[V0]]
// CHECK:           llvm.store %[[V1]], %{{.*}} {alignment = 8 : i64} : vector<2xi32>, !llvm.ptr<1>

// ANY-ARCH-LABEL: func.func @store_bf16
// ANY-ARCH-COUNT-4: arith.truncf %{{.*}} : f32 to bf16
// ANY-ARCH-NOT:     llvm.call_intrinsic
// ANY-ARCH:         llvm.store %{{.*}} : vector<4xbf16>, !llvm.ptr<1>
func.func @store_bf16(%out: !blk.ptr<bf16> {blk.divisibility = 16 : i32},
                      %n: i32 {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %v = arith.sitofp %r : tensor<128xi32> to tensor<128xf32>
  %t = arith.truncf %v : tensor<128xf32> to tensor<128xbf16>
  %b = blk.splat %out : !blk.ptr<bf16> -> tensor<128x!blk.ptr<bf16>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<bf16>>, tensor<128xi32>
  %nb = blk.splat %n : i32 -> tensor<128xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<128xi32>
  blk.store %p, %t, %m : tensor<128x!blk.ptr<bf16>>
  return
}

// -----

// f16 likewise. A pair's halves used apart (here: the second element alone
// feeds an add) stay correct: the store packs words only when every pair
// is whole, else it inserts the halves.

// CHECK-LABEL: func.func @f16_halves_apart
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.nvvm.ff2f16x2.rn"
// CHECK:         scf.if
// CHECK:           llvm.store %{{.*}} : vector<4xf16>, !llvm.ptr<1>

// ANY-ARCH-LABEL: func.func @f16_halves_apart
// ANY-ARCH-NOT:     llvm.call_intrinsic
func.func @f16_halves_apart(%out: !blk.ptr<f16> {blk.divisibility = 16 : i32},
                            %n: i32 {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %v = arith.sitofp %r : tensor<128xi32> to tensor<128xf32>
  %t = arith.truncf %v : tensor<128xf32> to tensor<128xf16>
  %s = arith.addf %t, %t : tensor<128xf16>
  %b = blk.splat %out : !blk.ptr<f16> -> tensor<128x!blk.ptr<f16>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f16>>, tensor<128xi32>
  %nb = blk.splat %n : i32 -> tensor<128xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<128xi32>
  blk.store %p, %s, %m : tensor<128x!blk.ptr<f16>>
  return
}
