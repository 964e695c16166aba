//===- Elementwise.cpp - elementwise ops, one per owned element ----------===//
#include "compiler/gpu/ToNVVM/Lowering.h"

#include "compiler/MathLowering.h"

#include "dialect/BlkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace blockjit::nvvm {
namespace {

/// Operand `i` of element k: a block operand's element k, a scalar operand
/// (such as the condition of a select) itself.
Value operandOf(ArrayRef<ValueRange> operands, size_t i, int64_t k) {
  return operands[i].size() == 1 ? operands[i].front() : operands[i][k];
}

int64_t elementCount(Operation *op) {
  return layoutOf(cast<RankedTensorType>(op->getResult(0).getType()))
      .perThread();
}

/// Any elementwise op with one result: the same op on each element.
struct ElementwiseLowering : ConversionPattern {
  ElementwiseLowering(const TypeConverter &converter, MLIRContext *context)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1,
                          context) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<ValueRange> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() != 1 ||
        !blk::isBlock(op->getResult(0).getType()))
      return rewriter.notifyMatchFailure(op, "not an elementwise block op");
    Type elementType = blk::elementTypeOf(op->getResult(0).getType());
    SmallVector<Value> elements;
    for (int64_t k = 0, e = elementCount(op); k < e; ++k) {
      OperationState state(op->getLoc(), op->getName());
      for (size_t i = 0; i < operands.size(); ++i)
        state.addOperands(operandOf(operands, i, k));
      state.addAttributes(op->getAttrs());
      state.addTypes(elementType);
      elements.push_back(rewriter.create(state)->getResult(0));
    }
    rewriter.replaceOpWithMultiple(op, {elements});
    return success();
  }
};

/// A comparison that is the same over aligned runs of a thread's
/// consecutive elements (comparisonRuns: `arange(0, B) < n` with n a
/// multiple of 16 is constant over runs of 16): one compare per run, its
/// result shared by the run. A mask used beyond loads and stores then costs a
/// predicate per vector instead of one per element: layernorm's
/// where(mask, x - mean, 0) on bf16 rows of 4096 made 32 compares a thread,
/// kept their 32 results as bits of a register across the mean's reduction
/// and took each out again (a LOP3) for its select.
struct RunSharedComparisonLowering : KernelOpLowering<arith::CmpIOp> {
  using KernelOpLowering::KernelOpLowering;

  LogicalResult
  matchAndRewrite(arith::CmpIOp cmp, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto found = kernel.comparisonRuns.find(cmp);
    if (found == kernel.comparisonRuns.end())
      return rewriter.notifyMatchFailure(cmp, "no runs of equal results");
    int64_t run = found->second;
    ValueRange operands[] = {adaptor.getLhs(), adaptor.getRhs()};
    SmallVector<Value> elements;
    for (int64_t k = 0, e = elementCount(cmp); k < e; ++k) {
      if (k % run) {
        elements.push_back(elements.back());
        continue;
      }
      elements.push_back(arith::CmpIOp::create(
          rewriter, cmp.getLoc(), cmp.getPredicate(),
          operandOf(operands, 0, k), operandOf(operands, 1, k)));
    }
    rewriter.replaceOpWithMultiple(cmp, {elements});
    return success();
  }
};

/// x / s where a thread's divisor elements are a few values each shared by
/// several elements (one scalar s; a [1, N] row of sums broadcast down a
/// 2-D block's rows, as softmax_columns divides), of a type that
/// dividesByReciprocal (f32, f64): one branch on reciprocalIsNormal(|s|)
/// of every distinct s of the thread, 2^-126 <= |s| <= 2^126 for f32
/// (uniform over the warp for a scalar s; per thread where threads hold
/// different columns). (softmax_columns' whole-column f32 kernel divided
/// each element with div.rn's slow-path call: 32 calls a thread.)
///
/// In that range 1/s is a normal number and the elements multiply by one
/// reciprocal: for f32 rcp.approx.ftz, which is div.full.f32's own code in
/// that range (Triton's division; PTX bounds it at 2 ulp, LANGUAGE.md's bound
/// for CUDA f32), for f64 a correctly rounded 1/s (within 1.5 ulp).
/// rcp.rn's correction steps and slow-path call cost 4 % at f32 4096 x 768
/// on the H100 (one wave of CTAs: every instruction is on the critical path).
///
/// Beyond (subnormal s, |s| near the largest float, 0, inf, NaN) 1/s
/// overflows or loses bits as a subnormal (1e-39 / 1e-39 gave inf, not 1):
/// f32 elements divide with div.full, which scales both operands under
/// predicates (no call; a branch-free div.full everywhere cost 3 % at
/// 4096 x 272, three instructions per element), others divide exactly. The
/// test reads s, not 1/s: the reciprocal is computed only where it is used.
struct DivBySharedDivisorsLowering : OpConversionPattern<arith::DivFOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arith::DivFOp div, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ValueRange lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    assert(lhs.size() == rhs.size() && "operands of one block type");
    // The distinct divisor values, each shared by kMinSharing elements on
    // average at least (a reciprocal and a multiply per element beat a
    // division only when the reciprocal is shared).
    constexpr size_t kMinSharing = 2;
    SmallVector<Value> divisors;
    DenseMap<Value, unsigned> divisorIndex;
    for (Value d : rhs)
      if (divisorIndex.try_emplace(d, divisors.size()).second)
        divisors.push_back(d);
    if (divisors.size() > std::max<size_t>(1, lhs.size() / kMinSharing))
      return rewriter.notifyMatchFailure(div, "divisor elements differ");
    Location loc = div.getLoc();
    auto type = cast<FloatType>(rhs[0].getType());
    if (!dividesByReciprocal(type))
      return rewriter.notifyMatchFailure(div, "f16 or bf16: divides exactly");
    Value normal;
    for (Value d : divisors) {
      Value dNormal = reciprocalIsNormal(
          rewriter, loc, LLVM::FAbsOp::create(rewriter, loc, d));
      normal = normal ? arith::AndIOp::create(rewriter, loc, normal, dNormal)
                      : dNormal;
    }
    SmallVector<Type> types(lhs.size(), type);
    auto ifOp = scf::IfOp::create(rewriter, loc, types, normal,
                                  /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      // f32: s and 1/s are normal, so div.full's own code (one MUFU
      // reciprocal, no operand scaling) is exact enough.
      SmallVector<Value> reciprocals;
      for (Value d : divisors)
        reciprocals.push_back(
            type.isF32()
                ? NVVM::RcpApproxFtzF32Op::create(rewriter, loc, type, d)
                      .getResult()
                : arith::DivFOp::create(
                      rewriter, loc,
                      arith::ConstantOp::create(
                          rewriter, loc, rewriter.getFloatAttr(type, 1.0)),
                      d)
                      .getResult());
      SmallVector<Value> products;
      for (auto [x, d] : llvm::zip(lhs, rhs))
        products.push_back(arith::MulFOp::create(
            rewriter, loc, x, reciprocals[divisorIndex.lookup(d)]));
      scf::YieldOp::create(rewriter, loc, products);
      rewriter.setInsertionPointToStart(ifOp.elseBlock());
      // f32: div.full scales the operands under predicates (no call to a
      // slow path, whose register convention cost the hot path); others
      // divide exactly.
      auto divFull = rewriter.getStringAttr("llvm.nvvm.div.full");
      SmallVector<Value> quotients;
      for (auto [x, d] : llvm::zip(lhs, rhs))
        quotients.push_back(
            type.isF32()
                ? LLVM::CallIntrinsicOp::create(rewriter, loc, type, divFull,
                                                ValueRange{x, d})
                      .getResult(0)
                : arith::DivFOp::create(rewriter, loc, x, d).getResult());
      scf::YieldOp::create(rewriter, loc, quotients);
    }
    rewriter.replaceOpWithMultiple(div,
                                   {SmallVector<Value>(ifOp.getResults())});
    return success();
  }
};

/// f32 -> bf16/f16 two elements at a time (sm_80's cvt.rn.bf16x2.f32 and
/// cvt.rn.f16x2.f32), bit for bit the scalar conversions. Instruction
/// selection pairs scalar truncations by itself only when both halves meet
/// their store in one basic block; a store under a mask sits blocks away,
/// where each pair cost two cvts and a register pack. The intrinsic also
/// keeps InstCombine from splitting a vector fptrunc back into scalars.
struct PairedTruncFLowering : OpConversionPattern<arith::TruncFOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arith::TruncFOp trunc, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!blk::isBlock(trunc.getType()))
      return rewriter.notifyMatchFailure(trunc, "not a block");
    ValueRange in = adaptor.getIn();
    Type from = blk::elementTypeOf(trunc.getIn().getType());
    Type to = blk::elementTypeOf(trunc.getType());
    if (!from.isF32() || !(to.isBF16() || to.isF16()) || in.size() % 2 ||
        trunc.getRoundingmodeAttr())
      return rewriter.notifyMatchFailure(trunc, "not an f32 pair truncation");
    Location loc = trunc.getLoc();
    auto pairType = VectorType::get({2}, to);
    auto intrinsic = rewriter.getStringAttr(
        to.isBF16() ? "llvm.nvvm.ff2bf16x2.rn" : "llvm.nvvm.ff2f16x2.rn");
    SmallVector<Value> elements;
    for (size_t k = 0; k < in.size(); k += 2) {
      // The first operand lands in the high half, element 1.
      Value pair = LLVM::CallIntrinsicOp::create(rewriter, loc, pairType,
                                                 intrinsic,
                                                 ValueRange{in[k + 1], in[k]})
                       .getResult(0);
      for (int64_t half : {0, 1})
        elements.push_back(LLVM::ExtractElementOp::create(
            rewriter, loc, pair, i32Constant(rewriter, loc, half)));
    }
    rewriter.replaceOpWithMultiple(trunc, {elements});
    return success();
  }
};

} // namespace

DenseMap<Operation *, int64_t> comparisonRuns(func::FuncOp func,
                                              const AxisAnalysis &axis) {
  DenseMap<Operation *, int64_t> runs;
  func.walk([&](arith::CmpIOp cmp) {
    auto type = dyn_cast<RankedTensorType>(cmp.getType());
    std::optional<Layout1D> layout =
        type ? linearLayoutOf(type) : std::nullopt;
    if (!layout)
      return;
    // Both are powers of two: runs of the constancy aligned in the last
    // dimension, cut to the vector, are runs of a thread's elements.
    int64_t run = std::min(axis.get(cmp.getResult()).constancy,
                           int64_t(layout->vector));
    if (run > 1)
      runs[cmp] = run;
  });
  return runs;
}

void populateElementwisePatterns(const BlockTypeConverter &converter,
                                 RewritePatternSet &patterns,
                                 KernelState &kernel, int smArch) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ElementwiseLowering>(converter, context);
  patterns.add<RunSharedComparisonLowering>(converter, context, kernel,
                                            /*benefit=*/2);
  // Before the generic clone.
  // exp and log stay per element here; compiler/MathLowering.cpp rewrites them
  // for NVPTX, for scalars and block elements alike.
  patterns.add<DivBySharedDivisorsLowering>(converter, context, /*benefit=*/2);
  if (smArch >= 80)
    patterns.add<PairedTruncFLowering>(converter, context, /*benefit=*/2);
}

} // namespace blockjit::nvvm
