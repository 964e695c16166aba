// RUN: blockjit-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// blkgpu.cluster_softmax_stats exchanges across a cluster: its module must
// have blkgpu.num_ctas >= 2, and its operands and results share one float
// type. blkgpu.cta_local is a unit attribute of blk.reduce only.

// CHECK-LABEL: func.func @stats
// CHECK: %{{.*}}, %{{.*}} = blkgpu.cluster_softmax_stats %arg0, %arg1 : f32
module attributes {blkgpu.num_ctas = 2 : i32, blkgpu.num_warps = 1 : i32} {
  func.func @stats(%m: f32, %s: f32) -> (f32, f32) {
    %max, %sum = blkgpu.cluster_softmax_stats %m, %s : f32
    return %max, %sum : f32, f32
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
  // expected-error @+1 {{blkgpu.cta_local is a unit attribute of blk.reduce}}
  %b = arith.addf %a, %a {blkgpu.cta_local} : f32
  return %b : f32
}
