// RUN: blockjit-opt %s --split-input-file --verify-diagnostics

func.func @empty_range() {
  // expected-error @+1 {{'blk.make_range' op end (4) must be greater than start (4)}}
  %0 = blk.make_range 4 to 4 : tensor<0xi32>
  return
}

// -----

func.func @reversed_range() {
  // expected-error @+1 {{'blk.make_range' op end (0) must be greater than start (8)}}
  %0 = blk.make_range 8 to 0 : tensor<8xi32>
  return
}

// -----

func.func @not_power_of_two() {
  // expected-error @+1 {{'blk.make_range' op range length end - start = 6 must be a power of two}}
  %0 = blk.make_range 0 to 6 : tensor<6xi32>
  return
}

// -----

func.func @offset_not_power_of_two() {
  // expected-error @+1 {{range length end - start = 3 must be a power of two}}
  %0 = blk.make_range 5 to 8 : tensor<3xi32>
  return
}

// -----

func.func @wrong_length() {
  // expected-error @+1 {{'blk.make_range' op result type must be 'tensor<4xi32>', got 'tensor<8xi32>'}}
  %0 = blk.make_range 0 to 4 : tensor<8xi32>
  return
}

// -----

func.func @wrong_rank() {
  // expected-error @+1 {{'blk.make_range' op result type must be 'tensor<4xi32>', got 'tensor<2x2xi32>'}}
  %0 = blk.make_range 0 to 4 : tensor<2x2xi32>
  return
}

// -----

func.func @dynamic_result() {
  // expected-error @+1 {{result type must be 'tensor<16xi32>', got 'tensor<?xi32>'}}
  %0 = blk.make_range 16 to 32 : tensor<?xi32>
  return
}

// -----

// ODS: the result is a ranked tensor of i32.
func.func @wrong_element_type() {
  // expected-error @+1 {{'blk.make_range' op result #0 must be ranked tensor of 32-bit signless integer values, but got 'tensor<4xi64>'}}
  %0 = blk.make_range 0 to 4 : tensor<4xi64>
  return
}

// -----

func.func @missing_end() {
  // expected-error @+1 {{requires attribute 'end'}}
  %0 = "blk.make_range"() <{start = 0 : i32}> : () -> tensor<4xi32>
  return
}
