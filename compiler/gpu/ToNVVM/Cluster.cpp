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

/// Each component of a tuple gets an 8-byte slot: every scalar fits.
constexpr int64_t kSlotBytes = 8;

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

} // namespace

SmallVector<Value> combineAcrossCTAs(
    OpBuilder &builder, Location loc, KernelState &kernel, ValueRange values,
    function_ref<SmallVector<Value>()> identity,
    function_ref<SmallVector<Value>(ValueRange, ValueRange)> combine) {
  assert(kernel.numCTAs > 1 && "a cluster exchange needs a cluster");
  auto i32 = [&](int64_t v) { return i32Constant(builder, loc, v); };
  int64_t numCTAs = kernel.numCTAs;
  int64_t halfSlots = numCTAs * int64_t(values.size());
  Type i8 = builder.getI8Type();
  auto sharedPtr = LLVM::LLVMPointerType::get(builder.getContext(), 3);
  auto clusterPtr = LLVM::LLVMPointerType::get(builder.getContext(), 7);
  Value buffer =
      kernel.clusterBuffer.get(builder, loc, i8, 2 * halfSlots * kSlotBytes);

  // This exchange's half, and the next exchange's.
  Value phaseVar = clusterPhase(builder, loc, kernel);
  Type i32Type = builder.getI32Type();
  Value phase = LLVM::LoadOp::create(builder, loc, i32Type, phaseVar);
  LLVM::StoreOp::create(builder, loc,
                        arith::XOrIOp::create(builder, loc, phase, i32(1)),
                        phaseVar);
  Value half = arith::MulIOp::create(builder, loc, phase, i32(halfSlots));
  // Slot of component c from CTA r: half + c * numCTAs + r.
  auto slot = [&](int64_t component, Value rank) {
    Value index = arith::AddIOp::create(
        builder, loc, half,
        arith::AddIOp::create(builder, loc, rank,
                              i32(component * numCTAs)));
    Value offset = arith::MulIOp::create(builder, loc, index, i32(kSlotBytes));
    return LLVM::GEPOp::create(builder, loc, sharedPtr, i8, buffer,
                               ValueRange{offset});
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
