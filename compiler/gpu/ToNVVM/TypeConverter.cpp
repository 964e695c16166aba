//===- TypeConverter.cpp - a block is the values its thread owns ---------===//
#include "compiler/gpu/ToNVVM/Lowering.h"

using namespace mlir;

namespace blockjit::nvvm {

BlockTypeConverter::BlockTypeConverter() {
  // Conversions are tried last-added first: blocks, then anything else as
  // itself (scalars, !blk.ptr, index, ...).
  addConversion([](Type type) { return type; });
  addConversion([](RankedTensorType type, SmallVectorImpl<Type> &results) {
    results.append(layoutOf(type).perThread(), type.getElementType());
    return success();
  });
}

} // namespace blockjit::nvvm
