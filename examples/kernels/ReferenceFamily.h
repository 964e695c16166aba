//===- ReferenceFamily.h - double references of the softmax family -*- C++
//-*-===//
//
// Plain C++ in double precision, one function per kernel of the family
// (Kernels.h), with the special values the kernels give: a NaN or +inf in
// a softmax row, or a row of only -inf, makes the row NaN (as torch does);
// log_softmax of a -inf element is -inf. Rows are `...Stride` elements
// apart; `toDouble` reads an element of any input type.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_EXAMPLES_KERNELS_REFERENCEFAMILY_H
#define BLOCKJIT_EXAMPLES_KERNELS_REFERENCEFAMILY_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace blockjit::examples {

namespace reference {

/// The maximum of `x`, NaN when any element is NaN (std::max drops NaN).
inline double maxOf(const std::vector<double> &x) {
  double maximum = -std::numeric_limits<double>::infinity();
  for (double v : x) {
    if (std::isnan(v))
      return v;
    maximum = std::max(maximum, v);
  }
  return maximum;
}

/// softmax of `x` in place. exp(inf - inf) and exp(-inf - -inf) are NaN,
/// which reaches the sum: the special rows come out NaN as in the kernels.
inline void softmax(std::vector<double> &x) {
  double maximum = maxOf(x), sum = 0;
  for (double &v : x)
    sum += v = std::exp(v - maximum);
  for (double &v : x)
    v /= sum;
}

/// log_softmax of `x` in place: x - max - log(sum(exp(x - max))).
inline void logSoftmax(std::vector<double> &x) {
  double maximum = maxOf(x), sum = 0;
  for (double v : x)
    sum += std::exp(v - maximum);
  double logSum = std::log(sum);
  for (double &v : x)
    v = v - maximum - logSum;
}

/// Reads row `r` of `in` as doubles, lets `rowFn(r, values)` transform it
/// and writes it to row `r` of `out`.
template <typename In, typename Out, typename ToDouble, typename RowFn>
void forEachRow(const In *in, Out *out, int64_t rows, int64_t cols,
                int64_t inStride, int64_t outStride, ToDouble toDouble,
                RowFn rowFn) {
  std::vector<double> values(cols);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c)
      values[c] = toDouble(in[r * inStride + c]);
    rowFn(r, values);
    for (int64_t c = 0; c < cols; ++c)
      out[r * outStride + c] = values[c];
  }
}

} // namespace reference

/// log_softmax's rows.
template <typename In, typename Out, typename ToDouble>
void referenceLogSoftmax(const In *in, Out *out, int64_t rows, int64_t cols,
                         int64_t inStride, int64_t outStride,
                         ToDouble toDouble) {
  reference::forEachRow(
      in, out, rows, cols, inStride, outStride, toDouble,
      [](int64_t, std::vector<double> &x) { reference::logSoftmax(x); });
}

/// softmax(x / temperature) of each row.
template <typename In, typename Out, typename ToDouble>
void referenceSoftmaxTemperature(const In *in, Out *out, int64_t rows,
                                 int64_t cols, int64_t inStride,
                                 int64_t outStride, double temperature,
                                 ToDouble toDouble) {
  reference::forEachRow(in, out, rows, cols, inStride, outStride, toDouble,
                        [&](int64_t, std::vector<double> &x) {
                          for (double &v : x)
                            v /= temperature;
                          reference::softmax(x);
                        });
}

/// softmax(x) * scale of each row.
template <typename In, typename Out, typename ToDouble>
void referenceSoftmaxScale(const In *in, Out *out, int64_t rows, int64_t cols,
                           int64_t inStride, int64_t outStride, double scale,
                           ToDouble toDouble) {
  reference::forEachRow(in, out, rows, cols, inStride, outStride, toDouble,
                        [&](int64_t, std::vector<double> &x) {
                          reference::softmax(x);
                          for (double &v : x)
                            v *= scale;
                        });
}

/// softmax(x + mask[r]) of each row r; maskStride 0 shares mask row 0.
template <typename In, typename Mask, typename Out, typename ToDouble>
void referenceSoftmaxMasked(const In *in, const Mask *mask, Out *out,
                            int64_t rows, int64_t cols, int64_t inStride,
                            int64_t maskStride, int64_t outStride,
                            ToDouble toDouble) {
  reference::forEachRow(in, out, rows, cols, inStride, outStride, toDouble,
                        [&](int64_t r, std::vector<double> &x) {
                          for (int64_t c = 0; c < cols; ++c)
                            x[c] += toDouble(mask[r * maskStride + c]);
                          reference::softmax(x);
                        });
}

/// softmax of each row r with its columns c > r as -inf (whatever they
/// hold, NaN included).
template <typename In, typename Out, typename ToDouble>
void referenceSoftmaxCausal(const In *in, Out *out, int64_t rows, int64_t cols,
                            int64_t inStride, int64_t outStride,
                            ToDouble toDouble) {
  reference::forEachRow(in, out, rows, cols, inStride, outStride, toDouble,
                        [](int64_t r, std::vector<double> &x) {
                          for (size_t c = size_t(r) + 1; c < x.size(); ++c)
                            x[c] = -std::numeric_limits<double>::infinity();
                          reference::softmax(x);
                        });
}

/// softmax over dim 0: of each column of a row-major rows x cols matrix.
template <typename In, typename Out, typename ToDouble>
void referenceSoftmaxColumns(const In *in, Out *out, int64_t rows, int64_t cols,
                             int64_t inStride, int64_t outStride,
                             ToDouble toDouble) {
  std::vector<double> column(rows);
  for (int64_t c = 0; c < cols; ++c) {
    for (int64_t r = 0; r < rows; ++r)
      column[r] = toDouble(in[r * inStride + c]);
    reference::softmax(column);
    for (int64_t r = 0; r < rows; ++r)
      out[r * outStride + c] = column[r];
  }
}

/// softmax_columns_stats: for each block of `rowsPerSplit` rows and each
/// column, the maximum (NaN if any element is) and the sum of exp(x - max)
/// (0 for a block of only -inf; NaN with a NaN or +inf), into `stats` as
/// [2, n_splits, cols]: maxima, then sums.
template <typename In, typename ToDouble>
void referenceSoftmaxColumnsStats(const In *in, double *stats, int64_t rows,
                                  int64_t cols, int64_t inStride,
                                  int64_t rowsPerSplit, ToDouble toDouble) {
  int64_t splits = (rows + rowsPerSplit - 1) / rowsPerSplit;
  for (int64_t s = 0; s < splits; ++s) {
    int64_t begin = s * rowsPerSplit,
            end = std::min(rows, begin + rowsPerSplit);
    std::vector<double> column(end - begin);
    for (int64_t c = 0; c < cols; ++c) {
      for (int64_t r = begin; r < end; ++r)
        column[r - begin] = toDouble(in[r * inStride + c]);
      double maximum = reference::maxOf(column), sum = 0;
      double shift =
          maximum == -std::numeric_limits<double>::infinity() ? 0.0 : maximum;
      for (double v : column)
        sum += std::exp(v - shift);
      stats[s * cols + c] = maximum;
      stats[(splits + s) * cols + c] = sum;
    }
  }
}

/// softmax's backward of each row: dx = y * (dy - sum(y * dy)).
template <typename In, typename Out, typename ToDouble>
void referenceSoftmaxBackward(const In *y, const In *dy, Out *dx, int64_t rows,
                              int64_t cols, int64_t yStride, int64_t dyStride,
                              int64_t dxStride, ToDouble toDouble) {
  for (int64_t r = 0; r < rows; ++r) {
    double dot = 0;
    for (int64_t c = 0; c < cols; ++c)
      dot += toDouble(y[r * yStride + c]) * toDouble(dy[r * dyStride + c]);
    for (int64_t c = 0; c < cols; ++c)
      dx[r * dxStride + c] =
          toDouble(y[r * yStride + c]) * (toDouble(dy[r * dyStride + c]) - dot);
  }
}

/// Layer normalization of each row: (x - mean) / sqrt(var + eps) * weight +
/// bias, var the biased variance (torch.nn.functional.layer_norm).
template <typename In, typename Out, typename ToDouble>
void referenceLayerNorm(const In *in, const In *weight, const In *bias,
                        Out *out, int64_t rows, int64_t cols, int64_t inStride,
                        int64_t outStride, double eps, ToDouble toDouble) {
  reference::forEachRow(in, out, rows, cols, inStride, outStride, toDouble,
                        [&](int64_t, std::vector<double> &x) {
                          double mean = 0, variance = 0;
                          for (double v : x)
                            mean += v;
                          mean /= double(cols);
                          for (double v : x)
                            variance += (v - mean) * (v - mean);
                          variance /= double(cols);
                          double rstd = 1 / std::sqrt(variance + eps);
                          for (int64_t c = 0; c < cols; ++c)
                            x[c] = (x[c] - mean) * rstd * toDouble(weight[c]) +
                                   toDouble(bias[c]);
                        });
}

} // namespace blockjit::examples

#endif // BLOCKJIT_EXAMPLES_KERNELS_REFERENCEFAMILY_H
