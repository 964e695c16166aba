// RUN: blockjit-opt %s --convert-blk-to-loops --convert-blk-to-llvm-cpu \
// RUN:   | FileCheck %s --implicit-check-not=scf. --implicit-check-not=cf. \
// RUN:       --implicit-check-not=memref. --implicit-check-not=blk. \
// RUN:       --implicit-check-not=arith. --implicit-check-not=math. \
// RUN:       --implicit-check-not=func.func --implicit-check-not='tensor<'

// After both passes only the LLVM dialect is left: no scf/cf control flow,
// no memref buffers, no blk ops or !blk.ptr types, no arith/math/func ops and
// no blocks. The kernel combines a persistent row loop, masked loads and
// stores, a block-carrying loop, 1-D and 2-D reductions and math.exp.

// CHECK-LABEL: llvm.func internal @everything
// CHECK:         llvm.alloca
// CHECK:         llvm.cond_br
// CHECK:         llvm.intr.fma
// CHECK:         llvm.return
// CHECK-LABEL: llvm.func @everything_blockjit_entry
// CHECK:         llvm.call @everything
func.func @everything(%out: !blk.ptr<f32>, %in: !blk.ptr<f32>, %stride: i32,
                      %n_rows: i32, %n_cols: i32) {
  %pid = blk.program_id 0 : i32
  %np = blk.num_programs 0 : i32
  %cols = blk.make_range 0 to 16 : tensor<16xi32>
  %ncb = blk.splat %n_cols : i32 -> tensor<16xi32>
  %mask = arith.cmpi slt, %cols, %ncb : tensor<16xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<16xf32>
  %zero = arith.constant dense<0.0> : tensor<16xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  scf.for %row = %pid to %n_rows step %np : i32 {
    %off = arith.muli %row, %stride : i32
    %rp = blk.addptr %in, %off : !blk.ptr<f32>, i32
    %rps = blk.splat %rp : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
    %ptrs = blk.addptr %rps, %cols : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
    %x = blk.load %ptrs, %mask, %ninf : tensor<16x!blk.ptr<f32>>
    %max = blk.reduce max %x axis = 0 : tensor<16xf32> -> f32
    %maxb = blk.splat %max : f32 -> tensor<16xf32>
    %sh = arith.subf %x, %maxb : tensor<16xf32>
    %e = math.exp %sh : tensor<16xf32>
    %sum = blk.reduce sum %e axis = 0 : tensor<16xf32> -> f32
    %sumb = blk.splat %sum : f32 -> tensor<16xf32>
    %y = arith.divf %e, %sumb : tensor<16xf32>
    %last = scf.for %k = %c0 to %c4 step %c1 iter_args(%a = %zero) -> (tensor<16xf32>) : i32 {
      %kb = blk.splat %k : i32 -> tensor<16xi32>
      %kf = arith.sitofp %kb : tensor<16xi32> to tensor<16xf32>
      %t = arith.mulf %y, %kf : tensor<16xf32>
      scf.yield %t : tensor<16xf32>
    }
    %y2 = blk.expand_dims %last axis = 0 : tensor<16xf32> -> tensor<1x16xf32>
    %y3 = blk.broadcast %y2 : tensor<1x16xf32> -> tensor<2x16xf32>
    %colmax = blk.reduce max %y3 axis = 0 : tensor<2x16xf32> -> tensor<16xf32>
    %op = blk.addptr %out, %off : !blk.ptr<f32>, i32
    %ops = blk.splat %op : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
    %optrs = blk.addptr %ops, %cols : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
    blk.store %optrs, %colmax, %mask : tensor<16x!blk.ptr<f32>>
  }
  return
}
