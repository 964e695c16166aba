//===- RematerializeAddresses.cpp - 2-D addresses computed where used ----===//
//
// A 2-D block's addresses and mask are per-element index arithmetic: each
// of a thread's rows is row * stride (64-bit) away from the base, each row
// has its own bound check. Computed once and shared by the load and the
// store of a block, or hoisted out of a loop (MLIR's and LLVM's LICM: they
// do not depend on the loop), they stay live in registers across the whole
// kernel: a whole-column softmax of 64 elements a thread held 2 x 16 row
// pointers and 16 masks through its reductions, 254 registers where its
// data takes 64, one CTA an SM instead of two.
//
// This pass clones the index arithmetic of the addresses and mask of each
// 2-D blk.load and blk.store (splats, splat constants, ranges, range
// broadcasts, expand_dims, addptr and cheap integer ops, no division) right
// in front of it, and marks the cloned range broadcasts (and ranges read
// directly) blkgpu.rematerialized: the lowering then derives their indices
// from a copy of the thread's first element index that LLVM cannot see
// through (nothing computed from it is loop-invariant, or equal to another
// use's), so each access recomputes its addresses from a few live scalars
// (the thread index, the base pointers and strides). Anything else an
// address uses (a loaded block, a reduction, a division) stays shared, and
// the originals nothing else uses are erased.
//
//===----------------------------------------------------------------------===//
#include "compiler/Passes.h"

#include "dialect/BlkDialect.h"
#include "dialect/gpu/BlkGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/SetVector.h"

namespace blockjit {
#define GEN_PASS_DEF_BLKREMATERIALIZEADDRESSES
#include "compiler/Passes.h.inc"
} // namespace blockjit

using namespace mlir;
using namespace blockjit;

/// Whether `op` is integer arithmetic that is as cheap to recompute as to
/// keep (no division: LICM hoists those for a reason).
static bool isCheapIntegerOp(Operation *op) {
  if (!isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::AndIOp,
           arith::OrIOp, arith::XOrIOp, arith::ShLIOp, arith::ShRSIOp,
           arith::ShRUIOp, arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp,
           arith::CmpIOp, arith::SelectOp, arith::MinSIOp, arith::MaxSIOp,
           arith::MinUIOp, arith::MaxUIOp>(op))
    return false;
  return llvm::all_of(op->getOperandTypes(), [](Type type) {
    return getElementTypeOrSelf(type).isIntOrIndex();
  });
}

/// Whether `op` is cheap index arithmetic that an access may recompute: a
/// splat, a splat constant, a range or a range broadcast (computed from the
/// thread index), expand_dims, addptr, or cheap integer arithmetic, each
/// giving a block.
static bool isIndexArithmetic(Operation *op) {
  if (op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return false;
  if (isa<blk::SplatOp, blk::MakeRangeOp, blk::ExpandDimsOp, blk::AddPtrOp>(op))
    return true;
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return isa<SplatElementsAttr>(constant.getValue());
  if (auto broadcast = dyn_cast<blk::BroadcastOp>(op))
    return blk::rangeBroadcastOf(broadcast).has_value();
  return isCheapIntegerOp(op);
}

namespace {

/// Clones the index arithmetic of one access in front of it.
class AccessCloner {
public:
  explicit AccessCloner(Operation *access) : builder(access) {}

  /// `value`, recomputed here if it is index arithmetic. The originals
  /// replaced go to `originals`.
  Value clone(Value value, SetVector<Operation *> &originals) {
    if (Value done = mapping.lookupOrNull(value))
      return done;
    Operation *def = value.getDefiningOp();
    if (!def || !isIndexArithmetic(def))
      return value;
    for (Value operand : def->getOperands())
      clone(operand, originals);
    Operation *copy = builder.clone(*def, mapping);
    originals.insert(def);
    if (isa<blk::MakeRangeOp, blk::BroadcastOp>(copy))
      threadIndexed.push_back(copy);
    return copy->getResult(0);
  }

  /// Marks the copied range broadcasts blkgpu.rematerialized, and the
  /// copied ranges that something reads directly (under range broadcasts
  /// alone a range lowers to nothing).
  void markThreadIndexed() {
    for (Operation *op : threadIndexed)
      if (!isa<blk::MakeRangeOp>(op) ||
          !onlyUnderRangeBroadcasts(op->getResult(0)))
        op->setAttr(blkgpu::BlkGPUDialect::kRematerializedAttrName,
                    builder.getUnitAttr());
  }

private:
  static bool onlyUnderRangeBroadcasts(Value value) {
    return llvm::all_of(value.getUsers(), [](Operation *user) {
      if (auto expand = dyn_cast<blk::ExpandDimsOp>(user))
        return onlyUnderRangeBroadcasts(expand.getResult());
      auto broadcast = dyn_cast<blk::BroadcastOp>(user);
      return broadcast && blk::rangeBroadcastOf(broadcast).has_value();
    });
  }

  OpBuilder builder;
  IRMapping mapping;
  SmallVector<Operation *> threadIndexed;
};

/// Whether values' index arithmetic reads the thread index (a range): only
/// then is there something per element to recompute. Memoized: index
/// arithmetic is a DAG.
class RangeUse {
public:
  bool operator()(Value value) {
    auto [it, inserted] = known.try_emplace(value, false);
    if (!inserted)
      return it->second;
    Operation *def = value.getDefiningOp();
    bool uses = def && isIndexArithmetic(def) &&
                (isa<blk::MakeRangeOp>(def) ||
                 llvm::any_of(def->getOperands(),
                              [&](Value operand) { return (*this)(operand); }));
    known[value] = uses;
    return uses;
  }

private:
  DenseMap<Value, bool> known;
};

/// The address and mask operands of a blk.load or blk.store of a block of
/// rank 2 or more whose addresses read a range (1-D accesses are one base
/// and per-element constants already); none for anything else
/// (blkgpu.async_load and the atomics keep theirs).
SmallVector<OpOperand *> addressOperands(Operation *op, RangeUse &usesRange) {
  OpOperand *pointers = nullptr, *mask = nullptr;
  if (auto load = dyn_cast<blk::LoadOp>(op)) {
    pointers = &load.getPtrMutable();
    if (load.getMask())
      mask = &load.getMaskMutable()[0];
  } else if (auto store = dyn_cast<blk::StoreOp>(op)) {
    pointers = &store.getPtrMutable();
    if (store.getMask())
      mask = &store.getMaskMutable()[0];
  }
  auto type = pointers ? dyn_cast<RankedTensorType>(pointers->get().getType())
                       : RankedTensorType();
  if (!type || type.getRank() < 2 || !usesRange(pointers->get()))
    return {};
  SmallVector<OpOperand *> operands{pointers};
  if (mask)
    operands.push_back(mask);
  return operands;
}

struct BlkRematerializeAddresses
    : blockjit::impl::BlkRematerializeAddressesBase<BlkRematerializeAddresses> {
  void runOnOperation() override {
    RangeUse usesRange;
    SmallVector<std::pair<Operation *, SmallVector<OpOperand *>>> accesses;
    getOperation().walk([&](Operation *op) {
      SmallVector<OpOperand *> operands = addressOperands(op, usesRange);
      if (!operands.empty())
        accesses.push_back({op, std::move(operands)});
    });
    SetVector<Operation *> originals;
    for (auto &[access, operands] : accesses) {
      AccessCloner cloner(access);
      for (OpOperand *operand : operands)
        operand->set(cloner.clone(operand->get(), originals));
      cloner.markThreadIndexed();
    }
    // The originals nothing else uses, users before their operands.
    SmallVector<Operation *> worklist(originals.begin(), originals.end());
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      if (!originals.contains(op) || !op->use_empty())
        continue;
      originals.remove(op);
      SmallVector<Operation *> operands;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          operands.push_back(def);
      op->erase();
      worklist.append(operands);
    }
  }
};

} // namespace
