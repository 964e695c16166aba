// RUN: blockjit-opt %s --split-input-file --verify-diagnostics

// SharedLayoutAttr::verify and verifyEncoding.

// expected-error @+1 {{vec = 3 is not a power of two}}
func.func private @vec(tensor<64x64xf16, #blkgpu.shared<{vec = 3, perPhase = 1, maxPhase = 8, order = [1, 0]}>>)

// -----

// expected-error @+1 {{perPhase = 0 is not a power of two}}
func.func private @per_phase(tensor<64x64xf16, #blkgpu.shared<{vec = 8, perPhase = 0, maxPhase = 8, order = [1, 0]}>>)

// -----

// expected-error @+1 {{maxPhase = 6 is not a power of two}}
func.func private @max_phase(tensor<64x64xf16, #blkgpu.shared<{vec = 8, perPhase = 1, maxPhase = 6, order = [1, 0]}>>)

// -----

// expected-error @+1 {{order = [0, 2] is not a permutation of 0..1}}
func.func private @order(tensor<64x64xf16, #blkgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 2]}>>)

// -----

// expected-error @+1 {{#blkgpu.shared needs at least one dimension ('order' is empty)}}
func.func private @no_dimension(tensor<f16, #blkgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = []}>>)

// -----

// The CTA part, as for #blkgpu.blocked.
// expected-error @+1 {{#blkgpu.shared has a rank-2 layout but a CTA part of ranks 2, 2, 3 (CTAsPerCluster, CTASplitNum, CTAOrder)}}
func.func private @cta_rank(tensor<64x64xf16, #blkgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], CTAOrder = [2, 1, 0]}>>)

// -----

// expected-error @+1 {{CTASplitNum[1] = 2 exceeds CTAsPerCluster[1] = 1: a dimension is cut into at most one piece per CTA along it}}
func.func private @split_exceeds_ctas(tensor<64x64xf16, #blkgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], CTASplitNum = [1, 2]}>>)

// -----

// As a tensor encoding: the block's rank.
// expected-error @+1 {{a rank-2 #blkgpu.shared layout cannot describe a rank-3 block}}
func.func private @encoding_rank(tensor<2x64x64xf16, #blkgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>>)

// -----

// expected-error @+1 {{#blkgpu.shared needs the field 'maxPhase'}}
func.func private @missing_field(tensor<64x64xf16, #blkgpu.shared<{vec = 8, perPhase = 1, order = [1, 0]}>>)
