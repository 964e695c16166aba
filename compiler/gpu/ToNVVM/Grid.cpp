//===- Grid.cpp - program ids and counts are CTA ids and grid sizes ------===//
#include "compiler/gpu/ToNVVM/Lowering.h"

#include "dialect/BlkDialect.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;

namespace blockjit::nvvm {
namespace {

/// `Op` along axis 0, 1 or 2 reads special register X, Y or Z.
template <typename Op, typename X, typename Y, typename Z>
struct GridQueryLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Location loc = op.getLoc();
    Value value = op.getAxis() == 0   ? Value(X::create(rewriter, loc, i32))
                  : op.getAxis() == 1 ? Value(Y::create(rewriter, loc, i32))
                                      : Value(Z::create(rewriter, loc, i32));
    rewriter.replaceOp(op, value);
    return success();
  }
};

} // namespace

void populateGridPatterns(const BlockTypeConverter &converter,
                          RewritePatternSet &patterns) {
  patterns.add<GridQueryLowering<blk::ProgramIdOp, NVVM::BlockIdXOp,
                                 NVVM::BlockIdYOp, NVVM::BlockIdZOp>,
               GridQueryLowering<blk::NumProgramsOp, NVVM::GridDimXOp,
                                 NVVM::GridDimYOp, NVVM::GridDimZOp>>(
      converter, patterns.getContext());
}

} // namespace blockjit::nvvm
