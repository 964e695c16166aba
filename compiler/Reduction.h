//===- Reduction.h - how blk.reduce combines, for every backend -*- C++ -*-===//
#ifndef BLOCKJIT_COMPILER_REDUCTION_H
#define BLOCKJIT_COMPILER_REDUCTION_H

#include "dialect/BlkDialect.h"

#include "mlir/IR/Builders.h"

namespace blockjit {

/// The type a reduction of `element` accumulates in: f16/bf16 widen to f32.
mlir::Type reductionAccumulatorType(mlir::Type element);

/// The neutral starting value: 0 for sums, -inf / INT_MIN for max, +inf /
/// INT_MAX for min.
mlir::Value reductionIdentity(mlir::OpBuilder &builder, mlir::Location loc,
                              blk::ReduceKind kind, mlir::Type type);

/// `acc (op) x`. Floats use maximumf/minimumf, so NaN propagates. With
/// `reassociate`, float sums may be reordered (so that loops vectorize).
mlir::Value combineReduction(mlir::OpBuilder &builder, mlir::Location loc,
                             blk::ReduceKind kind, mlir::Value acc,
                             mlir::Value x, bool reassociate = false);

/// `combine(acc, x)` of a blk.scan: its region's ops cloned at the builder's
/// insertion point with its arguments bound to `acc` and `x`; returns the
/// value the region returns.
mlir::Value inlineScanCombine(mlir::OpBuilder &builder, blk::ScanOp scan,
                              mlir::Value acc, mlir::Value x);

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_REDUCTION_H
