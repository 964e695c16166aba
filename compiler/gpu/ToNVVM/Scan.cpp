//===- Scan.cpp - inclusive scans: in-thread, shuffles, shared memory ----===//
//
// blk.scan has no identity element (its combine region is the user's), so
// every step here keeps the value it has where there is nothing to combine
// with, rather than combining with an identity.
//
// 1-D blocks: each thread scans its chunks of contiguous elements in
// registers, the chunk totals are scanned across each warp with shfl.up
// (shfl.down for reverse scans), and the warp totals of every repeat of the
// tile are combined through shared memory (one exchange, fenced by
// barriers). A block smaller than the threads (the layout wraps, replicas)
// is scanned as segments of `size` lanes, or of `size / 32` warps, which
// every replica computes alike.
//
// Rows along the last axis that hold whole tiles scan the same way, the
// carry between tiles restarting with each row; so do blocks whose other
// dimensions are all 1.
//
// Other blocks of rank 2 and more: the elements go through shared memory,
// each thread scans whole lines along the axis in place (lines are disjoint
// between threads), and every thread reads its elements back.
//
//===----------------------------------------------------------------------===//
#include "compiler/Reduction.h"
#include "compiler/gpu/ToNVVM/Lowering.h"

#include "dialect/BlkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace blockjit::nvvm {
namespace {

/// How an element is kept in shared memory: i1 as i8, the rest as itself.
Type slotType(Type element) {
  return element.isInteger(1) ? IntegerType::get(element.getContext(), 8)
                              : element;
}

void storeSlot(OpBuilder &b, Location loc, Value smem, Value index,
               Value value) {
  Type storage = slotType(value.getType());
  if (storage != value.getType())
    value = arith::ExtUIOp::create(b, loc, storage, value);
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value slot =
      LLVM::GEPOp::create(b, loc, ptrType, storage, smem, ValueRange{index});
  LLVM::StoreOp::create(b, loc, value, slot);
}

Value loadSlot(OpBuilder &b, Location loc, Value smem, Value index,
               Type element) {
  Type storage = slotType(element);
  Value value = readShared(b, loc, smem, storage, index);
  if (storage != element)
    value = arith::TruncIOp::create(b, loc, element, value);
  return value;
}

/// `has ? combine(pre, x) : x` (with `has` null meaning true).
Value combineIf(OpBuilder &b, Location loc, blk::ScanOp scan, Value has,
                Value pre, Value x) {
  Value combined = inlineScanCombine(b, scan, pre, x);
  if (!has)
    return combined;
  return arith::SelectOp::create(b, loc, has, combined, x);
}

/// The scan of a block as lines of `lineLength` consecutive elements in
/// linear order (the whole block for 1-D; rows along the last axis when a
/// line is a whole number of tiles: each tile then lies in one line, and
/// the carry between tiles restarts with each line).
SmallVector<Value> scan1D(OpBuilder &b, Location loc, KernelState &kernel,
                          blk::ScanOp scan, ValueRange xs, int64_t lineLength) {
  auto type = cast<RankedTensorType>(scan.getType());
  Layout1D layout = layoutOf(type);
  Type element = type.getElementType();
  bool reverse = scan.getReverse();
  auto i32 = [&](int64_t v) { return i32Constant(b, loc, v); };
  auto cmp = [&](arith::CmpIPredicate pred, Value lhs, int64_t rhs) -> Value {
    return arith::CmpIOp::create(b, loc, pred, lhs, i32(rhs));
  };
  int64_t vector = layout.vector;
  int64_t repeats = layout.perThread() / vector;
  // Threads holding distinct elements: the rest hold replicas, in the same
  // pattern, of the first `active`.
  int64_t active = layout.replicated()
                       ? std::max<int64_t>(1, layout.size / vector)
                       : layout.threads;
  int64_t segment = std::min<int64_t>(kWarpSize, active);
  int64_t warps = std::max<int64_t>(1, active / kWarpSize);
  Value threadId = kernel.threadId;
  Value lane = arith::AndIOp::create(b, loc, threadId, i32(kWarpSize - 1));
  Value warp =
      arith::ShRUIOp::create(b, loc, threadId, i32(llvm::Log2_32(kWarpSize)));
  Value position = arith::AndIOp::create(b, loc, lane, i32(segment - 1));
  Value warpPosition = arith::AndIOp::create(b, loc, warp, i32(warps - 1));
  NVVM::ShflKind toLater = reverse ? NVVM::ShflKind::down : NVVM::ShflKind::up;
  // Whether this lane has a lane `offset` earlier in scan order.
  auto hasEarlierLane = [&](int64_t offset) {
    return reverse ? cmp(arith::CmpIPredicate::slt, position, segment - offset)
                   : cmp(arith::CmpIPredicate::sge, position, offset);
  };

  // 1. In-thread scans of each chunk, then the chunk totals across the
  // segment: `inclusive` (this lane's lanes so far) and `exclusive` (before).
  SmallVector<Value> partial(xs.begin(), xs.end());
  SmallVector<Value> exclusive(repeats), hasExclusive(repeats),
      warpTotal(repeats);
  for (int64_t j = 0; j < repeats; ++j) {
    for (int64_t i = 1; i < vector; ++i) {
      int64_t k = reverse ? j * vector + vector - 1 - i : j * vector + i;
      int64_t prev = reverse ? k + 1 : k - 1;
      partial[k] = inlineScanCombine(b, scan, partial[prev], partial[k]);
    }
    Value inclusive = partial[reverse ? j * vector : j * vector + vector - 1];
    for (int64_t offset = 1; offset < segment; offset *= 2) {
      Value earlier = warpShuffle(b, loc, inclusive, offset, toLater);
      inclusive =
          combineIf(b, loc, scan, hasEarlierLane(offset), earlier, inclusive);
    }
    if (vector == 1) {
      // The chunk is this element: the lanes' inclusive value is its own.
      partial[j] = inclusive;
    } else if (segment > 1) {
      exclusive[j] = warpShuffle(b, loc, inclusive, 1, toLater);
      hasExclusive[j] = hasEarlierLane(1);
    }
    warpTotal[j] = inclusive;
  }

  // 2. The totals of the earlier warps of each tile, and of the earlier
  // tiles, through shared memory: the last lane in scan order of every warp
  // (replica warps included, each in its own slot) publishes its total.
  int64_t numWarps = kernel.numWarps;
  SmallVector<Value> warpPrefix(repeats), tileTotal(repeats);
  Value hasWarpPrefix;
  if (warps > 1) {
    Value smem =
        kernel.scratch.get(b, loc, slotType(element), repeats * numWarps);
    {
      OpBuilder::InsertionGuard guard(b);
      Value holder =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                i32(reverse ? 0 : kWarpSize - 1));
      auto ifOp = scf::IfOp::create(b, loc, holder);
      b.setInsertionPointToStart(ifOp.thenBlock());
      for (int64_t j = 0; j < repeats; ++j) {
        Value slot = arith::AddIOp::create(b, loc, warp, i32(j * numWarps));
        storeSlot(b, loc, smem, slot, warpTotal[j]);
      }
    }
    programBarrier(b, loc, kernel);
    // This warp's position in scan order among the `warps` distinct ones.
    Value scanPosition =
        reverse
            ? Value(arith::SubIOp::create(b, loc, i32(warps - 1), warpPosition))
            : warpPosition;
    hasWarpPrefix = cmp(arith::CmpIPredicate::sgt, scanPosition, 0);
    for (int64_t j = 0; j < repeats; ++j) {
      // The totals of this tile's warps, in scan order.
      SmallVector<Value> totals;
      for (int64_t w = 0; w < warps; ++w) {
        int64_t real = reverse ? warps - 1 - w : w;
        totals.push_back(
            loadSlot(b, loc, smem, i32(j * numWarps + real), element));
      }
      // The warps before this one (meaningful where hasWarpPrefix).
      Value prefix = totals[0];
      for (int64_t w = 1; w + 1 < warps; ++w) {
        Value before = cmp(arith::CmpIPredicate::sgt, scanPosition, w);
        prefix = arith::SelectOp::create(
            b, loc, before, inlineScanCombine(b, scan, prefix, totals[w]),
            prefix);
      }
      warpPrefix[j] = prefix;
      if (repeats == 1)
        continue;
      Value total = totals[0];
      for (int64_t w = 1; w < warps; ++w)
        total = inlineScanCombine(b, scan, total, totals[w]);
      tileTotal[j] = total;
    }
    // The array may be reused by the next exchange once everyone has read.
    programBarrier(b, loc, kernel);
  } else if (repeats > 1) {
    // A block with repeats fills the threads: the segment is the whole
    // warp, its total in its last lane in scan order.
    for (int64_t j = 0; j < repeats; ++j)
      tileTotal[j] =
          warpShuffle(b, loc, warpTotal[j], reverse ? 0 : kWarpSize - 1,
                      NVVM::ShflKind::idx);
  }

  // 3. Each element: the earlier tiles (+) the earlier warps (+) the earlier
  // lanes (+) its in-thread partial. `pre` is what comes before this
  // thread's chunk (null: nothing), valid where `has` (null: everywhere).
  SmallVector<Value> result(partial);
  Value carry;
  for (int64_t n = 0; n < repeats; ++n) {
    int64_t j = reverse ? repeats - 1 - n : n;
    // A tile that starts a line (in scan order) has nothing before it.
    if ((reverse ? (j + 1) * layout.tile() : j * layout.tile()) % lineLength ==
        0)
      carry = Value();
    Value pre = exclusive[j];
    Value has = hasExclusive[j];
    if (warps > 1) {
      if (pre) {
        Value both = arith::SelectOp::create(
            b, loc, has, inlineScanCombine(b, scan, warpPrefix[j], pre),
            warpPrefix[j]);
        pre = arith::SelectOp::create(b, loc, hasWarpPrefix, both, pre);
        has = arith::OrIOp::create(b, loc, hasWarpPrefix, has);
      } else {
        pre = warpPrefix[j];
        has = hasWarpPrefix;
      }
    }
    if (carry) {
      if (pre) {
        Value combined = inlineScanCombine(b, scan, carry, pre);
        pre = has ? Value(arith::SelectOp::create(b, loc, has, combined, carry))
                  : combined;
      } else {
        pre = carry;
      }
      has = Value();
    }
    if (pre)
      for (int64_t i = 0; i < vector; ++i) {
        int64_t k = j * vector + i;
        result[k] = combineIf(b, loc, scan, has, pre, partial[k]);
      }
    if (repeats > 1)
      carry = carry ? inlineScanCombine(b, scan, carry, tileTotal[j])
                    : tileTotal[j];
  }
  return result;
}

SmallVector<Value> scanLines(OpBuilder &b, Location loc, KernelState &kernel,
                             blk::ScanOp scan, ValueRange xs) {
  auto type = cast<RankedTensorType>(scan.getType());
  Layout1D layout = layoutOf(type);
  Type element = type.getElementType();
  int64_t axis = scan.getAxis();
  int64_t length = type.getDimSize(axis);
  if (length == 1)
    return SmallVector<Value>(xs.begin(), xs.end());
  bool reverse = scan.getReverse();
  auto i32 = [&](int64_t v) { return i32Constant(b, loc, v); };
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < type.getRank(); ++d)
    inner *= type.getDimSize(d);
  int64_t lines = layout.size / length;
  // Along the last axis, thread t walks line t at stride 1: one padding
  // slot per 32 elements spreads the threads' lines over the banks.
  bool pad = inner == 1;
  auto slotOf = [&](Value linear) -> Value {
    if (!pad)
      return linear;
    return arith::AddIOp::create(
        b, loc, linear, arith::ShRUIOp::create(b, loc, linear, i32(5)));
  };

  // 1. Every element to shared memory, by its owner only.
  Value smem = kernel.scratch.get(b, loc, slotType(element),
                                  layout.size + (pad ? layout.size / 32 : 0));
  for (int64_t k = 0; k < layout.perThread(); ++k) {
    Value raw = rawElementIndex(b, loc, kernel.threadId, layout, k);
    OpBuilder::InsertionGuard guard(b);
    if (layout.replicated()) {
      auto ifOp = scf::IfOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, raw,
                                i32(layout.size)));
      b.setInsertionPointToStart(ifOp.thenBlock());
    }
    storeSlot(b, loc, smem, slotOf(raw), xs[k]);
  }
  programBarrier(b, loc, kernel);

  // 2. Thread t scans lines t, t + T, ... in place.
  {
    OpBuilder::InsertionGuard guard(b);
    auto lineLoop = scf::ForOp::create(b, loc, kernel.threadId, i32(lines),
                                       i32(layout.threads));
    b.setInsertionPointToStart(lineLoop.getBody());
    Value line = lineLoop.getInductionVar();
    Value outer =
        arith::ShRUIOp::create(b, loc, line, i32(llvm::Log2_64(inner)));
    Value innerIndex = arith::AndIOp::create(b, loc, line, i32(inner - 1));
    Value base = arith::OrIOp::create(
        b, loc,
        arith::ShLIOp::create(b, loc, outer,
                              i32(llvm::Log2_64(length * inner))),
        innerIndex);
    auto addressOf = [&](Value pos) -> Value {
      return slotOf(arith::AddIOp::create(
          b, loc, base,
          arith::ShLIOp::create(b, loc, pos, i32(llvm::Log2_64(inner)))));
    };
    Value first = loadSlot(b, loc, smem,
                           addressOf(i32(reverse ? length - 1 : 0)), element);
    auto loop = scf::ForOp::create(b, loc, i32(1), i32(length), i32(1),
                                   ValueRange{first});
    b.setInsertionPointToStart(loop.getBody());
    Value pos = loop.getInductionVar();
    if (reverse)
      pos = arith::SubIOp::create(b, loc, i32(length - 1), pos);
    Value address = addressOf(pos);
    Value x = loadSlot(b, loc, smem, address, element);
    Value next = inlineScanCombine(b, scan, loop.getRegionIterArgs()[0], x);
    storeSlot(b, loc, smem, address, next);
    scf::YieldOp::create(b, loc, next);
  }
  programBarrier(b, loc, kernel);

  // 3. Every thread reads its elements back.
  SmallVector<Value> result;
  for (int64_t k = 0; k < layout.perThread(); ++k)
    result.push_back(loadSlot(
        b, loc, smem, slotOf(elementIndex(b, loc, kernel.threadId, layout, k)),
        element));
  // The next use of this array waits for the readers.
  programBarrier(b, loc, kernel);
  return result;
}

struct ScanLowering : KernelOpLowering<blk::ScanOp> {
  using KernelOpLowering::KernelOpLowering;

  LogicalResult
  matchAndRewrite(blk::ScanOp scan, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = scan.getLoc();
    ValueRange xs = adaptor.getSrc();
    // A block whose other dimensions are all 1 (a 1x1024 row) is one line
    // in linear order, and rows along the last axis that hold whole tiles
    // are consecutive lines: the 1-D scan applies.
    auto type = cast<RankedTensorType>(scan.getType());
    Layout1D layout = layoutOf(type);
    int64_t axis = scan.getAxis();
    int64_t length = type.getDimSize(axis);
    bool oneLine = type.getNumElements() == length;
    bool wholeTiles = axis == type.getRank() - 1 && !layout.replicated() &&
                      length % layout.tile() == 0;
    SmallVector<Value> result =
        oneLine || wholeTiles ? scan1D(rewriter, loc, kernel, scan, xs, length)
                              : scanLines(rewriter, loc, kernel, scan, xs);
    rewriter.replaceOpWithMultiple(scan, {result});
    return success();
  }
};

} // namespace

void populateScanPatterns(const BlockTypeConverter &converter,
                          RewritePatternSet &patterns, KernelState &kernel) {
  patterns.add<ScanLowering>(converter, patterns.getContext(), kernel);
}

} // namespace blockjit::nvvm
