//===- GPUKernelTest.cpp - kernels JIT-compiled and run on a CUDA device --===//
//
// End-to-end on the GPU: every test launches DSL kernels with target = CUDA
// on device buffers and compares the results with plain C++ references
// (double precision for softmax), mirroring tests/unit/CPUKernelTest.cpp.
// Tolerances: fp32 max abs error <= 1e-6, fp16 <= 2e-3, bf16 <= 1e-2 (on the
// output converted to float); integer results and exactly representable sums
// must match exactly. Every test skips when there is no CUDA device.
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/Kernels.h"
#include "examples/kernels/Reference.h"
#include "runtime/CudaDriver.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/Executor.h"
#include "runtime/KernelCache.h"
#include "runtime/Launch.h"
#include "runtime/PreparedLaunch.h"
#include "tests/common/ScopedCacheDirectory.h"
#include "tests/common/SoftmaxChecks.h"
#include "tests/common/TileKernel.h"

#include "tests/common/RequireGPU.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <latch>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

using namespace blockjit;
using namespace blockjit::test;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// "" on success, else the error's message.
std::string errorText(llvm::Error error) {
  if (error)
    return "error: " + llvm::toString(std::move(error));
  return "";
}

/// Waits for all work on the device (surfacing asynchronous kernel faults).
std::string synchronize() { return errorText(cudaExecutor().synchronize(0)); }

/// `count` elements of T in device memory (runtime/DeviceBuffer.h), with
/// errors as text for the assertions.
template <typename T> class DeviceBuffer {
public:
  explicit DeviceBuffer(size_t count) : count_(count) {
    auto buffer =
        blockjit::DeviceBuffer::allocate(TargetKind::CUDA, count * sizeof(T));
    if (buffer)
      buffer_.emplace(std::move(*buffer));
    else
      error_ = errorText(buffer.takeError());
  }
  explicit DeviceBuffer(const std::vector<T> &host)
      : DeviceBuffer(host.size()) {
    if (error_.empty())
      error_ = upload(host);
  }

  /// "" when the allocation (and initial upload) worked.
  const std::string &error() const { return error_; }
  size_t size() const { return count_; }
  /// The device pointer as a T * (for Arg, which then knows the dtype).
  T *get() const { return buffer_ ? buffer_->data<T>() : nullptr; }
  Arg arg() const { return Arg::typedPointer(get(), dtype_v<T>); }

  std::string upload(const std::vector<T> &host) {
    if (host.size() != count_)
      return "upload: size mismatch";
    if (!buffer_)
      return "upload: " + error_;
    return errorText(buffer_->upload(host));
  }
  /// Copies the buffer back (after the caller synchronized).
  std::string download(std::vector<T> &host) const {
    host.resize(count_);
    if (!buffer_)
      return "download: " + error_;
    return errorText(buffer_->download(host));
  }

  /// `count` elements between the host and element `at` of the buffer.
  std::string uploadAt(const T *host, size_t count, size_t at) {
    if (!buffer_)
      return "upload: " + error_;
    return errorText(buffer_->upload(llvm::ArrayRef<T>(host, count), at));
  }
  std::string downloadAt(T *host, size_t count, size_t at) const {
    if (!buffer_)
      return "download: " + error_;
    return errorText(
        buffer_->download(llvm::MutableArrayRef<T>(host, count), at));
  }

private:
  size_t count_;
  std::optional<blockjit::DeviceBuffer> buffer_;
  std::string error_;
};

LaunchOptions gpuOptions(Grid grid, int numWarps = 4) {
  LaunchOptions options;
  options.grid = grid;
  options.numWarps = numWarps;
  options.target = TargetKind::CUDA;
  return options;
}

std::string launchError(const KernelDef &kernel, const LaunchOptions &options,
                        llvm::ArrayRef<Arg> args) {
  return errorText(launch(kernel, options, args));
}

#define ASSERT_LAUNCH_OK(kernel, options, ...)                                 \
  do {                                                                         \
    std::string launchMessage = launchError(kernel, options, __VA_ARGS__);     \
    ASSERT_EQ(launchMessage, "") << "launch failed";                           \
  } while (0)

#define ASSERT_SYNC_OK() ASSERT_EQ(synchronize(), "") << "cuCtxSynchronize"

int smCount() {
  auto props = cuda::deviceProperties(0);
  if (!props) {
    llvm::consumeError(props.takeError());
    return 0;
  }
  return props->smCount;
}

//===----------------------------------------------------------------------===//
// Softmax (examples::softmax) against the double-precision reference
//===----------------------------------------------------------------------===//

// Runtime argument indices of softmax (for SpecializationKey::divisibility).
enum SoftmaxArg : unsigned {
  kOut = 0,
  kIn = 1,
  kInStride = 2,
  kOutStride = 3,
  kRows = 4,
  kCols = 5
};

struct SoftmaxShape {
  int64_t rows, cols, inStride, outStride;
  int grid;          // 0: the occupancy grid from warmup() + persistentGrid
  int numWarps = 0;  // 0: the best-ranked one-CTA config's
  int numCTAs = 1;   // 0: the best-ranked config (with its warps and stages)
  int numStages = 1; // with numCTAs != 0
};

/// softmax's best-ranked config for rows of `cols` (what runs untimed,
/// examples::softmaxRankedConfigs), with clusters or in one CTA.
TuningConfig rankedConfig(int64_t cols, int elementBytes, bool clusters) {
  auto ranked = examples::softmaxRankedConfigs(
      next_power_of_2(cols), elementBytes, Target::cuda(clusters ? 90 : 80));
  return ranked.empty() ? TuningConfig{32, 1, 1, {}} : ranked.front();
}

int warpsFor(const SoftmaxShape &s) {
  return s.numWarps ? s.numWarps : rankedConfig(s.cols, 4, false).numWarps;
}

/// The launch options of `s` for elements of `elementBytes`.
LaunchOptions softmaxOptions(const SoftmaxShape &s, int elementBytes) {
  LaunchOptions options = gpuOptions({s.grid}, warpsFor(s));
  options.numCTAs = s.numCTAs;
  options.numStages = s.numStages;
  if (s.numCTAs == 0) {
    TuningConfig config = rankedConfig(s.cols, elementBytes, true);
    options.numWarps = s.numWarps ? s.numWarps : config.numWarps;
    options.numStages = config.numStages;
    options.numCTAs = config.numCTAs;
  }
  return options;
}

template <typename In, typename Out>
std::vector<Arg> softmaxArgs(const SoftmaxShape &s, const DeviceBuffer<In> &in,
                             const DeviceBuffer<Out> &out) {
  return {out.get(),
          in.get(),
          int32_t(s.inStride),
          int32_t(s.outStride),
          int32_t(s.rows),
          int32_t(s.cols),
          Constexpr(next_power_of_2(s.cols))};
}

/// Launches softmax on the device buffers (grid from the shape, or the
/// occupancy grid); "" or the error. `gridUsed` receives the grid.
template <typename In, typename Out>
std::string launchSoftmax(const SoftmaxShape &s, const DeviceBuffer<In> &in,
                          const DeviceBuffer<Out> &out,
                          int *gridUsed = nullptr) {
  std::vector<Arg> args = softmaxArgs(s, in, out);
  LaunchOptions options = softmaxOptions(s, sizeof(In));
  if (s.grid == 0) {
    auto info = warmup(*examples::softmax(), options, args);
    if (!info)
      return "warmup: " + llvm::toString(info.takeError());
    options.grid = {persistentGrid(*info, s.rows)};
  }
  if (gridUsed)
    *gridUsed = options.grid.x;
  return launchError(*examples::softmax(), options, args);
}

/// The whole round trip through device memory; output padding (and 32
/// elements past the end) hold a sentinel that must survive, and the input
/// must come back unchanged.
template <typename In, typename Out>
void softmaxRoundTrip(const SoftmaxShape &s, unsigned seed = 1) {
  SCOPED_TRACE(testing::Message()
               << typeName<In>() << "->" << typeName<Out>() << " rows="
               << s.rows << " cols=" << s.cols << " inStride=" << s.inStride
               << " outStride=" << s.outStride << " grid="
               << (s.grid ? std::to_string(s.grid) : std::string("occupancy"))
               << " num_warps=" << softmaxOptions(s, sizeof(In)).numWarps
               << " num_ctas=" << softmaxOptions(s, sizeof(In)).numCTAs
               << " num_stages=" << softmaxOptions(s, sizeof(In)).numStages);
  std::vector<In> input = makeSoftmaxInput<In>(s, seed);
  const Out sentinel = fromFloat<Out>(-7.25f);
  const int64_t tail = 32;
  std::vector<Out> output((s.rows - 1) * s.outStride + s.cols + tail, sentinel);
  DeviceBuffer<In> deviceIn(input);
  DeviceBuffer<Out> deviceOut(output);
  ASSERT_EQ(deviceIn.error(), "");
  ASSERT_EQ(deviceOut.error(), "");
  int grid = 0;
  ASSERT_EQ(launchSoftmax(s, deviceIn, deviceOut, &grid), "");
  ASSERT_SYNC_OK();
  ASSERT_EQ(deviceOut.download(output), "");
  std::vector<In> inputAfter;
  ASSERT_EQ(deviceIn.download(inputAfter), "");

  std::string report;
  double maxError = 0;
  int64_t bad = checkSoftmax(s, input.data(), output.data(), tolerance<Out>,
                             report, &maxError);
  EXPECT_EQ(bad, 0) << "wrong elements (grid " << grid << ", max ok error "
                    << maxError << "):\n"
                    << report;
  int64_t clobbered = 0;
  for (int64_t r = 0; r < s.rows; ++r) {
    int64_t end =
        r + 1 < s.rows ? (r + 1) * s.outStride : int64_t(output.size());
    for (int64_t i = r * s.outStride + s.cols; i < end; ++i)
      clobbered += !sameBits(output[i], sentinel);
  }
  EXPECT_EQ(clobbered, 0) << "output padding / tail elements were written";
  int64_t inputChanged = 0;
  for (size_t i = 0; i < input.size(); ++i)
    inputChanged += !sameBits(input[i], inputAfter[i]);
  EXPECT_EQ(inputChanged, 0) << "the kernel wrote to its input";
}

/// num_warps to try for rows of n: 4 and 8, and 16 for long rows.
std::vector<int> warpChoices(int64_t n) {
  std::vector<int> warps = {4, 8};
  if (n >= 4096)
    warps.push_back(16);
  return warps;
}

/// Rows for the occupancy-grid runs: more than the resident programs for
/// short rows, about 4M elements at most.
int64_t occupancyRows(int64_t n) {
  return std::clamp<int64_t>((int64_t(4) << 20) / n, 37, 3000);
}

class GPUSoftmaxTest : public ::testing::TestWithParam<int64_t> {};

TEST_P(GPUSoftmaxTest, F32UnevenSmallGrid) {
  REQUIRE_GPU();
  int64_t n = GetParam();
  // 37 rows over 5 programs: the persistent loop strides unevenly.
  for (int warps : warpChoices(n))
    softmaxRoundTrip<float, float>({37, n, n, n, 5, warps});
}

TEST_P(GPUSoftmaxTest, F32OccupancyGrid) {
  REQUIRE_GPU();
  int64_t n = GetParam();
  int64_t rows = occupancyRows(n);
  for (int warps : warpChoices(n))
    softmaxRoundTrip<float, float>({rows, n, n, n, 0, warps}, 4);
  // And num_warps as the examples choose it.
  softmaxRoundTrip<float, float>({rows, n, n, n, 0, 0}, 5);
}

// num_stages = s carries s - 1 rows ahead through the persistent loop: 37
// rows over 5 programs give each 7 or 8 rows, so the deepest prologues load
// rows past the end (masked off) and the carried rows shift to the last.
TEST_P(GPUSoftmaxTest, F32EveryPipelineDepth) {
  REQUIRE_GPU();
  int64_t n = GetParam();
  int warps = n >= 4096 ? 8 : 4;
  for (int stages = 1; stages <= kMaxNumStages; ++stages)
    if (stages == 1 || n / (32 * warps) * stages <= 128)
      softmaxRoundTrip<float, float>({37, n, n, n, 5, warps, 1, stages});
  // And a grid of one program per row: the loop runs once, every prefetch
  // falls past the end.
  softmaxRoundTrip<float, float>({37, n, n, n, 37, warps, 1, 4});
}

TEST_P(GPUSoftmaxTest, F32MoreProgramsThanRows) {
  REQUIRE_GPU();
  int64_t n = GetParam();
  softmaxRoundTrip<float, float>({3, n, n, n, 8, 4}, 7);
}

// Strides N+13 (input) and N+7 (output) are never multiples of 16: the
// specialization records each stride's own divisibility (1, 2, 4 or 8) and
// takes the vector width it allows, down to scalars.
TEST_P(GPUSoftmaxTest, PaddedStridesScalarPath) {
  REQUIRE_GPU();
  int64_t n = GetParam();
  SoftmaxShape s{37, n, n + 13, n + 7, 5, 4};
  {
    DeviceBuffer<float> in(16), out(16);
    ASSERT_EQ(in.error(), "");
    ASSERT_EQ(out.error(), "");
    auto key = specializationFor(*examples::softmax(), gpuOptions({5}, 4),
                                 softmaxArgs(s, in, out));
    ASSERT_TRUE(bool(key)) << llvm::toString(key.takeError());
    EXPECT_EQ(key->divisibility[kOut], 16) << "cuMemAlloc alignment";
    EXPECT_EQ(key->divisibility[kIn], 16) << "cuMemAlloc alignment";
    EXPECT_EQ(key->divisibility[kInStride], divisibilityOf(s.inStride));
    EXPECT_EQ(key->divisibility[kOutStride], divisibilityOf(s.outStride));
  }
  for (int warps : warpChoices(n)) {
    s.numWarps = warps;
    softmaxRoundTrip<float, float>(s, 3);
  }
  s.grid = 0;
  s.rows = std::min<int64_t>(occupancyRows(n), 1000);
  s.numWarps = 0;
  softmaxRoundTrip<float, float>(s, 6);
}

INSTANTIATE_TEST_SUITE_P(GPUWidths, GPUSoftmaxTest,
                         ::testing::Values(1, 2, 3, 127, 128, 129, 781, 1024,
                                           4096, 12288));

TEST(GPUSoftmax, Shape1823x781) {
  REQUIRE_GPU();
  softmaxRoundTrip<float, float>({1823, 781, 781, 781, 0, 0});
  softmaxRoundTrip<float, float>({1823, 781, 781, 781, 0, 4}, 2);
  softmaxRoundTrip<float, float>({1823, 781, 781, 781, 0, 8}, 3);
  softmaxRoundTrip<float, float>({1823, 781, 781, 781, 7, 4}, 4);
}

TEST(GPUSoftmax, SingleProgram) {
  REQUIRE_GPU();
  softmaxRoundTrip<float, float>({37, 129, 129, 129, 1, 4});
  softmaxRoundTrip<float, float>({11, 4096, 4096, 4096, 1, 16});
}

// Strides that are multiples of 16 and n_cols a multiple of 16: the
// specialization may use 16-byte vector accesses.
TEST(GPUSoftmax, AlignedStridesVectorPath) {
  REQUIRE_GPU();
  for (int64_t n : {16, 128, 784, 1024, 2048, 4096}) {
    SoftmaxShape s{48, n, n + 16, n + 32, 5, 4};
    {
      DeviceBuffer<float> in(16), out(16);
      ASSERT_EQ(in.error(), "");
      ASSERT_EQ(out.error(), "");
      auto key = specializationFor(*examples::softmax(), gpuOptions({5}, 4),
                                   softmaxArgs(s, in, out));
      ASSERT_TRUE(bool(key)) << llvm::toString(key.takeError());
      for (unsigned arg : {kOut, kIn, kInStride, kOutStride, kRows, kCols})
        EXPECT_EQ(key->divisibility[arg], 16) << "n=" << n << " arg " << arg;
    }
    for (int warps : warpChoices(n)) {
      s.numWarps = warps;
      softmaxRoundTrip<float, float>(s, 8);
    }
    // Dense rows (stride == n) and the occupancy grid.
    softmaxRoundTrip<float, float>(
        {std::min<int64_t>(occupancyRows(n), 1024), n, n, n, 0, 0}, 9);
  }
}

// Row lengths at and around the edges of mask-bound ranges
// (maskBoundRangeOf: n_cols in [11280, 12288] shares a kernel that loads
// and computes only the vectors of a 16384-wide block that the range
// leaves in the row): each length is right, and nothing past a row is
// written.
TEST(GPUSoftmaxMaskBoundRanges, EdgesRoundTrip) {
  REQUIRE_GPU();
  for (int64_t cols : {11264, 11265, 11280, 12000, 12287, 12288, 12289, 8193,
                       16384, 769, 781, 832, 833, 17}) {
    softmaxRoundTrip<float, float>({67, cols, cols, cols, 0, 4});
    softmaxRoundTrip<bfloat16, bfloat16>({67, cols, cols + 8, cols, 0, 8});
  }
}

// The same on blocks spread over clusters, where each CTA's share is placed
// by its cluster rank: lengths at the edges of ranges in 65536- and
// 262144-wide blocks (50000 lies in [49168, 53248], 200000 in [196624,
// 212992]), every cluster size, f32 and bf16, strided rows. At most 7
// rows, so at most 7 clusters: compute-sanitizer's synccheck fails larger
// grids of 16-CTA clusters by itself (docs/RELIABILITY.md).
TEST(GPUSoftmaxMaskBoundRanges, ClusterEdgesRoundTrip) {
  REQUIRE_GPU();
  for (int ctas : {2, 4, 8, 16})
    for (int64_t cols : {49152, 49153, 49168, 50000, 53248, 53249, 40000}) {
      softmaxRoundTrip<float, float>({7, cols, cols + 16, cols, 0, 4, ctas});
      softmaxRoundTrip<bfloat16, bfloat16>({7, cols, cols, cols + 8, 0, 8, ctas});
    }
  for (int64_t cols : {196608, 196609, 200000, 212992, 212993}) {
    softmaxRoundTrip<bfloat16, bfloat16>({5, cols, cols, cols, 0, 4, 16, 3});
    softmaxRoundTrip<float, float>({5, cols, cols, cols, 0, 8, 8, 2});
  }
}

// A launch prepared for n_cols = 12288 keeps its kernel for lengths in the
// same range and falls back to a full launch (another kernel) outside it:
// every length comes out right.
TEST(GPUSoftmaxMaskBoundRanges, PreparedLaunchChecksTheRange) {
  REQUIRE_GPU();
  SoftmaxShape prepared{64, 12288, 12288, 12288, 64, 4};
  std::vector<float> input = makeSoftmaxInput<float>(prepared, 3);
  DeviceBuffer<float> in(input);
  DeviceBuffer<float> out(std::vector<float>(input.size(), 0.0f));
  ASSERT_EQ(in.error(), "");
  ASSERT_EQ(out.error(), "");
  auto launch =
      PreparedLaunch::prepare(*examples::softmax(), softmaxOptions(prepared, 4),
                              softmaxArgs(prepared, in, out));
  ASSERT_TRUE(bool(launch)) << llvm::toString(launch.takeError());
  for (int64_t cols : {12288, 12000, 11280, 11264, 9000}) {
    SCOPED_TRACE(cols);
    std::vector<uint64_t> words = {reinterpret_cast<uintptr_t>(out.get()),
                                   reinterpret_cast<uintptr_t>(in.get()),
                                   12288,
                                   12288,
                                   64,
                                   uint64_t(cols)};
    ASSERT_EQ(errorText(launch->launch(words, nullptr)), "");
    ASSERT_SYNC_OK();
    std::vector<float> output;
    ASSERT_EQ(out.download(output), "");
    SoftmaxShape s{64, cols, 12288, 12288, 64, 4};
    std::string report;
    EXPECT_EQ(checkSoftmax(s, input.data(), output.data(), tolerance<float>,
                           report, nullptr),
              0)
        << report;
  }
}

TEST(GPUSoftmax, F16) {
  REQUIRE_GPU();
  for (int64_t n : {1, 3, 129, 781, 1024, 4096})
    softmaxRoundTrip<half, half>({37, n, n, n, 5, 0});
  softmaxRoundTrip<half, half>({37, 781, 800, 790, 5, 4});
  softmaxRoundTrip<half, half>({37, 1024, 1040, 1056, 5, 8}); // aligned
  softmaxRoundTrip<half, half>({1823, 781, 781, 781, 0, 0});
}

TEST(GPUSoftmax, BF16) {
  REQUIRE_GPU();
  for (int64_t n : {1, 3, 129, 781, 1024, 4096})
    softmaxRoundTrip<bfloat16, bfloat16>({37, n, n, n, 5, 0});
  softmaxRoundTrip<bfloat16, bfloat16>({37, 781, 800, 790, 5, 4});
  softmaxRoundTrip<bfloat16, bfloat16>({37, 1024, 1040, 1056, 5, 8});
  softmaxRoundTrip<bfloat16, bfloat16>({1823, 781, 781, 781, 0, 0});
}

// The maths is f32 after .to(F32): a 16-bit input written as f32 is exact to
// the fp32 tolerance against the reference on the same 16-bit values.
TEST(GPUSoftmax, MixedF16InF32Out) {
  REQUIRE_GPU();
  softmaxRoundTrip<half, float>({37, 781, 781, 781, 5, 4});
  softmaxRoundTrip<half, float>({37, 4096, 4096, 4096, 5, 16});
  softmaxRoundTrip<half, float>({500, 129, 129, 129, 0, 0});
  softmaxRoundTrip<float, half>({37, 781, 781, 781, 5, 4});
}

TEST(GPUSoftmax, MixedBF16AndF32) {
  REQUIRE_GPU();
  softmaxRoundTrip<bfloat16, float>({37, 129, 129, 129, 5, 4});
  softmaxRoundTrip<float, bfloat16>({37, 781, 781, 781, 5, 8});
}

//===----------------------------------------------------------------------===//
// Special values: -inf, large magnitudes, NaN
//===----------------------------------------------------------------------===//

template <typename T>
void specialValues(int64_t cols, int numWarps, int grid, int numCTAs = 1,
                   int numStages = 1) {
  SCOPED_TRACE(testing::Message()
               << typeName<T>() << " cols=" << cols << " num_warps=" << numWarps
               << " grid=" << grid << " num_ctas=" << numCTAs
               << " num_stages=" << numStages);
  SoftmaxShape s{8, cols, cols, cols, grid, numWarps, numCTAs, numStages};
  std::vector<float> values = specialValueRows(cols);

  std::vector<T> input(values.size()), output(values.size(), fromFloat<T>(0));
  for (size_t i = 0; i < values.size(); ++i)
    input[i] = fromFloat<T>(values[i]);
  DeviceBuffer<T> deviceIn(input), deviceOut(output);
  ASSERT_EQ(deviceIn.error(), "");
  ASSERT_EQ(deviceOut.error(), "");
  ASSERT_EQ(launchSoftmax(s, deviceIn, deviceOut), "");
  ASSERT_SYNC_OK();
  ASSERT_EQ(deviceOut.download(output), "");

  std::string report;
  EXPECT_EQ(checkSoftmax(s, input.data(), output.data(), tolerance<T>, report,
                         nullptr),
            0)
      << report;
  // Spelled out for the rows whose answer is known exactly.
  EXPECT_NEAR(toDouble(output[1 * cols + cols / 2]), 1.0, tolerance<T>);
  if (cols > 1) {
    EXPECT_EQ(toDouble(output[1 * cols + 0]), 0.0);
  }
  EXPECT_NEAR(toDouble(output[3 * cols + 0]), 1.0 / cols, tolerance<T>);
  int64_t wrongNaN = 0;
  for (int64_t c = 0; c < cols; ++c) {
    wrongNaN += !std::isnan(toDouble(output[4 * cols + c]));
    wrongNaN += !std::isnan(toDouble(output[6 * cols + c]));
    for (int64_t r : {0, 1, 2, 3, 5, 7})
      wrongNaN += std::isnan(toDouble(output[r * cols + c]));
  }
  EXPECT_EQ(wrongNaN, 0)
      << "rows 4 and 6 must be all NaN, the others free of NaN";
}

TEST(GPUSoftmaxSpecialValues, F32) {
  REQUIRE_GPU();
  for (int64_t cols : {1, 3, 129, 1024, 4097}) {
    specialValues<float>(cols, 4, 3);
    specialValues<float>(cols, 8, 0);
  }
  specialValues<float>(12288, 16, 3);
}

TEST(GPUSoftmaxSpecialValues, F16) {
  REQUIRE_GPU();
  for (int64_t cols : {3, 129, 1024}) {
    specialValues<half>(cols, 4, 3);
    specialValues<half>(cols, 8, 0);
  }
}

TEST(GPUSoftmaxSpecialValues, BF16) {
  REQUIRE_GPU();
  for (int64_t cols : {3, 129, 1024}) {
    specialValues<bfloat16>(cols, 4, 3);
    specialValues<bfloat16>(cols, 8, 0);
  }
}

//===----------------------------------------------------------------------===//
// Rows of any length: blocks split over thread-block clusters (num_ctas)
//===----------------------------------------------------------------------===//

// The best-ranked configurations of softmax's tuner (what runs untimed: up
// to 16 CTAs per program) on the row lengths, odd ones with masked
// tails; strided rows with NaN padding between them; the occupancy grid
// (clusters resident at once) and an uneven small one.
TEST(GPUSoftmaxLongRows, HeuristicF32) {
  REQUIRE_GPU();
  for (int64_t n : {32769, 65536, 100003, 262144}) {
    softmaxRoundTrip<float, float>({24, n, n, n, 0, 0, 0});
    softmaxRoundTrip<float, float>({7, n, n + 37, n + 5, 3, 0, 0});
  }
}

TEST(GPUSoftmaxLongRows, HeuristicBF16) {
  REQUIRE_GPU();
  for (int64_t n : {32769, 65536, 100003, 262144}) {
    softmaxRoundTrip<bfloat16, bfloat16>({24, n, n, n, 0, 0, 0});
    softmaxRoundTrip<bfloat16, bfloat16>({7, n, n + 40, n + 8, 3, 0, 0});
  }
}

// A million columns: one block of 2^20 over 16 CTAs (the longest the whole-row
// kernel takes; softmax_online goes beyond, SoftmaxOnlineGPUTest).
TEST(GPUSoftmaxLongRows, MillionColumns) {
  REQUIRE_GPU();
  softmaxRoundTrip<float, float>({3, 1000003, 1000003, 1000003, 0, 0, 0});
  softmaxRoundTrip<bfloat16, bfloat16>({3, 1 << 20, 1 << 20, 1 << 20, 2, 0, 0});
}

// Every cluster size, on a row each CTA holds a tile of or more.
TEST(GPUSoftmaxLongRows, EveryClusterSize) {
  REQUIRE_GPU();
  for (int ctas : {1, 2, 4, 8, 16}) {
    softmaxRoundTrip<float, float>({37, 65536, 65536, 65536, 5, 8, ctas});
    softmaxRoundTrip<float, float>({37, 40000, 40003, 40001, 0, 4, ctas});
    softmaxRoundTrip<bfloat16, float>({9, 65536, 65536, 65536, 0, 8, ctas});
  }
}

// Each cluster runs ~1000 rows back to back, two exchanges per row through
// the same two-half buffer: a CTA that overwrote a half another still reads
// (a missing barrier) would give that CTA another row's max or sum. The CTAs
// drift apart freely (no barrier between rows but the exchanges'), so this
// is the randomized check of the exchange protocol beside racecheck.
TEST(GPUSoftmaxLongRows, ExchangeBufferReuseStress) {
  REQUIRE_GPU();
  for (int ctas : {2, 8, 16})
    softmaxRoundTrip<float, float>({2000, 8192, 8192, 8192, 2, 4, ctas}, 5);
}

// -inf, +-1000, NaN rows split over clusters: every CTA's piece sees them.
TEST(GPUSoftmaxLongRows, SpecialValues) {
  REQUIRE_GPU();
  for (int64_t cols : {32769, 100003}) {
    specialValues<float>(cols, 8, 3, 4);
    specialValues<bfloat16>(cols, 4, 0, 8);
  }
  specialValues<float>(262144, 16, 0, 16);
}

/// Runs the fp32 softmax of `s` once compiled and once loaded from the disk
/// cache (an emptied in-memory cache, as a later process sees it), both
/// checked against the reference, and returns the artifact of the second.
std::optional<CompiledArtifact> softmaxFromTheDiskCache(const SoftmaxShape &s) {
  softmaxRoundTrip<float, float>(s); // compiles, stores the entry
  KernelCache::instance().clear();
  softmaxRoundTrip<float, float>(s); // loads the entry
  DeviceBuffer<float> in(std::vector<float>(s.cols, 1.0f)),
      out(std::vector<float>(s.cols, 0.0f));
  auto key =
      specializationFor(*examples::softmax(), softmaxOptions(s, sizeof(float)),
                        softmaxArgs(s, in, out));
  EXPECT_TRUE(bool(key)) << llvm::toString(key.takeError());
  if (!key)
    return std::nullopt;
  auto compiled = KernelCache::instance().get(*examples::softmax(), *key);
  EXPECT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
  if (!compiled)
    return std::nullopt;
  EXPECT_TRUE(compiled->fromDiskCache);
  return compiled->artifact;
}

//===----------------------------------------------------------------------===//
// Blocks kept in shared memory (blk-stage-in-shared): a program whose block
// would take more than 128 registers per thread
//===----------------------------------------------------------------------===//

// fp32 rows of 20000..32768 in a 32768 block with 4 warps (256 elements a
// thread, 128 KB on chip), bf16 rows of up to 65536 with 8 warps: masked
// tails, padded strides, several rows per program, special values.
TEST(GPUSoftmaxOnChip, RoundTrips) {
  REQUIRE_GPU();
  for (int64_t cols : {20000, 32767, 32768}) {
    softmaxRoundTrip<float, float>({37, cols, cols, cols, 5, 4});
    softmaxRoundTrip<float, float>({9, cols, cols + 13, cols + 7, 3, 4});
    specialValues<float>(cols, 4, 3);
  }
  for (int64_t cols : {40000, 65536}) {
    softmaxRoundTrip<bfloat16, bfloat16>({21, cols, cols, cols, 4, 8});
    softmaxRoundTrip<bfloat16, float>({5, cols, cols + 8, cols, 2, 8});
    specialValues<bfloat16>(cols, 8, 0);
  }
}

/// warmup() of the fp32 softmax config `s` (one row) reports at least
/// `bytes` of shared memory and one program per SM (128 KB of 228 KB), and
/// the artifact of its disk cache entry keeps exactly `bytes` of dynamic
/// shared memory.
void expectSharedMemoryReportedAndCached(SoftmaxShape s, int64_t bytes) {
  ScopedCacheDirectory cache;
  ASSERT_FALSE(cache.directory.empty());
  DeviceBuffer<float> in(std::vector<float>(s.cols, 1.0f)),
      out(std::vector<float>(s.cols, 0.0f));
  auto info = warmup(*examples::softmax(), softmaxOptions(s, sizeof(float)),
                     softmaxArgs(s, in, out));
  ASSERT_TRUE(bool(info)) << llvm::toString(info.takeError());
  EXPECT_GE(info->sharedMemoryBytes, bytes);
  EXPECT_EQ(info->maxProgramsPerProcessor, 1);
  s.rows = 3;
  s.grid = 2;
  std::optional<CompiledArtifact> artifact = softmaxFromTheDiskCache(s);
  ASSERT_TRUE(artifact);
  EXPECT_EQ(artifact->dynamicSharedMemoryBytes, bytes);
}

// warmup() counts the block kept on chip in the shared memory a program
// uses and in its occupancy; the artifact and its disk cache entry keep it.
TEST(GPUSoftmaxOnChip, SharedMemoryIsReportedAndCached) {
  REQUIRE_GPU();
  expectSharedMemoryReportedAndCached({1, 32768, 32768, 32768, 1, 4},
                                      32768 * 4);
}

//===----------------------------------------------------------------------===//
// Rows loaded ahead into shared memory (blk-stage-in-shared): num_stages > 1
// where the copies of a row in registers would not fit
//===----------------------------------------------------------------------===//

// Each config below keeps its rows ahead in shared memory (a thread's share
// times num_stages is past liveRegisterWords), in one CTA and over clusters:
// masked tails, padded strides, persistent grids where each program runs
// several rows (the ring of buffers turns over), an uneven grid, -inf / NaN
// / +-1000 rows. fp32 65536 on 2 CTAs of 16 warps at 3 stages needs 256 KB
// and keeps its rows in registers: the fallback runs too.
TEST(GPUSoftmaxRowsAhead, OneCTA) {
  REQUIRE_GPU();
  for (int stages : {2, 3}) {
    SCOPED_TRACE(testing::Message() << "num_stages=" << stages);
    softmaxRoundTrip<float, float>({37, 16384, 16384, 16384, 5, 4, 1, stages});
    softmaxRoundTrip<float, float>({23, 12289, 12300, 12291, 3, 4, 1, stages});
    softmaxRoundTrip<bfloat16, bfloat16>(
        {29, 32768, 32768, 32768, 4, 8, 1, stages});
  }
}

TEST(GPUSoftmaxRowsAhead, Clusters) {
  REQUIRE_GPU();
  for (int stages : {2, 3}) {
    SCOPED_TRACE(testing::Message() << "num_stages=" << stages);
    softmaxRoundTrip<float, float>({41, 65536, 65536, 65536, 6, 16, 2, stages});
    softmaxRoundTrip<float, float>({19, 50000, 50003, 50001, 0, 4, 4, stages});
    softmaxRoundTrip<bfloat16, float>(
        {17, 131072, 131072, 131072, 3, 4, 8, stages});
  }
}

TEST(GPUSoftmaxRowsAhead, SpecialValues) {
  REQUIRE_GPU();
  for (int stages : {2, 3}) {
    specialValues<float>(16384, 4, 3, 1, stages);
    specialValues<float>(100003, 4, 0, 8, stages);
    specialValues<bfloat16>(65536, 4, 2, 2, stages);
  }
}

// warmup() counts the ring of rows ahead in the shared memory a program
// uses (two 64 KB rows at 3 stages), and the disk cache keeps it.
TEST(GPUSoftmaxRowsAhead, SharedMemoryIsReportedAndCached) {
  REQUIRE_GPU();
  expectSharedMemoryReportedAndCached({1, 16384, 16384, 16384, 1, 4, 1, 3},
                                      2 * 16384 * 4);
}

// What warmup() reports of a cluster kernel, and a row too short to split.
TEST(GPUSoftmaxLongRows, WarmupReportsTheCluster) {
  REQUIRE_GPU();
  DeviceBuffer<float> in(std::vector<float>(65536, 1.0f)),
      out(std::vector<float>(65536, 0.0f));
  SoftmaxShape s{1, 65536, 65536, 65536, 1, 8, 4};
  LaunchOptions options = softmaxOptions(s, sizeof(float));
  auto info = warmup(*examples::softmax(), options, softmaxArgs(s, in, out));
  ASSERT_TRUE(bool(info)) << llvm::toString(info.takeError());
  EXPECT_EQ(info->ctasPerProgram, 4);
  EXPECT_GE(info->maxResidentPrograms, 1);
  // Clusters fit within GPCs: never more than the SMs' CTAs allow.
  EXPECT_LE(int64_t(info->maxResidentPrograms) * 4,
            int64_t(info->processors) * info->maxProgramsPerProcessor);
  SoftmaxShape small{1, 1000, 1000, 1000, 1, 4, 4};
  auto one = warmup(*examples::softmax(), softmaxOptions(small, 4),
                    softmaxArgs(small, in, out));
  ASSERT_TRUE(bool(one)) << llvm::toString(one.takeError());
  EXPECT_EQ(one->ctasPerProgram, 1);
  EXPECT_EQ(one->maxResidentPrograms,
            one->processors * one->maxProgramsPerProcessor);
}

// A cluster kernel loaded from the disk cache by a later process (here: an
// emptied in-memory cache) runs on its cluster as the freshly compiled one
// did. The entry once lost ctasPerProgram, and the warm launch ran each
// program on one CTA: half of every row was never written.
TEST(GPUSoftmaxLongRows, ClusterKernelFromTheDiskCache) {
  REQUIRE_GPU();
  ScopedCacheDirectory cache;
  ASSERT_FALSE(cache.directory.empty());
  for (int ctas : {2, 8}) {
    std::optional<CompiledArtifact> artifact =
        softmaxFromTheDiskCache({37, 65536, 65536, 65536, 5, 8, ctas});
    ASSERT_TRUE(artifact) << ctas;
    EXPECT_EQ(artifact->ctasPerProgram, ctas);
  }
}

// A cluster kernel with a launch cluster as well is a clear error.
TEST(GPUSoftmaxLongRows, LaunchClusterWithNumCTAsIsAnError) {
  REQUIRE_GPU();
  DeviceBuffer<float> in(std::vector<float>(65536, 1.0f)),
      out(std::vector<float>(65536, 0.0f));
  SoftmaxShape s{1, 65536, 65536, 65536, 2, 8, 4};
  LaunchOptions options = softmaxOptions(s, sizeof(float));
  options.cluster = {2, 1, 1};
  std::string error =
      launchError(*examples::softmax(), options, softmaxArgs(s, in, out));
  EXPECT_NE(error.find("runs each program on a cluster of 4 CTAs"),
            std::string::npos)
      << error;
}

//===----------------------------------------------------------------------===//
// Several programs per CTA
//===----------------------------------------------------------------------===//

/// out[2 pid] = pid, out[2 pid + 1] = num_programs, written by the sum of a
/// block (so the program's warps exchange through shared memory and wait on
/// its barrier) divided by the block's size.
void program_ids_kernel(Ptr<int32_t> out, Constexpr BLOCK) {
  Int pid = program_id(0);
  Tensor ones = arange(0, BLOCK) * 0 + 1;
  Tensor count = sum(ones, 0);
  store(out + 2 * pid, pid * count / BLOCK);
  store(out + 2 * pid + 1, num_programs(0) * count / BLOCK);
}

const KernelDef &programIdsKernel() {
  static auto kernel = jit("program_ids", program_ids_kernel, {"out", "BLOCK"});
  return *kernel;
}

/// "" when a launch of `grid` programs of `warps` warps, `programs` to a
/// CTA, ran each program once with its id and the grid's program count, and
/// left the slots past the grid alone; `prepared` launches through a
/// PreparedLaunch.
std::string checkProgramIds(int grid, int warps, int programs, bool prepared) {
  const int32_t sentinel = -7;
  int slots = grid + programs; // room for the last CTA's idle slots
  DeviceBuffer<int32_t> out(std::vector<int32_t>(2 * slots, sentinel));
  LaunchOptions options;
  options.target = TargetKind::CUDA;
  options.grid = {grid};
  options.numWarps = warps;
  options.programsPerCTA = programs;
  std::vector<Arg> args = {out.arg(), Constexpr(int64_t(warps) * 64)};
  if (prepared) {
    auto launch = PreparedLaunch::prepare(programIdsKernel(), options, args);
    if (!launch)
      return llvm::toString(launch.takeError());
    uint64_t pointer = reinterpret_cast<uintptr_t>(out.get());
    if (llvm::Error e = launch->launch({pointer}, nullptr))
      return llvm::toString(std::move(e));
  } else if (std::string e = launchError(programIdsKernel(), options, args);
             !e.empty()) {
    return e;
  }
  if (std::string e = synchronize(); !e.empty())
    return e;
  std::vector<int32_t> host;
  if (std::string e = out.download(host); !e.empty())
    return e;
  for (int i = 0; i < slots; ++i) {
    int32_t id = i < grid ? i : sentinel, count = i < grid ? grid : sentinel;
    if (host[2 * i] != id || host[2 * i + 1] != count)
      return llvm::formatv("program {0}: id {1}, count {2}; expected {3}, {4}",
                           i, host[2 * i], host[2 * i + 1], id, count)
          .str();
  }
  return "";
}

// Grids that leave the last CTA partly idle, fewer programs than one CTA
// holds, and the prepared path (which appends the hidden program count too).
TEST(GPUProgramsPerCTA, EveryProgramRunsOnceWithItsId) {
  REQUIRE_GPU();
  for (auto [grid, warps, programs] :
       {std::tuple(1001, 1, 4), std::tuple(7, 2, 8), std::tuple(4096, 1, 2),
        std::tuple(3, 4, 8), std::tuple(65, 2, 16)})
    for (bool prepared : {false, true})
      EXPECT_EQ(checkProgramIds(grid, warps, programs, prepared), "")
          << grid << " programs of " << warps << " warps, " << programs
          << " to a CTA" << (prepared ? ", prepared" : "");
}

// warmup() counts programs, not CTAs: a persistent grid fills every slot.
TEST(GPUProgramsPerCTA, WarmupCountsPrograms) {
  REQUIRE_GPU();
  DeviceBuffer<float> in(std::vector<float>(64, 1.0f)),
      out(std::vector<float>(64, 0.0f));
  SoftmaxShape s{1, 64, 64, 64, 1, 1};
  LaunchOptions options = softmaxOptions(s, sizeof(float));
  auto one = warmup(*examples::softmax(), options, softmaxArgs(s, in, out));
  ASSERT_TRUE(bool(one)) << llvm::toString(one.takeError());
  options.programsPerCTA = 4;
  auto four = warmup(*examples::softmax(), options, softmaxArgs(s, in, out));
  ASSERT_TRUE(bool(four)) << llvm::toString(four.takeError());
  EXPECT_EQ(one->programsPerCTA, 1);
  EXPECT_EQ(four->programsPerCTA, 4);
  EXPECT_EQ(four->threadsPerProgram, 32);
  EXPECT_EQ(four->maxProgramsPerProcessor % 4, 0);
  // One-warp CTAs stop at the SM's CTA limit; CTAs of four do not.
  EXPECT_GT(four->maxProgramsPerProcessor, one->maxProgramsPerProcessor);
  EXPECT_EQ(four->maxResidentPrograms,
            four->processors * four->maxProgramsPerProcessor);
}

//===----------------------------------------------------------------------===//
// vector_add
//===----------------------------------------------------------------------===//

template <typename T> void vectorAddCheck(int64_t n, int64_t block) {
  SCOPED_TRACE(testing::Message() << "n=" << n << " BLOCK=" << block);
  std::mt19937 rng(n + 17);
  std::vector<T> x(n), y(n);
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      std::normal_distribution<T> normal(0, 100);
      x[i] = normal(rng);
      y[i] = normal(rng);
    } else {
      std::uniform_int_distribution<T> uniform(-1000000, 1000000);
      x[i] = uniform(rng);
      y[i] = uniform(rng);
    }
  }
  const T sentinel = T(-12345);
  std::vector<T> out(n + 64, sentinel);
  DeviceBuffer<T> dx(x), dy(y), dout(out);
  ASSERT_EQ(dx.error(), "");
  ASSERT_EQ(dy.error(), "");
  ASSERT_EQ(dout.error(), "");
  ASSERT_LAUNCH_OK(
      *examples::vectorAdd(), gpuOptions({int((n + block - 1) / block)}),
      {dx.get(), dy.get(), dout.get(), int32_t(n), Constexpr(block)});
  ASSERT_SYNC_OK();
  ASSERT_EQ(dout.download(out), "");
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i)
    if (!sameBits<T>(out[i], T(x[i] + y[i])) && ++bad <= 5)
      ADD_FAILURE() << "out[" << i << "] = " << out[i] << ", want "
                    << x[i] + y[i];
  EXPECT_EQ(bad, 0);
  int64_t past = 0;
  for (int64_t i = n; i < int64_t(out.size()); ++i)
    past += !sameBits(out[i], sentinel);
  EXPECT_EQ(past, 0) << "wrote past n";
}

TEST(GPUVectorAdd, F32) {
  REQUIRE_GPU();
  for (int64_t n : {1, 1000, 4096, 100003}) {
    vectorAddCheck<float>(n, 1024);
    vectorAddCheck<float>(n, 128);
  }
}

TEST(GPUVectorAdd, I32) {
  REQUIRE_GPU();
  for (int64_t n : {1, 1000, 4096, 100003}) {
    vectorAddCheck<int32_t>(n, 1024);
    vectorAddCheck<int32_t>(n, 256);
  }
}

TEST(GPUVectorAdd, UnalignedPointers) {
  REQUIRE_GPU();
  // Device pointers one element past a 256-byte boundary: not 16-byte
  // aligned, another specialization (scalar accesses).
  int64_t n = 1000;
  std::vector<float> x(n + 1), y(n + 1), out(n + 2, -1.0f);
  for (int64_t i = 0; i <= n; ++i) {
    x[i] = float(i);
    y[i] = float(2 * i);
  }
  DeviceBuffer<float> dx(x), dy(y), dout(out);
  ASSERT_EQ(dx.error(), "");
  ASSERT_EQ(dy.error(), "");
  ASSERT_EQ(dout.error(), "");
  std::vector<Arg> args = {dx.get() + 1, dy.get() + 1, dout.get() + 1,
                           int32_t(n), Constexpr(1024)};
  auto key = specializationFor(*examples::vectorAdd(), gpuOptions({1}), args);
  ASSERT_TRUE(bool(key)) << llvm::toString(key.takeError());
  for (unsigned arg : {0, 1, 2})
    EXPECT_EQ(key->divisibility[arg], 4) << "arg " << arg; // float* + 1
  ASSERT_LAUNCH_OK(*examples::vectorAdd(), gpuOptions({1}), args);
  ASSERT_SYNC_OK();
  ASSERT_EQ(dout.download(out), "");
  EXPECT_EQ(out[0], -1.0f);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i + 1], x[i + 1] + y[i + 1]) << i;
  EXPECT_EQ(out[n + 1], -1.0f);
}

//===----------------------------------------------------------------------===//
// warmup() and persistentGrid()
//===----------------------------------------------------------------------===//

TEST(GPUWarmup, ReportsResourcesAndOccupancy) {
  REQUIRE_GPU();
  auto props = cuda::deviceProperties(0);
  ASSERT_TRUE(bool(props)) << llvm::toString(props.takeError());
  DeviceBuffer<float> in(4096), out(4096);
  ASSERT_EQ(in.error(), "");
  ASSERT_EQ(out.error(), "");
  for (int warps : {1, 2, 4, 8, 16}) {
    SCOPED_TRACE(testing::Message() << "num_warps=" << warps);
    SoftmaxShape s{4, 1024, 1024, 1024, 1, warps};
    auto info = warmup(*examples::softmax(), gpuOptions({1}, warps),
                       softmaxArgs(s, in, out));
    ASSERT_TRUE(bool(info)) << llvm::toString(info.takeError());
    EXPECT_GT(info->registers, 0);
    EXPECT_LE(info->registers, 255);
    EXPECT_GE(info->sharedMemoryBytes, 0);
    EXPECT_EQ(info->threadsPerProgram, 32 * warps);
    EXPECT_GE(info->maxProgramsPerProcessor, 1);
    EXPECT_EQ(info->processors, props->smCount);
    // Occupancy within what an SM holds.
    EXPECT_LE(info->maxProgramsPerProcessor * info->threadsPerProgram,
              props->maxThreadsPerSM);
    EXPECT_LE(int64_t(info->maxProgramsPerProcessor) * info->threadsPerProgram *
                  info->registers,
              int64_t(props->registersPerSM));
    EXPECT_LE(int64_t(info->maxProgramsPerProcessor) * info->sharedMemoryBytes,
              int64_t(props->sharedMemoryPerSM));
    // The compiled kernel in the cache is the one warmup described.
    auto key = specializationFor(*examples::softmax(), gpuOptions({1}, warps),
                                 softmaxArgs(s, in, out));
    ASSERT_TRUE(bool(key)) << llvm::toString(key.takeError());
    auto compiled = KernelCache::instance().get(*examples::softmax(), *key);
    ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
    auto loaded = compiled->loaded(0);
    ASSERT_TRUE(bool(loaded)) << llvm::toString(loaded.takeError());
    EXPECT_NE(loaded->handle, nullptr);
    EXPECT_EQ(loaded->threadsPerProgram, 32 * warps);
    EXPECT_EQ(loaded->staticSharedMemoryBytes, info->sharedMemoryBytes);
    auto resources = cudaExecutor().resources(*loaded, 0);
    ASSERT_TRUE(bool(resources)) << llvm::toString(resources.takeError());
    EXPECT_EQ(resources->registers, info->registers);
    EXPECT_EQ(resources->maxProgramsPerProcessor,
              info->maxProgramsPerProcessor);
    EXPECT_EQ(compiled->artifact.threadsPerProgram, 32 * warps);
  }
  // vector_add too.
  DeviceBuffer<float> z(4096);
  ASSERT_EQ(z.error(), "");
  auto info =
      warmup(*examples::vectorAdd(), gpuOptions({4}),
             {in.get(), out.get(), z.get(), int32_t(4096), Constexpr(1024)});
  ASSERT_TRUE(bool(info)) << llvm::toString(info.takeError());
  EXPECT_GT(info->registers, 0);
  EXPECT_EQ(info->threadsPerProgram, 128);
  EXPECT_GE(info->maxProgramsPerProcessor, 1);
  EXPECT_EQ(info->processors, props->smCount);
}

TEST(GPUWarmup, PersistentGridIsResidentProgramsCappedByWork) {
  REQUIRE_GPU();
  int sms = smCount();
  ASSERT_GT(sms, 0);
  DeviceBuffer<float> in(1024), out(1024);
  ASSERT_EQ(in.error(), "");
  ASSERT_EQ(out.error(), "");
  SoftmaxShape s{4, 781, 781, 781, 1, 4};
  auto info =
      warmup(*examples::softmax(), gpuOptions({1}, 4), softmaxArgs(s, in, out));
  ASSERT_TRUE(bool(info)) << llvm::toString(info.takeError());
  ASSERT_EQ(info->processors, sms);
  int64_t resident = int64_t(sms) * info->maxProgramsPerProcessor;
  for (int64_t rows : {int64_t(1), int64_t(2), int64_t(37), int64_t(sms),
                       resident - 1, resident, resident + 1, int64_t(1823),
                       int64_t(1) << 20, int64_t(1) << 40}) {
    if (rows < 1)
      continue;
    EXPECT_EQ(persistentGrid(*info, rows), std::min(resident, rows))
        << "rows=" << rows;
  }
  // Warmup does not launch anything: the output is untouched.
  std::vector<float> host;
  ASSERT_SYNC_OK();
  ASSERT_EQ(out.upload(std::vector<float>(1024, 3.0f)), "");
  auto again =
      warmup(*examples::softmax(), gpuOptions({1}, 4), softmaxArgs(s, in, out));
  ASSERT_TRUE(bool(again)) << llvm::toString(again.takeError());
  ASSERT_SYNC_OK();
  ASSERT_EQ(out.download(host), "");
  EXPECT_EQ(host, std::vector<float>(1024, 3.0f));
}

//===----------------------------------------------------------------------===//
// Launch errors, scalars, streams
//===----------------------------------------------------------------------===//

void gpu_scale_kernel(Ptr<float> x, Ptr<float> y, Int n, Float factor,
                      Constexpr BLOCK) {
  Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
  Tensor mask = offsets < n;
  store(y + offsets, load(x + offsets, mask) * factor, mask);
}

const KernelDef &gpuScaleKernel() {
  static auto kernel = jit("gpu_scale_f32", gpu_scale_kernel,
                           {"x", "y", "n", "factor", "BLOCK"});
  return *kernel;
}

/// Three device buffers of 16 floats; `out` holds a sentinel that a
/// rejected launch must leave alone.
struct ErrorFixture {
  DeviceBuffer<float> x{std::vector<float>(16, 1.0f)};
  DeviceBuffer<float> y{std::vector<float>(16, 2.0f)};
  DeviceBuffer<float> out{std::vector<float>(16, -5.0f)};
  std::string ready() const { return x.error() + y.error() + out.error(); }
  /// "" when `out` still holds the sentinel.
  std::string untouched() const {
    if (std::string e = synchronize(); !e.empty())
      return e;
    std::vector<float> host;
    if (std::string e = out.download(host); !e.empty())
      return e;
    return host == std::vector<float>(16, -5.0f) ? "" : "output was written";
  }
};

TEST(GPULaunchErrors, WrongArgumentCount) {
  REQUIRE_GPU();
  ErrorFixture f;
  ASSERT_EQ(f.ready(), "");
  std::string message =
      launchError(*examples::vectorAdd(), gpuOptions({1}),
                  {f.x.get(), f.y.get(), f.out.get(), int32_t(16)});
  EXPECT_TRUE(contains(message, "vector_add")) << message;
  EXPECT_TRUE(contains(message, "takes 5 arguments, got 4")) << message;
  auto info = warmup(*examples::vectorAdd(), gpuOptions({1}),
                     {f.x.get(), f.y.get(), f.out.get(), int32_t(16)});
  ASSERT_FALSE(bool(info));
  std::string warmupMessage = llvm::toString(info.takeError());
  EXPECT_TRUE(contains(warmupMessage, "vector_add")) << warmupMessage;
  EXPECT_EQ(f.untouched(), "");
}

TEST(GPULaunchErrors, PointerWhereScalarExpected) {
  REQUIRE_GPU();
  ErrorFixture f;
  ASSERT_EQ(f.ready(), "");
  std::string message = launchError(
      *examples::vectorAdd(), gpuOptions({1}),
      {f.x.get(), f.y.get(), f.out.get(), f.out.get(), Constexpr(16)});
  EXPECT_TRUE(contains(message, "vector_add")) << message;
  EXPECT_TRUE(contains(message, "n_elements")) << message;
  EXPECT_TRUE(contains(message, "#3")) << message;
  EXPECT_TRUE(contains(message, "got a pointer")) << message;
  EXPECT_EQ(f.untouched(), "");
}

TEST(GPULaunchErrors, ScalarWherePointerExpected) {
  REQUIRE_GPU();
  ErrorFixture f;
  ASSERT_EQ(f.ready(), "");
  std::string message = launchError(
      *examples::vectorAdd(), gpuOptions({1}),
      {f.x.get(), int32_t(5), f.out.get(), int32_t(16), Constexpr(16)});
  EXPECT_TRUE(contains(message, "vector_add")) << message;
  EXPECT_TRUE(contains(message, "y_ptr")) << message;
  EXPECT_TRUE(contains(message, "pointer")) << message;
  EXPECT_EQ(f.untouched(), "");
}

TEST(GPULaunchErrors, WrongPointeeType) {
  REQUIRE_GPU();
  ErrorFixture f;
  ASSERT_EQ(f.ready(), "");
  // The f32 buffer passed as f16.
  std::string message =
      launchError(gpuScaleKernel(), gpuOptions({1}),
                  {Arg::typedPointer(f.x.get(), DType::F16), f.out.get(),
                   int32_t(16), 1.0f, Constexpr(16)});
  EXPECT_TRUE(contains(message, "gpu_scale_f32")) << message;
  EXPECT_TRUE(contains(message, "'x'")) << message;
  EXPECT_TRUE(contains(message, "f32")) << message;
  EXPECT_TRUE(contains(message, "f16")) << message;
  EXPECT_EQ(f.untouched(), "");
}

TEST(GPULaunchErrors, IntWhereFloatScalarExpected) {
  REQUIRE_GPU();
  ErrorFixture f;
  ASSERT_EQ(f.ready(), "");
  std::string message = launchError(
      gpuScaleKernel(), gpuOptions({1}),
      {f.x.get(), f.out.get(), int32_t(16), int32_t(2), Constexpr(16)});
  EXPECT_TRUE(contains(message, "gpu_scale_f32")) << message;
  EXPECT_TRUE(contains(message, "factor")) << message;
  EXPECT_EQ(f.untouched(), "");
}

TEST(GPULaunchErrors, ZeroSizedGrid) {
  REQUIRE_GPU();
  ErrorFixture f;
  ASSERT_EQ(f.ready(), "");
  for (Grid grid :
       {Grid{0, 1, 1}, Grid{1, 0, 1}, Grid{1, 1, 0}, Grid{-1, 1, 1}}) {
    std::string message = launchError(
        *examples::vectorAdd(), gpuOptions(grid),
        {f.x.get(), f.y.get(), f.out.get(), int32_t(16), Constexpr(16)});
    EXPECT_TRUE(contains(message, "vector_add")) << message;
    EXPECT_TRUE(contains(message, "grid")) << message;
  }
  EXPECT_EQ(f.untouched(), "");
}

TEST(GPURuntime, ScaleKernelWithFloatScalar) {
  REQUIRE_GPU();
  std::vector<float> x(300), y(300, 0.0f);
  for (int i = 0; i < 300; ++i)
    x[i] = float(i) - 150.0f;
  DeviceBuffer<float> dx(x), dy(y);
  ASSERT_EQ(dx.error(), "");
  ASSERT_EQ(dy.error(), "");
  ASSERT_LAUNCH_OK(gpuScaleKernel(), gpuOptions({3}),
                   {dx.get(), dy.get(), int32_t(300), 2.5f, Constexpr(128)});
  ASSERT_SYNC_OK();
  ASSERT_EQ(dy.download(y), "");
  for (int i = 0; i < 300; ++i)
    ASSERT_EQ(y[i], x[i] * 2.5f) << i;
}

// options.stream = nullptr is the default stream: launches on it run in
// order, so dependent launches need no synchronization between them.
TEST(GPUStream, NullStreamOrdersDependentLaunches) {
  REQUIRE_GPU();
  const int64_t n = 100003;
  std::vector<float> x(n), y(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = float(i % 1000);
    y[i] = float(i % 7) - 3.0f;
  }
  DeviceBuffer<float> dx(x), dy(y), t(n), out(n);
  ASSERT_EQ(dx.error() + dy.error() + t.error() + out.error(), "");
  LaunchOptions options = gpuOptions({int((n + 1023) / 1024)});
  options.stream = nullptr;
  // t = x + y; out = t + y, then one synchronization.
  ASSERT_LAUNCH_OK(*examples::vectorAdd(), options,
                   {dx.get(), dy.get(), t.get(), int32_t(n), Constexpr(1024)});
  ASSERT_LAUNCH_OK(*examples::vectorAdd(), options,
                   {t.get(), dy.get(), out.get(), int32_t(n), Constexpr(1024)});
  ASSERT_SYNC_OK();
  std::vector<float> result;
  ASSERT_EQ(out.download(result), "");
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i)
    if (result[i] != (x[i] + y[i]) + y[i] && ++bad <= 5)
      ADD_FAILURE() << "out[" << i << "] = " << result[i] << ", want "
                    << (x[i] + y[i]) + y[i];
  EXPECT_EQ(bad, 0);
}

TEST(GPUStream, ManyInPlaceLaunchesThenOneSync) {
  REQUIRE_GPU();
  const int64_t n = 4099;
  const int launches = 50;
  std::vector<int32_t> acc(n), ones(n, 1);
  for (int64_t i = 0; i < n; ++i)
    acc[i] = int32_t(i);
  DeviceBuffer<int32_t> dacc(acc), dones(ones);
  ASSERT_EQ(dacc.error() + dones.error(), "");
  LaunchOptions options = gpuOptions({int((n + 255) / 256)});
  options.stream = nullptr;
  for (int k = 0; k < launches; ++k)
    ASSERT_LAUNCH_OK(
        *examples::vectorAdd(), options,
        {dacc.get(), dones.get(), dacc.get(), int32_t(n), Constexpr(256)});
  ASSERT_SYNC_OK();
  std::vector<int32_t> result;
  ASSERT_EQ(dacc.download(result), "");
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i)
    if (result[i] != int32_t(i) + launches && ++bad <= 5)
      ADD_FAILURE() << "acc[" << i << "] = " << result[i];
  EXPECT_EQ(bad, 0);
}

TEST(GPUStream, SoftmaxOfSoftmaxWithoutIntermediateSync) {
  REQUIRE_GPU();
  SoftmaxShape s{300, 781, 781, 781, 0, 0};
  std::vector<float> input = makeSoftmaxInput<float>(s, 21);
  DeviceBuffer<float> din(input), mid(input.size()), dout(input.size());
  ASSERT_EQ(din.error() + mid.error() + dout.error(), "");
  ASSERT_EQ(launchSoftmax(s, din, mid), "");
  ASSERT_EQ(launchSoftmax(s, mid, dout), "");
  ASSERT_SYNC_OK();
  std::vector<float> middle, output;
  ASSERT_EQ(mid.download(middle), "");
  ASSERT_EQ(dout.download(output), "");
  std::string report;
  EXPECT_EQ(checkSoftmax(s, input.data(), middle.data(), 1e-6, report, nullptr),
            0)
      << report;
  // The second launch read the first one's (complete) output.
  EXPECT_EQ(
      checkSoftmax(s, middle.data(), output.data(), 1e-6, report, nullptr), 0)
      << report;
}

//===----------------------------------------------------------------------===//
// Concurrency: first launches of one new key from many threads
//===----------------------------------------------------------------------===//

TEST(GPUConcurrency, EightThreadsFirstLaunchOfNewKey) {
  REQUIRE_GPU();
  // N = 300 -> BLOCK_SIZE 512 with num_warps 2: a key no other test uses, so
  // the threads race on its first compilation and load.
  const int threads = 8;
  const int64_t cols = 300;
  std::latch start(threads);
  std::vector<std::string> errors(threads);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      SoftmaxShape s{50 + 7 * t, cols, cols, cols, 3 + t, 2};
      std::vector<float> input = makeSoftmaxInput<float>(s, 100 + t);
      std::vector<float> output(input.size() + 32, -7.25f);
      // Each thread its own buffers (allocating makes the context current).
      DeviceBuffer<float> din(input), dout(output);
      std::string message = din.error() + dout.error();
      start.arrive_and_wait();
      if (!message.empty()) {
        errors[t] = message;
        return;
      }
      message = launchSoftmax(s, din, dout);
      if (message.empty())
        message = synchronize();
      if (message.empty())
        message = dout.download(output);
      if (!message.empty()) {
        errors[t] = message;
        return;
      }
      std::string report;
      if (int64_t bad = checkSoftmax(s, input.data(), output.data(), 1e-6,
                                     report, nullptr))
        errors[t] = std::to_string(bad) + " wrong elements\n" + report;
      for (size_t i = input.size(); i < output.size(); ++i)
        if (output[i] != -7.25f) {
          errors[t] += "wrote past the end at " + std::to_string(i);
          break;
        }
    });
  for (std::thread &worker : workers)
    worker.join();
  for (int t = 0; t < threads; ++t)
    EXPECT_EQ(errors[t], "") << "thread " << t;
}

} // namespace

namespace {

// Several GPUs: one specialization (same arch) is loaded once per device and
// runs on each. Skips with fewer than two devices.
TEST(GPUMultiDevice, SoftmaxOnEveryDevice) {
  int devices = cudaExecutor().deviceCount();
  if (devices < 2)
    GTEST_SKIP() << "needs two CUDA devices, found " << devices;
  const int64_t rows = 64, cols = 1000;
  std::vector<float> in(rows * cols);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = float(int(i % 29) - 14) * 0.25f;
  std::vector<double> expected(rows * cols);
  examples::referenceSoftmax(in.data(), expected.data(), rows, cols, cols, cols,
                             [](float x) { return double(x); });
  for (int device = 0; device < std::min(devices, 4); ++device) {
    auto din = blockjit::DeviceBuffer::copyOf(TargetKind::CUDA,
                                              llvm::ArrayRef(in), device);
    ASSERT_TRUE(bool(din)) << llvm::toString(din.takeError());
    auto dout = blockjit::DeviceBuffer::allocate(TargetKind::CUDA,
                                                 in.size() * 4, device);
    ASSERT_TRUE(bool(dout)) << llvm::toString(dout.takeError());
    LaunchOptions options;
    options.target = TargetKind::CUDA;
    options.device = device;
    options.grid = {16};
    std::vector<Arg> args = {dout->arg(DType::F32), din->arg(DType::F32),
                             int32_t(cols),         int32_t(cols),
                             int32_t(rows),         int32_t(cols),
                             Constexpr(1024)};
    llvm::Error error = launch(*examples::softmax(), options, args);
    ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
    ASSERT_EQ(errorText(cudaExecutor().synchronize(device)), "");
    std::vector<float> out(in.size());
    ASSERT_EQ(errorText(dout->download(out)), "");
    double maxError = 0;
    for (size_t i = 0; i < out.size(); ++i)
      maxError = std::max(maxError, std::abs(expected[i] - out[i]));
    EXPECT_LE(maxError, 1e-6) << "device " << device;
  }
}

} // namespace

namespace {

// 2-D blocks: the same tile kernel and reference as the CPU test.
TEST(GPU2DBlock, TileTransposeAndReductions) {
  if (cudaExecutor().deviceCount() == 0)
    GTEST_SKIP() << "no CUDA device";
  for (int warps : {1, 4}) {
    for (auto [M, N, BM, BN] : tests::tileShapes()) {
      SCOPED_TRACE(testing::Message() << M << "x" << N << " tiles " << BM << "x"
                                      << BN << ", " << warps << " warps");
      tests::TileData t(M, N, BM, BN);
      DeviceBuffer<float> in(t.in), outT(t.outT), rowMax(t.rowMax),
          rowSum(t.rowSum), colMax(t.colMax), colSum(t.colSum);
      for (auto *b : {&in, &outT, &rowMax, &rowSum, &colMax, &colSum})
        ASSERT_EQ(b->error(), "");
      std::vector<Arg> args = {in.get(),     outT.get(),   rowMax.get(),
                               rowSum.get(), colMax.get(), colSum.get()};
      llvm::append_range(args, t.tail());
      ASSERT_EQ(
          launchError(tests::tileKernel(), gpuOptions(t.grid(), warps), args),
          "");
      ASSERT_EQ(synchronize(), "");
      ASSERT_EQ(outT.download(t.outT), "");
      ASSERT_EQ(rowMax.download(t.rowMax), "");
      ASSERT_EQ(rowSum.download(t.rowSum), "");
      ASSERT_EQ(colMax.download(t.colMax), "");
      ASSERT_EQ(colSum.download(t.colSum), "");
      t.check();
    }
  }
}

//===----------------------------------------------------------------------===//
// Hostile input (the reliability issue)
//===----------------------------------------------------------------------===//

// A null data pointer once poisoned the CUDA context (illegal address; every
// later call in the process failed). It is rejected before the launch.
TEST(GPUReliability, NullPointerIsRejectedAndTheContextSurvives) {
  REQUIRE_GPU();
  DeviceBuffer<float> in(std::vector<float>(64, 1.0f)), out(64);
  ASSERT_EQ(in.error(), "");
  std::vector<Arg> args = {Arg::typedPointer(nullptr, DType::F32),
                           in.arg(),
                           int32_t(64),
                           int32_t(64),
                           int32_t(1),
                           int32_t(64),
                           Constexpr(64)};
  std::string error = launchError(*examples::softmax(), gpuOptions({1}), args);
  EXPECT_NE(error.find("argument #0 'output_ptr' is a null pointer"),
            std::string::npos)
      << error;
  args[0] = out.arg();
  ASSERT_LAUNCH_OK(*examples::softmax(), gpuOptions({1}), args);
  ASSERT_SYNC_OK();
  std::vector<float> result(64);
  ASSERT_EQ(out.download(result), "");
  EXPECT_NEAR(result[0], 1.0f / 64, 1e-7);
}

// row * stride = 2^31 elements wraps in i32: the rows lie 4 GiB apart.
TEST(GPUReliability, RowsFourGiBApart) {
  REQUIRE_GPU();
  int64_t rows = 3, cols = 300, stride = int64_t(1) << 30;
  DeviceBuffer<float> data(size_t((rows - 1) * stride + cols));
  if (!data.error().empty())
    GTEST_SKIP() << "cannot allocate 8 GiB: " << data.error();
  std::vector<std::vector<float>> host(rows, std::vector<float>(cols));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c)
      host[r][c] = float((r + 1) * (c % 11)) / 5.0f;
    ASSERT_EQ(data.uploadAt(host[r].data(), cols, r * stride), "");
  }
  std::vector<Arg> args = {data.arg(),      data.arg(),    int32_t(stride),
                           int32_t(stride), int32_t(rows), int32_t(cols),
                           Constexpr(512)};
  ASSERT_LAUNCH_OK(*examples::softmax(), gpuOptions({3}), args);
  ASSERT_SYNC_OK();
  std::vector<double> expected(cols);
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<float> result(cols);
    ASSERT_EQ(data.downloadAt(result.data(), cols, r * stride), "");
    examples::referenceSoftmax(host[r].data(), expected.data(), 1, cols, cols,
                               cols, [](float x) { return double(x); });
    for (int64_t c = 0; c < cols; ++c)
      ASSERT_NEAR(result[c], expected[c], 1e-6) << "row " << r << " col " << c;
  }
}

TEST(GPUReliability, TooManyElementsPerThreadIsAClearError) {
  REQUIRE_GPU();
  DeviceBuffer<float> in(16), out(16);
  std::vector<Arg> args = {out.arg(),
                           in.arg(),
                           int32_t(16),
                           int32_t(16),
                           int32_t(1),
                           int32_t(16),
                           Constexpr(int64_t(1) << 20)};
  std::string error =
      launchError(*examples::softmax(), gpuOptions({1}, 4), args);
  EXPECT_NE(error.find("the GPU backend allows at most 1024 per thread"),
            std::string::npos)
      << error;
}

// Device ordinals outside 0..cuda::kMaxDevices-1, or of absent devices, are
// errors that name the device, not crashes.
TEST(GPUReliability, DeviceOutOfRangeIsAClearError) {
  REQUIRE_GPU();
  DeviceBuffer<float> in(std::vector<float>(16, 1.0f)), out(16);
  std::vector<Arg> args = {out.arg(),  in.arg(),    int32_t(16),  int32_t(16),
                           int32_t(1), int32_t(16), Constexpr(16)};
  for (int device : {-1, cuda::kMaxDevices, cudaExecutor().deviceCount()}) {
    LaunchOptions options = gpuOptions({1});
    options.device = device;
    std::string error = launchError(*examples::softmax(), options, args);
    EXPECT_NE(error.find("device " + std::to_string(device)), std::string::npos)
        << device << ": " << error;
  }
  // Device 0 still works.
  ASSERT_LAUNCH_OK(*examples::softmax(), gpuOptions({1}), args);
  ASSERT_SYNC_OK();
}

// log-sum-exp of each row: exp and log of scalars once ended the process on
// the GPU ("no libcall available for fexp").
void row_logsumexp(Ptr<float> out, Ptr<float> in, Int n, Constexpr BLOCK) {
  Int row = program_id(0);
  Tensor offs = arange(0, BLOCK);
  Tensor x = load(in + row * n + offs, offs < n, -INFINITY);
  Tensor m = max(x, 0);
  Tensor lse = m + log(sum(exp(x - m), 0));
  store(out + row, exp(lse - m) + lse * 0.0f);
}

TEST(GPUReliability, ScalarExpAndLogRun) {
  REQUIRE_GPU();
  static auto kernel =
      jit("row_logsumexp", row_logsumexp, {"out", "in", "n", "BLOCK"});
  int64_t rows = 5, n = 100;
  std::vector<float> host(rows * n);
  for (size_t i = 0; i < host.size(); ++i)
    host[i] = float(int(i % 17) - 8) / 3.0f;
  DeviceBuffer<float> in(host), out(rows);
  ASSERT_LAUNCH_OK(*kernel, gpuOptions({int(rows)}),
                   {out.arg(), in.arg(), int32_t(n), Constexpr(128)});
  ASSERT_SYNC_OK();
  std::vector<float> result(rows);
  ASSERT_EQ(out.download(result), "");
  for (int64_t r = 0; r < rows; ++r) {
    double m = -INFINITY, sum = 0;
    for (int64_t c = 0; c < n; ++c)
      m = std::max(m, double(host[r * n + c]));
    for (int64_t c = 0; c < n; ++c)
      sum += std::exp(host[r * n + c] - m);
    // exp(lse - m) = sum of exp(x - m).
    EXPECT_NEAR(result[r], sum, 1e-5 * sum) << "row " << r;
  }
}

} // namespace
