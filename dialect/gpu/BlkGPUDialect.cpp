//===- BlkGPUDialect.cpp - dialect registration, the num_warps attribute -===//
#include "dialect/gpu/BlkGPUDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace blockjit::blkgpu;

#include "dialect/gpu/BlkGPUDialect.cpp.inc"

void BlkGPUDialect::initialize() { registerAttributes(); }

/// `blkgpu.num_warps` is the only attribute this dialect puts on operations:
/// a module's warps per CTA, which every register layout in it must use.
LogicalResult BlkGPUDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  if (attr.getName() != kNumWarpsAttrName)
    return op->emitError() << "unknown blkgpu attribute '"
                           << attr.getName().getValue() << "' (only "
                           << kNumWarpsAttrName << " goes on operations)";
  if (!isa<ModuleOp>(op))
    return op->emitError() << kNumWarpsAttrName
                           << " belongs on the module, not on '"
                           << op->getName() << "'";
  auto warps = dyn_cast<IntegerAttr>(attr.getValue());
  if (!warps || !warps.getType().isSignlessInteger(32))
    return op->emitError() << kNumWarpsAttrName << " must be an i32, got "
                           << attr.getValue();
  int64_t numWarps = warps.getInt();
  if (numWarps < 1 || numWarps > kMaxWarpsPerCTA ||
      !llvm::isPowerOf2_64(numWarps))
    return op->emitError() << kNumWarpsAttrName
                           << " must be a power of two in 1.."
                           << kMaxWarpsPerCTA << ", got " << numWarps;
  WalkResult walk = op->walk([&](Operation *nested) {
    auto check = [&](Type type) -> LogicalResult {
      auto tensor = dyn_cast<RankedTensorType>(type);
      int64_t layoutWarps = tensor ? warpsOf(tensor.getEncoding()) : 0;
      if (layoutWarps == 0 || layoutWarps == numWarps)
        return success();
      return nested->emitOpError() << "uses " << tensor << ", a layout with "
                                   << layoutWarps << " warps, in a module of "
                                   << kNumWarpsAttrName << " = " << numWarps;
    };
    for (Type type : nested->getResultTypes())
      if (failed(check(type)))
        return WalkResult::interrupt();
    for (Region &region : nested->getRegions())
      for (Block &block : region)
        for (Type type : block.getArgumentTypes())
          if (failed(check(type)))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}
