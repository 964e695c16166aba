// RUN: blockjit-opt %s --blk-assign-layouts="num-warps=4" --convert-blk-to-nvvm \
// RUN:   | FileCheck %s --implicit-check-not=blk.program_id \
// RUN:       --implicit-check-not=blk.num_programs

// A program is a CTA: blk.program_id <a> reads %ctaid.<a> and
// blk.num_programs <a> reads %nctaid.<a>. Every kernel reads its thread id
// (%tid.x) once, at entry, for the element-to-thread map, with its range
// (0 to the CTA's 128 threads) so that LLVM can bound the indices made from it.

// CHECK-LABEL: func.func @grid
// CHECK-SAME:    (%[[OUT:[^:]*]]: !blk.ptr<i32>)
// CHECK-NEXT:    %{{.*}} = nvvm.read.ptx.sreg.tid.x range <i32, 0, 128> : i32
// CHECK-NEXT:    %[[P0:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK-NEXT:    %[[P1:.*]] = nvvm.read.ptx.sreg.ctaid.y : i32
// CHECK-NEXT:    %[[P2:.*]] = nvvm.read.ptx.sreg.ctaid.z : i32
// CHECK-NEXT:    %[[N0:.*]] = nvvm.read.ptx.sreg.nctaid.x : i32
// CHECK-NEXT:    %[[N1:.*]] = nvvm.read.ptx.sreg.nctaid.y : i32
// CHECK-NEXT:    %[[N2:.*]] = nvvm.read.ptx.sreg.nctaid.z : i32
// CHECK-NEXT:    %[[A:.*]] = arith.addi %[[P0]], %[[P1]] : i32
// CHECK-NEXT:    %[[B:.*]] = arith.addi %[[A]], %[[P2]] : i32
// CHECK-NEXT:    %[[C:.*]] = arith.addi %[[B]], %[[N0]] : i32
// CHECK-NEXT:    %[[D:.*]] = arith.addi %[[C]], %[[N1]] : i32
// CHECK-NEXT:    %[[E:.*]] = arith.addi %[[D]], %[[N2]] : i32
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %[[ZERO]] : i32
// CHECK-NEXT:    scf.if %[[FIRST]] {
// CHECK-NEXT:      blk.store %[[OUT]], %[[E]] : !blk.ptr<i32>
func.func @grid(%out: !blk.ptr<i32>) {
  %p0 = blk.program_id 0 : i32
  %p1 = blk.program_id 1 : i32
  %p2 = blk.program_id 2 : i32
  %n0 = blk.num_programs 0 : i32
  %n1 = blk.num_programs 1 : i32
  %n2 = blk.num_programs 2 : i32
  %a = arith.addi %p0, %p1 : i32
  %b = arith.addi %a, %p2 : i32
  %c = arith.addi %b, %n0 : i32
  %d = arith.addi %c, %n1 : i32
  %e = arith.addi %d, %n2 : i32
  blk.store %out, %e : !blk.ptr<i32>
  return
}

// A persistent row loop runs from %ctaid.x to n in steps of %nctaid.x. The
// element index of thread t (128 elements over 128 threads: one each) is
// t * 1 + 0, computed from %tid.x outside the loop.
// CHECK-LABEL: func.func @persistent
// CHECK-SAME:    (%[[OUT:[^:]*]]: !blk.ptr<f32>, %[[N:[^:]*]]: i32)
// CHECK-NEXT:    %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x range <i32, 0, {{[0-9]+}}> : i32
// CHECK-NEXT:    %[[PID:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK-NEXT:    %[[NP:.*]] = nvvm.read.ptx.sreg.nctaid.x : i32
// CHECK:         %[[T1:.*]] = arith.muli %[[TID]], %{{.*}} : i32
// CHECK:         %[[I:.*]] = arith.addi %[[T1]], %{{.*}} : i32
// CHECK:         scf.for %[[ROW:.*]] = %[[PID]] to %[[N]] step %[[NP]] : i32 {
// CHECK-NOT:       nvvm.read.ptx.sreg
// CHECK:           %[[RP:.*]] = blk.addptr %[[OUT]], %{{.*}} : !blk.ptr<f32>, i32
// CHECK-NEXT:      %[[P:.*]] = blk.addptr %[[RP]], %[[I]] : !blk.ptr<f32>, i32
// CHECK-NEXT:      blk.store %[[P]], %{{.*}} : !blk.ptr<f32>
// CHECK-NEXT:    }
// CHECK-NOT:     nvvm.read.ptx.sreg
func.func @persistent(%out: !blk.ptr<f32>, %n: i32) {
  %pid = blk.program_id 0 : i32
  %np = blk.num_programs 0 : i32
  %r = blk.make_range 0 to 128 : tensor<128xi32>
  %v = arith.sitofp %r : tensor<128xi32> to tensor<128xf32>
  scf.for %row = %pid to %n step %np : i32 {
    %o = arith.muli %row, %row : i32
    %rp = blk.addptr %out, %o : !blk.ptr<f32>, i32
    %b = blk.splat %rp : !blk.ptr<f32> -> tensor<128x!blk.ptr<f32>>
    %p = blk.addptr %b, %r : tensor<128x!blk.ptr<f32>>, tensor<128xi32>
    blk.store %p, %v : tensor<128x!blk.ptr<f32>>
  }
  return
}
