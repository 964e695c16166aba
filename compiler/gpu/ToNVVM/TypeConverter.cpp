//===- TypeConverter.cpp - a block is the values its thread owns ---------===//
#include "compiler/gpu/ToNVVM/Lowering.h"

#include "dialect/gpu/BlkGPUDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

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
  // A block kept in shared memory (blkgpu.async_load): its address.
  addConversion([](RankedTensorType type) -> std::optional<Type> {
    if (!isa_and_nonnull<blkgpu::SharedLayoutAttr>(type.getEncoding()))
      return std::nullopt;
    return LLVM::LLVMPointerType::get(type.getContext(), 3);
  });
}

} // namespace blockjit::nvvm
