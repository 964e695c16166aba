//===- cpu_softmax_reference.cpp - the hand-written C++ softmax ----------===//
//
// The loop a C++ programmer would write (max, exp and sum, scale), built
// with -O3 -march=native: the baseline of build/bin/cpu_softmax and, as
// libcpu_softmax_reference.so, of bench/cpu_softmax_torch.py.
//
//===----------------------------------------------------------------------===//
#include "bench/cpu_softmax_reference.h"

#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

namespace {

void softmaxRows(const float *in, float *out, int64_t rowBegin, int64_t rowEnd,
                 int64_t cols) {
  for (int64_t r = rowBegin; r < rowEnd; ++r) {
    const float *x = in + r * cols;
    float *y = out + r * cols;
    float maximum = -INFINITY;
    for (int64_t c = 0; c < cols; ++c)
      maximum = std::max(maximum, x[c]);
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) {
      y[c] = std::exp(x[c] - maximum);
      sum += y[c];
    }
    float scale = 1.0f / sum;
    for (int64_t c = 0; c < cols; ++c)
      y[c] *= scale;
  }
}

} // namespace

extern "C" void reference_softmax(const float *in, float *out, int64_t rows,
                                  int64_t cols, int32_t threads) {
  if (threads <= 1)
    return softmaxRows(in, out, 0, rows, cols);
  std::vector<std::thread> workers;
  int64_t chunk = (rows + threads - 1) / threads;
  for (int32_t t = 0; t < threads; ++t)
    workers.emplace_back([=] {
      softmaxRows(in, out, std::min(rows, t * chunk),
                  std::min(rows, (t + 1) * chunk), cols);
    });
  for (std::thread &w : workers)
    w.join();
}
