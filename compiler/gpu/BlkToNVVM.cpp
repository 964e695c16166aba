//===- BlkToNVVM.cpp - laid-out blocks to per-thread scalars and NVVM ----===//
//
// A 1:N dialect conversion (compiler/gpu/ToNVVM/): each block value becomes
// the list of elements its thread owns (see Layout1D), one pattern per op or
// op family rewrites the block ops, and the SCF structural patterns carry the
// elements through scf.for. Pattern rollback is off, so the conversion is
// one linear pass over the kernel; what it cannot lower is rejected before it
// starts (checkGPULowering).
//
//===----------------------------------------------------------------------===//
#include "compiler/Passes.h"
#include "compiler/gpu/Layout.h"
#include "compiler/gpu/ToNVVM/Lowering.h"

#include "dialect/BlkDialect.h"
#include "dialect/gpu/BlkGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace blockjit {
#define GEN_PASS_DEF_CONVERTBLKTONVVM
#include "compiler/Passes.h.inc"
} // namespace blockjit

using namespace mlir;
using namespace blockjit;
using namespace blockjit::nvvm;

namespace {

/// Static shared memory a program may use without opting in to more.
constexpr int64_t kMaxSharedBytes = 48 * 1024;

/// With several programs per CTA: this thread's program (its slot in the
/// CTA, its index within the program, its id along x, its shared memory)
/// and the grid's program count along x, a last kernel parameter the
/// runtime passes. Returns the last op of that prologue.
Operation *setUpProgramSlot(OpBuilder &builder, Location loc, func::FuncOp func,
                            KernelState &kernel) {
  int64_t threads = int64_t(kernel.numWarps) * kWarpSize;
  Value tid = kernel.threadId;
  // The thread's index in its program is %laneid plus its warp's offset,
  // not tid & (threads - 1): LLVM knows tid's range, and turns an element's
  // (tid & 31) + 96 into tid | 96 whenever the constant covers every
  // program-slot bit. Such an index no longer splits into the thread's
  // address plus an immediate, so every fourth element of a 1-warp program
  // in a CTA of 4 computed a 64-bit address of its own (bf16 softmax over
  // rows of 781: 28 of ~390 instructions a row).
  MLIRContext *context = builder.getContext();
  Type i32 = builder.getI32Type();
  Value lane = NVVM::LaneIdOp::create(
      builder, loc, i32, LLVM::ConstantRangeAttr::get(context, 32, 0, kWarpSize));
  kernel.threadId = lane;
  if (kernel.numWarps > 1) {
    Value warpOffset = arith::AndIOp::create(
        builder, loc, tid, i32Constant(builder, loc, threads - kWarpSize));
    kernel.threadId = arith::OrIOp::create(builder, loc, warpOffset, lane);
  }
  kernel.programSlot = arith::ShRUIOp::create(
      builder, loc, tid, i32Constant(builder, loc, llvm::Log2_64(threads)));
  Value cta = NVVM::BlockIdXOp::create(builder, loc, builder.getI32Type());
  kernel.programIdX = arith::AddIOp::create(
      builder, loc,
      arith::MulIOp::create(builder, loc, cta,
                            i32Constant(builder, loc, kernel.programsPerCTA)),
      kernel.programSlot);
  (void)func.insertArgument(func.getNumArguments(), builder.getI32Type(),
                            DictionaryAttr(), loc);
  kernel.numProgramsX = func.getArgument(func.getNumArguments() - 1);
  kernel.scratch.setProgramSlot(builder, loc, kernel.programSlot,
                                kernel.programsPerCTA);
  kernel.warpExchange.setProgramSlot(builder, loc, kernel.programSlot,
                                     kernel.programsPerCTA);
  return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult,
                               kernel.programIdX, kernel.numProgramsX);
}

/// The last CTA's slots past the grid's programs run nothing: the kernel's
/// body after the prologue goes under `if (program id < program count)`.
/// Each program synchronizes on its own barrier, so idle slots block none.
void skipProgramsPastTheGrid(func::FuncOp func, Operation *prologueEnd) {
  Block &entry = func.getBody().front();
  OpBuilder builder(func.getContext());
  builder.setInsertionPointAfter(prologueEnd);
  auto guard =
      scf::IfOp::create(builder, func.getLoc(), prologueEnd->getResult(0),
                        /*withElseRegion=*/false);
  Block *body = guard.thenBlock();
  body->getOperations().splice(body->begin(), entry.getOperations(),
                               std::next(guard->getIterator()),
                               entry.getTerminator()->getIterator());
}

struct ConvertBlkToNVVM
    : blockjit::impl::ConvertBlkToNVVMBase<ConvertBlkToNVVM> {
  using ConvertBlkToNVVMBase::ConvertBlkToNVVMBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    auto warps = module->getAttrOfType<IntegerAttr>(kNumWarpsAttr);
    if (!warps) {
      module.emitError() << "run blk-assign-layouts first (no " << kNumWarpsAttr
                         << " on the module)";
      return signalPassFailure();
    }
    // Run alone on hand-written IR, a block may carry a layout this lowering
    // does not implement (slice, shared, non-linear): an error, not an assert.
    int numCTAs = numCTAsOf(module);
    if (failed(verifyLinearLayouts(module, warps.getInt(), numCTAs)))
      return signalPassFailure();

    // Every op that takes or produces a block is rewritten; the rest stays.
    BlockTypeConverter converter;
    ConversionTarget target(*context);
    target.markUnknownOpDynamicallyLegal(
        [](Operation *op) { return !blk::hasBlocks(op); });
    target.addIllegalOp<blk::ProgramIdOp, blk::NumProgramsOp>();
    // Atomics on scalar pointers too: executed by one thread, not all.
    target.addIllegalOp<blk::AtomicRMWOp, blk::AtomicCASOp>();
    target.addIllegalOp<blkgpu::ClusterSoftmaxStatsOp, blkgpu::AllReduceOp,
                        blkgpu::AsyncWaitOp>();
    KernelState kernel;
    kernel.numWarps = warps.getInt();
    kernel.numCTAs = numCTAs;
    kernel.smArch = smArch;
    kernel.programsPerCTA = programsPerCTAOf(module);
    RewritePatternSet patterns(context);
    populateGridPatterns(converter, patterns, kernel);
    populateShapePatterns(converter, patterns, kernel);
    populateElementwisePatterns(converter, patterns, kernel, smArch);
    populateMemoryPatterns(converter, patterns, kernel);
    populateReducePatterns(converter, patterns, kernel);
    populateClusterPatterns(converter, patterns, kernel);
    populateArgReducePatterns(converter, patterns, kernel);
    populateAtomicPatterns(converter, patterns, kernel);
    populateScanPatterns(converter, patterns, kernel);
    populateOnChipPatterns(converter, patterns, kernel);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    FrozenRewritePatternSet frozen(std::move(patterns));

    ConversionConfig config;
    // One linear pass: no pattern here needs to be undone.
    config.allowPatternRollback = false;
    // Rewrite exactly what the kernel says; folding is for canonicalize.
    config.foldingMode = DialectConversionFoldingMode::Never;

    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (func.isExternal())
        continue;
      if (failed(checkGPULowering(func)))
        return signalPassFailure();
      AxisAnalysis axis(func);
      kernel.accessWidths = accessWidths(func, axis);
      kernel.comparisonRuns = comparisonRuns(func, axis);
      kernel.rangeBroadcasts = rangeBroadcasts(func);
      kernel.scratch = ScratchArray(func);
      kernel.warpExchange = ScratchArray(func, "__blk_warp_exchange_");
      kernel.warpExchangeCount = Value();
      kernel.clusterBuffer = ScratchArray(func, "__blk_cluster_");
      kernel.clusterBarriers = ScratchArray(func, "__blk_cluster_mbar_");
      kernel.clusterPhase = Value();
      kernel.usesMaskedLoadStandIn = false;
      auto builder = OpBuilder::atBlockBegin(&func.getBody().front());
      Location loc = func.getLoc();
      Type i32 = builder.getI32Type();
      // Each special register carries the range the launch gives it, so
      // LLVM can place a thread's or a CTA's share of a block against a
      // mask bound's range (docs/LAYOUTS.md, "Mask bounds known to a range").
      int64_t threadsPerCTA = threadsPerCTAOf(module);
      kernel.threadId = NVVM::ThreadIdXOp::create(
          builder, loc, i32,
          LLVM::ConstantRangeAttr::get(context, 32, 0, threadsPerCTA));
      Operation *prologueEnd = nullptr;
      if (kernel.programsPerCTA > 1)
        prologueEnd = setUpProgramSlot(builder, loc, func, kernel);
      if (numCTAs > 1) {
        // NVVM's ClusterId is %cluster_ctarank, the CTA's rank in its cluster.
        kernel.ctaRank = NVVM::ClusterId::create(
            builder, loc, i32,
            LLVM::ConstantRangeAttr::get(context, 32, 0, numCTAs));
        kernel.isFirstCTA = arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::eq, kernel.ctaRank,
            i32Constant(builder, loc, 0));
      }
      guardScalarStores(func, kernel);
      if (failed(applyPartialConversion(func, target, frozen, config)))
        return signalPassFailure();
      fenceClusterExchanges(func, kernel);
      if (prologueEnd)
        skipProgramsPastTheGrid(func, prologueEnd);
      if (kernel.usesDynamicShared && kernel.programsPerCTA > 1) {
        func.emitOpError()
            << "keeps a block in dynamic shared memory (too large for "
               "registers), which one program per CTA may do; it runs with "
            << kProgramsPerCTAAttr << " = " << kernel.programsPerCTA
            << " (use 1, or smaller blocks)";
        return signalPassFailure();
      }
      int64_t exchangeBytes =
          kernel.scratch.declaredBytes() + kernel.warpExchange.declaredBytes();
      if (exchangeBytes > kMaxSharedBytes) {
        func.emitOpError() << "needs " << exchangeBytes
                           << " bytes of shared memory to exchange block "
                              "elements between threads"
                           << (kernel.programsPerCTA > 1
                                   ? " (for its " +
                                         std::to_string(kernel.programsPerCTA) +
                                         " programs per CTA)"
                                   : std::string())
                           << "; a CTA has at most " << kMaxSharedBytes
                           << " (use smaller blocks"
                           << (kernel.programsPerCTA > 1
                                   ? " or fewer programs per CTA)"
                                   : ")");
        return signalPassFailure();
      }
      kernel.scratch.declare(module, func.getLoc());
      kernel.warpExchange.declare(module, func.getLoc());
      if (kernel.usesDynamicShared)
        declareDynamicShared(module, func.getLoc());
      if (kernel.usesMaskedLoadStandIn)
        declareMaskedLoadStandIn(module, func.getLoc());
      kernel.clusterBuffer.declare(module, func.getLoc());
      kernel.clusterBarriers.declare(module, func.getLoc());
    }
  }
};

} // namespace
