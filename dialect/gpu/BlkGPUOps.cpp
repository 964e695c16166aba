//===- BlkGPUOps.cpp - GPU-only operations: verifiers ---------------------===//
#include "dialect/gpu/BlkGPUDialect.h"
#include "dialect/BlkDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;
using namespace blockjit::blkgpu;

#define GET_OP_CLASSES
#include "dialect/gpu/BlkGPUOps.cpp.inc"

LogicalResult ClusterSoftmaxStatsOp::verify() {
  auto module = (*this)->getParentOfType<ModuleOp>();
  auto ctas = module ? module->getAttrOfType<IntegerAttr>(
                           BlkGPUDialect::kNumCTAsAttrName)
                     : IntegerAttr();
  if (!ctas || ctas.getInt() < 2)
    return emitOpError() << "exchanges across the CTAs of a cluster: it needs "
                         << "a module with " << BlkGPUDialect::kNumCTAsAttrName
                         << " of 2 or more";
  auto block = dyn_cast<RankedTensorType>(getLocalMax().getType());
  std::optional<uint32_t> axis = getAxis();
  if (!block) {
    if (axis)
      return emitOpError() << "takes an axis only with blocks (the lines of "
                              "a block along it), not scalars";
    return success();
  }
  if (!axis)
    return emitOpError() << "of blocks needs the axis their lines run along";
  if (block.getRank() < 2 || int64_t(*axis) >= block.getRank())
    return emitOpError() << "of blocks combines lines along an axis of a "
                            "block of rank 2 or more: axis "
                         << *axis << " of " << block;
  return success();
}

LogicalResult AsyncLoadOp::verify() {
  auto ptrType = getPtr().getType();
  auto ptrElement = dyn_cast<blk::PtrType>(ptrType.getElementType());
  if (!ptrElement)
    return emitOpError() << "loads through a block of pointers, got "
                         << ptrType;
  if (!isDistributedLayout(ptrType.getEncoding()))
    return emitOpError() << "needs pointers laid out in registers "
                            "(#blkgpu.blocked), got "
                         << ptrType;
  RankedTensorType result = getResult().getType();
  auto shared = dyn_cast_or_null<SharedLayoutAttr>(result.getEncoding());
  if (!shared || result.getShape() != ptrType.getShape() ||
      result.getElementType() != ptrElement.getPointeeType())
    return emitOpError() << "result must be the pointee type "
                         << ptrElement.getPointeeType()
                         << " with the pointers' shape and a #blkgpu.shared "
                            "layout, got "
                         << result;
  if (shared.getCTALayout() != rootBlockedLayout(ptrType.getEncoding())
                                   .getCTALayout())
    return emitOpError() << "result must split over the cluster's CTAs as "
                            "the pointers do";
  Builder b(getContext());
  if (getMask() && getMask().getType() != blk::withShapeOf(ptrType, b.getI1Type()))
    return emitOpError() << "mask must be "
                         << blk::withShapeOf(ptrType, b.getI1Type());
  if (getOther() && !getMask())
    return emitOpError() << "'other' is only meaningful with a mask";
  if (getOther() &&
      getOther().getType() != blk::withShapeOf(ptrType, ptrElement.getPointeeType()))
    return emitOpError() << "'other' must be "
                         << blk::withShapeOf(ptrType, ptrElement.getPointeeType());
  if (getOffset().has_value() == bool(getInto()))
    return emitOpError() << "needs either an 'offset' in the dynamic shared "
                            "memory or a block to load 'into', not "
                         << (getInto() ? "both" : "neither");
  if (getInto() && getInto().getType() != result)
    return emitOpError() << "loads into " << getInto().getType()
                         << ", which is not its result type " << result;
  if (getOffset() && (*getOffset() < 0 || *getOffset() % 16))
    return emitOpError() << "offset " << *getOffset()
                         << " must be a non-negative multiple of 16 bytes";
  return success();
}

LogicalResult AsyncWaitOp::verify() {
  int64_t pending = getPendingAttr().getInt();
  if (pending < 0)
    return emitOpError() << "pending must be a count of groups, got "
                         << pending;
  return success();
}

LogicalResult LocalLoadOp::verify() {
  RankedTensorType src = getSrc().getType(), result = getResult().getType();
  if (!isa_and_nonnull<SharedLayoutAttr>(src.getEncoding()))
    return emitOpError() << "reads a block in shared memory (#blkgpu.shared), "
                            "got "
                         << src;
  if (!isDistributedLayout(result.getEncoding()) ||
      result.getShape() != src.getShape() ||
      result.getElementType() != src.getElementType())
    return emitOpError() << "result must be " << src.getShape()
                         << " of " << src.getElementType()
                         << " laid out in registers, got " << result;
  auto carried = dyn_cast<BlockArgument>(getSrc());
  bool isIterArg =
      carried && isa<LoopLikeOpInterface>(carried.getOwner()->getParentOp());
  if (!getSrc().getDefiningOp<AsyncLoadOp>() && !isIterArg)
    return emitOpError() << "reads what blkgpu.async_load keeps in shared "
                            "memory (or a loop carries); its operand comes "
                            "from elsewhere";
  if (Value mask = getMask()) {
    auto maskType = cast<RankedTensorType>(mask.getType());
    if (maskType.getShape() != result.getShape() ||
        !maskType.getElementType().isInteger(1) ||
        maskType.getEncoding() != result.getEncoding())
      return emitOpError() << "mask must be " << result.getShape()
                           << " of i1 laid out as the result, got "
                           << maskType;
  }
  if (Value other = getOther()) {
    if (!getMask())
      return emitOpError() << "'other' is what masked elements read; it "
                              "needs a mask";
    if (other.getType() != result)
      return emitOpError() << "other must be " << result << ", got "
                           << other.getType();
  }
  return success();
}

LogicalResult AllReduceOp::verify() {
  return blockjit::blk::verifyReduceOperand(*this, getSrc().getType(),
                                            getAxis());
}
