// RUN: blockjit-opt %s --convert-blk-to-loops --convert-blk-to-llvm-cpu | FileCheck %s

// blk.program_id <a> becomes kernel parameter N + a and blk.num_programs <a>
// parameter N + 3 + a, where N is the number of original parameters.

// CHECK-LABEL: llvm.func internal @grid
// CHECK-SAME:    (%[[OUT:[^:]*]]: !llvm.ptr, %[[PID0:[^:]*]]: i32, %[[PID1:[^:]*]]: i32, %[[PID2:[^:]*]]: i32,
// CHECK-SAME:     %[[NP0:[^:]*]]: i32, %[[NP1:[^:]*]]: i32, %[[NP2:[^:]*]]: i32)
// CHECK-NOT:     blk.program_id
// CHECK-NOT:     blk.num_programs
// CHECK-DAG:     %[[O1:.*]] = llvm.getelementptr inbounds %[[OUT]][%{{.*}}] : (!llvm.ptr, i32) -> !llvm.ptr, i32
// CHECK-DAG:     %[[O2:.*]] = llvm.getelementptr inbounds %[[OUT]][%{{.*}}] : (!llvm.ptr, i32) -> !llvm.ptr, i32
// CHECK-DAG:     %[[O3:.*]] = llvm.getelementptr inbounds %[[OUT]][%{{.*}}] : (!llvm.ptr, i32) -> !llvm.ptr, i32
// CHECK-DAG:     %[[O4:.*]] = llvm.getelementptr inbounds %[[OUT]][%{{.*}}] : (!llvm.ptr, i32) -> !llvm.ptr, i32
// CHECK-DAG:     %[[O5:.*]] = llvm.getelementptr inbounds %[[OUT]][%{{.*}}] : (!llvm.ptr, i32) -> !llvm.ptr, i32
// CHECK:         llvm.store %[[PID0]], %[[OUT]] : i32, !llvm.ptr
// CHECK-NEXT:    llvm.store %[[PID1]], %[[O1]] : i32, !llvm.ptr
// CHECK-NEXT:    llvm.store %[[PID2]], %[[O2]] : i32, !llvm.ptr
// CHECK-NEXT:    llvm.store %[[NP0]], %[[O3]] : i32, !llvm.ptr
// CHECK-NEXT:    llvm.store %[[NP1]], %[[O4]] : i32, !llvm.ptr
// CHECK-NEXT:    llvm.store %[[NP2]], %[[O5]] : i32, !llvm.ptr
func.func @grid(%out: !blk.ptr<i32>) {
  %p0 = blk.program_id 0 : i32
  %p1 = blk.program_id 1 : i32
  %p2 = blk.program_id 2 : i32
  %n0 = blk.num_programs 0 : i32
  %n1 = blk.num_programs 1 : i32
  %n2 = blk.num_programs 2 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %c5 = arith.constant 5 : i32
  %o1 = blk.addptr %out, %c1 : !blk.ptr<i32>, i32
  %o2 = blk.addptr %out, %c2 : !blk.ptr<i32>, i32
  %o3 = blk.addptr %out, %c3 : !blk.ptr<i32>, i32
  %o4 = blk.addptr %out, %c4 : !blk.ptr<i32>, i32
  %o5 = blk.addptr %out, %c5 : !blk.ptr<i32>, i32
  blk.store %out, %p0 : !blk.ptr<i32>
  blk.store %o1, %p1 : !blk.ptr<i32>
  blk.store %o2, %p2 : !blk.ptr<i32>
  blk.store %o3, %n0 : !blk.ptr<i32>
  blk.store %o4, %n1 : !blk.ptr<i32>
  blk.store %o5, %n2 : !blk.ptr<i32>
  return
}

// Uses inside loops are replaced too: a persistent loop over rows
// pid, pid + num_programs, ... starts at the program id parameter and steps
// by the program count parameter.
// CHECK-LABEL: llvm.func internal @persistent
// CHECK-SAME:    (%[[OUT:[^:]*]]: !llvm.ptr, %[[N:[^:]*]]: i32, %[[PID0:[^:]*]]: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32,
// CHECK-SAME:     %[[NP0:[^:]*]]: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32)
// CHECK:         llvm.br ^[[HEAD:bb[0-9]+]](%[[PID0]] : i32)
// CHECK:       ^[[HEAD]](%[[ROW:.*]]: i32):
// CHECK:         llvm.icmp "slt" %[[ROW]], %[[N]] : i32
// CHECK:         %[[P:.*]] = llvm.getelementptr inbounds %[[OUT]][%[[ROW]]] : (!llvm.ptr, i32) -> !llvm.ptr, i32
// CHECK-NEXT:    llvm.store %[[PID0]], %[[P]] : i32, !llvm.ptr
// CHECK-NEXT:    %[[NEXT:.*]] = llvm.add %[[ROW]], %[[NP0]] : i32
// CHECK-NEXT:    llvm.br ^[[HEAD]](%[[NEXT]] : i32)
func.func @persistent(%out: !blk.ptr<i32>, %n: i32) {
  %pid = blk.program_id 0 : i32
  %np = blk.num_programs 0 : i32
  scf.for %row = %pid to %n step %np : i32 {
    %pid2 = blk.program_id 0 : i32
    %p = blk.addptr %out, %row : !blk.ptr<i32>, i32
    blk.store %p, %pid2 : !blk.ptr<i32>
  }
  return
}
