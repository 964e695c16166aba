// RUN: blockjit-opt %s -canonicalize | FileCheck %s

// The folds and patterns working together on kernel-shaped IR: program 0's
// offset of zero, 2-D blocks built from splats, and an expand/broadcast chain
// of a scalar collapse to the minimal form.

// CHECK-LABEL: func.func @first_tile
// CHECK-SAME:    (%[[BASE:[^:]*]]: !blk.ptr<f32>, %[[SCALE:[^:]*]]: f32, %[[ROW:[^:]*]]: tensor<1x1xf32>)
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<8x16xf32>
// CHECK-NEXT:    %[[PTRS:.*]] = blk.splat %[[BASE]] : !blk.ptr<f32> -> tensor<8x16x!blk.ptr<f32>>
// CHECK-NEXT:    %[[X:.*]] = blk.load %[[PTRS]] : tensor<8x16x!blk.ptr<f32>>
// CHECK-NEXT:    %[[MAXED:.*]] = arith.maximumf %[[X]], %[[ZERO]] : tensor<8x16xf32>
// CHECK-NEXT:    %[[SCALES:.*]] = blk.splat %[[SCALE]] : f32 -> tensor<8x16xf32>
// CHECK-NEXT:    %[[SCALED:.*]] = arith.mulf %[[MAXED]], %[[SCALES]] : tensor<8x16xf32>
// CHECK-NEXT:    %[[ROWS:.*]] = blk.broadcast %[[ROW]] : tensor<1x1xf32> -> tensor<8x16xf32>
// CHECK-NEXT:    %[[Y:.*]] = arith.addf %[[SCALED]], %[[ROWS]] : tensor<8x16xf32>
// CHECK-NEXT:    blk.store %[[PTRS]], %[[Y]] : tensor<8x16x!blk.ptr<f32>>
// CHECK-NEXT:    return
func.func @first_tile(%base: !blk.ptr<f32>, %scale: f32, %row: tensor<1x1xf32>) {
  // Program 0 of a grid: its offset is 0 * 128.
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %start = arith.muli %c0, %c128 : i32
  %first = blk.addptr %base, %start : !blk.ptr<f32>, i32
  // Pointers as splat + zero offsets (all lanes read the same address here).
  %p1 = blk.splat %first : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %p2 = blk.expand_dims %p1 axis = 0 : tensor<16x!blk.ptr<f32>> -> tensor<1x16x!blk.ptr<f32>>
  %p3 = blk.broadcast %p2 : tensor<1x16x!blk.ptr<f32>> -> tensor<8x16x!blk.ptr<f32>>
  %zoff = blk.splat %c0 : i32 -> tensor<8x16xi32>
  %ptrs = blk.addptr %p3, %zoff : tensor<8x16x!blk.ptr<f32>>, tensor<8x16xi32>
  %x = blk.load %ptrs : tensor<8x16x!blk.ptr<f32>>
  // relu(x) * scale + row
  %f0 = arith.constant 0.0 : f32
  %z1 = blk.splat %f0 : f32 -> tensor<1x16xf32>
  %zero = blk.broadcast %z1 : tensor<1x16xf32> -> tensor<8x16xf32>
  %maxed = arith.maximumf %x, %zero : tensor<8x16xf32>
  %s1 = blk.splat %scale : f32 -> tensor<16xf32>
  %s2 = blk.expand_dims %s1 axis = 0 : tensor<16xf32> -> tensor<1x16xf32>
  %s3 = blk.broadcast %s2 : tensor<1x16xf32> -> tensor<1x16xf32>
  %scales = blk.broadcast %s3 : tensor<1x16xf32> -> tensor<8x16xf32>
  %scaled = arith.mulf %maxed, %scales : tensor<8x16xf32>
  %r1 = blk.broadcast %row : tensor<1x1xf32> -> tensor<1x16xf32>
  %rows = blk.broadcast %r1 : tensor<1x16xf32> -> tensor<8x16xf32>
  %y = arith.addf %scaled, %rows : tensor<8x16xf32>
  blk.store %ptrs, %y : tensor<8x16x!blk.ptr<f32>>
  return
}
