// RUN: blockjit-opt %s --split-input-file --blk-default-eviction="loads=evict_last" | FileCheck %s --check-prefix=LOADS
// RUN: blockjit-opt %s --split-input-file --blk-default-eviction="stores=evict_first" | FileCheck %s --check-prefix=STORES
// RUN: blockjit-opt %s --split-input-file --blk-default-eviction="loads=evict_first stores=evict_first" | FileCheck %s --check-prefix=BOTH
// RUN: blockjit-opt %s --split-input-file --blk-default-eviction | FileCheck %s --check-prefix=NONE
// RUN: not blockjit-opt %s --split-input-file --blk-default-eviction="loads=evict_sometimes" 2>&1 | FileCheck %s --check-prefix=BAD
//
// blk-default-eviction gives the loads (or the stores) whose source has no
// hint the config's (CompileOptions::loadEviction, storeEviction): the
// scalar load of the scale and the block load of x here; the load of w keeps
// the evict_first its source wrote and the store back into x the evict_last
// its source wrote. loads= leaves the stores alone and stores= the loads.
// "normal" (the default) changes nothing. Operands are matched as SSA names
// (not {{.*}}), so that a hint the pass should not have added fails the check.

// LOADS-LABEL: func.func @scaled
// LOADS:         blk.load %{{[a-z0-9_]+}} evict_last : !blk.ptr<f32>
// LOADS:         blk.load %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} evict_last : tensor<1024x!blk.ptr<f32>>
// LOADS:         blk.load %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} evict_first : tensor<1024x!blk.ptr<f32>>
// LOADS:         blk.store %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : tensor<1024x!blk.ptr<f32>>
// LOADS:         blk.store %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} evict_last : tensor<1024x!blk.ptr<f32>>

// STORES-LABEL: func.func @scaled
// STORES:         blk.load %{{[a-z0-9_]+}} : !blk.ptr<f32>
// STORES:         blk.load %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : tensor<1024x!blk.ptr<f32>>
// STORES:         blk.load %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} evict_first : tensor<1024x!blk.ptr<f32>>
// STORES:         blk.store %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} evict_first : tensor<1024x!blk.ptr<f32>>
// STORES:         blk.store %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} evict_last : tensor<1024x!blk.ptr<f32>>

// BOTH-LABEL: func.func @scaled
// BOTH:         blk.load %{{[a-z0-9_]+}} evict_first : !blk.ptr<f32>
// BOTH:         blk.load %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} evict_first : tensor<1024x!blk.ptr<f32>>
// BOTH:         blk.load %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} evict_first : tensor<1024x!blk.ptr<f32>>
// BOTH:         blk.store %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} evict_first : tensor<1024x!blk.ptr<f32>>
// BOTH:         blk.store %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} evict_last : tensor<1024x!blk.ptr<f32>>

// NONE-LABEL: func.func @scaled
// NONE:         blk.load %{{[a-z0-9_]+}} : !blk.ptr<f32>
// NONE:         blk.load %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : tensor<1024x!blk.ptr<f32>>
// NONE:         blk.load %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} evict_first : tensor<1024x!blk.ptr<f32>>
// NONE:         blk.store %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : tensor<1024x!blk.ptr<f32>>
// NONE:         blk.store %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} evict_last : tensor<1024x!blk.ptr<f32>>

// BAD: error: blk-default-eviction: loads: an eviction priority is normal, evict_first or evict_last, got 'evict_sometimes'
func.func @scaled(%out: !blk.ptr<f32>, %in: !blk.ptr<f32>, %w: !blk.ptr<f32>, %scale: !blk.ptr<f32>, %n: i32) {
  %s = blk.load %scale : !blk.ptr<f32>
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  %nb = blk.splat %n : i32 -> tensor<1024xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<1024xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %ptrs = blk.addptr %p, %r : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  %x = blk.load %ptrs, %m : tensor<1024x!blk.ptr<f32>>
  %pw = blk.splat %w : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %wptrs = blk.addptr %pw, %r : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  %wx = blk.load %wptrs, %m evict_first : tensor<1024x!blk.ptr<f32>>
  %sb = blk.splat %s : f32 -> tensor<1024xf32>
  %y = arith.mulf %x, %sb : tensor<1024xf32>
  %z = arith.mulf %y, %wx : tensor<1024xf32>
  %o = blk.splat %out : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %optrs = blk.addptr %o, %r : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  blk.store %optrs, %z, %m : tensor<1024x!blk.ptr<f32>>
  blk.store %ptrs, %y, %m evict_last : tensor<1024x!blk.ptr<f32>>
  return
}
