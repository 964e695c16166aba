//===- StageInShared.cpp - blocks too large for registers kept on chip ---===//
//
// blk-stage-in-shared: a loaded block whose share of each thread would not
// fit in registers is copied into shared memory (blkgpu.async_load, one
// HBM read) and read back right before each use (blkgpu.local_load);
// elementwise values computed from it are recomputed per use rather than
// held across reductions. Rows a loop loads ahead (blk-pipeline-loads)
// whose copies would not fit in registers wait in shared memory instead,
// a ring of buffers the loop carries. See compiler/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "compiler/Passes.h"
#include "compiler/Specialization.h"
#include "compiler/gpu/Layout.h"

#include "dialect/BlkDialect.h"
#include "dialect/gpu/BlkGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace blockjit {
#define GEN_PASS_DEF_BLKSTAGEINSHARED
#include "compiler/Passes.h.inc"
} // namespace blockjit

using namespace mlir;
using namespace blockjit;

namespace {

/// 32-bit registers a thread may give one block before it should live in
/// shared memory: softmax keeps about one block live at a time, and a
/// thread has 255 registers (ptxas spills past them).
constexpr int64_t kMaxRegisterWordsPerBlock = 128;

/// The linear layout of `load`'s block; none for a scalar load or a block
/// the lowering lays out otherwise.
std::optional<Layout1D> blockLayoutOf(blk::LoadOp load) {
  auto type = dyn_cast<RankedTensorType>(load.getType());
  return type ? linearLayoutOf(type) : std::nullopt;
}

/// The 32-bit registers each thread gives `load`'s block (which has a
/// linear layout): one set for the registers a stretched row repeats.
int64_t registerWordsOf(blk::LoadOp load) {
  auto type = cast<RankedTensorType>(load.getType());
  int64_t words = (blk::elementBytes(type.getElementType()) + 3) / 4;
  Layout1D layout = layoutOf(type);
  int64_t repeats = int64_t(1) << llvm::popcount(
                        uint64_t(stretchedRegisterBits(load, layout)));
  return layout.perThread() / repeats * std::max<int64_t>(1, words);
}

/// Whether `load`'s block can be kept in shared memory: numbers in a
/// linear layout that no thread holds twice (a stretched row is, in
/// registers, already held once).
bool canStage(blk::LoadOp load) {
  std::optional<Layout1D> layout = blockLayoutOf(load);
  return layout && !layout->replicated() &&
         !load->hasAttr(blkgpu::BlkGPUDialect::kStretchedDimsAttrName) &&
         cast<RankedTensorType>(load.getType()).getElementType().isIntOrFloat();
}

/// The loads to keep on chip: blocks whose share of a thread would exceed
/// the register budget, unless their value is carried around a loop.
SmallVector<blk::LoadOp> oversizedLoads(ModuleOp module) {
  SmallVector<blk::LoadOp> loads;
  module.walk([&](blk::LoadOp load) {
    if (!canStage(load) || registerWordsOf(load) <= kMaxRegisterWordsPerBlock)
      return;
    if (llvm::any_of(load->getUsers(),
                     [](Operation *user) { return isa<scf::YieldOp>(user); }))
      return;
    loads.push_back(load);
  });
  return loads;
}

/// Whether `op` is cheap to recompute per use: an elementwise op on blocks.
bool isRecomputable(Operation *op) {
  return op->hasTrait<OpTrait::Elementwise>() && op->getNumResults() == 1 &&
         op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
         blk::isBlock(op->getResult(0).getType());
}

/// Whether `value` is used inside a loop, directly or through elementwise
/// ops outside it (LICM hoists a bf16 weight's widening next to its load).
bool usedInLoop(Value value) {
  return llvm::any_of(value.getUsers(), [](Operation *user) {
    return user->getParentOfType<scf::ForOp>() != nullptr ||
           (isRecomputable(user) && usedInLoop(user->getResult(0)));
  });
}

/// Loads hoisted in front of a loop that uses them (a layernorm's weight and
/// bias, blk-pipeline-loads' invariant-load hoist) stay in registers
/// through every iteration, beside the loop's own blocks and their
/// prefetched copies. When all the function's block loads together ask more
/// of a thread than liveRegisterWords, the hoisted ones, largest first, are
/// kept in shared memory instead and read back where the loop uses them.
SmallVector<blk::LoadOp> hoistedLoadsToStage(ModuleOp module,
                                             ArrayRef<blk::LoadOp> oversized,
                                             ArrayRef<blk::LoadOp> prefetched,
                                             int64_t prefetchedWords,
                                             int64_t threads) {
  int64_t live = prefetchedWords;
  SmallVector<blk::LoadOp> hoisted;
  module.walk([&](blk::LoadOp load) {
    if (!blockLayoutOf(load) || llvm::is_contained(oversized, load) ||
        llvm::is_contained(prefetched, load))
      return;
    live += registerWordsOf(load);
    if (!canStage(load) || load->getParentOfType<scf::ForOp>())
      return;
    if (usedInLoop(load.getResult()))
      hoisted.push_back(load);
  });
  llvm::stable_sort(hoisted, [](blk::LoadOp a, blk::LoadOp b) {
    return registerWordsOf(a) > registerWordsOf(b);
  });
  SmallVector<blk::LoadOp> staged;
  for (blk::LoadOp load : hoisted) {
    if (live <= liveRegisterWords(threads))
      break;
    staged.push_back(load);
    live -= registerWordsOf(load);
  }
  return staged;
}

/// The bytes a loaded block takes in a CTA's shared memory: its CTA's share,
/// rounded up so the next block starts 16-byte aligned.
int64_t sharedBytesOf(blk::LoadOp load) {
  auto type = cast<RankedTensorType>(load.getType());
  return llvm::alignTo(
      layoutOf(type).piece() * blk::elementBytes(type.getElementType()), 16);
}

/// The layout of the block kept in shared memory: each CTA's share in its
/// own row-major order, where each thread finds its elements of the
/// register layout.
blkgpu::SharedLayoutAttr sharedLayoutFor(RankedTensorType type) {
  auto blocked = cast<blkgpu::BlockedLayoutAttr>(type.getEncoding());
  SmallVector<unsigned> order;
  for (unsigned d = type.getRank(); d-- > 0;)
    order.push_back(d);
  blkgpu::CTALayout cta = blocked.getCTALayout();
  return blkgpu::SharedLayoutAttr::get(type.getContext(), /*vec=*/1,
                                       /*perPhase=*/1, /*maxPhase=*/1, order,
                                       cta.CTAsPerCluster, cta.CTASplitNum,
                                       cta.CTAOrder);
}

/// An async_load of what `load` loads, at `offset` of the dynamic shared
/// memory (at `builder`'s point).
blkgpu::AsyncLoadOp asyncLoadAt(OpBuilder &builder, blk::LoadOp load,
                                int64_t offset) {
  auto type = cast<RankedTensorType>(load.getType());
  auto sharedType = RankedTensorType::get(
      type.getShape(), type.getElementType(), sharedLayoutFor(type));
  return blkgpu::AsyncLoadOp::create(
      builder, load.getLoc(), sharedType, load.getPtr(), load.getMask(),
      load.getOther(), /*into=*/Value(), builder.getI64IntegerAttr(offset),
      load.getEvictionAttr());
}

/// A row that blk-pipeline-loads loads `distance` iterations ahead: the
/// loop carries it through iter_args `first` .. `first + distance - 1`
/// (the body reads `first`; each later one is passed on to the one before),
/// `ahead` loads the row `distance` iterations on, and `prologue[k]` loads
/// the k-th row before the loop.
struct PrefetchChain {
  scf::ForOp loop;
  unsigned first = 0;
  unsigned distance = 0;
  blk::LoadOp ahead;
  SmallVector<blk::LoadOp> prologue;

  SmallVector<blk::LoadOp> loads() const {
    SmallVector<blk::LoadOp> all(prologue);
    all.push_back(ahead);
    return all;
  }
};

/// The chain that yields `ahead` at `position`, if the loop only carries
/// it (as blk-pipeline-loads leaves it) and every copy can live in shared
/// memory.
std::optional<PrefetchChain> chainEndingAt(scf::ForOp loop, unsigned position,
                                           blk::LoadOp ahead) {
  if (!canStage(ahead) || !ahead->hasOneUse())
    return std::nullopt;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  auto iterArgs = loop.getRegionIterArgs();
  auto onlyPassedOn = [&](unsigned p) {
    Value arg = iterArgs[p];
    return p > 0 && arg.hasOneUse() && *arg.getUsers().begin() == yield &&
           yield.getOperand(p - 1) == arg;
  };
  unsigned first = position;
  while (onlyPassedOn(first))
    --first;
  if (llvm::is_contained(yield->getOperands(), iterArgs[first]))
    return std::nullopt;
  PrefetchChain chain{loop, first, position - first + 1, ahead, {}};
  for (unsigned p = first; p <= position; ++p) {
    auto load = loop.getInitArgs()[p].getDefiningOp<blk::LoadOp>();
    if (!load || !load->hasOneUse() || load.getType() != ahead.getType() ||
        load->getBlock() != loop->getBlock() || !loop.getResult(p).use_empty())
      return std::nullopt;
    chain.prologue.push_back(load);
  }
  return chain;
}

/// The rows each loop loads ahead that should wait in shared memory, one
/// entry per loop (its chains share the loop's wait): all of a loop's
/// chains of one distance when their copies in registers (the row in use
/// and those in flight) would take more than liveRegisterWords.
SmallVector<SmallVector<PrefetchChain>> chainsToStage(ModuleOp module,
                                                      int64_t threads) {
  SmallVector<SmallVector<PrefetchChain>> staged;
  module.walk([&](scf::ForOp loop) {
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    SmallVector<PrefetchChain> chains;
    int64_t words = 0;
    for (auto [position, value] : llvm::enumerate(yield.getOperands())) {
      auto ahead = value.getDefiningOp<blk::LoadOp>();
      if (!ahead || ahead->getBlock() != loop.getBody())
        continue;
      std::optional<PrefetchChain> chain =
          chainEndingAt(loop, unsigned(position), ahead);
      if (!chain ||
          (!chains.empty() && chain->distance != chains.front().distance))
        continue;
      words += (chain->distance + 1) * registerWordsOf(ahead);
      chains.push_back(std::move(*chain));
    }
    if (words > liveRegisterWords(threads))
      staged.push_back(std::move(chains));
  });
  return staged;
}

/// Whether `mask` compares with a bound LLVM will know: a constant, or a
/// mask bound the trace clamped to its range (arith.minsi), splat over the
/// block. Only such masks are worth repeating at a local_load: LLVM folds
/// them for the vectors the range decides, while a select per element on
/// a mask known only at run time would cost an instruction each.
bool comparesWithAKnownBound(Value mask) {
  auto compare = mask.getDefiningOp<arith::CmpIOp>();
  if (!compare)
    return false;
  return llvm::any_of(compare->getOperands(), [](Value side) {
    if (auto splat = side.getDefiningOp<blk::SplatOp>())
      side = splat.getSrc();
    Operation *def = side.getDefiningOp();
    return def && (isa<arith::MinSIOp>(def) ||
                   matchPattern(side, m_Constant()));
  });
}

/// A conjunct of `mask` defined outside `loop` (the mask itself, or one
/// side of an `andi`; blk-pipeline-loads masks a row ahead with
/// `mask & splat(row in range)`) that compares with a known bound, or
/// null. Any conjunct is true wherever the mask is, so the elements it
/// leaves out were left out by the load too, and their slots hold its
/// `other`.
Value loopInvariantConjunct(scf::ForOp loop, Value mask) {
  if (!mask)
    return mask;
  if (loop.isDefinedOutsideOfLoop(mask) && comparesWithAKnownBound(mask))
    return mask;
  auto both = mask.getDefiningOp<arith::AndIOp>();
  if (!both)
    return Value();
  for (Value side : both->getOperands())
    if (Value conjunct = loopInvariantConjunct(loop, side))
      return conjunct;
  return Value();
}

/// Moves a loop's prefetched rows into shared memory: the prologue loads
/// become async_loads at `offset` onwards (row k of every chain before row
/// k + 1 of any, so each row is one group in issue order), the loop
/// carries the blocks in shared memory, and each iteration waits for its
/// row, reads it into registers once and starts the row `distance` ahead
/// in the buffer it just read. Returns the bytes used.
int64_t stageChains(ArrayRef<PrefetchChain> chains, int64_t offset) {
  scf::ForOp loop = chains.front().loop;
  unsigned distance = chains.front().distance;
  int64_t start = offset;
  OpBuilder before(loop);
  for (unsigned k = 0; k < distance; ++k)
    for (const PrefetchChain &chain : chains) {
      blk::LoadOp load = chain.prologue[k];
      auto copy = asyncLoadAt(before, load, offset);
      offset += sharedBytesOf(load);
      unsigned p = chain.first + k;
      loop.getInitArgsMutable()[p].set(copy.getResult());
      loop.getRegionIterArgs()[p].setType(copy.getType());
      loop.getResult(p).setType(copy.getType());
      load.erase();
    }
  Block *body = loop.getBody();
  OpBuilder top = OpBuilder::atBlockBegin(body);
  blkgpu::AsyncWaitOp::create(
      top, loop.getLoc(),
      top.getI32IntegerAttr(int32_t(chains.size() * (distance - 1))));
  for (const PrefetchChain &chain : chains) {
    blk::LoadOp ahead = chain.ahead;
    Value carried = loop.getRegionIterArgs()[chain.first];
    // The part of the row's mask the loop does not change (softmax's
    // cols < n_cols) reads the elements it leaves out as `other`, which
    // LLVM can then fold.
    Value mask = loopInvariantConjunct(loop, ahead.getMask());
    Value other = ahead.getOther();
    if (other && !loop.isDefinedOutsideOfLoop(other))
      mask = Value();
    auto row = blkgpu::LocalLoadOp::create(top, ahead.getLoc(),
                                           ahead.getType(), carried, mask,
                                           mask ? other : Value());
    carried.replaceAllUsesExcept(row.getResult(), row);
  }
  for (const PrefetchChain &chain : chains) {
    blk::LoadOp load = chain.ahead;
    Value buffer = loop.getRegionIterArgs()[chain.first];
    OpBuilder at(load);
    auto copy = blkgpu::AsyncLoadOp::create(
        at, load.getLoc(), buffer.getType(), load.getPtr(), load.getMask(),
        load.getOther(), buffer, IntegerAttr(), load.getEvictionAttr());
    load.getResult().replaceAllUsesWith(copy.getResult());
    load.erase();
  }
  // No copy is left in flight (the last ones are masked off) past the loop.
  OpBuilder after(loop->getBlock(), std::next(loop->getIterator()));
  blkgpu::AsyncWaitOp::create(after, loop.getLoc(), after.getI32IntegerAttr(0));
  return offset - start;
}

/// Gives each use of a value derived from a kept block its own copy of the
/// elementwise ops that compute it, placed right before the use, so that
/// no thread holds the block while a reduction runs. Ops are visited last
/// first: a value's users have their copies by the time it is copied.
void recomputePerUse(func::FuncOp func) {
  llvm::SetVector<Operation *> derived;
  func.walk([&](Operation *op) {
    // A row loaded ahead is read once per iteration (its buffer is then
    // reused for the next row): only blocks read per use start a chain.
    auto read = dyn_cast<blkgpu::LocalLoadOp>(op);
    if ((read && read.getSrc().getDefiningOp<blkgpu::AsyncLoadOp>()) ||
        (isRecomputable(op) &&
         llvm::any_of(op->getOperands(), [&](Value operand) {
           Operation *def = operand.getDefiningOp();
           return def && derived.contains(def);
         })))
      derived.insert(op);
  });
  for (Operation *op : llvm::reverse(derived)) {
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : op->getResult(0).getUses())
      uses.push_back(&use);
    // The first use keeps the original and it moves next to that use,
    // unless that use is in another block (a loop's body, where a hoisted
    // value is used): there every use gets a copy, so that nothing derived
    // from the block stays live across the loop.
    bool keep =
        !uses.empty() && uses.front()->getOwner()->getBlock() == op->getBlock();
    for (OpOperand *use : keep ? llvm::drop_begin(uses) : ArrayRef(uses)) {
      OpBuilder builder(use->getOwner());
      use->set(builder.clone(*op)->getResult(0));
    }
    if (keep)
      op->moveBefore(uses.front()->getOwner());
    else
      op->erase();
  }
}

struct BlkStageInShared
    : blockjit::impl::BlkStageInSharedBase<BlkStageInShared> {
  using BlkStageInSharedBase::BlkStageInSharedBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Without layouts (no num_warps) nothing is laid out per thread.
    int64_t threads = threadsPerCTAOf(module);
    SmallVector<blk::LoadOp> loads = oversizedLoads(module);
    SmallVector<SmallVector<PrefetchChain>> loopChains;
    if (threads)
      loopChains = chainsToStage(module, threads);
    SmallVector<blk::LoadOp> chainLoads;
    int64_t chainWords = 0, chainBytes = 0, chainCount = 0;
    for (const SmallVector<PrefetchChain> &chains : loopChains)
      for (const PrefetchChain &chain : chains) {
        llvm::append_range(chainLoads, chain.loads());
        blk::LoadOp ahead = chain.ahead;
        chainWords += registerWordsOf(ahead);
        chainBytes += chain.distance * sharedBytesOf(ahead);
        ++chainCount;
      }
    // A prologue's load may be oversized too: its chain keeps it.
    llvm::erase_if(loads, [&](blk::LoadOp load) {
      return llvm::is_contained(chainLoads, load);
    });
    if (threads)
      llvm::append_range(loads, hoistedLoadsToStage(module, loads, chainLoads,
                                                    chainWords, threads));
    if (loads.empty() && loopChains.empty())
      return;
    // Programs sharing a CTA would each need the dynamic array: the blocks
    // stay in registers (the tuner shares CTAs only among small programs).
    if (int programs = programsPerCTAOf(module); programs > 1) {
      if (!loads.empty())
        setResidency("registers: " + std::to_string(programs) +
                     " programs share each CTA (programs_per_cta); shared "
                     "memory keeps blocks of one program per CTA only");
      return;
    }
    int64_t bytes = 0;
    for (blk::LoadOp load : loads)
      bytes += sharedBytesOf(load);
    int64_t capacity = sharedMemoryForBlocks(smArch);
    if (bytes > capacity) {
      setResidency("registers: the blocks too large for them need " +
                   std::to_string(bytes) +
                   " bytes of shared memory per CTA, more than " +
                   std::to_string(capacity) + " on sm_" +
                   std::to_string(smArch));
      return;
    }
    std::string prefetchNote;
    if (!loopChains.empty() && bytes + chainBytes > capacity) {
      prefetchNote = "; rows loaded ahead stay in registers: they need " +
                     std::to_string(chainBytes) +
                     " more bytes of shared memory per CTA";
      loopChains.clear();
      if (loads.empty()) {
        setResidency(prefetchNote.substr(2));
        return;
      }
    }
    int64_t offset = 0;
    for (blk::LoadOp load : loads)
      offset += stageBlock(load, offset);
    for (const SmallVector<PrefetchChain> &chains : loopChains)
      offset += stageChains(chains, offset);
    module->setAttr(
        blkgpu::BlkGPUDialect::kDynamicSharedBytesAttrName,
        IntegerAttr::get(IntegerType::get(&getContext(), 64), offset));
    std::string note;
    if (!loads.empty())
      note = std::to_string(loads.size()) + " block(s) kept in shared memory";
    if (!loopChains.empty())
      note += std::string(note.empty() ? "" : "; ") +
              std::to_string(chainCount) +
              " block(s) loaded ahead into shared memory (" +
              std::to_string(loopChains.front().front().distance) +
              " row(s) in flight)";
    setResidency((note.empty() ? std::string("registers") : note) +
                 prefetchNote);
    for (func::FuncOp func : module.getOps<func::FuncOp>())
      recomputePerUse(func);
  }

private:
  void setResidency(const std::string &text) {
    getOperation()->setAttr(blkgpu::BlkGPUDialect::kResidencyAttrName,
                            StringAttr::get(&getContext(), text));
  }

  /// Keeps `load`'s block at `offset` of the dynamic shared memory and
  /// reads it back before each use; returns the bytes it takes.
  int64_t stageBlock(blk::LoadOp load, int64_t offset) {
    auto type = cast<RankedTensorType>(load.getType());
    OpBuilder builder(load);
    auto staged = asyncLoadAt(builder, load, offset);
    blkgpu::AsyncWaitOp::create(builder, load.getLoc(),
                                builder.getI32IntegerAttr(0));
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : load->getUses())
      uses.push_back(&use);
    for (OpOperand *use : uses) {
      OpBuilder atUse(use->getOwner());
      Value mask = load.getMask() && comparesWithAKnownBound(load.getMask())
                       ? load.getMask()
                       : Value();
      use->set(blkgpu::LocalLoadOp::create(atUse, load.getLoc(), type,
                                           staged.getResult(), mask,
                                           mask ? load.getOther() : Value()));
    }
    int64_t bytes = sharedBytesOf(load);
    load.erase();
    return bytes;
  }
};

} // namespace
