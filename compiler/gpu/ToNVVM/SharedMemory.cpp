//===- SharedMemory.cpp - block elements exchanged between threads -------===//
#include "compiler/gpu/ToNVVM/Lowering.h"

#include "dialect/BlkDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

namespace blockjit::nvvm {

ScratchArray::ScratchArray(func::FuncOp func, StringRef prefix)
    : name((prefix + func.getName()).str()) {}

Value ScratchArray::get(OpBuilder &builder, Location loc, Type element,
                        int64_t count) {
  int64_t bytes =
      count * (isa<LLVM::LLVMPointerType>(element) ? 8
                                                  : blk::elementBytes(element));
  size = std::max(size, bytes);
  return LLVM::AddressOfOp::create(
      builder, loc, LLVM::LLVMPointerType::get(builder.getContext(), 3), name);
}

void ScratchArray::declare(ModuleOp module, Location loc) const {
  if (!size)
    return;
  auto builder = OpBuilder::atBlockBegin(module.getBody());
  LLVM::GlobalOp::create(builder, loc,
                         LLVM::LLVMArrayType::get(builder.getI8Type(), size),
                         /*isConstant=*/false, LLVM::Linkage::Internal, name,
                         Attribute(), /*alignment=*/16, /*addrSpace=*/3);
}

Type sharedStorageType(Type element) {
  if (isa<blk::PtrType>(element))
    return LLVM::LLVMPointerType::get(element.getContext(), 1);
  return element;
}

Value toLLVMPointer(OpBuilder &builder, Location loc, Value ptr) {
  auto llvmPtr = LLVM::LLVMPointerType::get(builder.getContext(), 1);
  return UnrealizedConversionCastOp::create(builder, loc, llvmPtr, ptr)
      .getResult(0);
}

Value publish(OpBuilder &builder, Location loc, KernelState &kernel,
              RankedTensorType type, ValueRange elements, Type storage,
              function_ref<Value(Value)> convert) {
  Layout1D layout = layoutOf(type);
  auto ptrType = LLVM::LLVMPointerType::get(builder.getContext(), 3);
  Value smem = kernel.scratch.get(builder, loc, storage, type.getNumElements());
  for (int64_t k = 0; k < layout.perThread(); ++k) {
    Value slot = LLVM::GEPOp::create(
        builder, loc, ptrType, storage, smem,
        ValueRange{elementIndex(builder, loc, kernel.threadId, layout, k)});
    LLVM::StoreOp::create(builder, loc, convert(elements[k]), slot);
  }
  NVVM::Barrier0Op::create(builder, loc);
  return smem;
}

Value readShared(OpBuilder &builder, Location loc, Value smem, Type storage,
                 Value linear) {
  auto ptrType = LLVM::LLVMPointerType::get(builder.getContext(), 3);
  Value slot = LLVM::GEPOp::create(builder, loc, ptrType, storage, smem,
                                   ValueRange{linear});
  return LLVM::LoadOp::create(builder, loc, storage, slot);
}

} // namespace blockjit::nvvm
