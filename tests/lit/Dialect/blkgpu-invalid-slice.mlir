// RUN: blockjit-opt %s --split-input-file --verify-diagnostics

// SliceLayoutAttr::verify and verifyEncoding.

// dim names a dimension of the parent.
// expected-error @+1 {{#blkgpu.slice dim = 2 is out of range for a rank-2 parent (0..1)}}
func.func private @dim_out_of_range(tensor<16xf32, #blkgpu.slice<{dim = 2, parent = #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>}>>)

// -----

// A slice of a slice counts the dimensions left by the inner one.
// expected-error @+1 {{#blkgpu.slice dim = 2 is out of range for a rank-2 parent (0..1)}}
func.func private @nested_dim_out_of_range(tensor<4xf32, #blkgpu.slice<{dim = 2, parent = #blkgpu.slice<{dim = 2, parent = #blkgpu.blocked<{sizePerThread = [1, 1, 4], threadsPerWarp = [2, 2, 8], warpsPerCTA = [1, 2, 2], order = [2, 1, 0]}>}>}>>)

// -----

// Slicing a 1-D layout leaves nothing: a 1-D block reduces to a scalar.
// expected-error @+1 {{#blkgpu.slice of a rank-1 layout would leave no dimension (reducing a 1-D block gives a scalar)}}
func.func private @slice_of_1d(tensor<1xf32, #blkgpu.slice<{dim = 0, parent = #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>}>>)

// -----

// The parent spreads the block over threads: not shared memory, not any
// other attribute.
// expected-error @+1 {{the parent of #blkgpu.slice is a #blkgpu.blocked or #blkgpu.slice layout, not #blkgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>}}
func.func private @shared_parent(tensor<64xf16, #blkgpu.slice<{dim = 0, parent = #blkgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>}>>)

// -----

// expected-error @+1 {{the parent of #blkgpu.slice is a #blkgpu.blocked or #blkgpu.slice layout, not 4 : i64}}
func.func private @integer_parent(tensor<64xf16, #blkgpu.slice<{dim = 0, parent = 4}>>)

// -----

// As a tensor encoding: the rank is the parent's minus one.
// expected-error @+1 {{a rank-1 #blkgpu.slice layout cannot describe a rank-2 block}}
func.func private @encoding_rank(tensor<16x64xf32, #blkgpu.slice<{dim = 1, parent = #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>}>>)

// -----

// expected-error @+1 {{#blkgpu.slice lays out blocks of static power-of-two dimensions; dimension 0 is 12}}
func.func private @encoding_not_power_of_two(tensor<12xf32, #blkgpu.slice<{dim = 1, parent = #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>}>>)

// -----

// The syntax.
// expected-error @+1 {{#blkgpu.slice needs the field 'parent'}}
func.func private @missing_parent(tensor<16xf32, #blkgpu.slice<{dim = 1}>>)

// -----

// expected-error @+1 {{'dim' of #blkgpu.slice must be a non-negative 32-bit integer, got -1 : i64}}
func.func private @negative_dim(tensor<16xf32, #blkgpu.slice<{dim = -1, parent = #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>}>>)

// -----

// expected-error @+1 {{#blkgpu.slice has no field 'axis'}}
func.func private @unknown_field(tensor<16xf32, #blkgpu.slice<{dim = 1, axis = 1, parent = #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>}>>)
