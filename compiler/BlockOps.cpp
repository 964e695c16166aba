//===- BlockOps.cpp - the op walk both block lowerings share -------------===//
#include "compiler/BlockOps.h"

#include "dialect/BlkDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;

LogicalResult
blockjit::walkBlockOps(Block &block, StringRef target,
                       function_ref<LogicalResult(scf::ForOp)> visitFor,
                       function_ref<LogicalResult(Operation *)> visitOp,
                       function_ref<bool(scf::IfOp)> ifMayCarryBlocks) {
  for (Operation &opRef : llvm::make_early_inc_range(block)) {
    Operation *op = &opRef;
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      if (failed(visitFor(loop)))
        return failure();
      continue;
    }
    // blk.scan's region combines scalars: the op is lowered as a whole.
    if (isa<blk::ScanOp>(op)) {
      if (failed(visitOp(op)))
        return failure();
      continue;
    }
    if (op->getNumRegions() > 0 && !isa<func::FuncOp>(op)) {
      // Other region ops (scf.if, scf.while) may hold blocks inside but must
      // not produce or take them.
      auto ifOp = dyn_cast<scf::IfOp>(op);
      bool mayCarry = ifOp && ifMayCarryBlocks && ifMayCarryBlocks(ifOp);
      if (blk::hasBlocks(op) && !mayCarry)
        return op->emitOpError() << "on blocks has no " << target
                                 << " lowering (only scf.for may carry blocks)";
      for (Region &region : op->getRegions())
        for (Block &inner : region)
          if (failed(walkBlockOps(inner, target, visitFor, visitOp,
                                  ifMayCarryBlocks)))
            return failure();
      continue;
    }
    if (isa<scf::YieldOp>(op) || !blk::hasBlocks(op))
      continue;
    if (failed(visitOp(op)))
      return failure();
  }
  return success();
}
