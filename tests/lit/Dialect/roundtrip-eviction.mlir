// RUN: blockjit-opt %s | blockjit-opt | FileCheck %s
// RUN: blockjit-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: blockjit-opt %s --mlir-print-op-generic | blockjit-opt | FileCheck %s

// Eviction hints (Triton's eviction_policy) print as a keyword after the
// operands of blk.load and blk.store, and as the `eviction` attribute in
// the generic form; no keyword is the default policy.
// CHECK-LABEL: func.func @hinted
// CHECK-NEXT:    %[[A:.*]] = blk.load %{{.*}} evict_first : !blk.ptr<f32>
// CHECK-NEXT:    %[[B:.*]] = blk.load %{{.*}}, %{{.*}}, %{{.*}} evict_last : tensor<128x!blk.ptr<f16>>
// CHECK-NEXT:    %[[C:.*]] = blk.load %{{.*}}, %{{.*}} : tensor<128x!blk.ptr<f16>>
// CHECK-NEXT:    blk.store %{{.*}}, %[[A]] evict_last : !blk.ptr<f32>
// CHECK-NEXT:    blk.store %{{.*}}, %[[B]], %{{.*}} evict_first : tensor<128x!blk.ptr<f16>>
// CHECK-NEXT:    blk.store %{{.*}}, %[[C]] : tensor<128x!blk.ptr<f16>>
// GENERIC: "blk.load"{{.*}}eviction = #blk<eviction evict_first>
// GENERIC: "blk.load"{{.*}}eviction = #blk<eviction evict_last>
// GENERIC: "blk.store"{{.*}}eviction = #blk<eviction evict_last>
func.func @hinted(%p: !blk.ptr<f32>, %q: tensor<128x!blk.ptr<f16>>,
                  %m: tensor<128xi1>, %o: tensor<128xf16>) {
  %a = blk.load %p evict_first : !blk.ptr<f32>
  %b = blk.load %q, %m, %o evict_last : tensor<128x!blk.ptr<f16>>
  %c = blk.load %q, %m : tensor<128x!blk.ptr<f16>>
  blk.store %p, %a evict_last : !blk.ptr<f32>
  blk.store %q, %b, %m evict_first : tensor<128x!blk.ptr<f16>>
  blk.store %q, %c : tensor<128x!blk.ptr<f16>>
  return
}
