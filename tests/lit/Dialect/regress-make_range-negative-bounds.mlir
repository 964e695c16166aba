// RUN: blockjit-opt %s --split-input-file --verify-diagnostics
//
// KNOWN BUG (XFAIL until fixed): MakeRangeOp::verify reads the bounds with
// `int64_t start = getStart(), end = getEnd();`, but the ODS getters of an
// I32Attr return uint32_t, so negative bounds are zero-extended: -2 becomes
// 4294967294. Valid ranges that cross zero are rejected with a wrong message,
// reversed ranges get the wrong diagnostic, and `0 to -2147483648` is even
// accepted as a range of length 2^31. This file states the intended behaviour.

// Crossing zero is a valid range of length 4 (today: "end (2) must be greater
// than start (4294967294)").
func.func @crosses_zero() -> tensor<4xi32> {
  %0 = blk.make_range -2 to 2 : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// end < start must say so (today: "range length end - start = 4294967288 must
// be a power of two").
func.func @negative_end() {
  // expected-error @+1 {{'blk.make_range' op end (-4) must be greater than start (4)}}
  %0 = blk.make_range 4 to -4 : tensor<8xi32>
  return
}

// -----

// end < start must be rejected (today: accepted, as a 2^31-element range).
func.func @int_min_end() {
  // expected-error @+1 {{'blk.make_range' op end (-2147483648) must be greater than start (0)}}
  %0 = blk.make_range 0 to -2147483648 : tensor<2147483648xi32>
  return
}
