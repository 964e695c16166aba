//===- EvictionHints.cpp - blk's eviction hints down to PTX ---------------===//
#include "compiler/EvictionHints.h"
#include "compiler/gpu/NVPTXTarget.h"
#include "dialect/BlkDialect.h"

#include "mlir/Target/LLVMIR/LLVMTranslationInterface.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"

namespace blockjit {

namespace {

/// A cp.async copy from global to shared memory: its form ("ca" or "cg"),
/// the bytes it copies, and whether it takes a source size (the ".s"
/// intrinsics: bytes past it are zero-filled).
struct AsyncCopy {
  const char *form;
  unsigned bytes;
  bool sourceSize;
};

std::optional<AsyncCopy> asyncCopyOf(const llvm::Instruction &inst) {
  auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst);
  if (!call)
    return std::nullopt;
  switch (call->getIntrinsicID()) {
  case llvm::Intrinsic::nvvm_cp_async_ca_shared_global_4:
    return AsyncCopy{"ca", 4, false};
  case llvm::Intrinsic::nvvm_cp_async_ca_shared_global_4_s:
    return AsyncCopy{"ca", 4, true};
  case llvm::Intrinsic::nvvm_cp_async_ca_shared_global_8:
    return AsyncCopy{"ca", 8, false};
  case llvm::Intrinsic::nvvm_cp_async_ca_shared_global_8_s:
    return AsyncCopy{"ca", 8, true};
  case llvm::Intrinsic::nvvm_cp_async_ca_shared_global_16:
    return AsyncCopy{"ca", 16, false};
  case llvm::Intrinsic::nvvm_cp_async_ca_shared_global_16_s:
    return AsyncCopy{"ca", 16, true};
  case llvm::Intrinsic::nvvm_cp_async_cg_shared_global_16:
    return AsyncCopy{"cg", 16, false};
  case llvm::Intrinsic::nvvm_cp_async_cg_shared_global_16_s:
    return AsyncCopy{"cg", 16, true};
  default:
    return std::nullopt;
  }
}

struct EvictionHintTranslation : mlir::LLVMTranslationDialectInterface {
  using LLVMTranslationDialectInterface::LLVMTranslationDialectInterface;

  mlir::LogicalResult
  amendOperation(mlir::Operation *op,
                 llvm::ArrayRef<llvm::Instruction *> instructions,
                 mlir::NamedAttribute attribute,
                 mlir::LLVM::ModuleTranslation &) const override {
    if (attribute.getName() != kEvictionAttrName)
      return mlir::success();
    auto eviction = llvm::dyn_cast<blk::EvictionAttr>(attribute.getValue());
    if (!eviction)
      return op->emitOpError()
             << kEvictionAttrName << " must be a #blk.eviction, got "
             << attribute.getValue();
    for (llvm::Instruction *inst : instructions) {
      if (!llvm::isa<llvm::LoadInst, llvm::StoreInst>(inst) &&
          !asyncCopyOf(*inst))
        continue;
      llvm::LLVMContext &context = inst->getContext();
      inst->setMetadata(
          kEvictionMetadata,
          llvm::MDNode::get(
              context, llvm::MDString::get(context, blk::stringifyEviction(
                                                        eviction.getValue()))));
    }
    return mlir::success();
  }
};

/// How an access of `bytes` bytes moves as PTX registers: `count` registers
/// of `bits` (8-bit accesses use a 16-bit register, as NVPTX does).
struct RegisterShape {
  unsigned count, bits;
};

std::optional<RegisterShape> registerShape(uint64_t bytes) {
  switch (bytes) {
  case 1:
    return RegisterShape{1, 8};
  case 2:
    return RegisterShape{1, 16};
  case 4:
    return RegisterShape{1, 32};
  case 8:
    return RegisterShape{2, 32};
  case 16:
    return RegisterShape{4, 32};
  default:
    return std::nullopt;
  }
}

/// "ld.global.L1::evict_first.L2::cache_hint.v4.b32" and the like, after
/// the createpolicy of the L2 priority, in one asm block (as Triton emits
/// them; ptxas rejected the shorter `.L2::evict_first` qualifier on the
/// H200's CUDA).
/// `instruction` (which reads %policy) after the createpolicy of the L2
/// `priority` ("evict_first" or "evict_last"), in one asm block.
std::string withPolicy(const std::string &priority,
                       const std::string &instruction) {
  return "{\n\t.reg .b64 %policy;\n\tcreatepolicy.fractional.L2::" + priority +
         ".b64 %policy, 1.0;\n\t" + instruction + "\n\t}";
}

std::string accessAsm(bool isLoad, llvm::StringRef eviction,
                      RegisterShape shape) {
  std::string priority = eviction.str(); // "evict_first" or "evict_last"
  std::string regs;
  unsigned first = isLoad ? 0 : 1;
  for (unsigned i = 0; i < shape.count; ++i)
    regs += (i ? ", $" : "$") + std::to_string(first + i);
  if (shape.count > 1)
    regs = "{" + regs + "}";
  std::string address = "[$" + std::to_string(isLoad ? shape.count : 0) + "]";
  std::string op = std::string(isLoad ? "ld" : "st") +
                   ".global.L1::" + priority + ".L2::cache_hint" +
                   (shape.count > 1 ? ".v" + std::to_string(shape.count) : "") +
                   ".b" + std::to_string(shape.bits);
  std::string operands = isLoad ? regs + ", " + address : address + ", " + regs;
  return withPolicy(priority, op + " " + operands + ", %policy;");
}

/// "cp.async.cg.shared.global.L2::cache_hint [$0], [$1], 16, $2, %policy;"
/// and the like (the source size, $2, where the copy has one), after the
/// createpolicy of the L2 priority.
std::string asyncCopyAsm(llvm::StringRef eviction, AsyncCopy copy) {
  return withPolicy(eviction.str(),
                    std::string("cp.async.") + copy.form +
                        ".shared.global.L2::cache_hint [$0], [$1], " +
                        std::to_string(copy.bytes) +
                        (copy.sourceSize ? ", $2" : "") + ", %policy;");
}

/// The asm constraint letter of a register of `bits`.
const char *constraintOf(unsigned bits) { return bits == 32 ? "r" : "h"; }

/// The register type holding `bits`.
llvm::Type *registerType(llvm::LLVMContext &context, unsigned bits) {
  return llvm::IntegerType::get(context, bits == 32 ? 32 : 16);
}

/// `value` (an access's value of shape `shape`) as its registers.
llvm::SmallVector<llvm::Value *>
toRegisters(llvm::IRBuilder<> &b, llvm::Value *value, RegisterShape shape) {
  llvm::LLVMContext &context = value->getContext();
  llvm::Type *word = llvm::IntegerType::get(context, shape.bits);
  llvm::Value *bits = b.CreateBitCast(
      value,
      shape.count == 1 ? word : llvm::FixedVectorType::get(word, shape.count));
  llvm::SmallVector<llvm::Value *> registers;
  for (unsigned i = 0; i < shape.count; ++i) {
    llvm::Value *element =
        shape.count == 1 ? bits : b.CreateExtractElement(bits, i);
    if (shape.bits == 8)
      element = b.CreateZExt(element, registerType(context, 8));
    registers.push_back(element);
  }
  return registers;
}

/// The registers a load's asm returned, as a value of `type`.
llvm::Value *fromRegisters(llvm::IRBuilder<> &b, llvm::Value *result,
                           RegisterShape shape, llvm::Type *type) {
  llvm::LLVMContext &context = type->getContext();
  llvm::Type *word = llvm::IntegerType::get(context, shape.bits);
  llvm::Value *bits;
  if (shape.count == 1) {
    bits = shape.bits == 8 ? b.CreateTrunc(result, word) : result;
  } else {
    bits =
        llvm::PoisonValue::get(llvm::FixedVectorType::get(word, shape.count));
    for (unsigned i = 0; i < shape.count; ++i)
      bits = b.CreateInsertElement(bits, b.CreateExtractValue(result, i), i);
  }
  return b.CreateBitCast(bits, type);
}

/// A cp.async with the hint, as inline PTX: the shared and global addresses
/// as 64-bit registers (as NVPTX prints the intrinsic's), the source size
/// where the copy has one.
void lowerAsyncCopyHint(llvm::CallInst &call, AsyncCopy copy,
                        llvm::StringRef eviction) {
  llvm::IRBuilder<> b(&call);
  llvm::SmallVector<llvm::Value *> operands{
      b.CreatePtrToInt(call.getArgOperand(0), b.getInt64Ty()),
      b.CreatePtrToInt(call.getArgOperand(1), b.getInt64Ty())};
  std::string constraints = "l,l";
  if (copy.sourceSize) {
    operands.push_back(call.getArgOperand(2));
    constraints += ",r";
  }
  llvm::SmallVector<llvm::Type *> argTypes;
  for (llvm::Value *operand : operands)
    argTypes.push_back(operand->getType());
  // Side effects and memory, as the intrinsic: the copy keeps its place
  // before the group's commit.
  auto *asmValue = llvm::InlineAsm::get(
      llvm::FunctionType::get(b.getVoidTy(), argTypes, false),
      asyncCopyAsm(eviction, copy), constraints + ",~{memory}",
      /*hasSideEffects=*/true);
  b.CreateCall(asmValue, operands)->setDoesNotThrow();
  call.eraseFromParent();
}

/// The hint of `inst` as inline PTX; false where it cannot carry it.
bool lowerHint(llvm::Instruction &inst, llvm::StringRef eviction) {
  if (auto copy = asyncCopyOf(inst)) {
    lowerAsyncCopyHint(llvm::cast<llvm::CallInst>(inst), *copy, eviction);
    return true;
  }
  const llvm::DataLayout &layout = inst.getModule()->getDataLayout();
  auto *load = llvm::dyn_cast<llvm::LoadInst>(&inst);
  auto *store = llvm::dyn_cast<llvm::StoreInst>(&inst);
  if ((load && !load->isSimple()) || (store && !store->isSimple()))
    return false;
  llvm::Value *pointer =
      load ? load->getPointerOperand() : store->getPointerOperand();
  llvm::Type *type =
      load ? load->getType() : store->getValueOperand()->getType();
  unsigned space = pointer->getType()->getPointerAddressSpace();
  // Global memory only: on a generic address the hint is defined only where
  // it points to global memory, which nothing here proves.
  if (space != 1)
    return false;
  if (!type->isSingleValueType() || type->isPtrOrPtrVectorTy())
    return false;
  uint64_t bytes = layout.getTypeStoreSize(type);
  auto shape = registerShape(bytes);
  llvm::Align align = load ? load->getAlign() : store->getAlign();
  if (!shape || align.value() < bytes ||
      layout.getTypeSizeInBits(type) != bytes * 8)
    return false;
  llvm::LLVMContext &context = inst.getContext();
  llvm::IRBuilder<> b(&inst);
  llvm::Value *address = b.CreatePtrToInt(pointer, b.getInt64Ty());
  std::string text = accessAsm(bool(load), eviction, *shape);
  llvm::Type *reg = registerType(context, shape->bits);
  std::string constraints;
  llvm::SmallVector<llvm::Value *> operands;
  llvm::SmallVector<llvm::Type *> argTypes;
  llvm::Type *resultType = b.getVoidTy();
  if (load) {
    for (unsigned i = 0; i < shape->count; ++i)
      constraints += std::string(i ? ",=" : "=") + constraintOf(shape->bits);
    constraints += ",l";
    operands.push_back(address);
    llvm::SmallVector<llvm::Type *> results(shape->count, reg);
    resultType =
        shape->count == 1 ? reg : llvm::StructType::get(context, results);
  } else {
    constraints = "l";
    operands.push_back(address);
    for (llvm::Value *r : toRegisters(b, store->getValueOperand(), *shape)) {
      constraints += std::string(",") + constraintOf(shape->bits);
      operands.push_back(r);
    }
  }
  for (llvm::Value *operand : operands)
    argTypes.push_back(operand->getType());
  // Side effects: the access keeps its place among the other memory
  // accesses (an asm without them could be scheduled past a store).
  auto *asmValue = llvm::InlineAsm::get(
      llvm::FunctionType::get(resultType, argTypes, false), text,
      constraints + ",~{memory}", /*hasSideEffects=*/true);
  llvm::CallInst *call = b.CreateCall(asmValue, operands);
  call->setDoesNotThrow();
  if (load)
    load->replaceAllUsesWith(fromRegisters(b, call, *shape, type));
  inst.eraseFromParent();
  return true;
}

} // namespace

void registerEvictionHintTranslation(mlir::DialectRegistry &registry) {
  registry.addExtension(+[](mlir::MLIRContext *, blk::BlkDialect *dialect) {
    dialect->addInterfaces<EvictionHintTranslation>();
  });
}

llvm::PreservedAnalyses
LowerEvictionHints::run(llvm::Function &function,
                        llvm::FunctionAnalysisManager &) {
  llvm::SmallVector<std::pair<llvm::Instruction *, std::string>> marked;
  for (llvm::Instruction &inst : llvm::instructions(function))
    if (llvm::MDNode *node = inst.getMetadata(kEvictionMetadata)) {
      auto *text = node->getNumOperands() == 1
                       ? llvm::dyn_cast<llvm::MDString>(node->getOperand(0))
                       : nullptr;
      marked.push_back({&inst, text ? text->getString().str() : ""});
    }
  bool changed = false;
  for (auto &[inst, eviction] : marked) {
    bool known = blk::symbolizeEviction(eviction).has_value();
    if (!known || !hasEvictionPriorities(smVersion, ptxVersion) ||
        !lowerHint(*inst, eviction))
      inst->setMetadata(kEvictionMetadata, nullptr);
    changed = true;
  }
  return changed ? llvm::PreservedAnalyses::none()
                 : llvm::PreservedAnalyses::all();
}

} // namespace blockjit
