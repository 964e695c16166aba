//===- BlkGPUOps.cpp - GPU-only operations: verifiers ---------------------===//
#include "dialect/gpu/BlkGPUDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/OpImplementation.h"

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
  return success();
}
