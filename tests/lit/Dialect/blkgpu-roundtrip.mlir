// RUN: blockjit-opt %s | blockjit-opt | FileCheck %s
// RUN: blockjit-opt %s --mlir-print-op-generic | blockjit-opt | FileCheck %s

// Every #blkgpu layout prints as it parses (printed, then parsed again):
// fields in a fixed order whatever the input's, and the CTA part only when
// it is not the default single CTA.

// A 1-D and a 2-D blocked layout; the 2-D one written with its fields out of
// order and its default CTA part spelled out, which is dropped.
// CHECK-LABEL: func.func private @blocked
// CHECK-SAME:    tensor<1024xf32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK-SAME:    tensor<16x64xf32, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
func.func private @blocked(
    tensor<1024xf32, #blkgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>,
    tensor<16x64xf32, #blkgpu.blocked<{order = [1, 0], warpsPerCTA = [4, 1], threadsPerWarp = [2, 16], sizePerThread = [1, 4],
                                       CTAsPerCluster = [1, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0]}>>)

// Column-major order, and a block split over a cluster of 2x2 CTAs (rows
// cut in two, columns replicated over the second pair of CTAs).
// CHECK-LABEL: func.func private @blocked_cta
// CHECK-SAME:    tensor<64x32xf16, #blkgpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 8], order = [0, 1]}>>
// CHECK-SAME:    tensor<128x128xf32, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0], CTAsPerCluster = [2, 2], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>>
// A CTA part that differs from the default only in CTAOrder is kept.
// CHECK-SAME:    tensor<8x8xf32, #blkgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0], CTAsPerCluster = [1, 1], CTASplitNum = [1, 1], CTAOrder = [0, 1]}>>
func.func private @blocked_cta(
    tensor<64x32xf16, #blkgpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 8], order = [0, 1]}>>,
    tensor<128x128xf32, #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0],
                                         CTAsPerCluster = [2, 2], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>>,
    tensor<8x8xf32, #blkgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0], CTAOrder = [0, 1]}>>)

// Slices: the row sums of a 16x64 block (dim 1), its column sums (dim 0),
// and a slice of a slice (a 3-D block reduced along 2, then along 0).
// CHECK-LABEL: func.func private @slice
// CHECK-SAME:    tensor<16xf32, #blkgpu.slice<{dim = 1, parent = #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>}>>
// CHECK-SAME:    tensor<64xf32, #blkgpu.slice<{dim = 0, parent = #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>}>>
// CHECK-SAME:    tensor<4xf32, #blkgpu.slice<{dim = 0, parent = #blkgpu.slice<{dim = 2, parent = #blkgpu.blocked<{sizePerThread = [1, 1, 4], threadsPerWarp = [2, 2, 8], warpsPerCTA = [1, 2, 2], order = [2, 1, 0]}>}>}>>
func.func private @slice(
    tensor<16xf32, #blkgpu.slice<{dim = 1, parent = #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>}>>,
    tensor<64xf32, #blkgpu.slice<{parent = #blkgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>, dim = 0}>>,
    tensor<4xf32, #blkgpu.slice<{dim = 0, parent = #blkgpu.slice<{dim = 2, parent = #blkgpu.blocked<{sizePerThread = [1, 1, 4], threadsPerWarp = [2, 2, 8], warpsPerCTA = [1, 2, 2], order = [2, 1, 0]}>}>}>>)

// Shared memory: swizzled, unswizzled (maxPhase 1), 1-D, and split over 2
// CTAs.
// CHECK-LABEL: func.func private @shared
// CHECK-SAME:    tensor<64x64xf16, #blkgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>>
// CHECK-SAME:    tensor<32x64xf32, #blkgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
// CHECK-SAME:    tensor<256xf32, #blkgpu.shared<{vec = 4, perPhase = 2, maxPhase = 4, order = [0]}>>
// CHECK-SAME:    tensor<128x64xf16, #blkgpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], CTAsPerCluster = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>>
func.func private @shared(
    tensor<64x64xf16, #blkgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>>,
    tensor<32x64xf32, #blkgpu.shared<{order = [0, 1], maxPhase = 1, perPhase = 1, vec = 1}>>,
    tensor<256xf32, #blkgpu.shared<{vec = 4, perPhase = 2, maxPhase = 4, order = [0]}>>,
    tensor<128x64xf16, #blkgpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], CTAsPerCluster = [2, 1], CTASplitNum = [2, 1]}>>)

// The module's warps: every register layout in it has 4.
// CHECK: module attributes {blkgpu.num_warps = 4 : i32}
// CHECK:   blk.make_range 0 to 256 : tensor<256xi32, #blkgpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
module attributes {blkgpu.num_warps = 4 : i32} {
  func.func @kernel() {
    %r = blk.make_range 0 to 256 : tensor<256xi32, #blkgpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    return
  }
}
