// RUN: blockjit-opt %s --blockjit-gpu-pipeline="num-warps=8 num-stages=2 sm=80" \
// RUN:   | FileCheck %s --implicit-check-not="tensor<" --implicit-check-not=blk. \
// RUN:       --implicit-check-not=scf. --implicit-check-not=func.func
// RUN: blockjit-opt %s --blockjit-gpu-pipeline="num-warps=8 num-stages=2 sm=80" \
// RUN:   | grep -c "nvvm.shfl.sync  bfly" | FileCheck %s --check-prefix=TEN
// RUN: blockjit-opt %s --blockjit-gpu-pipeline="num-warps=8 num-stages=2 sm=80" \
// RUN:   | grep -c "llvm.load .*!llvm.ptr<1> -> vector<4xf32>" | FileCheck %s --check-prefix=TWO
// RUN: blockjit-opt %s --blockjit-gpu-pipeline | FileCheck %s --check-prefix=DEFAULT
// RUN: blockjit-opt %s --blockjit-gpu-pipeline="num-warps=4 num-stages=1 sm=90" \
// RUN:   | FileCheck %s --check-prefix=DEFAULT
// RUN: not blockjit-opt %s --blockjit-gpu-pipeline="num-warps=3" 2>&1 | FileCheck %s --check-prefix=WARPS3
// RUN: not blockjit-opt %s --blockjit-gpu-pipeline="num-warps=64 num-stages=2" 2>&1 | FileCheck %s --check-prefix=WARPS64
// RUN: not blockjit-opt %s --blockjit-gpu-pipeline="num-stages=0" 2>&1 | FileCheck %s --check-prefix=STAGES0
// RUN: not blockjit-opt %s --blockjit-gpu-pipeline="sm=1000" 2>&1 | FileCheck %s --check-prefix=SM
// RUN: not blockjit-opt %s --blockjit-gpu-pipeline="num-warps=eight" 2>&1 | FileCheck %s --check-prefix=NOTINT
// RUN: not blockjit-opt %s --blockjit-gpu-pipeline="block-size=8" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not blockjit-opt %s --blockjit-cpu-pipeline="num-warps=8" 2>&1 | FileCheck %s --check-prefix=CPU

// The whole GPU pipeline of blockjit-opt takes a specialization's options,
// so this runs exactly what the JIT runs for num_warps 8, num_stages 2,
// sm_80, on the softmax of tests/lit/Dialect/softmax.mlir with the JIT's
// 16-divisibility facts on the pointers, strides and n_cols (so accesses can
// be vectors). The kernel ends in the LLVM dialect with 256 threads; each
// thread owns 4 contiguous columns (1024 / 256), loaded as one 16-byte
// vector. The prologue loads the program's first row (pid) if pid < n_rows;
// the loop carries those 4 values, and the body first loads row + nprogs (if
// that is < n_rows) for the next iteration. Neither load branches: where its
// mask is off it reads 16 zero bytes of global memory (the masked-load
// stand-in) and takes `other`. Each reduction is 5 butterfly
// shuffles within a warp, then one float per warp (8 = 32 bytes of shared
// memory) between two barriers, read back side by side as two 16-byte
// shared vector loads. Two global vector loads in all (prologue and
// prefetch), none left on the row itself.
//
// Without options (or with the defaults spelled out) it is the JIT's
// default specialization: 4 warps, no prefetch.
//
// Invalid options are clear errors: num-warps and num-stages from the passes
// that use them (as in the JIT), the arch from the option parser (the JIT
// rejects it before any work; no MLIR stage reads it), non-integers and
// unknown options from the option parser. The CPU pipeline takes no options:
// num_warps and num_stages change nothing in a CPU kernel.

// TEN: 10
// TWO: 2

// CHECK:       module attributes {blkgpu.num_warps = 8 : i32}
// CHECK:       llvm.mlir.global internal constant @__blk_masked_load_stand_in("\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00") {addr_space = 1 : i32, alignment = 16 : i64}
// CHECK:       llvm.mlir.global internal @__blk_warp_exchange_softmax() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
// CHECK-LABEL: llvm.func @softmax
// CHECK-SAME:    (%[[OUT:[^:]*]]: !llvm.ptr<1> {blk.divisibility = 16 : i32}, %[[IN:[^:]*]]: !llvm.ptr<1> {blk.divisibility = 16 : i32},
// CHECK-SAME:     %{{[^:]*}}: i32 {blk.divisibility = 16 : i32}, %{{[^:]*}}: i32 {blk.divisibility = 16 : i32}, %[[N_ROWS:[^:]*]]: i32, %[[N_COLS:[^:]*]]: i32 {blk.divisibility = 16 : i32})
// CHECK-SAME:    attributes {nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>}
// CHECK:         %[[ARRAY:.*]] = llvm.mlir.addressof @__blk_warp_exchange_softmax : !llvm.ptr<3>
// CHECK:         %[[STANDIN:.*]] = llvm.mlir.addressof @__blk_masked_load_stand_in : !llvm.ptr<1>
//                the lane indices of the vector extracts (hoisted constants)
// CHECK-DAG:     %[[K3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-DAG:     %[[K2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-DAG:     %[[K1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-DAG:     %[[K0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x range <i32, 0, {{[0-9]+}}> : i32
// CHECK:         %[[PID:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK:         %[[NP:.*]] = nvvm.read.ptx.sreg.nctaid.x : i32
//                the thread's 4 columns and their mask (col < n_cols)
// CHECK:         %[[COL:.*]] = llvm.mul %[[TID]], %{{.*}} : i32
// CHECK:         %[[COLMASK:.*]] = llvm.icmp "slt" %[[COL]], %[[N_COLS]] : i32
//                prologue: row pid, if pid < n_rows
// CHECK:         %[[ROW0:.*]] = llvm.getelementptr inbounds %[[IN]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK-NEXT:    %[[PTR0:.*]] = llvm.getelementptr inbounds %[[ROW0]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK-NEXT:    %[[FIRST:.*]] = llvm.icmp "slt" %[[PID]], %[[N_ROWS]] : i32
// CHECK-NEXT:    %[[M0:.*]] = llvm.and %[[COLMASK]], %[[FIRST]] : i1
// CHECK-NEXT:    %[[SOURCE0:.*]] = llvm.select %[[M0]], %[[PTR0]], %[[STANDIN]] : i1, !llvm.ptr<1>
// CHECK-NEXT:    llvm.load %[[SOURCE0]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
//                the row loop carries the row index and the 4 prefetched values
// CHECK:         llvm.br ^[[HEAD:bb[0-9]+]](%[[PID]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : i32, f32, f32, f32, f32)
// CHECK-NEXT:  ^[[HEAD]](%[[ROW:[^:]*]]: i32, %[[X0:[^:]*]]: f32, %[[X1:[^:]*]]: f32, %[[X2:[^:]*]]: f32, %[[X3:[^:]*]]: f32):
// CHECK-NEXT:    %[[MORE:.*]] = llvm.icmp "slt" %[[ROW]], %[[N_ROWS]] : i32
// CHECK-NEXT:    llvm.cond_br %[[MORE]], ^[[BODY:bb[0-9]+]], ^[[EXIT:bb[0-9]+]]
//                first in the body: the next row's load, off past n_rows
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NEXT:    %[[NEXT:.*]] = llvm.add %[[ROW]], %[[NP]] : i32
// CHECK:         %[[ROW1:.*]] = llvm.getelementptr inbounds %[[IN]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK-NEXT:    %[[PTR1:.*]] = llvm.getelementptr inbounds %[[ROW1]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK-NEXT:    %[[BELOW:.*]] = llvm.icmp "slt" %[[NEXT]], %[[N_ROWS]] : i32
// CHECK-NEXT:    %[[NOWRAP:.*]] = llvm.icmp "sge" %[[NEXT]], %[[ROW]] : i32
// CHECK-NEXT:    %[[INRANGE:.*]] = llvm.and %[[BELOW]], %[[NOWRAP]] : i1
// CHECK-NEXT:    %[[M1:.*]] = llvm.and %[[COLMASK]], %[[INRANGE]] : i1
// CHECK-NEXT:    %[[SOURCE1:.*]] = llvm.select %[[M1]], %[[PTR1]], %[[STANDIN]] : i1, !llvm.ptr<1>
// CHECK-NEXT:    llvm.load %[[SOURCE1]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK:         %[[Y0:.*]] = llvm.extractelement %{{.*}} : vector<4xf32>
// CHECK-NEXT:    %[[Y1:.*]] = llvm.extractelement %{{.*}} : vector<4xf32>
// CHECK-NEXT:    %[[Y2:.*]] = llvm.extractelement %{{.*}} : vector<4xf32>
// CHECK-NEXT:    %[[Y3:.*]] = llvm.extractelement %{{.*}} : vector<4xf32>
//                max of this row's (carried) values: in-thread pairwise
//                (x0 with x1, x2 with x3, then the two), 5 shuffles, then
//                one float per warp through shared memory
// CHECK-NOT:     llvm.load %{{.*}} : !llvm.ptr<1>
// CHECK:         %[[M01:.*]] = llvm.intr.maximum(%[[X0]], %[[X1]])
// CHECK-NEXT:    %[[M23:.*]] = llvm.intr.maximum(%[[X2]], %[[X3]])
// CHECK-NEXT:    llvm.intr.maximum(%[[M01]], %[[M23]])
// CHECK-COUNT-5: nvvm.shfl.sync  bfly
//                the reductions take the array's two halves in turn: a
//                count kept in a local variable (promoted by LLVM), the
//                half its low bit
// CHECK:         %[[N:.*]] = llvm.load %[[COUNT:.*]] : !llvm.ptr -> i32
// CHECK-NEXT:    llvm.add %[[N]], %{{.*}} : i32
// CHECK-NEXT:    llvm.store %{{.*}}, %[[COUNT]] : i32, !llvm.ptr
// CHECK-NEXT:    %[[HALF:.*]] = llvm.and %[[N]], %{{.*}} : i32
// CHECK-NEXT:    %[[OFFSET:.*]] = llvm.mul %[[HALF]], %{{.*}} : i32
// CHECK-NEXT:    %[[SMEM:.*]] = llvm.getelementptr %[[ARRAY]][%[[OFFSET]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK:         llvm.cond_br
// CHECK:         llvm.getelementptr %[[SMEM]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT:    llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
//                the 8 warps' slots side by side: two 16-byte loads (slots
//                0-3, 4-7), combined in warp order (the -inf identity folded)
// CHECK:         nvvm.barrier0
// CHECK-NEXT:    %[[S0:.*]] = llvm.load %[[SMEM]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NEXT:    %[[W0:.*]] = llvm.extractelement %[[S0]][%[[K0]] : i32] : vector<4xf32>
// CHECK-NEXT:    %[[W1:.*]] = llvm.extractelement %[[S0]][%[[K1]] : i32] : vector<4xf32>
// CHECK-NEXT:    %[[W2:.*]] = llvm.extractelement %[[S0]][%[[K2]] : i32] : vector<4xf32>
// CHECK-NEXT:    %[[W3:.*]] = llvm.extractelement %[[S0]][%[[K3]] : i32] : vector<4xf32>
// CHECK-NEXT:    %[[G4:.*]] = llvm.getelementptr %[[SMEM]][4] : (!llvm.ptr<3>) -> !llvm.ptr<3>, f32
// CHECK-NEXT:    %[[S4:.*]] = llvm.load %[[G4]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NEXT:    %[[W4:.*]] = llvm.extractelement %[[S4]][%[[K0]] : i32] : vector<4xf32>
// CHECK-NEXT:    %[[W5:.*]] = llvm.extractelement %[[S4]][%[[K1]] : i32] : vector<4xf32>
// CHECK-NEXT:    %[[W6:.*]] = llvm.extractelement %[[S4]][%[[K2]] : i32] : vector<4xf32>
// CHECK-NEXT:    %[[W7:.*]] = llvm.extractelement %[[S4]][%[[K3]] : i32] : vector<4xf32>
// CHECK-NEXT:    %[[A1:.*]] = llvm.intr.maximum(%[[W0]], %[[W1]])
// CHECK-NEXT:    %[[A2:.*]] = llvm.intr.maximum(%[[A1]], %[[W2]])
// CHECK-NEXT:    %[[A3:.*]] = llvm.intr.maximum(%[[A2]], %[[W3]])
// CHECK-NEXT:    %[[A4:.*]] = llvm.intr.maximum(%[[A3]], %[[W4]])
// CHECK-NEXT:    %[[A5:.*]] = llvm.intr.maximum(%[[A4]], %[[W5]])
// CHECK-NEXT:    %[[A6:.*]] = llvm.intr.maximum(%[[A5]], %[[W6]])
// CHECK-NEXT:    llvm.intr.maximum(%[[A6]], %[[W7]])
// CHECK-NOT:     nvvm.barrier0
//                exp, sum (5 shuffles, the other half, one barrier), one
//                reciprocal
// CHECK:         llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK-COUNT-5: nvvm.shfl.sync  bfly
// CHECK:         llvm.load %[[COUNT]] : !llvm.ptr -> i32
// CHECK:         nvvm.barrier0
// CHECK-NOT:     nvvm.barrier0
// CHECK:         llvm.intr.fabs(%[[SUM:.*]]) : (f32) -> f32
// CHECK:         nvvm.rcp.approx.ftz.f %[[SUM]]
//                the row's 4 results: one vector store under the column mask
// CHECK:         llvm.cond_br %[[COLMASK]], ^[[ST:bb[0-9]+]], ^[[LATCH:bb[0-9]+]]
// CHECK-NEXT:  ^[[ST]]:
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
//                next row, with the values prefetched for it
// CHECK:       ^[[LATCH]]:
// CHECK-NEXT:    %[[STEP:.*]] = llvm.add %[[ROW]], %[[NP]] : i32
// CHECK-NEXT:    llvm.br ^[[HEAD]](%[[STEP]], %[[Y0]], %[[Y1]], %[[Y2]], %[[Y3]] : i32, f32, f32, f32, f32)
// CHECK-NEXT:  ^[[EXIT]]:
// CHECK-NEXT:    llvm.return

// DEFAULT:       module attributes {blkgpu.num_warps = 4 : i32}
// DEFAULT:       @__blk_warp_exchange_softmax() {{.*}} !llvm.array<32 x i8>
// DEFAULT:       nvvm.maxntid = array<i32: 128, 1, 1>
// DEFAULT-NOT:   llvm.load %{{.*}} -> vector<4xf32>
//                the loop carries only the row index; the row is loaded in it
// DEFAULT:       llvm.br ^[[HEAD:bb[0-9]+]](%{{[^,]*}} : i32)
// DEFAULT-NEXT:  ^[[HEAD]](%[[ROW:[^:]*]]: i32):
// DEFAULT:       llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// DEFAULT:       llvm.br ^[[HEAD]](%{{[^,]*}} : i32)

// WARPS3:   error: num_warps must be a power of two in 1..32, got 3{{$}}
// WARPS64:  error: num_warps must be a power of two in 1..32, got 64{{$}}
// STAGES0:  error: num_stages must be in 1..8, got 0{{$}}
// SM:       for the --sm option: sm_1000 is not a CUDA arch blockjit can compile for; supported: sm_70,
// NOTINT:   for the --num-warps option: 'eight' value invalid for integer argument!
// UNKNOWN:  no such option block-size
// CPU:      no such option num-warps

func.func @softmax(%out: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %in: !blk.ptr<f32> {blk.divisibility = 16 : i32}, %in_row_stride: i32 {blk.divisibility = 16 : i32},
                   %out_row_stride: i32 {blk.divisibility = 16 : i32}, %n_rows: i32, %n_cols: i32 {blk.divisibility = 16 : i32}) {
  %pid = blk.program_id 0 : i32
  %np = blk.num_programs 0 : i32
  %cols = blk.make_range 0 to 1024 : tensor<1024xi32>
  %n_cols_block = blk.splat %n_cols : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %cols, %n_cols_block : tensor<1024xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<1024xf32>
  scf.for %row = %pid to %n_rows step %np : i32 {
    %in_off = arith.muli %row, %in_row_stride : i32
    %in_row = blk.addptr %in, %in_off : !blk.ptr<f32>, i32
    %in_row_block = blk.splat %in_row : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
    %in_ptrs = blk.addptr %in_row_block, %cols : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
    %x = blk.load %in_ptrs, %mask, %ninf : tensor<1024x!blk.ptr<f32>>
    %max = blk.reduce max %x axis = 0 : tensor<1024xf32> -> f32
    %max_block = blk.splat %max : f32 -> tensor<1024xf32>
    %shifted = arith.subf %x, %max_block : tensor<1024xf32>
    %num = math.exp %shifted : tensor<1024xf32>
    %den = blk.reduce sum %num axis = 0 : tensor<1024xf32> -> f32
    %den_block = blk.splat %den : f32 -> tensor<1024xf32>
    %y = arith.divf %num, %den_block : tensor<1024xf32>
    %out_off = arith.muli %row, %out_row_stride : i32
    %out_row = blk.addptr %out, %out_off : !blk.ptr<f32>, i32
    %out_row_block = blk.splat %out_row : !blk.ptr<f32> -> tensor<1024x!blk.ptr<f32>>
    %out_ptrs = blk.addptr %out_row_block, %cols : tensor<1024x!blk.ptr<f32>>, tensor<1024xi32>
    blk.store %out_ptrs, %y, %mask : tensor<1024x!blk.ptr<f32>>
  }
  return
}
