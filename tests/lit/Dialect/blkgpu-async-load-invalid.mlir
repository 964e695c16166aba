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
  // expected-error @+1 {{reads what blkgpu.async_load keeps in shared memory; its operand comes from elsewhere}}
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
