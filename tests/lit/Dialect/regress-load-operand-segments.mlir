// RUN: blockjit-opt %s --split-input-file --verify-diagnostics
//
// KNOWN BUG (XFAIL until fixed): blk.load uses AttrSizedOperandSegments, and
// the ODS-generated verifier only checks the two Optional segments (size <= 1),
// never that the required `ptr` segment has exactly one operand. LoadOp::verify
// then calls getPtr() on an empty or oversized segment:
//  * segments [0, 1, x]: getPtr() returns the mask, pointeeTypeOf() does
//    cast<PtrType>(i1), gets a null type (release build), and blockjit-opt
//    SEGFAULTS while printing the diagnostic (Type::getContext on null);
//  * segments [2, 0, 0]: two pointers verify fine, and the custom printer
//    writes `blk.load %a, %b : !blk.ptr<f32>`, which re-parses %b as a mask
//    and fails ("use of value '%b' expects different type ... 'i1'");
//  * segments [0, 0, 1]: misleading "'other' is only meaningful with a mask".
// Intended: LoadOp::verify rejects any operandSegmentSizes[0] != 1 first. The
// wording "exactly one pointer" below is a proposal; adjust it with the fix.

func.func @two_pointers(%p: !blk.ptr<f32>, %q: !blk.ptr<f32>) -> f32 {
  // expected-error @+1 {{exactly one pointer}}
  %0 = "blk.load"(%p, %q) <{operandSegmentSizes = array<i32: 2, 0, 0>}> : (!blk.ptr<f32>, !blk.ptr<f32>) -> f32
  return %0 : f32
}

// -----

// Crashes today.
func.func @no_pointer_mask_only(%m: i1) -> f32 {
  // expected-error @+1 {{exactly one pointer}}
  %0 = "blk.load"(%m) <{operandSegmentSizes = array<i32: 0, 1, 0>}> : (i1) -> f32
  return %0 : f32
}

// -----

// Crashes today.
func.func @no_pointer_mask_other(%m: i1, %o: f32) -> f32 {
  // expected-error @+1 {{exactly one pointer}}
  %0 = "blk.load"(%m, %o) <{operandSegmentSizes = array<i32: 0, 1, 1>}> : (i1, f32) -> f32
  return %0 : f32
}

// -----

func.func @no_pointer_other_only(%p: !blk.ptr<f32>) -> f32 {
  // expected-error @+1 {{exactly one pointer}}
  %0 = "blk.load"(%p) <{operandSegmentSizes = array<i32: 0, 0, 1>}> : (!blk.ptr<f32>) -> f32
  return %0 : f32
}
