// RUN: blockjit-opt %s --split-input-file --blk-sink-broadcasts --canonicalize --cse | FileCheck %s

// blk-sink-broadcasts: the broadcasts of a 2-D softmax over rows. The tile's
// row and column indices and masks are computed at the tile's shape from
// broadcast ranges; each keep_dims reduction broadcast back becomes a
// blkgpu.all_reduce of the tile; the loaded tile's own broadcasts are gone.

// CHECK-LABEL: func.func @rows_softmax
// CHECK-DAG:     %[[R:.*]] = blk.make_range 0 to 16 : tensor<16xi32>
// CHECK-DAG:     %[[C:.*]] = blk.make_range 0 to 64 : tensor<64xi32>
// CHECK-DAG:     %[[R2:.*]] = blk.expand_dims %[[R]] axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
// CHECK-DAG:     %[[RB:.*]] = blk.broadcast %[[R2]] : tensor<16x1xi32> -> tensor<16x64xi32>
// CHECK-DAG:     %[[STRIDE:.*]] = blk.splat %arg2 : i32 -> tensor<16x64xi32>
// CHECK-DAG:     %[[ROFF:.*]] = arith.muli %[[RB]], %[[STRIDE]] : tensor<16x64xi32>
// CHECK-DAG:     %[[C2:.*]] = blk.expand_dims %[[C]] axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
// CHECK-DAG:     %[[CB:.*]] = blk.broadcast %[[C2]] : tensor<1x64xi32> -> tensor<16x64xi32>
// CHECK-DAG:     %[[OFFS:.*]] = arith.addi %[[ROFF]], %[[CB]] : tensor<16x64xi32>
// CHECK-DAG:     %[[RM:.*]] = arith.cmpi slt, %[[RB]], %{{.*}} : tensor<16x64xi32>
// CHECK-DAG:     %[[CM:.*]] = arith.cmpi slt, %[[CB]], %{{.*}} : tensor<16x64xi32>
// CHECK:         %[[X:.*]] = blk.load
// CHECK-NOT:     blk.reduce
// CHECK:         %[[M:.*]] = blkgpu.all_reduce max %[[X]] axis = 1 : tensor<16x64xf32>
// CHECK:         %[[D:.*]] = arith.subf %[[X]], %[[M]] : tensor<16x64xf32>
// CHECK:         %[[E:.*]] = math.exp %[[D]] : tensor<16x64xf32>
// CHECK:         %[[S:.*]] = blkgpu.all_reduce sum %[[E]] axis = 1 : tensor<16x64xf32>
// CHECK:         arith.divf %[[E]], %[[S]] : tensor<16x64xf32>
// CHECK-NOT:     blk.broadcast
// CHECK:         return
func.func @rows_softmax(%out: !blk.ptr<f32>, %in: !blk.ptr<f32>, %stride: i32, %n_rows: i32, %n_cols: i32) {
  %rows = blk.make_range 0 to 16 : tensor<16xi32>
  %cols = blk.make_range 0 to 64 : tensor<64xi32>
  %r2 = blk.expand_dims %rows axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
  %c2 = blk.expand_dims %cols axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %s = blk.splat %stride : i32 -> tensor<16x1xi32>
  %roff = arith.muli %r2, %s : tensor<16x1xi32>
  %roffb = blk.broadcast %roff : tensor<16x1xi32> -> tensor<16x64xi32>
  %coffb = blk.broadcast %c2 : tensor<1x64xi32> -> tensor<16x64xi32>
  %offs = arith.addi %roffb, %coffb : tensor<16x64xi32>
  %nr = blk.splat %n_rows : i32 -> tensor<16x1xi32>
  %rmask = arith.cmpi slt, %r2, %nr : tensor<16x1xi32>
  %nc = blk.splat %n_cols : i32 -> tensor<1x64xi32>
  %cmask = arith.cmpi slt, %c2, %nc : tensor<1x64xi32>
  %rmb = blk.broadcast %rmask : tensor<16x1xi1> -> tensor<16x64xi1>
  %cmb = blk.broadcast %cmask : tensor<1x64xi1> -> tensor<16x64xi1>
  %mask = arith.andi %rmb, %cmb : tensor<16x64xi1>
  %bases = blk.splat %in : !blk.ptr<f32> -> tensor<16x64x!blk.ptr<f32>>
  %ptrs = blk.addptr %bases, %offs : tensor<16x64x!blk.ptr<f32>>, tensor<16x64xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<16x64xf32>
  %x = blk.load %ptrs, %mask, %ninf : tensor<16x64x!blk.ptr<f32>>
  %m = blk.reduce max %x axis = 1 : tensor<16x64xf32> -> tensor<16xf32>
  %m2 = blk.expand_dims %m axis = 1 : tensor<16xf32> -> tensor<16x1xf32>
  %mb = blk.broadcast %m2 : tensor<16x1xf32> -> tensor<16x64xf32>
  %d = arith.subf %x, %mb : tensor<16x64xf32>
  %e = math.exp %d : tensor<16x64xf32>
  %sum = blk.reduce sum %e axis = 1 : tensor<16x64xf32> -> tensor<16xf32>
  %sum2 = blk.expand_dims %sum axis = 1 : tensor<16xf32> -> tensor<16x1xf32>
  %sb = blk.broadcast %sum2 : tensor<16x1xf32> -> tensor<16x64xf32>
  %y = arith.divf %e, %sb : tensor<16x64xf32>
  %obases = blk.splat %out : !blk.ptr<f32> -> tensor<16x64x!blk.ptr<f32>>
  %optrs = blk.addptr %obases, %offs : tensor<16x64x!blk.ptr<f32>>, tensor<16x64xi32>
  blk.store %optrs, %y, %mask : tensor<16x64x!blk.ptr<f32>>
  return
}

// -----

// Elementwise ops between a reduction and its broadcast (layernorm's
// rsqrt(sum / n + eps)) run on the all-reduced tile; a reduction with other
// uses stays for them.

// CHECK-LABEL: func.func @between
// CHECK:         %[[KEPT:.*]] = blk.reduce sum %arg0 axis = 0 : tensor<8x4xf32> -> tensor<4xf32>
// CHECK:         %[[S:.*]] = blkgpu.all_reduce sum %arg0 axis = 0 : tensor<8x4xf32>
// CHECK:         %[[Q:.*]] = arith.divf %[[S]], %{{.*}} : tensor<8x4xf32>
// CHECK:         %[[R:.*]] = math.rsqrt %[[Q]] : tensor<8x4xf32>
// CHECK:         arith.mulf %arg0, %[[R]] : tensor<8x4xf32>
// CHECK:         return %{{.*}}, %[[KEPT]]
func.func @between(%x: tensor<8x4xf32>, %n: f32) -> (tensor<8x4xf32>, tensor<4xf32>) {
  %s = blk.reduce sum %x axis = 0 : tensor<8x4xf32> -> tensor<4xf32>
  %ns = blk.splat %n : f32 -> tensor<4xf32>
  %q = arith.divf %s, %ns : tensor<4xf32>
  %r = math.rsqrt %q : tensor<4xf32>
  %r2 = blk.expand_dims %r axis = 0 : tensor<4xf32> -> tensor<1x4xf32>
  %rb = blk.broadcast %r2 : tensor<1x4xf32> -> tensor<8x4xf32>
  %y = arith.mulf %x, %rb : tensor<8x4xf32>
  return %y, %s : tensor<8x4xf32>, tensor<4xf32>
}

// -----

// What stays: the broadcast of a row loaded through pointers the pass
// cannot rebuild (a block the function was given), and of a
// reduction stretched to another shape than its operand's. A column maximum
// stretched back down the columns becomes an all-reduce along axis 0.

// CHECK-LABEL: func.func @kept
// CHECK:         %[[ROW:.*]] = blk.broadcast %{{.*}} : tensor<1x64xf32> -> tensor<16x64xf32>
// CHECK:         %[[OTHER:.*]] = blk.broadcast %{{.*}} : tensor<16x1xf32> -> tensor<16x32xf32>
// CHECK:         %[[COLUMNS:.*]] = blkgpu.all_reduce max %arg1 axis = 0 : tensor<16x64xf32>
// CHECK:         return %[[ROW]], %[[COLUMNS]], %[[OTHER]]
func.func @kept(%p: tensor<1x64x!blk.ptr<f32>>, %x: tensor<16x64xf32>, %z: tensor<16x32xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x32xf32>) {
  %row = blk.load %p : tensor<1x64x!blk.ptr<f32>>
  %rowb = blk.broadcast %row : tensor<1x64xf32> -> tensor<16x64xf32>
  %m = blk.reduce max %x axis = 1 : tensor<16x64xf32> -> tensor<16xf32>
  %m2 = blk.expand_dims %m axis = 1 : tensor<16xf32> -> tensor<16x1xf32>
  %other = blk.broadcast %m2 : tensor<16x1xf32> -> tensor<16x32xf32>
  %c = blk.reduce max %x axis = 0 : tensor<16x64xf32> -> tensor<64xf32>
  %c2 = blk.expand_dims %c axis = 0 : tensor<64xf32> -> tensor<1x64xf32>
  %cb = blk.broadcast %c2 : tensor<1x64xf32> -> tensor<16x64xf32>
  return %rowb, %cb, %other : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x32xf32>
}

// -----

// A one-element range under a broadcast is its start, a constant.

// CHECK-LABEL: func.func @one_row
// CHECK:         %[[C:.*]] = arith.constant dense<3> : tensor<1x64xi32>
// CHECK-NOT:     blk.broadcast
// CHECK:         return %[[C]]
func.func @one_row() -> tensor<1x64xi32> {
  %r = blk.make_range 3 to 4 : tensor<1xi32>
  %r2 = blk.expand_dims %r axis = 1 : tensor<1xi32> -> tensor<1x1xi32>
  %rb = blk.broadcast %r2 : tensor<1x1xi32> -> tensor<1x64xi32>
  return %rb : tensor<1x64xi32>
}

// -----

// A loaded row stretched over a tile's rows (a layernorm's weight, Triton's
// w[None, :]): its pointers, mask and `other` are rebuilt at the tile's
// shape and loaded there, marked stretched along dim 0, so each thread
// reads the columns it holds and no element crosses threads. The load stays
// where the row was loaded, before the store to the same buffer and outside
// the loop, so it reads what the row read. Both broadcasts of the row share
// one stretched load; the row's own use keeps the row.

// CHECK-LABEL: func.func @weight_row
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<16x64xf32>
// CHECK-DAG:     %[[C:.*]] = blk.make_range 0 to 64 : tensor<64xi32>
// CHECK-DAG:     %[[C2:.*]] = blk.expand_dims %[[C]] axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
// CHECK-DAG:     %[[CB:.*]] = blk.broadcast %[[C2]] : tensor<1x64xi32> -> tensor<16x64xi32>
// CHECK-DAG:     %[[MASK:.*]] = arith.cmpi slt, %[[CB]], %{{.*}} : tensor<16x64xi32>
// CHECK-DAG:     %[[BASE:.*]] = blk.splat %arg0 : !blk.ptr<f32> -> tensor<16x64x!blk.ptr<f32>>
// CHECK-DAG:     %[[PTRS:.*]] = blk.addptr %[[BASE]], %[[CB]] : tensor<16x64x!blk.ptr<f32>>, tensor<16x64xi32>
// CHECK-DAG:     %[[W:.*]] = blk.load %[[PTRS]], %[[MASK]], %[[ZERO]] {blkgpu.stretched_dims = array<i64: 0>} : tensor<16x64x!blk.ptr<f32>>
// CHECK-DAG:     %[[ROW:.*]] = blk.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x64x!blk.ptr<f32>>
// CHECK:         blk.store
// CHECK:         scf.for
// CHECK:           arith.mulf %{{.*}}, %[[W]] : tensor<16x64xf32>
// CHECK:           arith.addf %{{.*}}, %[[W]] : tensor<16x64xf32>
// CHECK-NOT:     blk.broadcast
// CHECK:         return %[[ROW]]
func.func @weight_row(%w: !blk.ptr<f32>, %x: tensor<16x64xf32>, %n: i32, %steps: i32) -> tensor<1x64xf32> {
  %cols = blk.make_range 0 to 64 : tensor<64xi32>
  %c2 = blk.expand_dims %cols axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %wb = blk.splat %w : !blk.ptr<f32> -> tensor<1x64x!blk.ptr<f32>>
  %wp = blk.addptr %wb, %c2 : tensor<1x64x!blk.ptr<f32>>, tensor<1x64xi32>
  %ns = blk.splat %n : i32 -> tensor<1x64xi32>
  %m = arith.cmpi slt, %c2, %ns : tensor<1x64xi32>
  %zero = arith.constant dense<0.0> : tensor<1x64xf32>
  %row = blk.load %wp, %m, %zero : tensor<1x64x!blk.ptr<f32>>
  %one = arith.constant dense<1.0> : tensor<1x64xf32>
  blk.store %wp, %one, %m : tensor<1x64x!blk.ptr<f32>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %steps step %c1 : i32 {
    %rowb = blk.broadcast %row : tensor<1x64xf32> -> tensor<16x64xf32>
    %y = arith.mulf %x, %rowb : tensor<16x64xf32>
    %rowb2 = blk.broadcast %row : tensor<1x64xf32> -> tensor<16x64xf32>
    %z = arith.addf %y, %rowb2 : tensor<16x64xf32>
    %xs = blk.splat %w : !blk.ptr<f32> -> tensor<16x64x!blk.ptr<f32>>
    blk.store %xs, %z : tensor<16x64x!blk.ptr<f32>>
  }
  return %row : tensor<1x64xf32>
}

// -----

// A 1-D load of one value per row ([16] then [:, None]) stretches along the
// columns, and so does a gather through such a load's offsets (two loads,
// both stretched); a load through pointers the pass cannot rebuild keeps its
// broadcast.

// CHECK-LABEL: func.func @column_and_gather
// CHECK:         %[[B:.*]] = blk.load %{{.*}} {blkgpu.stretched_dims = array<i64: 1>} : tensor<16x8x!blk.ptr<f32>>
// CHECK:         %[[O:.*]] = blk.load %{{.*}} {blkgpu.stretched_dims = array<i64: 1>} : tensor<16x8x!blk.ptr<i32>>
// CHECK:         %[[P:.*]] = blk.addptr %{{.*}}, %[[O]] : tensor<16x8x!blk.ptr<f32>>, tensor<16x8xi32>
// CHECK:         %[[V:.*]] = blk.load %[[P]] {blkgpu.stretched_dims = array<i64: 1>} : tensor<16x8x!blk.ptr<f32>>
// CHECK:         %[[G:.*]] = blk.broadcast %{{.*}} : tensor<16x1xf32> -> tensor<16x8xf32>
// CHECK:         return %[[B]], %[[V]], %[[G]]
func.func @column_and_gather(%bias: !blk.ptr<f32>, %offsets: !blk.ptr<i32>, %idx: tensor<16x1x!blk.ptr<f32>>) -> (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>) {
  %rows = blk.make_range 0 to 16 : tensor<16xi32>
  %bs = blk.splat %bias : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %bp = blk.addptr %bs, %rows : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  %b = blk.load %bp : tensor<16x!blk.ptr<f32>>
  %b2 = blk.expand_dims %b axis = 1 : tensor<16xf32> -> tensor<16x1xf32>
  %bb = blk.broadcast %b2 : tensor<16x1xf32> -> tensor<16x8xf32>
  %os = blk.splat %offsets : !blk.ptr<i32> -> tensor<16x!blk.ptr<i32>>
  %op = blk.addptr %os, %rows : tensor<16x!blk.ptr<i32>>, tensor<16xi32>
  %o = blk.load %op : tensor<16x!blk.ptr<i32>>
  %vp = blk.addptr %bs, %o : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  %v = blk.load %vp : tensor<16x!blk.ptr<f32>>
  %v2 = blk.expand_dims %v axis = 1 : tensor<16xf32> -> tensor<16x1xf32>
  %vb = blk.broadcast %v2 : tensor<16x1xf32> -> tensor<16x8xf32>
  %g = blk.load %idx : tensor<16x1x!blk.ptr<f32>>
  %gb = blk.broadcast %g : tensor<16x1xf32> -> tensor<16x8xf32>
  return %bb, %vb, %gb : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>
}

// -----

// A broadcast to its own shape of a rebuildable load stretches nothing: the
// rebuilt load carries no (empty) blkgpu.stretched_dims.

// CHECK-LABEL: func.func @same_shape
// CHECK:         %[[X:.*]] = blk.load %{{.*}} : tensor<64x!blk.ptr<f32>>
// CHECK-NOT:     stretched_dims
// CHECK:         return %[[X]]
func.func @same_shape(%p: !blk.ptr<f32>) -> tensor<64xf32> {
  %r = blk.make_range 0 to 64 : tensor<64xi32>
  %s = blk.splat %p : !blk.ptr<f32> -> tensor<64x!blk.ptr<f32>>
  %q = blk.addptr %s, %r : tensor<64x!blk.ptr<f32>>, tensor<64xi32>
  %x = blk.load %q : tensor<64x!blk.ptr<f32>>
  %b = blk.broadcast %x : tensor<64xf32> -> tensor<64xf32>
  return %b : tensor<64xf32>
}
