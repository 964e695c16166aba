//===- OnChip.cpp - blocks kept in shared memory (cp.async, ld.shared) ---===//
//
// blkgpu.async_load copies a block from global into the CTA's dynamic shared
// memory with cp.async; blkgpu.local_load reads a thread's elements back.
// Each thread copies and reads exactly the elements it owns in the register
// layout (at their index in the CTA's share), so neither needs a barrier:
// blkgpu.async_wait (cp.async.wait_group) makes a thread's own copies
// visible to it. Each async_load commits its copies as one group.
//
//===----------------------------------------------------------------------===//
#include "compiler/gpu/ToNVVM/Lowering.h"

#include "dialect/BlkDialect.h"
#include "dialect/gpu/BlkGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace blockjit::nvvm {
namespace {

constexpr llvm::StringLiteral kDynamicSharedSymbol = "__blk_dynamic_shared";

/// Where a kept block starts: `offset` bytes into the dynamic shared memory.
Value blockStart(OpBuilder &builder, Location loc, int64_t offset) {
  auto ptrType = LLVM::LLVMPointerType::get(builder.getContext(), 3);
  Value base = LLVM::AddressOfOp::create(builder, loc, ptrType,
                                         kDynamicSharedSymbol);
  return LLVM::GEPOp::create(builder, loc, ptrType, builder.getI8Type(), base,
                             ValueRange{i32Constant(builder, loc, offset)});
}

/// The slot of this thread's element k of a block laid out as `layout`
/// that starts at `start`.
Value slotOf(OpBuilder &builder, Location loc, const KernelState &kernel,
             const Layout1D &layout, Value start, Type element, int64_t k) {
  auto ptrType = LLVM::LLVMPointerType::get(builder.getContext(), 3);
  return LLVM::GEPOp::create(
      builder, loc, ptrType, element, start,
      ValueRange{elementIndex(builder, loc, kernel.threadId, layout, k)});
}

bool isZero(Value value) {
  return value && (matchPattern(value, m_AnyZeroFloat()) ||
                   matchPattern(value, m_Zero()));
}

struct AsyncLoadLowering : KernelOpLowering<blkgpu::AsyncLoadOp> {
  using KernelOpLowering::KernelOpLowering;

  LogicalResult
  matchAndRewrite(blkgpu::AsyncLoadOp load, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Layout1D layout = layoutOf(load.getPtr().getType());
    Location loc = load.getLoc();
    Operation *before = load->getPrevNode();
    Type element = load.getType().getElementType();
    unsigned bytes = blk::elementBytes(element);
    int64_t width = kernel.accessWidths.at(load).width;
    ValueRange ptrs = adaptor.getPtr();
    // cp.async moves 4, 8 or 16 bytes; narrower accesses go through a
    // register.
    int64_t copyBytes = width * bytes;
    bool asyncCopy = copyBytes >= 4;
    // Masked lanes read nothing: a zero-filled copy when `other` is 0, else
    // `other` stored under a branch.
    bool zeroFill = !load.getOther() || isZero(load.getOther());
    Value start = load.getInto() ? adaptor.getInto().front()
                                 : blockStart(rewriter, loc, *load.getOffset());
    for (int64_t k = 0; k < layout.perThread(); k += width) {
      Value slot = slotOf(rewriter, loc, kernel, layout, start, element, k);
      Value mask = load.getMask() ? adaptor.getMask()[k] : Value();
      auto copy = [&](Value bytesToRead) {
        NVVM::CpAsyncOp::create(
            rewriter, loc, slot, toLLVMPointer(rewriter, loc, ptrs[k]),
            rewriter.getI32IntegerAttr(copyBytes),
            NVVM::LoadCacheModifierKindAttr::get(
                rewriter.getContext(), copyBytes == 16
                                           ? NVVM::LoadCacheModifierKind::CG
                                           : NVVM::LoadCacheModifierKind::CA),
            bytesToRead);
      };
      auto storeOther = [&]() {
        Value chunk = otherChunk(
            rewriter, loc, load.getOther() ? adaptor.getOther() : ValueRange(),
            element, k, width);
        storeVector(rewriter, loc, chunk, slot, copyBytes);
      };
      auto copyThroughRegister = [&]() {
        Value vec =
            loadVector(rewriter, loc, element, width,
                       toLLVMPointer(rewriter, loc, ptrs[k]), copyBytes);
        storeVector(rewriter, loc, vec, slot, copyBytes);
      };
      if (!mask) {
        if (asyncCopy)
          copy(Value());
        else
          copyThroughRegister();
        continue;
      }
      if (asyncCopy && zeroFill) {
        Value size = arith::SelectOp::create(
            rewriter, loc, mask, i32Constant(rewriter, loc, copyBytes),
            i32Constant(rewriter, loc, 0));
        copy(size);
        continue;
      }
      auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{}, mask, true);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      if (asyncCopy)
        copy(Value());
      else
        copyThroughRegister();
      rewriter.setInsertionPointToStart(ifOp.elseBlock());
      storeOther();
    }
    NVVM::CpAsyncCommitGroupOp::create(rewriter, loc);
    // The copies carry the load's hint to L2; stores of `other` into shared
    // memory are marked too, and LowerEvictionHints leaves them plain.
    markEviction(before, load, load.getEvictionAttr());
    kernel.usesDynamicShared = true;
    rewriter.replaceOp(load, start);
    return success();
  }
};

struct AsyncWaitLowering : KernelOpLowering<blkgpu::AsyncWaitOp> {
  using KernelOpLowering::KernelOpLowering;

  LogicalResult
  matchAndRewrite(blkgpu::AsyncWaitOp wait, OneToNOpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncWaitGroupOp>(
        wait, rewriter.getI32IntegerAttr(wait.getPending()));
    return success();
  }
};

struct LocalLoadLowering : KernelOpLowering<blkgpu::LocalLoadOp> {
  using KernelOpLowering::KernelOpLowering;

  LogicalResult
  matchAndRewrite(blkgpu::LocalLoadOp read, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Layout1D layout = layoutOf(read.getType());
    Location loc = read.getLoc();
    Type element = read.getType().getElementType();
    unsigned bytes = blk::elementBytes(element);
    int64_t width = std::min<int64_t>(layout.vector, 16 / bytes);
    SmallVector<Value> elements;
    ValueRange mask = read.getMask() ? adaptor.getMask() : ValueRange();
    ValueRange other = read.getOther() ? adaptor.getOther() : ValueRange();
    Value zero;
    if (!mask.empty() && other.empty())
      zero = arith::ConstantOp::create(rewriter, loc, element,
                                       rewriter.getZeroAttr(element));
    for (int64_t k = 0; k < layout.perThread(); k += width) {
      Value slot = slotOf(rewriter, loc, kernel, layout,
                          adaptor.getSrc().front(), element, k);
      Value vec =
          loadVector(rewriter, loc, element, width, slot, width * bytes);
      for (int64_t j = 0; j < width; ++j) {
        Value value = LLVM::ExtractElementOp::create(
            rewriter, loc, vec, i32Constant(rewriter, loc, j));
        // A masked-off slot holds `other` (or 0): selecting it is a no-op
        // that LLVM folds where the mask is known.
        if (!mask.empty())
          value = arith::SelectOp::create(rewriter, loc, mask[k + j], value,
                                          other.empty() ? zero
                                                        : other[k + j]);
        elements.push_back(value);
      }
    }
    rewriter.replaceOpWithMultiple(read, {elements});
    return success();
  }
};

} // namespace

void declareDynamicShared(ModuleOp module, Location loc) {
  if (module.lookupSymbol(kDynamicSharedSymbol))
    return;
  auto builder = OpBuilder::atBlockBegin(module.getBody());
  LLVM::GlobalOp::create(builder, loc,
                         LLVM::LLVMArrayType::get(builder.getI8Type(), 0),
                         /*isConstant=*/false, LLVM::Linkage::External,
                         kDynamicSharedSymbol, Attribute(), /*alignment=*/128,
                         /*addrSpace=*/3);
}

void populateOnChipPatterns(const BlockTypeConverter &converter,
                            RewritePatternSet &patterns, KernelState &kernel) {
  patterns.add<AsyncLoadLowering, AsyncWaitLowering, LocalLoadLowering>(
      converter, patterns.getContext(), kernel);
}

} // namespace blockjit::nvvm
