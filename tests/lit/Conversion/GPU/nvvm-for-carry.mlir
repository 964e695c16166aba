// RUN: blockjit-opt %s --blk-assign-layouts="num-warps=1" --convert-blk-to-nvvm \
// RUN:   | FileCheck %s --implicit-check-not="tensor<"

// An scf.for that carries blocks carries the thread's elements instead: each
// block iter_arg becomes as many scalar iter_args as the thread owns (2 here:
// 64 elements over 32 threads), in place, next to the scalar iter_args; the
// yield and the loop results are flattened the same way. No block type is
// left anywhere.

// CHECK-LABEL: func.func @carry
// CHECK-SAME:    (%[[IN:[^:]*]]: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %[[OUT:[^:]*]]: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %[[N:[^:]*]]: i32,
// CHECK:         %[[I0:.*]] = arith.addi %{{.*}} : i32
// CHECK:         %[[I1:.*]] = arith.addi %{{.*}} : i32
// CHECK:         %[[FZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[IZERO:.*]] = arith.constant 0 : i32
// CHECK:         %[[FZ:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[RES:.*]]:5 = scf.for %[[K:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[T:.*]] = %[[FZ]], %[[A0:.*]] = %[[FZERO]], %[[A1:.*]] = %[[FZERO]], %[[C0:.*]] = %[[IZERO]], %[[C1:.*]] = %[[IZERO]]) -> (f32, f32, f32, i32, i32)  : i32 {
// The induction variable steps by 64 from 0, so the thread's two elements
// at in + k + 2 * tid load as one 8-byte aligned vector.
// CHECK:           %[[V:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
// CHECK:           %[[X0:.*]] = llvm.extractelement %[[V]]
// CHECK:           %[[X1:.*]] = llvm.extractelement %[[V]]
// CHECK-NEXT:      %[[S0:.*]] = arith.addf %[[A0]], %[[X0]] : f32
// CHECK-NEXT:      %[[S1:.*]] = arith.addf %[[A1]], %[[X1]] : f32
// CHECK-NEXT:      %[[D0:.*]] = arith.addi %[[C0]], %[[I0]] : i32
// CHECK-NEXT:      %[[D1:.*]] = arith.addi %[[C1]], %[[I1]] : i32
// CHECK-NEXT:      %[[T2:.*]] = arith.addf %[[T]], %[[FZ]] : f32
// CHECK-NEXT:      scf.yield %[[T2]], %[[S0]], %[[S1]], %[[D0]], %[[D1]] : f32, f32, f32, i32, i32
// CHECK-NEXT:    }
// After the loop the block result is the loop's element results.
// CHECK:         llvm.insertelement %[[RES]]#1, %{{.*}} : vector<2xf32>
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    llvm.insertelement %[[RES]]#2, %{{.*}} : vector<2xf32>
// CHECK:         llvm.store %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
// CHECK:         llvm.insertelement %[[RES]]#3, %{{.*}} : vector<2xi32>
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    llvm.insertelement %[[RES]]#4, %{{.*}} : vector<2xi32>
// CHECK:         llvm.store %{{.*}} {alignment = 8 : i64} : vector<2xi32>, !llvm.ptr<1>
// CHECK:         blk.store %[[OUT]], %[[RES]]#0 : !blk.ptr<f32>
func.func @carry(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32},
                 %out: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %n: i32,
                 %outi: !blk.ptr<i32> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 64 : tensor<64xi32>
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %izero = arith.constant dense<0> : tensor<64xi32>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %fz = arith.constant 0.0 : f32
  %tot, %acc, %cnt = scf.for %k = %c0 to %n step %c64
      iter_args(%t = %fz, %a = %zero, %c = %izero) -> (f32, tensor<64xf32>, tensor<64xi32>) : i32 {
    %kp = blk.addptr %in, %k : !blk.ptr<f32>, i32
    %base = blk.splat %kp : !blk.ptr<f32> -> tensor<64x!blk.ptr<f32>>
    %p = blk.addptr %base, %r : tensor<64x!blk.ptr<f32>>, tensor<64xi32>
    %x = blk.load %p : tensor<64x!blk.ptr<f32>>
    %a2 = arith.addf %a, %x : tensor<64xf32>
    %c2 = arith.addi %c, %r : tensor<64xi32>
    %t2 = arith.addf %t, %fz : f32
    scf.yield %t2, %a2, %c2 : f32, tensor<64xf32>, tensor<64xi32>
  }
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<64x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<64x!blk.ptr<f32>>, tensor<64xi32>
  blk.store %op, %acc : tensor<64x!blk.ptr<f32>>
  %oib = blk.splat %outi : !blk.ptr<i32> -> tensor<64x!blk.ptr<i32>>
  %oip = blk.addptr %oib, %r : tensor<64x!blk.ptr<i32>>, tensor<64xi32>
  blk.store %oip, %cnt : tensor<64x!blk.ptr<i32>>
  blk.store %out, %tot : !blk.ptr<f32>
  return
}
