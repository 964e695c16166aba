//===- MaskTerms.h - masks of loads and stores, as terms ---*- C++ -*-===//
//
// A masked load or store on the host is a loop nest whose innermost loop
// LLVM vectorizes. A per-element mask there becomes a masked vector load or
// store, several times slower than a plain one (AVX-512 on Zen 5: a masked
// load and store pass moves 23 GB/s where a plain one moves 76), so the
// loops stage takes the usual masks apart: `offsets < n` along the innermost
// dimension bounds the inner loop instead, a term constant along it (a row
// mask of a 2-D tile) decides once per line, and only what is left is
// tested per element. The GPU's blk-version-prefix-masks reads the same
// prefixes to branch, once for the whole block, around a loop-variant one.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_COMPILER_MASKTERMS_H
#define BLOCKJIT_COMPILER_MASKTERMS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "mlir/IR/ValueRange.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/SmallVector.h"

namespace blockjit {

/// The dimensions along which the elements of block `value` may differ (a
/// superset: values the analysis cannot see through vary along every
/// dimension longer than 1).
llvm::SmallBitVector variesAlong(mlir::Value value);

/// A term `i + start + offset < bound` (`<=` when inclusive) of a mask,
/// where i is the element's index along the innermost dimension and
/// `offset` (null for none) and `bound` are blocks constant along it.
/// Unsigned terms (`<` as ult) have no offset and start >= 0.
///
/// `bound` and `offset` may be smaller than the mask, which broadcasts them:
/// read them with readIndices().
struct PrefixTerm {
  /// The term itself (for testing it per element where the index wraps,
  /// or leaving it in a mask).
  mlir::Value term;
  mlir::Value bound;
  mlir::Value offset;
  int64_t start = 0;
  /// The bits of the integers `offset` is added in (0 without an offset):
  /// the index wraps there, also when the compare is wider.
  unsigned offsetWidth = 0;
  bool inclusive = false;
  bool isUnsigned = false;
  /// The mask's axes that `offset` lacks (expand_dims above it), in the
  /// order they are removed from the mask's indices.
  llvm::SmallVector<int64_t, 2> offsetDroppedAxes;
};

/// The indices at which to read `value`, a block that `mask` (of which
/// `indices` index an element) broadcasts: the axes in `droppedAxes`
/// removed in order, then every dimension of size 1 read at 0.
llvm::SmallVector<mlir::Value> readIndices(mlir::Value value,
                                           mlir::ValueRange indices,
                                           llvm::ArrayRef<int64_t> droppedAxes,
                                           mlir::Value zeroIndex);

/// A block of i1 as the conjunction of its terms, sorted by how the loops
/// can test them.
struct MaskTerms {
  /// Prefixes of the innermost dimension: they bound the inner loop.
  llvm::SmallVector<PrefixTerm> prefixes;
  /// Terms constant along the innermost dimension: tested once per line.
  llvm::SmallVector<mlir::Value> perLine;
  /// The rest: tested per element.
  llvm::SmallVector<mlir::Value> perElement;
};

/// `mask` (a block of i1) split into its terms.
MaskTerms splitMask(mlir::Value mask);

/// Whether the index i + start + offset of `prefix`, for i in [0, size),
/// wraps around its integer type (ints wrap, docs/LANGUAGE.md): then the
/// term is no prefix (it holds again past the wrap). `offset` is the
/// offset's scalar at this line, sign-extended to i64; an i1 computed at
/// the builder (false without an offset).
mlir::Value prefixIndexWraps(mlir::OpBuilder &builder, mlir::Location loc,
                             const PrefixTerm &prefix, mlir::Value offset,
                             int64_t size);

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_MASKTERMS_H
