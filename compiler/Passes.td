//===- Passes.td - blockjit's own passes ---------------------------------===//
#ifndef BLOCKJIT_COMPILER_PASSES_TD
#define BLOCKJIT_COMPILER_PASSES_TD

include "mlir/Pass/PassBase.td"

def BlkVerifyKernels : Pass<"blk-verify-kernels", "mlir::ModuleOp"> {
  let summary = "Check what every backend assumes of a kernel before lowering it";
  let description = [{
    The first pass of every pipeline: the blk verifiers check each op, this
    pass checks the kernel as a whole, so that input that no backend can
    lower fails here with a message instead of deep inside a lowering.
    Kernel parameters are integer or float scalars or !blk.ptr pointers, and
    kernels return nothing. Every block is a ranked tensor of a static shape
    whose dimensions are powers of two, holds at most 2^24 elements, and has
    integer, float or !blk.ptr elements. A loop's step that folds to a
    constant (k * 2 with k an argument specialized as 0) is positive:
    canonicalization would otherwise erase the loop.
  }];
}

def BlkWidenOffsets : Pass<"blk-widen-offsets", "mlir::ModuleOp"> {
  let summary = "Compute pointer offsets in 64 bits so they never wrap";
  let description = [{
    The DSL's integers are i32, so `row * stride` wraps once a row offset
    reaches 2^31 elements and the pointer lands elsewhere. For every
    blk.addptr with an i32 offset, this pass recomputes the offset's
    arithmetic (addi, subi, muli, and the splat / broadcast / expand_dims
    that shape it) in i64 from sign-extended leaves (arguments, loop
    variables, ranges, loads), exactly as the source means it, and lets the
    addptr use that. The i32 ops stay for their other users (masks, loop
    bounds). Offsets carried through loops as i32 values are leaves: they
    still wrap where the source computes them.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def ConvertBlkToLoops : Pass<"convert-blk-to-loops", "mlir::ModuleOp"> {
  let summary = "Lower blocks to scalar loops over buffers (CPU backend)";
  let description = [{
    A program instance executes each block operation as a loop nest the host
    compiler can vectorize. Shape-only ops (splat, broadcast, expand_dims,
    make_range), pointer arithmetic and cheap elementwise ops are not stored:
    their consumers recompute them per element. A 1-D load whose every read
    comes before the next store is read from memory again where it is used.
    Inner loops over active elements end in a remainder loop that LLVM is
    asked to vectorize as one masked vector (`llvm.loop_annotation`).
    Other loads, reductions and
    expensive elementwise results used more than once live in buffers
    allocated once at function entry: on the stack up to 16 KiB, above that
    in the calling thread's scratch arena, a trailing memref<?xi8> parameter
    whose size the kernel records in `blockjit.cpu_scratch_bytes`
    (compiler/cpu/EntryABI.h). Masked lanes never touch memory. Reductions
    of f16/bf16 accumulate in f32.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::math::MathDialect",
                           "mlir::LLVM::LLVMDialect"];
}

def ConvertBlkToLLVMCPU : Pass<"convert-blk-to-llvm-cpu", "mlir::ModuleOp"> {
  let summary = "Lower a loop-level kernel to the LLVM dialect with a host entry point";
  let description = [{
    Expects the output of convert-blk-to-loops (no blocks left). Program ids
    and counts become extra i32 parameters; math functions get vectorizable,
    NaN-safe polynomial approximations (compiler/MathLowering.h); every
    kernel `@k` gets an entry point `@k_blockjit_entry(ptr args, ptr grid,
    ptr scratch)` (compiler/cpu/EntryABI.h): `args` points to pointers to
    each argument value, `grid` to six i32 (program ids x,y,z then program
    counts x,y,z), `scratch` to the thread's arena.
  }];
  let options = [Option<"scalef", "scalef", "bool", /*default=*/"false",
                        "f32 exp and exp2 scale by 2^k with llvm.ldexp (one "
                        "vscalefps on AVX-512; the CPU backend sets it when "
                        "the host has AVX-512F)">,
                 Option<"preferVectorWidth", "prefer-vector-width", "int",
                        /*default=*/"0",
                        "the widest vectors (bits) LLVM should prefer for "
                        "the kernel, 0 for the target's choice (the CPU "
                        "backend asks for 512 on AVX-512 hosts: LLVM's "
                        "tuning for Intel server cores prefers 256)">];
  let dependentDialects = ["mlir::LLVM::LLVMDialect",
                           "mlir::cf::ControlFlowDialect"];
}

def BlkDefaultEviction : Pass<"blk-default-eviction", "mlir::ModuleOp"> {
  let summary = "Give the loads and stores without an eviction hint the kernel's default";
  let description = [{
    Every blk.load without an `eviction` hint gets `loads`, every blk.store
    without one gets `stores` (normal: left alone): Triton's
    eviction_policy for a whole kernel, a config the autotuner may time
    (CompileOptions::loadEviction, storeEviction). A hint the source wrote
    stays. It changes no result: the GPU lowering turns a hint into the
    access's L1 priority and L2 cache policy (LowerEvictionHints), and a load
    blk-stage-in-shared moves to shared memory keeps it on its cp.async.
    A name other than normal, evict_first or evict_last is an error.
  }];
  let options = [Option<"loads", "loads", "std::string", /*default=*/"\"normal\"",
                        "the hint of loads without one">,
                 Option<"stores", "stores", "std::string", /*default=*/"\"normal\"",
                        "the hint of stores without one">];
}

def BlkPipelineLoads : Pass<"blk-pipeline-loads", "mlir::ModuleOp"> {
  let summary = "Prefetch the next iteration's loads in scf.for loops (num_stages)";
  let description = [{
    For a load in an scf.for body whose address, mask and `other` depend only
    on the induction variable and values from outside the loop, the load for
    iteration i + (num_stages - 1) * step is issued at the start of iteration
    i and carried to it through num_stages - 1 iter_args; a prologue loads
    the first num_stages - 1 iterations. Each prefetch is masked off past the
    upper bound (compared as the loop compares, signed or unsigned), so it
    never touches memory the original loop would not. A load whose address,
    mask and `other` are all defined outside the loop is instead issued once,
    before it (masked off when the loop runs no iteration); the no-overlap
    assumption below then covers the whole loop, not a few iterations. A load of a pointer parameter that the loop also stores
    through is not prefetched (the store of this or the previous iteration
    may write what it reads); distinct pointer parameters are assumed not to
    overlap. `num-stages` = 1 leaves loops alone; each stage more holds one
    more iteration's loads in registers; outside 1..8 is an error.
  }];
  let options = [Option<"numStages", "num-stages", "int", "2",
                        "software pipelining depth (1 = off)">];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::scf::SCFDialect"];
}

def BlkAssignLayouts : Pass<"blk-assign-layouts", "mlir::ModuleOp"> {
  let summary = "Give every block a #blkgpu.blocked distribution over GPU threads";
  let description = [{
    Every block gets the linear #blkgpu.blocked layout of its shape
    (docs/LAYOUTS.md): the block is spread through its row-major linear
    index, each thread owning chunks of `vector` contiguous elements (16
    bytes of the narrowest element type the kernel loads or stores at that
    element count, when the block is large enough), 32 threads per warp,
    `num-warps` warps. Blocks of one element count share the vector, so
    expand_dims moves no data and no layout conversions are needed. The
    module records the warp count as `blkgpu.num_warps`. Blocks of any rank
    are laid out; non-power-of-two shapes are reported as errors, and so is
    a block that would give a thread more than 1024 elements
    (kMaxElementsPerThread: code generation time grows too fast beyond), or
    one that came with a layout the lowering does not implement.

    With `num-ctas` > 1 a program runs on a thread-block cluster of that
    many CTAs (sm_90): each block large enough to give every CTA a whole
    tile is split over them, the CTAs taking turns tile by tile (so a
    masked tail costs each alike); smaller blocks are held whole by every
    CTA. The ops that touch split blocks must be ones the
    cluster lowering implements (elementwise math, make_range, splat,
    expand_dims, reshape, addptr, load, store, 1-D reduce); otherwise, or if
    no block is large enough, the program runs in one CTA and the module's
    `blkgpu.cluster_fallback` says why. The module records the CTAs per
    program as `blkgpu.num_ctas`, and the programs that share one CTA
    (each on its own warps; layouts are per program) as
    `blkgpu.programs_per_cta`.
  }];
  let options = [Option<"numWarps", "num-warps", "int", "4",
                        "warps per program (a power of two, 1..32)">,
                 Option<"numCTAs", "num-ctas", "int", "1",
                        "CTAs per program, a thread-block cluster (a power "
                        "of two, 1..16)">,
                 Option<"programsPerCTA", "programs-per-cta", "int", "1",
                        "programs sharing one CTA (a power of two, 1..16; "
                        "1 with num-ctas > 1)">];
  let dependentDialects = ["blockjit::blkgpu::BlkGPUDialect"];
}

def BlkSinkBroadcasts : Pass<"blk-sink-broadcasts", "mlir::ModuleOp"> {
  let summary = "Broadcasts of 2-D blocks in registers: recompute indices, all-reduce";
  let description = [{
    On the GPU a `blk.broadcast` moves elements between threads through
    shared memory (the source and the result are distributed differently).
    Before blk-assign-layouts, each broadcast whose source is computed only
    from splats, constants, `make_range`s, reductions along the broadcast
    axis and elementwise ops on those is rebuilt in the result's shape:
    the elementwise ops run on the broadcast operands instead, a splat or
    a constant is made at the result's shape, a `make_range` becomes the
    broadcast of that range alone (which the lowering computes in each
    thread from its element's coordinates: no exchange), and
    `broadcast(expand_dims(reduce(x, a), a))` of x's shape becomes
    `blkgpu.all_reduce(x, a)` (in registers and shuffles). So
    `rows[:, None] * stride + cols[None, :]`, its masks and
    `x - max(x, 1, keep_dims)` need no shared memory. A load whose
    pointers, mask and `other` are made of those (a weight row
    `w[None, :]`, a gather through such a load's offsets) is loaded at the
    result's shape where the original load was, marked
    `blkgpu.stretched_dims`: each thread reads the elements it holds, once.
    Broadcasts of anything else (a scan, a load through pointers the pass
    cannot rebuild) are left as they are.
  }];
  let dependentDialects = ["blockjit::blkgpu::BlkGPUDialect"];
}

def BlkFuseClusterSoftmax : Pass<"blk-fuse-cluster-softmax", "mlir::ModuleOp"> {
  let summary = "Softmax's two reductions of a cluster-split block in one exchange";
  let description = [{
    In a module with blkgpu.num_ctas > 1 (after blk-assign-layouts), every
    `reduce sum (exp (x - splat (reduce max x)))` of a 1-D f32 block split
    over the cluster becomes the online form: each CTA reduces its own piece
    (blk.reduce with blkgpu.cta_local), one blkgpu.cluster_softmax_stats
    exchanges the (max, sum) pairs, and exp(x - max) is the CTA's
    exp(x - local max) rescaled. One cluster barrier per row instead of two.
    Likewise `all_reduce sum (exp (x - all_reduce max x))` along an axis of
    an f32 block of rank 2 or more whose lines cross the cluster (softmax
    over the columns of a strip split over the CTAs): CTA-local all_reduces
    and one cluster_softmax_stats with that axis, every line's pair in one
    exchange. The max must feed only that difference, which must feed only
    the exp, and the exp's other uses must follow the sum. Anything else is
    left as it is.
  }];
  let dependentDialects = ["blockjit::blkgpu::BlkGPUDialect",
                           "mlir::arith::ArithDialect", "mlir::math::MathDialect"];
}

def BlkRematerializeAddresses
    : Pass<"blk-rematerialize-addresses", "mlir::ModuleOp"> {
  let summary = "Compute each 2-D access's addresses and mask where it is";
  let description = [{
    After blk-assign-layouts: the index arithmetic of the addresses and
    mask of each blk.load and blk.store of a 2-D (or higher) block whose
    addresses read a range (splats, splat constants, make_range, range
    broadcasts, expand_dims, addptr and cheap integer arith ops, no
    division) is cloned right in front of the access, and the cloned range
    broadcasts (and ranges read directly) are marked
    blkgpu.rematerialized. convert-blk-to-nvvm derives their indices from
    a copy of the thread's first element index that LLVM cannot see
    through, so LICM does not
    hoist a thread's row offsets and masks out of a loop and CSE does not
    share a load's with its store's: they are not held in registers across
    the reductions in between (a whole-column softmax's per-row 64-bit
    pointers and masks took 3 registers an element). Anything else an
    address uses (a loaded block, a reduction, a division) stays shared;
    the originals that nothing else uses are erased. 1-D accesses (one
    base and per-element constants), blkgpu.async_load and the atomics are
    left as they are.
  }];
  let dependentDialects = ["blockjit::blkgpu::BlkGPUDialect"];
}

def BlkVersionPrefixMasks : Pass<"blk-version-prefix-masks", "mlir::ModuleOp"> {
  let summary = "Branch once around accesses whose mask has a loop-variant prefix";
  let description = [{
    After blk-assign-layouts: each blk.load and blk.store of a 1-D block in
    an scf.for whose mask has loop-variant prefix terms (`i + start + offset
    < bound` or `<=`, the index a make_range, bound and offset splats; a
    causal `cols <= row`, the chunk bound `chunk + cols < n`) goes into an
    scf.if on whether all of those terms hold for the whole block: then the
    access runs under the rest of its mask (no mask when nothing is left),
    else as it was. The condition is one scalar compare a term, the same
    for every thread (nvvm.vote.sync all says so to ptxas), so the branch
    does not diverge and the fast access
    takes the vectors and folded branches of a loop-invariant mask. Terms
    whose index could wrap take the original access; accesses of more than
    32 elements a thread are left alone (two copies of them cost more than
    the fast one saves where it is not taken). The scf.if is marked
    blkgpu.versioned_access, the one kind that convert-blk-to-nvvm lets
    carry blocks. A load in a loop of constant bounds and step (one LLVM
    unrolls) whose mask is the same over each of its vectors is not
    versioned but marked blkgpu.branch_free: the lowering then reads a
    vector that is off from a stand-in in global memory instead of
    branching around it, so the unrolled loads share one basic block and
    ptxas has them all in flight at once. So is a load of vectors with no
    loop-variant prefix term (a row kernel's `cols < n_cols`, or a load
    outside any loop) whose mask holds over whole vectors: behind a branch,
    the loads after it waited for the computation on it.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::scf::SCFDialect",
                           "mlir::NVVM::NVVMDialect",
                           "blockjit::blkgpu::BlkGPUDialect"];
}

def BlkStageInShared : Pass<"blk-stage-in-shared", "mlir::ModuleOp"> {
  let summary = "Keep blocks too large for registers in shared memory";
  let description = [{
    After blk-assign-layouts: a loaded block whose share of each thread
    would take more than 128 registers (kMaxRegisterWordsPerBlock) would
    spill to local memory, a second trip to DRAM. Such a blk.load becomes a
    blkgpu.async_load into the CTA's shared memory (cp.async: the bytes in
    flight are not bounded by registers either) and each use reads it back
    with a blkgpu.local_load placed right before the use. Elementwise values
    computed from it that have several uses are recomputed for each use
    (softmax's exp(x - max) once for the sum, once for the output), so no
    thread holds a whole block across a reduction. The blocks of a program
    take consecutive, 16-byte aligned `offset`s of its dynamic shared
    memory, recorded as `blkgpu.dynamic_shared_bytes` on the module, each
    async_load followed by a blkgpu.async_wait for its copies. Everything
    stays in registers when the blocks would exceed the shared memory of
    `sm-arch` (the module's `blkgpu.residency` says why).
    Rows a loop loads ahead (blk-pipeline-loads, num_stages = s) wait in
    shared memory when their copies in registers, the row in use and the
    s - 1 in flight, would take more than five eighths of a thread's
    registers (liveRegisterWords): the prologue's loads become async_loads,
    the loop carries the s - 1 buffers, and each iteration waits for its
    row (blkgpu.async_wait leaving the newer rows in flight), reads it into
    registers once and starts the row s - 1 iterations on `into` the
    buffer it has just read. Only one copy of the row then lives in
    registers, and the next rows load while the current one is reduced.
    Loads hoisted in front of a loop that uses them (a layernorm's weight
    and bias) are kept in shared memory too, largest first, while all block
    loads together would take more than five eighths of a thread's
    registers (liveRegisterWords: 159 words for CTAs of up to 8 warps, 79
    for 16): they are read back where the loop uses them, each iteration.
  }];
  let options = [Option<"smArch", "sm-arch", "int", /*default=*/"90",
                        "the target's sm arch (its shared memory per CTA)">];
  let dependentDialects = ["blockjit::blkgpu::BlkGPUDialect"];
}

def BlkTestAxisInfo : Pass<"blk-test-axis-info", "mlir::ModuleOp"> {
  let summary = "Report what AxisAnalysis derives for every value (tests)";
  let description = [{
    For each value of each kernel (op results, function parameters, loop
    induction variables and iter_args), in the order they are defined, a
    remark "contiguity = C, divisibility = D, constancy = K" at the value's
    location: the facts convert-blk-to-nvvm uses to choose vector widths
    (see compiler/gpu/AxisInfo.h). Runs on blk IR, with or without layouts;
    changes nothing.
  }];
}

def ConvertBlkToNVVM : Pass<"convert-blk-to-nvvm", "mlir::ModuleOp"> {
  let summary = "Lower laid-out blocks to per-thread scalars, vector accesses and NVVM";
  let description = [{
    Each block becomes the values its thread owns under its #blkgpu.blocked
    layout. Loads and stores use vectors as wide as contiguity, alignment
    (from blk.divisibility) and mask constancy allow, under one branch per
    vector; masked lanes never touch memory. Reductions combine in-thread,
    then with warp butterfly shuffles, then across warps through shared
    memory; the result reaches every thread. Broadcasts, and reductions of
    blocks of rank 2 and more, exchange elements through one shared scratch
    array per kernel, fenced by barriers. exp(x) is exp2(x * log2 e), and
    dividing by one scalar multiplies by its reciprocal. From sm_80 on,
    f32 -> bf16/f16 truncations convert two elements per instruction.
  }];
  let options = [Option<"smArch", "sm-arch", "int", "0",
                        "Target sm arch (e.g. 90); 0: unknown, only what every "
                        "arch has">];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::NVVM::NVVMDialect",
                           "mlir::scf::SCFDialect", "mlir::arith::ArithDialect",
                           "mlir::math::MathDialect"];
}

def ConvertBlkToLLVMGPU : Pass<"convert-blk-to-llvm-gpu", "mlir::ModuleOp"> {
  let summary = "Lower a per-thread kernel to the LLVM dialect as an NVVM kernel";
  let description = [{
    Pointers become global (addrspace 1) LLVM pointers; kernels are marked
    `nvvm.kernel` with `nvvm.maxntid` = 32 * blkgpu.num_warps threads. Math
    that NVPTX cannot select (exp, log, tanh, pow, ...) becomes NaN-safe
    polynomial approximations, exp2 stays ex2.approx, and a math op left
    without a lowering is an error naming it (compiler/MathLowering.h). scf
    becomes cf last-first per block, which keeps the rewrite linear in the
    size of the kernel. With `max-registers` = N > 0 kernels also carry
    `nvvm.maxnreg` = N (PTX's `.maxnreg`: ptxas gives a thread at most N
    registers, spilling the rest; CompileOptions::maxRegisters).
  }];
  let options = [
    Option<"maxRegisters", "max-registers", "int", "0",
           "registers a thread may take at most (0: ptxas's choice)">
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::NVVM::NVVMDialect",
                           "mlir::cf::ControlFlowDialect",
                           "mlir::arith::ArithDialect"];
}

#endif // BLOCKJIT_COMPILER_PASSES_TD
