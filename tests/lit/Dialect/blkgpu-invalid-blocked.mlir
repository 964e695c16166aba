// RUN: blockjit-opt %s --split-input-file --verify-diagnostics

// BlockedLayoutAttr::verify and verifyEncoding: each error names the field
// and the values at fault.

// Every field has one entry per dimension.
// expected-error @+1 {{#blkgpu.blocked has one entry per dimension in every field: 'sizePerThread' has 2, 'threadsPerWarp' has 1}}
func.func private @rank_mismatch(tensor<16x64xf32, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32], warpsPerCTA = [4, 1], order = [1, 0]}>>)

// -----

// expected-error @+1 {{#blkgpu.blocked has one entry per dimension in every field: 'sizePerThread' has 2, 'order' has 1}}
func.func private @order_rank_mismatch(tensor<16x64xf32, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [0]}>>)

// -----

// expected-error @+1 {{#blkgpu.blocked needs at least one dimension ('sizePerThread' is empty)}}
func.func private @no_dimension(tensor<f32, #blkgpu.blocked<{sizePerThread = [], threadsPerWarp = [], warpsPerCTA = [], order = []}>>)

// -----

// Every entry is a power of two.
// expected-error @+1 {{sizePerThread[1] = 3 is not a power of two}}
func.func private @size_not_power_of_two(tensor<16x64xf32, #blkgpu.blocked<{sizePerThread = [1, 3], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>)

// -----

// expected-error @+1 {{sizePerThread[0] = 0 is not a power of two}}
func.func private @size_zero(tensor<16x64xf32, #blkgpu.blocked<{sizePerThread = [0, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>)

// -----

// expected-error @+1 {{threadsPerWarp[0] = 3 is not a power of two}}
func.func private @threads_not_power_of_two(tensor<1024xf32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [3], warpsPerCTA = [4], order = [0]}>>)

// -----

// expected-error @+1 {{warpsPerCTA[1] = 6 is not a power of two}}
func.func private @warps_not_power_of_two(tensor<16x64xf32, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [1, 6], order = [1, 0]}>>)

// -----

// A warp has 32 threads.
// expected-error @+1 {{threadsPerWarp = [4, 16] makes 2^6 threads; a warp has 32}}
func.func private @threads_not_a_warp(tensor<16x64xf32, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>)

// -----

// expected-error @+1 {{threadsPerWarp = [16] makes 2^4 threads; a warp has 32}}
func.func private @half_a_warp(tensor<1024xf32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [16], warpsPerCTA = [4], order = [0]}>>)

// -----

// order lists each dimension once.
// expected-error @+1 {{order = [1, 1] is not a permutation of 0..1}}
func.func private @order_repeats(tensor<16x64xf32, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 1]}>>)

// -----

// expected-error @+1 {{order = [2, 0] is not a permutation of 0..1}}
func.func private @order_out_of_range(tensor<16x64xf32, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [2, 0]}>>)

// -----

// The CTA part: one entry per dimension, powers of two, a permutation, and
// no more pieces than CTAs along a dimension.
// expected-error @+1 {{#blkgpu.blocked has a rank-2 layout but a CTA part of ranks 1, 2, 2 (CTAsPerCluster, CTASplitNum, CTAOrder)}}
func.func private @cta_rank(tensor<16x64xf32, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCluster = [2]}>>)

// -----

// expected-error @+1 {{CTAsPerCluster[0] = 3 is not a power of two}}
func.func private @cta_not_power_of_two(tensor<16x64xf32, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCluster = [3, 1]}>>)

// -----

// expected-error @+1 {{CTASplitNum[1] = 0 is not a power of two}}
func.func private @split_zero(tensor<16x64xf32, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0], CTASplitNum = [1, 0]}>>)

// -----

// expected-error @+1 {{CTAOrder = [0, 0] is not a permutation of 0..1}}
func.func private @cta_order(tensor<16x64xf32, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0], CTAOrder = [0, 0]}>>)

// -----

// expected-error @+1 {{CTASplitNum[0] = 4 exceeds CTAsPerCluster[0] = 2: a dimension is cut into at most one piece per CTA along it}}
func.func private @split_exceeds_ctas(tensor<16x64xf32, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCluster = [2, 1], CTASplitNum = [4, 1]}>>)

// -----

// As a tensor encoding: the block's rank, and static power-of-two sizes.
// expected-error @+1 {{a rank-2 #blkgpu.blocked layout cannot describe a rank-1 block}}
func.func private @encoding_rank(tensor<1024xf32, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>)

// -----

// expected-error @+1 {{#blkgpu.blocked lays out blocks of static power-of-two dimensions; dimension 1 is 48}}
func.func private @encoding_not_power_of_two(tensor<16x48xf32, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>)

// -----

// expected-error @+1 {{#blkgpu.blocked lays out blocks of static power-of-two dimensions; dimension 0 is ?}}
func.func private @encoding_dynamic(tensor<?x64xf32, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>)

// -----

// The syntax: every field is named once, with the right kind of value.
// expected-error @+1 {{#blkgpu.blocked needs the field 'order'}}
func.func private @missing_field(tensor<1024xf32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]}>>)

// -----

// expected-error @+1 {{#blkgpu.blocked has no field 'warpsPerCta'}}
func.func private @misspelt_field(tensor<1024xf32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0], warpsPerCta = [4]}>>)

// -----

// expected-error @+1 {{'sizePerThread' of #blkgpu.blocked must be an array of non-negative 32-bit integers, got [-4]}}
func.func private @negative_entry(tensor<1024xf32, #blkgpu.blocked<{sizePerThread = [-4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>)

// -----

// expected-error @+1 {{'order' of #blkgpu.blocked must be an array of non-negative 32-bit integers, got 0 : i64}}
func.func private @not_an_array(tensor<1024xf32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = 0}>>)

// -----

// expected-error @+1 {{'warpsPerCTA' of #blkgpu.blocked must be an array of non-negative 32-bit integers, got [4294967296]}}
func.func private @entry_too_large(tensor<1024xf32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4294967296], order = [0]}>>)

// -----

// expected-error @+1 {{#blkgpu.blocked is written #blkgpu.blocked<{field = value, ...}>}}
func.func private @not_a_dictionary(tensor<1024xf32, #blkgpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>)

// -----

// expected-error @+1 {{duplicate key 'order' in dictionary attribute}}
func.func private @field_twice(tensor<1024xf32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0], order = [0]}>>)

// -----

// A CTA has at most 32 warps (1024 threads).
// expected-error @+1 {{warpsPerCTA = [8, 8] makes 2^6 warps; a CTA has at most 32 (1024 threads)}}
func.func private @too_many_warps(tensor<16x64xf32, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 8], order = [1, 0]}>>)
