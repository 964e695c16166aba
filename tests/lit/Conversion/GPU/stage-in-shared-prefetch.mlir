// RUN: blockjit-opt %s --split-input-file --blk-pipeline-loads="num-stages=2" --canonicalize --blk-assign-layouts="num-warps=4" --blk-stage-in-shared | FileCheck %s --check-prefix=ONE
// RUN: blockjit-opt %s --split-input-file --blk-pipeline-loads="num-stages=3" --canonicalize --blk-assign-layouts="num-warps=4" --blk-stage-in-shared | FileCheck %s --check-prefix=TWO
// RUN: blockjit-opt %s --split-input-file --blk-pipeline-loads="num-stages=2" --canonicalize --blk-assign-layouts="num-warps=32" --blk-stage-in-shared | FileCheck %s --check-prefix=FITS
// RUN: blockjit-opt %s --split-input-file --blk-pipeline-loads="num-stages=3" --canonicalize --blk-assign-layouts="num-warps=4" --blk-stage-in-shared="sm-arch=75" | FileCheck %s --check-prefix=SM75
// RUN: blockjit-opt %s --split-input-file --blk-pipeline-loads="num-stages=3" --canonicalize --blk-assign-layouts="num-warps=4" --blk-stage-in-shared --convert-blk-to-nvvm --canonicalize | FileCheck %s --check-prefix=NVVM

// Rows loaded ahead (blk-pipeline-loads, num_stages = s) whose copies in
// registers (the row in use and the s - 1 in flight) would exceed five
// eighths of a thread's registers wait in shared memory instead: the
// prologue's loads become async_loads at consecutive offsets, the loop
// carries the blocks in shared memory, and each iteration waits until its
// row has landed (s - 2 newer rows may still be in flight), reads it into
// registers once, and starts the row s - 1 iterations on in the buffer it
// has just read. After the loop, nothing is left in flight.
//
// A 16384-element f32 row on 4 warps is 128 registers a thread: 2 copies
// (ONE) or 3 (TWO) do not fit, 64 KB of shared memory each. On 32 warps a
// thread holds 16 elements and the copies stay in registers (FITS). On
// sm_75 (60 KB for the kernel) a 64 KB row does not fit in shared memory,
// and the module says why (SM75).

// ONE:          module attributes {blkgpu.dynamic_shared_bytes = 65536 : i64, blkgpu.num_warps = 4 : i32, blkgpu.residency = "1 block(s) loaded ahead into shared memory (1 row(s) in flight)"}
// ONE-LABEL:    func.func @softmax_rows
// ONE:            %[[FIRST:.*]] = blkgpu.async_load %{{.*}} mask %{{.*}} other %{{.*}} {offset = 0 : i64} : tensor<16384x!blk.ptr<f32>, #blkgpu.blocked<{{.*}}>> -> tensor<16384xf32, #blkgpu.shared<{{.*}}>>
// ONE-NEXT:       scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[BUF:.*]] = %[[FIRST]]) -> (tensor<16384xf32, #blkgpu.shared<{{.*}}>>)
// ONE-NEXT:         blkgpu.async_wait {pending = 0 : i32}
// ONE-NEXT:         %[[ROW:.*]] = blkgpu.local_load %[[BUF]]
// ONE:              %[[NEXT:.*]] = blkgpu.async_load %{{.*}} mask %{{.*}} other %{{.*}} into %[[BUF]]
// ONE:              blk.reduce max %[[ROW]]
// ONE:              arith.subf %[[ROW]]
// ONE-NOT:          blkgpu.local_load
// ONE:              scf.yield %[[NEXT]]
// ONE:            blkgpu.async_wait {pending = 0 : i32}
// ONE-NEXT:       return

// TWO:          module attributes {blkgpu.dynamic_shared_bytes = 131072 : i64, blkgpu.num_warps = 4 : i32, blkgpu.residency = "1 block(s) loaded ahead into shared memory (2 row(s) in flight)"}
// TWO-LABEL:    func.func @softmax_rows
// TWO:            %[[R0:.*]] = blkgpu.async_load {{.*}} {offset = 0 : i64}
// TWO:            %[[R1:.*]] = blkgpu.async_load {{.*}} {offset = 65536 : i64}
// TWO-NEXT:       scf.for {{.*}} iter_args(%[[B0:.*]] = %[[R0]], %[[B1:.*]] = %[[R1]])
// TWO-NEXT:         blkgpu.async_wait {pending = 1 : i32}
// TWO-NEXT:         blkgpu.local_load %[[B0]]
// TWO:              %[[NEXT:.*]] = blkgpu.async_load {{.*}} into %[[B0]]
// TWO:              scf.yield %[[B1]], %[[NEXT]]

// FITS:         module attributes {blkgpu.num_warps = 32 : i32}
// FITS-NOT:     blkgpu.async_load
// FITS:         scf.for
// FITS:           blk.load
// FITS:           scf.yield

// SM75:         module attributes {blkgpu.num_warps = 4 : i32, blkgpu.residency = "rows loaded ahead stay in registers: they need 131072 more bytes of shared memory per CTA"}
// SM75-NOT:     blkgpu.async_load

// The same after convert-blk-to-nvvm: one commit per row, the loop's wait leaves the newer
// row in flight, and the copies of the row ahead go to the buffer address
// the loop carries.
// NVVM-LABEL:   func.func @softmax_rows
// NVVM-COUNT-2:   nvvm.cp.async.commit.group
// NVVM:           scf.for {{.*}} iter_args(%[[A0:.*]] = %{{.*}}, %[[A1:.*]] = %{{.*}}) -> (!llvm.ptr<3>, !llvm.ptr<3>)
// NVVM-NEXT:        nvvm.cp.async.wait.group 1
// NVVM-NEXT:        llvm.getelementptr %[[A0]]
// NVVM:             nvvm.cp.async.shared.global
// NVVM:             nvvm.cp.async.commit.group
// NVVM-NOT:         nvvm.cp.async.wait.group
// NVVM:             scf.yield %[[A1]], %[[A0]]
// NVVM:           nvvm.cp.async.wait.group 0
func.func @softmax_rows(%out: !blk.ptr<f32>, %in: !blk.ptr<f32>, %rows: i32, %n: i32) {
  %pid = blk.program_id 0 : i32
  %np = blk.num_programs 0 : i32
  scf.for %row = %pid to %rows step %np : i32 {
    %r = blk.make_range 0 to 16384 : tensor<16384xi32>
    %nb = blk.splat %n : i32 -> tensor<16384xi32>
    %m = arith.cmpi slt, %r, %nb : tensor<16384xi32>
    %off = arith.muli %row, %n : i32
    %base = blk.addptr %in, %off : !blk.ptr<f32>, i32
    %p = blk.splat %base : !blk.ptr<f32> -> tensor<16384x!blk.ptr<f32>>
    %ptrs = blk.addptr %p, %r : tensor<16384x!blk.ptr<f32>>, tensor<16384xi32>
    %ninf = arith.constant dense<0xFF800000> : tensor<16384xf32>
    %x = blk.load %ptrs, %m, %ninf : tensor<16384x!blk.ptr<f32>>
    %mx = blk.reduce max %x axis = 0 : tensor<16384xf32> -> f32
    %ms = blk.splat %mx : f32 -> tensor<16384xf32>
    %d = arith.subf %x, %ms : tensor<16384xf32>
    %e = math.exp %d : tensor<16384xf32>
    %s = blk.reduce sum %e axis = 0 : tensor<16384xf32> -> f32
    %ss = blk.splat %s : f32 -> tensor<16384xf32>
    %y = arith.divf %e, %ss : tensor<16384xf32>
    %obase = blk.addptr %out, %off : !blk.ptr<f32>, i32
    %q = blk.splat %obase : !blk.ptr<f32> -> tensor<16384x!blk.ptr<f32>>
    %qs = blk.addptr %q, %r : tensor<16384x!blk.ptr<f32>>, tensor<16384xi32>
    blk.store %qs, %y, %m : tensor<16384x!blk.ptr<f32>>
  }
  return
}

// -----

// Two rows loaded ahead per iteration (softmax_backward's y and dy), 8192
// f32 each: the prologue starts row 0 of both before row 1 of either, so
// each wait counts the other chain's rows too (pending = 2 with two rows
// in flight per chain, TWO). On 32 warps (8 elements a thread) they stay
// in registers (FITS); on sm_75 128 KB do not fit (SM75).

// ONE:          module attributes {blkgpu.dynamic_shared_bytes = 65536 : i64, blkgpu.num_warps = 4 : i32, blkgpu.residency = "2 block(s) loaded ahead into shared memory (1 row(s) in flight)"}
// ONE-LABEL:    func.func @backward_rows
// ONE:            %[[Y:.*]] = blkgpu.async_load {{.*}} {offset = 0 : i64}
// ONE-NEXT:       %[[DY:.*]] = blkgpu.async_load {{.*}} {offset = 32768 : i64}
// ONE-NEXT:       scf.for {{.*}} iter_args(%[[BY:.*]] = %[[Y]], %[[BDY:.*]] = %[[DY]])
// ONE-NEXT:         blkgpu.async_wait {pending = 0 : i32}
// ONE-NEXT:         blkgpu.local_load %[[BY]]
// ONE-NEXT:         blkgpu.local_load %[[BDY]]
// ONE:              %[[NY:.*]] = blkgpu.async_load {{.*}} into %[[BY]]
// ONE:              %[[NDY:.*]] = blkgpu.async_load {{.*}} into %[[BDY]]
// ONE:              scf.yield %[[NY]], %[[NDY]]

// TWO:          module attributes {blkgpu.dynamic_shared_bytes = 131072 : i64, blkgpu.num_warps = 4 : i32, blkgpu.residency = "2 block(s) loaded ahead into shared memory (2 row(s) in flight)"}
// TWO-LABEL:    func.func @backward_rows
// TWO:            %[[Y0:.*]] = blkgpu.async_load {{.*}} {offset = 0 : i64}
// TWO-NEXT:       %[[DY0:.*]] = blkgpu.async_load {{.*}} {offset = 32768 : i64}
// TWO-NEXT:       %[[Y1:.*]] = blkgpu.async_load {{.*}} {offset = 65536 : i64}
// TWO-NEXT:       %[[DY1:.*]] = blkgpu.async_load {{.*}} {offset = 98304 : i64}
// TWO-NEXT:       scf.for {{.*}} iter_args(%[[A:.*]] = %[[Y0]], %[[B:.*]] = %[[Y1]], %[[C:.*]] = %[[DY0]], %[[D:.*]] = %[[DY1]])
// TWO-NEXT:         blkgpu.async_wait {pending = 2 : i32}
// TWO:              %[[NY:.*]] = blkgpu.async_load {{.*}} into %[[A]]
// TWO:              %[[NDY:.*]] = blkgpu.async_load {{.*}} into %[[C]]
// TWO:              scf.yield %[[B]], %[[NY]], %[[D]], %[[NDY]]

// FITS:         module attributes {blkgpu.num_warps = 32 : i32}
// FITS-NOT:     blkgpu.async_load

// SM75:         module attributes {blkgpu.num_warps = 4 : i32, blkgpu.residency = "rows loaded ahead stay in registers: they need 131072 more bytes of shared memory per CTA"}
// SM75-NOT:     blkgpu.async_load

// NVVM-LABEL:   func.func @backward_rows
// NVVM-COUNT-4:   nvvm.cp.async.commit.group
// NVVM:           scf.for
// NVVM-NEXT:        nvvm.cp.async.wait.group 2
func.func @backward_rows(%dx: !blk.ptr<f32>, %y: !blk.ptr<f32>, %dy: !blk.ptr<f32>, %rows: i32) {
  %pid = blk.program_id 0 : i32
  %np = blk.num_programs 0 : i32
  scf.for %row = %pid to %rows step %np : i32 {
    %r = blk.make_range 0 to 8192 : tensor<8192xi32>
    %off = arith.muli %row, %rows : i32
    %yb = blk.addptr %y, %off : !blk.ptr<f32>, i32
    %yp = blk.splat %yb : !blk.ptr<f32> -> tensor<8192x!blk.ptr<f32>>
    %yps = blk.addptr %yp, %r : tensor<8192x!blk.ptr<f32>>, tensor<8192xi32>
    %dyb = blk.addptr %dy, %off : !blk.ptr<f32>, i32
    %dyp = blk.splat %dyb : !blk.ptr<f32> -> tensor<8192x!blk.ptr<f32>>
    %dyps = blk.addptr %dyp, %r : tensor<8192x!blk.ptr<f32>>, tensor<8192xi32>
    %yv = blk.load %yps : tensor<8192x!blk.ptr<f32>>
    %dyv = blk.load %dyps : tensor<8192x!blk.ptr<f32>>
    %p = arith.mulf %yv, %dyv : tensor<8192xf32>
    %s = blk.reduce sum %p axis = 0 : tensor<8192xf32> -> f32
    %ss = blk.splat %s : f32 -> tensor<8192xf32>
    %d = arith.subf %dyv, %ss : tensor<8192xf32>
    %g = arith.mulf %yv, %d : tensor<8192xf32>
    %ob = blk.addptr %dx, %off : !blk.ptr<f32>, i32
    %op = blk.splat %ob : !blk.ptr<f32> -> tensor<8192x!blk.ptr<f32>>
    %ops = blk.addptr %op, %r : tensor<8192x!blk.ptr<f32>>, tensor<8192xi32>
    blk.store %ops, %g : tensor<8192x!blk.ptr<f32>>
  }
  return
}

// -----

// A 32768-element f32 row on 4 warps is 256 registers a thread, too many
// even once (blocks past 128 go to shared memory); its prologue load is
// its chain's and is staged once, at offset 0 (ONE; once crashed the pass).
// With 3 stages the two rows ahead need 256 KB: everything stays in
// registers and the module says why (TWO).

// ONE:          module attributes {blkgpu.dynamic_shared_bytes = 131072 : i64, blkgpu.num_warps = 4 : i32, blkgpu.residency = "1 block(s) loaded ahead into shared memory (1 row(s) in flight)"}
// ONE-LABEL:    func.func @oversized_rows
// ONE:            %[[FIRST:.*]] = blkgpu.async_load {{.*}} {offset = 0 : i64}
// ONE-NEXT:       scf.for {{.*}} iter_args(%{{.*}} = %[[FIRST]])

// TWO:          module attributes {blkgpu.num_warps = 4 : i32, blkgpu.residency = "rows loaded ahead stay in registers: they need 262144 more bytes of shared memory per CTA"}
// TWO-LABEL:    func.func @oversized_rows
// TWO-NOT:        blkgpu.async_load

// FITS-LABEL:   func.func @oversized_rows
// SM75-LABEL:   func.func @oversized_rows
// NVVM-LABEL:   func.func @oversized_rows
func.func @oversized_rows(%out: !blk.ptr<f32>, %in: !blk.ptr<f32>, %rows: i32, %n: i32) {
  %pid = blk.program_id 0 : i32
  %np = blk.num_programs 0 : i32
  scf.for %row = %pid to %rows step %np : i32 {
    %r = blk.make_range 0 to 32768 : tensor<32768xi32>
    %nb = blk.splat %n : i32 -> tensor<32768xi32>
    %m = arith.cmpi slt, %r, %nb : tensor<32768xi32>
    %off = arith.muli %row, %n : i32
    %base = blk.addptr %in, %off : !blk.ptr<f32>, i32
    %p = blk.splat %base : !blk.ptr<f32> -> tensor<32768x!blk.ptr<f32>>
    %ptrs = blk.addptr %p, %r : tensor<32768x!blk.ptr<f32>>, tensor<32768xi32>
    %ninf = arith.constant dense<0xFF800000> : tensor<32768xf32>
    %x = blk.load %ptrs, %m, %ninf : tensor<32768x!blk.ptr<f32>>
    %mx = blk.reduce max %x axis = 0 : tensor<32768xf32> -> f32
    %ms = blk.splat %mx : f32 -> tensor<32768xf32>
    %d = arith.subf %x, %ms : tensor<32768xf32>
    %e = math.exp %d : tensor<32768xf32>
    %s = blk.reduce sum %e axis = 0 : tensor<32768xf32> -> f32
    %ss = blk.splat %s : f32 -> tensor<32768xf32>
    %y = arith.divf %e, %ss : tensor<32768xf32>
    %obase = blk.addptr %out, %off : !blk.ptr<f32>, i32
    %q = blk.splat %obase : !blk.ptr<f32> -> tensor<32768x!blk.ptr<f32>>
    %qs = blk.addptr %q, %r : tensor<32768x!blk.ptr<f32>>, tensor<32768xi32>
    blk.store %qs, %y, %m : tensor<32768x!blk.ptr<f32>>
  }
  return
}
