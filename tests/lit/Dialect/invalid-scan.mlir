// RUN: blockjit-opt %s --split-input-file --verify-diagnostics

func.func @axis_out_of_range(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'blk.scan' op axis 2 out of range for a rank-2 operand (expected 0..1)}}
  %0 = blk.scan %x axis = 2 : tensor<4x8xf32> {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    blk.scan_return %c : f32
  }
  return
}

// -----

func.func @axis_negative(%x: tensor<4xf32>) {
  // expected-error @+1 {{'blk.scan' op axis -1 out of range for a rank-1 operand (expected 0..0)}}
  %0 = blk.scan %x axis = -1 : tensor<4xf32> {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    blk.scan_return %c : f32
  }
  return
}

// -----

func.func @pointer_block(%x: tensor<4x!blk.ptr<f32>>) {
  // expected-error @+1 {{'blk.scan' op scans integer or float blocks, got 'tensor<4x!blk.ptr<f32>>'}}
  %0 = blk.scan %x axis = 0 : tensor<4x!blk.ptr<f32>> {
  ^bb0(%a: !blk.ptr<f32>, %b: !blk.ptr<f32>):
    blk.scan_return %a : !blk.ptr<f32>
  }
  return
}

// -----

func.func @region_argument_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'blk.scan' op combine region must take two 'f32' scalars (the element type), got ('f16', 'f16')}}
  %0 = blk.scan %x axis = 0 : tensor<4xf32> {
  ^bb0(%a: f16, %b: f16):
    %c = arith.extf %a : f16 to f32
    blk.scan_return %c : f32
  }
  return
}

// -----

func.func @region_argument_count(%x: tensor<4xi32>) {
  // expected-error @+1 {{'blk.scan' op combine region must take two 'i32' scalars (the element type), got ('i32')}}
  %0 = blk.scan %x axis = 0 : tensor<4xi32> {
  ^bb0(%a: i32):
    blk.scan_return %a : i32
  }
  return
}

// -----

func.func @region_result_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'blk.scan' op combine region must return 'f32' (the element type), got 'f64'}}
  %0 = blk.scan %x axis = 0 : tensor<4xf32> {
  ^bb0(%a: f32, %b: f32):
    %c = arith.extf %a : f32 to f64
    blk.scan_return %c : f64
  }
  return
}

// -----

func.func @region_without_return(%x: tensor<4xf32>) {
  // expected-error @+1 {{'blk.scan' op combine region must end in blk.scan_return}}
  %0 = "blk.scan"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    "blk.program_id"() <{axis = 0 : i32}> : () -> i32
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @region_uses_block(%x: tensor<4xf32>) {
  // expected-error @+3 {{'blk.reduce' op in a blk.scan combine region works on blocks; the region combines scalars}}
  %0 = blk.scan %x axis = 0 : tensor<4xf32> {
  ^bb0(%a: f32, %b: f32):
    %m = blk.reduce max %x axis = 0 : tensor<4xf32> -> f32
    %c = arith.addf %a, %m : f32
    blk.scan_return %c : f32
  }
  return
}

// -----

func.func @region_side_effect(%x: tensor<4xf32>, %p: !blk.ptr<f32>) {
  // expected-error @+3 {{'blk.load' op in a blk.scan combine region must be a scalar operation without side effects or regions}}
  %0 = blk.scan %x axis = 0 : tensor<4xf32> {
  ^bb0(%a: f32, %b: f32):
    %v = blk.load %p : !blk.ptr<f32>
    %c = arith.addf %a, %v : f32
    blk.scan_return %c : f32
  }
  return
}

// -----

func.func @result_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{all of {src, result} have same type}}
  %0 = "blk.scan"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    blk.scan_return %a : f32
  }) : (tensor<4xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @return_outside_scan(%a: f32) {
  // expected-error @+1 {{'blk.scan_return' op expects parent op 'blk.scan'}}
  blk.scan_return %a : f32
}
