// RUN: blockjit-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// blkgpu.cluster_softmax_stats exchanges across a cluster: its module must
// have blkgpu.num_ctas >= 2, and its operands and results share one float
// type; blocks (each line's pair, from CTA-local all_reduces) need the axis
// their lines run along, of a block of rank 2 or more, and scalars take
// none. blkgpu.cta_local is a unit attribute of blk.reduce and
// blkgpu.all_reduce only.

// CHECK-LABEL: func.func @stats
// CHECK: %{{.*}}, %{{.*}} = blkgpu.cluster_softmax_stats %arg0, %arg1 : f32
module attributes {blkgpu.num_ctas = 2 : i32, blkgpu.num_warps = 1 : i32} {
  func.func @stats(%m: f32, %s: f32) -> (f32, f32) {
    %max, %sum = blkgpu.cluster_softmax_stats %m, %s : f32
    return %max, %sum : f32, f32
  }
}

// CHECK-LABEL: func.func @lines
// CHECK: blkgpu.all_reduce max %arg0 axis = 0 {blkgpu.cta_local} : tensor<64x32xf32>
// CHECK: %{{.*}}, %{{.*}} = blkgpu.cluster_softmax_stats %{{.*}}, %arg1 {axis = 0 : i32} : tensor<64x32xf32>
module attributes {blkgpu.num_ctas = 2 : i32, blkgpu.num_warps = 1 : i32} {
  func.func @lines(%x: tensor<64x32xf32>, %s: tensor<64x32xf32>) -> tensor<64x32xf32> {
    %m = blkgpu.all_reduce max %x axis = 0 {blkgpu.cta_local} : tensor<64x32xf32>
    %max, %sum = blkgpu.cluster_softmax_stats %m, %s {axis = 0 : i32} : tensor<64x32xf32>
    return %sum : tensor<64x32xf32>
  }
}

// -----

module attributes {blkgpu.num_ctas = 2 : i32, blkgpu.num_warps = 1 : i32} {
  func.func @lines_without_axis(%m: tensor<64x32xf32>, %s: tensor<64x32xf32>) -> tensor<64x32xf32> {
    // expected-error @+1 {{'blkgpu.cluster_softmax_stats' op of blocks needs the axis their lines run along}}
    %max, %sum = blkgpu.cluster_softmax_stats %m, %s : tensor<64x32xf32>
    return %sum : tensor<64x32xf32>
  }
}

// -----

module attributes {blkgpu.num_ctas = 2 : i32, blkgpu.num_warps = 1 : i32} {
  func.func @axis_out_of_range(%m: tensor<64x32xf32>, %s: tensor<64x32xf32>) -> tensor<64x32xf32> {
    // expected-error @+1 {{'blkgpu.cluster_softmax_stats' op of blocks combines lines along an axis of a block of rank 2 or more: axis 2 of 'tensor<64x32xf32>'}}
    %max, %sum = blkgpu.cluster_softmax_stats %m, %s {axis = 2 : i32} : tensor<64x32xf32>
    return %sum : tensor<64x32xf32>
  }
}

// -----

module attributes {blkgpu.num_ctas = 2 : i32, blkgpu.num_warps = 1 : i32} {
  func.func @one_dim_block(%m: tensor<64xf32>, %s: tensor<64xf32>) -> tensor<64xf32> {
    // expected-error @+1 {{'blkgpu.cluster_softmax_stats' op of blocks combines lines along an axis of a block of rank 2 or more: axis 0 of 'tensor<64xf32>'}}
    %max, %sum = blkgpu.cluster_softmax_stats %m, %s {axis = 0 : i32} : tensor<64xf32>
    return %sum : tensor<64xf32>
  }
}

// -----

module attributes {blkgpu.num_ctas = 2 : i32, blkgpu.num_warps = 1 : i32} {
  func.func @scalar_with_axis(%m: f32, %s: f32) -> f32 {
    // expected-error @+1 {{'blkgpu.cluster_softmax_stats' op takes an axis only with blocks (the lines of a block along it), not scalars}}
    %max, %sum = blkgpu.cluster_softmax_stats %m, %s {axis = 0 : i32} : f32
    return %sum : f32
  }
}

// -----

module attributes {blkgpu.num_warps = 1 : i32} {
  func.func @no_cluster(%m: f32, %s: f32) -> f32 {
    // expected-error @+1 {{'blkgpu.cluster_softmax_stats' op exchanges across the CTAs of a cluster: it needs a module with blkgpu.num_ctas of 2 or more}}
    %max, %sum = blkgpu.cluster_softmax_stats %m, %s : f32
    return %sum : f32
  }
}

// -----

module attributes {blkgpu.num_ctas = 2 : i32, blkgpu.num_warps = 1 : i32} {
  func.func @types_differ(%m: f32, %s: f64) -> f32 {
    // expected-error @+1 {{all of {local_max, local_sum, max, sum} have same type}}
    %max, %sum = "blkgpu.cluster_softmax_stats"(%m, %s) : (f32, f64) -> (f32, f32)
    return %sum : f32
  }
}

// -----

func.func @cta_local_elsewhere(%a: f32) -> f32 {
  // expected-error @+1 {{blkgpu.cta_local is a unit attribute of blk.reduce and blkgpu.all_reduce}}
  %b = arith.addf %a, %a {blkgpu.cta_local} : f32
  return %b : f32
}
