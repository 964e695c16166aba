// RUN: blockjit-opt %s --split-input-file --blk-test-axis-info -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not=remark:

// What AxisAnalysis (compiler/gpu/AxisInfo.h) derives, value by value: the
// facts convert-blk-to-nvvm uses to pick vector widths. contiguity: aligned
// runs of consecutive integers (pointers: one element apart); divisibility:
// the power of two dividing the first element of each run (bytes for
// pointers); constancy: aligned runs of equal values. Along a block's last
// dimension; a scalar is a block of one.
//
// One CHECK per value, in the order the values are defined: an op's results,
// then the arguments of its regions. No other remark may appear.

// The softmax row: a 16-byte aligned row start plus a range gives 1024
// contiguous addresses whose runs start 16-byte aligned; `cols < n` with n
// divisible by 16 is uniform over runs of 16 lanes.
// CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1
// CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1
// CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
// CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1
// CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
func.func @softmax_row(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %stride: i32 {blk.divisibility = 16 : i32}, %row: i32, %n: i32 {blk.divisibility = 16 : i32}, %m: i32) {
  // CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1
  %off = arith.muli %row, %stride : i32
  // CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1
  %rowp = blk.addptr %in, %off : !blk.ptr<f32>, i32
  // CHECK: remark: contiguity = 1024, divisibility = 1073741824, constancy = 1
  %cols = blk.make_range 0 to 1024 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1024
  %p = blk.splat %rowp : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  // CHECK: remark: contiguity = 1024, divisibility = 16, constancy = 1
  %ptrs = blk.addptr %p, %cols : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1024
  %nb = blk.splat %n : i32 -> tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 16
  %mask = arith.cmpi slt, %cols, %nb : tensor<1024xi32>
  // A bound of unknown divisibility: the mask may change at any lane.
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1024
  %mb = blk.splat %m : i32 -> tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
  %mask2 = arith.cmpi slt, %cols, %mb : tensor<1024xi32>
  // 64-bit offsets (blk-widen-offsets) keep what they extend.
  // CHECK: remark: contiguity = 1024, divisibility = 1073741824, constancy = 1
  %w = arith.extsi %cols : tensor<1024xi32> to tensor<1024xi64>
  // CHECK: remark: contiguity = 1024, divisibility = 1073741824, constancy = 1
  %t = arith.trunci %w : tensor<1024xi64> to tensor<1024xi32>
  return
}

// -----

// Parameters: blk.divisibility is rounded down to a power of two; without
// it nothing is known.
// CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1
// CHECK: remark: contiguity = 1, divisibility = 4, constancy = 1
// CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
// CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
func.func @parameters(%p: !blk.ptr<f16> {blk.divisibility = 16 : i32}, %twelve: i32 {blk.divisibility = 12 : i32}, %q: !blk.ptr<f16>, %n: i32) {
  return
}

// -----

// Constants: uniform over the block, divisible by what divides the value
// (0 by anything, capped at 2^30); distinct elements share only their
// common divisor.
func.func @constants() {
  // CHECK: remark: contiguity = 1, divisibility = 8, constancy = 1
  %c24 = arith.constant 24 : i32
  // CHECK: remark: contiguity = 1, divisibility = 1073741824, constancy = 1
  %c0 = arith.constant 0 : i64
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
  %true = arith.constant true
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 64
  %c3 = arith.constant dense<3> : tensor<64xi32>
  // CHECK: remark: contiguity = 1, divisibility = 64, constancy = 64
  %c64 = arith.constant dense<64> : tensor<64xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 64
  %half = arith.constant dense<0.5> : tensor<64xf32>
  // CHECK: remark: contiguity = 1, divisibility = 4, constancy = 1
  %steps = arith.constant dense<[4, 8, 12, 16]> : tensor<4xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
  %fs = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return
}

// -----

// Ranges, splats and shape changes. Broadcasting along the last dimension
// repeats an element; along another dimension the rows keep their facts.
// expand_dims to a last dimension of 1 leaves single elements.
// CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1
func.func @shapes(%n: i32 {blk.divisibility = 16 : i32}) {
  // CHECK: remark: contiguity = 4, divisibility = 4, constancy = 1
  %r = blk.make_range 4 to 8 : tensor<4xi32>
  // CHECK: remark: contiguity = 128, divisibility = 1073741824, constancy = 1
  %cols = blk.make_range 0 to 128 : tensor<128xi32>
  // CHECK: remark: contiguity = 1, divisibility = 16, constancy = 128
  %ns = blk.splat %n : i32 -> tensor<128xi32>
  // CHECK: remark: contiguity = 1, divisibility = 16, constancy = 64
  %n2 = blk.splat %n : i32 -> tensor<32x64xi32>
  // CHECK: remark: contiguity = 128, divisibility = 1073741824, constancy = 1
  %row = blk.expand_dims %cols axis = 0 : tensor<128xi32> -> tensor<1x128xi32>
  // CHECK: remark: contiguity = 128, divisibility = 1073741824, constancy = 1
  %rows = blk.broadcast %row : tensor<1x128xi32> -> tensor<64x128xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
  %col = blk.expand_dims %cols axis = 1 : tensor<128xi32> -> tensor<128x1xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 32
  %cols2 = blk.broadcast %col : tensor<128x1xi32> -> tensor<128x32xi32>
  // CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1
  %one = blk.expand_dims %ns axis = 1 : tensor<128xi32> -> tensor<128x1xi32>
  // CHECK: remark: contiguity = 1, divisibility = 16, constancy = 8
  %wide = blk.broadcast %one : tensor<128x1xi32> -> tensor<128x8xi32>
  return
}

// -----

// Sums and differences: consecutive where one side is and the other is
// constant over the run; each run starts where both operands' elements at
// that position are divisible.
// CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
func.func @sums(%x: i32) {
  // CHECK: remark: contiguity = 1024, divisibility = 1073741824, constancy = 1
  %cols = blk.make_range 0 to 1024 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 8, constancy = 1024
  %c8 = arith.constant dense<8> : tensor<1024xi32>
  // Shifting a range by 8 keeps its runs, starting at multiples of 8.
  // CHECK: remark: contiguity = 1024, divisibility = 8, constancy = 1
  %shifted = arith.addi %cols, %c8 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1024, divisibility = 8, constancy = 1
  %shifted2 = arith.addi %c8, %cols : tensor<1024xi32>
  // CHECK: remark: contiguity = 1024, divisibility = 8, constancy = 1
  %down = arith.subi %cols, %c8 : tensor<1024xi32>
  // 8 - cols counts down: no runs.
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
  %back = arith.subi %c8, %cols : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
  %twice = arith.addi %cols, %cols : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1024
  %c16 = arith.constant dense<16> : tensor<1024xi32>
  // cols / 16 * 1024: runs of 16 equal multiples of 1024.
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 16
  %q = arith.divui %cols, %c16 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1024, constancy = 1024
  %c1024 = arith.constant dense<1024> : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1024, constancy = 16
  %tiles = arith.muli %q, %c1024 : tensor<1024xi32>
  // cols + tiles: runs of 16 starting at 16 * j + tiles[j]: divisible by 16,
  // not by 1024.
  // CHECK: remark: contiguity = 16, divisibility = 16, constancy = 1
  %tiled = arith.addi %cols, %tiles : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
  %s = arith.addi %x, %x : i32
  return
}

// -----

// Products and sums that break the runs: their divisibility must hold for
// every element. (cols * 3 and cols + cols once claimed 2^30: the start of
// `cols`, not of their elements.)
func.func @products() {
  // CHECK: remark: contiguity = 1024, divisibility = 1073741824, constancy = 1
  %cols = blk.make_range 0 to 1024 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1024
  %c3 = arith.constant dense<3> : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
  %three = arith.muli %cols, %c3 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 8, constancy = 1024
  %c8 = arith.constant dense<8> : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 8, constancy = 1
  %eight = arith.muli %three, %c8 : tensor<1024xi32>
  return
}

// -----

// Pointers: divisibility in bytes. A gather (pointer + non-contiguous
// offsets) is aligned to its element; consecutive pointers plus a constant
// offset stay consecutive.
// CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1
func.func @pointers(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  // CHECK: remark: contiguity = 128, divisibility = 1073741824, constancy = 1
  %cols = blk.make_range 0 to 128 : tensor<128xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
  %twice = arith.addi %cols, %cols : tensor<128xi32>
  // CHECK: remark: contiguity = 1, divisibility = 16, constancy = 128
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  // CHECK: remark: contiguity = 1, divisibility = 4, constancy = 1
  %gather = blk.addptr %p, %twice : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  // CHECK: remark: contiguity = 128, divisibility = 16, constancy = 1
  %ptrs = blk.addptr %p, %cols : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  // CHECK: remark: contiguity = 1, divisibility = 2, constancy = 128
  %c2 = arith.constant dense<2> : tensor<128xi32>
  // CHECK: remark: contiguity = 128, divisibility = 8, constancy = 1
  %next = blk.addptr %ptrs, %c2 : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  // Consecutive pointers plus consecutive offsets: every element is still
  // a multiple of the element size.
  // CHECK: remark: contiguity = 1, divisibility = 4, constancy = 1
  %skew = blk.addptr %ptrs, %cols : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  return
}

// -----

// Divisions by constants. An unsigned quotient is uniform over aligned
// groups that no multiple of the divisor splits; a signed one steps inside
// them for negative values, so it only keeps the exact quotient's
// divisibility.
func.func @divisions() {
  // CHECK: remark: contiguity = 1024, divisibility = 1073741824, constancy = 1
  %cols = blk.make_range 0 to 1024 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1024
  %c1 = arith.constant dense<1> : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 4, constancy = 1024
  %c12 = arith.constant dense<12> : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1024
  %c16 = arith.constant dense<16> : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 64, constancy = 1024
  %c64 = arith.constant dense<64> : tensor<1024xi32>
  // CHECK: remark: contiguity = 1024, divisibility = 1073741824, constancy = 1
  %same = arith.divsi %cols, %c1 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 16
  %u16 = arith.divui %cols, %c16 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 4
  %u12 = arith.divui %cols, %c12 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
  %s16 = arith.divsi %cols, %c16 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 64, constancy = 1
  %x64 = arith.muli %cols, %c64 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 4, constancy = 1
  %exact = arith.divsi %x64, %c16 : tensor<1024xi32>
  return
}

// -----

// Remainders and masks by constants: an unsigned remainder (or `& (2^k-1)`)
// of a range is consecutive within the aligned groups of the quotient; a
// signed remainder only keeps the divisibility of each element, and is 0
// where the divisor divides every element.
// CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
func.func @remainders(%x: i32) {
  // CHECK: remark: contiguity = 1024, divisibility = 1073741824, constancy = 1
  %cols = blk.make_range 0 to 1024 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1024
  %c16 = arith.constant dense<16> : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1024
  %c15 = arith.constant dense<15> : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 8, constancy = 1024
  %c8 = arith.constant dense<8> : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1024
  %ones = arith.constant dense<-1> : tensor<1024xi32>
  // CHECK: remark: contiguity = 16, divisibility = 1073741824, constancy = 1
  %u = arith.remui %cols, %c16 : tensor<1024xi32>
  // CHECK: remark: contiguity = 16, divisibility = 1073741824, constancy = 1
  %masked = arith.andi %cols, %c15 : tensor<1024xi32>
  // 8, ..., 15, 0, ..., 7, 8, ...: runs of 8 starting at 8 or 0.
  // CHECK: remark: contiguity = 1024, divisibility = 8, constancy = 1
  %plus8 = arith.addi %cols, %c8 : tensor<1024xi32>
  // CHECK: remark: contiguity = 8, divisibility = 8, constancy = 1
  %u8 = arith.remui %plus8, %c16 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1024, divisibility = 1073741824, constancy = 1
  %all = arith.andi %cols, %ones : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
  %s = arith.remsi %cols, %c16 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1
  %x16 = arith.muli %cols, %c16 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1073741824, constancy = 1024
  %zero = arith.remsi %x16, %c8 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 32, constancy = 1024
  %c32 = arith.constant dense<32> : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1
  %s32 = arith.remsi %x16, %c32 : tensor<1024xi32>
  // Unknown mask: the trailing zeros of either side stay.
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1024
  %xs = blk.splat %x : i32 -> tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1
  %and = arith.andi %x16, %xs : tensor<1024xi32>
  return
}

// -----

// Shifts by constants: << multiplies each element's divisibility; >> is a
// floor division by 2^k, signed or not.
func.func @shifts() {
  // CHECK: remark: contiguity = 1024, divisibility = 1073741824, constancy = 1
  %cols = blk.make_range 0 to 1024 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1073741824, constancy = 1024
  %c0 = arith.constant dense<0> : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 2, constancy = 1024
  %c2 = arith.constant dense<2> : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 4, constancy = 1024
  %c4 = arith.constant dense<4> : tensor<1024xi32>
  // CHECK: remark: contiguity = 1024, divisibility = 1073741824, constancy = 1
  %same = arith.shli %cols, %c0 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 4, constancy = 1
  %x4 = arith.shli %cols, %c2 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 16
  %u = arith.shrui %cols, %c4 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 16
  %s = arith.shrsi %cols, %c4 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
  %x4s = arith.shrsi %x4, %c4 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1
  %x16 = arith.shli %x4, %c2 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 4, constancy = 1
  %x16s = arith.shrui %x16, %c2 : tensor<1024xi32>
  return
}

// -----

// Selects: a known condition picks its side; otherwise consecutive where the
// condition is uniform and both sides are consecutive. A scalar condition is
// uniform over the whole block.
// CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
// CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1
func.func @selects(%b: i1, %n: i32 {blk.divisibility = 16 : i32}) {
  // CHECK: remark: contiguity = 1024, divisibility = 1073741824, constancy = 1
  %cols = blk.make_range 0 to 1024 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 8, constancy = 1024
  %c8 = arith.constant dense<8> : tensor<1024xi32>
  // CHECK: remark: contiguity = 1024, divisibility = 8, constancy = 1
  %plus8 = arith.addi %cols, %c8 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1073741824, constancy = 1024
  %false = arith.constant dense<false> : tensor<1024xi1>
  // CHECK: remark: contiguity = 1, divisibility = 8, constancy = 1024
  %picked = arith.select %false, %cols, %c8 : tensor<1024xi1>, tensor<1024xi32>
  // CHECK: remark: contiguity = 1024, divisibility = 8, constancy = 1
  %either = arith.select %b, %cols, %plus8 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1024
  %ns = blk.splat %n : i32 -> tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 16
  %lt = arith.cmpi slt, %cols, %ns : tensor<1024xi32>
  // CHECK: remark: contiguity = 16, divisibility = 8, constancy = 1
  %mixed = arith.select %lt, %cols, %plus8 : tensor<1024xi1>, tensor<1024xi32>
  return
}

// -----

// Comparisons of a range with a bound divisible by 16: `x < n` and `n <= x`
// (and their negations) step at a multiple of 16, the start of a group;
// `x <= n` and `x == n` step inside one.
// CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1
func.func @comparisons(%n: i32 {blk.divisibility = 16 : i32}) {
  // CHECK: remark: contiguity = 1024, divisibility = 1073741824, constancy = 1
  %cols = blk.make_range 0 to 1024 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1024
  %ns = blk.splat %n : i32 -> tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 16
  %lt = arith.cmpi ult, %cols, %ns : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 16
  %ge = arith.cmpi sge, %cols, %ns : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 16
  %le = arith.cmpi sle, %ns, %cols : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 16
  %gt = arith.cmpi ugt, %ns, %cols : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
  %le2 = arith.cmpi sle, %cols, %ns : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
  %lt2 = arith.cmpi slt, %ns, %cols : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
  %eq = arith.cmpi eq, %cols, %ns : tensor<1024xi32>
  // Uniform operands give a uniform result.
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1024
  %ne = arith.cmpi ne, %ns, %ns : tensor<1024xi32>
  return
}

// -----

// scf.for: the induction variable is divisible by what divides the lower
// bound and the step; iter_args and results are the fixpoint of the inits
// joined with the yields. A pointer block advanced by whole 64-element rows
// stays consecutive and 16-byte aligned; a counter advanced by 1 loses the
// divisibility of its start.
// CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1
// CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
func.func @loop(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %n: i32) {
  // CHECK: remark: contiguity = 1, divisibility = 1073741824, constancy = 1
  %c0 = arith.constant 0 : i32
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
  %c1 = arith.constant 1 : i32
  // CHECK: remark: contiguity = 1, divisibility = 4, constancy = 1
  %c4 = arith.constant 4 : i32
  // CHECK: remark: contiguity = 64, divisibility = 1073741824, constancy = 1
  %cols = blk.make_range 0 to 64 : tensor<64xi32>
  // CHECK: remark: contiguity = 1, divisibility = 16, constancy = 64
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<64x!blk.ptr<f32>>
  // CHECK: remark: contiguity = 64, divisibility = 16, constancy = 1
  %ptrs = blk.addptr %p, %cols : tensor<64x!blk.ptr<f32>>, tensor<64xi32>
  // CHECK: remark: contiguity = 1, divisibility = 64, constancy = 64
  %row = arith.constant dense<64> : tensor<64xi32>
  // The loop's results, then its induction variable and iter_args.
  // CHECK: remark: contiguity = 64, divisibility = 16, constancy = 1
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
  // CHECK: remark: contiguity = 1, divisibility = 4, constancy = 1
  // CHECK: remark: contiguity = 64, divisibility = 16, constancy = 1
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
  %r:2 = scf.for %i = %c0 to %n step %c4 iter_args(%q = %ptrs, %k = %c0) -> (tensor<64x!blk.ptr<f32>>, i32) : i32 {
    // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
    %x = blk.load %q : tensor<64x!blk.ptr<f32>>
    // CHECK: remark: contiguity = 64, divisibility = 16, constancy = 1
    %q2 = blk.addptr %q, %row : tensor<64x!blk.ptr<f32>>, tensor<64xi32>
    // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
    %k2 = arith.addi %k, %c1 : i32
    scf.yield %q2, %k2 : tensor<64x!blk.ptr<f32>>, i32
  }
  return
}

// -----

// What the analysis cannot see through: loads, grid queries, reductions and
// float arithmetic give nothing, except that elementwise ops are uniform
// wherever their operands are.
// CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1
func.func @unknowns(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
  %pid = blk.program_id 0 : i32
  // CHECK: remark: contiguity = 1, divisibility = 16, constancy = 128
  %p = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
  %x = blk.load %p : tensor<128x!blk.ptr<f32>>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
  %m = blk.reduce max %x axis = 0 : tensor<128xf32> -> f32
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 128
  %ms = blk.splat %m : f32 -> tensor<128xf32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 128
  %e = math.exp %ms : tensor<128xf32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
  %d = arith.subf %x, %ms : tensor<128xf32>
  return
}

// -----

// A mask bound clamped to its specialization's range (KernelDef::trace with
// SpecializationKey::ranges) keeps its divisibility: a scalar min or max is
// one of its operands. `cols < n` then stays uniform over runs of 16. On
// blocks, min and max keep only the operands' common constancy.
// CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1
func.func @clamped_bound(%n: i32 {blk.divisibility = 16 : i32}) {
  // CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1
  %lo = arith.constant 11280 : i32
  // CHECK: remark: contiguity = 1, divisibility = 4096, constancy = 1
  %hi = arith.constant 12288 : i32
  // CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1
  %a = arith.maxsi %n, %lo : i32
  // CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1
  %b = arith.minsi %a, %hi : i32
  // CHECK: remark: contiguity = 1024, divisibility = 1073741824, constancy = 1
  %cols = blk.make_range 0 to 1024 : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 16, constancy = 1024
  %bs = blk.splat %b : i32 -> tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 16
  %mask = arith.cmpi slt, %cols, %bs : tensor<1024xi32>
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
  %m = arith.minsi %cols, %bs : tensor<1024xi32>
  // An odd low end leaves the odd divisibility.
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
  %odd = arith.constant 11265 : i32
  // CHECK: remark: contiguity = 1, divisibility = 1, constancy = 1
  %c = arith.maxsi %n, %odd : i32
  return
}
