//===- CasesTrialKernels.cpp - the kernels of issue 12's user trial ------===//
//
// The kernels a new user wrote with the public DSL when issue 12 was filed:
// log-softmax (a scalar log of the row sum), an online log-sum-exp (a
// scalar exp of the running maximum's change, carried through a loop),
// temperature softmax, layernorm and softmax backward (its column softmax,
// a reduction along axis 0 of a 2-D block, is in CasesTiles2D.cpp). Two of
// them once failed to compile for CUDA inside LLVM; here every one runs on both targets against
// a double-precision reference of the same algorithm, with the suite's edge
// rows (all -inf, +inf, NaN, +-1000, denormals) and N = 1, 17, 781, 4097.
//
//===----------------------------------------------------------------------===//
#include "tests/differential/CaseHelpers.h"

#include "frontend/blockjit.h"

#include <cmath>

namespace blockjit::difftest {

namespace {

constexpr int64_t kRows = 7;

/// Rows of `cols` values (stride cols + 3) with the edge rows: 0 all -inf,
/// 1 one +inf, 2 one NaN, 3 +-1000, 4 denormals, the others random.
std::vector<double> edgeRows(DType type, int64_t cols, int64_t stride,
                             unsigned seed) {
  std::vector<double> in = floats(type, kRows * stride, seed, false);
  for (int64_t k = 0; k < cols; ++k) {
    in[0 * stride + k] = -kInf;
    in[3 * stride + k] = k % 2 ? 1000 : -1000;
    in[4 * stride + k] = k % 2 ? 1e-40 : -1e-40;
  }
  in[1 * stride + cols / 2] = kInf;
  in[2 * stride + cols / 3] = kNaN;
  return in;
}

double nanMax(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? kNaN : std::max(a, b);
}

/// A row-wise case: buffer 0 the input rows, buffer 1 the output rows
/// (sentinel-filled), then `extra` buffers; one program per row.
Case rowCase(const std::string &name, std::shared_ptr<KernelDef> kernel,
             DType type, int64_t cols, Tolerance tolerance) {
  int64_t stride = cols + 3;
  Case c{name + "_" + suffix(type) + "_n" + std::to_string(cols),
         {"trial:" + name},
         std::move(kernel)};
  c.buffers = {{type, edgeRows(type, cols, stride, unsigned(cols * 3 + 1))},
               {type, sentinel(kRows * stride)}};
  c.grid = {int(kRows)};
  c.tolerance = tolerance;
  return c;
}

const std::shared_ptr<KernelDef> &logSoftmax() {
  static auto kernel =
      jit("trial_log_softmax",
          [](Ptr<> out, Ptr<> in, Int stride, Int n, Constexpr BLOCK) {
            Int row = program_id(0);
            Tensor cols = arange(0, BLOCK);
            Tensor mask = cols < n;
            Tensor x =
                load(in + row * stride + cols, mask, -INFINITY).to(DType::F32);
            Tensor shifted = x - max(x, 0);
            Tensor lse = log(sum(exp(shifted), 0)); // log of a scalar
            store(out + row * stride + cols, shifted - lse, mask);
          });
  return kernel;
}

/// log(sum(exp(x))) of each row, in chunks, with a running maximum m and
/// a running sum s of exp(x - m) carried through the loop.
const std::shared_ptr<KernelDef> &onlineLogSumExp() {
  static auto kernel = jit("trial_online_lse", [](Ptr<> out, Ptr<> in,
                                                  Int stride, Int n,
                                                  Constexpr CHUNK) {
    Int row = program_id(0);
    Tensor base = in + row * stride;
    std::vector<Tensor> ms = for_range(
        0, n, CHUNK, {full({}, -INFINITY, DType::F32), full({}, 0, DType::F32)},
        [&](Int start, std::vector<Tensor> carried) {
          Tensor cols = start + arange(0, CHUNK);
          Tensor x = load(base + cols, cols < n, -INFINITY).to(DType::F32);
          Tensor m = maximum(carried[0], max(x, 0));
          Tensor s = carried[1] * exp(carried[0] - m) + sum(exp(x - m), 0);
          return std::vector<Tensor>{m, s};
        });
    store(out + row, ms[0] + log(ms[1]));
  });
  return kernel;
}

const std::shared_ptr<KernelDef> &temperatureSoftmax() {
  static auto kernel = jit(
      "trial_temperature_softmax", [](Ptr<> out, Ptr<> in, Int stride, Int n,
                                      Float temperature, Constexpr BLOCK) {
        Int row = program_id(0);
        Tensor cols = arange(0, BLOCK);
        Tensor mask = cols < n;
        Tensor x =
            load(in + row * stride + cols, mask, -INFINITY).to(DType::F32) /
            temperature;
        Tensor e = exp(x - max(x, 0));
        store(out + row * stride + cols, e / sum(e, 0), mask);
      });
  return kernel;
}

const std::shared_ptr<KernelDef> &layerNorm() {
  static auto kernel =
      jit("trial_layernorm",
          [](Ptr<> out, Ptr<> in, Ptr<float> weight, Ptr<float> bias,
             Int stride, Int n, Float eps, Constexpr BLOCK) {
            Int row = program_id(0);
            Tensor cols = arange(0, BLOCK);
            Tensor mask = cols < n;
            Tensor x = load(in + row * stride + cols, mask, 0).to(DType::F32);
            Tensor mean = sum(x, 0) / n;
            Tensor centered = where(mask, x - mean, 0);
            Tensor variance = sum(centered * centered, 0) / n;
            Tensor y =
                centered * rsqrt(variance + eps) * load(weight + cols, mask) +
                load(bias + cols, mask);
            store(out + row * stride + cols, y, mask);
          });
  return kernel;
}

/// dx = y * (dy - sum(y * dy)) for softmax outputs y and their gradient dy.
const std::shared_ptr<KernelDef> &softmaxBackward() {
  static auto kernel =
      jit("trial_softmax_backward",
          [](Ptr<> dx, Ptr<> y, Ptr<> dy, Int stride, Int n, Constexpr BLOCK) {
            Int row = program_id(0);
            Tensor cols = arange(0, BLOCK);
            Tensor mask = cols < n;
            Tensor offsets = row * stride + cols;
            Tensor yv = load(y + offsets, mask, 0).to(DType::F32);
            Tensor g = load(dy + offsets, mask, 0).to(DType::F32);
            store(dx + offsets, yv * (g - sum(yv * g, 0)), mask);
          });
  return kernel;
}

/// Softmax of each row of `in` (stride `stride`, `cols` wide) into `out`,
/// as the kernels compute it: NaN anywhere in the row makes it all NaN.
void softmaxRows(const std::vector<double> &in, std::vector<double> &out,
                 int64_t rows, int64_t cols, int64_t stride, double scale = 1) {
  for (int64_t r = 0; r < rows; ++r) {
    double m = -kInf;
    for (int64_t k = 0; k < cols; ++k)
      m = nanMax(m, in[r * stride + k] * scale);
    double s = 0;
    for (int64_t k = 0; k < cols; ++k)
      s += std::exp(in[r * stride + k] * scale - m);
    for (int64_t k = 0; k < cols; ++k)
      out[r * stride + k] = std::exp(in[r * stride + k] * scale - m) / s;
  }
}

} // namespace

void addTrialKernelCases(std::vector<Case> &cases) {
  const Tolerance kLog = {2e-5, 2e-6, "log-softmax: abs 2e-5 + rel 2e-6"};
  const Tolerance kSoftmaxF32 = {1e-6, 2e-5,
                                 "softmax f32: abs 1e-6 + rel 2e-5"};
  const Tolerance kSoftmaxF16 = {2e-3, 0, "softmax f16: abs 2e-3"};
  for (int64_t cols : kSizes) {
    int64_t stride = cols + 3, block = next_power_of_2(cols);
    int warps = block >= 2048 ? 8 : 4;

    for (DType t : {DType::F32, DType::F16}) {
      Case c = rowCase("log_softmax", logSoftmax(), t, cols,
                       t == DType::F32 ? kLog
                                       : Tolerance{4e-3, 2e-3,
                                                   "log-softmax f16: abs "
                                                   "4e-3 + rel 2e-3"});
      c.args = {bufArg(1), bufArg(0), i32Arg(int32_t(stride)),
                i32Arg(int32_t(cols)), constArg(block)};
      c.numWarps = warps;
      c.reference = [cols, stride](Buffers &b) {
        for (int64_t r = 0; r < kRows; ++r) {
          const double *x = &b[0][r * stride];
          double m = -kInf;
          for (int64_t k = 0; k < cols; ++k)
            m = nanMax(m, x[k]);
          double s = 0;
          for (int64_t k = 0; k < cols; ++k)
            s += std::exp(x[k] - m);
          for (int64_t k = 0; k < cols; ++k)
            b[1][r * stride + k] = (x[k] - m) - std::log(s);
        }
      };
      cases.push_back(std::move(c));
    }

    for (int64_t chunk : {int64_t(256), int64_t(1024)}) {
      Case c = rowCase("online_lse_chunk" + std::to_string(chunk),
                       onlineLogSumExp(), DType::F32, cols,
                       {1e-5, 1e-6, "log-sum-exp: abs 1e-5 + rel 1e-6"});
      c.covers = {"trial:online_lse"};
      c.buffers[1] = {DType::F32, sentinel(kRows + 4)};
      c.args = {bufArg(1), bufArg(0), i32Arg(int32_t(stride)),
                i32Arg(int32_t(cols)), constArg(chunk)};
      c.reference = [cols, stride, chunk](Buffers &b) {
        for (int64_t r = 0; r < kRows; ++r) {
          const double *x = &b[0][r * stride];
          double m = -kInf, s = 0;
          for (int64_t start = 0; start < cols; start += chunk) {
            double cm = -kInf;
            for (int64_t k = start; k < start + chunk; ++k)
              cm = nanMax(cm, k < cols ? x[k] : -kInf);
            double next = nanMax(m, cm), cs = 0;
            for (int64_t k = start; k < start + chunk; ++k)
              cs += std::exp((k < cols ? x[k] : -kInf) - next);
            s = s * std::exp(m - next) + cs;
            m = next;
          }
          b[1][r] = m + std::log(s);
        }
      };
      cases.push_back(std::move(c));
    }

    for (DType t : {DType::F32, DType::F16}) {
      Case c = rowCase("temperature_softmax", temperatureSoftmax(), t, cols,
                       t == DType::F32 ? kSoftmaxF32 : kSoftmaxF16);
      const float temperature = 0.7f;
      c.args = {bufArg(1),
                bufArg(0),
                i32Arg(int32_t(stride)),
                i32Arg(int32_t(cols)),
                f32Arg(temperature),
                constArg(block)};
      c.numWarps = warps;
      c.reference = [cols, stride, temperature](Buffers &b) {
        softmaxRows(b[0], b[1], kRows, cols, stride, 1 / double(temperature));
      };
      cases.push_back(std::move(c));
    }

    {
      Case c = rowCase("layernorm", layerNorm(), DType::F32, cols,
                       {1e-4, 1e-4, "layernorm: abs 1e-4 + rel 1e-4"});
      // Row 4 becomes a constant row (variance 0: the output is the bias).
      for (int64_t k = 0; k < cols; ++k)
        c.buffers[0].init[4 * stride + k] = 3.5;
      c.buffers.push_back({DType::F32, floats(DType::F32, cols, 5, false)});
      c.buffers.push_back({DType::F32, floats(DType::F32, cols, 6, false)});
      const float eps = 1e-5f;
      c.args = {bufArg(1),
                bufArg(0),
                bufArg(2),
                bufArg(3),
                i32Arg(int32_t(stride)),
                i32Arg(int32_t(cols)),
                f32Arg(eps),
                constArg(block)};
      c.numWarps = warps;
      c.reference = [cols, stride, eps](Buffers &b) {
        for (int64_t r = 0; r < kRows; ++r) {
          const double *x = &b[0][r * stride];
          double mean = 0, variance = 0;
          for (int64_t k = 0; k < cols; ++k)
            mean += x[k];
          mean /= double(cols);
          for (int64_t k = 0; k < cols; ++k)
            variance += (x[k] - mean) * (x[k] - mean);
          variance /= double(cols);
          double rstd = 1 / std::sqrt(variance + double(eps));
          for (int64_t k = 0; k < cols; ++k)
            b[1][r * stride + k] = (x[k] - mean) * rstd * b[2][k] + b[3][k];
        }
      };
      cases.push_back(std::move(c));
    }

    {
      // y: a softmax of random rows; dy: the edge rows (NaN, inf, +-1000).
      Case c = rowCase("softmax_backward", softmaxBackward(), DType::F32, cols,
                       {1e-5, 1e-5, "abs 1e-5 + rel 1e-5"});
      std::vector<double> logits = floats(DType::F32, kRows * stride, 9, false);
      std::vector<double> y(kRows * stride, 0);
      softmaxRows(logits, y, kRows, cols, stride);
      c.buffers = {{DType::F32, sentinel(kRows * stride)},
                   {DType::F32, y},
                   c.buffers[0]};
      c.args = {bufArg(0),
                bufArg(1),
                bufArg(2),
                i32Arg(int32_t(stride)),
                i32Arg(int32_t(cols)),
                constArg(block)};
      c.numWarps = warps;
      c.reference = [cols, stride](Buffers &b) {
        for (int64_t r = 0; r < kRows; ++r) {
          double dot = 0;
          for (int64_t k = 0; k < cols; ++k)
            dot += b[1][r * stride + k] * b[2][r * stride + k];
          for (int64_t k = 0; k < cols; ++k)
            b[0][r * stride + k] =
                b[1][r * stride + k] * (b[2][r * stride + k] - dot);
        }
      };
      cases.push_back(std::move(c));
    }
  }
}

} // namespace blockjit::difftest
