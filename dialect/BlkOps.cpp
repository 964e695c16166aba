//===- BlkOps.cpp - builders, verifiers and assembly of blk ops ----------===//
//
// Every verifier says what was expected, so that a bad kernel is fixable from
// the message alone.
//
//===----------------------------------------------------------------------===//
#include "dialect/BlkDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/InterleavedRange.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace blockjit::blk;

namespace {

std::string shapeString(ArrayRef<int64_t> shape) {
  std::string text = "[";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(shape, os);
  os << "]";
  return text;
}

LogicalResult verifyGridAxis(Operation *op, int32_t axis) {
  if (axis < 0 || axis > 2)
    return op->emitOpError() << "axis must be 0, 1 or 2, got " << axis;
  return success();
}

/// Checks that `mask` (if any) is i1 with the shape of the pointers `ptrType`.
LogicalResult verifyMask(Operation *op, Type ptrType, Value mask) {
  if (!mask)
    return success();
  Type expected = withShapeOf(ptrType, IntegerType::get(op->getContext(), 1));
  if (mask.getType() != expected)
    return op->emitOpError() << "mask type " << mask.getType() << " must be "
                             << expected << " (i1 with the pointers' shape)";
  return success();
}

/// The type loaded from or stored through pointers of type `ptrType`.
Type pointeeTypeOf(Type ptrType) {
  auto ptr = cast<PtrType>(elementTypeOf(ptrType));
  return withShapeOf(ptrType, ptr.getPointeeType());
}

} // namespace

#define GET_OP_CLASSES
#include "dialect/BlkOps.cpp.inc"

//===----------------------------------------------------------------------===//
// program_id, num_programs, make_range
//===----------------------------------------------------------------------===//

// I32Attr getters return uint32_t; read attributes as signed for messages.
LogicalResult ProgramIdOp::verify() {
  return verifyGridAxis(*this, getAxisAttr().getInt());
}
LogicalResult NumProgramsOp::verify() {
  return verifyGridAxis(*this, getAxisAttr().getInt());
}

void MakeRangeOp::build(OpBuilder &builder, OperationState &state,
                        int32_t start, int32_t end) {
  auto type =
      RankedTensorType::get({int64_t(end) - start}, builder.getI32Type());
  build(builder, state, type, start, end);
}

LogicalResult MakeRangeOp::verify() {
  int64_t start = getStartAttr().getInt(), end = getEndAttr().getInt();
  if (end <= start)
    return emitOpError() << "end (" << end << ") must be greater than start ("
                         << start << ")";
  int64_t length = end - start;
  if (!llvm::isPowerOf2_64(length))
    return emitOpError() << "range length end - start = " << length
                         << " must be a power of two";
  auto expected = RankedTensorType::get(
      {length}, IntegerType::get(getContext(), 32), getType().getEncoding());
  if (getType() != expected)
    return emitOpError() << "result type must be " << expected << ", got "
                         << getType();
  return success();
}

//===----------------------------------------------------------------------===//
// splat, broadcast, expand_dims
//===----------------------------------------------------------------------===//

LogicalResult SplatOp::verify() {
  if (isa<ShapedType>(getSrc().getType()))
    return emitOpError() << "splats a scalar, got " << getSrc().getType();
  if (getType().getElementType() != getSrc().getType())
    return emitOpError() << "result element type " << getType().getElementType()
                         << " must match the splatted value's type "
                         << getSrc().getType();
  return success();
}

LogicalResult BroadcastOp::verify() {
  RankedTensorType src = getSrc().getType(), result = getType();
  if (src.getElementType() != result.getElementType())
    return emitOpError() << "result element type " << result.getElementType()
                         << " must match the source's " << src.getElementType();
  if (src.getRank() != result.getRank())
    return emitOpError() << "broadcast keeps the rank: source has rank "
                         << src.getRank() << ", result has rank "
                         << result.getRank()
                         << " (insert dimensions with blk.expand_dims first)";
  for (auto [dim, sizes] :
       llvm::enumerate(llvm::zip(src.getShape(), result.getShape()))) {
    auto [from, to] = sizes;
    if (from != to && from != 1)
      return emitOpError() << "dimension " << dim << " of size " << from
                           << " cannot be broadcast to " << to
                           << " (only size-1 dimensions stretch)";
  }
  return success();
}

void ExpandDimsOp::build(OpBuilder &builder, OperationState &state, Value src,
                         int32_t axis) {
  auto srcType = cast<RankedTensorType>(src.getType());
  SmallVector<int64_t> shape(srcType.getShape());
  shape.insert(shape.begin() + axis, 1);
  build(builder, state,
        RankedTensorType::get(shape, srcType.getElementType(),
                              srcType.getEncoding()),
        src, axis);
}

LogicalResult ExpandDimsOp::verify() {
  RankedTensorType src = getSrc().getType();
  int64_t axis = getAxisAttr().getInt();
  if (axis < 0 || axis > src.getRank())
    return emitOpError() << "axis " << axis << " out of range for a rank-"
                         << src.getRank() << " source (expected 0.."
                         << src.getRank() << ")";
  SmallVector<int64_t> shape(src.getShape());
  shape.insert(shape.begin() + axis, 1);
  auto expected = RankedTensorType::get(shape, src.getElementType(),
                                        getType().getEncoding());
  if (getType().getShape() != ArrayRef(shape) ||
      getType().getElementType() != src.getElementType())
    return emitOpError() << "result type must be " << expected << ", got "
                         << getType();
  return success();
}

//===----------------------------------------------------------------------===//
// addptr, load, store
//===----------------------------------------------------------------------===//

LogicalResult AddPtrOp::verify() {
  Type ptr = getPtr().getType(), offset = getOffset().getType();
  if (isa<RankedTensorType>(ptr) != isa<RankedTensorType>(offset) ||
      shapeOf(ptr) != shapeOf(offset))
    return emitOpError() << "offset shape " << shapeString(shapeOf(offset))
                         << " must match the pointer shape "
                         << shapeString(shapeOf(ptr))
                         << " (splat or broadcast one of them first)";
  return success();
}

void LoadOp::build(OpBuilder &builder, OperationState &state, Value ptr,
                   Value mask, Value other, EvictionAttr eviction) {
  build(builder, state, pointeeTypeOf(ptr.getType()), ptr, mask, other,
        eviction);
}

namespace {

/// The optional eviction keyword after a load's or store's operands.
ParseResult parseEviction(OpAsmParser &parser, OperationState &result) {
  StringRef keyword;
  if (failed(parser.parseOptionalKeyword(&keyword,
                                         {stringifyEviction(Eviction::First),
                                          stringifyEviction(Eviction::Last)})))
    return success();
  result.addAttribute(
      "eviction",
      EvictionAttr::get(parser.getContext(), *symbolizeEviction(keyword)));
  return success();
}

void printEviction(OpAsmPrinter &printer, EvictionAttr eviction) {
  if (eviction)
    printer << ' ' << stringifyEviction(eviction.getValue());
}

} // namespace

LogicalResult LoadOp::verify() {
  // ODS checks only the optional segments; a pointer group of another size
  // would make getPtr() return the wrong operand.
  if (getProperties().operandSegmentSizes[0] != 1)
    return emitOpError() << "takes exactly one pointer operand (scalar or "
                            "block), got "
                         << getProperties().operandSegmentSizes[0];
  Type ptrType = getPtr().getType();
  Type loaded = pointeeTypeOf(ptrType);
  if (getType() != loaded)
    return emitOpError() << "result type " << getType() << " must be " << loaded
                         << " (the pointee type with the pointers' "
                         << "shape)";
  if (failed(verifyMask(*this, ptrType, getMask())))
    return failure();
  if (getOther() && !getMask())
    return emitOpError() << "'other' is only meaningful with a mask";
  if (getOther() && getOther().getType() != loaded)
    return emitOpError() << "'other' type " << getOther().getType()
                         << " must be the loaded type " << loaded;
  return success();
}

ParseResult LoadOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand, 3> operands;
  Type ptrType;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseOperandList(operands) || parseEviction(parser, result) ||
      parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(ptrType))
    return failure();
  if (operands.empty() || operands.size() > 3)
    return parser.emitError(loc, "expected pointers, then optionally a mask "
                                 "and an 'other' value");
  if (!isa<PtrType>(elementTypeOf(ptrType)))
    return parser.emitError(loc,
                            "expected a !blk.ptr or a tensor of them, got ")
           << ptrType;
  Type types[] = {ptrType,
                  withShapeOf(ptrType, parser.getBuilder().getI1Type()),
                  pointeeTypeOf(ptrType)};
  for (auto [operand, type] : llvm::zip(operands, types))
    if (parser.resolveOperand(operand, type, result.operands))
      return failure();
  auto &props = result.getOrAddProperties<LoadOp::Properties>();
  props.operandSegmentSizes = {1, operands.size() > 1, operands.size() > 2};
  result.addTypes(types[2]);
  return success();
}

void LoadOp::print(OpAsmPrinter &printer) {
  printer << ' ' << getOperation()->getOperands();
  printEviction(printer, getEvictionAttr());
  printer.printOptionalAttrDict(
      (*this)->getAttrs(),
      {getOperandSegmentSizesAttrName(), getEvictionAttrName()});
  printer << " : " << getPtr().getType();
}

LogicalResult StoreOp::verify() {
  Type ptrType = getPtr().getType();
  Type stored = pointeeTypeOf(ptrType);
  if (getValue().getType() != stored)
    return emitOpError() << "value type " << getValue().getType() << " must be "
                         << stored
                         << " (the pointee type with the pointers' shape)";
  return verifyMask(*this, ptrType, getMask());
}

ParseResult StoreOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand, 3> operands;
  Type ptrType;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseOperandList(operands) || parseEviction(parser, result) ||
      parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(ptrType))
    return failure();
  if (operands.size() < 2 || operands.size() > 3)
    return parser.emitError(loc, "expected pointers, a value and optionally "
                                 "a mask");
  if (!isa<PtrType>(elementTypeOf(ptrType)))
    return parser.emitError(loc,
                            "expected a !blk.ptr or a tensor of them, got ")
           << ptrType;
  Type types[] = {ptrType, pointeeTypeOf(ptrType),
                  withShapeOf(ptrType, parser.getBuilder().getI1Type())};
  for (auto [operand, type] : llvm::zip(operands, types))
    if (parser.resolveOperand(operand, type, result.operands))
      return failure();
  return success();
}

void StoreOp::print(OpAsmPrinter &printer) {
  printer << ' ' << getOperation()->getOperands();
  printEviction(printer, getEvictionAttr());
  printer.printOptionalAttrDict((*this)->getAttrs(), {getEvictionAttrName()});
  printer << " : " << getPtr().getType();
}

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

Type ReduceOp::inferResultType(RankedTensorType src, int64_t axis) {
  if (axis < 0 || axis >= src.getRank())
    return {};
  if (src.getRank() == 1)
    return src.getElementType();
  SmallVector<int64_t> shape(src.getShape());
  shape.erase(shape.begin() + axis);
  return RankedTensorType::get(shape, src.getElementType());
}

void ReduceOp::build(OpBuilder &builder, OperationState &state, ReduceKind kind,
                     Value src, int32_t axis) {
  Type type = inferResultType(cast<RankedTensorType>(src.getType()), axis);
  build(builder, state, type, kind, src, axis);
}

LogicalResult blockjit::blk::verifyReduceOperand(Operation *op,
                                                RankedTensorType src,
                                                int64_t axis) {
  if (!isa<IntegerType, FloatType>(src.getElementType()))
    return op->emitOpError() << "reduces integer or float blocks, got "
                             << src;
  if (axis < 0 || axis >= src.getRank())
    return op->emitOpError()
           << "axis " << axis << " out of range for a rank-" << src.getRank()
           << " operand (expected 0.." << src.getRank() - 1 << ")";
  return success();
}

LogicalResult ReduceOp::verify() {
  RankedTensorType src = getSrc().getType();
  int64_t axis = getAxisAttr().getInt();
  if (failed(verifyReduceOperand(*this, src, axis)))
    return failure();
  Type expected = inferResultType(src, axis);
  // Layout encodings (GPU) are not part of the shape contract.
  Type actual = getType();
  if (auto tensor = dyn_cast<RankedTensorType>(actual))
    actual = RankedTensorType::get(tensor.getShape(), tensor.getElementType());
  if (actual != expected)
    return emitOpError() << "result type " << getType() << " must be "
                         << expected << " (the operand reduced along axis "
                         << axis << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// ArgReduceOp
//===----------------------------------------------------------------------===//

/// The i32 indices of reducing `src` along `axis` (null if out of range).
static Type argReduceResultType(RankedTensorType src, int64_t axis) {
  Type reduced = ReduceOp::inferResultType(src, axis);
  if (!reduced)
    return {};
  auto i32 = IntegerType::get(src.getContext(), 32);
  if (auto tensor = dyn_cast<RankedTensorType>(reduced))
    return RankedTensorType::get(tensor.getShape(), i32);
  return i32;
}

void ArgReduceOp::build(OpBuilder &builder, OperationState &state,
                        ReduceKind kind, Value src, int32_t axis) {
  Type type = argReduceResultType(cast<RankedTensorType>(src.getType()), axis);
  build(builder, state, type, kind, src, axis);
}

LogicalResult ArgReduceOp::verify() {
  if (getKind() == ReduceKind::Sum)
    return emitOpError() << "kind must be max or min, got sum";
  RankedTensorType src = getSrc().getType();
  Type element = src.getElementType();
  if (!isa<FloatType>(element) &&
      !(isa<IntegerType>(element) && element.getIntOrFloatBitWidth() > 1))
    return emitOpError() << "reduces integer (not i1) or float blocks, got "
                         << src;
  int64_t axis = getAxisAttr().getInt();
  Type expected = argReduceResultType(src, axis);
  if (!expected)
    return emitOpError() << "axis " << axis << " out of range for a rank-"
                         << src.getRank() << " operand (expected 0.."
                         << src.getRank() - 1 << ")";
  // Layout encodings (GPU) are not part of the shape contract.
  Type actual = getType();
  if (auto tensor = dyn_cast<RankedTensorType>(actual))
    actual = RankedTensorType::get(tensor.getShape(), tensor.getElementType());
  if (actual != expected)
    return emitOpError() << "result type " << getType() << " must be "
                         << expected << " (i32 indices along axis " << axis
                         << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// atomic_rmw, atomic_cas
//===----------------------------------------------------------------------===//

namespace {

/// Checks an atomic's pointers, its value operands (`names` and `values`),
/// its mask and its result: numbers of the pointee type with the pointers'
/// shape.
LogicalResult verifyAtomic(Operation *op, Value ptr, ArrayRef<StringRef> names,
                           ValueRange values, Value mask, Type result) {
  Type ptrType = ptr.getType();
  Type pointee = cast<PtrType>(elementTypeOf(ptrType)).getPointeeType();
  if (!isa<FloatType>(pointee) &&
      !(isa<IntegerType>(pointee) && !pointee.isInteger(1)))
    return op->emitOpError()
           << "needs pointers to integers or floats, got " << ptrType;
  Type expected = pointeeTypeOf(ptrType);
  for (auto [name, value] : llvm::zip(names, values))
    if (value.getType() != expected)
      return op->emitOpError()
             << name << " type " << value.getType() << " must be " << expected
             << " (the pointee type with the pointers' shape)";
  if (failed(verifyMask(op, ptrType, mask)))
    return failure();
  if (result != expected)
    return op->emitOpError()
           << "result type " << result << " must be " << expected
           << " (the old values: the pointee type with the pointers' shape)";
  return success();
}

} // namespace

void AtomicRMWOp::build(OpBuilder &builder, OperationState &state,
                        AtomicRMWKind kind, Value ptr, Value value, Value mask,
                        MemSem sem, MemScope scope) {
  MLIRContext *context = builder.getContext();
  build(builder, state, pointeeTypeOf(ptr.getType()),
        AtomicRMWKindAttr::get(context, kind), ptr, value, mask,
        MemSemAttr::get(context, sem), MemScopeAttr::get(context, scope));
}

LogicalResult AtomicRMWOp::verify() {
  return verifyAtomic(*this, getPtr(), {"value"}, getValue(), getMask(),
                      getType());
}

void AtomicCASOp::build(OpBuilder &builder, OperationState &state, Value ptr,
                        Value cmp, Value value, Value mask, MemSem sem,
                        MemScope scope) {
  MLIRContext *context = builder.getContext();
  build(builder, state, pointeeTypeOf(ptr.getType()), ptr, cmp, value, mask,
        MemSemAttr::get(context, sem), MemScopeAttr::get(context, scope));
}

LogicalResult AtomicCASOp::verify() {
  return verifyAtomic(*this, getPtr(), {"cmp", "value"},
                      ValueRange{getCmp(), getValue()}, getMask(), getType());
}

//===----------------------------------------------------------------------===//
// Scans
//===----------------------------------------------------------------------===//

LogicalResult ScanOp::verify() {
  RankedTensorType src = cast<RankedTensorType>(getSrc().getType());
  Type element = src.getElementType();
  if (!isa<IntegerType, FloatType>(element))
    return emitOpError() << "scans integer or float blocks, got " << src;
  int64_t axis = getAxisAttr().getInt();
  if (axis < 0 || axis >= src.getRank())
    return emitOpError() << "axis " << axis << " out of range for a rank-"
                         << src.getRank() << " operand (expected 0.."
                         << src.getRank() - 1 << ")";
  Block &body = getCombine().front();
  if (body.getNumArguments() != 2 ||
      llvm::any_of(body.getArgumentTypes(),
                   [&](Type type) { return type != element; }))
    return emitOpError() << "combine region must take two " << element
                         << " scalars (the element type), got ("
                         << body.getArgumentTypes() << ")";
  auto ret = dyn_cast<ScanReturnOp>(body.getTerminator());
  if (!ret)
    return emitOpError() << "combine region must end in blk.scan_return";
  if (ret.getResult().getType() != element)
    return emitOpError() << "combine region must return " << element
                         << " (the element type), got "
                         << ret.getResult().getType();
  // The region is inlined once per combination on every target: scalar
  // code without side effects only.
  for (Operation &op : body.without_terminator()) {
    if (hasBlocks(&op))
      return op.emitOpError() << "in a blk.scan combine region works on "
                                 "blocks; the region combines scalars";
    if (op.getNumRegions() > 0 || !isMemoryEffectFree(&op))
      return op.emitOpError()
             << "in a blk.scan combine region must be a scalar operation "
                "without side effects or regions";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// reshape, permute, join, split
//===----------------------------------------------------------------------===//

namespace {

/// Whether two block types have the same element type (layout encodings,
/// on the GPU, are not part of the shape contract).
LogicalResult verifySameElementType(Operation *op, RankedTensorType src,
                                    RankedTensorType result) {
  if (src.getElementType() != result.getElementType())
    return op->emitOpError()
           << "result element type " << result.getElementType()
           << " must match the source's " << src.getElementType();
  return success();
}

} // namespace

LogicalResult ReshapeOp::verify() {
  RankedTensorType src = getSrc().getType(), result = getType();
  if (failed(verifySameElementType(*this, src, result)))
    return failure();
  if (src.getNumElements() != result.getNumElements())
    return emitOpError() << "cannot reshape " << shapeString(src.getShape())
                         << " (" << src.getNumElements() << " elements) to "
                         << shapeString(result.getShape()) << " ("
                         << result.getNumElements()
                         << " elements): the element count must stay";
  return success();
}

void PermuteOp::build(OpBuilder &builder, OperationState &state, Value src,
                      ArrayRef<int32_t> order) {
  auto srcType = cast<RankedTensorType>(src.getType());
  SmallVector<int64_t> shape;
  for (int32_t d : order)
    shape.push_back(d >= 0 && d < srcType.getRank() ? srcType.getDimSize(d)
                                                    : 1);
  build(builder, state, RankedTensorType::get(shape, srcType.getElementType()),
        src, order);
}

LogicalResult PermuteOp::verify() {
  RankedTensorType src = getSrc().getType(), result = getType();
  if (failed(verifySameElementType(*this, src, result)))
    return failure();
  ArrayRef<int32_t> order = getOrder();
  if (int64_t(order.size()) != src.getRank())
    return emitOpError() << "order has " << order.size()
                         << " entries; the source has rank " << src.getRank();
  SmallVector<bool> seen(order.size(), false);
  for (int32_t d : order) {
    if (d < 0 || d >= src.getRank() || seen[d])
      return emitOpError() << "order [" << llvm::interleaved(order)
                           << "] must be a permutation of 0.."
                           << src.getRank() - 1;
    seen[d] = true;
  }
  SmallVector<int64_t> shape;
  for (int32_t d : order)
    shape.push_back(src.getDimSize(d));
  if (result.getShape() != ArrayRef(shape))
    return emitOpError() << "result shape " << shapeString(result.getShape())
                         << " must be " << shapeString(shape)
                         << " (dimension i is the source's dimension order[i])";
  return success();
}

void JoinOp::build(OpBuilder &builder, OperationState &state, Value lhs,
                   Value rhs) {
  auto type = cast<RankedTensorType>(lhs.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape.push_back(2);
  build(builder, state, RankedTensorType::get(shape, type.getElementType()),
        lhs, rhs);
}

LogicalResult JoinOp::verify() {
  // rhs has the type of lhs (AllTypesMatch).
  RankedTensorType lhs = getLhs().getType(), result = getType();
  if (failed(verifySameElementType(*this, lhs, result)))
    return failure();
  SmallVector<int64_t> shape(lhs.getShape());
  shape.push_back(2);
  if (result.getShape() != ArrayRef(shape))
    return emitOpError() << "result shape " << shapeString(result.getShape())
                         << " must be " << shapeString(shape)
                         << " (the operands' shape and a last dimension of 2)";
  return success();
}

void SplitOp::build(OpBuilder &builder, OperationState &state, Value src) {
  auto type = cast<RankedTensorType>(src.getType());
  auto half =
      RankedTensorType::get(type.getShape().drop_back(), type.getElementType());
  build(builder, state, half, half, src);
}

LogicalResult SplitOp::verify() {
  RankedTensorType src = getSrc().getType();
  if (src.getRank() < 2 || src.getShape().back() != 2)
    return emitOpError() << "splits a block of rank 2 or more whose last "
                            "dimension is 2, got "
                         << src;
  ArrayRef<int64_t> shape = src.getShape().drop_back();
  RankedTensorType result = getLhs().getType(); // rhs: the same type
  if (failed(verifySameElementType(*this, src, result)))
    return failure();
  if (result.getShape() != shape)
    return emitOpError() << "result shape " << shapeString(result.getShape())
                         << " must be " << shapeString(shape)
                         << " (the source without its last dimension)";
  return success();
}
