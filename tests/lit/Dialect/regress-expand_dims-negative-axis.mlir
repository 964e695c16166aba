// RUN: blockjit-opt %s --split-input-file --verify-diagnostics
//
// KNOWN BUG (XFAIL until fixed): ExpandDimsOp::verify does
// `int64_t axis = getAxis();`, but getAxis() is uint32_t for an I32Attr, so a
// negative axis is reported as 4294967295 instead of -1 ("axis 4294967295 out
// of range for a rank-1 source"). The op is still rejected; only the message
// is wrong. This file states the intended message.

func.func @axis_minus_one(%x: tensor<4xf32>) {
  // expected-error @+1 {{'blk.expand_dims' op axis -1 out of range for a rank-1 source (expected 0..1)}}
  %0 = blk.expand_dims %x axis = -1 : tensor<4xf32> -> tensor<1x4xf32>
  return
}

// -----

func.func @axis_minus_three_2d(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'blk.expand_dims' op axis -3 out of range for a rank-2 source (expected 0..2)}}
  %0 = blk.expand_dims %x axis = -3 : tensor<4x8xf32> -> tensor<1x4x8xf32>
  return
}
