//===- SoftmaxOnlineGPUTest.cpp - softmax_online on a CUDA device ---------===//
//
// The softmax_online example kernel (examples/kernels/SoftmaxOnline.cpp) on
// rows of N = 32769, 100003 and 1M (2^20 and 2^20 + 1) elements, f32 and
// bf16, against the double-precision reference (examples/kernels/
// Reference.h). Every run has rows of special values (all -inf, a +inf, a
// NaN, +-1000, a maximum growing chunk after chunk, -inf for the first half,
// the maximum in the last, masked, chunk, denormals), a persistent grid with
// fewer programs than rows, and either padded strides that differ between
// input and output (no vector accesses; padding must survive) or aligned
// rows in place (output aliasing input).
//
// Tolerance, per element: f32 abs 1e-6 and relative 1e-5 + 1e-7 * sqrt(N)
// (the example program's bound: the f32 sums' rounding grows like
// sqrt(N)); bf16 abs 1e-2 and relative 1e-2 (the output's rounding);
// results below 1e-30 only within 1e-30 (the GPU's exp flushes denormals).
// NaN is expected exactly where the reference is NaN. Skips without a
// device.
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/Kernels.h"
#include "examples/kernels/Reference.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/Executor.h"
#include "runtime/Launch.h"

#include "llvm/Support/Error.h"
#include "tests/common/RequireGPU.h"
#include "tests/common/SoftmaxChecks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace blockjit;
using namespace blockjit::test;

namespace {

#define ASSERT_NO_ERROR(expr)                                                  \
  do {                                                                         \
    if (llvm::Error assertError = (expr))                                      \
      FAIL() << #expr << ": " << llvm::toString(std::move(assertError));       \
  } while (0)

template <typename T> T fromDouble(double x) { return T(float(x)); }

struct OnlineRun {
  int64_t rows, cols, inStride, outStride;
  bool inPlace;
  int grid; // 0: the occupancy grid (warmup + persistentGrid)
  int64_t chunk = examples::kSoftmaxOnlineBlock;
  int numWarps = examples::kSoftmaxOnlineNumWarps;
};

/// Rows of N(0, 3) values with the special rows described above; the
/// padding between rows holds NaN, which must not be read.
template <typename T>
std::vector<T> makeInput(const OnlineRun &s, unsigned seed) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<T> input((s.rows - 1) * s.inStride + s.cols,
                       fromDouble<T>(std::numeric_limits<double>::quiet_NaN()));
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal(0.0, 3.0);
  for (int64_t r = 0; r < s.rows; ++r)
    for (int64_t c = 0; c < s.cols; ++c) {
      double x = normal(rng);
      switch (r) {
      case 0:
        x = -inf;
        break;
      case 1:
        x = c == 2 ? inf : x;
        break;
      case 2:
        x = c == s.cols / 2 ? std::numeric_limits<double>::quiet_NaN() : x;
        break;
      case 3:
        x = c % 2 ? 1000 : -1000;
        break;
      case 4: // grows chunk after chunk, to about 4 * cols / 1024
        x = double(c % 1024) * 0.01 + double(c / 1024) * 4;
        break;
      case 5:
        x = c < s.cols / 2 ? -inf : x;
        break;
      case 6:
        x = c == s.cols - 1 ? 50 : x;
        break;
      case 7:
        x = c % 3 ? x : (c % 2 ? 1e-40 : -1e-40);
        break;
      default:
        break;
      }
      input[r * s.inStride + c] = fromDouble<T>(x);
    }
  return input;
}

template <typename T> void runOnline(const OnlineRun &s, unsigned seed = 1) {
  SCOPED_TRACE(testing::Message()
               << "rows=" << s.rows << " cols=" << s.cols
               << " inStride=" << s.inStride << " outStride=" << s.outStride
               << " chunk=" << s.chunk << " num_warps=" << s.numWarps
               << (s.inPlace ? " in place" : ""));
  ASSERT_TRUE(!s.inPlace || s.inStride == s.outStride);
  std::vector<T> input = makeInput<T>(s, seed);
  const T sentinel = fromDouble<T>(-7.25);
  const int64_t tail = 32;
  std::vector<T> output((s.rows - 1) * s.outStride + s.cols + tail, sentinel);

  auto in = DeviceBuffer::copyOf(TargetKind::CUDA, llvm::ArrayRef(input));
  ASSERT_NO_ERROR(in.takeError());
  auto out = DeviceBuffer::copyOf(TargetKind::CUDA, llvm::ArrayRef(output));
  ASSERT_NO_ERROR(out.takeError());
  const DeviceBuffer &written = s.inPlace ? *in : *out;
  std::vector<Arg> args = {written.arg<T>(),    in->template arg<T>(),
                           int32_t(s.inStride), int32_t(s.outStride),
                           int32_t(s.rows),     int32_t(s.cols),
                           Constexpr(s.chunk)};
  LaunchOptions options;
  options.target = TargetKind::CUDA;
  options.numWarps = s.numWarps;
  options.grid = {s.grid};
  const KernelDef &kernel = *examples::softmaxOnline();
  if (s.grid == 0) {
    auto info = warmup(kernel, options, args);
    ASSERT_NO_ERROR(info.takeError());
    options.grid = {persistentGrid(*info, s.rows)};
  }
  ASSERT_NO_ERROR(launch(kernel, options, args));
  ASSERT_NO_ERROR(cudaExecutor().synchronize(0));

  std::vector<T> result(s.inPlace ? input.size() : output.size());
  ASSERT_NO_ERROR(written.download(result));
  std::vector<double> expected((s.rows - 1) * s.outStride + s.cols);
  examples::referenceSoftmax(input.data(), expected.data(), s.rows, s.cols,
                             s.inStride, s.outStride,
                             [](T x) { return toDouble(x); });
  const bool f32 = std::is_same_v<T, float>;
  const double absTol = f32 ? 1e-6 : 1e-2;
  const double relTol = f32 ? 1e-5 + 1e-7 * std::sqrt(double(s.cols)) : 1e-2;
  int64_t bad = 0;
  std::string report;
  for (int64_t r = 0; r < s.rows; ++r)
    for (int64_t c = 0; c < s.cols; ++c) {
      double want = expected[r * s.outStride + c];
      double got = toDouble(result[r * s.outStride + c]);
      double error = std::abs(got - want);
      bool ok = std::isnan(want)
                    ? std::isnan(got)
                    : error <= absTol &&
                          error <= std::max(relTol * std::abs(want), 1e-30);
      if (!ok && ++bad <= 5) {
        char line[160];
        std::snprintf(line, sizeof line,
                      "  [%lld][%lld]: got %.9g, want %.9g\n", (long long)r,
                      (long long)c, got, want);
        report += line;
      }
    }
  EXPECT_EQ(bad, 0) << "wrong elements (grid " << options.grid.x << "):\n"
                    << report;
  if (s.inPlace)
    return;
  int64_t clobbered = 0;
  for (int64_t r = 0; r < s.rows; ++r) {
    int64_t end =
        r + 1 < s.rows ? (r + 1) * s.outStride : int64_t(result.size());
    for (int64_t i = r * s.outStride + s.cols; i < end; ++i)
      clobbered += !sameBits(result[i], sentinel);
  }
  EXPECT_EQ(clobbered, 0) << "output padding / tail elements were written";
  std::vector<T> inputAfter(input.size());
  ASSERT_NO_ERROR(in->download(inputAfter));
  int64_t changed = 0;
  for (size_t i = 0; i < input.size(); ++i)
    changed += !sameBits(input[i], inputAfter[i]);
  EXPECT_EQ(changed, 0) << "the kernel wrote to its input";
}

class GPUSoftmaxOnlineTest : public ::testing::TestWithParam<int64_t> {};

// Padded, different strides (scalar accesses), the occupancy grid.
TEST_P(GPUSoftmaxOnlineTest, F32PaddedStrides) {
  REQUIRE_GPU();
  int64_t n = GetParam();
  runOnline<float>({11, n, n + 5, n + 13, false, 0});
}

TEST_P(GPUSoftmaxOnlineTest, BF16PaddedStrides) {
  REQUIRE_GPU();
  int64_t n = GetParam();
  runOnline<bfloat16>({11, n, n + 5, n + 13, false, 0}, 2);
}

// Rows 16-byte aligned where n allows it (vector accesses), in place, fewer
// programs than rows (the persistent loop).
TEST_P(GPUSoftmaxOnlineTest, F32InPlaceSmallGrid) {
  REQUIRE_GPU();
  int64_t n = GetParam(), stride = (n + 15) / 16 * 16;
  runOnline<float>({11, n, stride, stride, true, 3}, 3);
}

TEST_P(GPUSoftmaxOnlineTest, BF16InPlaceSmallGrid) {
  REQUIRE_GPU();
  int64_t n = GetParam(), stride = (n + 15) / 16 * 16;
  runOnline<bfloat16>({11, n, stride, stride, true, 3}, 4);
}

// A smaller chunk over fewer warps: more steps of the online update.
TEST_P(GPUSoftmaxOnlineTest, F32Chunk1024Warps4) {
  REQUIRE_GPU();
  int64_t n = GetParam();
  runOnline<float>({9, n, n, n, false, 4, 1024, 4}, 5);
}

INSTANTIATE_TEST_SUITE_P(Lengths, GPUSoftmaxOnlineTest,
                         ::testing::Values(int64_t(32769), int64_t(100003),
                                           int64_t(1) << 20,
                                           (int64_t(1) << 20) + 1),
                         [](const testing::TestParamInfo<int64_t> &info) {
                           return "N" + std::to_string(info.param);
                         });

// A chunk smaller than the program's threads (16 elements, 128 threads:
// every element held by several threads) on a masked tail. Not in place:
// every replica stores, so a lagging replica could load an element that
// another already overwrote (see SoftmaxOnline.cpp).
TEST(GPUSoftmaxOnline, ChunkSmallerThanThreads) {
  REQUIRE_GPU();
  runOnline<float>({9, 781, 781, 781, false, 4, 16, 4}, 6);
  runOnline<bfloat16>({9, 781, 790, 785, false, 4, 16, 4}, 7);
}

} // namespace
