//===- SharedMemory.cpp - block elements exchanged between threads -------===//
#include "compiler/gpu/ToNVVM/Lowering.h"

#include "dialect/BlkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

namespace blockjit::nvvm {

ScratchArray::ScratchArray(func::FuncOp func, StringRef prefix)
    : name((prefix + func.getName()).str()), entry(&func.getBody().front()) {}

void ScratchArray::setProgramSlot(OpBuilder &builder, Location loc, Value slot,
                                  int programsPerCTA) {
  programs = programsPerCTA;
  auto ptrType = LLVM::LLVMPointerType::get(builder.getContext(), 3);
  Type i32 = builder.getI32Type();
  // The stride is known once every exchange is: a placeholder until then.
  auto stride =
      LLVM::ConstantOp::create(builder, loc, i32, builder.getI32IntegerAttr(0));
  slotStride = stride;
  Value offset = LLVM::MulOp::create(builder, loc, slot, stride);
  Value base = LLVM::AddressOfOp::create(builder, loc, ptrType, name);
  slotAddress = LLVM::GEPOp::create(builder, loc, ptrType, builder.getI8Type(),
                                    base, ValueRange{offset});
}

Value ScratchArray::get(OpBuilder &builder, Location loc, Type element,
                        int64_t count) {
  int64_t bytes =
      count * (isa<LLVM::LLVMPointerType>(element) ? 8
                                                  : blk::elementBytes(element));
  size = std::max(size, bytes);
  if (slotAddress)
    return slotAddress;
  return LLVM::AddressOfOp::create(
      builder, loc, LLVM::LLVMPointerType::get(builder.getContext(), 3), name);
}

Value ScratchArray::getHalf(OpBuilder &builder, Location loc, Type element,
                            int64_t count, Value half) {
  Value base = get(builder, loc, element, count);
  if (!halfStride) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(entry);
    halfStride = LLVM::ConstantOp::create(builder, loc, builder.getI32Type(),
                                          builder.getI32IntegerAttr(0));
  }
  Value offset =
      LLVM::MulOp::create(builder, loc, half, halfStride->getResult(0));
  return LLVM::GEPOp::create(
      builder, loc, LLVM::LLVMPointerType::get(builder.getContext(), 3),
      builder.getI8Type(), base, ValueRange{offset});
}

int64_t ScratchArray::slotBytes() const {
  if (halfStride)
    return 2 * llvm::alignTo(size, 16);
  return programs > 1 ? llvm::alignTo(size, 16) : size;
}

int64_t ScratchArray::declaredBytes() const { return slotBytes() * programs; }

void ScratchArray::declare(ModuleOp module, Location loc) {
  if (halfStride)
    halfStride->setAttr(
        "value", IntegerAttr::get(IntegerType::get(module.getContext(), 32),
                                  llvm::alignTo(size, 16)));
  if (slotStride)
    slotStride->setAttr(
        "value", IntegerAttr::get(IntegerType::get(module.getContext(), 32),
                                  slotBytes()));
  if (!size) {
    // No exchange: the slot's address (GEP, addressof, mul, stride) refers
    // to no array; drop it, last op first.
    if (slotAddress) {
      SmallVector<Operation *> chain = {slotAddress.getDefiningOp()};
      for (Value operand : chain.back()->getOperands())
        chain.push_back(operand.getDefiningOp());
      chain.push_back(slotStride);
      for (Operation *op : chain)
        if (op && op->use_empty())
          op->erase();
    }
    return;
  }
  auto builder = OpBuilder::atBlockBegin(module.getBody());
  LLVM::GlobalOp::create(
      builder, loc,
      LLVM::LLVMArrayType::get(builder.getI8Type(), declaredBytes()),
      /*isConstant=*/false, LLVM::Linkage::Internal, name, Attribute(),
      /*alignment=*/16, /*addrSpace=*/3);
}

Value countExchange(OpBuilder &builder, Location loc, Value &counter,
                    OpBuilder::InsertPoint where) {
  Type i32 = builder.getI32Type();
  if (!counter) {
    OpBuilder::InsertionGuard guard(builder);
    builder.restoreInsertionPoint(where);
    Value one = arith::ConstantIntOp::create(builder, loc, 1, 64);
    counter = LLVM::AllocaOp::create(
        builder, loc, LLVM::LLVMPointerType::get(builder.getContext()), i32,
        one);
    LLVM::StoreOp::create(builder, loc, i32Constant(builder, loc, 0), counter);
  }
  Value count = LLVM::LoadOp::create(builder, loc, i32, counter);
  LLVM::StoreOp::create(
      builder, loc,
      arith::AddIOp::create(builder, loc, count, i32Constant(builder, loc, 1)),
      counter);
  return count;
}

void programBarrier(OpBuilder &builder, Location loc,
                    const KernelState &kernel) {
  if (kernel.programsPerCTA == 1) {
    NVVM::Barrier0Op::create(builder, loc);
    return;
  }
  // Named barrier `slot` over the program's warps: programs of one CTA
  // neither wait for one another nor need to take the same branches.
  NVVM::BarrierOp::create(
      builder, loc, Type(), kernel.programSlot,
      i32Constant(builder, loc, int64_t(kernel.numWarps) * 32),
      NVVM::BarrierReductionAttr(), Value());
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
  programBarrier(builder, loc, kernel);
  return smem;
}

Value readShared(OpBuilder &builder, Location loc, Value smem, Type storage,
                 Value linear) {
  auto ptrType = LLVM::LLVMPointerType::get(builder.getContext(), 3);
  Value slot = LLVM::GEPOp::create(builder, loc, ptrType, storage, smem,
                                   ValueRange{linear});
  return LLVM::LoadOp::create(builder, loc, storage, slot);
}

/// Elements of `type` a shared-memory vector access of `count` consecutive
/// values takes at most: the largest power of two that divides `count`
/// and fits 16 bytes.
static int64_t sharedVectorWidth(Type type, int64_t count) {
  int64_t width = std::max<int64_t>(1, 16 / blk::elementBytes(type));
  while (count % width)
    width /= 2;
  return width;
}

void storeSharedRun(OpBuilder &builder, Location loc, Value pointer,
                    ValueRange values) {
  Type type = values.front().getType();
  int64_t count = int64_t(values.size());
  int64_t width = sharedVectorWidth(type, count);
  auto ptrType = LLVM::LLVMPointerType::get(builder.getContext(), 3);
  auto vectorType = VectorType::get({width}, type);
  for (int64_t first = 0; first < count; first += width) {
    Value slot = LLVM::GEPOp::create(builder, loc, ptrType, type, pointer,
                                     ArrayRef<LLVM::GEPArg>{int32_t(first)});
    if (width == 1) {
      LLVM::StoreOp::create(builder, loc, values[first], slot);
      continue;
    }
    Value vector = LLVM::PoisonOp::create(builder, loc, vectorType);
    for (int64_t j = 0; j < width; ++j)
      vector =
          LLVM::InsertElementOp::create(builder, loc, vector, values[first + j],
                                        i32Constant(builder, loc, j));
    LLVM::StoreOp::create(builder, loc, vector, slot,
                          width * blk::elementBytes(type));
  }
}

SmallVector<Value> loadSharedRun(OpBuilder &builder, Location loc,
                                 Value pointer, Type type, int64_t count) {
  int64_t width = sharedVectorWidth(type, count);
  auto ptrType = LLVM::LLVMPointerType::get(builder.getContext(), 3);
  auto vectorType = VectorType::get({width}, type);
  SmallVector<Value> values;
  for (int64_t first = 0; first < count; first += width) {
    Value slot = LLVM::GEPOp::create(builder, loc, ptrType, type, pointer,
                                     ArrayRef<LLVM::GEPArg>{int32_t(first)});
    if (width == 1) {
      values.push_back(LLVM::LoadOp::create(builder, loc, type, slot));
      continue;
    }
    Value vector = LLVM::LoadOp::create(builder, loc, vectorType, slot,
                                        width * blk::elementBytes(type));
    for (int64_t j = 0; j < width; ++j)
      values.push_back(LLVM::ExtractElementOp::create(
          builder, loc, vector, i32Constant(builder, loc, j)));
  }
  return values;
}

} // namespace blockjit::nvvm
