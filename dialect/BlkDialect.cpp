//===- BlkDialect.cpp - dialect registration, types and shape helpers ----===//
#include "dialect/BlkDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace blockjit::blk;

#include "dialect/BlkDialect.cpp.inc"
#include "dialect/BlkEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/BlkAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialect/BlkTypes.cpp.inc"

void BlkDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialect/BlkTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/BlkAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialect/BlkOps.cpp.inc"
      >();
}

Operation *BlkDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

LogicalResult PtrType::verify(function_ref<InFlightDiagnostic()> emitError,
                              Type pointeeType) {
  if (isa<IntegerType, FloatType>(pointeeType))
    return success();
  return emitError() << "!blk.ptr points to integer or float elements, not "
                     << pointeeType;
}

namespace blockjit::blk {

llvm::ArrayRef<int64_t> shapeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getShape();
  return {};
}

Type withShapeOf(Type like, Type elementType) {
  if (auto tensor = dyn_cast<RankedTensorType>(like))
    return RankedTensorType::get(tensor.getShape(), elementType,
                                 tensor.getEncoding());
  return elementType;
}

std::string describeLocation(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (file.getFilename().getValue() + ":" + Twine(file.getLine())).str();
  if (auto name = dyn_cast<NameLoc>(loc))
    return isa<UnknownLoc>(name.getChildLoc())
               ? name.getName().str()
               : describeLocation(name.getChildLoc());
  if (auto call = dyn_cast<CallSiteLoc>(loc))
    return describeLocation(call.getCallee());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location part : fused.getLocations())
      if (!isa<UnknownLoc>(part))
        return describeLocation(part);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << loc;
  return text;
}

std::string describeDiagnostic(const Diagnostic &diagnostic) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << describeLocation(diagnostic.getLocation()) << ": " << diagnostic.str()
     << "\n";
  for (const Diagnostic &note : diagnostic.getNotes())
    os << "  note: " << note.str() << "\n";
  return text;
}

bool isBlock(Type type) { return isa<RankedTensorType>(type); }

bool hasBlocks(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), isBlock) ||
         llvm::any_of(op->getResultTypes(), isBlock);
}

Type elementTypeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getElementType();
  return type;
}

MakeRangeOp rangeThroughExpandDims(Value value) {
  while (auto expand = value.getDefiningOp<ExpandDimsOp>())
    value = expand.getSrc();
  return value.getDefiningOp<MakeRangeOp>();
}

std::optional<RangeBroadcast> rangeBroadcastOf(BroadcastOp broadcast) {
  MakeRangeOp range = rangeThroughExpandDims(broadcast.getSrc());
  if (!range)
    return std::nullopt;
  ArrayRef<int64_t> srcShape = broadcast.getSrc().getType().getShape();
  int64_t n = range.getType().getNumElements();
  auto dim = llvm::find(srcShape, n);
  if (n == 1 || dim == srcShape.end() ||
      broadcast.getType().getDimSize(dim - srcShape.begin()) != n)
    return std::nullopt;
  return RangeBroadcast{dim - srcShape.begin(), n,
                        range.getStartAttr().getInt()};
}

int64_t elementBytes(Type type) {
  if (isa<PtrType>(type))
    return 8;
  return std::max<int64_t>(1, (type.getIntOrFloatBitWidth() + 7) / 8);
}

} // namespace blockjit::blk
