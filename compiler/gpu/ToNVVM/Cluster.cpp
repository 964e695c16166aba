//===- Cluster.cpp - values exchanged across the CTAs of a cluster -------===//
//
// A program that runs on a thread-block cluster combines per-CTA results
// through distributed shared memory: each CTA stores its tuple into a slot
// of every CTA's cluster buffer (mapa + st.shared::cluster), one cluster
// barrier (arrive.release / wait.acquire) publishes the stores, then each
// CTA reads the slots from its own shared memory. The buffer has two halves
// used in turn: exchange n writes half n % 2, and a CTA can only start
// exchange n + 2 after the barrier of exchange n + 1, which every CTA
// reaches after reading exchange n, so one barrier per exchange suffices.
// The halves interleave slot by slot, so that exchanges of different sizes
// (a softmax's pair, a reduction's one value, a 2-D block's lines) never
// write into the slots their neighbour reads.
//
//===----------------------------------------------------------------------===//
#include "compiler/Reduction.h"
#include "compiler/gpu/ToNVVM/Lowering.h"

#include "dialect/gpu/BlkGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace blockjit::nvvm {
namespace {

void clusterBarrier(OpBuilder &builder, Location loc) {
  // Release by the arrive, acquire by the wait (the PTX defaults); the
  // forms without .aligned, as cooperative groups' cluster.sync() emits.
  NVVM::ClusterArriveOp::create(builder, loc, UnitAttr());
  NVVM::ClusterWaitOp::create(builder, loc, UnitAttr());
}

/// The phase variable, made at the kernel's entry on first use.
Value clusterPhase(OpBuilder &builder, Location loc, KernelState &kernel) {
  if (kernel.clusterPhase)
    return kernel.clusterPhase;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointAfter(kernel.isFirstCTA.getDefiningOp());
  Type i32 = builder.getI32Type();
  auto ptrType = LLVM::LLVMPointerType::get(builder.getContext());
  Value one = arith::ConstantIntOp::create(builder, loc, 1, 64);
  kernel.clusterPhase = LLVM::AllocaOp::create(builder, loc, ptrType, i32, one);
  LLVM::StoreOp::create(builder, loc, i32Constant(builder, loc, 0),
                        kernel.clusterPhase);
  return kernel.clusterPhase;
}

/// This exchange's phase (0 or 1), flipped for the next exchange.
Value exchangePhase(OpBuilder &builder, Location loc, KernelState &kernel) {
  Value phaseVar = clusterPhase(builder, loc, kernel);
  Value phase =
      LLVM::LoadOp::create(builder, loc, builder.getI32Type(), phaseVar);
  LLVM::StoreOp::create(
      builder, loc,
      arith::XOrIOp::create(builder, loc, phase, i32Constant(builder, loc, 1)),
      phaseVar);
  return phase;
}

/// Slot `index` of the half `phase` of the cluster buffer (a shared-memory
/// pointer). The halves interleave (slot i of phase p at 2i + p), so
/// exchanges of different sizes never overlap their neighbours.
Value clusterSlot(OpBuilder &builder, Location loc, Value buffer, Value phase,
                  Value index) {
  Value interleaved = arith::AddIOp::create(
      builder, loc,
      arith::ShLIOp::create(builder, loc, index, i32Constant(builder, loc, 1)),
      phase);
  Value offset = arith::MulIOp::create(
      builder, loc, interleaved, i32Constant(builder, loc, kClusterSlotBytes));
  return LLVM::GEPOp::create(
      builder, loc, LLVM::LLVMPointerType::get(builder.getContext(), 3),
      builder.getI8Type(), buffer, ValueRange{offset});
}

} // namespace

SmallVector<Value> combineAcrossCTAs(
    OpBuilder &builder, Location loc, KernelState &kernel, ValueRange values,
    function_ref<SmallVector<Value>()> identity,
    function_ref<SmallVector<Value>(ValueRange, ValueRange)> combine) {
  assert(kernel.numCTAs > 1 && "a cluster exchange needs a cluster");
  auto i32 = [&](int64_t v) { return i32Constant(builder, loc, v); };
  int64_t numCTAs = kernel.numCTAs;
  int64_t halfSlots = numCTAs * int64_t(values.size());
  auto clusterPtr = LLVM::LLVMPointerType::get(builder.getContext(), 7);
  Value buffer = kernel.clusterBuffer.get(builder, loc, builder.getI8Type(),
                                          2 * halfSlots * kClusterSlotBytes);

  Value phase = exchangePhase(builder, loc, kernel);
  // Slot of component c from CTA r: c * numCTAs + r.
  auto slot = [&](int64_t component, Value rank) {
    return clusterSlot(
        builder, loc, buffer, phase,
        arith::AddIOp::create(builder, loc, rank, i32(component * numCTAs)));
  };

  // Thread t < numCTAs writes this CTA's tuple into CTA t's buffer.
  Value writer = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult,
                                       kernel.threadId, i32(numCTAs));
  {
    OpBuilder::InsertionGuard guard(builder);
    auto ifOp = scf::IfOp::create(builder, loc, writer);
    builder.setInsertionPointToStart(ifOp.thenBlock());
    for (auto [c, v] : llvm::enumerate(values)) {
      Value local = slot(int64_t(c), kernel.ctaRank);
      Value remote = NVVM::MapaOp::create(builder, loc, clusterPtr, local,
                                          kernel.threadId);
      LLVM::StoreOp::create(builder, loc, v, remote);
    }
  }
  clusterBarrier(builder, loc);
  SmallVector<Value> total = identity();
  for (int64_t r = 0; r < numCTAs; ++r) {
    SmallVector<Value> next;
    for (auto [c, v] : llvm::enumerate(values))
      next.push_back(LLVM::LoadOp::create(builder, loc, v.getType(),
                                          slot(int64_t(c), i32(r))));
    total = combine(total, next);
  }
  return total;
}

SmallVector<Value>
combineLinesAcrossCTAs(OpBuilder &builder, Location loc, KernelState &kernel,
                       ValueRange partials, int64_t threads, int64_t threadMask,
                       int64_t ctaMask,
                       function_ref<Value(Value, Value)> combine) {
  assert(kernel.numCTAs > 1 && ctaMask && "a cluster exchange needs a cluster");
  auto i32 = [&](int64_t v) { return i32Constant(builder, loc, v); };
  int64_t numCTAs = kernel.numCTAs;
  int64_t groups = int64_t(partials.size());
  Type accType = partials.front().getType();
  // The axis's thread bits are one dimension's, contiguous: a thread is
  // (its position along them, the rest of its bits), the latter naming the
  // lines it holds.
  int64_t axisThreadBits = llvm::popcount(uint64_t(threadMask));
  int64_t low = threadMask ? llvm::countr_zero(uint64_t(threadMask)) : 0;
  int64_t writers = threads >> axisThreadBits;
  int64_t alongAxis = int64_t(1) << axisThreadBits;
  Value threadId = kernel.threadId;
  Value position = arith::ShRUIOp::create(
      builder, loc,
      arith::AndIOp::create(builder, loc, threadId, i32(threadMask)), i32(low));
  Value lines = withoutBits(builder, loc, threadId, threadMask);

  // Slot of group g from CTA r, for the lines `lines` names:
  // (r * groups + g) * writers + lines.
  int64_t halfSlots = numCTAs * groups * writers;
  Value buffer = kernel.clusterBuffer.get(builder, loc, builder.getI8Type(),
                                          2 * halfSlots * kClusterSlotBytes);
  Value phase = exchangePhase(builder, loc, kernel);
  auto clusterPtr = LLVM::LLVMPointerType::get(builder.getContext(), 7);
  auto slot = [&](Value rank, int64_t group) {
    Value index = arith::AddIOp::create(
        builder, loc, lines,
        arith::MulIOp::create(
            builder, loc,
            arith::AddIOp::create(
                builder, loc,
                arith::MulIOp::create(builder, loc, rank, i32(groups)),
                i32(group)),
            i32(writers)));
    return clusterSlot(builder, loc, buffer, phase, index);
  };

  // The thread at `position` along the axis writes its lines' partials to
  // CTAs position, position + alongAxis, ...: every CTA once.
  {
    OpBuilder::InsertionGuard guard(builder);
    if (alongAxis > numCTAs) {
      auto ifOp = scf::IfOp::create(
          builder, loc,
          arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult,
                                position, i32(numCTAs)));
      builder.setInsertionPointToStart(ifOp.thenBlock());
    }
    for (int64_t first = 0; first < numCTAs; first += alongAxis) {
      Value target = arith::AddIOp::create(builder, loc, position, i32(first));
      for (auto [g, partial] : llvm::enumerate(partials)) {
        Value remote = NVVM::MapaOp::create(
            builder, loc, clusterPtr, slot(kernel.ctaRank, int64_t(g)), target);
        LLVM::StoreOp::create(builder, loc, partial, remote);
      }
    }
  }
  clusterBarrier(builder, loc);
  // The CTAs holding this CTA's lines: its rank with any ctaMask bits, in
  // increasing order.
  Value others =
      arith::AndIOp::create(builder, loc, kernel.ctaRank, i32(~ctaMask));
  SmallVector<Value> totals(groups);
  for (int64_t sub = 0;; sub = (sub - ctaMask) & ctaMask) {
    Value rank = arith::OrIOp::create(builder, loc, others, i32(sub));
    for (int64_t g = 0; g < groups; ++g) {
      Value next = LLVM::LoadOp::create(builder, loc, accType, slot(rank, g));
      totals[g] = totals[g] ? combine(totals[g], next) : next;
    }
    if (sub == ctaMask)
      break;
  }
  return totals;
}

namespace {

/// The online softmax merge of per-CTA (max, sum of exp(x - max)) pairs, in
/// rank order: m = max(m1, m2), s = s1 * exp(m1 - m) + s2 * exp(m2 - m), a
/// pair whose max is -inf adding 0 (its sum is 0, and exp(-inf - -inf) is
/// NaN). NaN propagates through the max, hence through the sum.
struct ClusterSoftmaxStatsLowering
    : KernelOpLowering<blkgpu::ClusterSoftmaxStatsOp> {
  using KernelOpLowering::KernelOpLowering;

  LogicalResult
  matchAndRewrite(blkgpu::ClusterSoftmaxStatsOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getMax().getType();
    using blk::ReduceKind;
    // -inf and 0: the identities of max and sum.
    Value minusInf = reductionIdentity(rewriter, loc, ReduceKind::Max, type);
    Value zero = reductionIdentity(rewriter, loc, ReduceKind::Sum, type);
    auto identity = [&] { return SmallVector<Value>{minusInf, zero}; };
    auto term = [&](Value max, Value sum, Value total) -> Value {
      Value empty = arith::CmpFOp::create(
          rewriter, loc, arith::CmpFPredicate::OEQ, max, minusInf);
      Value scaled = arith::MulFOp::create(
          rewriter, loc, sum,
          math::ExpOp::create(rewriter, loc,
                              arith::SubFOp::create(rewriter, loc, max, total)));
      return arith::SelectOp::create(rewriter, loc, empty, zero, scaled);
    };
    auto combine = [&](ValueRange a, ValueRange b) {
      Value max = combineReduction(rewriter, loc, ReduceKind::Max, a[0], b[0]);
      Value sum = combineReduction(rewriter, loc, ReduceKind::Sum,
                                   term(a[0], a[1], max), term(b[0], b[1], max));
      return SmallVector<Value>{max, sum};
    };
    ValueRange localMax = adaptor.getLocalMax(), localSum = adaptor.getLocalSum();
    SmallVector<Value> stats = combineAcrossCTAs(
        rewriter, loc, kernel, ValueRange{localMax[0], localSum[0]}, identity,
        combine);
    rewriter.replaceOp(op, stats);
    return success();
  }
};

} // namespace

void populateClusterPatterns(const BlockTypeConverter &converter,
                             RewritePatternSet &patterns, KernelState &kernel) {
  patterns.add<ClusterSoftmaxStatsLowering>(converter, patterns.getContext(),
                                            kernel);
}

void fenceClusterExchanges(func::FuncOp func, KernelState &kernel) {
  if (!kernel.clusterPhase)
    return;
  Location loc = func.getLoc();
  OpBuilder builder(func.getContext());
  builder.setInsertionPointAfter(kernel.clusterPhase.getDefiningOp());
  clusterBarrier(builder, loc);
  func.walk([&](func::ReturnOp ret) {
    builder.setInsertionPoint(ret);
    clusterBarrier(builder, loc);
  });
}

} // namespace blockjit::nvvm
