// RUN: blockjit-opt %s | blockjit-opt | FileCheck %s
// RUN: blockjit-opt %s --mlir-print-op-generic | blockjit-opt | FileCheck %s

// Column-wise max and min of an 8x128 f16 tile (reduce along axis 0), with
// pointers picked per program along grid axis 1, and a scalar masked load of
// a bias through a scalar pointer.

// CHECK-LABEL: func.func @column_max
// CHECK:         %[[PID:.*]] = blk.program_id 1 : i32
// CHECK:         %[[BASE:.*]] = blk.addptr %{{.*}}, %{{.*}} : !blk.ptr<f16>, i32
// CHECK:         %[[TILE:.*]] = blk.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<8x128x!blk.ptr<f16>>
// CHECK:         %[[MAX:.*]] = blk.reduce max %[[TILE]] axis = 0 : tensor<8x128xf16> -> tensor<128xf16>
// CHECK:         %[[MIN:.*]] = blk.reduce min %[[TILE]] axis = 0 : tensor<8x128xf16> -> tensor<128xf16>
// CHECK:         %[[BIAS:.*]] = blk.load %{{.*}}, %{{.*}}, %{{.*}} : !blk.ptr<f16>
// CHECK:         %[[BIASES:.*]] = blk.splat %[[BIAS]] : f16 -> tensor<128xf16>
// CHECK:         %[[RANGE:.*]] = arith.subf %[[MAX]], %[[MIN]] : tensor<128xf16>
// CHECK:         %[[OUT:.*]] = arith.addf %[[RANGE]], %[[BIASES]] : tensor<128xf16>
// CHECK:         blk.store %{{.*}}, %[[OUT]] : tensor<128x!blk.ptr<f16>>
func.func @column_max(%in: !blk.ptr<f16>, %bias: !blk.ptr<f16>, %out: !blk.ptr<f16>, %has_bias: i1) {
  %pid = blk.program_id 1 : i32
  %tile_elems = arith.constant 1024 : i32
  %start = arith.muli %pid, %tile_elems : i32
  %base = blk.addptr %in, %start : !blk.ptr<f16>, i32
  %rows = blk.make_range 0 to 8 : tensor<8xi32>
  %cols = blk.make_range 0 to 128 : tensor<128xi32>
  %r2 = blk.expand_dims %rows axis = 1 : tensor<8xi32> -> tensor<8x1xi32>
  %c2 = blk.expand_dims %cols axis = 0 : tensor<128xi32> -> tensor<1x128xi32>
  %c128 = arith.constant dense<128> : tensor<8x1xi32>
  %roff = arith.muli %r2, %c128 : tensor<8x1xi32>
  %roffb = blk.broadcast %roff : tensor<8x1xi32> -> tensor<8x128xi32>
  %coffb = blk.broadcast %c2 : tensor<1x128xi32> -> tensor<8x128xi32>
  %offs = arith.addi %roffb, %coffb : tensor<8x128xi32>
  %bases = blk.splat %base : !blk.ptr<f16> -> tensor<8x128x!blk.ptr<f16>>
  %ptrs = blk.addptr %bases, %offs : tensor<8x128x!blk.ptr<f16>>, tensor<8x128xi32>
  %all = arith.constant dense<true> : tensor<8x128xi1>
  %ninf = arith.constant dense<0xFC00> : tensor<8x128xf16>
  %tile = blk.load %ptrs, %all, %ninf : tensor<8x128x!blk.ptr<f16>>
  %max = blk.reduce max %tile axis = 0 : tensor<8x128xf16> -> tensor<128xf16>
  %min = blk.reduce min %tile axis = 0 : tensor<8x128xf16> -> tensor<128xf16>
  %zero = arith.constant 0.0 : f16
  %b = blk.load %bias, %has_bias, %zero : !blk.ptr<f16>
  %bs = blk.splat %b : f16 -> tensor<128xf16>
  %range = arith.subf %max, %min : tensor<128xf16>
  %res = arith.addf %range, %bs : tensor<128xf16>
  %outs = blk.splat %out : !blk.ptr<f16> -> tensor<128x!blk.ptr<f16>>
  %outp = blk.addptr %outs, %cols : tensor<128x!blk.ptr<f16>>, tensor<128xi32>
  blk.store %outp, %res : tensor<128x!blk.ptr<f16>>
  return
}
