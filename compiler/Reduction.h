//===- Reduction.h - how blk.reduce combines, for every backend -*- C++ -*-===//
#ifndef BLOCKJIT_COMPILER_REDUCTION_H
#define BLOCKJIT_COMPILER_REDUCTION_H

#include "dialect/BlkDialect.h"

#include "mlir/IR/Builders.h"

#include <utility>

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

/// `values` (at least one) combined into one: value k goes to partial
/// k mod `partials`, in order, and the partials then combine pairwise,
/// neighbours first. The longest chain of dependent combines is
/// values / partials - 1 + log2(partials) instead of values - 1 (a GPU
/// thread's 128 registers of a row were 127 dependent max instructions, and
/// as many adds); every caller with the same values gets the same bits.
/// `reassociate` as for combineReduction.
mlir::Value combineInterleaved(mlir::OpBuilder &builder, mlir::Location loc,
                               blk::ReduceKind kind,
                               llvm::ArrayRef<mlir::Value> values,
                               int64_t partials, bool reassociate = false);

//===----------------------------------------------------------------------===//
// blk.arg_reduce: (value, index) pairs
//===----------------------------------------------------------------------===//

/// The type an index reduction compares `element` in: f16/bf16 widen to f32
/// and integers narrower than 32 bits to i32 (exactly, so that shuffles
/// move 32 or 64 bits and comparisons are unchanged).
mlir::Type argReductionValueType(mlir::Type element);

/// `x` converted to argReductionValueType.
mlir::Value argReductionValue(mlir::OpBuilder &builder, mlir::Location loc,
                              mlir::Value x);

/// The pair every element beats: -inf / INT_MIN for max, +inf / INT_MAX for
/// min, with index INT32_MAX (so an element equal to it still wins).
std::pair<mlir::Value, mlir::Value>
argReductionIdentity(mlir::OpBuilder &builder, mlir::Location loc,
                     blk::ReduceKind kind, mlir::Type valueType);

/// The better of the pairs (accValue, accIndex) and (x, xIndex): the larger
/// (max) or smaller (min) value, a NaN before any number, and on ties (-0.0
/// == 0.0, or both NaN) the smaller index. Associative and commutative, so
/// any combining order gives the first index of the extreme.
std::pair<mlir::Value, mlir::Value>
combineArgReduction(mlir::OpBuilder &builder, mlir::Location loc,
                    blk::ReduceKind kind, mlir::Value accValue,
                    mlir::Value accIndex, mlir::Value x, mlir::Value xIndex);

/// `combine(acc, x)` of a blk.scan: its region's ops cloned at the builder's
/// insertion point with its arguments bound to `acc` and `x`; returns the
/// value the region returns.
mlir::Value inlineScanCombine(mlir::OpBuilder &builder, blk::ScanOp scan,
                              mlir::Value acc, mlir::Value x);

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_REDUCTION_H
