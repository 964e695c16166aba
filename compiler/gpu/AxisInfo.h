//===- AxisInfo.h - contiguity, divisibility, constancy -*- C++ -*-===//
//
// What the GPU lowering needs to know to use vector memory accesses, along
// the last (innermost) dimension of a block; a scalar is a block of one:
//
// - contiguity C: the elements fall into aligned runs of C consecutive
//   integers (consecutive pointers: one pointee apart);
// - divisibility D: the largest power of two known to divide the first
//   element of every such run (bytes for pointers; with C = 1, every element);
// - constancy K: the elements fall into aligned runs of K equal values.
//
// C, D and K are powers of two; C and K divide the dimension's size.
// Derived from `blk.divisibility` parameter attributes, constants and the
// ops in between by a sparse data-flow analysis (AxisInfoAnalysis.h);
// conservative (1, 1, 1) elsewhere.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_COMPILER_GPU_AXISINFO_H
#define BLOCKJIT_COMPILER_GPU_AXISINFO_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

namespace blockjit {

struct AxisInfo {
  int64_t contiguity = 1;
  int64_t divisibility = 1;
  int64_t constancy = 1;

  /// The facts that hold for a value that is either `lhs` or `rhs`.
  static AxisInfo join(const AxisInfo &lhs, const AxisInfo &rhs);

  /// The power of two dividing the first element of every aligned run of
  /// `length` elements (a power of two dividing the dimension), for elements
  /// `unit` apart within a contiguous run (pointee bytes for pointers, else
  /// 1). Runs shorter than `contiguity` start inside this value's runs.
  int64_t divisibilityAt(int64_t length, int64_t unit = 1) const;

  bool operator==(const AxisInfo &other) const = default;
  void print(llvm::raw_ostream &os) const;
};

/// The facts of every value of a function, computed once; the function may
/// be rewritten afterwards (values created later get the conservative facts).
class AxisAnalysis {
public:
  explicit AxisAnalysis(mlir::func::FuncOp func);
  AxisInfo get(mlir::Value value) const;

private:
  llvm::DenseMap<mlir::Value, AxisInfo> infos;
};

/// Elements of `elementBytes` each that one vector access of the block
/// pointer `ptr` under `mask` (null: none) may move: a power of two, at most
/// 16 bytes, within one contiguous, aligned and uniformly masked run.
int64_t vectorRunOf(const AxisAnalysis &axis, mlir::Value ptr, mlir::Value mask,
                    unsigned elementBytes);

/// Whether the block pointer `ptr` to 2-byte elements is one contiguous run
/// over the whole block (a row of it) whose start is known only 2-byte
/// aligned: a row of odd length, whose start is a 4-byte word boundary on
/// every other row. One warp then moves it in aligned words, shifted by an
/// element at run time where the row starts mid-word (Memory.cpp).
bool elementAlignedRow(const AxisAnalysis &axis, mlir::Value ptr,
                       unsigned elementBytes);

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_GPU_AXISINFO_H
