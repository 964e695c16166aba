// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=1" \
// RUN:   --convert-blk-to-nvvm | FileCheck %s

// Elementwise ops, math included, are applied to each of the thread's
// elements (4 here: 128 over 32 threads). exp and log stay math ops here:
// the LLVM stage lowers them for NVPTX for scalars and block elements alike
// (compiler/MathLowering.cpp; tests llvm-gpu-math*.mlir).

// CHECK-LABEL: func.func @exp
// CHECK-COUNT-4: llvm.extractelement
// CHECK-COUNT-4: math.exp %{{.*}} : f32
// CHECK-NOT:     math.exp
// CHECK:         return
func.func @exp(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<f32>>
  %e = math.exp %x : tensor<128xf32>
  blk.store %p, %e : tensor<128x!blk.ptr<f32>>
  return
}

// -----

// CHECK-LABEL: func.func @log
// CHECK-COUNT-4: math.log %{{.*}} : f32
// CHECK-NOT:     math.log
// CHECK:         return
func.func @log(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<f32>>
  %l = math.log %x : tensor<128xf32>
  blk.store %p, %l : tensor<128x!blk.ptr<f32>>
  return
}

// -----

// Dividing a block by one f32 scalar (a splat of a reduction result): one
// uniform branch on 2^-126 <= |s| <= 2^126. In range, one rcp.approx.ftz
// and a multiply per element (div.full's own code there: 2 ulp); beyond
// (subnormal, near the largest float, 0, inf, NaN) div.full per element,
// which scales the operands. The test reads the sum, not the reciprocal.
// Dividing by a block of distinct values stays one exact divf per element.
// CHECK-LABEL: func.func @divide_by_sum
// CHECK:         %[[X0:.*]] = llvm.extractelement %{{.*}} : vector<4xf32>
// CHECK:         %[[X1:.*]] = llvm.extractelement %{{.*}} : vector<4xf32>
// CHECK:         %[[X2:.*]] = llvm.extractelement %{{.*}} : vector<4xf32>
// CHECK:         %[[X3:.*]] = llvm.extractelement %{{.*}} : vector<4xf32>
// CHECK-COUNT-5: nvvm.shfl.sync  bfly
// CHECK-NEXT:    %[[SUM:.*]] = arith.addf %{{.*}} : f32
// CHECK-DAG:     %[[ABS:.*]] = llvm.intr.fabs(%[[SUM]]) : (f32) -> f32
// CHECK-DAG:     %[[MAX:.*]] = arith.constant 8.50705917E+37 : f32
// CHECK-DAG:     %[[MIN:.*]] = arith.constant 1.17549435E-38 : f32
// CHECK-DAG:     %[[BELOW:.*]] = arith.cmpf ole, %[[ABS]], %[[MAX]] : f32
// CHECK-DAG:     %[[ABOVE:.*]] = arith.cmpf oge, %[[ABS]], %[[MIN]] : f32
// CHECK:         %[[NORMAL:.*]] = arith.andi %[[ABOVE]], %[[BELOW]] : i1
// CHECK-NEXT:    %[[Y:.*]]:4 = scf.if %[[NORMAL]] -> (f32, f32, f32, f32) {
// CHECK-NEXT:      %[[RCP:.*]] = nvvm.rcp.approx.ftz.f %[[SUM]] : f32
// CHECK-NEXT:      %[[M0:.*]] = arith.mulf %[[X0]], %[[RCP]] : f32
// CHECK-NEXT:      %[[M1:.*]] = arith.mulf %[[X1]], %[[RCP]] : f32
// CHECK-NEXT:      %[[M2:.*]] = arith.mulf %[[X2]], %[[RCP]] : f32
// CHECK-NEXT:      %[[M3:.*]] = arith.mulf %[[X3]], %[[RCP]] : f32
// CHECK-NEXT:      scf.yield %[[M0]], %[[M1]], %[[M2]], %[[M3]]
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[D0:.*]] = llvm.call_intrinsic "llvm.nvvm.div.full"(%[[X0]], %[[SUM]]) : (f32, f32) -> f32
// CHECK-NEXT:      %[[D1:.*]] = llvm.call_intrinsic "llvm.nvvm.div.full"(%[[X1]], %[[SUM]]) : (f32, f32) -> f32
// CHECK-NEXT:      %[[D2:.*]] = llvm.call_intrinsic "llvm.nvvm.div.full"(%[[X2]], %[[SUM]]) : (f32, f32) -> f32
// CHECK-NEXT:      %[[D3:.*]] = llvm.call_intrinsic "llvm.nvvm.div.full"(%[[X3]], %[[SUM]]) : (f32, f32) -> f32
// CHECK-NEXT:      scf.yield %[[D0]], %[[D1]], %[[D2]], %[[D3]]
// CHECK-NEXT:    }
// CHECK-NEXT:    arith.divf %[[Y]]#0, %[[X0]] : f32
// CHECK-NEXT:    arith.divf %[[Y]]#1, %[[X1]] : f32
// CHECK-NEXT:    arith.divf %[[Y]]#2, %[[X2]] : f32
// CHECK-NEXT:    arith.divf %[[Y]]#3, %[[X3]] : f32
// CHECK-NOT:     arith.divf
// CHECK:         return
func.func @divide_by_sum(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<f32>>
  %s = blk.reduce sum %x axis = 0 : tensor<128xf32> -> f32
  %sb = blk.splat %s : f32 -> tensor<128xf32>
  %y = arith.divf %x, %sb : tensor<128xf32>
  %z = arith.divf %y, %x : tensor<128xf32>
  blk.store %p, %z : tensor<128x!blk.ptr<f32>>
  return
}

// -----

// A 2-D block divided by its column sums broadcast down the rows
// (softmax_columns): each thread holds 2 rows of the same 4 columns, so its
// 8 divisor elements are 4 values. One uniform branch on all 4 being in
// range; there, one rcp.approx.ftz per column and a multiply per element;
// beyond, div.full per element by its own column's sum.
// CHECK-LABEL: func.func @divide_by_column_sums
// CHECK:         scf.if %{{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK-COUNT-4:   nvvm.rcp.approx.ftz.f
// CHECK-NOT:       nvvm.rcp.approx.ftz.f
// CHECK-COUNT-8:   arith.mulf
// CHECK:           scf.yield
// CHECK-NEXT:    } else {
// CHECK-COUNT-8:   llvm.call_intrinsic "llvm.nvvm.div.full"
// CHECK:           scf.yield
// CHECK-NEXT:    }
// CHECK-NOT:     arith.divf
// CHECK:         return
func.func @divide_by_column_sums(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}) {
  %rows = blk.make_range 0 to 64 : tensor<64xi32>
  %cols = blk.make_range 0 to 4 : tensor<4xi32>
  %r1 = blk.expand_dims %rows axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c1 = blk.expand_dims %cols axis = 0 : tensor<4xi32> -> tensor<1x4xi32>
  %four = arith.constant dense<4> : tensor<64x1xi32>
  %r4 = arith.muli %r1, %four : tensor<64x1xi32>
  %rb = blk.broadcast %r4 : tensor<64x1xi32> -> tensor<64x4xi32>
  %cb = blk.broadcast %c1 : tensor<1x4xi32> -> tensor<64x4xi32>
  %off = arith.addi %rb, %cb : tensor<64x4xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<64x4x!blk.ptr<f32>>
  %p = blk.addptr %b, %off : tensor<64x4x!blk.ptr<f32>>, tensor<64x4xi32>
  %x = blk.load %p : tensor<64x4x!blk.ptr<f32>>
  // The column sums in place (blk-sink-broadcasts' form of reduce, expand
  // and broadcast).
  %s = blkgpu.all_reduce sum %x axis = 0 : tensor<64x4xf32>
  %y = arith.divf %x, %s : tensor<64x4xf32>
  blk.store %p, %y : tensor<64x4x!blk.ptr<f32>>
  return
}

// -----

// f64 has no div.full: while 2^-1022 <= |s| <= 2^1022, one correctly
// rounded reciprocal and a multiply per element (within 1.5 ulp); one
// uniform branch divides every element exactly otherwise (subnormal s,
// near the largest double, 0, inf, NaN: 1/s overflows or loses bits).
// CHECK-LABEL: func.func @divide_f64_by_sum
// CHECK:         llvm.intr.fabs(%[[SUM:.*]]) : (f64) -> f64
// CHECK:         %[[NORMAL:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NEXT:    %[[Y:.*]]:4 = scf.if %[[NORMAL]] -> (f64, f64, f64, f64) {
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:      %[[RCP:.*]] = arith.divf %[[ONE]], %[[SUM]] : f64
// CHECK-COUNT-4:   arith.mulf %{{.*}}, %[[RCP]] : f64
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    } else {
// CHECK-COUNT-4:   arith.divf %{{.*}}, %[[SUM]] : f64
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NOT:     llvm.nvvm.div.full
// CHECK:         return
func.func @divide_f64_by_sum(%in: !blk.ptr<f64> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<f64> -> tensor<128x!blk.ptr<f64>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f64>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<f64>>
  %s = blk.reduce sum %x axis = 0 : tensor<128xf64> -> f64
  %sb = blk.splat %s : f64 -> tensor<128xf64>
  %y = arith.divf %x, %sb : tensor<128xf64>
  blk.store %p, %y : tensor<128x!blk.ptr<f64>>
  return
}

// -----

// bf16 (and f16) divide each element exactly: 1.5 of their ulps is no bound
// worth having, so there is no reciprocal and no branch.
// CHECK-LABEL: func.func @divide_bf16_by_scalar
// CHECK-NOT:     scf.if
// CHECK-COUNT-4: arith.divf %{{.*}}, %{{.*}} : bf16
// CHECK-NOT:     arith.mulf
// CHECK:         return
func.func @divide_bf16_by_scalar(%in: !blk.ptr<bf16> {blk.divisibility = 16 : i32}, %s: bf16) {
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %b = blk.splat %in : !blk.ptr<bf16> -> tensor<128x!blk.ptr<bf16>>
  %p = blk.addptr %b, %r : tensor<128x!blk.ptr<bf16>>, tensor<128xi32>
  %x = blk.load %p : tensor<128x!blk.ptr<bf16>>
  %sb = blk.splat %s : bf16 -> tensor<128xbf16>
  %y = arith.divf %x, %sb : tensor<128xbf16>
  blk.store %p, %y : tensor<128x!blk.ptr<bf16>>
  return
}
