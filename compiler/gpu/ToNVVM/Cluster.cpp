//===- Cluster.cpp - values exchanged across the CTAs of a cluster -------===//
//
// A program that runs on a thread-block cluster combines per-CTA results
// through distributed shared memory: each CTA stores its tuple into a slot
// of every CTA's cluster buffer with st.async, which counts the bytes on
// the receiving CTA's mbarrier (mbarrier::complete_tx); each CTA announces
// the bytes it expects (arrive.expect_tx), waits for its mbarrier's phase,
// then reads the slots from its own shared memory. A cluster barrier would
// do too, but its arrive releases every earlier store of the thread, the
// kernel's global ones included, and waiting for those to drain cost 1-17 %
// of long-row softmax (fp32 262144: 2366 -> 2892 GB/s without it). The
// buffer and the mbarriers have two halves used in turn: exchange n uses
// half n % 2, and a CTA can only write exchange n + 2 after exchange n + 1
// completed, whose bytes every CTA sends after a CTA barrier that follows
// its reads of exchange n. Values that are not 32 or 64 bits wide use a
// cluster barrier (arrive.release / wait.acquire) instead.
// The halves interleave in 16-byte blocks of two slots, so that exchanges
// of different sizes (a softmax's pair, a reduction's one value, a 2-D
// block's lines) never write into the slots their neighbour reads, and a
// 2-D block's lines go four 32-bit partials to one st.async.v4 and one
// vector load.
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

/// The 32-bit address of a pointer into (this or a cluster CTA's) shared
/// memory, as PTX's .shared instructions take it.
Value sharedAddress(OpBuilder &builder, Location loc, Value pointer) {
  return LLVM::PtrToIntOp::create(builder, loc, builder.getI32Type(), pointer);
}

/// The mbarrier of half `phase` (two 8-byte mbarriers).
Value clusterMbarrier(OpBuilder &builder, Location loc, KernelState &kernel,
                      Value phase) {
  Value barriers =
      kernel.clusterBarriers.get(builder, loc, builder.getI64Type(), 2);
  return LLVM::GEPOp::create(
      builder, loc, LLVM::LLVMPointerType::get(builder.getContext(), 3),
      builder.getI64Type(), barriers, ValueRange{phase});
}

/// Whether st.async can send `values` (32- or 64-bit numbers).
bool sendableByStAsync(ValueRange values) {
  return llvm::all_of(values, [](Value v) {
    Type type = v.getType();
    return type.isIntOrFloat() && (type.getIntOrFloatBitWidth() == 32 ||
                                   type.getIntOrFloatBitWidth() == 64);
  });
}

/// Moves `builder` into a new `if (thread id == 0)` at its point.
void enterThreadZero(OpBuilder &builder, Location loc,
                     const KernelState &kernel) {
  Value first =
      arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                            kernel.threadId, i32Constant(builder, loc, 0));
  auto ifOp = scf::IfOp::create(builder, loc, first);
  builder.setInsertionPointToStart(ifOp.thenBlock());
}

/// Thread 0 announces the `bytes` this CTA's half `phase` receives in this
/// exchange.
void expectBytes(OpBuilder &builder, Location loc, KernelState &kernel,
                 Value phase, int64_t bytes) {
  OpBuilder::InsertionGuard guard(builder);
  enterThreadZero(builder, loc, kernel);
  inlinePtx(builder, loc,
            "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r",
            {sharedAddress(builder, loc,
                           clusterMbarrier(builder, loc, kernel, phase)),
             i32Constant(builder, loc, bytes)});
}

/// Stores `values` into `slot` (this CTA's shared memory) of CTA `target`,
/// counted on that CTA's mbarrier of half `phase`: one st.async of one
/// 32- or 64-bit value, or of 2 or 4 32-bit ones as a vector (`slot`
/// aligned to their bytes).
void sendTo(OpBuilder &builder, Location loc, KernelState &kernel,
            ValueRange values, Value slot, Value phase, Value target) {
  assert((values.size() == 1 || values.size() == 2 || values.size() == 4) &&
         "st.async sends a value, a pair or a quadruple");
  auto clusterPtr = LLVM::LLVMPointerType::get(builder.getContext(), 7);
  Value remoteSlot =
      NVVM::MapaOp::create(builder, loc, clusterPtr, slot, target);
  Value remoteBarrier = NVVM::MapaOp::create(
      builder, loc, clusterPtr, clusterMbarrier(builder, loc, kernel, phase),
      target);
  bool wide = values.front().getType().getIntOrFloatBitWidth() == 64;
  assert((!wide || values.size() == 1) && "64-bit values go one at a time");
  Type bitsType = wide ? builder.getI64Type() : builder.getI32Type();
  SmallVector<Value> bits;
  for (Value v : values)
    bits.push_back(v.getType() == bitsType
                       ? v
                       : LLVM::BitcastOp::create(builder, loc, bitsType, v));
  std::string registers, constraints = "r";
  SmallVector<Value> operands{sharedAddress(builder, loc, remoteSlot)};
  for (auto [i, v] : llvm::enumerate(bits)) {
    registers += (i ? ", $" : "$") + std::to_string(i + 1);
    constraints += wide ? ",l" : ",r";
    operands.push_back(v);
  }
  constraints += ",r";
  operands.push_back(sharedAddress(builder, loc, remoteBarrier));
  std::string form = wide                 ? ".b64"
                     : values.size() == 1 ? ".b32"
                     : values.size() == 2 ? ".v2.b32"
                                          : ".v4.b32";
  if (values.size() > 1)
    registers = "{" + registers + "}";
  inlinePtx(builder, loc,
            "st.async.shared::cluster.mbarrier::complete_tx::bytes" + form +
                " [$0], " + registers + ", [$" +
                std::to_string(values.size() + 1) + "];",
            constraints, operands);
}

/// Waits until this CTA's mbarrier of half `phase` completes the phase of
/// parity `parity` (every expected byte arrived).
void waitForBytes(OpBuilder &builder, Location loc, KernelState &kernel,
                  Value phase, Value parity) {
  Value address =
      sharedAddress(builder, loc, clusterMbarrier(builder, loc, kernel, phase));
  auto loop = scf::WhileOp::create(builder, loc, TypeRange{}, ValueRange{});
  {
    OpBuilder::InsertionGuard guard(builder);
    Block *before = builder.createBlock(&loop.getBefore());
    builder.setInsertionPointToStart(before);
    Value done = inlinePtx(
        builder, loc,
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], "
        "$2; selp.u32 $0, 1, 0, p; }",
        "=r,r,r", {address, parity}, builder.getI32Type());
    Value pending =
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, done,
                              i32Constant(builder, loc, 0));
    scf::ConditionOp::create(builder, loc, pending, ValueRange{});
    Block *after = builder.createBlock(&loop.getAfter());
    builder.setInsertionPointToStart(after);
    scf::YieldOp::create(builder, loc);
  }
}

/// This exchange's half (0 or 1) and the parity of its mbarrier's phase
/// (each half's mbarrier completes a phase every other exchange); counts
/// the exchange.
std::pair<Value, Value> exchangePhase(OpBuilder &builder, Location loc,
                                      KernelState &kernel) {
  auto i32 = [&](int64_t v) { return i32Constant(builder, loc, v); };
  // The count lives from the kernel's entry, after the CTA's rank.
  Operation *rank = kernel.isFirstCTA.getDefiningOp();
  Value n = countExchange(
      builder, loc, kernel.clusterPhase,
      OpBuilder::InsertPoint(rank->getBlock(), std::next(rank->getIterator())));
  Value phase = arith::AndIOp::create(builder, loc, n, i32(1));
  Value parity = arith::AndIOp::create(
      builder, loc, arith::ShRUIOp::create(builder, loc, n, i32(1)), i32(1));
  return {phase, parity};
}

/// One exchange across the cluster: made with the values this CTA sends
/// (each to every CTA, `copies` of them per CTA in all), it announces the
/// bytes this CTA receives; `send` writes one value into a slot of a
/// target CTA, and `finish` waits until every value sent here arrived.
/// st.async and the half's mbarrier carry 32- and 64-bit values; other
/// widths go through mapa + st.shared::cluster and a cluster barrier.
class ClusterExchange {
public:
  ClusterExchange(OpBuilder &builder, Location loc, KernelState &kernel,
                  ValueRange sent, int64_t copies)
      : ClusterExchange(builder, loc, kernel, sendableByStAsync(sent),
                        copies * bytesOf(sent)) {}

  /// An exchange of st.async sends (sendRun) of `bytes` in all to this
  /// CTA.
  ClusterExchange(OpBuilder &builder, Location loc, KernelState &kernel,
                  int64_t bytes)
      : ClusterExchange(builder, loc, kernel, /*async=*/true, bytes) {}

  /// Sends 1, 2 or 4 32-bit `values` as one st.async (a vector) into
  /// `slot` (8 bytes aligned, or 16 for four) of CTA `target`; an exchange
  /// made with a byte count.
  void sendRun(ValueRange values, Value slot, Value target) {
    assert(async && "runs go by st.async");
    sendTo(builder, loc, kernel, values, slot, phase, target);
  }

  /// The half of the cluster buffer this exchange uses (0 or 1).
  Value half() const { return phase; }

  /// Writes `value` into `slot` (an address in this CTA's buffer) of CTA
  /// `target`, at `builder`'s point.
  void send(Value value, Value slot, Value target) {
    if (async) {
      sendTo(builder, loc, kernel, ValueRange{value}, slot, phase, target);
      return;
    }
    auto clusterPtr = LLVM::LLVMPointerType::get(builder.getContext(), 7);
    LLVM::StoreOp::create(
        builder, loc, value,
        NVVM::MapaOp::create(builder, loc, clusterPtr, slot, target));
  }

  /// Waits until the slots of this CTA hold what every CTA sent.
  void finish() {
    if (async)
      waitForBytes(builder, loc, kernel, phase, parity);
    else
      clusterBarrier(builder, loc);
  }

private:
  /// st.async exchanges announce the `bytes` this CTA receives.
  ClusterExchange(OpBuilder &builder, Location loc, KernelState &kernel,
                  bool async, int64_t bytes)
      : builder(builder), loc(loc), kernel(kernel), async(async) {
    std::tie(phase, parity) = exchangePhase(builder, loc, kernel);
    if (!async)
      return;
    // Every thread has read the previous exchange of this half's slots.
    NVVM::Barrier0Op::create(builder, loc);
    expectBytes(builder, loc, kernel, phase, bytes);
  }

  /// Bytes of one copy of `sent`: 0 unless st.async can send it.
  static int64_t bytesOf(ValueRange sent) {
    if (!sendableByStAsync(sent))
      return 0;
    int64_t bytes = 0;
    for (Value v : sent)
      bytes += v.getType().getIntOrFloatBitWidth() / 8;
    return bytes;
  }

  OpBuilder &builder;
  Location loc;
  KernelState &kernel;
  bool async;
  Value phase, parity;
};

/// Slot `index` of the half `phase` of the cluster buffer (a shared-memory
/// pointer). The halves interleave in pairs of slots (slots 2j and 2j + 1
/// of phase p in the 16 bytes of block 2j + p), so exchanges of different
/// sizes never overlap their neighbours and an even slot starts 16 aligned
/// bytes of its half (a vector).
Value clusterSlot(OpBuilder &builder, Location loc, Value buffer, Value phase,
                  Value index) {
  auto i32 = [&](int64_t v) { return i32Constant(builder, loc, v); };
  Value block = arith::AddIOp::create(
      builder, loc, arith::AndIOp::create(builder, loc, index, i32(~1)), phase);
  Value offset = arith::AddIOp::create(
      builder, loc,
      arith::MulIOp::create(builder, loc, block, i32(2 * kClusterSlotBytes)),
      arith::MulIOp::create(builder, loc,
                            arith::AndIOp::create(builder, loc, index, i32(1)),
                            i32(kClusterSlotBytes)));
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
  Value buffer = kernel.clusterBuffer.get(builder, loc, builder.getI8Type(),
                                          clusterBufferBytes(halfSlots));

  ClusterExchange exchange(builder, loc, kernel, values, numCTAs);
  // Slot of component c from CTA r: c * numCTAs + r.
  auto slot = [&](int64_t component, Value rank) {
    return clusterSlot(
        builder, loc, buffer, exchange.half(),
        arith::AddIOp::create(builder, loc, rank, i32(component * numCTAs)));
  };

  // Thread t < numCTAs writes this CTA's tuple into CTA t's buffer.
  Value writer = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult,
                                       kernel.threadId, i32(numCTAs));
  {
    OpBuilder::InsertionGuard guard(builder);
    auto ifOp = scf::IfOp::create(builder, loc, writer);
    builder.setInsertionPointToStart(ifOp.thenBlock());
    for (auto [c, v] : llvm::enumerate(values))
      exchange.send(v, slot(int64_t(c), kernel.ctaRank), kernel.threadId);
  }
  exchange.finish();
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

/// One exchange of per-line partials across the CTAs of a cluster that hold
/// pieces of the same lines (combineLinesAcrossCTAs): made, it has sent this
/// CTA's partials to every CTA and waited for theirs; then its reads give
/// what each CTA sent.
class LineExchange {
public:
  LineExchange(OpBuilder &builder, Location loc, KernelState &kernel,
               ValueRange partials, int64_t threads, int64_t threadMask,
               int64_t ctaMask)
      : builder(builder), loc(loc), kernel(kernel),
        groups(int64_t(partials.size())), accType(partials.front().getType()),
        run(groups <= 2 ? groups : 4) {
    assert(kernel.numCTAs > 1 && ctaMask &&
           "a cluster exchange needs a cluster");
    assert(accType.getIntOrFloatBitWidth() <= 32 &&
           "partialsCrossCluster: at most 32 bits");
    int64_t numCTAs = kernel.numCTAs;
    // The axis's thread bits are one dimension's, contiguous: a thread is
    // (its position along them, the rest of its bits), the latter naming
    // the lines it holds.
    int64_t axisThreadBits = llvm::popcount(uint64_t(threadMask));
    int64_t low = threadMask ? llvm::countr_zero(uint64_t(threadMask)) : 0;
    writers = threads >> axisThreadBits;
    alongAxis = int64_t(1) << axisThreadBits;
    Value threadId = kernel.threadId;
    position = arith::ShRUIOp::create(
        builder, loc,
        arith::AndIOp::create(builder, loc, threadId, i32(threadMask)),
        i32(low));
    lines = withoutBits(builder, loc, threadId, threadMask);

    // A writer's groups travel as 32-bit words, packed in runs of at most
    // four (clusterLineSlots): run k at slot tuple + 2k, one st.async and
    // one vector load each. Tuple (rank r, lines) at slot (r * writers +
    // lines) * perTuple.
    perTuple = clusterLineSlots(groups);
    int64_t tupleBytes = 0;
    for (int64_t first = 0; first < groups; first += run)
      tupleBytes += 4 * runLength(first);
    int64_t halfSlots = numCTAs * writers * perTuple;
    buffer = kernel.clusterBuffer.get(builder, loc, builder.getI8Type(),
                                      clusterBufferBytes(halfSlots));
    ClusterExchange exchange(builder, loc, kernel,
                             numCTAs * writers * tupleBytes);
    half = exchange.half();
    // The thread at `position` along the axis writes its lines' partials
    // to CTAs position, position + alongAxis, ...: every CTA once.
    {
      OpBuilder::InsertionGuard guard(builder);
      if (alongAxis > numCTAs) {
        auto ifOp = scf::IfOp::create(
            builder, loc,
            arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult,
                                  position, i32(numCTAs)));
        builder.setInsertionPointToStart(ifOp.thenBlock());
      }
      Type i32Type = builder.getI32Type();
      SmallVector<SmallVector<Value>> runs;
      for (int64_t first = 0; first < groups; first += run) {
        SmallVector<Value> words;
        for (int64_t g = first; g < first + runLength(first); ++g)
          words.push_back(
              g < groups
                  ? toWord(partials[g])
                  : LLVM::PoisonOp::create(builder, loc, i32Type).getResult());
        runs.push_back(std::move(words));
      }
      for (int64_t first = 0; first < numCTAs; first += alongAxis) {
        Value target =
            arith::AddIOp::create(builder, loc, position, i32(first));
        for (auto [k, words] : llvm::enumerate(runs))
          exchange.sendRun(words, slot(kernel.ctaRank, int64_t(k) * run),
                           target);
      }
    }
    exchange.finish();
    // The CTAs holding this CTA's lines: its rank with any ctaMask bits, in
    // increasing order.
    others = arith::AndIOp::create(builder, loc, kernel.ctaRank, i32(~ctaMask));
    for (int64_t sub = 0;; sub = (sub - ctaMask) & ctaMask) {
      rankBits.push_back(sub);
      if (sub == ctaMask)
        break;
    }
  }

  /// The i-th CTA holding this thread's lines (rank order).
  Value rank(int64_t i) {
    return arith::OrIOp::create(builder, loc, others, i32(rankBits[i]));
  }
  int64_t numRanks() const { return int64_t(rankBits.size()); }

  /// What CTA `rank` sent, read back run by run.
  SmallVector<Value> read(Value rank) {
    SmallVector<Value> values(groups);
    for (int64_t first = 0; first < groups; first += run) {
      int64_t length = runLength(first);
      SmallVector<Value> words = loadSharedRun(builder, loc, slot(rank, first),
                                               builder.getI32Type(), length);
      for (int64_t g = first; g < std::min(groups, first + length); ++g)
        values[g] = fromWord(words[g - first]);
    }
    return values;
  }

  /// The shared-memory address of group `base + offset` (offset < the
  /// component's groups, a value) of what CTA `rank` sent.
  Value wordAddress(Value rank, int64_t base, Value offset) {
    Value g = arith::AddIOp::create(builder, loc, offset, i32(base));
    int64_t runBits = llvm::Log2_64(run);
    Value runIndex = arith::ShRUIOp::create(builder, loc, g, i32(runBits));
    Value start =
        clusterSlot(builder, loc, buffer, half,
                    arith::AddIOp::create(
                        builder, loc, tupleSlot(rank),
                        arith::MulIOp::create(builder, loc, runIndex, i32(2))));
    return LLVM::GEPOp::create(
        builder, loc, start.getType(), builder.getI32Type(), start,
        ValueRange{arith::AndIOp::create(builder, loc, g, i32(run - 1))});
  }

  Value toWord(Value v) {
    Type i32Type = builder.getI32Type();
    if (isa<FloatType>(accType))
      return LLVM::BitcastOp::create(builder, loc, i32Type, v);
    if (accType.getIntOrFloatBitWidth() < 32)
      return arith::ExtUIOp::create(builder, loc, i32Type, v);
    return v;
  }

  Value fromWord(Value word) {
    if (isa<FloatType>(accType))
      return LLVM::BitcastOp::create(builder, loc, accType, word);
    if (accType.getIntOrFloatBitWidth() < 32)
      return arith::TruncIOp::create(builder, loc, accType, word);
    return word;
  }

  /// This thread's place among the threads holding its lines, and their
  /// count.
  Value position;
  int64_t alongAxis = 1;

private:
  Value i32(int64_t v) { return i32Constant(builder, loc, v); }

  int64_t runLength(int64_t first) const {
    int64_t length = std::min(run, groups - first);
    return length == 3 ? int64_t(4) : length; // no 3-vectors: padded
  }

  /// The first slot of CTA `rank`'s tuple for this thread's lines.
  Value tupleSlot(Value rank) {
    return arith::MulIOp::create(
        builder, loc,
        arith::AddIOp::create(
            builder, loc,
            arith::MulIOp::create(builder, loc, rank, i32(writers)), lines),
        i32(perTuple));
  }

  Value slot(Value rank, int64_t first) {
    Value index = arith::AddIOp::create(builder, loc, tupleSlot(rank),
                                        i32(2 * (first / run)));
    return clusterSlot(builder, loc, buffer, half, index);
  }

  OpBuilder &builder;
  Location loc;
  KernelState &kernel;
  int64_t groups;
  Type accType;
  int64_t run;
  int64_t writers = 1, perTuple = 1;
  Value lines, buffer, half, others;
  SmallVector<int64_t> rankBits;
};

} // namespace

SmallVector<Value>
combineLinesAcrossCTAs(OpBuilder &builder, Location loc, KernelState &kernel,
                       ValueRange partials, int64_t threads, int64_t threadMask,
                       int64_t ctaMask,
                       function_ref<Value(Value, Value)> combine) {
  LineExchange exchange(builder, loc, kernel, partials, threads, threadMask,
                        ctaMask);
  SmallVector<Value> totals = exchange.read(exchange.rank(0));
  for (int64_t i = 1; i < exchange.numRanks(); ++i)
    for (auto [total, next] :
         llvm::zip(totals, exchange.read(exchange.rank(i))))
      total = combine(total, next);
  return totals;
}

SmallVector<Value> combineLineTuplesAcrossCTAs(
    OpBuilder &builder, Location loc, KernelState &kernel, ValueRange partials,
    int64_t arity, int64_t threads, int64_t threadMask, int64_t ctaMask,
    function_ref<SmallVector<Value>(ArrayRef<SmallVector<Value>>)> combine) {
  assert(arity > 0 && partials.size() % arity == 0 && "whole tuples");
  LineExchange exchange(builder, loc, kernel, partials, threads, threadMask,
                        ctaMask);
  int64_t lines = int64_t(partials.size()) / arity;
  Value first = exchange.rank(0);
  auto i32 = [&](int64_t v) { return i32Constant(builder, loc, v); };
  // The threads holding a set of lines share out its lines by position:
  // the thread at position p combines line p + k * alongAxis, k = 0, 1, ...
  // while that is a line, with the same instructions in every thread (the
  // line picked by address, not by branch, so a warp does not run one line
  // after another). Its result goes over the first CTA's tuple (slots not
  // written again before the next exchange that uses this half, which a
  // barrier opens); positions past the lines do nothing, so no thread
  // reads a tuple another rewrites.
  int64_t alongAxis = exchange.alongAxis;
  {
    OpBuilder::InsertionGuard guard(builder);
    if (alongAxis > lines) {
      auto ifOp = scf::IfOp::create(
          builder, loc,
          arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult,
                                exchange.position, i32(lines)));
      builder.setInsertionPointToStart(ifOp.thenBlock());
    }
    for (int64_t k = 0; k * alongAxis < lines; ++k) {
      Value line = exchange.position;
      if (k)
        line = arith::AddIOp::create(builder, loc, line, i32(k * alongAxis));
      SmallVector<SmallVector<Value>> tuples;
      for (int64_t i = 0; i < exchange.numRanks(); ++i) {
        Value rank = exchange.rank(i);
        SmallVector<Value> &tuple = tuples.emplace_back();
        for (int64_t c = 0; c < arity; ++c)
          tuple.push_back(exchange.fromWord(LLVM::LoadOp::create(
              builder, loc, builder.getI32Type(),
              exchange.wordAddress(rank, c * lines, line))));
      }
      SmallVector<Value> total = combine(tuples);
      for (int64_t c = 0; c < arity; ++c)
        LLVM::StoreOp::create(builder, loc, exchange.toWord(total[c]),
                              exchange.wordAddress(first, c * lines, line));
    }
  }
  programBarrier(builder, loc, kernel);
  return exchange.read(first);
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
    Type type = getElementTypeOrSelf(op.getMax().getType());
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
    auto block = dyn_cast<RankedTensorType>(op.getLocalMax().getType());
    if (!block) {
      SmallVector<Value> stats = combineAcrossCTAs(
          rewriter, loc, kernel, ValueRange{localMax[0], localSum[0]}, identity,
          combine);
      rewriter.replaceOp(op, stats);
      return success();
    }
    // Blocks: each line's pair, taken from its group's first register (the
    // CTA-local all_reduces gave every register of a line the same value),
    // all lines in one exchange, back to every register of the line.
    Layout1D layout = layoutOf(block);
    auto [registerMask, threadMask, ctaMask] =
        axisBitsOf(block.getShape(), layout, *op.getAxis());
    if (!ctaMask)
      return rewriter.notifyMatchFailure(
          op, "the lines along the axis do not cross the cluster");
    SmallVector<int64_t> leaders;
    SmallVector<Value> maxes, sums;
    for (int64_t k = 0; k < layout.perThread(); ++k) {
      if (k & registerMask)
        continue;
      leaders.push_back(k);
      maxes.push_back(localMax[k]);
      sums.push_back(localSum[k]);
    }
    int64_t lines = int64_t(leaders.size());
    SmallVector<Value> pairs(maxes);
    pairs.append(sums);
    // A line's max over the CTAs, then the sum of their terms at it, in
    // rank order: every CTA computes the same bits.
    auto combinePairs = [&](ArrayRef<SmallVector<Value>> perCTA) {
      Value max = perCTA.front()[0];
      for (ArrayRef<Value> pair : perCTA.drop_front())
        max = combineReduction(rewriter, loc, ReduceKind::Max, max, pair[0]);
      Value sum;
      for (ArrayRef<Value> pair : perCTA) {
        Value next = term(pair[0], pair[1], max);
        sum = sum ? combineReduction(rewriter, loc, ReduceKind::Sum, sum, next)
                  : next;
      }
      return SmallVector<Value>{max, sum};
    };
    SmallVector<Value> totals = combineLineTuplesAcrossCTAs(
        rewriter, loc, kernel, pairs, /*arity=*/2, layout.threads, threadMask,
        ctaMask, combinePairs);
    SmallVector<Value> max, sum;
    for (int64_t k = 0; k < layout.perThread(); ++k) {
      int64_t line = llvm::find(leaders, k & ~registerMask) - leaders.begin();
      max.push_back(totals[line]);
      sum.push_back(totals[lines + line]);
    }
    rewriter.replaceOpWithMultiple(op, {max, sum});
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
  if (kernel.clusterBarriers.bytes()) {
    // Thread 0 makes both mbarriers, expecting one arrival (its own
    // expect_tx) per phase; the entry barrier publishes them to the
    // cluster before any CTA sends.
    OpBuilder::InsertionGuard guard(builder);
    enterThreadZero(builder, loc, kernel);
    for (int64_t half : {0, 1})
      inlinePtx(
          builder, loc, "mbarrier.init.shared::cta.b64 [$0], 1;", "r",
          {sharedAddress(builder, loc,
                         clusterMbarrier(builder, loc, kernel,
                                         i32Constant(builder, loc, half)))});
    inlinePtx(builder, loc, "fence.mbarrier_init.release.cluster;", "", {});
  }
  clusterBarrier(builder, loc);
  func.walk([&](func::ReturnOp ret) {
    builder.setInsertionPoint(ret);
    clusterBarrier(builder, loc);
  });
}

} // namespace blockjit::nvvm
