//===- Reference.h - plain C++ references for the example kernels -*- C++
//-*-===//
#ifndef BLOCKJIT_EXAMPLES_KERNELS_REFERENCE_H
#define BLOCKJIT_EXAMPLES_KERNELS_REFERENCE_H

#include <cmath>
#include <cstdint>
#include <limits>

namespace blockjit::examples {

/// Row-wise softmax in double precision: out[r][c] for c < cols. Rows are
/// `inStride` / `outStride` elements apart. `toDouble` reads an element.
template <typename In, typename Out, typename ToDouble>
void referenceSoftmax(const In *in, Out *out, int64_t rows, int64_t cols,
                      int64_t inStride, int64_t outStride, ToDouble toDouble,
                      double *scratchRow = nullptr) {
  for (int64_t r = 0; r < rows; ++r) {
    const In *row = in + r * inStride;
    double maximum = -std::numeric_limits<double>::infinity();
    bool nan = false;
    for (int64_t c = 0; c < cols; ++c) {
      double x = toDouble(row[c]);
      nan |= std::isnan(x);
      maximum = std::max(maximum, x);
    }
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c)
      sum += std::exp(toDouble(row[c]) - maximum);
    for (int64_t c = 0; c < cols; ++c)
      out[r * outStride + c] = nan ? std::numeric_limits<double>::quiet_NaN()
                                   : std::exp(toDouble(row[c]) - maximum) / sum;
  }
}

} // namespace blockjit::examples

#endif // BLOCKJIT_EXAMPLES_KERNELS_REFERENCE_H
