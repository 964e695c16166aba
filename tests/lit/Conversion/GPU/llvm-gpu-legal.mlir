// RUN: blockjit-opt %s --blk-assign-layouts="num-warps=4" --convert-blk-to-nvvm \
// RUN:   --convert-blk-to-llvm-gpu \
// RUN:   | FileCheck %s --implicit-check-not='{{ blk\.}}' --implicit-check-not='!blk.' \
// RUN:       --implicit-check-not=scf. \
// RUN:       --implicit-check-not=cf. --implicit-check-not=arith. \
// RUN:       --implicit-check-not=math. --implicit-check-not=func.func \
// RUN:       --implicit-check-not=unrealized_conversion_cast \
// RUN:       --implicit-check-not='tensor<'

// After the three GPU passes only the LLVM and NVVM dialects are left: no
// blk ops or !blk.ptr types (blk.divisibility survives only as a parameter
// attribute), no scf/cf control flow, no arith/math/func ops, no blocks,
// and none of the !blk.ptr <-> !llvm.ptr<1> casts of the NVVM lowering. The
// kernel combines a persistent row loop, masked vector loads and stores,
// max and sum reductions, exp, a division by the sum and a block-carrying
// loop.

// CHECK-DAG:   llvm.mlir.global internal @__blk_warp_exchange_{{[A-Za-z0-9_]+}}() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<32 x i8>
// CHECK-LABEL: llvm.func @softmax
// CHECK-SAME:    (%{{[^:]*}}: !llvm.ptr<1> {blk.divisibility = 16 : i32}, %{{[^:]*}}: !llvm.ptr<1> {blk.divisibility = 16 : i32},
// CHECK-SAME:     attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>}
// CHECK:         nvvm.read.ptx.sreg.tid.x
// CHECK:         nvvm.read.ptx.sreg.ctaid.x
// CHECK:         nvvm.read.ptx.sreg.nctaid.x
// CHECK:         llvm.cond_br
// CHECK:         llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK:         llvm.intr.maximum
// CHECK:         nvvm.shfl.sync  bfly
// CHECK:         nvvm.barrier0
// CHECK:         llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK:         llvm.call_intrinsic "llvm.nvvm.div.full"
// CHECK:         llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK:         llvm.return
func.func @softmax(%out: !blk.ptr<f32> {blk.divisibility = 16 : i32},
                   %in: !blk.ptr<f32> {blk.divisibility = 16 : i32},
                   %stride: i32 {blk.divisibility = 16 : i32}, %n_rows: i32,
                   %n_cols: i32 {blk.divisibility = 16 : i32}) {
  %ninf = arith.constant dense<0xFF800000> : tensor<1024xf32>
  %zero = arith.constant dense<0.0> : tensor<1024xf32>
  %pid = blk.program_id 0 : i32
  %np = blk.num_programs 0 : i32
  %cols = blk.make_range 0 to 1024 : tensor<1024xi32>
  %ncols = blk.splat %n_cols : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %cols, %ncols : tensor<1024xi32>
  %total = scf.for %row = %pid to %n_rows step %np iter_args(%acc = %zero) -> (tensor<1024xf32>) : i32 {
    %off = arith.muli %row, %stride : i32
    %rp = blk.addptr %in, %off : !blk.ptr<f32>, i32
    %rps = blk.splat %rp : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
    %ptrs = blk.addptr %rps, %cols : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
    %x = blk.load %ptrs, %mask, %ninf : tensor<1024x!blk.ptr<f32>>
    %max = blk.reduce max %x axis = 0 : tensor<1024xf32> -> f32
    %maxb = blk.splat %max : f32 -> tensor<1024xf32>
    %sh = arith.subf %x, %maxb : tensor<1024xf32>
    %num = math.exp %sh : tensor<1024xf32>
    %den = blk.reduce sum %num axis = 0 : tensor<1024xf32> -> f32
    %denb = blk.splat %den : f32 -> tensor<1024xf32>
    %y = arith.divf %num, %denb : tensor<1024xf32>
    %orp = blk.addptr %out, %off : !blk.ptr<f32>, i32
    %orps = blk.splat %orp : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
    %optrs = blk.addptr %orps, %cols : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
    blk.store %optrs, %y, %mask : tensor<1024x!blk.ptr<f32>>
    %acc2 = arith.addf %acc, %y : tensor<1024xf32>
    scf.yield %acc2 : tensor<1024xf32>
  }
  %outs = blk.splat %out : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
  %optrs = blk.addptr %outs, %cols : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
  blk.store %optrs, %total, %mask : tensor<1024x!blk.ptr<f32>>
  return
}
