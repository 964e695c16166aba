// RUN: blockjit-opt %s --convert-blk-to-loops --convert-blk-to-llvm-cpu | FileCheck %s

// Scalar blk.addptr becomes llvm.getelementptr inbounds with the pointee as
// element type (so the offset counts elements, not bytes) and the offset's
// own integer type; scalar blk.load / blk.store become llvm.load / llvm.store
// of the pointee type. !blk.ptr<T> becomes !llvm.ptr.

// CHECK-LABEL: llvm.func internal @scalar_memory
// CHECK-SAME:    (%[[A:[^:]*]]: !llvm.ptr, %[[B:[^:]*]]: !llvm.ptr, %[[C:[^:]*]]: !llvm.ptr, %[[I:[^:]*]]: i32, %[[J:[^:]*]]: i64,
// CHECK-NEXT:    %[[PA:.*]] = llvm.getelementptr inbounds %[[A]][%[[I]]] : (!llvm.ptr, i32) -> !llvm.ptr, f16
// CHECK-NEXT:    %[[PB:.*]] = llvm.getelementptr inbounds %[[B]][%[[J]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[PC:.*]] = llvm.getelementptr inbounds %[[C]][%[[I]]] : (!llvm.ptr, i32) -> !llvm.ptr, f64
// CHECK-NEXT:    %[[X:.*]] = llvm.load %[[PA]] : !llvm.ptr -> f16
// CHECK-NEXT:    %[[Y:.*]] = llvm.load %[[PB]] : !llvm.ptr -> i8
// CHECK-NEXT:    %[[Z:.*]] = llvm.load %[[PC]] : !llvm.ptr -> f64
// CHECK-NEXT:    llvm.store %[[X]], %[[PA]] : f16, !llvm.ptr
// CHECK-NEXT:    llvm.store %[[Y]], %[[PB]] : i8, !llvm.ptr
// CHECK-NEXT:    llvm.store %[[Z]], %[[PC]] : f64, !llvm.ptr
// CHECK-NEXT:    llvm.return
func.func @scalar_memory(%a: !blk.ptr<f16>, %b: !blk.ptr<i8>, %c: !blk.ptr<f64>, %i: i32, %j: i64) {
  %pa = blk.addptr %a, %i : !blk.ptr<f16>, i32
  %pb = blk.addptr %b, %j : !blk.ptr<i8>, i64
  %pc = blk.addptr %c, %i : !blk.ptr<f64>, i32
  %x = blk.load %pa : !blk.ptr<f16>
  %y = blk.load %pb : !blk.ptr<i8>
  %z = blk.load %pc : !blk.ptr<f64>
  blk.store %pa, %x : !blk.ptr<f16>
  blk.store %pb, %y : !blk.ptr<i8>
  blk.store %pc, %z : !blk.ptr<f64>
  return
}

// Masked block load and store, with a mask tested per lane (every other
// lane; a prefix mask would bound the loops instead, loops-mask-terms.mlir):
// the global load sits in its own block reached only when the lane's mask
// is set, and the other lanes branch to a block that stores `other`; the
// global store likewise. The stack buffer is an llvm.alloca, its accesses
// plain loads/stores through a GEP.
// CHECK-LABEL: llvm.func internal @masked_block
// CHECK-SAME:    (%[[IN:[^:]*]]: !llvm.ptr, %[[OUT:[^:]*]]: !llvm.ptr,
// CHECK:         %[[NINF:.*]] = llvm.mlir.constant(0xFF800000 : f32) : f32
// CHECK:         %[[BUF:.*]] = llvm.alloca %{{.*}} x f32 {alignment = 64 : i64} : (i64) -> !llvm.ptr
//                load loop
// CHECK:         %[[M:.*]] = llvm.icmp "eq" %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    llvm.cond_br %[[M]], ^[[LOAD:bb[0-9]+]], ^[[SKIP:bb[0-9]+]]
// CHECK-NEXT:  ^[[LOAD]]:
// CHECK:         %[[PIN:.*]] = llvm.getelementptr inbounds %[[IN]][%{{.*}}] : (!llvm.ptr, i32) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[V:.*]] = llvm.load %[[PIN]] : !llvm.ptr -> f32
// CHECK:         llvm.store %[[V]], %{{.*}} : f32, !llvm.ptr
// CHECK-NEXT:    llvm.br ^[[JOIN:bb[0-9]+]]
// CHECK-NEXT:  ^[[SKIP]]:
// CHECK-NOT:     llvm.load
// CHECK:         llvm.store %[[NINF]], %{{.*}} : f32, !llvm.ptr
// CHECK-NEXT:    llvm.br ^[[JOIN]]
//                store loop
// CHECK:         %[[M2:.*]] = llvm.icmp "eq" %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    llvm.cond_br %[[M2]], ^[[STORE:bb[0-9]+]], ^[[NEXT:bb[0-9]+]]
// CHECK-NEXT:  ^[[STORE]]:{{.*}}
// CHECK-NOT:   ^bb
// CHECK:         %[[POUT:.*]] = llvm.getelementptr inbounds %[[OUT]][%{{.*}}] : (!llvm.ptr, i32) -> !llvm.ptr, f32
// CHECK-NOT:   ^bb
// CHECK:         %[[Y:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-NEXT:    llvm.store %[[Y]], %[[POUT]] : f32, !llvm.ptr
// CHECK-NEXT:    llvm.br ^[[NEXT]]
func.func @masked_block(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 16 : tensor<16xi32>
  %one = arith.constant dense<1> : tensor<16xi32>
  %zero = arith.constant dense<0> : tensor<16xi32>
  %odd = arith.andi %r, %one : tensor<16xi32>
  %mask = arith.cmpi eq, %odd, %zero : tensor<16xi32>
  %base = blk.splat %in : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %p = blk.addptr %base, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<16xf32>
  %x = blk.load %p, %mask, %ninf : tensor<16x!blk.ptr<f32>>
  %ob = blk.splat %out : !blk.ptr<f32> -> tensor<16x!blk.ptr<f32>>
  %op = blk.addptr %ob, %r : tensor<16x!blk.ptr<f32>>, tensor<16xi32>
  blk.store %op, %x, %mask : tensor<16x!blk.ptr<f32>>
  return
}
