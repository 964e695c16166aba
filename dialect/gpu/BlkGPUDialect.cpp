//===- BlkGPUDialect.cpp - dialect registration, the num_warps attribute -===//
#include "dialect/gpu/BlkGPUDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace blockjit::blkgpu;

#include "dialect/gpu/BlkGPUDialect.cpp.inc"

void BlkGPUDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "dialect/gpu/BlkGPUOps.cpp.inc"
      >();
}

namespace {

/// Every register layout under `module` satisfies `matches` (given its
/// count, e.g. its warps; 0 for a non-register layout), else an error
/// naming the op and `what` the layout has.
LogicalResult checkLayoutsUnder(Operation *module, StringRef attrName,
                                int64_t expected, StringRef what,
                                function_ref<int64_t(Attribute)> countOf) {
  WalkResult walk = module->walk([&](Operation *nested) {
    auto check = [&](Type type) -> LogicalResult {
      auto tensor = dyn_cast<RankedTensorType>(type);
      int64_t count = tensor ? countOf(tensor.getEncoding()) : 0;
      if (count == 0 || count == expected)
        return success();
      return nested->emitOpError()
             << "uses " << tensor << ", a layout with " << count << " " << what
             << ", in a module of " << attrName << " = " << expected;
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

/// The i32 power of two in 1..`max` that module attribute `attr` holds.
FailureOr<int64_t> powerOfTwoOnModule(Operation *op, NamedAttribute attr,
                                      int64_t max) {
  if (!isa<ModuleOp>(op))
    return op->emitError() << attr.getName().getValue()
                           << " belongs on the module, not on '"
                           << op->getName() << "'";
  auto value = dyn_cast<IntegerAttr>(attr.getValue());
  if (!value || !value.getType().isSignlessInteger(32))
    return op->emitError() << attr.getName().getValue() << " must be an i32, got "
                           << attr.getValue();
  int64_t count = value.getInt();
  if (count < 1 || count > max || !llvm::isPowerOf2_64(count))
    return op->emitError() << attr.getName().getValue()
                           << " must be a power of two in 1.."
                           << max << ", got " << count;
  return count;
}

/// `attr` a unit attribute on one of the ops named `ops` (`opsText` in the
/// error).
LogicalResult checkUnitMark(Operation *op, NamedAttribute attr,
                            std::initializer_list<StringRef> ops,
                            StringRef opsText) {
  if (!llvm::is_contained(ops, op->getName().getStringRef()) ||
      !isa<UnitAttr>(attr.getValue()))
    return op->emitError() << attr.getName().getValue()
                           << " is a unit attribute of " << opsText;
  return success();
}

/// `attr` (blkgpu.stretched_dims) on a blk.load of a block: dimensions of
/// the block in increasing order, at least one.
LogicalResult checkStretchedDims(Operation *op, NamedAttribute attr) {
  auto dims = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
  auto block = op->getNumResults() == 1
                   ? dyn_cast<RankedTensorType>(op->getResult(0).getType())
                   : RankedTensorType();
  if (op->getName().getStringRef() != "blk.load" || !block || !dims ||
      dims.empty())
    return op->emitError() << attr.getName().getValue()
                           << " is a non-empty array<i64> of dimensions on a "
                              "blk.load of a block";
  int64_t previous = -1;
  for (int64_t d : dims.asArrayRef()) {
    if (d <= previous || d >= block.getRank())
      return op->emitError()
             << attr.getName().getValue() << " lists dimensions of the "
             << block.getRank() << "-D block in increasing order, not " << dims;
    previous = d;
  }
  return success();
}

} // namespace

/// The module attributes of this dialect: `blkgpu.num_warps`, the warps per
/// CTA, and `blkgpu.num_ctas`, the CTAs per program, which every register
/// layout in the module must use; `blkgpu.programs_per_cta`, the programs
/// sharing a CTA; `blkgpu.cluster_fallback`, a note.
LogicalResult BlkGPUDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  if (attr.getName() == kNumWarpsAttrName) {
    FailureOr<int64_t> numWarps = powerOfTwoOnModule(op, attr, kMaxWarpsPerCTA);
    if (failed(numWarps))
      return failure();
    return checkLayoutsUnder(op, kNumWarpsAttrName, *numWarps, "warps",
                             warpsOf);
  }
  if (attr.getName() == kNumCTAsAttrName) {
    FailureOr<int64_t> numCTAs = powerOfTwoOnModule(op, attr, kMaxCTAsPerCluster);
    if (failed(numCTAs))
      return failure();
    return checkLayoutsUnder(op, kNumCTAsAttrName, *numCTAs, "CTAs per cluster",
                             clusterCTAsOf);
  }
  if (attr.getName() == kProgramsPerCTAAttrName) {
    FailureOr<int64_t> programs =
        powerOfTwoOnModule(op, attr, kMaxProgramsPerCTA);
    if (failed(programs))
      return failure();
    auto warps = op->getAttrOfType<IntegerAttr>(kNumWarpsAttrName);
    if (warps && *programs * warps.getInt() > kMaxWarpsPerCTA)
      return op->emitError()
             << kProgramsPerCTAAttrName << " = " << *programs << " of "
             << kNumWarpsAttrName << " = " << warps.getInt()
             << " make a CTA of more than " << kMaxWarpsPerCTA << " warps";
    if (op->hasAttr(kNumCTAsAttrName))
      return op->emitError()
             << kProgramsPerCTAAttrName << " and " << kNumCTAsAttrName
             << " exclude each other: a program on a cluster "
                "has its CTAs to itself";
    return success();
  }
  // The notes: why a cluster or shared memory was not used.
  if (attr.getName() == kClusterFallbackAttrName ||
      attr.getName() == kResidencyAttrName) {
    if (!isa<ModuleOp>(op) || !isa<StringAttr>(attr.getValue()))
      return op->emitError() << attr.getName().getValue()
                             << " is a string on the module";
    return success();
  }
  if (attr.getName() == kDynamicSharedBytesAttrName) {
    auto bytes = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<ModuleOp>(op) || !bytes || bytes.getInt() <= 0)
      return op->emitError() << kDynamicSharedBytesAttrName
                             << " is a positive integer on the module";
    return success();
  }
  // Marks the GPU passes leave on single ops.
  if (attr.getName() == kCTALocalAttrName)
    return checkUnitMark(op, attr, {"blk.reduce", "blkgpu.all_reduce"},
                         "blk.reduce and blkgpu.all_reduce");
  if (attr.getName() == kRematerializedAttrName)
    return checkUnitMark(op, attr, {"blk.make_range", "blk.broadcast"},
                         "blk.make_range and blk.broadcast");
  if (attr.getName() == kVersionedAccessAttrName)
    return checkUnitMark(op, attr, {"scf.if"}, "scf.if");
  if (attr.getName() == kBranchFreeLoadAttrName)
    return checkUnitMark(op, attr, {"blk.load"}, "blk.load");
  if (attr.getName() == kStretchedDimsAttrName)
    return checkStretchedDims(op, attr);
  return op->emitError() << "unknown blkgpu attribute '"
                         << attr.getName().getValue() << "' (the module takes "
                         << kNumWarpsAttrName << ", " << kNumCTAsAttrName
                         << ", " << kProgramsPerCTAAttrName << ", "
                         << kDynamicSharedBytesAttrName << ", "
                         << kResidencyAttrName << " and "
                         << kClusterFallbackAttrName
                         << ", blk.reduce and blkgpu.all_reduce "
                         << kCTALocalAttrName << ", blk.make_range and "
                         << "blk.broadcast " << kRematerializedAttrName
                         << ", scf.if " << kVersionedAccessAttrName
                         << " and blk.load " << kBranchFreeLoadAttrName
                         << " and " << kStretchedDimsAttrName << ")";
}
