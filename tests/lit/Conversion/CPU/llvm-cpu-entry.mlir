// RUN: blockjit-opt %s --convert-blk-to-loops --convert-blk-to-llvm-cpu | FileCheck %s
// RUN: blockjit-opt %s --convert-blk-to-loops --convert-blk-to-llvm-cpu | FileCheck %s --check-prefix=DECL
// RUN: blockjit-opt %s --convert-blk-to-loops '--convert-blk-to-llvm-cpu=prefer-vector-width=512' \
// RUN:   | FileCheck %s --check-prefix=WIDTH

// prefer-vector-width=512 (the CPU backend's choice on AVX-512 hosts) marks
// every kernel and entry point, so that LLVM vectorizes with 512-bit
// vectors where its tuning would prefer 256 (Intel server cores).
// WIDTH: llvm.func internal @kern({{.*}}) attributes {always_inline, prefer_vector_width = "512"}
// WIDTH: llvm.func @kern_blockjit_entry({{.*}}) attributes {prefer_vector_width = "512"}
// Without it, no width is asked for.
// CHECK-NOT: prefer_vector_width

// Every kernel @k becomes an internal, always_inline llvm.func with six
// trailing i32 parameters (program ids x,y,z, then program counts x,y,z), and
// gets a public entry point @k_blockjit_entry(ptr args, ptr grid, ptr
// scratch, i64 begin, i64 end) (compiler/cpu/EntryABI.h) that loads argument
// i through the pointer stored at args[i] and the counts grid[0..2] once,
// finds the first program's ids by division, then calls the kernel for
// programs begin..end-1, advancing x and carrying into y and z without
// dividing again. External declarations get no entry point.

// CHECK-LABEL: llvm.func internal @kern
// CHECK-SAME:    (%{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: i32, %{{[^:]*}}: f32,
// CHECK-SAME:     %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32)
// CHECK-SAME:    attributes {always_inline}
func.func @kern(%in: !blk.ptr<f16>, %out: !blk.ptr<f32>, %n: i32, %scale: f32) {
  %x = blk.load %in : !blk.ptr<f16>
  %xf = arith.extf %x : f16 to f32
  %y = arith.mulf %xf, %scale : f32
  %o = blk.addptr %out, %n : !blk.ptr<f32>, i32
  blk.store %o, %y : !blk.ptr<f32>
  return
}

// A kernel without arguments has only the six grid parameters.
// CHECK-LABEL: llvm.func internal @noargs
// CHECK-SAME:    (%{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32)
// CHECK-SAME:    attributes {always_inline}
func.func @noargs() {
  return
}

// CHECK:         llvm.func @decl(i32)
// DECL-NOT:      @decl_blockjit_entry
// DECL-NOT:      llvm.func internal @decl
func.func private @decl(i32)

// CHECK-LABEL: llvm.func @kern_blockjit_entry
// CHECK-SAME:    (%[[ARGS:[^:]*]]: !llvm.ptr, %[[GRID:[^:]*]]: !llvm.ptr, %[[SCRATCH:[^:]*]]: !llvm.ptr, %[[BEGIN:[^:]*]]: i64, %[[END:[^:]*]]: i64) {
// CHECK-NEXT:    %[[S0:.*]] = llvm.getelementptr %[[ARGS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[P0:.*]] = llvm.load %[[S0]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[IN:.*]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[S1:.*]] = llvm.getelementptr %[[ARGS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[P1:.*]] = llvm.load %[[S1]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[OUT:.*]] = llvm.load %[[P1]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[S2:.*]] = llvm.getelementptr %[[ARGS]][2] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[P2:.*]] = llvm.load %[[S2]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[N:.*]] = llvm.load %[[P2]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[S3:.*]] = llvm.getelementptr %[[ARGS]][3] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[P3:.*]] = llvm.load %[[S3]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[SCALE:.*]] = llvm.load %[[P3]] : !llvm.ptr -> f32
// CHECK-NEXT:    %[[G0P:.*]] = llvm.getelementptr %[[GRID]][0] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[GX:.*]] = llvm.load %[[G0P]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[G1P:.*]] = llvm.getelementptr %[[GRID]][1] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[GY:.*]] = llvm.load %[[G1P]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[G2P:.*]] = llvm.getelementptr %[[GRID]][2] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[GZ:.*]] = llvm.load %[[G2P]] : !llvm.ptr -> i32
// CHECK-NOT:     llvm.getelementptr %[[GRID]]
//                the first program: x = begin % gx, y = begin / gx % gy, z = begin / gx / gy
// CHECK:         %[[XY:.*]] = llvm.sdiv %[[BEGIN]], %{{.*}} : i64
// CHECK-NEXT:    %[[X0:.*]] = llvm.srem %[[BEGIN]], %{{.*}} : i64
// CHECK-NEXT:    %[[Y0:.*]] = llvm.srem %[[XY]], %{{.*}} : i64
// CHECK-NEXT:    %[[Z0:.*]] = llvm.sdiv %[[XY]], %{{.*}} : i64
// CHECK:         llvm.br ^[[LOOP:bb[0-9]+]](%[[BEGIN]], %{{.*}}, %{{.*}}, %{{.*}} : i64, i32, i32, i32)
// CHECK-NEXT:  ^[[LOOP]](%[[I:[^:]*]]: i64, %[[X:[^:]*]]: i32, %[[Y:[^:]*]]: i32, %[[Z:[^:]*]]: i32):
// CHECK-NEXT:    %[[MORE:.*]] = llvm.icmp "slt" %[[I]], %[[END]] : i64
// CHECK-NEXT:    llvm.cond_br %[[MORE]], ^[[CALL:bb[0-9]+]], ^[[EXIT:bb[0-9]+]]
// CHECK-NEXT:  ^[[CALL]]:
// CHECK-NEXT:    llvm.call @kern(%[[IN]], %[[OUT]], %[[N]], %[[SCALE]], %[[X]], %[[Y]], %[[Z]], %[[GX]], %[[GY]], %[[GZ]])
// CHECK-SAME:      : (!llvm.ptr, !llvm.ptr, i32, f32, i32, i32, i32, i32, i32, i32) -> ()
//                next program: x + 1, wrapping into y, then z
// CHECK:         %[[X1:.*]] = llvm.add %[[X]], %{{.*}} : i32
// CHECK-NEXT:    %[[WX:.*]] = llvm.icmp "eq" %[[X1]], %[[GX]] : i32
// CHECK-NEXT:    %[[X2:.*]] = llvm.select %[[WX]], %{{.*}}, %[[X1]] : i1, i32
// CHECK:         %[[Y1:.*]] = llvm.add %[[Y]], %{{.*}} : i32
// CHECK-NEXT:    %[[WY:.*]] = llvm.icmp "eq" %[[Y1]], %[[GY]] : i32
// CHECK-NEXT:    %[[Y2:.*]] = llvm.select %[[WY]], %{{.*}}, %[[Y1]] : i1, i32
// CHECK:         %[[Z2:.*]] = llvm.add %[[Z]], %{{.*}} : i32
// CHECK:         %[[I2:.*]] = llvm.add %[[I]], %{{.*}} : i64
// CHECK-NEXT:    llvm.br ^[[LOOP]](%[[I2]], %[[X2]], %[[Y2]], %[[Z2]] : i64, i32, i32, i32)
// CHECK-NEXT:  ^[[EXIT]]:
// CHECK-NEXT:    llvm.return
// CHECK-NEXT:  }

// CHECK-LABEL: llvm.func @noargs_blockjit_entry
// CHECK-SAME:    (%{{[^:]*}}: !llvm.ptr, %[[GRID:[^:]*]]: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: i64, %{{[^:]*}}: i64) {
// CHECK-NOT:     llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK-COUNT-3: llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK:         llvm.call @noargs(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i32, i32, i32, i32, i32, i32) -> ()
