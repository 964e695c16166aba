// RUN: blockjit-opt %s --split-input-file --verify-diagnostics

// blkgpu.all_reduce: the axis must be one of the operand's dimensions.
func.func @axis_out_of_range(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  // expected-error @+1 {{axis 2 out of range for a rank-2 operand (expected 0..1)}}
  %m = blkgpu.all_reduce max %x axis = 2 : tensor<16x64xf32>
  return %m : tensor<16x64xf32>
}

// -----

// It reduces integer or float blocks.
func.func @pointers(%x: tensor<16x!blk.ptr<f32>>) -> tensor<16x!blk.ptr<f32>> {
  // expected-error @+1 {{reduces integer or float blocks}}
  %m = blkgpu.all_reduce max %x axis = 0 : tensor<16x!blk.ptr<f32>>
  return %m : tensor<16x!blk.ptr<f32>>
}
