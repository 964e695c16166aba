//===- Reduce.cpp - reductions: in-thread, shuffles, shared memory -------===//
#include "compiler/Reduction.h"
#include "compiler/gpu/ToNVVM/Lowering.h"

#include "dialect/BlkDialect.h"
#include "dialect/gpu/BlkGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace blockjit::nvvm {

/// Which half of kernel.warpExchange the next reduction across warps uses:
/// they take turns, counted in a local variable made at the kernel's entry
/// on first use (every thread runs the same reductions, so the count is the
/// same in all).
static Value nextWarpExchangeHalf(OpBuilder &builder, Location loc,
                                  KernelState &kernel) {
  Block &entry = builder.getInsertionBlock()
                     ->getParent()
                     ->getParentOfType<func::FuncOp>()
                     .getBody()
                     .front();
  Value count = countExchange(builder, loc, kernel.warpExchangeCount,
                              OpBuilder::InsertPoint(&entry, entry.begin()));
  return arith::AndIOp::create(builder, loc, count,
                               i32Constant(builder, loc, 1));
}

/// Lane 0 of each warp writes its tuple to a half of the warp exchange
/// array (one section per component, indexed by warp), a barrier, then
/// every thread combines the warps' tuples in warp order from `identity()`.
/// Consecutive reductions take the two halves in turn, so none waits for
/// the readers of the one before: a softmax row's max and sum take two
/// barriers instead of four (H200, bf16 32768 x 32768, one CTA of 16 warps:
/// 4043 -> 4113 GB/s). A tuple too large for a small half goes through the
/// scratch array, with a second barrier that makes the array's next use
/// wait for the readers. (Cluster kernels once took the scratch array too:
/// the halves made them 9-11 % slower, but only because the halves moved
/// the dynamic shared memory after them off a 32-byte boundary; see
/// declareDynamicShared.)
SmallVector<Value> combineAcrossWarps(
    OpBuilder &builder, Location loc, KernelState &kernel, ValueRange values,
    function_ref<SmallVector<Value>()> identity,
    function_ref<SmallVector<Value>(ValueRange, ValueRange)> combine) {
  auto i32 = [&](int64_t v) { return i32Constant(builder, loc, v); };
  // Section i starts after the sections of components 0..i-1, at a
  // multiple of 16 bytes (its warps are read as vectors).
  SmallVector<int64_t> offsets;
  int64_t bytes = 0;
  for (Value v : values) {
    offsets.push_back(llvm::alignTo(bytes, 16));
    bytes = offsets.back() + kernel.numWarps * blk::elementBytes(v.getType());
  }
  Type i8 = builder.getI8Type();
  auto ptrType = LLVM::LLVMPointerType::get(builder.getContext(), 3);
  // 32 warps' pairs of 64-bit values: a reduction's tuple, not a block's.
  constexpr int64_t kMaxHalfBytes = 512;
  bool inHalves = bytes <= kMaxHalfBytes;
  Value smem = inHalves ? kernel.warpExchange.getHalf(
                              builder, loc, i8, bytes,
                              nextWarpExchangeHalf(builder, loc, kernel))
                        : kernel.scratch.get(builder, loc, i8, bytes);
  SmallVector<Value> sections;
  for (int64_t offset : offsets)
    sections.push_back(
        offset ? LLVM::GEPOp::create(builder, loc, ptrType, i8, smem,
                                     ArrayRef<LLVM::GEPArg>{int32_t(offset)})
                     .getResult()
               : smem);
  Value threadId = kernel.threadId;
  Value lane =
      arith::AndIOp::create(builder, loc, threadId, i32(kWarpSize - 1));
  Value warp = arith::ShRUIOp::create(builder, loc, threadId,
                                      i32(llvm::Log2_32(kWarpSize)));
  Value isLeader = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                         lane, i32(0));
  {
    OpBuilder::InsertionGuard guard(builder);
    auto ifOp = scf::IfOp::create(builder, loc, isLeader);
    builder.setInsertionPointToStart(ifOp.thenBlock());
    for (auto [v, section] : llvm::zip(values, sections)) {
      Value slot = LLVM::GEPOp::create(builder, loc, ptrType, v.getType(),
                                       section, ValueRange{warp});
      LLVM::StoreOp::create(builder, loc, v, slot);
    }
  }
  programBarrier(builder, loc, kernel);
  // Each section's warps side by side: read in vectors, combined in warp
  // order.
  SmallVector<SmallVector<Value>> perSection;
  for (auto [v, section] : llvm::zip(values, sections))
    perSection.push_back(
        loadSharedRun(builder, loc, section, v.getType(), kernel.numWarps));
  SmallVector<Value> total = identity();
  for (int w = 0; w < kernel.numWarps; ++w) {
    SmallVector<Value> next;
    for (SmallVector<Value> &section : perSection)
      next.push_back(section[w]);
    total = combine(total, next);
  }
  if (!inHalves)
    programBarrier(builder, loc, kernel);
  return total;
}

namespace {

/// Partials a thread folds its registers into (combineInterleaved). Measured
/// on the H200 (same binary, the kernel alone, bf16 softmax):
/// - one CTA per program: 4 interleaved partials cut a 128-register chain
///   to 33, and 32768 x 12288 at 4 warps, one program per row, ran 4009
///   GB/s with them and 3460 with one chain;
/// - clusters: one chain, as 4 partials ran slower at the tuned long-row
///   configs (200000 on 16 CTAs 3962 -> 3672 GB/s: 168 registers instead of
///   180 let 3 CTAs share an SM instead of 2; 262144, 131072 and 32768
///   0.3-1.2 % slower); f32 the same either way.
int64_t inThreadPartials(const KernelState &kernel) {
  return kernel.numCTAs > 1 ? 1 : 4;
}

/// The bf16 or f16 value that `value` widens (an arith.extf of one), or
/// null.
Value narrowBeforeWidening(Value value) {
  auto ext = value.getDefiningOp<arith::ExtFOp>();
  if (!ext)
    return {};
  Type from = ext.getIn().getType();
  return from.isBF16() || from.isF16() ? ext.getIn() : Value();
}

/// A thread's `values` combined into one (combineInterleaved with
/// inThreadPartials). A max or min of values widened from bf16 or f16
/// combines them first two at a time in their own type (sm_80's
/// max.NaN.bf16x2 and kin), then widens the pair's two halves: widening is
/// exact and keeps the order (-0 below +0, a NaN wins either way), so the
/// result is the same in about half the instructions (bf16 262144 on 16
/// CTAs of 4 warps: 128 max.f32 a thread become 64 max.bf16x2). Below 8
/// values the two widenings at the end cost what the pairs save.
Value combineInThread(OpBuilder &builder, Location loc,
                      const KernelState &kernel, blk::ReduceKind kind,
                      ArrayRef<Value> values) {
  int64_t partials = inThreadPartials(kernel);
  auto plain = [&] {
    return combineInterleaved(builder, loc, kind, values, partials);
  };
  if (kind == blk::ReduceKind::Sum || kernel.smArch < 80 || values.size() < 8)
    return plain();
  SmallVector<Value> narrow;
  for (Value v : values) {
    Value n = narrowBeforeWidening(v);
    if (!n || (!narrow.empty() && n.getType() != narrow.front().getType()))
      return plain();
    narrow.push_back(n);
  }
  auto pairType = VectorType::get({2}, narrow.front().getType());
  SmallVector<Value> pairs;
  for (size_t k = 0; k + 1 < narrow.size(); k += 2) {
    Value pair = LLVM::PoisonOp::create(builder, loc, pairType);
    for (int64_t half : {0, 1})
      pair = LLVM::InsertElementOp::create(builder, loc, pair, narrow[k + half],
                                           i32Constant(builder, loc, half));
    pairs.push_back(pair);
  }
  Value packed = combineInterleaved(builder, loc, kind, pairs, partials);
  Type wide = values.front().getType();
  SmallVector<Value> halves;
  for (int64_t half : {0, 1})
    halves.push_back(arith::ExtFOp::create(
        builder, loc, wide,
        LLVM::ExtractElementOp::create(builder, loc, packed,
                                       i32Constant(builder, loc, half))
            .getResult()));
  if (narrow.size() % 2)
    halves.push_back(values.back());
  return combineInterleaved(builder, loc, kind, halves, 1);
}

/// `value`, computed before the barriers that follow. A CTA-local line total
/// of a block split over the cluster feeds only the line's exchange (a
/// fused softmax's sum): where only the threads that send it use it, after
/// the barrier that opens the exchange, LLVM would sink its combine there,
/// keeping every warp's loaded partials live across the barrier instead of
/// the total (16 warps, 8 CTAs, 16 f32 columns: 116 -> 83 registers). An
/// opaque copy (a side-effect mov) pins it. Pinning the cluster-wide
/// all_reduces' totals too cut registers but measured slower on chunked
/// softmax_columns configs (fp32 32768 x 4096: 2621 -> 2440 GB/s).
Value computedHere(OpBuilder &builder, Location loc, Value value) {
  Type type = value.getType();
  if (type.isF32())
    return inlinePtx(builder, loc, "mov.b32 $0, $1;", "=f,f", value, type);
  if (type.isInteger(32))
    return inlinePtx(builder, loc, "mov.b32 $0, $1;", "=r,r", value, type);
  return value;
}

/// reduce of a 1-D block to a scalar that every thread gets: combined
/// in-thread, then across the warp with butterfly shuffles, then across
/// warps through shared memory, then (a block split over a cluster) across
/// CTAs through distributed shared memory.
Value reduce1D(OpBuilder &builder, Location loc, KernelState &kernel,
               blk::ReduceOp reduce, ValueRange xs) {
  RankedTensorType srcType = reduce.getSrc().getType();
  Layout1D layout = layoutOf(srcType);
  Type element = srcType.getElementType();
  Type accType = reductionAccumulatorType(element);
  bool widen = accType != element;
  blk::ReduceKind kind = reduce.getKind();
  Value threadId = kernel.threadId;
  auto i32 = [&](int64_t v) { return i32Constant(builder, loc, v); };

  // 1. In-thread (inThreadPartials); replicas of small blocks contribute
  // the identity.
  SmallVector<Value> owned;
  for (int64_t k = 0; k < layout.perThread(); ++k) {
    Value x = xs[k];
    if (widen)
      x = arith::ExtFOp::create(builder, loc, accType, x);
    if (layout.replicated()) {
      Value valid = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::slt,
          rawElementIndex(builder, loc, threadId, layout, k), i32(layout.size));
      x = arith::SelectOp::create(
          builder, loc, valid, x,
          reductionIdentity(builder, loc, kind, accType));
    }
    owned.push_back(x);
  }
  Value acc = combineInThread(builder, loc, kernel, kind, owned);
  // 2. Across the warp: butterfly shuffles (64-bit values in two halves).
  for (int offset = kWarpSize / 2; offset >= 1; offset /= 2) {
    Value other = warpShuffle(builder, loc, acc, offset, NVVM::ShflKind::bfly);
    acc = combineReduction(builder, loc, kind, acc, other);
  }
  // 3. Across warps, then 4. (a block split over a cluster) across CTAs.
  auto identity = [&] {
    return SmallVector<Value>{reductionIdentity(builder, loc, kind, accType)};
  };
  auto combine = [&](ValueRange total, ValueRange next) {
    return SmallVector<Value>{
        combineReduction(builder, loc, kind, total[0], next[0])};
  };
  if (kernel.numWarps > 1)
    acc = combineAcrossWarps(builder, loc, kernel, acc, identity, combine)[0];
  // blkgpu.cta_local: the CTA's piece only (blk-fuse-cluster-softmax).
  if (layout.split() &&
      !reduce->hasAttr(blkgpu::BlkGPUDialect::kCTALocalAttrName))
    acc = combineAcrossCTAs(builder, loc, kernel, acc, identity, combine)[0];
  if (widen)
    acc = arith::TruncFOp::create(builder, loc, element, acc);
  return acc;
}

/// blkgpu.all_reduce: every element gets the reduction of its line along
/// `axis`. The block is distributed by its row-major linear index, whose
/// bits are the coordinates' bits (power-of-two shapes), and Layout1D puts
/// each index bit in a register, thread or CTA bit (axisBitsOf): the axis's
/// bits in registers combine in-thread, those in lanes with butterfly
/// shuffles, those in warps through shared memory and those in the CTAs of
/// a cluster through distributed shared memory. No element changes
/// threads, and every holder of a line gets the same bits (commutative
/// combines; warps and CTAs in order).
SmallVector<Value> allReduce(OpBuilder &builder, Location loc,
                             KernelState &kernel, RankedTensorType type,
                             blk::ReduceKind kind, int64_t axis, ValueRange xs,
                             bool acrossCTAs = true) {
  Layout1D layout = layoutOf(type);
  Type element = type.getElementType();
  Type accType = reductionAccumulatorType(element);
  auto i32 = [&](int64_t v) { return i32Constant(builder, loc, v); };
  auto [registerMask, threadMask, axisCTAMask] =
      axisBitsOf(type.getShape(), layout, axis);
  // blkgpu.cta_local: the lines over the CTA's piece only.
  int64_t ctaMask = acrossCTAs ? axisCTAMask : 0;
  int64_t laneBits = llvm::Log2_64(kWarpSize);
  int64_t laneMask = threadMask & ((int64_t(1) << laneBits) - 1);
  int64_t warpMask = threadMask & ~laneMask;

  // 1. In-thread: each group of registers that differ only in the axis's
  // register bits, combined in register order.
  SmallVector<int64_t> leaders;
  SmallVector<Value> partials;
  for (int64_t k = 0; k < layout.perThread(); ++k) {
    if (k & registerMask)
      continue;
    SmallVector<Value> group;
    // Every subset of registerMask, in increasing order.
    for (int64_t sub = 0;; sub = (sub - registerMask) & registerMask) {
      Value x = xs[k | sub];
      if (accType != element)
        x = arith::ExtFOp::create(builder, loc, accType, x);
      group.push_back(x);
      if (sub == registerMask)
        break;
    }
    leaders.push_back(k);
    partials.push_back(combineInThread(builder, loc, kernel, kind, group));
  }
  // 2. Across the lanes that hold the line: butterfly shuffles.
  for (int64_t bit = 0; bit < laneBits; ++bit)
    if (laneMask & (int64_t(1) << bit))
      for (Value &acc : partials)
        acc = combineReduction(builder, loc, kind, acc,
                               warpShuffle(builder, loc, acc, int64_t(1) << bit,
                                           NVVM::ShflKind::bfly));
  // 3. Across the warps that hold the line: the lanes whose axis lane bits
  // are 0 (all lanes hold the same partials after 2.) write them to the
  // scratch array, slot (group, thread without those bits); after a
  // barrier, every thread combines the slots of its line's warps in warp
  // order; a barrier then frees the array. Groups go in rounds of at most
  // kRoundBytes.
  if (warpMask) {
    constexpr int64_t kRoundBytes = 16384;
    int64_t laneAxisBits = llvm::popcount(uint64_t(laneMask));
    int64_t writers = layout.threads >> laneAxisBits;
    int64_t bytes = blk::elementBytes(accType);
    int64_t perRound = std::max<int64_t>(1, kRoundBytes / (writers * bytes));
    int64_t groups = int64_t(partials.size());
    Value smem = kernel.scratch.get(builder, loc, accType,
                                    std::min(groups, perRound) * writers);
    auto ptrType = LLVM::LLVMPointerType::get(builder.getContext(), 3);
    // The axis's lane bits are contiguous (one dimension's bits): drop them.
    auto compact = [&](Value thread) {
      return withoutBits(builder, loc, thread, laneMask);
    };
    Value threadId = kernel.threadId;
    Value writer = compact(threadId);
    Value isWriter = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::eq,
        arith::AndIOp::create(builder, loc, threadId, i32(laneMask)), i32(0));
    Value others = arith::AndIOp::create(builder, loc, threadId,
                                         i32(~(warpMask | laneMask)));
    int64_t warpLow = llvm::countr_zero(uint64_t(warpMask));
    int64_t warps = int64_t(1) << llvm::popcount(uint64_t(warpMask));
    // A writer's groups of a round lie side by side (slot writer * count +
    // g): written and read in vectors of up to 16 bytes, so a thread reads
    // each warp's groups in count / 4 (f32) loads rather than count.
    auto run = [&](Value thread, int64_t count) {
      Value first = arith::MulIOp::create(builder, loc, thread, i32(count));
      return LLVM::GEPOp::create(builder, loc, ptrType, accType, smem,
                                 ValueRange{first});
    };
    for (int64_t first = 0; first < groups; first += perRound) {
      int64_t count = std::min(perRound, groups - first);
      {
        OpBuilder::InsertionGuard guard(builder);
        auto ifOp = scf::IfOp::create(builder, loc, isWriter);
        builder.setInsertionPointToStart(ifOp.thenBlock());
        storeSharedRun(builder, loc, run(writer, count),
                       ArrayRef<Value>(partials).slice(first, count));
      }
      programBarrier(builder, loc, kernel);
      SmallVector<Value> totals(count);
      for (int64_t w = 0; w < warps; ++w) {
        Value thread =
            arith::OrIOp::create(builder, loc, others, i32(w << warpLow));
        SmallVector<Value> xs = loadSharedRun(
            builder, loc, run(compact(thread), count), accType, count);
        for (int64_t g = 0; g < count; ++g)
          totals[g] =
              totals[g] ? combineReduction(builder, loc, kind, totals[g], xs[g])
                        : xs[g];
      }
      for (int64_t g = 0; g < count; ++g)
        partials[first + g] = axisCTAMask && !acrossCTAs
                                  ? computedHere(builder, loc, totals[g])
                                  : totals[g];
      programBarrier(builder, loc, kernel);
    }
  }
  // 4. Across the CTAs that hold the line (a block split over a cluster
  // along the axis): through distributed shared memory.
  if (ctaMask)
    partials = combineLinesAcrossCTAs(
        builder, loc, kernel, partials, layout.threads, threadMask, ctaMask,
        [&](Value total, Value next) {
          return combineReduction(builder, loc, kind, total, next);
        });
  // Each register gets its group's result: one value per line, so the
  // elementwise ops that follow are computed once per line after CSE.
  if (accType != element)
    for (Value &acc : partials)
      acc = arith::TruncFOp::create(builder, loc, element, acc);
  SmallVector<Value> result;
  for (int64_t k = 0; k < layout.perThread(); ++k)
    result.push_back(
        partials[llvm::find(leaders, k & ~registerMask) - leaders.begin()]);
  return result;
}

/// reduce of a block of rank 2 or more along `axis`: the line results are
/// computed in place (allReduce: in-thread, shuffles, shared memory only
/// across warps), then the thread holding each line's first element, in a
/// register whose axis register bits are 0, writes it to the scratch array
/// at the result's linear index; after a barrier each thread reads the
/// result elements it owns (the result's layout is its own element
/// count's), and a barrier frees the array; in rounds of 16 KB of result
/// elements. One value per line crosses threads, not every element; none
/// when the axis has size 1.
SmallVector<Value> reduceAlongAxis(OpBuilder &builder, Location loc,
                                   KernelState &kernel, blk::ReduceOp reduce,
                                   ValueRange xs) {
  RankedTensorType srcType = reduce.getSrc().getType();
  int64_t axis = reduce.getAxis();
  Layout1D layout = layoutOf(srcType);
  SmallVector<Value> lines =
      allReduce(builder, loc, kernel, srcType, reduce.getKind(), axis, xs);
  auto resultType = cast<RankedTensorType>(reduce.getType());
  // An axis of size 1: the result has the source's elements and layout.
  if (resultType.getNumElements() == srcType.getNumElements())
    return lines;
  Type element = resultType.getElementType();
  auto i32 = [&](int64_t v) { return i32Constant(builder, loc, v); };
  auto [registerMask, threadMask, ctaMask] =
      axisBitsOf(srcType.getShape(), layout, axis);
  assert(!ctaMask && "blk-assign-layouts keeps such reductions in one CTA");
  (void)ctaMask;
  // The result goes through the scratch array in rounds of at most 16 KB
  // of its elements (by linear index).
  int64_t count = resultType.getNumElements();
  int64_t bytes = blk::elementBytes(element);
  int64_t perRound =
      std::min<int64_t>(count, std::max<int64_t>(1, 16384 / bytes));
  Value smem = kernel.scratch.get(builder, loc, element, perRound);
  auto ptrType = LLVM::LLVMPointerType::get(builder.getContext(), 3);
  // Writers: threads whose axis thread bits are 0 hold position 0 of the
  // axis in their registers whose axis register bits are 0.
  Value isWriter = arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::eq,
      arith::AndIOp::create(builder, loc, kernel.threadId, i32(threadMask)),
      i32(0));
  SmallVector<std::pair<Value, Value>> written; // (slot, value)
  for (int64_t k = 0; k < layout.perThread(); ++k) {
    if (k & registerMask)
      continue;
    SmallVector<Value> indices =
        delinearize(builder, loc, srcType.getShape(),
                    elementIndex(builder, loc, kernel.threadId, layout, k));
    indices.erase(indices.begin() + axis);
    written.push_back(
        {linearize(builder, loc, resultType.getShape(), indices), lines[k]});
  }
  Layout1D resultLayout = layoutOf(resultType);
  SmallVector<Value> wanted, result;
  for (int64_t k = 0; k < resultLayout.perThread(); ++k) {
    wanted.push_back(
        elementIndex(builder, loc, kernel.threadId, resultLayout, k));
    result.push_back(
        arith::ConstantOp::create(builder, loc, builder.getZeroAttr(element)));
  }
  // Whether `slot` is in this round, and its offset there.
  auto inRound = [&](Value slot, int64_t first) {
    Value offset = arith::SubIOp::create(builder, loc, slot, i32(first));
    Value in = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult,
                                     offset, i32(perRound));
    return std::pair(in, offset);
  };
  auto store = [&](Value value, Value offset) {
    LLVM::StoreOp::create(builder, loc, value,
                          LLVM::GEPOp::create(builder, loc, ptrType, element,
                                              smem, ValueRange{offset}));
  };
  for (int64_t first = 0; first < count; first += perRound) {
    if (perRound == count) {
      OpBuilder::InsertionGuard guard(builder);
      auto ifOp = scf::IfOp::create(builder, loc, isWriter);
      builder.setInsertionPointToStart(ifOp.thenBlock());
      for (auto [slot, value] : written)
        store(value, slot);
    } else {
      for (auto [slot, value] : written) {
        auto [in, offset] = inRound(slot, first);
        OpBuilder::InsertionGuard guard(builder);
        auto ifOp = scf::IfOp::create(
            builder, loc, arith::AndIOp::create(builder, loc, isWriter, in));
        builder.setInsertionPointToStart(ifOp.thenBlock());
        store(value, offset);
      }
    }
    programBarrier(builder, loc, kernel);
    for (auto [k, slot] : llvm::enumerate(wanted)) {
      if (perRound == count) {
        result[k] = readShared(builder, loc, smem, element, slot);
        continue;
      }
      auto [in, offset] = inRound(slot, first);
      // Out-of-round lanes read slot 0 and keep what they had.
      Value safe = arith::SelectOp::create(builder, loc, in, offset, i32(0));
      result[k] = arith::SelectOp::create(
          builder, loc, in, readShared(builder, loc, smem, element, safe),
          result[k]);
    }
    programBarrier(builder, loc, kernel);
  }
  return result;
}

struct AllReduceLowering : KernelOpLowering<blkgpu::AllReduceOp> {
  using KernelOpLowering::KernelOpLowering;

  LogicalResult
  matchAndRewrite(blkgpu::AllReduceOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool acrossCTAs = !op->hasAttr(blkgpu::BlkGPUDialect::kCTALocalAttrName);
    rewriter.replaceOpWithMultiple(
        op,
        {allReduce(rewriter, op.getLoc(), kernel, op.getSrc().getType(),
                   op.getKind(), op.getAxis(), adaptor.getSrc(), acrossCTAs)});
    return success();
  }
};

struct ReduceLowering : KernelOpLowering<blk::ReduceOp> {
  using KernelOpLowering::KernelOpLowering;

  LogicalResult
  matchAndRewrite(blk::ReduceOp reduce, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = reduce.getLoc();
    if (reduce.getSrc().getType().getRank() > 1) {
      rewriter.replaceOpWithMultiple(
          reduce,
          {reduceAlongAxis(rewriter, loc, kernel, reduce, adaptor.getSrc())});
      return success();
    }
    rewriter.replaceOp(
        reduce, reduce1D(rewriter, loc, kernel, reduce, adaptor.getSrc()));
    return success();
  }
};

} // namespace

void populateReducePatterns(const BlockTypeConverter &converter,
                            RewritePatternSet &patterns, KernelState &kernel) {
  patterns.add<ReduceLowering, AllReduceLowering>(
      converter, patterns.getContext(), kernel);
}

} // namespace blockjit::nvvm
