// RUN: blockjit-opt %s --split-input-file --verify-diagnostics

func.func @axis_too_large() -> i32 {
  // expected-error @+1 {{'blk.program_id' op axis must be 0, 1 or 2, got 3}}
  %0 = blk.program_id 3 : i32
  return %0 : i32
}

// -----

func.func @axis_negative() -> i32 {
  // expected-error @+1 {{'blk.program_id' op axis must be 0, 1 or 2, got -1}}
  %0 = blk.program_id -1 : i32
  return %0 : i32
}

// -----

func.func @axis_large() -> i32 {
  // expected-error @+1 {{axis must be 0, 1 or 2, got 2147483647}}
  %0 = blk.program_id 2147483647 : i32
  return %0 : i32
}

// -----

// ODS: the result is i32.
func.func @result_not_i32() -> i64 {
  // expected-error @+1 {{'blk.program_id' op result #0 must be 32-bit signless integer, but got 'i64'}}
  %0 = blk.program_id 0 : i64
  return %0 : i64
}

// -----

// ODS: the axis attribute is required.
func.func @missing_axis() -> i32 {
  // expected-error @+1 {{requires attribute 'axis'}}
  %0 = "blk.program_id"() : () -> i32
  return %0 : i32
}

// -----

// ODS: the program id takes no operands.
func.func @takes_no_operands(%x: i32) -> i32 {
  // expected-error @+1 {{'blk.program_id' op requires zero operands}}
  %0 = "blk.program_id"(%x) <{axis = 0 : i32}> : (i32) -> i32
  return %0 : i32
}
