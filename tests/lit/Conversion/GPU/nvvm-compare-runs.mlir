// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=1" \
// RUN:   --convert-blk-to-nvvm="sm-arch=90" | FileCheck %s

// A comparison whose result AxisAnalysis proves constant over aligned runs
// is computed once per run of a thread's consecutive elements and shared:
// `range < n` with n a multiple of 16 changes only at multiples of 16, and
// each thread's 4 consecutive f32 (a 16-byte vector) fall in one run. 1024
// elements over 32 threads: 32 a thread, 8 vectors, 8 compares; the select
// of where(mask, x, 0) takes each compare 4 times.

// CHECK-LABEL: func.func @mask_multiple_of_16
// CHECK:         %[[M0:.*]] = arith.cmpi slt
// CHECK-NEXT:    %[[M1:.*]] = arith.cmpi slt
// CHECK-COUNT-6: arith.cmpi slt
// CHECK-NOT:     arith.cmpi
// CHECK:         arith.select %[[M0]]
// CHECK-NEXT:    arith.select %[[M0]]
// CHECK-NEXT:    arith.select %[[M0]]
// CHECK-NEXT:    arith.select %[[M0]]
// CHECK-NEXT:    arith.select %[[M1]]
func.func @mask_multiple_of_16(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32},
                               %out: !blk.ptr<f32> {blk.divisibility = 16 : i32},
                               %n: i32 {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  %nb = blk.splat %n : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %r, %nb : tensor<1024xi32>
  %ib = blk.splat %in : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %ip = blk.addptr %ib, %r : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  %x = blk.load %ip, %mask : tensor<1024x!blk.ptr<f32>>
  %zero = arith.constant dense<0.0> : tensor<1024xf32>
  %y = arith.select %mask, %x, %zero : tensor<1024xi1>, tensor<1024xf32>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  blk.store %op, %y : tensor<1024x!blk.ptr<f32>>
  return
}

// -----

// Nothing known of n: the mask may change at any element, one compare each.

// CHECK-LABEL: func.func @mask_any_n
// CHECK-COUNT-32: arith.cmpi slt
// CHECK-NOT:      arith.cmpi
func.func @mask_any_n(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32},
                      %out: !blk.ptr<f32> {blk.divisibility = 16 : i32},
                      %n: i32) {
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  %nb = blk.splat %n : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %r, %nb : tensor<1024xi32>
  %ib = blk.splat %in : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %ip = blk.addptr %ib, %r : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  %x = blk.load %ip, %mask : tensor<1024x!blk.ptr<f32>>
  %zero = arith.constant dense<0.0> : tensor<1024xf32>
  %y = arith.select %mask, %x, %zero : tensor<1024xi1>, tensor<1024xf32>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  blk.store %op, %y : tensor<1024x!blk.ptr<f32>>
  return
}

// -----

// `range == n` holds at one element of a run: no sharing even with n a
// multiple of 16.

// CHECK-LABEL: func.func @equal_changes_inside_runs
// CHECK-COUNT-32: arith.cmpi eq
// CHECK-NOT:      arith.cmpi
func.func @equal_changes_inside_runs(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32},
                                     %out: !blk.ptr<f32> {blk.divisibility = 16 : i32},
                                     %n: i32 {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 1024 : tensor<1024xi32>
  %nb = blk.splat %n : i32 -> tensor<1024xi32>
  %hit = arith.cmpi eq, %r, %nb : tensor<1024xi32>
  %ib = blk.splat %in : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %ip = blk.addptr %ib, %r : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  %x = blk.load %ip : tensor<1024x!blk.ptr<f32>>
  %zero = arith.constant dense<0.0> : tensor<1024xf32>
  %y = arith.select %hit, %x, %zero : tensor<1024xi1>, tensor<1024xf32>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  blk.store %op, %y : tensor<1024x!blk.ptr<f32>>
  return
}
