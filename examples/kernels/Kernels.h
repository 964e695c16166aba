//===- Kernels.h - the example kernels shipped with blockjit ---*- C++ -*-===//
#ifndef BLOCKJIT_EXAMPLES_KERNELS_KERNELS_H
#define BLOCKJIT_EXAMPLES_KERNELS_KERNELS_H

#include "frontend/blockjit.h"

namespace blockjit::examples {

/// softmax(output_ptr, input_ptr, input_row_stride, output_row_stride,
///         n_rows, n_cols; BLOCK_SIZE)
const std::shared_ptr<KernelDef> &softmax();
/// vector_add(x_ptr, y_ptr, output_ptr, n_elements; BLOCK_SIZE)
const std::shared_ptr<KernelDef> &vectorAdd();

} // namespace blockjit::examples

#endif // BLOCKJIT_EXAMPLES_KERNELS_KERNELS_H
