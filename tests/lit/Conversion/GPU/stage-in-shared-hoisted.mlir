// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" --blk-stage-in-shared | FileCheck %s
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=8" --blk-stage-in-shared | FileCheck %s --check-prefix=EIGHT
// RUN: sed 's/ {blkgpu.stretched_dims = array<i64: 0>}//' %s | blockjit-opt --split-input-file --blk-assign-layouts="num-warps=4" --blk-stage-in-shared | FileCheck %s --check-prefix=UNMARKED

// Loads hoisted in front of the row loop that uses them (a layernorm's
// weight and bias) stay in registers through every row, beside the loop's
// own blocks. blk-stage-in-shared keeps them in shared memory, largest first,
// while all block loads together ask more of a thread than five eighths of
// its registers: 159 words with CTAs of up to 8 warps. A 16384-element f32
// row: with 4 warps each block is 128 words a thread (384 in all), so both
// the weight and the bias move to shared memory (64 KB each) and are read
// back inside the loop, each iteration; with 8 warps (64 words each, 192 in
// all) the first hoisted one is enough. The loop's own load stays a
// blk.load (its block is replaced every iteration).

// CHECK:       module attributes {blkgpu.dynamic_shared_bytes = 131072 : i64, blkgpu.num_warps = 4 : i32, blkgpu.residency = "2 block(s) kept in shared memory"}
// CHECK-LABEL: func.func @scaled_rows
// CHECK:         %[[W:.*]] = blkgpu.async_load %{{.*}} mask %{{.*}} {offset = 0 : i64}
// CHECK:         %[[B:.*]] = blkgpu.async_load %{{.*}} mask %{{.*}} {offset = 65536 : i64}
// CHECK:         scf.for
// CHECK:           %[[X:.*]] = blk.load
// CHECK-DAG:       blkgpu.local_load %[[W]]
// CHECK-DAG:       blkgpu.local_load %[[B]]
// CHECK:           blk.store
// CHECK-NOT:     blk.load
// CHECK:         return

// EIGHT:       module attributes {blkgpu.dynamic_shared_bytes = 65536 : i64, blkgpu.num_warps = 8 : i32, blkgpu.residency = "1 block(s) kept in shared memory"}
// EIGHT-LABEL: func.func @scaled_rows
// EIGHT:         %[[W:.*]] = blkgpu.async_load %{{.*}} mask %{{.*}} {offset = 0 : i64}
// EIGHT:         %[[B:.*]] = blk.load
// EIGHT:         scf.for
// EIGHT:           blk.load
// EIGHT:           blkgpu.local_load %[[W]]
// EIGHT:           arith.addf %{{.*}}, %[[B]]
func.func @scaled_rows(%out: !blk.ptr<f32>, %in: !blk.ptr<f32>, %w: !blk.ptr<f32>,
                       %b: !blk.ptr<f32>, %rows: i32, %n: i32) {
  %r = blk.make_range 0 to 16384 : tensor<16384xi32>
  %nb = blk.splat %n : i32 -> tensor<16384xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<16384xi32>
  %wp = blk.splat %w : !blk.ptr<f32> -> tensor<16384x!blk.ptr<f32>>
  %wps = blk.addptr %wp, %r : tensor<16384x!blk.ptr<f32>>, tensor<16384xi32>
  %wv = blk.load %wps, %m : tensor<16384x!blk.ptr<f32>>
  %bp = blk.splat %b : !blk.ptr<f32> -> tensor<16384x!blk.ptr<f32>>
  %bps = blk.addptr %bp, %r : tensor<16384x!blk.ptr<f32>>, tensor<16384xi32>
  %bv = blk.load %bps, %m : tensor<16384x!blk.ptr<f32>>
  %pid = blk.program_id 0 : i32
  %np = blk.num_programs 0 : i32
  scf.for %row = %pid to %rows step %np : i32 {
    %off = arith.muli %row, %n : i32
    %xrow = blk.addptr %in, %off : !blk.ptr<f32>, i32
    %xp = blk.splat %xrow : !blk.ptr<f32> -> tensor<16384x!blk.ptr<f32>>
    %xps = blk.addptr %xp, %r : tensor<16384x!blk.ptr<f32>>, tensor<16384xi32>
    %x = blk.load %xps, %m : tensor<16384x!blk.ptr<f32>>
    %xw = arith.mulf %x, %wv : tensor<16384xf32>
    %y = arith.addf %xw, %bv : tensor<16384xf32>
    %orow = blk.addptr %out, %off : !blk.ptr<f32>, i32
    %op = blk.splat %orow : !blk.ptr<f32> -> tensor<16384x!blk.ptr<f32>>
    %ops = blk.addptr %op, %r : tensor<16384x!blk.ptr<f32>>, tensor<16384xi32>
    blk.store %ops, %y, %m : tensor<16384x!blk.ptr<f32>>
  }
  return
}

// -----

// A 4096-element row with 8 warps: 16 words a thread per block, 48 in all;
// everything stays in registers.

// EIGHT:       module attributes {blkgpu.num_warps = 8 : i32}
// EIGHT-LABEL: func.func @small_rows
// EIGHT-NOT:     blkgpu.async_load
// EIGHT:         return
func.func @small_rows(%out: !blk.ptr<f32>, %in: !blk.ptr<f32>, %w: !blk.ptr<f32>,
                      %rows: i32, %n: i32) {
  %r = blk.make_range 0 to 4096 : tensor<4096xi32>
  %nb = blk.splat %n : i32 -> tensor<4096xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<4096xi32>
  %wp = blk.splat %w : !blk.ptr<f32> -> tensor<4096x!blk.ptr<f32>>
  %wps = blk.addptr %wp, %r : tensor<4096x!blk.ptr<f32>>, tensor<4096xi32>
  %wv = blk.load %wps, %m : tensor<4096x!blk.ptr<f32>>
  %pid = blk.program_id 0 : i32
  %np = blk.num_programs 0 : i32
  scf.for %row = %pid to %rows step %np : i32 {
    %off = arith.muli %row, %n : i32
    %xrow = blk.addptr %in, %off : !blk.ptr<f32>, i32
    %xp = blk.splat %xrow : !blk.ptr<f32> -> tensor<4096x!blk.ptr<f32>>
    %xps = blk.addptr %xp, %r : tensor<4096x!blk.ptr<f32>>, tensor<4096xi32>
    %x = blk.load %xps, %m : tensor<4096x!blk.ptr<f32>>
    %y = arith.mulf %x, %wv : tensor<4096xf32>
    %orow = blk.addptr %out, %off : !blk.ptr<f32>, i32
    %op = blk.splat %orow : !blk.ptr<f32> -> tensor<4096x!blk.ptr<f32>>
    %ops = blk.addptr %op, %r : tensor<4096x!blk.ptr<f32>>, tensor<4096xi32>
    blk.store %ops, %y, %m : tensor<4096x!blk.ptr<f32>>
  }
  return
}

// -----

// A bf16 weight and bias widened to f32 outside the loop (as LICM leaves a
// layernorm's `.to(F32)`): the loads are still hoisted ones, through their
// arith.extf. Both move to shared memory (as bf16, 32 KB each with 4
// warps) and each iteration reads them back and widens them inside the
// loop, so that no f32 copy stays live across the rows.

// CHECK:       module attributes {blkgpu.dynamic_shared_bytes = 65536 : i64, blkgpu.num_warps = 4 : i32, blkgpu.residency = "2 block(s) kept in shared memory"}
// CHECK-LABEL: func.func @widened_weights
// CHECK:         %[[W:.*]] = blkgpu.async_load %{{.*}} mask %{{.*}} {offset = 0 : i64}
// CHECK:         %[[B:.*]] = blkgpu.async_load %{{.*}} mask %{{.*}} {offset = 32768 : i64}
// CHECK-NOT:     arith.extf
// CHECK:         scf.for
// CHECK:           %[[X:.*]] = blk.load
// CHECK-DAG:       %[[WR:.*]] = blkgpu.local_load %[[W]]
// CHECK-DAG:       %[[BR:.*]] = blkgpu.local_load %[[B]]
// CHECK-DAG:       arith.extf %[[WR]]
// CHECK-DAG:       arith.extf %[[BR]]
// CHECK:           blk.store
// CHECK-NOT:     arith.extf
// CHECK:         return
func.func @widened_weights(%out: !blk.ptr<bf16>, %in: !blk.ptr<bf16>, %w: !blk.ptr<bf16>,
                           %b: !blk.ptr<bf16>, %rows: i32, %n: i32) {
  %r = blk.make_range 0 to 16384 : tensor<16384xi32>
  %nb = blk.splat %n : i32 -> tensor<16384xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<16384xi32>
  %wp = blk.splat %w : !blk.ptr<bf16> -> tensor<16384x!blk.ptr<bf16>>
  %wps = blk.addptr %wp, %r : tensor<16384x!blk.ptr<bf16>>, tensor<16384xi32>
  %wv = blk.load %wps, %m : tensor<16384x!blk.ptr<bf16>>
  %bp = blk.splat %b : !blk.ptr<bf16> -> tensor<16384x!blk.ptr<bf16>>
  %bps = blk.addptr %bp, %r : tensor<16384x!blk.ptr<bf16>>, tensor<16384xi32>
  %bv = blk.load %bps, %m : tensor<16384x!blk.ptr<bf16>>
  %wf = arith.extf %wv : tensor<16384xbf16> to tensor<16384xf32>
  %bf = arith.extf %bv : tensor<16384xbf16> to tensor<16384xf32>
  %pid = blk.program_id 0 : i32
  %np = blk.num_programs 0 : i32
  scf.for %row = %pid to %rows step %np : i32 {
    %off = arith.muli %row, %n : i32
    %xrow = blk.addptr %in, %off : !blk.ptr<bf16>, i32
    %xp = blk.splat %xrow : !blk.ptr<bf16> -> tensor<16384x!blk.ptr<bf16>>
    %xps = blk.addptr %xp, %r : tensor<16384x!blk.ptr<bf16>>, tensor<16384xi32>
    %x = blk.load %xps, %m : tensor<16384x!blk.ptr<bf16>>
    %xf = arith.extf %x : tensor<16384xbf16> to tensor<16384xf32>
    %xw = arith.mulf %xf, %wf : tensor<16384xf32>
    %y = arith.addf %xw, %bf : tensor<16384xf32>
    %yt = arith.truncf %y : tensor<16384xf32> to tensor<16384xbf16>
    %orow = blk.addptr %out, %off : !blk.ptr<bf16>, i32
    %op = blk.splat %orow : !blk.ptr<bf16> -> tensor<16384x!blk.ptr<bf16>>
    %ops = blk.addptr %op, %r : tensor<16384x!blk.ptr<bf16>>, tensor<16384xi32>
    blk.store %ops, %yt, %m : tensor<16384x!blk.ptr<bf16>>
  }
  return
}

// -----

// A stretched row (blkgpu.stretched_dims, from blk-sink-broadcasts: a weight
// row loaded at a 16 x 1024 tile's shape) is held once per thread: on 4 warps
// each thread's 128 registers of it are 16 repeats of 8 (the 4 row bits are
// register bits), so it counts 8 words beside the tile's 128 and stays a
// blk.load in registers, where shared memory would hold 16 copies of each
// element. Unmarked, the same hoisted block counts 128 words, 256 in all,
// and moves to shared memory (UNMARKED).

// CHECK-LABEL: func.func @stretched_weight
// CHECK-NOT:     blkgpu.async_load
// CHECK:         %[[W:.*]] = blk.load %{{.*}} {blkgpu.stretched_dims = array<i64: 0>}
// CHECK:         scf.for
// CHECK:           %[[X:.*]] = blk.load
// CHECK:           arith.mulf %[[X]], %[[W]]

// UNMARKED-LABEL: func.func @stretched_weight
// UNMARKED:         blkgpu.async_load
func.func @stretched_weight(%in: !blk.ptr<f32>, %w: !blk.ptr<f32>, %tiles: i32) {
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  %r2 = blk.expand_dims %r axis = 0 : tensor<1024xi32> -> tensor<1x1024xi32>
  %rb = blk.broadcast %r2 : tensor<1x1024xi32> -> tensor<16x1024xi32>
  %wp = blk.splat %w : !blk.ptr<f32> -> tensor<16x1024x!blk.ptr<f32>>
  %wps = blk.addptr %wp, %rb : tensor<16x1024x!blk.ptr<f32>>, tensor<16x1024xi32>
  %wv = blk.load %wps {blkgpu.stretched_dims = array<i64: 0>} : tensor<16x1024x!blk.ptr<f32>>
  %pid = blk.program_id 0 : i32
  %np = blk.num_programs 0 : i32
  scf.for %t = %pid to %tiles step %np : i32 {
    %xp = blk.splat %in : !blk.ptr<f32> -> tensor<16x1024x!blk.ptr<f32>>
    %xps = blk.addptr %xp, %rb : tensor<16x1024x!blk.ptr<f32>>, tensor<16x1024xi32>
    %x = blk.load %xps : tensor<16x1024x!blk.ptr<f32>>
    %y = arith.mulf %x, %wv : tensor<16x1024xf32>
    blk.store %xps, %y : tensor<16x1024x!blk.ptr<f32>>
  }
  return
}
