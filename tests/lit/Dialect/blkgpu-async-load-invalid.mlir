// RUN: blockjit-opt %s --split-input-file --verify-diagnostics

// The verifiers of blkgpu.async_load and blkgpu.local_load.

#blocked = #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#shared = #blkgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @result_in_registers(%p: tensor<256x!blk.ptr<f32>, #blocked>) {
  // expected-error @+1 {{result must be the pointee type 'f32' with the pointers' shape and a #blkgpu.shared layout, got 'tensor<256xf32, #blkgpu.blocked}}
  %s = blkgpu.async_load %p {offset = 0 : i64} : tensor<256x!blk.ptr<f32>, #blocked> -> tensor<256xf32, #blocked>
  return
}

// -----

#blocked = #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#shared = #blkgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @unaligned_offset(%p: tensor<256x!blk.ptr<f32>, #blocked>) {
  // expected-error @+1 {{offset 8 must be a non-negative multiple of 16 bytes}}
  %s = blkgpu.async_load %p {offset = 8 : i64} : tensor<256x!blk.ptr<f32>, #blocked> -> tensor<256xf32, #shared>
  return
}

// -----

#blocked = #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#shared = #blkgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @other_without_mask(%p: tensor<256x!blk.ptr<f32>, #blocked>, %o: tensor<256xf32, #blocked>) {
  // expected-error @+1 {{'other' is only meaningful with a mask}}
  %s = blkgpu.async_load %p other %o : tensor<256xf32, #blocked> {offset = 0 : i64} : tensor<256x!blk.ptr<f32>, #blocked> -> tensor<256xf32, #shared>
  return
}

// -----

#blocked = #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#shared = #blkgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @wrong_mask(%p: tensor<256x!blk.ptr<f32>, #blocked>, %m: tensor<128xi1, #blocked>) {
  // expected-error @+1 {{mask must be 'tensor<256xi1, #blkgpu.blocked}}
  %s = blkgpu.async_load %p mask %m : tensor<128xi1, #blocked> {offset = 0 : i64} : tensor<256x!blk.ptr<f32>, #blocked> -> tensor<256xf32, #shared>
  return
}

// -----

#blocked = #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @local_load_of_registers(%x: tensor<256xf32, #blocked>) {
  // expected-error @+1 {{reads a block in shared memory (#blkgpu.shared), got 'tensor<256xf32, #blkgpu.blocked}}
  %y = blkgpu.local_load %x : tensor<256xf32, #blocked> -> tensor<256xf32, #blocked>
  return
}

// -----

#blocked = #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#shared = #blkgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @local_load_of_an_argument(%x: tensor<256xf32, #shared>) {
  // expected-error @+1 {{reads what blkgpu.async_load keeps in shared memory (or a loop carries); its operand comes from elsewhere}}
  %y = blkgpu.local_load %x : tensor<256xf32, #shared> -> tensor<256xf32, #blocked>
  return
}

// -----

#blocked = #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#shared = #blkgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @local_load_changes_shape(%p: tensor<256x!blk.ptr<f32>, #blocked>) {
  %s = blkgpu.async_load %p {offset = 0 : i64} : tensor<256x!blk.ptr<f32>, #blocked> -> tensor<256xf32, #shared>
  // expected-error @+1 {{result must be 256 of 'f32' laid out in registers, got 'tensor<256xi32, #blkgpu.blocked}}
  %y = blkgpu.local_load %s : tensor<256xf32, #shared> -> tensor<256xi32, #blocked>
  return
}

// -----

#blocked = #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#shared = #blkgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @local_load_mask_of_another_shape(%p: tensor<256x!blk.ptr<f32>, #blocked>, %m: tensor<128xi1, #blocked>) {
  %s = blkgpu.async_load %p {offset = 0 : i64} : tensor<256x!blk.ptr<f32>, #blocked> -> tensor<256xf32, #shared>
  // expected-error @+1 {{mask must be 256 of i1 laid out as the result, got 'tensor<128xi1, #blkgpu.blocked}}
  %y = blkgpu.local_load %s mask(%m : tensor<128xi1, #blocked>) : tensor<256xf32, #shared> -> tensor<256xf32, #blocked>
  return
}

// -----

#blocked = #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#shared = #blkgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @local_load_other_without_mask(%p: tensor<256x!blk.ptr<f32>, #blocked>, %o: tensor<256xf32, #blocked>) {
  %s = blkgpu.async_load %p {offset = 0 : i64} : tensor<256x!blk.ptr<f32>, #blocked> -> tensor<256xf32, #shared>
  // expected-error @+1 {{'other' is what masked elements read; it needs a mask}}
  %y = blkgpu.local_load %s other(%o : tensor<256xf32, #blocked>) : tensor<256xf32, #shared> -> tensor<256xf32, #blocked>
  return
}

// -----

#blocked = #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#shared = #blkgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @local_load_other_of_another_type(%p: tensor<256x!blk.ptr<f32>, #blocked>, %m: tensor<256xi1, #blocked>, %o: tensor<256xf16, #blocked>) {
  %s = blkgpu.async_load %p {offset = 0 : i64} : tensor<256x!blk.ptr<f32>, #blocked> -> tensor<256xf32, #shared>
  // expected-error @+1 {{other must be 'tensor<256xf32, #blkgpu.blocked}}
  %y = blkgpu.local_load %s mask(%m : tensor<256xi1, #blocked>) other(%o : tensor<256xf16, #blocked>) : tensor<256xf32, #shared> -> tensor<256xf32, #blocked>
  return
}

// -----

// Where the block goes: an offset in the dynamic shared memory, or the
// buffer of a block kept there earlier, exactly one of them.
#blocked = #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#shared = #blkgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @neither_offset_nor_into(%p: tensor<256x!blk.ptr<f32>, #blocked>) {
  // expected-error @+1 {{needs either an 'offset' in the dynamic shared memory or a block to load 'into', not neither}}
  %s = blkgpu.async_load %p : tensor<256x!blk.ptr<f32>, #blocked> -> tensor<256xf32, #shared>
  return
}

// -----

#blocked = #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#shared = #blkgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @offset_and_into(%p: tensor<256x!blk.ptr<f32>, #blocked>) {
  %s = blkgpu.async_load %p {offset = 0 : i64} : tensor<256x!blk.ptr<f32>, #blocked> -> tensor<256xf32, #shared>
  // expected-error @+1 {{needs either an 'offset' in the dynamic shared memory or a block to load 'into', not both}}
  %t = blkgpu.async_load %p into %s : tensor<256xf32, #shared> {offset = 1024 : i64} : tensor<256x!blk.ptr<f32>, #blocked> -> tensor<256xf32, #shared>
  return
}

// -----

#blocked = #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#blocked2 = #blkgpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#shared = #blkgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @into_another_type(%p: tensor<256x!blk.ptr<f32>, #blocked>, %q: tensor<128x!blk.ptr<f32>, #blocked2>) {
  %s = blkgpu.async_load %q {offset = 0 : i64} : tensor<128x!blk.ptr<f32>, #blocked2> -> tensor<128xf32, #shared>
  // expected-error @+1 {{loads into 'tensor<128xf32, #blkgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>', which is not its result type 'tensor<256xf32, #blkgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>'}}
  %t = blkgpu.async_load %p into %s : tensor<128xf32, #shared> : tensor<256x!blk.ptr<f32>, #blocked> -> tensor<256xf32, #shared>
  return
}

// -----

func.func @negative_pending() {
  // expected-error @+1 {{pending must be a count of groups, got -1}}
  blkgpu.async_wait {pending = -1 : i32}
  return
}

// -----

// A loop may carry a block kept in shared memory; local_load reads it.
#blocked = #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#shared = #blkgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @carried(%p: tensor<256x!blk.ptr<f32>, #blocked>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = blkgpu.async_load %p {offset = 0 : i64} : tensor<256x!blk.ptr<f32>, #blocked> -> tensor<256xf32, #shared>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%b = %s) -> (tensor<256xf32, #shared>) {
    blkgpu.async_wait {pending = 0 : i32}
    %x = blkgpu.local_load %b : tensor<256xf32, #shared> -> tensor<256xf32, #blocked>
    %t = blkgpu.async_load %p into %b : tensor<256xf32, #shared> : tensor<256x!blk.ptr<f32>, #blocked> -> tensor<256xf32, #shared>
    scf.yield %t : tensor<256xf32, #shared>
  }
  return
}
