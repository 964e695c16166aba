// RUN: blockjit-opt %s --split-input-file --blk-test-axis-info --verify-diagnostics

// What AxisAnalysis (compiler/gpu/AxisInfo.h) derives, value by value: the
// facts convert-blk-to-nvvm uses to pick vector widths. contiguity: runs of
// consecutive integers; divisibility: the power of two dividing the first
// element of each run (bytes for pointers); constancy: runs of equal values.

// The softmax row: a 16-byte aligned row start plus a range gives 1024
// contiguous addresses whose runs start 16-byte aligned; `cols < n` with n
// divisible by 16 is uniform over runs of 16 lanes.
func.func @softmax_row(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %stride: i32 {blk.divisibility = 16 : i32}, %row: i32, %n: i32 {blk.divisibility = 16 : i32}, %m: i32) {
  // expected-remark @+1 {{contiguity = 1, divisibility = 16, constancy = 1}}
  %off = arith.muli %row, %stride : i32
  // expected-remark @+1 {{contiguity = 1, divisibility = 16, constancy = 1}}
  %rowp = blk.addptr %in, %off : !blk.ptr<f32>, i32
  // expected-remark @+1 {{contiguity = 1024, divisibility = 1073741824, constancy = 1}}
  %cols = blk.make_range 0 to 1024 : tensor<1024xi32>
  // expected-remark @+1 {{contiguity = 1, divisibility = 16, constancy = 1024}}
  %p = blk.splat %rowp : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  // expected-remark @+1 {{contiguity = 1024, divisibility = 16, constancy = 1}}
  %ptrs = blk.addptr %p, %cols : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  // expected-remark @+1 {{contiguity = 1, divisibility = 16, constancy = 1024}}
  %nb = blk.splat %n : i32 -> tensor<1024xi32>
  // expected-remark @+1 {{contiguity = 1, divisibility = 1, constancy = 16}}
  %mask = arith.cmpi slt, %cols, %nb : tensor<1024xi32>
  // A bound of unknown divisibility: the mask may change at any lane.
  // expected-remark @+1 {{contiguity = 1, divisibility = 1, constancy = 1024}}
  %mb = blk.splat %m : i32 -> tensor<1024xi32>
  // expected-remark @+1 {{contiguity = 1, divisibility = 1, constancy = 1}}
  %mask2 = arith.cmpi slt, %cols, %mb : tensor<1024xi32>
  // 64-bit offsets (blk-widen-offsets) keep what they extend.
  // expected-remark @+1 {{contiguity = 1024, divisibility = 1073741824, constancy = 1}}
  %w = arith.extsi %cols : tensor<1024xi32> to tensor<1024xi64>
  return
}

// -----

// Products and sums that break the runs: their divisibility must hold for
// every element. (cols * 3 and cols + cols once claimed 2^30: the start of
// `cols`, not of their elements.)
func.func @broken_runs() {
  // expected-remark @+1 {{contiguity = 1024, divisibility = 1073741824, constancy = 1}}
  %cols = blk.make_range 0 to 1024 : tensor<1024xi32>
  // expected-remark @+1 {{contiguity = 1, divisibility = 1, constancy = 1024}}
  %c3 = arith.constant dense<3> : tensor<1024xi32>
  // expected-remark @+1 {{contiguity = 1, divisibility = 1, constancy = 1}}
  %three = arith.muli %cols, %c3 : tensor<1024xi32>
  // expected-remark @+1 {{contiguity = 1, divisibility = 8, constancy = 1024}}
  %c8 = arith.constant dense<8> : tensor<1024xi32>
  // expected-remark @+1 {{contiguity = 1, divisibility = 8, constancy = 1}}
  %eight = arith.muli %three, %c8 : tensor<1024xi32>
  // expected-remark @+1 {{contiguity = 1, divisibility = 1, constancy = 1}}
  %twice = arith.addi %cols, %cols : tensor<1024xi32>
  // Shifting a range by 8 keeps its runs, starting at multiples of 8.
  // expected-remark @+1 {{contiguity = 1024, divisibility = 8, constancy = 1}}
  %shifted = arith.addi %cols, %c8 : tensor<1024xi32>
  // expected-remark @+1 {{contiguity = 4, divisibility = 4, constancy = 1}}
  %r2 = blk.make_range 4 to 8 : tensor<4xi32>
  return
}

// -----

// A gather (pointer + non-contiguous offsets) is aligned to its element.
func.func @gather(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  // expected-remark @+1 {{contiguity = 128, divisibility = 1073741824, constancy = 1}}
  %cols = blk.make_range 0 to 128 : tensor<128xi32>
  // expected-remark @+1 {{contiguity = 1, divisibility = 1, constancy = 1}}
  %twice = arith.addi %cols, %cols : tensor<128xi32>
  // expected-remark @+1 {{contiguity = 1, divisibility = 16, constancy = 128}}
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  // expected-remark @+1 {{contiguity = 1, divisibility = 4, constancy = 1}}
  %ptrs = blk.addptr %p, %twice : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  return
}
