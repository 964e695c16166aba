//===- WidenOffsets.cpp - pointer offsets in 64 bits ----------------------===//
//
// `ptr + row * stride + cols` traced with i32 integers wraps at 2^31
// elements. Each addptr gets the same offset computed in i64 instead; the
// i32 computation stays for other users and is erased by canonicalization
// when nothing else uses it.
//
//===----------------------------------------------------------------------===//
#include "compiler/Passes.h"

#include "dialect/BlkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"

namespace blockjit {
#define GEN_PASS_DEF_BLKWIDENOFFSETS
#include "compiler/Passes.h.inc"
} // namespace blockjit

using namespace mlir;
using namespace blockjit;

namespace {

class OffsetWidener {
public:
  explicit OffsetWidener(MLIRContext *context) : builder(context) {}

  /// `value` (i32 or a block of i32) as the same integer in i64.
  Value widen(Value value) {
    if (Value known = widened.lookup(value))
      return known;
    Value result = compute(value);
    widened[value] = result;
    return result;
  }

private:
  OpBuilder builder;
  DenseMap<Value, Value> widened;

  Type wideType(Value value) {
    return blk::withShapeOf(value.getType(), builder.getI64Type());
  }

  /// Places the builder right after `value` is defined.
  void insertAfterDefinition(Value value) {
    if (Operation *def = value.getDefiningOp())
      builder.setInsertionPointAfter(def);
    else
      builder.setInsertionPointToStart(cast<BlockArgument>(value).getOwner());
  }

  Value compute(Value value) {
    Operation *def = value.getDefiningOp();
    Type type = wideType(value);
    // Integer arithmetic is redone in i64; it cannot overflow there for any
    // offset that addresses memory, hence nsw.
    if (isa_and_nonnull<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def)) {
      Value lhs = widen(def->getOperand(0)), rhs = widen(def->getOperand(1));
      builder.setInsertionPointAfter(def);
      auto flags = arith::IntegerOverflowFlagsAttr::get(
          builder.getContext(), arith::IntegerOverflowFlags::nsw);
      OperationState state(def->getLoc(), def->getName());
      state.addOperands({lhs, rhs});
      state.addTypes(type);
      state.addAttribute("overflowFlags", flags);
      return builder.create(state)->getResult(0);
    }
    if (auto splat = dyn_cast_or_null<blk::SplatOp>(def)) {
      Value src = widen(splat.getSrc());
      builder.setInsertionPointAfter(def);
      return blk::SplatOp::create(builder, def->getLoc(), type, src);
    }
    if (auto bcast = dyn_cast_or_null<blk::BroadcastOp>(def)) {
      Value src = widen(bcast.getSrc());
      builder.setInsertionPointAfter(def);
      return blk::BroadcastOp::create(builder, def->getLoc(), type, src);
    }
    if (auto expand = dyn_cast_or_null<blk::ExpandDimsOp>(def)) {
      Value src = widen(expand.getSrc());
      builder.setInsertionPointAfter(def);
      return blk::ExpandDimsOp::create(builder, def->getLoc(), src,
                                       expand.getAxis());
    }
    // Shape ops move elements: the same moves of the widened elements.
    if (auto reshape = dyn_cast_or_null<blk::ReshapeOp>(def)) {
      Value src = widen(reshape.getSrc());
      builder.setInsertionPointAfter(def);
      return blk::ReshapeOp::create(builder, def->getLoc(), type, src);
    }
    if (auto permute = dyn_cast_or_null<blk::PermuteOp>(def)) {
      Value src = widen(permute.getSrc());
      builder.setInsertionPointAfter(def);
      return blk::PermuteOp::create(builder, def->getLoc(), src,
                                    permute.getOrder());
    }
    if (auto join = dyn_cast_or_null<blk::JoinOp>(def)) {
      Value lhs = widen(join.getLhs()), rhs = widen(join.getRhs());
      builder.setInsertionPointAfter(def);
      return blk::JoinOp::create(builder, def->getLoc(), lhs, rhs);
    }
    // Anything else is a leaf: sign-extend its value.
    insertAfterDefinition(value);
    return arith::ExtSIOp::create(builder, value.getLoc(), type, value);
  }
};

struct BlkWidenOffsets : blockjit::impl::BlkWidenOffsetsBase<BlkWidenOffsets> {
  void runOnOperation() override {
    OffsetWidener widener(&getContext());
    getOperation().walk([&](blk::AddPtrOp addptr) {
      Value offset = addptr.getOffset();
      auto integer =
          dyn_cast<IntegerType>(blk::elementTypeOf(offset.getType()));
      if (!integer || integer.getWidth() >= 64)
        return;
      addptr.getOffsetMutable().assign(widener.widen(offset));
    });
  }
};

} // namespace
