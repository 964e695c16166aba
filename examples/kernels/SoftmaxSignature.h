//===- SoftmaxSignature.h - what softmax and softmax_online share -*- C++ -*-===//
//
// softmax and softmax_online take the same arguments (output_ptr, input_ptr,
// input_row_stride, output_row_stride, n_rows, n_cols; BLOCK_SIZE) and are
// registered with the same example specialization.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_EXAMPLES_KERNELS_SOFTMAXSIGNATURE_H
#define BLOCKJIT_EXAMPLES_KERNELS_SOFTMAXSIGNATURE_H

#include "runtime/Registry.h"

#include <string>
#include <vector>

namespace blockjit::examples {

/// The parameter names, for messages.
inline std::vector<std::string> softmaxParamNames() {
  return {"output_ptr", "input_ptr", "input_row_stride", "output_row_stride",
          "n_rows",     "n_cols",    "BLOCK_SIZE"};
}

/// The specialization an example run compiles: `c`'s dtype in and out, i32
/// strides and sizes, and aligned buffers, strides and row length (the case
/// the fast path, 16-byte vector accesses, targets).
inline SpecializationKey softmaxExampleKey(const ExampleConfig &c) {
  SpecializationKey key;
  key.argTypes = {c.dtype,    c.dtype,    DType::I32,
                  DType::I32, DType::I32, DType::I32};
  key.constexprs = {c.blockSize};
  key.divisibility = {16, 16, 16, 16, 1, 16}; // all but n_rows
  key.options = c.options;
  return key;
}

} // namespace blockjit::examples

#endif // BLOCKJIT_EXAMPLES_KERNELS_SOFTMAXSIGNATURE_H
