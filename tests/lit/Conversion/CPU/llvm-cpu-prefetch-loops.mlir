// RUN: blockjit-opt %s --convert-blk-to-llvm-cpu | FileCheck %s

// blk.prefetch becomes llvm.intr.prefetch (rw 0 to read, 1 to write, into
// every cache level), and a loop annotation the loops stage puts on an
// scf.for becomes the back edge's own (inherent) loop_annotation, which the
// translation to LLVM IR turns into !llvm.loop metadata: left as the
// discardable attribute scf-to-cf copies, the translation would drop it.

#vec = #llvm.loop_vectorize<disable = false, predicateEnable = true, scalableEnable = false, width = 16 : i32>
#il = #llvm.loop_interleave<count = 1 : i32>
#tail = #llvm.loop_annotation<vectorize = #vec, interleave = #il>

// CHECK-LABEL: llvm.func internal @prefetch(
// CHECK:         "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}> : (!llvm.ptr) -> ()
// CHECK:         "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 3 : i32, rw = 1 : i32}> : (!llvm.ptr) -> ()
// CHECK:         llvm.br ^{{.*}} {loop_annotation = #{{.*}}}
// CHECK-NOT:     llvm.loop_annotation
func.func @prefetch(%p: !blk.ptr<f32>, %n: index) {
  blk.prefetch %p : !blk.ptr<f32>
  blk.prefetch %p write : !blk.ptr<f32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    blk.prefetch %p : !blk.ptr<f32>
  } {llvm.loop_annotation = #tail}
  return
}
