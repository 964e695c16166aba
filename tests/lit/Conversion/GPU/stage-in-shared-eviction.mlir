// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" --blk-stage-in-shared | FileCheck %s --check-prefix=STAGE
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" --blk-stage-in-shared --convert-blk-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=NVVM

// A blk.load's eviction hint survives blk-stage-in-shared: the
// blkgpu.async_load that keeps the block in shared memory carries it, and
// its lowering marks every cp.async copy with it (blk.eviction), which
// compiler/EvictionHints.cpp turns into cp.async ... .L2::cache_hint before
// LLVM's O3 (the PTX: tests/lit/Tools/dump-async-copy-eviction.test). A
// load without a hint gives unmarked copies. 32768 f32 on 4 warps is 256
// elements a thread: more than the registers hold, so both are staged.

// STAGE-LABEL: func.func @hinted
// STAGE:         blkgpu.async_load %{{.*}} mask %{{.*}} {eviction = #blk<eviction evict_last>, offset = 0 : i64}
// STAGE-LABEL: func.func @plain
// STAGE:         blkgpu.async_load %{{.*}} mask %{{.*}} {offset = 0 : i64}

// NVVM-LABEL: func.func @hinted
// NVVM:         nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg, %{{.*}} {blk.eviction = #blk<eviction evict_last>}
// NVVM-COUNT-63: nvvm.cp.async.shared.global {{.*}} {blk.eviction = #blk<eviction evict_last>}
// NVVM-NEXT:    nvvm.cp.async.commit.group
// NVVM-LABEL: func.func @plain
// NVVM-NOT:     blk.eviction
// NVVM:         nvvm.cp.async.commit.group
func.func @hinted(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %n: i32 {blk.divisibility = 16 : i32}, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 32768 : tensor<32768xi32>
  %nb = blk.splat %n : i32 -> tensor<32768xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<32768xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<32768x!blk.ptr<f32>>
  %ptrs = blk.addptr %p, %r : tensor<32768x!blk.ptr<f32>>, tensor<32768xi32>
  %x = blk.load %ptrs, %m evict_last : tensor<32768x!blk.ptr<f32>>
  %s = blk.reduce sum %x axis = 0 : tensor<32768xf32> -> f32
  blk.store %out, %s : !blk.ptr<f32>
  return
}

// -----

func.func @plain(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %n: i32 {blk.divisibility = 16 : i32}, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 32768 : tensor<32768xi32>
  %nb = blk.splat %n : i32 -> tensor<32768xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<32768xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<32768x!blk.ptr<f32>>
  %ptrs = blk.addptr %p, %r : tensor<32768x!blk.ptr<f32>>, tensor<32768xi32>
  %x = blk.load %ptrs, %m : tensor<32768x!blk.ptr<f32>>
  %s = blk.reduce sum %x axis = 0 : tensor<32768xf32> -> f32
  blk.store %out, %s : !blk.ptr<f32>
  return
}
