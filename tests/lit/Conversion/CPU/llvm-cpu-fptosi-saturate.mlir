// RUN: blockjit-opt %s --convert-blk-to-llvm-cpu | FileCheck %s
// RUN: blockjit-opt %s --blockjit-gpu-pipeline | FileCheck %s --check-prefix=GPU

// Float to integer casts saturate on both targets (the DSL's `cast`): LLVM's
// fptosi is poison out of range and for NaN, so selects replace it there:
// x <= -2^(n-1) gives the minimum, x >= 2^(n-1) the maximum, NaN 0. Past
// f16's range the bounds are infinities (every finite f16 fits in i64).

// CHECK-LABEL: @casts
// CHECK:         %[[X:.*]] = llvm.load %{{.*}} -> f32
// CHECK:         %[[T:.*]] = llvm.fptosi %[[X]] : f32 to i8
// CHECK:         %[[LO:.*]] = llvm.mlir.constant(-1.280000e+02 : f32) : f32
// CHECK:         %[[BELOW:.*]] = llvm.fcmp "ole" %[[X]], %[[LO]] : f32
// CHECK:         %[[HI:.*]] = llvm.mlir.constant(1.280000e+02 : f32) : f32
// CHECK:         %[[ABOVE:.*]] = llvm.fcmp "oge" %[[X]], %[[HI]] : f32
// CHECK:         %[[NAN:.*]] = llvm.fcmp "uno" %[[X]], %[[X]] : f32
// CHECK:         %[[MIN:.*]] = llvm.mlir.constant(-128 : i8) : i8
// CHECK:         %[[S1:.*]] = llvm.select %[[BELOW]], %[[MIN]], %[[T]] : i1, i8
// CHECK:         %[[MAX:.*]] = llvm.mlir.constant(127 : i8) : i8
// CHECK:         %[[S2:.*]] = llvm.select %[[ABOVE]], %[[MAX]], %[[S1]] : i1, i8
// CHECK:         %[[ZERO:.*]] = llvm.mlir.constant(0 : i8) : i8
// CHECK:         %[[S3:.*]] = llvm.select %[[NAN]], %[[ZERO]], %[[S2]] : i1, i8
// CHECK:         llvm.store %[[S3]], %{{.*}} : i8, !llvm.ptr
// CHECK:         %[[Y:.*]] = llvm.load %{{.*}} -> f16
// CHECK:         llvm.fptosi %[[Y]] : f16 to i64
// CHECK:         llvm.mlir.constant(0xFC00 : f16) : f16
// CHECK:         llvm.mlir.constant(0x7C00 : f16) : f16
// CHECK:         llvm.mlir.constant(-9223372036854775808 : i64) : i64
// CHECK:         llvm.mlir.constant(9223372036854775807 : i64) : i64

// The GPU pipeline hoists the constants.
// GPU-LABEL:   @casts
// GPU-DAG:       %[[LO:.*]] = llvm.mlir.constant(-1.280000e+02 : f32) : f32
// GPU-DAG:       %[[HI:.*]] = llvm.mlir.constant(1.280000e+02 : f32) : f32
// GPU-DAG:       %[[MIN:.*]] = llvm.mlir.constant(-128 : i8) : i8
// GPU-DAG:       %[[MAX:.*]] = llvm.mlir.constant(127 : i8) : i8
// GPU-DAG:       %[[ZERO:.*]] = llvm.mlir.constant(0 : i8) : i8
// GPU:           %[[X:.*]] = llvm.load %{{.*}} -> f32
// GPU:           %[[T:.*]] = llvm.fptosi %[[X]] : f32 to i8
// GPU:           %[[BELOW:.*]] = llvm.fcmp "ole" %[[X]], %[[LO]] : f32
// GPU:           %[[ABOVE:.*]] = llvm.fcmp "oge" %[[X]], %[[HI]] : f32
// GPU:           %[[NAN:.*]] = llvm.fcmp "uno" %[[X]], %[[X]] : f32
// GPU:           %[[S1:.*]] = llvm.select %[[BELOW]], %[[MIN]], %[[T]] : i1, i8
// GPU:           %[[S2:.*]] = llvm.select %[[ABOVE]], %[[MAX]], %[[S1]] : i1, i8
// GPU:           %[[S3:.*]] = llvm.select %[[NAN]], %[[ZERO]], %[[S2]] : i1, i8
// GPU:           llvm.store %[[S3]]
func.func @casts(%in: !blk.ptr<f32>, %h: !blk.ptr<f16>, %o8: !blk.ptr<i8>, %o64: !blk.ptr<i64>) {
  %x = blk.load %in : !blk.ptr<f32>
  %a = arith.fptosi %x : f32 to i8
  blk.store %o8, %a : !blk.ptr<i8>
  %y = blk.load %h : !blk.ptr<f16>
  %b = arith.fptosi %y : f16 to i64
  blk.store %o64, %b : !blk.ptr<i64>
  return
}
