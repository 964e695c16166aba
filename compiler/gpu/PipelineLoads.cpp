//===- PipelineLoads.cpp - prefetch the next iteration's loads -----------===//
#include "compiler/Passes.h"
#include "compiler/Specialization.h"

#include "dialect/BlkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace blockjit {
#define GEN_PASS_DEF_BLKPIPELINELOADS
#include "compiler/Passes.h.inc"
} // namespace blockjit

using namespace mlir;
using namespace blockjit;

namespace {

/// The ops of `loop`'s body that `load`'s operands are computed from, in
/// program order, if they are all pure and read only the induction variable
/// and values from outside the loop.
std::optional<SmallVector<Operation *>> addressSlice(scf::ForOp loop,
                                                     blk::LoadOp load) {
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> worklist(load->getOperands());
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (v == loop.getInductionVar() || loop.isDefinedOutsideOfLoop(v))
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != loop.getBody() || !isPure(def) ||
        def->getNumRegions() != 0)
      return std::nullopt; // an iter_arg, a nested value or a side effect
    if (slice.insert(def))
      llvm::append_range(worklist, def->getOperands());
  }
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// The pointer a block of pointers or a pointer is computed from: through
/// addptr (its base), splat, broadcast and expand_dims. A function argument
/// when the kernel derives the pointer from a parameter.
Value pointerRoot(Value ptr) {
  while (Operation *def = ptr.getDefiningOp()) {
    if (auto op = dyn_cast<blk::AddPtrOp>(def))
      ptr = op.getPtr();
    else if (auto op = dyn_cast<blk::SplatOp>(def))
      ptr = op.getSrc();
    else if (auto op = dyn_cast<blk::BroadcastOp>(def))
      ptr = op.getSrc();
    else if (auto op = dyn_cast<blk::ExpandDimsOp>(def))
      ptr = op.getSrc();
    else
      break;
  }
  return ptr;
}

/// A root that is a parameter of the function: distinct parameters are
/// assumed to address memory that does not overlap within one loop.
bool isParameter(Value root) {
  auto arg = dyn_cast<BlockArgument>(root);
  return arg && isa<FunctionOpInterface>(arg.getOwner()->getParentOp());
}

/// What `loop` may write: the roots of its stores' pointers, and whether it
/// writes through anything else (a pointer not derived from a parameter, an
/// op with unknown or other write effects).
struct LoopWrites {
  llvm::SmallPtrSet<Value, 4> roots;
  bool unknown = false;

  explicit LoopWrites(scf::ForOp loop) {
    loop.getBody()->walk([&](Operation *op) {
      if (auto store = dyn_cast<blk::StoreOp>(op)) {
        Value root = pointerRoot(store.getPtr());
        if (isParameter(root))
          roots.insert(root);
        else
          unknown = true;
      } else if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
        unknown |= effects.hasEffect<MemoryEffects::Write>();
      } else if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()) {
        unknown = true;
      }
    });
  }

  /// Whether a store of the loop may write what `load` reads. Prefetching it
  /// would move it above that store (of this or the previous iteration) and
  /// read the old value.
  bool mayWrite(blk::LoadOp load) const {
    Value root = pointerRoot(load.getPtr());
    return unknown || !isParameter(root) || roots.contains(root);
  }
};

/// Emits `load` for the iteration whose induction variable is `iv`, `base`
/// advanced by whole steps, masked off entirely when `iv >= upper` or when
/// computing it wrapped around (`iv < base`: the step is positive), so that
/// rows near the top of the index type never load below the first; and
/// when `stepFits` (if given) is false.
Value emitLoadAt(OpBuilder &b, scf::ForOp loop, blk::LoadOp load,
                 ArrayRef<Operation *> slice, Value iv, Value base,
                 Value stepFits = Value()) {
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), iv);
  for (Operation *op : slice)
    b.clone(*op, mapping);
  Location loc = load.getLoc();
  // The loop's own comparison: a loop with unsigned bounds compares
  // unsigned.
  bool isUnsigned = loop.getUnsignedCmp();
  Value inRange = arith::CmpIOp::create(
      b, loc, isUnsigned ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt,
      iv, loop.getUpperBound());
  if (iv != base)
    inRange = arith::AndIOp::create(
        b, loc, inRange,
        arith::CmpIOp::create(b, loc,
                              isUnsigned ? arith::CmpIPredicate::uge
                                         : arith::CmpIPredicate::sge,
                              iv, base));
  if (stepFits)
    inRange = arith::AndIOp::create(b, loc, inRange, stepFits);
  Type ptrType = load.getPtr().getType();
  Value mask = inRange;
  if (auto tensor = dyn_cast<RankedTensorType>(ptrType))
    mask = blk::SplatOp::create(
        b, loc, RankedTensorType::get(tensor.getShape(), b.getI1Type()),
        inRange);
  if (load.getMask())
    mask = arith::AndIOp::create(b, loc,
                                 mapping.lookupOrDefault(load.getMask()), mask);
  Value other =
      load.getOther() ? mapping.lookupOrDefault(load.getOther()) : Value();
  return blk::LoadOp::create(b, loc, mapping.lookupOrDefault(load.getPtr()),
                             mask, other, load.getEvictionAttr());
}

/// Moves the loads of `loop` whose pointer, mask and `other` are all defined
/// outside it, and which no store of the loop may overwrite, in front of the
/// loop: one load instead of one per iteration (a layernorm's weights).
/// Masked off when the loop runs no iteration, so it touches no memory the
/// loop would not.
void hoistInvariantLoads(scf::ForOp loop, const LoopWrites &writes) {
  SmallVector<blk::LoadOp> invariant;
  for (auto load : loop.getBody()->getOps<blk::LoadOp>())
    if (!writes.mayWrite(load) &&
        llvm::all_of(load->getOperands(), [&](Value operand) {
          return loop.isDefinedOutsideOfLoop(operand);
        }))
      invariant.push_back(load);
  OpBuilder builder(loop);
  for (blk::LoadOp load : invariant) {
    Value hoisted =
        emitLoadAt(builder, loop, load, {}, loop.getLowerBound(),
                   loop.getLowerBound());
    load.getResult().replaceAllUsesWith(hoisted);
    load.erase();
  }
}

/// `iv` advanced by `k` steps of `loop`.
Value stepsAhead(OpBuilder &b, Location loc, scf::ForOp loop, Value iv,
                 int64_t k) {
  if (k == 0)
    return iv;
  Value step = loop.getStep();
  if (k > 1)
    step = arith::MulIOp::create(
        b, loc, step,
        arith::ConstantOp::create(b, loc,
                                  b.getIntegerAttr(step.getType(), k)));
  return arith::AddIOp::create(b, loc, iv, step);
}

/// Whether k steps of `loop` fit its index type, null when they always do
/// (k <= 1). iv + k * step then wraps, if at all, below iv, which
/// emitLoadAt's `iv >= base` test catches; a product k * step that wrapped
/// could land on a later valid iteration instead (a grid of 6e8 programs
/// eight steps ahead: 4.8e9 mod 2^32 is 5e8 rows further) and be taken for
/// the row k steps on.
Value stepFitsTimes(OpBuilder &b, Location loc, scf::ForOp loop, int64_t k) {
  if (k <= 1)
    return Value();
  Value step = loop.getStep();
  unsigned width =
      step.getType().isIndex() ? 64 : step.getType().getIntOrFloatBitWidth();
  bool isUnsigned = loop.getUnsignedCmp();
  APInt largest =
      isUnsigned ? APInt::getMaxValue(width) : APInt::getSignedMaxValue(width);
  APInt limit = isUnsigned ? largest.udiv(k) : largest.sdiv(k);
  Value bound = arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(step.getType(), limit));
  return arith::CmpIOp::create(b, loc,
                               isUnsigned ? arith::CmpIPredicate::ule
                                          : arith::CmpIPredicate::sle,
                               step, bound);
}

/// Prefetches `distance` iterations ahead: each load is carried through
/// `distance` iter_args, the oldest used by this iteration, and the body
/// starts with the load of iteration iv + distance * step.
LogicalResult pipeline(scf::ForOp loop, int64_t distance,
                       const LoopWrites &writes) {
  SmallVector<std::pair<blk::LoadOp, SmallVector<Operation *>>> loads;
  for (auto load : loop.getBody()->getOps<blk::LoadOp>()) {
    if (writes.mayWrite(load))
      continue;
    if (auto slice = addressSlice(loop, load))
      loads.push_back({load, std::move(*slice)});
  }
  if (loads.empty())
    return success();
  IRRewriter rewriter(loop.getContext());
  Location loc = loop.getLoc();
  // Prologue: the first `distance` iterations' loads, before the loop;
  // load j of iteration k is carried in iter_arg j * distance + k.
  rewriter.setInsertionPoint(loop);
  SmallVector<Value> prologue;
  for (auto &[load, slice] : loads)
    for (int64_t k = 0; k < distance; ++k)
      prologue.push_back(emitLoadAt(
          rewriter, loop, load, slice,
          stepsAhead(rewriter, loc, loop, loop.getLowerBound(), k),
          loop.getLowerBound(), stepFitsTimes(rewriter, loc, loop, k)));
  auto newLoop = cast<scf::ForOp>(
      *cast<LoopLikeOpInterface>(loop.getOperation())
           .replaceWithAdditionalYields(
               rewriter, prologue, /*replaceInitOperandUsesInLoop=*/false,
               [&](OpBuilder &b, Location loc,
                   ArrayRef<BlockArgument> carried) {
                 // The furthest iteration's loads go first, so their latency
                 // overlaps this and the next iterations' work.
                 OpBuilder::InsertionGuard guard(b);
                 Block *body = b.getInsertionBlock();
                 b.setInsertionPointToStart(body);
                 auto forOp = cast<scf::ForOp>(body->getParentOp());
                 Value ahead = stepsAhead(b, loc, forOp,
                                          forOp.getInductionVar(), distance);
                 Value fits = stepFitsTimes(b, loc, forOp, distance);
                 SmallVector<Value> yielded;
                 for (auto [j, entry] : llvm::enumerate(loads)) {
                   // Every carried load moves one iteration closer.
                   for (int64_t k = 1; k < distance; ++k)
                     yielded.push_back(carried[j * distance + k]);
                   // The slice ops now live in the new loop's body.
                   yielded.push_back(emitLoadAt(b, forOp, entry.first,
                                                entry.second, ahead,
                                                forOp.getInductionVar(), fits));
                 }
                 return yielded;
               }));
  unsigned first = newLoop.getNumRegionIterArgs() - prologue.size();
  for (auto [j, entry] : llvm::enumerate(loads)) {
    blk::LoadOp load = entry.first;
    load.getResult().replaceAllUsesWith(
        newLoop.getRegionIterArgs()[first + j * distance]);
    load.erase();
  }
  return success();
}

struct BlkPipelineLoads
    : blockjit::impl::BlkPipelineLoadsBase<BlkPipelineLoads> {
  using BlkPipelineLoadsBase::BlkPipelineLoadsBase;
  void runOnOperation() override {
    if (llvm::Error error = checkNumStages(numStages)) {
      getOperation().emitError() << llvm::toString(std::move(error));
      return signalPassFailure();
    }
    if (numStages == 1)
      return;
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      // Hoisting moves loads only: what the loop writes stays the same.
      LoopWrites writes(loop);
      hoistInvariantLoads(loop, writes);
      if (failed(pipeline(loop, numStages - 1, writes)))
        return signalPassFailure();
    }
  }
};

} // namespace
