// RUN: blockjit-opt %s | blockjit-opt | FileCheck %s
// RUN: blockjit-opt %s --mlir-print-op-generic | blockjit-opt | FileCheck %s

// CHECK-LABEL: func.func @store_scalar
// CHECK-SAME:    (%[[P:.*]]: !blk.ptr<f32>, %[[V:.*]]: f32, %[[M:.*]]: i1)
// CHECK-NEXT:    blk.store %[[P]], %[[V]] : !blk.ptr<f32>
// CHECK-NEXT:    blk.store %[[P]], %[[V]], %[[M]] : !blk.ptr<f32>
// CHECK-NEXT:    return
func.func @store_scalar(%p: !blk.ptr<f32>, %v: f32, %m: i1) {
  blk.store %p, %v : !blk.ptr<f32>
  blk.store %p, %v, %m : !blk.ptr<f32>
  return
}

// CHECK-LABEL: func.func @store_tensor
// CHECK-SAME:    (%[[P:.*]]: tensor<256x!blk.ptr<f16>>, %[[V:.*]]: tensor<256xf16>, %[[M:.*]]: tensor<256xi1>)
// CHECK-NEXT:    blk.store %[[P]], %[[V]] : tensor<256x!blk.ptr<f16>>
// CHECK-NEXT:    blk.store %[[P]], %[[V]], %[[M]] : tensor<256x!blk.ptr<f16>>
func.func @store_tensor(%p: tensor<256x!blk.ptr<f16>>, %v: tensor<256xf16>, %m: tensor<256xi1>) {
  blk.store %p, %v : tensor<256x!blk.ptr<f16>>
  blk.store %p, %v, %m : tensor<256x!blk.ptr<f16>>
  return
}

// 2-D bf16 and i32 blocks; a discardable attribute.
// CHECK-LABEL: func.func @store_2d
// CHECK:         blk.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<8x8x!blk.ptr<bf16>>
// CHECK:         blk.store %{{.*}}, %{{.*}} {note = 1 : i64} : tensor<4x!blk.ptr<i32>>
func.func @store_2d(%p: tensor<8x8x!blk.ptr<bf16>>, %v: tensor<8x8xbf16>, %m: tensor<8x8xi1>,
                    %q: tensor<4x!blk.ptr<i32>>, %w: tensor<4xi32>) {
  blk.store %p, %v, %m : tensor<8x8x!blk.ptr<bf16>>
  blk.store %q, %w {note = 1} : tensor<4x!blk.ptr<i32>>
  return
}

// A load-then-store copy keeps both memory operations in order.
// CHECK-LABEL: func.func @copy
// CHECK:         %[[X:.*]] = blk.load %[[SRC:.*]], %[[MASK:.*]] : tensor<32x!blk.ptr<f32>>
// CHECK-NEXT:    blk.store %{{.*}}, %[[X]], %[[MASK]] : tensor<32x!blk.ptr<f32>>
func.func @copy(%src: tensor<32x!blk.ptr<f32>>, %dst: tensor<32x!blk.ptr<f32>>, %mask: tensor<32xi1>) {
  %x = blk.load %src, %mask : tensor<32x!blk.ptr<f32>>
  blk.store %dst, %x, %mask : tensor<32x!blk.ptr<f32>>
  return
}
