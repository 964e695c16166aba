//===- Atomics.cpp - atomics executed exactly once per element -----------===//
//
// A block smaller than a program's threads is replicated: several threads
// hold each element (Layout1D::replicated). A store tolerates that, an
// atomic must not: only the owner of an element (raw index < size) executes
// its atomic, and when the old values are used, the owners publish them in
// the scratch array for the replicas to read. An atomic on a scalar pointer
// is executed by thread 0 and its old value broadcast the same way. Masked
// lanes touch no memory and give 0.
//
// Ordering: NVPTX (LLVM 22) emits cmpxchg with its ordering and scope
// (atom.acq_rel.gpu.cas) but every atomicrmw as a relaxed, GPU-scope atom,
// whatever its ordering; so a read-modify-write is fenced (fence.acq_rel.gpu
// or .cta) before the first element of the thread (release) and after the
// last (acquire), which orders them with everything else the thread does as
// the op's sem asks. A CTA-scope atomicrmw thus executes at GPU scope, which
// is stronger.
//
//===----------------------------------------------------------------------===//
#include "compiler/Atomics.h"
#include "compiler/gpu/ToNVVM/Lowering.h"

#include "dialect/BlkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace blockjit::nvvm {
namespace {

/// NVPTX's name of a scope: the program (CTA) or the whole GPU.
StringRef syncScope(blk::MemScope scope) {
  return scope == blk::MemScope::Cta ? "block" : "device";
}

template <typename Op> struct AtomicLowering : KernelOpLowering<Op> {
  using KernelOpLowering<Op>::KernelOpLowering;
  using KernelOpLowering<Op>::kernel;

  LogicalResult
  matchAndRewrite(Op op,
                  typename OpConversionPattern<Op>::OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type element = blk::elementTypeOf(op.getType());
    ValueRange ptrs = adaptor.getPtr(), values = adaptor.getValue();
    ValueRange masks = adaptor.getMask();
    ValueRange cmps;
    if constexpr (std::is_same_v<Op, blk::AtomicCASOp>)
      cmps = adaptor.getCmp();
    bool used = !op.getResult().use_empty();
    Value threadId = kernel.threadId;
    StringRef scope = syncScope(op.getScope());
    blk::MemSem sem = op.getSem();

    // The old value of element k where `executes` (else 0).
    auto atomicAt = [&](int64_t k, Value executes) -> Value {
      auto emit = [&]() {
        return emitAtomic(rewriter, loc, op,
                          toLLVMPointer(rewriter, loc, ptrs[k]), values[k],
                          cmps.empty() ? Value() : cmps[k], scope);
      };
      if (!executes)
        return emit();
      auto ifOp = scf::IfOp::create(rewriter, loc, element, executes,
                                    /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(rewriter, loc, emit());
      rewriter.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(rewriter, loc,
                           Value(arith::ConstantOp::create(
                               rewriter, loc, rewriter.getZeroAttr(element))));
      return ifOp.getResult(0);
    };
    auto both = [&](Value a, Value b) -> Value {
      if (!a || !b)
        return a ? a : b;
      return arith::AndIOp::create(rewriter, loc, a, b);
    };
    auto ptrType = LLVM::LLVMPointerType::get(rewriter.getContext(), 3);
    // Owners write their old values to the scratch array at `slots`; after
    // a barrier every thread reads its elements' from `reads`; a second
    // barrier lets the array be reused.
    auto exchange = [&](ArrayRef<Value> olds, ArrayRef<Value> owners,
                        ArrayRef<Value> slots, ArrayRef<Value> reads,
                        int64_t count) {
      Value smem = kernel.scratch.get(rewriter, loc, element, count);
      for (auto [old, owner, slot] : llvm::zip(olds, owners, slots)) {
        OpBuilder::InsertionGuard guard(rewriter);
        auto ifOp = scf::IfOp::create(rewriter, loc, owner);
        rewriter.setInsertionPointToStart(ifOp.thenBlock());
        Value address = LLVM::GEPOp::create(rewriter, loc, ptrType, element,
                                            smem, ValueRange{slot});
        LLVM::StoreOp::create(rewriter, loc, old, address);
      }
      programBarrier(rewriter, loc, kernel);
      SmallVector<Value> result;
      for (Value read : reads)
        result.push_back(readShared(rewriter, loc, smem, element, read));
      programBarrier(rewriter, loc, kernel);
      return result;
    };

    // See the file comment: NVPTX drops the ordering of atomicrmw. A
    // release fence before for release and acq_rel, an acquire fence after
    // for acquire and acq_rel, none for relaxed.
    constexpr bool fenced = std::is_same_v<Op, blk::AtomicRMWOp>;
    auto fence = [&](LLVM::AtomicOrdering ordering) {
      bool wanted =
          ordering == LLVM::AtomicOrdering::release
              ? sem == blk::MemSem::Release || sem == blk::MemSem::AcqRel
              : sem == blk::MemSem::Acquire || sem == blk::MemSem::AcqRel;
      if (fenced && wanted)
        LLVM::FenceOp::create(rewriter, loc, ordering, scope);
    };

    fence(LLVM::AtomicOrdering::release);
    if (!blk::isBlock(op.getType())) {
      // A scalar pointer: thread 0 executes, everyone gets its old value.
      Value first =
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                threadId, i32Constant(rewriter, loc, 0));
      Value old = atomicAt(0, both(first, masks.empty() ? Value() : masks[0]));
      fence(LLVM::AtomicOrdering::acquire);
      if (used) {
        Value zero = i32Constant(rewriter, loc, 0);
        old = exchange({old}, {first}, {zero}, {zero}, 1).front();
      }
      rewriter.replaceOpWithMultiple(op, {{old}});
      return success();
    }

    Layout1D layout = layoutOf(cast<RankedTensorType>(op.getType()));
    SmallVector<Value> olds, owners, raws;
    for (int64_t k = 0; k < layout.perThread(); ++k) {
      Value owner;
      if (layout.replicated()) {
        // Raw indices past the block are replicas of their element.
        raws.push_back(rawElementIndex(rewriter, loc, threadId, layout, k));
        owner = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                      raws.back(),
                                      i32Constant(rewriter, loc, layout.size));
        owners.push_back(owner);
      }
      olds.push_back(
          atomicAt(k, both(owner, masks.empty() ? Value() : masks[k])));
    }
    fence(LLVM::AtomicOrdering::acquire);
    if (layout.replicated() && used) {
      SmallVector<Value> reads;
      for (int64_t k = 0; k < layout.perThread(); ++k)
        reads.push_back(elementIndex(rewriter, loc, threadId, layout, k));
      olds = exchange(olds, owners, raws, reads, layout.size);
    }
    rewriter.replaceOpWithMultiple(op, {olds});
    return success();
  }
};

} // namespace

void populateAtomicPatterns(const BlockTypeConverter &converter,
                            RewritePatternSet &patterns, KernelState &kernel) {
  patterns
      .add<AtomicLowering<blk::AtomicRMWOp>, AtomicLowering<blk::AtomicCASOp>>(
          converter, patterns.getContext(), kernel);
}

} // namespace blockjit::nvvm
