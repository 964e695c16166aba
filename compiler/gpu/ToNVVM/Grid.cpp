//===- Grid.cpp - program ids and counts: of CTAs, or of clusters --------===//
//
// A program is a CTA, or with kernel.numCTAs > 1 a thread-block cluster:
// program_id is then %clusterid and num_programs %nclusterid, so the
// kernel's source does not change with the cluster size. With several
// programs per CTA, program_id(0) is %ctaid.x times their count plus the
// program's slot, and num_programs(0) the grid's program count, which the
// runtime passes as a hidden last parameter (BlkToNVVM.cpp).
//
//===----------------------------------------------------------------------===//
#include "compiler/gpu/ToNVVM/Lowering.h"

#include "dialect/BlkDialect.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;

namespace blockjit::nvvm {
namespace {

/// `Op` along axis 0, 1 or 2 reads special register X, Y or Z, or in a
/// cluster kernel ClusterX, ClusterY or ClusterZ.
template <typename Op, typename X, typename Y, typename Z, typename ClusterX,
          typename ClusterY, typename ClusterZ>
struct GridQueryLowering : OpConversionPattern<Op> {
  GridQueryLowering(const TypeConverter &converter, MLIRContext *context,
                    KernelState &kernel)
      : OpConversionPattern<Op>(converter, context), kernel(kernel) {}

  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Location loc = op.getLoc();
    auto read = [&](auto reg) -> Value {
      return decltype(reg)::create(rewriter, loc, i32);
    };
    int64_t axis = op.getAxis();
    Value value;
    if (kernel.programsPerCTA > 1 && axis == 0)
      value = std::is_same_v<Op, blk::ProgramIdOp> ? kernel.programIdX
                                                   : kernel.numProgramsX;
    else if (kernel.numCTAs > 1)
      value = axis == 0   ? read(ClusterX())
              : axis == 1 ? read(ClusterY())
                          : read(ClusterZ());
    else
      value = axis == 0 ? read(X()) : axis == 1 ? read(Y()) : read(Z());
    rewriter.replaceOp(op, value);
    return success();
  }

private:
  KernelState &kernel;
};

} // namespace

void populateGridPatterns(const BlockTypeConverter &converter,
                          RewritePatternSet &patterns, KernelState &kernel) {
  // NVVM's names: ClusterId* is %clusterid (the cluster's position in the
  // grid), ClusterDim* is %nclusterid (clusters in the grid).
  patterns.add<
      GridQueryLowering<blk::ProgramIdOp, NVVM::BlockIdXOp, NVVM::BlockIdYOp,
                        NVVM::BlockIdZOp, NVVM::ClusterIdXOp,
                        NVVM::ClusterIdYOp, NVVM::ClusterIdZOp>,
      GridQueryLowering<blk::NumProgramsOp, NVVM::GridDimXOp, NVVM::GridDimYOp,
                        NVVM::GridDimZOp, NVVM::ClusterDimXOp,
                        NVVM::ClusterDimYOp, NVVM::ClusterDimZOp>>(
      converter, patterns.getContext(), kernel);
}

} // namespace blockjit::nvvm
