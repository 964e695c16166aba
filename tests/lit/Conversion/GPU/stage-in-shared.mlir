// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" --blk-stage-in-shared | FileCheck %s
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=8" --blk-stage-in-shared | FileCheck %s --check-prefix=FITS
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4" --blk-stage-in-shared="sm-arch=75" | FileCheck %s --check-prefix=SM75
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=4 programs-per-cta=2" --blk-stage-in-shared | FileCheck %s --check-prefix=PROGRAMS

// blk-stage-in-shared on softmax of a 32768-element f32 row. With 4 warps a
// thread would hold 256 elements (more than 128 registers): the load becomes
// a blkgpu.async_load into shared memory (128 KB at offset 0), each use reads
// it back right before it (after waiting for its copies), and exp(x - max),
// used by the sum and by the output, is computed once for each. With 8 warps (128 elements a thread)
// the block stays in registers. On sm_75 (64 KB of shared memory per CTA)
// it does not fit, and the module says why.

// CHECK:       module attributes {blkgpu.dynamic_shared_bytes = 131072 : i64, blkgpu.num_warps = 4 : i32, blkgpu.residency = "1 block(s) kept in shared memory"}
// CHECK-LABEL: func.func @softmax_row
// CHECK:         %[[S:.*]] = blkgpu.async_load %{{.*}} mask %{{.*}} other %{{.*}} {offset = 0 : i64} : tensor<32768x!blk.ptr<f32>, #blkgpu.blocked<{{.*}}>> -> tensor<32768xf32, #blkgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>
// CHECK-NEXT:    blkgpu.async_wait {pending = 0 : i32}
// CHECK-NEXT:    %[[X1:.*]] = blkgpu.local_load %[[S]]
// CHECK-NEXT:    %[[MAX:.*]] = blk.reduce max %[[X1]]
// CHECK-NEXT:    %[[MAXS:.*]] = blk.splat %[[MAX]]
// CHECK-NEXT:    %[[X2:.*]] = blkgpu.local_load %[[S]]
// CHECK-NEXT:    %[[D2:.*]] = arith.subf %[[X2]], %[[MAXS]]
// CHECK-NEXT:    %[[E2:.*]] = math.exp %[[D2]]
// CHECK-NEXT:    %[[SUM:.*]] = blk.reduce sum %[[E2]]
// CHECK:         %[[X3:.*]] = blkgpu.local_load %[[S]]
// CHECK-NEXT:    %[[D3:.*]] = arith.subf %[[X3]], %[[MAXS]]
// CHECK-NEXT:    %[[E3:.*]] = math.exp %[[D3]]
// CHECK-NEXT:    %[[Y:.*]] = arith.divf %[[E3]], %{{.*}}
// CHECK-NEXT:    blk.store %{{.*}}, %[[Y]], %{{.*}}
// CHECK-NOT:     blk.load

// FITS:          module attributes {blkgpu.num_warps = 8 : i32}
// FITS-NOT:      blkgpu.async_load
// FITS:          blk.load

// SM75:          module attributes {blkgpu.num_warps = 4 : i32, blkgpu.residency = "registers: the blocks too large for them need 131072 bytes of shared memory per CTA, more than 61440 on sm_75"}
// SM75-NOT:      blkgpu.async_load
// Two programs per CTA would each need the array: the block stays in
// registers, and the module says why.
// PROGRAMS:       module attributes {blkgpu.num_warps = 4 : i32, blkgpu.programs_per_cta = 2 : i32, blkgpu.residency = "registers: 2 programs share each CTA (programs_per_cta); shared memory keeps blocks of one program per CTA only"}
// PROGRAMS-NOT:   blkgpu.async_load
func.func @softmax_row(%out: !blk.ptr<f32>, %in: !blk.ptr<f32>, %n: i32) {
  %r = blk.make_range 0 to 32768 : tensor<32768xi32>
  %nb = blk.splat %n : i32 -> tensor<32768xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<32768xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<32768x!blk.ptr<f32>>
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
  %q = blk.splat %out : !blk.ptr<f32> -> tensor<32768x!blk.ptr<f32>>
  %qs = blk.addptr %q, %r : tensor<32768x!blk.ptr<f32>>, tensor<32768xi32>
  blk.store %qs, %y, %m : tensor<32768x!blk.ptr<f32>>
  return
}

// -----

// Two bf16 blocks, 64 KB each: consecutive offsets. A load whose value a
// loop carries (as blk-pipeline-loads leaves it) stays in registers.
// CHECK-LABEL: func.func @two_blocks
// CHECK:         blkgpu.async_load {{.*}} {offset = 0 : i64}
// CHECK:         blkgpu.async_load {{.*}} {offset = 65536 : i64}
// CHECK:         scf.for
// CHECK:           blk.load
// CHECK:           scf.yield
func.func @two_blocks(%a: !blk.ptr<bf16>, %b: !blk.ptr<bf16>, %out: !blk.ptr<bf16>, %k: i32) {
  %r = blk.make_range 0 to 32768 : tensor<32768xi32>
  %pa = blk.splat %a : !blk.ptr<bf16> -> tensor<32768x!blk.ptr<bf16>>
  %pas = blk.addptr %pa, %r : tensor<32768x!blk.ptr<bf16>>, tensor<32768xi32>
  %pb = blk.splat %b : !blk.ptr<bf16> -> tensor<32768x!blk.ptr<bf16>>
  %pbs = blk.addptr %pb, %r : tensor<32768x!blk.ptr<bf16>>, tensor<32768xi32>
  %x = blk.load %pas : tensor<32768x!blk.ptr<bf16>>
  %y = blk.load %pbs : tensor<32768x!blk.ptr<bf16>>
  %z = arith.addf %x, %y : tensor<32768xbf16>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %last = scf.for %i = %c0 to %k step %c1 iter_args(%v = %z) -> (tensor<32768xbf16>) : i32 {
    %next = blk.load %pas : tensor<32768x!blk.ptr<bf16>>
    scf.yield %next : tensor<32768xbf16>
  }
  %po = blk.splat %out : !blk.ptr<bf16> -> tensor<32768x!blk.ptr<bf16>>
  %pos = blk.addptr %po, %r : tensor<32768x!blk.ptr<bf16>>, tensor<32768xi32>
  blk.store %pos, %last : tensor<32768x!blk.ptr<bf16>>
  return
}

// -----

// The same row with its bound clamped (arith.minsi, as a mask-bound range
// traces it): each read back takes the load's mask and other, so the
// elements past the row read as -inf, which is what their slots hold, and
// LLVM can fold them.
// CHECK-LABEL: func.func @softmax_row_clamped
// CHECK:         %[[M:.*]] = arith.cmpi slt
// CHECK:         %[[NINF:.*]] = arith.constant dense<0xFF800000>
// CHECK:         %[[S:.*]] = blkgpu.async_load %{{.*}} mask %[[M]] : {{.*}} other %[[NINF]] :
// CHECK:         blkgpu.local_load %[[S]] mask(%[[M]] : {{.*}}) other(%[[NINF]] : {{.*}})
// CHECK:         blkgpu.local_load %[[S]] mask(%[[M]] : {{.*}}) other(%[[NINF]] : {{.*}})
func.func @softmax_row_clamped(%out: !blk.ptr<f32>, %in: !blk.ptr<f32>, %n: i32) {
  %c = arith.constant 30000 : i32
  %nc = arith.minsi %n, %c : i32
  %r = blk.make_range 0 to 32768 : tensor<32768xi32>
  %nb = blk.splat %nc : i32 -> tensor<32768xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<32768xi32>
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<32768x!blk.ptr<f32>>
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
  %q = blk.splat %out : !blk.ptr<f32> -> tensor<32768x!blk.ptr<f32>>
  %qs = blk.addptr %q, %r : tensor<32768x!blk.ptr<f32>>, tensor<32768xi32>
  blk.store %qs, %y, %m : tensor<32768x!blk.ptr<f32>>
  return
}
