//===- Passes.td - blockjit's own passes ---------------------------------===//
#ifndef BLOCKJIT_COMPILER_PASSES_TD
#define BLOCKJIT_COMPILER_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertBlkToLoops : Pass<"convert-blk-to-loops", "mlir::ModuleOp"> {
  let summary = "Lower blocks to scalar loops over stack buffers (CPU backend)";
  let description = [{
    A program instance executes each block operation as a loop nest the host
    compiler can vectorize. Shape-only ops (splat, broadcast, expand_dims,
    make_range), pointer arithmetic and cheap elementwise ops are not stored:
    their consumers recompute them per element. Loads, reductions and
    expensive elementwise results used more than once live in stack buffers
    allocated once at function entry. Masked lanes never touch memory.
    Reductions of f16/bf16 accumulate in f32.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect"];
}

def ConvertBlkToLLVMCPU : Pass<"convert-blk-to-llvm-cpu", "mlir::ModuleOp"> {
  let summary = "Lower a loop-level kernel to the LLVM dialect with a host entry point";
  let description = [{
    Expects the output of convert-blk-to-loops (no blocks left). Program ids
    and counts become extra i32 parameters; math functions get vectorizable
    polynomial approximations; every kernel `@k` gets an entry point
    `@k_blockjit_entry(ptr args, ptr grid)` where `args` points to pointers
    to each argument value and `grid` to six i32 (program ids x,y,z then
    program counts x,y,z).
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect",
                           "mlir::cf::ControlFlowDialect"];
}

#endif // BLOCKJIT_COMPILER_PASSES_TD
