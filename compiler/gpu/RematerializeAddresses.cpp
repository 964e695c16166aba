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
// This pass clones the index arithmetic of each 2-D blk.load and blk.store
// (splats, constants, ranges, range broadcasts, expand_dims, addptr and
// integer elementwise ops on them) right in front of it, and marks the
// cloned ranges blkgpu.rematerialized: the lowering then derives their
// indices from a copy of the thread index that LLVM cannot see through
// (nothing computed from it is loop-invariant, or equal to another use's),
// so each access recomputes its addresses from a few live scalars (the
// thread index, the base pointers and strides). Anything else an address
// uses (a loaded block, a reduction) stays shared.
//
//===----------------------------------------------------------------------===//
#include "compiler/Passes.h"

#include "dialect/BlkDialect.h"
#include "dialect/gpu/BlkGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Iterators.h"

namespace blockjit {
#define GEN_PASS_DEF_BLKREMATERIALIZEADDRESSES
#include "compiler/Passes.h.inc"
} // namespace blockjit

using namespace mlir;
using namespace blockjit;

namespace {

/// Whether `op` is cheap index arithmetic that an access may recompute: a
/// splat, a splat constant, a range or a range broadcast (computed from the
/// thread index), expand_dims, addptr, or an arith op on integers (and
/// their i1 comparisons).
bool isIndexArithmetic(Operation *op) {
  if (op->getNumResults() != 1 || op->getNumRegions() != 0)
    return false;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type)
    return false;
  if (isa<blk::SplatOp, blk::MakeRangeOp, blk::ExpandDimsOp, blk::AddPtrOp>(op))
    return true;
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return isa<SplatElementsAttr>(constant.getValue());
  if (auto broadcast = dyn_cast<blk::BroadcastOp>(op))
    return blk::rangeBroadcastOf(broadcast).has_value();
  return op->getDialect()->getNamespace() == "arith" &&
         type.getElementType().isIntOrIndex() &&
         op->hasTrait<OpTrait::Elementwise>() && isMemoryEffectFree(op);
}

/// Clones the index arithmetic of one access in front of it.
class AccessCloner {
public:
  explicit AccessCloner(Operation *access) : builder(access) {}

  /// `value`, recomputed here if it is index arithmetic.
  Value clone(Value value) {
    if (Value done = mapping.lookupOrNull(value))
      return done;
    Operation *def = value.getDefiningOp();
    if (!def || !isIndexArithmetic(def))
      return value;
    for (Value operand : def->getOperands())
      clone(operand);
    Operation *copy = builder.clone(*def, mapping);
    if (isa<blk::MakeRangeOp, blk::BroadcastOp>(copy))
      threadIndexed.push_back(copy);
    return copy->getResult(0);
  }

  /// Marks the copied ranges and range broadcasts blkgpu.rematerialized
  /// (a range only if something reads its own elements: under range
  /// broadcasts alone it lowers to nothing).
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

/// Whether `value`'s index arithmetic reads the thread index (a range):
/// only then is there something per element to recompute.
bool usesRange(Value value, int budget = 64) {
  Operation *def = value.getDefiningOp();
  if (!def || !isIndexArithmetic(def) || budget <= 0)
    return false;
  if (isa<blk::MakeRangeOp>(def))
    return true;
  return llvm::any_of(def->getOperands(), [&](Value operand) {
    return usesRange(operand, budget - 1);
  });
}

struct BlkRematerializeAddresses
    : blockjit::impl::BlkRematerializeAddressesBase<BlkRematerializeAddresses> {
  void runOnOperation() override {
    SmallVector<Operation *> accesses;
    getOperation().walk([&](Operation *op) {
      Value pointers;
      if (auto load = dyn_cast<blk::LoadOp>(op))
        pointers = load.getPtr();
      else if (auto store = dyn_cast<blk::StoreOp>(op))
        pointers = store.getPtr();
      auto type = pointers ? dyn_cast<RankedTensorType>(pointers.getType())
                           : RankedTensorType();
      // 1-D blocks' addresses are a base and constant offsets already.
      if (type && type.getRank() >= 2 && usesRange(pointers))
        accesses.push_back(op);
    });
    for (Operation *access : accesses) {
      AccessCloner cloner(access);
      for (OpOperand &operand : access->getOpOperands())
        if (isa<RankedTensorType>(operand.get().getType()))
          operand.set(cloner.clone(operand.get()));
      cloner.markThreadIndexed();
    }
    // The originals that only the accesses used.
    getOperation().walk<WalkOrder::PostOrder, mlir::ReverseIterator>(
        [&](Operation *op) {
          if (isIndexArithmetic(op) && op->use_empty())
            op->erase();
        });
  }
};

} // namespace
