//===- BlkToLLVMCommon.cpp - LLVM lowering shared by both backends -------===//
#include "compiler/BlkToLLVMCommon.h"
#include "compiler/Atomics.h"
#include "compiler/EvictionHints.h"

#include "dialect/BlkDialect.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Iterators.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Rewrite/PatternApplicator.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

using namespace mlir;

namespace blockjit {
namespace {

struct AddPtrLowering : ConvertOpToLLVMPattern<blk::AddPtrOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(blk::AddPtrOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto ptrType = dyn_cast<blk::PtrType>(op.getPtr().getType());
    if (!ptrType)
      return rewriter.notifyMatchFailure(op, "blocks are lowered earlier");
    Type element = typeConverter->convertType(ptrType.getPointeeType());
    rewriter.replaceOpWithNewOp<LLVM::GEPOp>(
        op, typeConverter->convertType(op.getType()), element, adaptor.getPtr(),
        ValueRange{adaptor.getOffset()}, LLVM::GEPNoWrapFlags::inbounds);
    return success();
  }
};

struct LoadLowering : ConvertOpToLLVMPattern<blk::LoadOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(blk::LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<blk::PtrType>(op.getPtr().getType()) || op.getMask())
      return rewriter.notifyMatchFailure(op, "only unmasked scalar loads");
    Type type = typeConverter->convertType(op.getType());
    auto load =
        rewriter.replaceOpWithNewOp<LLVM::LoadOp>(op, type, adaptor.getPtr());
    if (auto eviction = op.getEvictionAttr())
      load->setAttr(kEvictionAttrName, eviction);
    return success();
  }
};

struct StoreLowering : ConvertOpToLLVMPattern<blk::StoreOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(blk::StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<blk::PtrType>(op.getPtr().getType()) || op.getMask())
      return rewriter.notifyMatchFailure(op, "only unmasked scalar stores");
    auto store = rewriter.replaceOpWithNewOp<LLVM::StoreOp>(
        op, adaptor.getValue(), adaptor.getPtr());
    if (auto eviction = op.getEvictionAttr())
      store->setAttr(kEvictionAttrName, eviction);
    return success();
  }
};

/// A prefetch into every cache level (x86: prefetcht0, or prefetchw for
/// writing).
struct PrefetchLowering : ConvertOpToLLVMPattern<blk::PrefetchOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(blk::PrefetchOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::Prefetch>(
        op, adaptor.getPtr(), /*rw=*/op.getWrite() ? 1 : 0, /*hint=*/3,
        /*cache=*/1);
    return success();
  }
};

/// Unmasked atomics on scalar pointers (the block and masked ones are
/// lowered earlier): llvm.atomicrmw / cmpxchg in the system scope.
template <typename Op> struct AtomicLowering : ConvertOpToLLVMPattern<Op> {
  using ConvertOpToLLVMPattern<Op>::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<blk::PtrType>(op.getPtr().getType()) || op.getMask())
      return rewriter.notifyMatchFailure(op, "only unmasked scalar atomics");
    Value cmp;
    if constexpr (std::is_same_v<Op, blk::AtomicCASOp>)
      cmp = adaptor.getCmp();
    rewriter.replaceOp(op,
                       emitAtomic(rewriter, op.getLoc(), op, adaptor.getPtr(),
                                  adaptor.getValue(), cmp, /*syncscope=*/""));
    return success();
  }
};

/// Float to signed integer conversions saturate, on every target:
/// truncation toward zero, out-of-range values give the integer type's
/// minimum or maximum, NaN gives 0 (the DSL's `cast`, frontend/Tensor.h).
/// LLVM's fptosi alone is poison for those inputs; the selects pick a
/// defined value wherever it would be (a select's unchosen operand may be
/// poison). The bounds are -2^(n-1) and 2^(n-1), exact in every float type
/// or, past f16's range, infinities, which then catch only the infinities:
/// every finite f16 fits in i32 and i64.
struct SaturatingFPToSILowering : ConvertOpToLLVMPattern<arith::FPToSIOp> {
  SaturatingFPToSILowering(const LLVMTypeConverter &converter)
      : ConvertOpToLLVMPattern(converter, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(arith::FPToSIOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto result =
        dyn_cast_or_null<IntegerType>(typeConverter->convertType(op.getType()));
    Value x = adaptor.getIn();
    auto floatType = dyn_cast<FloatType>(x.getType());
    if (!result || !floatType)
      return rewriter.notifyMatchFailure(op, "scalars only");
    Location loc = op.getLoc();
    unsigned bits = result.getWidth();
    auto floatConstant = [&](bool negative) -> Value {
      APFloat bound(std::ldexp(negative ? -1.0 : 1.0, int(bits) - 1));
      bool losesInfo;
      bound.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                    &losesInfo);
      return LLVM::ConstantOp::create(rewriter, loc, floatType,
                                      rewriter.getFloatAttr(floatType, bound));
    };
    auto intConstant = [&](const APInt &value) -> Value {
      return LLVM::ConstantOp::create(rewriter, loc, result,
                                      rewriter.getIntegerAttr(result, value));
    };
    Value truncated = LLVM::FPToSIOp::create(rewriter, loc, result, x);
    Value tooLow = LLVM::FCmpOp::create(rewriter, loc, LLVM::FCmpPredicate::ole,
                                        x, floatConstant(/*negative=*/true));
    Value tooHigh = LLVM::FCmpOp::create(
        rewriter, loc, LLVM::FCmpPredicate::oge, x, floatConstant(false));
    Value isNaN =
        LLVM::FCmpOp::create(rewriter, loc, LLVM::FCmpPredicate::uno, x, x);
    Value v = LLVM::SelectOp::create(
        rewriter, loc, tooLow, intConstant(APInt::getSignedMinValue(bits)),
        truncated);
    v = LLVM::SelectOp::create(rewriter, loc, tooHigh,
                               intConstant(APInt::getSignedMaxValue(bits)), v);
    v = LLVM::SelectOp::create(rewriter, loc, isNaN,
                               intConstant(APInt::getZero(bits)), v);
    rewriter.replaceOp(op, v);
    return success();
  }
};

} // namespace

void addBlkTypeConversions(LLVMTypeConverter &converter,
                           unsigned addressSpace) {
  converter.addConversion([addressSpace](blk::PtrType type) -> Type {
    return LLVM::LLVMPointerType::get(type.getContext(), addressSpace);
  });
}

void populateScalarBlkToLLVMPatterns(LLVMTypeConverter &converter,
                                     RewritePatternSet &patterns) {
  patterns.add<AddPtrLowering, LoadLowering, StoreLowering, PrefetchLowering>(
      converter);
  patterns
      .add<AtomicLowering<blk::AtomicRMWOp>, AtomicLowering<blk::AtomicCASOp>>(
          converter);
}

void populateBlkToLLVMCommonPatterns(LLVMTypeConverter &converter,
                                     RewritePatternSet &patterns) {
  populateScalarBlkToLLVMPatterns(converter, patterns);
  patterns.add<SaturatingFPToSILowering>(converter);
  arith::populateArithToLLVMConversionPatterns(converter, patterns);
  populateMathToLLVMConversionPatterns(converter, patterns);
  cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
  populateFuncToLLVMConversionPatterns(converter, patterns);
  ub::populateUBToLLVMConversionPatterns(converter, patterns);
}

LogicalResult lowerSCFToControlFlow(ModuleOp module) {
  // Upstream's patterns, applied once per op in an order that keeps the
  // lowering linear: splitting a block moves every op after the split point,
  // so ops are lowered last-first within each block (each split then moves
  // only the ops up to the previous split), and without the dialect
  // conversion driver, which records every moved op for a possible rollback
  // (quadratic time and memory for the thousands of scf.if of a large block).
  MLIRContext *context = module.getContext();
  RewritePatternSet patterns(context);
  populateSCFToControlFlowConversionPatterns(patterns);
  FrozenRewritePatternSet frozen(std::move(patterns));
  PatternApplicator applicator(frozen);
  applicator.applyDefaultCostModel();
  SmallVector<Operation *> ops;
  module.walk<WalkOrder::PreOrder, ReverseIterator>([&](Operation *op) {
    // Terminators are rewritten with the op that holds them.
    if (isa<scf::SCFDialect>(op->getDialect()) &&
        !op->hasTrait<OpTrait::IsTerminator>())
      ops.push_back(op);
  });
  PatternRewriter rewriter(context);
  for (Operation *op : ops) {
    rewriter.setInsertionPoint(op);
    if (failed(applicator.matchAndRewrite(op, rewriter)))
      return op->emitOpError() << "has no lowering to control flow";
  }
  return success();
}

} // namespace blockjit
