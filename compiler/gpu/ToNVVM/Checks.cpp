//===- Checks.cpp - which block ops the GPU lowering supports ------------===//
//
// Checked before the conversion rewrites anything, so that an unsupported
// op fails with an error that names it and says why, rather than with the
// conversion driver's "failed to legalize".
//
//===----------------------------------------------------------------------===//
#include "compiler/Atomics.h"
#include "compiler/BlockOps.h"
#include "compiler/VerifyKernels.h"
#include "compiler/gpu/ToNVVM/Lowering.h"

#include "dialect/gpu/BlkGPUDialect.h"

#include "dialect/BlkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace blockjit::nvvm {
namespace {

/// A reduction of `src` split over a cluster whose partials cannot cross it
/// (partialsCrossCluster) is an error.
LogicalResult checkClusterPartials(Operation *op, RankedTensorType src) {
  std::optional<Layout1D> layout = linearLayoutOf(src);
  if (layout && layout->split() && !partialsCrossCluster(src.getElementType()))
    return op->emitOpError()
           << "of " << src.getElementType()
           << " on a block split over a cluster is not supported on the GPU "
              "yet";
  return success();
}

LogicalResult checkOp(Operation *op) {
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    if (!isa<SplatElementsAttr>(constant.getValue()))
      return op->emitOpError()
             << "non-splat block constants are not supported on the GPU";
    return success();
  }
  if (auto allReduce = dyn_cast<blkgpu::AllReduceOp>(op)) {
    // blk-assign-layouts splits it only where the cluster buffer holds its
    // lines; hand-written IR may split any.
    RankedTensorType type = allReduce.getSrc().getType();
    if (failed(checkClusterPartials(op, type)))
      return failure();
    std::optional<Layout1D> layout = linearLayoutOf(type);
    if (!layout || !layout->split())
      return success();
    int64_t bytes =
        clusterAllReduceBytes(type.getShape(), *layout, allReduce.getAxis());
    if (bytes > kMaxClusterAllReduceBytes)
      return allReduce.emitOpError()
             << "along axis " << allReduce.getAxis()
             << " of a block split over a cluster would exchange " << bytes
             << " bytes through the cluster buffer; at most "
             << kMaxClusterAllReduceBytes
             << " (blk-assign-layouts runs such a kernel in one CTA)";
    return success();
  }
  if (auto broadcast = dyn_cast<blk::BroadcastOp>(op)) {
    // Gathered from the source every CTA holds whole; a range computed in
    // place. blk-assign-layouts splits no other source.
    std::optional<Layout1D> layout =
        linearLayoutOf(broadcast.getSrc().getType());
    if (layout && layout->split() && !blk::rangeBroadcastOf(broadcast))
      return broadcast.emitOpError()
             << "of a block split over the CTAs of a cluster has no GPU "
                "lowering (blk-assign-layouts runs such a kernel in one CTA)";
    return success();
  }
  if (auto reduce = dyn_cast<blk::ReduceOp>(op))
    return checkClusterPartials(op, reduce.getSrc().getType());
  // Every blk op has a pattern, and so has every elementwise op.
  if (isa<blk::BlkDialect, blkgpu::BlkGPUDialect>(op->getDialect()) ||
      (op->hasTrait<OpTrait::Elementwise>() && op->getNumResults() == 1))
    return success();
  return op->emitOpError() << "on blocks has no GPU lowering";
}

LogicalResult checkBlock(Block &block) {
  return walkBlockOps(
      block, "GPU", [](scf::ForOp loop) { return checkBlock(*loop.getBody()); },
      checkOp,
      [](scf::IfOp ifOp) {
        return ifOp->hasAttr(blkgpu::BlkGPUDialect::kVersionedAccessAttrName);
      });
}

} // namespace

LogicalResult checkGPULowering(func::FuncOp func) {
  // Blocks are built inside a program; a kernel's parameters are scalars
  // and pointers (checked again: this pass may run alone).
  if (failed(verifyKernelSignature(func)))
    return failure();
  // Atomics, on blocks and scalar pointers: their element types.
  WalkResult atomics = func.walk([](Operation *op) {
    if (isa<blk::AtomicRMWOp, blk::AtomicCASOp>(op) &&
        failed(checkAtomicSupported(op, "GPU")))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (atomics.wasInterrupted())
    return failure();
  return checkBlock(func.getBody().front());
}

} // namespace blockjit::nvvm
