// RUN: blockjit-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// The marks the GPU passes leave on single ops and what each may be on.

// blkgpu.rematerialized (set by blk-rematerialize-addresses) is a unit
// attribute of blk.make_range and blk.broadcast only: the ops whose lowering
// reads the thread index.

// CHECK-LABEL: func.func @marked
// CHECK: blk.make_range 0 to 16 {blkgpu.rematerialized}
// CHECK: blk.broadcast %{{.*}} {blkgpu.rematerialized}
func.func @marked() -> tensor<16x4xi32> {
  %r = blk.make_range 0 to 16 {blkgpu.rematerialized} : tensor<16xi32>
  %e = blk.expand_dims %r axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
  %b = blk.broadcast %e {blkgpu.rematerialized} : tensor<16x1xi32> -> tensor<16x4xi32>
  return %b : tensor<16x4xi32>
}

// -----

func.func @on_arith(%a: tensor<16xi32>) -> tensor<16xi32> {
  // expected-error @+1 {{blkgpu.rematerialized is a unit attribute of blk.make_range and blk.broadcast}}
  %b = arith.addi %a, %a {blkgpu.rematerialized} : tensor<16xi32>
  return %b : tensor<16xi32>
}

// -----

func.func @not_unit() -> tensor<16xi32> {
  // expected-error @+1 {{blkgpu.rematerialized is a unit attribute of blk.make_range and blk.broadcast}}
  %r = blk.make_range 0 to 16 {blkgpu.rematerialized = 1 : i32} : tensor<16xi32>
  return %r : tensor<16xi32>
}

// -----

// blkgpu.versioned_access (set by blk-version-prefix-masks) is a unit
// attribute of scf.if only.

func.func @versioned_on_arith(%a: tensor<16xi32>) -> tensor<16xi32> {
  // expected-error @+1 {{blkgpu.versioned_access is a unit attribute of scf.if}}
  %b = arith.addi %a, %a {blkgpu.versioned_access} : tensor<16xi32>
  return %b : tensor<16xi32>
}

// -----

func.func @versioned_not_unit(%c: i1) {
  // expected-error @+1 {{blkgpu.versioned_access is a unit attribute of scf.if}}
  scf.if %c {
  } {blkgpu.versioned_access = 1 : i32}
  return
}

// -----

// blkgpu.branch_free (set by blk-version-prefix-masks) is a unit attribute
// of blk.load only.

// CHECK-LABEL: func.func @branch_free_load
// CHECK: blk.load %{{.*}}, %{{.*}} {blkgpu.branch_free}
func.func @branch_free_load(%p: tensor<16x!blk.ptr<f32>>, %m: tensor<16xi1>) -> tensor<16xf32> {
  %x = blk.load %p, %m {blkgpu.branch_free} : tensor<16x!blk.ptr<f32>>
  return %x : tensor<16xf32>
}

// -----

func.func @branch_free_store(%p: tensor<16x!blk.ptr<f32>>, %x: tensor<16xf32>, %m: tensor<16xi1>) {
  // expected-error @+1 {{blkgpu.branch_free is a unit attribute of blk.load}}
  blk.store %p, %x, %m {blkgpu.branch_free} : tensor<16x!blk.ptr<f32>>
  return
}

// -----

func.func @branch_free_not_unit(%p: tensor<16x!blk.ptr<f32>>, %m: tensor<16xi1>) -> tensor<16xf32> {
  // expected-error @+1 {{blkgpu.branch_free is a unit attribute of blk.load}}
  %x = blk.load %p, %m {blkgpu.branch_free = 1 : i32} : tensor<16x!blk.ptr<f32>>
  return %x : tensor<16xf32>
}

// -----

// blkgpu.stretched_dims (set by blk-sink-broadcasts) lists, in increasing
// order, dimensions of a blk.load's block.

// CHECK-LABEL: func.func @stretched_load
// CHECK: blk.load %{{.*}} {blkgpu.stretched_dims = array<i64: 0>}
func.func @stretched_load(%p: tensor<16x4x!blk.ptr<f32>>) -> tensor<16x4xf32> {
  %x = blk.load %p {blkgpu.stretched_dims = array<i64: 0>} : tensor<16x4x!blk.ptr<f32>>
  return %x : tensor<16x4xf32>
}

// -----

func.func @stretched_store(%p: tensor<16x4x!blk.ptr<f32>>, %x: tensor<16x4xf32>) {
  // expected-error @+1 {{blkgpu.stretched_dims is a non-empty array<i64> of dimensions on a blk.load of a block}}
  blk.store %p, %x {blkgpu.stretched_dims = array<i64: 0>} : tensor<16x4x!blk.ptr<f32>>
  return
}

// -----

func.func @stretched_empty(%p: tensor<16x4x!blk.ptr<f32>>) -> tensor<16x4xf32> {
  // expected-error @+1 {{blkgpu.stretched_dims is a non-empty array<i64> of dimensions on a blk.load of a block}}
  %x = blk.load %p {blkgpu.stretched_dims = array<i64>} : tensor<16x4x!blk.ptr<f32>>
  return %x : tensor<16x4xf32>
}

// -----

func.func @stretched_out_of_rank(%p: tensor<16x4x!blk.ptr<f32>>) -> tensor<16x4xf32> {
  // expected-error @+1 {{blkgpu.stretched_dims lists dimensions of the 2-D block in increasing order, not array<i64: 0, 2>}}
  %x = blk.load %p {blkgpu.stretched_dims = array<i64: 0, 2>} : tensor<16x4x!blk.ptr<f32>>
  return %x : tensor<16x4xf32>
}

// -----

func.func @stretched_unordered(%p: tensor<2x16x4x!blk.ptr<f32>>) -> tensor<2x16x4xf32> {
  // expected-error @+1 {{blkgpu.stretched_dims lists dimensions of the 3-D block in increasing order, not array<i64: 1, 0>}}
  %x = blk.load %p {blkgpu.stretched_dims = array<i64: 1, 0>} : tensor<2x16x4x!blk.ptr<f32>>
  return %x : tensor<2x16x4xf32>
}
