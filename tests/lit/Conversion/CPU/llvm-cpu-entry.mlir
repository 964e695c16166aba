// RUN: blockjit-opt %s --convert-blk-to-loops --convert-blk-to-llvm-cpu | FileCheck %s
// RUN: blockjit-opt %s --convert-blk-to-loops --convert-blk-to-llvm-cpu | FileCheck %s --check-prefix=DECL

// Every kernel @k becomes an internal, always_inline llvm.func with six
// trailing i32 parameters (program ids x,y,z, then program counts x,y,z), and
// gets a public entry point @k_blockjit_entry(ptr args, ptr grid) that loads
// argument i through the pointer stored at args[i], loads grid[0..5] and calls
// the kernel. External declarations get no entry point.

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
// CHECK-SAME:    (%[[ARGS:[^:]*]]: !llvm.ptr, %[[GRID:[^:]*]]: !llvm.ptr, %[[SCRATCH:[^:]*]]: !llvm.ptr) {
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
// CHECK-NEXT:    %[[G0:.*]] = llvm.load %[[G0P]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[G1P:.*]] = llvm.getelementptr %[[GRID]][1] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[G1:.*]] = llvm.load %[[G1P]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[G2P:.*]] = llvm.getelementptr %[[GRID]][2] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[G2:.*]] = llvm.load %[[G2P]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[G3P:.*]] = llvm.getelementptr %[[GRID]][3] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[G3:.*]] = llvm.load %[[G3P]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[G4P:.*]] = llvm.getelementptr %[[GRID]][4] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[G4:.*]] = llvm.load %[[G4P]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[G5P:.*]] = llvm.getelementptr %[[GRID]][5] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[G5:.*]] = llvm.load %[[G5P]] : !llvm.ptr -> i32
// CHECK-NEXT:    llvm.call @kern(%[[IN]], %[[OUT]], %[[N]], %[[SCALE]], %[[G0]], %[[G1]], %[[G2]], %[[G3]], %[[G4]], %[[G5]])
// CHECK-SAME:      : (!llvm.ptr, !llvm.ptr, i32, f32, i32, i32, i32, i32, i32, i32) -> ()
// CHECK-NEXT:    llvm.return
// CHECK-NEXT:  }

// CHECK-LABEL: llvm.func @noargs_blockjit_entry
// CHECK-SAME:    (%{{[^:]*}}: !llvm.ptr, %[[GRID:[^:]*]]: !llvm.ptr, %{{[^:]*}}: !llvm.ptr) {
// CHECK-NOT:     llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK-COUNT-6: llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK-NEXT:    llvm.call @noargs(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i32, i32, i32, i32, i32, i32) -> ()
// CHECK-NEXT:    llvm.return
