// RUN: blockjit-opt %s --convert-blk-to-loops --convert-blk-to-llvm-cpu | FileCheck %s

// Scalar atomics become LLVM atomics, acq_rel in the system scope (the CPU
// runs programs in parallel threads): integer add/max/min/xchg (max/min
// signed), float fadd/fmax/fmin (maxnum/minnum: a NaN operand is ignored),
// xchg of floats as is, and cmpxchg, whose floats compare as integer bits.

// CHECK-LABEL: llvm.func internal @scalar_atomics
// CHECK-SAME:    (%[[I:[^:]*]]: !llvm.ptr, %[[F:[^:]*]]: !llvm.ptr, %[[D:[^:]*]]: !llvm.ptr, %[[L:[^:]*]]: !llvm.ptr, %[[X:[^:]*]]: i32, %[[Y:[^:]*]]: f32, %[[Z:[^:]*]]: f64, %[[W:[^:]*]]: i64
// CHECK-NEXT:    %[[A0:.*]] = llvm.atomicrmw add %[[I]], %[[X]] acq_rel : !llvm.ptr, i32
// CHECK-NEXT:    %[[A1:.*]] = llvm.atomicrmw max %[[I]], %[[A0]] acq_rel : !llvm.ptr, i32
// CHECK-NEXT:    %[[A2:.*]] = llvm.atomicrmw min %[[I]], %[[A1]] acq_rel : !llvm.ptr, i32
// CHECK-NEXT:    %[[A3:.*]] = llvm.atomicrmw xchg %[[I]], %[[A2]] acq_rel : !llvm.ptr, i32
// CHECK-NEXT:    %[[A4:.*]] = llvm.atomicrmw fadd %[[F]], %[[Y]] acq_rel : !llvm.ptr, f32
// CHECK-NEXT:    %[[A5:.*]] = llvm.atomicrmw fmax %[[F]], %[[A4]] acq_rel : !llvm.ptr, f32
// CHECK-NEXT:    %[[A6:.*]] = llvm.atomicrmw fmin %[[F]], %[[A5]] acq_rel : !llvm.ptr, f32
// CHECK-NEXT:    %[[A7:.*]] = llvm.atomicrmw xchg %[[D]], %[[Z]] acq_rel : !llvm.ptr, f64
// CHECK-NEXT:    %[[C0:.*]] = llvm.cmpxchg %[[L]], %[[W]], %[[W]] acq_rel acquire : !llvm.ptr, i64
// CHECK-NEXT:    %[[O0:.*]] = llvm.extractvalue %[[C0]][0] : !llvm.struct<(i64, i1)>
// CHECK-NEXT:    %[[CMP:.*]] = llvm.bitcast %[[A6]] : f32 to i32
// CHECK-NEXT:    %[[NEW:.*]] = llvm.bitcast %[[Y]] : f32 to i32
// CHECK-NEXT:    %[[C1:.*]] = llvm.cmpxchg %[[F]], %[[CMP]], %[[NEW]] acq_rel acquire : !llvm.ptr, i32
// CHECK-NEXT:    %[[B1:.*]] = llvm.extractvalue %[[C1]][0] : !llvm.struct<(i32, i1)>
// CHECK-NEXT:    %[[O1:.*]] = llvm.bitcast %[[B1]] : i32 to f32
// CHECK-NEXT:    llvm.store %[[A3]], %[[I]] : i32, !llvm.ptr
// CHECK-NEXT:    llvm.store %[[A7]], %[[D]] : f64, !llvm.ptr
// CHECK-NEXT:    llvm.store %[[O0]], %[[L]] : i64, !llvm.ptr
// CHECK-NEXT:    llvm.store %[[O1]], %[[F]] : f32, !llvm.ptr
// CHECK-NEXT:    llvm.return
func.func @scalar_atomics(%i: !blk.ptr<i32>, %f: !blk.ptr<f32>, %d: !blk.ptr<f64>, %l: !blk.ptr<i64>, %x: i32, %y: f32, %z: f64, %w: i64) {
  %0 = blk.atomic_rmw add %i, %x : !blk.ptr<i32>, i32 -> i32
  %1 = blk.atomic_rmw max %i, %0 : !blk.ptr<i32>, i32 -> i32
  %2 = blk.atomic_rmw min %i, %1 : !blk.ptr<i32>, i32 -> i32
  %3 = blk.atomic_rmw xchg %i, %2 : !blk.ptr<i32>, i32 -> i32
  %4 = blk.atomic_rmw add %f, %y : !blk.ptr<f32>, f32 -> f32
  %5 = blk.atomic_rmw max %f, %4 : !blk.ptr<f32>, f32 -> f32
  %6 = blk.atomic_rmw min %f, %5 : !blk.ptr<f32>, f32 -> f32
  %7 = blk.atomic_rmw xchg %d, %z : !blk.ptr<f64>, f64 -> f64
  %8 = blk.atomic_cas %l, %w, %w : !blk.ptr<i64>, i64, i64 -> i64
  %9 = blk.atomic_cas %f, %6, %y : !blk.ptr<f32>, f32, f32 -> f32
  blk.store %i, %3 : !blk.ptr<i32>
  blk.store %d, %7 : !blk.ptr<f64>
  blk.store %l, %8 : !blk.ptr<i64>
  blk.store %f, %9 : !blk.ptr<f32>
  return
}
