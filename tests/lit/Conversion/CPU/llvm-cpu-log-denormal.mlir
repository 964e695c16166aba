// RUN: blockjit-opt %s --split-input-file --convert-blk-to-loops --convert-blk-to-llvm-cpu \
// RUN:   | FileCheck %s
// RUN: blockjit-opt %s --split-input-file --blockjit-gpu-pipeline \
// RUN:   | FileCheck %s --check-prefix=GPU

// MLIR's log approximation clamps its input to the smallest normal float,
// so log(1e-40) came out as log(FLT_MIN) = -87.34 instead of -92.1 (found
// by tests/differential, case ew_log_f32_f32_n781). compiler/MathLowering
// scales inputs below 2^-126 by 2^24 (0x4B800000) before the approximation
// and subtracts 24 * ln(2) = 16.6355324 after it, on both targets.

// CHECK-LABEL: llvm.func internal @log_scalar
// CHECK-DAG:     %[[SHIFT:.*]] = llvm.mlir.constant(16.6355324 : f32) : f32
// CHECK-DAG:     %[[SCALE:.*]] = llvm.mlir.constant(0x4B800000 : f32) : f32
// CHECK-DAG:     %[[MIN:.*]] = llvm.mlir.constant(1.17549435E-38 : f32) : f32
// CHECK:         %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[TINY:.*]] = llvm.fcmp "olt" %[[X]], %[[MIN]] : f32
// CHECK-NEXT:    %[[SCALED:.*]] = llvm.fmul %[[X]], %[[SCALE]] : f32
// CHECK-NEXT:    %[[IN:.*]] = llvm.select %[[TINY]], %[[SCALED]], %[[X]] : i1, f32
// CHECK:         %[[NAN:.*]] = llvm.fcmp "uno" %[[IN]], %[[IN]] : f32
// CHECK-NEXT:    %[[L:.*]] = llvm.select %[[NAN]], %[[IN]], %{{.*}} : i1, f32
// CHECK-NEXT:    %[[C:.*]] = llvm.fsub %[[L]], %[[SHIFT]] : f32
// CHECK-NEXT:    %[[R:.*]] = llvm.select %[[TINY]], %[[C]], %[[L]] : i1, f32
// CHECK-NEXT:    llvm.store %[[R]], %{{.*}} : f32, !llvm.ptr
// GPU-LABEL: llvm.func @log_scalar
// GPU:         llvm.fcmp "olt"
// GPU:         llvm.fsub %{{.*}} : f32
func.func @log_scalar(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %x = blk.load %in : !blk.ptr<f32>
  %l = math.log %x : f32
  blk.store %out, %l : !blk.ptr<f32>
  return
}

// -----

// Blocks get the same correction, element by element (vectors after the
// loop lowering); f16 is widened to f32 around it.
// CHECK-LABEL: llvm.func internal @log_block
// CHECK:         llvm.fcmp "olt"
// CHECK:         llvm.fsub
// GPU-LABEL: llvm.func @log_block
// GPU:         llvm.fcmp "olt"
func.func @log_block(%in: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<f32>>
  %l = math.log %x : tensor<128xf32>
  blk.store %p, %l : tensor<128x!blk.ptr<f32>>
  return
}
