// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=2" \
// RUN:   --convert-blk-to-nvvm | FileCheck %s

// Loads group a thread's contiguous elements into one vector access when the
// pointers are contiguous and aligned (blk.divisibility on the base pointer
// and the row stride) and the mask is uniform over the vector (the row
// length is a multiple of 16). Each masked vector is loaded under one
// scf.if on the mask of its first lane; masked-off lanes take `other` and
// never touch memory. 256 elements over 64 threads: 4 per thread.

// CHECK-LABEL: func.func @masked_f32
// CHECK:         %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x range <i32, 0, {{[0-9]+}}> : i32
// CHECK:         %[[ROW:.*]] = blk.addptr %{{.*}} : !blk.ptr<f32>, i32
// Element 0 of thread t is at 4 * t: the start of the thread's vector.
// CHECK:         %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:    %[[T4:.*]] = arith.muli %[[TID]], %[[C4]] : i32
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[I0:.*]] = arith.addi %[[T4]], %[[C0]] : i32
// CHECK:         %[[P0:.*]] = blk.addptr %[[ROW]], %[[I0]] : !blk.ptr<f32>, i32
// CHECK:         %[[M0:.*]] = arith.cmpi slt, %[[I0]], %{{.*}} : i32
// CHECK:         %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[V:.*]] = scf.if %[[M0]] -> (vector<4xf32>) {
// CHECK-NEXT:      %[[LP:.*]] = builtin.unrealized_conversion_cast %[[P0]] : !blk.ptr<f32> to !llvm.ptr<1>
// CHECK-NEXT:      %[[L:.*]] = llvm.load %[[LP]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NEXT:      scf.yield %[[L]] : vector<4xf32>
// CHECK-NEXT:    } else {
// CHECK:           llvm.insertelement %[[NINF]]
// CHECK:           llvm.insertelement %[[NINF]]
// CHECK:           llvm.insertelement %[[NINF]]
// CHECK:           %[[O:.*]] = llvm.insertelement %[[NINF]]
// CHECK-NEXT:      scf.yield %[[O]] : vector<4xf32>
// CHECK-NEXT:    }
// CHECK-COUNT-4: llvm.extractelement %[[V]][%{{.*}} : i32] : vector<4xf32>
// Exactly one vector load per thread, no scalar loads.
// CHECK-NOT:     llvm.load {{.*}}!llvm.ptr<1>
// CHECK-NOT:     blk.load
// CHECK:         return
func.func @masked_f32(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32},
                      %stride: i32 {blk.divisibility = 16 : i32},
                      %n: i32 {blk.divisibility = 16 : i32}, %out: !blk.ptr<f32>) {
  %pid = blk.program_id 0 : i32
  %off = arith.muli %pid, %stride : i32
  %row = blk.addptr %in, %off : !blk.ptr<f32>, i32
  %r = blk.make_range 0 to 256 : tensor<256xi32>
  %b = blk.splat %row : !blk.ptr<f32> -> tensor<256x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<256x!blk.ptr<f32>>, tensor<256xi32>
  %nb = blk.splat %n : i32 -> tensor<256xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<256xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<256xf32>
  %x = blk.load %p, %m, %ninf : tensor<256x!blk.ptr<f32>>
  %s = blk.reduce max %x axis = 0 : tensor<256xf32> -> f32
  blk.store %out, %s : !blk.ptr<f32>
  return
}

// -----

// Without blk.divisibility on the row length the mask may change at any
// element: the 4 elements are one vector load when all four lanes are on,
// else one scalar blk.load per lane under its own scf.if (the vector at the
// row's end).
// CHECK-LABEL: func.func @masked_unaligned_length
// CHECK:         %[[M0:.*]] = arith.cmpi slt, %{{.*}}, %arg2 : i32
// CHECK-NEXT:    %[[M1:.*]] = arith.cmpi slt, %{{.*}}, %arg2 : i32
// CHECK-NEXT:    %[[M2:.*]] = arith.cmpi slt, %{{.*}}, %arg2 : i32
// CHECK-NEXT:    %[[M3:.*]] = arith.cmpi slt, %{{.*}}, %arg2 : i32
// CHECK:         %[[A01:.*]] = arith.andi %[[M0]], %[[M1]] : i1
// CHECK-NEXT:    %[[A012:.*]] = arith.andi %[[A01]], %[[M2]] : i1
// CHECK-NEXT:    %[[ALL:.*]] = arith.andi %[[A012]], %[[M3]] : i1
// CHECK-NEXT:    %{{.*}} = scf.if %[[ALL]] -> (vector<4xf32>) {
// CHECK:           llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK:         } else {
// CHECK-COUNT-4:   %{{.*}} = scf.if %{{.*}} -> (f32) {
// CHECK-NEXT:        %[[L:.*]] = blk.load %{{.*}} : !blk.ptr<f32>
// CHECK-NEXT:        scf.yield %[[L]] : f32
// CHECK-NEXT:      } else {
// CHECK-NEXT:        scf.yield %{{.*}} : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      llvm.insertelement
// CHECK:           scf.yield %{{.*}} : vector<4xf32>
// CHECK-NEXT:    }
// CHECK-NOT:     scf.if %{{.*}} -> (f32)
// CHECK:         return
func.func @masked_unaligned_length(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32},
                                   %stride: i32 {blk.divisibility = 16 : i32},
                                   %n: i32, %out: !blk.ptr<f32>) {
  %pid = blk.program_id 0 : i32
  %off = arith.muli %pid, %stride : i32
  %row = blk.addptr %in, %off : !blk.ptr<f32>, i32
  %r = blk.make_range 0 to 256 : tensor<256xi32>
  %b = blk.splat %row : !blk.ptr<f32> -> tensor<256x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<256x!blk.ptr<f32>>, tensor<256xi32>
  %nb = blk.splat %n : i32 -> tensor<256xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<256xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<256xf32>
  %x = blk.load %p, %m, %ninf : tensor<256x!blk.ptr<f32>>
  %s = blk.reduce max %x axis = 0 : tensor<256xf32> -> f32
  blk.store %out, %s : !blk.ptr<f32>
  return
}

// -----

// Without blk.divisibility on the stride the row start is only known to be
// 4-byte aligned: scalar loads even though the mask is uniform. The only
// vector is the cross-warp step's read of the 2 warps' shared slots (one
// 8-byte load).
// CHECK-LABEL: func.func @unaligned_stride
// CHECK-COUNT-4: blk.load %{{.*}} : !blk.ptr<f32>
// CHECK-NOT:     blk.load
// CHECK-NOT:     vector<
// CHECK:         llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xf32>
// CHECK-COUNT-2: llvm.extractelement %{{.*}} : vector<2xf32>
// CHECK-NOT:     blk.load
// CHECK-NOT:     vector<
// CHECK:         return
func.func @unaligned_stride(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32},
                            %stride: i32,
                            %n: i32 {blk.divisibility = 16 : i32}, %out: !blk.ptr<f32>) {
  %pid = blk.program_id 0 : i32
  %off = arith.muli %pid, %stride : i32
  %row = blk.addptr %in, %off : !blk.ptr<f32>, i32
  %r = blk.make_range 0 to 256 : tensor<256xi32>
  %b = blk.splat %row : !blk.ptr<f32> -> tensor<256x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<256x!blk.ptr<f32>>, tensor<256xi32>
  %nb = blk.splat %n : i32 -> tensor<256xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<256xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<256xf32>
  %x = blk.load %p, %m, %ninf : tensor<256x!blk.ptr<f32>>
  %s = blk.reduce max %x axis = 0 : tensor<256xf32> -> f32
  blk.store %out, %s : !blk.ptr<f32>
  return
}

// -----

// f16: 8 elements per thread (16 bytes), one vector<8xf16> load. The masked
// lanes of a load without `other` read zeros.
// CHECK-LABEL: func.func @masked_f16
// CHECK:         %[[V:.*]] = scf.if %{{.*}} -> (vector<8xf16>) {
// CHECK-NEXT:      %[[LP:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !blk.ptr<f16> to !llvm.ptr<1>
// CHECK-NEXT:      %[[L:.*]] = llvm.load %[[LP]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xf16>
// CHECK-NEXT:      scf.yield %[[L]] : vector<8xf16>
// CHECK-NEXT:    } else {
// CHECK-COUNT-8:   llvm.insertelement %{{.*}} : vector<8xf16>
// CHECK:         }
// CHECK-COUNT-8: llvm.extractelement %[[V]][%{{.*}} : i32] : vector<8xf16>
// CHECK-NOT:     llvm.load {{.*}}!llvm.ptr<1>
// CHECK-NOT:     blk.load
// CHECK:         return
func.func @masked_f16(%in: !blk.ptr<f16> {blk.divisibility = 16 : i32},
                      %n: i32 {blk.divisibility = 16 : i32}, %out: !blk.ptr<f32>) {
  %pid = blk.program_id 0 : i32
  %c512 = arith.constant 512 : i32
  %off = arith.muli %pid, %c512 : i32
  %row = blk.addptr %in, %off : !blk.ptr<f16>, i32
  %r = blk.make_range 0 to 512 : tensor<512xi32>
  %b = blk.splat %row : !blk.ptr<f16> -> tensor<512x!blk.ptr<f16>>
  %p = blk.addptr %b, %r : tensor<512x!blk.ptr<f16>>, tensor<512xi32>
  %nb = blk.splat %n : i32 -> tensor<512xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<512xi32>
  %x = blk.load %p, %m : tensor<512x!blk.ptr<f16>>
  %s = blk.reduce sum %x axis = 0 : tensor<512xf16> -> f16
  %sf = arith.extf %s : f16 to f32
  blk.store %out, %sf : !blk.ptr<f32>
  return
}

// -----

// An unmasked load needs no branch: the vector load is emitted directly.
// CHECK-LABEL: func.func @unmasked
// CHECK-NOT:     scf.if
// CHECK:         %[[LP:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !blk.ptr<f32> to !llvm.ptr<1>
// CHECK-NEXT:    %[[V:.*]] = llvm.load %[[LP]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-COUNT-4: llvm.extractelement %[[V]][%{{.*}} : i32] : vector<4xf32>
// CHECK-NOT:     llvm.load {{.*}}!llvm.ptr<1>
// CHECK-NOT:     blk.load
// CHECK:         return
func.func @unmasked(%in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 256 : tensor<256xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<256x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<256x!blk.ptr<f32>>, tensor<256xi32>
  %x = blk.load %p : tensor<256x!blk.ptr<f32>>
  %s = blk.reduce sum %x axis = 0 : tensor<256xf32> -> f32
  blk.store %out, %s : !blk.ptr<f32>
  return
}

// -----

// Without blk.divisibility on the pointer itself: scalar loads, no branch.
// The only vector is the cross-warp step's read of the 2 warps' shared
// slots (one 8-byte load).
// CHECK-LABEL: func.func @unaligned_pointer
// CHECK-NOT:     scf.if
// CHECK-COUNT-4: blk.load %{{.*}} : !blk.ptr<f32>
// CHECK-NOT:     blk.load
// CHECK-NOT:     vector<
// CHECK:         llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xf32>
// CHECK-COUNT-2: llvm.extractelement %{{.*}} : vector<2xf32>
// CHECK-NOT:     blk.load
// CHECK-NOT:     vector<
// CHECK:         return
func.func @unaligned_pointer(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %r = blk.make_range 0 to 256 : tensor<256xi32>
  %b = blk.splat %in : !blk.ptr<f32> -> tensor<256x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<256x!blk.ptr<f32>>, tensor<256xi32>
  %x = blk.load %p : tensor<256x!blk.ptr<f32>>
  %s = blk.reduce sum %x axis = 0 : tensor<256xf32> -> f32
  blk.store %out, %s : !blk.ptr<f32>
  return
}

// -----

// Divisibility below 16 still vectorizes as far as it allows: a bf16 row
// whose stride and length are multiples of 8 (a row of 5000) is 16-byte
// aligned, so each thread's 8 elements are one vector<8xbf16> load; with
// multiples of 4 (a row of 5004) they are two 8-byte vector<4xbf16> loads.
// CHECK-LABEL: func.func @stride_divisible_by_8_bf16
// CHECK:         llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xbf16>
// CHECK-NOT:     llvm.load {{.*}}!llvm.ptr<1>
// CHECK:         return
func.func @stride_divisible_by_8_bf16(%in: !blk.ptr<bf16> {blk.divisibility = 16 : i32},
                      %stride: i32 {blk.divisibility = 8 : i32},
                      %n: i32 {blk.divisibility = 8 : i32}, %out: !blk.ptr<f32>) {
  %pid = blk.program_id 0 : i32
  %off = arith.muli %pid, %stride : i32
  %row = blk.addptr %in, %off : !blk.ptr<bf16>, i32
  %r = blk.make_range 0 to 512 : tensor<512xi32>
  %b = blk.splat %row : !blk.ptr<bf16> -> tensor<512x!blk.ptr<bf16>>
  %p = blk.addptr %b, %r : tensor<512x!blk.ptr<bf16>>, tensor<512xi32>
  %nb = blk.splat %n : i32 -> tensor<512xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<512xi32>
  %x = blk.load %p, %m : tensor<512x!blk.ptr<bf16>>
  %s = blk.reduce sum %x axis = 0 : tensor<512xbf16> -> bf16
  %sf = arith.extf %s : bf16 to f32
  blk.store %out, %sf : !blk.ptr<f32>
  return
}

// -----

// CHECK-LABEL: func.func @stride_divisible_by_4_bf16
// CHECK-COUNT-2: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<4xbf16>
// CHECK-NOT:     llvm.load {{.*}}!llvm.ptr<1>
// CHECK:         return
func.func @stride_divisible_by_4_bf16(%in: !blk.ptr<bf16> {blk.divisibility = 16 : i32},
                      %stride: i32 {blk.divisibility = 4 : i32},
                      %n: i32 {blk.divisibility = 4 : i32}, %out: !blk.ptr<f32>) {
  %pid = blk.program_id 0 : i32
  %off = arith.muli %pid, %stride : i32
  %row = blk.addptr %in, %off : !blk.ptr<bf16>, i32
  %r = blk.make_range 0 to 512 : tensor<512xi32>
  %b = blk.splat %row : !blk.ptr<bf16> -> tensor<512x!blk.ptr<bf16>>
  %p = blk.addptr %b, %r : tensor<512x!blk.ptr<bf16>>, tensor<512xi32>
  %nb = blk.splat %n : i32 -> tensor<512xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<512xi32>
  %x = blk.load %p, %m : tensor<512x!blk.ptr<bf16>>
  %s = blk.reduce sum %x axis = 0 : tensor<512xbf16> -> bf16
  %sf = arith.extf %s : bf16 to f32
  blk.store %out, %sf : !blk.ptr<f32>
  return
}

// -----

// Bools are bytes in memory, but LLVM packs a vector of i1 into bits: a
// thread's 4 contiguous bools load as one vector<4xi8> and are truncated,
// and store as the zero-extended bytes (not a vector<4xi1>, which would
// read and write 4 bits).

// CHECK-LABEL: func.func @bools
// CHECK:         %[[B:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> vector<4xi8>
// CHECK-NEXT:    llvm.trunc %[[B]] : vector<4xi8> to vector<4xi1>
// CHECK:         %[[Z:.*]] = llvm.zext %{{.*}} : vector<4xi1> to vector<4xi8>
// CHECK-NEXT:    llvm.store %[[Z]], %{{.*}} {alignment = 4 : i64} : vector<4xi8>, !llvm.ptr<1>
// CHECK-NOT:     vector<4xi1>, !llvm.ptr
// CHECK-NOT:     -> vector<4xi1>
// CHECK:         return
func.func @bools(%in: !blk.ptr<i1> {blk.divisibility = 16 : i32},
                 %out: !blk.ptr<i1> {blk.divisibility = 16 : i32}) {
  %r = blk.make_range 0 to 256 : tensor<256xi32>
  %b = blk.splat %in : !blk.ptr<i1> -> tensor<256x!blk.ptr<i1>>
  %p = blk.addptr %b, %r : tensor<256x!blk.ptr<i1>>, tensor<256xi32>
  %x = blk.load %p : tensor<256x!blk.ptr<i1>>
  %t = arith.constant dense<true> : tensor<256xi1>
  %y = arith.xori %x, %t : tensor<256xi1>
  %o = blk.splat %out : !blk.ptr<i1> -> tensor<256x!blk.ptr<i1>>
  %q = blk.addptr %o, %r : tensor<256x!blk.ptr<i1>>, tensor<256xi32>
  blk.store %q, %y : tensor<256x!blk.ptr<i1>>
  return
}
