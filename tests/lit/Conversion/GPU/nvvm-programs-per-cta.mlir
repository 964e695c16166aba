// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=2 programs-per-cta=4" \
// RUN:   --convert-blk-to-nvvm --canonicalize --cse | FileCheck %s
// RUN: blockjit-opt %s --split-input-file --blk-assign-layouts="num-warps=2 programs-per-cta=4" \
// RUN:   --convert-blk-to-nvvm --convert-blk-to-llvm-gpu | FileCheck %s --check-prefix=KERNEL

// Four programs of 2 warps share each CTA (blkgpu.programs_per_cta = 4).
// Thread t of the CTA is thread t % 64 of the program in slot t / 64,
// computed as (t & 32) | %laneid so that LLVM cannot fold an element's
// (t % 64) + 192 into t | 192 (which would cost the element an address of
// its own instead of an immediate offset);
// program_id(0) is %ctaid.x * 4 + slot and num_programs(0) the hidden last
// parameter, the grid's program count: slots past it (the last CTA's) skip
// the body. Each program exchanges its warps' partial sums in its own 32
// bytes of the warp exchange array (two halves of 8 bytes rounded to 16,
// taken in turn, row by row; 128 in all) and waits on its own named
// barrier (id = slot, 64 threads), never on the others'.
// program_id(1) still reads %ctaid.y.

// CHECK:       module attributes {blkgpu.num_warps = 2 : i32, blkgpu.programs_per_cta = 4 : i32}
// CHECK:       llvm.mlir.global internal @__blk_warp_exchange_persistent_sum() {{.*}} : !llvm.array<128 x i8>
// CHECK-LABEL: func.func @persistent_sum
// CHECK-SAME:    (%{{[^:]*}}: !blk.ptr<f32>, %{{[^:]*}}: !blk.ptr<f32>, %[[N:[^:]*]]: i32, %[[PROGRAMS:[^:]*]]: i32)
// CHECK-DAG:     %[[SMEM:.*]] = llvm.mlir.addressof @__blk_warp_exchange_persistent_sum
// CHECK-DAG:     %[[STRIDE:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-DAG:     %[[HALFBYTES:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-DAG:     %[[COUNT:.*]] = llvm.alloca %{{.*}} x i32 : (i64) -> !llvm.ptr
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : i32
// CHECK-DAG:     %[[C6:.*]] = arith.constant 6 : i32
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : i32
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : i32
// CHECK:         %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x range <i32, 0, 256> : i32
// CHECK-NEXT:    %[[LANE:.*]] = nvvm.read.ptx.sreg.laneid range <i32, 0, 32> : i32
// CHECK-NEXT:    %[[WARP:.*]] = arith.andi %[[TID]], %[[C32]] : i32
// CHECK-NEXT:    %[[T:.*]] = arith.ori %[[WARP]], %[[LANE]] : i32
// CHECK-NEXT:    %[[SLOT:.*]] = arith.shrui %[[TID]], %[[C6]] : i32
// CHECK-NEXT:    %[[CTA:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK-NEXT:    %[[BASE:.*]] = arith.muli %[[CTA]], %[[C4]] : i32
// CHECK-NEXT:    %[[PID:.*]] = arith.addi %[[BASE]], %[[SLOT]] : i32
// CHECK-NEXT:    %[[OFFSET:.*]] = llvm.mul %[[SLOT]], %[[STRIDE]] : i32
// CHECK-NEXT:    %[[MINE:.*]] = llvm.getelementptr %[[SMEM]][%[[OFFSET]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT:    %[[IN:.*]] = arith.cmpi ult, %[[PID]], %[[PROGRAMS]] : i32
// CHECK-NEXT:    scf.if %[[IN]] {
// CHECK:           nvvm.read.ptx.sreg.ctaid.y
// CHECK:           scf.for %{{.*}} = %[[PID]] to %[[N]] step %[[PROGRAMS]]
// CHECK-NOT:         nvvm.barrier0
// CHECK:             %[[N:.*]] = llvm.load %[[COUNT]] : !llvm.ptr -> i32
// CHECK:             %[[HALF:.*]] = arith.andi %[[N]], %{{.*}} : i32
// CHECK-NEXT:        %[[HOFFSET:.*]] = llvm.mul %[[HALF]], %[[HALFBYTES]] : i32
// CHECK-NEXT:        %[[PART:.*]] = llvm.getelementptr %[[MINE]][%[[HOFFSET]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK:             llvm.getelementptr %[[PART]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK:             nvvm.barrier id = %[[SLOT]] number_of_threads = %[[C64]]
// CHECK:             llvm.load %[[PART]]
// CHECK-NOT:         nvvm.barrier
// CHECK:             %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %{{.*}} : i32
// CHECK-NEXT:        scf.if %[[FIRST]] {
// CHECK-NEXT:          blk.store
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    return

// The CTA has 4 x 64 threads.
// KERNEL: llvm.func @persistent_sum({{.*}}: i32, %{{[^:]*}}: i32) attributes {{{.*}}nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>
func.func @persistent_sum(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>, %n: i32) {
  %pid = blk.program_id 0 : i32
  %np = blk.num_programs 0 : i32
  %pid1 = blk.program_id 1 : i32
  %r = blk.make_range 0 to 256 : tensor<256xi32>
  scf.for %row = %pid to %n step %np : i32 {
    %o = arith.muli %row, %pid1 : i32
    %rp = blk.addptr %in, %o : !blk.ptr<f32>, i32
    %b = blk.splat %rp : !blk.ptr<f32> -> tensor<256x!blk.ptr<f32>>
    %p = blk.addptr %b, %r : tensor<256x!blk.ptr<f32>>, tensor<256xi32>
    %x = blk.load %p : tensor<256x!blk.ptr<f32>>
    %s = blk.reduce sum %x axis = 0 : tensor<256xf32> -> f32
    %q = blk.addptr %out, %row : !blk.ptr<f32>, i32
    blk.store %q, %s : !blk.ptr<f32>
  }
  return
}

// -----

// A program whose threads exchange nothing has no scratch array (and no
// slot address), but still its id, its guard and the hidden parameter.

// CHECK-NOT:   llvm.mlir.global
// CHECK-LABEL: func.func @copy
// CHECK-SAME:    (%{{[^:]*}}: !blk.ptr<f32>, %{{[^:]*}}: !blk.ptr<f32>, %[[PROGRAMS:[^:]*]]: i32)
// CHECK-NOT:     llvm.mlir.addressof
// CHECK:         %[[PID:.*]] = arith.addi
// CHECK-NEXT:    %[[IN:.*]] = arith.cmpi ult, %[[PID]], %[[PROGRAMS]] : i32
// CHECK-NEXT:    scf.if %[[IN]] {
// CHECK-NOT:     nvvm.barrier
func.func @copy(%in: !blk.ptr<f32>, %out: !blk.ptr<f32>) {
  %pid = blk.program_id 0 : i32
  %c64 = arith.constant 64 : i32
  %o = arith.muli %pid, %c64 : i32
  %r = blk.make_range 0 to 64 : tensor<64xi32>
  %rp = blk.addptr %in, %o : !blk.ptr<f32>, i32
  %b = blk.splat %rp : !blk.ptr<f32> -> tensor<64x!blk.ptr<f32>>
  %p = blk.addptr %b, %r : tensor<64x!blk.ptr<f32>>, tensor<64xi32>
  %x = blk.load %p : tensor<64x!blk.ptr<f32>>
  %wp = blk.addptr %out, %o : !blk.ptr<f32>, i32
  %wb = blk.splat %wp : !blk.ptr<f32> -> tensor<64x!blk.ptr<f32>>
  %w = blk.addptr %wb, %r : tensor<64x!blk.ptr<f32>>, tensor<64xi32>
  blk.store %w, %x : tensor<64x!blk.ptr<f32>>
  return
}
