// RUN: blockjit-opt %s --split-input-file --blk-version-prefix-masks | FileCheck %s
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=1" --blk-version-prefix-masks --convert-blk-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=NVVM
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=1" --blk-version-prefix-masks | FileCheck %s --check-prefix=LAYOUT

// blk-version-prefix-masks: a causal row load, `cols < n` (loop-invariant)
// and `cols <= row` (a prefix that changes with the row). The load goes
// into an scf.if on whether the causal term holds for the whole block, the
// last index 127 <= row, voted on by the warp: then it runs under `cols < n`
// alone, else under the whole mask. The store's mask is loop-invariant: it
// stays as it is.

// CHECK-LABEL: func.func @causal
// CHECK:         %[[RANGE:.*]] = blk.make_range 0 to 128
// CHECK:         %[[ROWMASK:.*]] = arith.cmpi slt, %[[RANGE]]
// CHECK:         scf.for %[[ROW:.*]] = 
// CHECK:           %[[CAUSAL:.*]] = arith.andi %[[ROWMASK]]
// CHECK:           %[[LAST:.*]] = arith.constant 127 : i64
// CHECK:           %[[WIDE:.*]] = arith.extsi %[[ROW]] : i32 to i64
// CHECK:           %[[HOLDS:.*]] = arith.cmpi sle, %[[LAST]], %[[WIDE]] : i64
// CHECK:           %[[ALL:.*]] = nvvm.vote.sync all %{{.*}}, %[[HOLDS]] -> i1
// CHECK:           %[[X:.*]] = scf.if %[[ALL]] -> (tensor<128xf32>) {
// CHECK-NEXT:        %[[FAST:.*]] = blk.load %[[P:.*]], %[[ROWMASK]], %{{.*}} : tensor<128x!blk.ptr<f32>>
// CHECK-NEXT:        scf.yield %[[FAST]]
// CHECK-NEXT:      } else {
// CHECK-NEXT:        %[[SLOW:.*]] = blk.load %[[P]], %[[CAUSAL]], %{{.*}} : tensor<128x!blk.ptr<f32>>
// CHECK-NEXT:        scf.yield %[[SLOW]]
// CHECK-NEXT:      } {blkgpu.versioned_access}
// CHECK:           blk.store %{{.*}}, %[[X]], %[[ROWMASK]] : tensor<128x!blk.ptr<f32>>
// CHECK-NOT:       scf.if

// Lowered on one warp (4 elements a thread), both versions are per-thread
// code under the warp-uniform branch: the vote, then the scf.if whose
// results are the thread's 4 elements, 4-wide vector loads inside.
// NVVM-LABEL: func.func @causal
// NVVM:         scf.for
// NVVM:           %[[ALL:.*]] = nvvm.vote.sync all
// NVVM-NEXT:      scf.if %[[ALL]] -> (f32, f32, f32, f32) {
// NVVM:             llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
func.func @causal(%out: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %n: i32, %n_rows: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c128 = arith.constant 128 : i32
  %ninf = arith.constant dense<0xFF800000> : tensor<128xf32>
  %cols = blk.make_range 0 to 128 : tensor<128xi32>
  %nb = blk.splat %n : i32 -> tensor<128xi32>
  %in_row = arith.cmpi slt, %cols, %nb : tensor<128xi32>
  scf.for %row = %c0 to %n_rows step %c1 : i32 {
    %rowb = blk.splat %row : i32 -> tensor<128xi32>
    %below = arith.cmpi sle, %cols, %rowb : tensor<128xi32>
    %mask = arith.andi %in_row, %below : tensor<128xi1>
    %start = arith.muli %row, %c128 : i32
    %base = blk.addptr %in, %start : !blk.ptr<f32>, i32
    %bases = blk.splat %base : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
    %ptrs = blk.addptr %bases, %cols : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
    %x = blk.load %ptrs, %mask, %ninf : tensor<128x!blk.ptr<f32>>
    %obase = blk.addptr %out, %start : !blk.ptr<f32>, i32
    %obases = blk.splat %obase : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
    %optrs = blk.addptr %obases, %cols : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
    blk.store %optrs, %x, %in_row : tensor<128x!blk.ptr<f32>>
  }
  return
}

// -----

// A chunk loop: `chunk + cols < n` holds for the whole chunk where
// chunk + 255 < n (and chunk + 0 .. chunk + 255 do not wrap in 32 bits);
// both the load and the store lose their whole mask on that path (the loop
// runs to `n`: a loop LLVM keeps, where the fast path is the cheaper one).

// CHECK-LABEL: func.func @chunks
// CHECK:         scf.for %[[CHUNK:.*]] =
// CHECK:           %[[C256:.*]] = arith.constant 256 : i64
// CHECK:           %[[OFF:.*]] = arith.extsi %[[CHUNK]] : i32 to i64
// CHECK:           %[[LIMIT:.*]] = arith.addi %[[C256]], %[[OFF]] : i64
// CHECK:           %[[HOLDS:.*]] = arith.cmpi sle, %[[LIMIT]], %{{.*}} : i64
// CHECK:           %[[TOP:.*]] = arith.constant 2147483392 : i64
// CHECK:           %[[WRAPS:.*]] = arith.cmpi sgt, %[[OFF]], %[[TOP]] : i64
// CHECK:           %[[NOWRAP:.*]] = arith.xori %[[WRAPS]]
// CHECK:           %[[BOTH:.*]] = arith.andi %[[HOLDS]], %[[NOWRAP]] : i1
// CHECK:           %[[ALL:.*]] = nvvm.vote.sync all %{{.*}}, %[[BOTH]] -> i1
// CHECK:           scf.if %[[ALL]] -> (tensor<256xf16>) {
// CHECK-NEXT:        blk.load %{{.*}} : tensor<256x!blk.ptr<f16>>
// CHECK-NEXT:        scf.yield
// CHECK:           } {blkgpu.versioned_access}
// CHECK:           nvvm.vote.sync all
// CHECK:           scf.if %{{.*}} {
// CHECK-NEXT:        blk.store %{{.*}}, %{{.*}} : tensor<256x!blk.ptr<f16>>
// CHECK-NEXT:      } else {
// CHECK-NEXT:        blk.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<256x!blk.ptr<f16>>
// CHECK-NEXT:      } {blkgpu.versioned_access}
func.func @chunks(%out: !blk.ptr<f16>, %in: !blk.ptr<f16>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c256 = arith.constant 256 : i32
  %cols = blk.make_range 0 to 256 : tensor<256xi32>
  %nb = blk.splat %n : i32 -> tensor<256xi32>
  scf.for %chunk = %c0 to %n step %c256 : i32 {
    %chunkb = blk.splat %chunk : i32 -> tensor<256xi32>
    %idx = arith.addi %chunkb, %cols : tensor<256xi32>
    %mask = arith.cmpi slt, %idx, %nb : tensor<256xi32>
    %bases = blk.splat %in : !blk.ptr<f16> -> tensor<256x!blk.ptr<f16>>
    %ptrs = blk.addptr %bases, %idx : tensor<256x!blk.ptr<f16>>, tensor<256xi32>
    %x = blk.load %ptrs, %mask : tensor<256x!blk.ptr<f16>>
    %obases = blk.splat %out : !blk.ptr<f16> -> tensor<256x!blk.ptr<f16>>
    %optrs = blk.addptr %obases, %idx : tensor<256x!blk.ptr<f16>>, tensor<256xi32>
    blk.store %optrs, %x, %mask : tensor<256x!blk.ptr<f16>>
  }
  return
}

// -----

// Left alone: a mask outside any loop, a loop-invariant prefix, a bound
// that is not a splat (a loaded block), a suffix (`cols >= row`, not a
// prefix), and a 64-bit index.

// CHECK-LABEL: func.func @untouched
// CHECK-NOT:     scf.if
// CHECK-NOT:     nvvm.vote.sync
// CHECK:         return
func.func @untouched(%data: !blk.ptr<i32>, %bounds: !blk.ptr<i32>, %n: i32, %n64: i64) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cols = blk.make_range 0 to 64 : tensor<64xi32>
  %nb = blk.splat %n : i32 -> tensor<64xi32>
  %in_row = arith.cmpi slt, %cols, %nb : tensor<64xi32>
  %bases = blk.splat %data : !blk.ptr<i32> -> tensor<64x!blk.ptr<i32>>
  %ptrs = blk.addptr %bases, %cols : tensor<64x!blk.ptr<i32>>, tensor<64xi32>
  %once = blk.load %ptrs, %in_row : tensor<64x!blk.ptr<i32>>
  %bbases = blk.splat %bounds : !blk.ptr<i32> -> tensor<64x!blk.ptr<i32>>
  %bptrs = blk.addptr %bbases, %cols : tensor<64x!blk.ptr<i32>>, tensor<64xi32>
  scf.for %row = %c0 to %n step %c1 : i32 {
    %invariant = blk.load %ptrs, %in_row : tensor<64x!blk.ptr<i32>>
    %loaded = blk.load %bptrs : tensor<64x!blk.ptr<i32>>
    %rowb = blk.splat %row : i32 -> tensor<64xi32>
    %shifted = arith.addi %loaded, %rowb : tensor<64xi32>
    %by_load = arith.cmpi slt, %cols, %shifted : tensor<64xi32>
    %a = blk.load %ptrs, %by_load : tensor<64x!blk.ptr<i32>>
    %suffix = arith.cmpi sge, %cols, %rowb : tensor<64xi32>
    %b = blk.load %ptrs, %suffix : tensor<64x!blk.ptr<i32>>
    %cols64 = arith.extsi %cols : tensor<64xi32> to tensor<64xi64>
    %row64 = arith.extsi %row : i32 to i64
    %rowb64 = blk.splat %row64 : i64 -> tensor<64xi64>
    %wide = arith.cmpi sle, %cols64, %rowb64 : tensor<64xi64>
    %c = blk.load %ptrs, %wide : tensor<64x!blk.ptr<i32>>
    %s1 = arith.addi %invariant, %a : tensor<64xi32>
    %s2 = arith.addi %b, %c : tensor<64xi32>
    %s = arith.addi %s1, %s2 : tensor<64xi32>
    blk.store %ptrs, %s, %in_row : tensor<64x!blk.ptr<i32>>
  }
  blk.store %ptrs, %once, %in_row : tensor<64x!blk.ptr<i32>>
  return
}

// -----

// With layouts: on one warp, a block of 2048 is 64 elements a thread, more
// than the 32 of which an access is versioned (two copies of it cost more
// than the fast one saves where it is not taken): the causal load stays as
// it is.

// NVVM-LABEL: func.func @many_per_thread
// NVVM-NOT:     nvvm.vote.sync
// NVVM:         return
func.func @many_per_thread(%out: !blk.ptr<f32>, %in: !blk.ptr<f32>, %n_rows: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cols = blk.make_range 0 to 2048 : tensor<2048xi32>
  scf.for %row = %c0 to %n_rows step %c1 : i32 {
    %rowb = blk.splat %row : i32 -> tensor<2048xi32>
    %below = arith.cmpi sle, %cols, %rowb : tensor<2048xi32>
    %bases = blk.splat %in : !blk.ptr<f32> -> tensor<2048x!blk.ptr<f32>>
    %ptrs = blk.addptr %bases, %cols : tensor<2048x!blk.ptr<f32>>, tensor<2048xi32>
    %x = blk.load %ptrs, %below : tensor<2048x!blk.ptr<f32>>
    %obases = blk.splat %out : !blk.ptr<f32> -> tensor<2048x!blk.ptr<f32>>
    %optrs = blk.addptr %obases, %cols : tensor<2048x!blk.ptr<f32>>, tensor<2048xi32>
    blk.store %optrs, %x : tensor<2048x!blk.ptr<f32>>
  }
  return
}

// -----

// A chunk loop of a known trip count (0 to 512, which LLVM unrolls) over
// vectors: pointers and `n` divisible by 16, so each thread's 4-element
// vector is wholly in or wholly past `chunk + cols < n`. The load is not
// versioned but marked blkgpu.branch_free: lowered, each
// vector loads from its own address where it is on and from the module's
// stand-in (16 zero bytes of global memory) where it is off, then selects
// `other` there; no branch parts it from the loads after it. The store
// keeps its version.

// LAYOUT-LABEL: func.func @chunk_vectors
// LAYOUT:         scf.for
// LAYOUT-NOT:       scf.if
// LAYOUT:           %[[X:.*]] = blk.load %{{.*}}, %{{.*}}, %{{.*}} {blkgpu.branch_free} : tensor<128x!blk.ptr<f32>
// LAYOUT:           nvvm.vote.sync all
// LAYOUT:           scf.if
// LAYOUT-NEXT:        blk.store %{{.*}}, %[[X]] :
// LAYOUT:           } {blkgpu.versioned_access}

// NVVM:         llvm.mlir.global internal constant @__blk_masked_load_stand_in("\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00") {addr_space = 1 : i32, alignment = 16 : i64}
// NVVM-LABEL: func.func @chunk_vectors
// NVVM:         %[[STANDIN:.*]] = llvm.mlir.addressof @__blk_masked_load_stand_in : !llvm.ptr<1>
// NVVM:         scf.for
// NVVM-NOT:       scf.if
// NVVM:           %[[ON:.*]] = arith.cmpi slt
// NVVM-NOT:       scf.if
// NVVM:           %[[SOURCE:.*]] = llvm.select %[[ON]], %{{.*}}, %[[STANDIN]] : i1, !llvm.ptr<1>
// NVVM-NEXT:      %[[LOADED:.*]] = llvm.load %[[SOURCE]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// NVVM:           arith.select %[[ON]], %[[LOADED]], %{{.*}} : vector<4xf32>
// NVVM:           scf.if
func.func @chunk_vectors(%out: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %n: i32 {blk.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %c512 = arith.constant 512 : i32
  %other = arith.constant dense<-1.0> : tensor<128xf32>
  %cols = blk.make_range 0 to 128 : tensor<128xi32>
  %nb = blk.splat %n : i32 -> tensor<128xi32>
  scf.for %chunk = %c0 to %c512 step %c128 : i32 {
    %chunkb = blk.splat %chunk : i32 -> tensor<128xi32>
    %idx = arith.addi %chunkb, %cols : tensor<128xi32>
    %mask = arith.cmpi slt, %idx, %nb : tensor<128xi32>
    %bases = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
    %ptrs = blk.addptr %bases, %idx : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
    %x = blk.load %ptrs, %mask, %other : tensor<128x!blk.ptr<f32>>
    %obases = blk.splat %out : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
    %optrs = blk.addptr %obases, %idx : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
    blk.store %optrs, %x, %mask : tensor<128x!blk.ptr<f32>>
  }
  return
}

// -----

// The same vectors in a loop that runs to `n` (softmax_online's chunks):
// LLVM keeps the loop, whose version's fast path, with no mask at all, is
// the cheaper one, so the load is versioned as before.

// LAYOUT-LABEL: func.func @chunk_vectors_to_n
// LAYOUT-NOT:     blkgpu.branch_free
// LAYOUT:         scf.if
// LAYOUT-NEXT:      blk.load %{{.*}} : tensor<128x!blk.ptr<f32>
// LAYOUT:         } {blkgpu.versioned_access}
func.func @chunk_vectors_to_n(%out: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %n: i32 {blk.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %cols = blk.make_range 0 to 128 : tensor<128xi32>
  %nb = blk.splat %n : i32 -> tensor<128xi32>
  scf.for %chunk = %c0 to %n step %c128 : i32 {
    %chunkb = blk.splat %chunk : i32 -> tensor<128xi32>
    %idx = arith.addi %chunkb, %cols : tensor<128xi32>
    %mask = arith.cmpi slt, %idx, %nb : tensor<128xi32>
    %bases = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
    %ptrs = blk.addptr %bases, %idx : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
    %x = blk.load %ptrs, %mask : tensor<128x!blk.ptr<f32>>
    %obases = blk.splat %out : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
    %optrs = blk.addptr %obases, %idx : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
    blk.store %optrs, %x : tensor<128x!blk.ptr<f32>>
  }
  return
}

// -----

// A row loop's loads under the row bound `cols < n` (loop-invariant:
// nothing to version) whose vectors are wholly in or wholly past n (pointers
// and n divisible by 16): marked blkgpu.branch_free too, so that no branch
// parts the second load from the first (softmax_backward's y and dy).
// Lowered, a vector that is off reads the stand-in; with no `other` (or a
// zero one) the stand-in's zero bytes are the value, so no select of it
// follows; with -inf it does. The store keeps its branch.

// LAYOUT-LABEL: func.func @row_loads
// LAYOUT:         scf.for
// LAYOUT-NOT:       scf.if
// LAYOUT:           blk.load %{{.*}}, %{{.*}} {blkgpu.branch_free} : tensor<256x!blk.ptr<f32>,
// LAYOUT-NOT:       scf.if
// LAYOUT:           blk.load %{{.*}}, %{{.*}}, %{{.*}} {blkgpu.branch_free} : tensor<256x!blk.ptr<f32>,

// NVVM-LABEL: func.func @row_loads
// NVVM:         %[[STANDIN:.*]] = llvm.mlir.addressof @__blk_masked_load_stand_in : !llvm.ptr<1>
// NVVM:         scf.for
// NVVM-NOT:       scf.if
// NVVM:           %[[SOURCE:.*]] = llvm.select %[[ON:.*]], %{{.*}}, %[[STANDIN]] : i1, !llvm.ptr<1>
// NVVM-NEXT:      %[[Y:.*]] = llvm.load %[[SOURCE]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// NVVM-NOT:       arith.select %[[ON]], %[[Y]]
// NVVM-NOT:       scf.if
// NVVM:           %[[SOURCE2:.*]] = llvm.select %[[ON]], %{{.*}}, %[[STANDIN]] : i1, !llvm.ptr<1>
// NVVM-NEXT:      %[[DY:.*]] = llvm.load %[[SOURCE2]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// NVVM:           arith.select %[[ON]], %[[DY]], %{{.*}} : vector<4xf32>
// NVVM:           scf.if
func.func @row_loads(%out: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %y: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %dy: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %n: i32 {blk.divisibility = 16 : i32}, %n_rows: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ninf = arith.constant dense<0xFF800000> : tensor<256xf32>
  %cols = blk.make_range 0 to 256 : tensor<256xi32>
  %nb = blk.splat %n : i32 -> tensor<256xi32>
  %mask = arith.cmpi slt, %cols, %nb : tensor<256xi32>
  scf.for %row = %c0 to %n_rows step %c1 : i32 {
    %start = arith.muli %row, %n : i32
    %startb = blk.splat %start : i32 -> tensor<256xi32>
    %idx = arith.addi %startb, %cols : tensor<256xi32>
    %ybases = blk.splat %y : !blk.ptr<f32> -> tensor<256x!blk.ptr<f32>>
    %yptrs = blk.addptr %ybases, %idx : tensor<256x!blk.ptr<f32>>, tensor<256xi32>
    %a = blk.load %yptrs, %mask : tensor<256x!blk.ptr<f32>>
    %dybases = blk.splat %dy : !blk.ptr<f32> -> tensor<256x!blk.ptr<f32>>
    %dyptrs = blk.addptr %dybases, %idx : tensor<256x!blk.ptr<f32>>, tensor<256xi32>
    %b = blk.load %dyptrs, %mask, %ninf : tensor<256x!blk.ptr<f32>>
    %prod = arith.mulf %a, %b : tensor<256xf32>
    %obases = blk.splat %out : !blk.ptr<f32> -> tensor<256x!blk.ptr<f32>>
    %optrs = blk.addptr %obases, %idx : tensor<256x!blk.ptr<f32>>, tensor<256xi32>
    blk.store %optrs, %prod, %mask : tensor<256x!blk.ptr<f32>>
  }
  return
}
