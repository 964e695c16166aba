//===- AxisInfo.h - contiguity, divisibility and constancy of values -*- C++
//-*-===//
//
// What the GPU lowering needs to know to use vector memory accesses: how many
// consecutive elements of a 1-D block are consecutive integers (contiguity),
// the largest power of two dividing the first element of each such run
// (divisibility; in bytes for pointers), and how many consecutive elements
// are equal (constancy). Derived from `blk.divisibility` parameter
// attributes, constants, and the ops in between; conservative elsewhere.
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
};

class AxisAnalysis {
public:
  explicit AxisAnalysis(mlir::func::FuncOp func);
  AxisInfo get(mlir::Value value) const;

private:
  AxisInfo compute(mlir::Operation *op, mlir::Value result);
  llvm::DenseMap<mlir::Value, AxisInfo> infos;
};

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_GPU_AXISINFO_H
