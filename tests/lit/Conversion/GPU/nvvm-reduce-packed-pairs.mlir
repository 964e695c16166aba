// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" \
// RUN:   --convert-blk-to-nvvm="sm-arch=90" | FileCheck %s
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" \
// RUN:   --convert-blk-to-nvvm | FileCheck %s --check-prefix=ANY-ARCH

// From sm_80, a max or min over bf16/f16 values (or over f32 values widened
// from them) combines a thread's elements two at a time in their own type
// (max.NaN.bf16x2 and kin): 8 elements a thread make 4 pairs, combined by 3
// packed maxima; only the last pair's two halves are widened and combined
// in f32 before the shuffles. Without an arch every element is widened first.

// CHECK-LABEL: func.func @bf16_max
// CHECK-COUNT-4: llvm.insertelement %{{.*}} : vector<2xbf16>
// CHECK-COUNT-3: arith.maximumf %{{.*}}, %{{.*}} : vector<2xbf16>
// CHECK:         llvm.extractelement %{{.*}} : vector<2xbf16>
// CHECK-NEXT:    arith.extf %{{.*}} : bf16 to f32
// CHECK:         llvm.extractelement %{{.*}} : vector<2xbf16>
// CHECK-NEXT:    arith.extf %{{.*}} : bf16 to f32
// CHECK-NEXT:    arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK-NOT:     arith.maximumf %{{.*}}, %{{.*}} : vector<2xbf16>
// CHECK:         nvvm.shfl.sync  bfly %{{.*}} : f32 -> f32
// CHECK:         arith.truncf %{{.*}} : f32 to bf16
// ANY-ARCH-LABEL: func.func @bf16_max
// ANY-ARCH-NOT:   vector<2xbf16>
// ANY-ARCH-COUNT-7: arith.maximumf %{{.*}}, %{{.*}} : f32
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

// A softmax's max: f32 values widened from f16 pair up the f16 values they
// widen (min here).
// CHECK-LABEL: func.func @widened_f16_min
// CHECK-COUNT-3: arith.minimumf %{{.*}}, %{{.*}} : vector<2xf16>
// CHECK:         arith.minimumf %{{.*}}, %{{.*}} : f32
// CHECK:         nvvm.shfl.sync  bfly %{{.*}} : f32 -> f32
func.func @widened_f16_min(%in: !blk.ptr<f16> {blk.divisibility = 16 : i32}, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  %b = blk.splat %in : !blk.ptr<f16> -> tensor<1024x!blk.ptr<f16>>
  %p = blk.addptr %b, %r : tensor<1024x!blk.ptr<f16>>, tensor<1024xi32>
  %x = blk.load %p : tensor<1024x!blk.ptr<f16>>
  %w = arith.extf %x : tensor<1024xf16> to tensor<1024xf32>
  %s = blk.reduce min %w axis = 0 : tensor<1024xf32> -> f32
  blk.store %out, %s : !blk.ptr<f32>
  return
}

// -----

// Sums keep f32 accumulation (a bf16 sum would round), and fewer than 8
// elements a thread stay unpaired (the two widenings at the end would cost
// what the pairs save).
// CHECK-LABEL: func.func @bf16_sum_and_short_max
// CHECK-NOT:     vector<2xbf16>
// CHECK:         return
func.func @bf16_sum_and_short_max(%in: !blk.ptr<bf16> {blk.divisibility = 16 : i32}, %out: !blk.ptr<bf16>) {
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  %b = blk.splat %in : !blk.ptr<bf16> -> tensor<1024x!blk.ptr<bf16>>
  %p = blk.addptr %b, %r : tensor<1024x!blk.ptr<bf16>>, tensor<1024xi32>
  %x = blk.load %p : tensor<1024x!blk.ptr<bf16>>
  %s = blk.reduce sum %x axis = 0 : tensor<1024xbf16> -> bf16
  blk.store %out, %s : !blk.ptr<bf16>
  %r2 = blk.make_range 0 to 512 : tensor<512xi32>
  %b2 = blk.splat %in : !blk.ptr<bf16> -> tensor<512x!blk.ptr<bf16>>
  %p2 = blk.addptr %b2, %r2 : tensor<512x!blk.ptr<bf16>>, tensor<512xi32>
  %x2 = blk.load %p2 : tensor<512x!blk.ptr<bf16>>
  %m = blk.reduce max %x2 axis = 0 : tensor<512xbf16> -> bf16
  blk.store %out, %m : !blk.ptr<bf16>
  return
}
