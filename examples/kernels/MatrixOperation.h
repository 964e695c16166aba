//===- MatrixOperation.h - operations over one row-major matrix -*- C++ -*-===//
//
// softmax_rows and softmax_dim0 (SoftmaxRows.cpp, SoftmaxDim0.cpp) are
// Operations (runtime/Operation.h) with one signature: (output_ptr,
// input_ptr, input_row_stride, output_row_stride, n_rows, n_cols). What
// follows from it is said here once: the argument positions, the key, and
// the output restored after timing where it overlaps the input.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_EXAMPLES_KERNELS_MATRIXOPERATION_H
#define BLOCKJIT_EXAMPLES_KERNELS_MATRIXOPERATION_H

#include "examples/kernels/RowTuning.h"

#include "runtime/Operation.h"

#include <string>
#include <vector>

namespace blockjit::examples {

/// The argument positions.
enum MatrixArg { kOut, kIn, kInStride, kOutStride, kRows, kCols };

/// An integer argument's value (0 for another kind: the launches then
/// report the argument).
inline int64_t integerOf(const Arg &arg) {
  return integerValue(arg).value_or(0);
}

/// The spec of an operation `name` over a matrix by `algorithms`: keyed by
/// n_rows and n_cols rounded up to powers of two, the output restored after
/// timing where it overlaps the input (in place, every timed run would read
/// what the last one wrote), 10 timed runs each. The caller adds `untimed`.
inline OperationSpec matrixOperationSpec(std::string name,
                                         std::vector<Algorithm> algorithms) {
  OperationSpec spec;
  spec.name = std::move(name);
  spec.params = {"output_ptr",        "input_ptr", "input_row_stride",
                 "output_row_stride", "n_rows",    "n_cols"};
  spec.algorithms = std::move(algorithms);
  spec.key = {{"n_rows", KeyBucket::PowerOfTwo},
              {"n_cols", KeyBucket::PowerOfTwo}};
  spec.restore = {outputOverInput("output_ptr", kOut, kOutStride, kIn,
                                  kInStride,
                                  {kIn, kRows, kCols, /*block=*/-1})};
  spec.repetitions = 10;
  return spec;
}

} // namespace blockjit::examples

#endif // BLOCKJIT_EXAMPLES_KERNELS_MATRIXOPERATION_H
