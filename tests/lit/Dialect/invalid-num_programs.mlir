// RUN: blockjit-opt %s --split-input-file --verify-diagnostics

func.func @axis_too_large() -> i32 {
  // expected-error @+1 {{'blk.num_programs' op axis must be 0, 1 or 2, got 3}}
  %0 = blk.num_programs 3 : i32
  return %0 : i32
}

// -----

func.func @axis_negative() -> i32 {
  // expected-error @+1 {{'blk.num_programs' op axis must be 0, 1 or 2, got -2}}
  %0 = blk.num_programs -2 : i32
  return %0 : i32
}

// -----

func.func @generic_axis_too_large() -> i32 {
  // expected-error @+1 {{'blk.num_programs' op axis must be 0, 1 or 2, got 7}}
  %0 = "blk.num_programs"() <{axis = 7 : i32}> : () -> i32
  return %0 : i32
}

// -----

// ODS: the axis attribute is a 32-bit integer.
func.func @axis_wrong_width() -> i32 {
  // expected-error @+1 {{'blk.num_programs' op attribute 'axis' failed to satisfy constraint: 32-bit signless integer attribute}}
  %0 = "blk.num_programs"() <{axis = 0 : i64}> : () -> i32
  return %0 : i32
}

// -----

// ODS: the result is i32 (generic form; the custom form cannot even parse a
// non-integer result type).
func.func @result_not_i32() -> index {
  // expected-error @+1 {{'blk.num_programs' op result #0 must be 32-bit signless integer, but got 'index'}}
  %0 = "blk.num_programs"() <{axis = 0 : i32}> : () -> index
  return %0 : index
}

// -----

func.func @result_not_integer_custom() -> index {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.integer, but found 'index'}}
  %0 = blk.num_programs 0 : index
  return %0 : index
}
