// RUN: blockjit-opt %s | blockjit-opt | FileCheck %s
// RUN: blockjit-opt %s --mlir-print-op-generic | blockjit-opt | FileCheck %s

// !blk.ptr values as block arguments of an unstructured CFG, and blk ops in
// several blocks and in scf.if regions.

// CHECK-LABEL: func.func @cfg
// CHECK:         cf.cond_br %{{.*}}, ^[[THEN:.*]](%{{.*}} : !blk.ptr<f32>), ^[[ELSE:.*]](%{{.*}} : !blk.ptr<f32>)
// CHECK:       ^[[THEN]](%[[A:.*]]: !blk.ptr<f32>):
// CHECK:         %[[NEXT:.*]] = blk.addptr %[[A]], %{{.*}} : !blk.ptr<f32>, i32
// CHECK:         cf.br ^[[JOIN:.*]](%[[NEXT]] : !blk.ptr<f32>)
// CHECK:       ^[[ELSE]](%[[B:.*]]: !blk.ptr<f32>):
// CHECK:         cf.br ^[[JOIN]](%[[B]] : !blk.ptr<f32>)
// CHECK:       ^[[JOIN]](%[[P:.*]]: !blk.ptr<f32>):
// CHECK:         %[[V:.*]] = blk.load %[[P]] : !blk.ptr<f32>
// CHECK:         return %[[V]] : f32
func.func @cfg(%p: !blk.ptr<f32>, %c: i1, %off: i32) -> f32 {
  cf.cond_br %c, ^then(%p : !blk.ptr<f32>), ^else(%p : !blk.ptr<f32>)
^then(%a: !blk.ptr<f32>):
  %next = blk.addptr %a, %off : !blk.ptr<f32>, i32
  cf.br ^join(%next : !blk.ptr<f32>)
^else(%b: !blk.ptr<f32>):
  cf.br ^join(%b : !blk.ptr<f32>)
^join(%q: !blk.ptr<f32>):
  %v = blk.load %q : !blk.ptr<f32>
  return %v : f32
}

// CHECK-LABEL: func.func @scf_if
// CHECK:         %[[R:.*]] = scf.if %{{.*}} -> (tensor<64xf32>) {
// CHECK:           %[[L:.*]] = blk.load %{{.*}} : tensor<64x!blk.ptr<f32>>
// CHECK:           scf.yield %[[L]] : tensor<64xf32>
// CHECK:         } else {
// CHECK:           %[[S:.*]] = blk.splat %{{.*}} : f32 -> tensor<64xf32>
// CHECK:           scf.yield %[[S]] : tensor<64xf32>
// CHECK:         }
// CHECK:         blk.reduce sum %[[R]] axis = 0 : tensor<64xf32> -> f32
func.func @scf_if(%p: tensor<64x!blk.ptr<f32>>, %c: i1, %fill: f32) -> f32 {
  %r = scf.if %c -> (tensor<64xf32>) {
    %l = blk.load %p : tensor<64x!blk.ptr<f32>>
    scf.yield %l : tensor<64xf32>
  } else {
    %s = blk.splat %fill : f32 -> tensor<64xf32>
    scf.yield %s : tensor<64xf32>
  }
  %sum = blk.reduce sum %r axis = 0 : tensor<64xf32> -> f32
  return %sum : f32
}
