//===- CPUKernelTest.cpp - kernels JIT-compiled and run on the CPU backend ===//
//
// End-to-end: every test launches DSL kernels with target = CPU and compares
// the results with plain C++ references (double precision for softmax).
// Tolerances: fp32 max abs error <= 1e-6, fp16 <= 2e-3, bf16 <= 1e-2 (on the
// output converted to float); integer results and exactly representable sums
// must match exactly.
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/Kernels.h"
#include "examples/kernels/Reference.h"
#include "runtime/CPUExecutor.h"
#include "runtime/KernelCache.h"
#include "runtime/Launch.h"
#include "tests/common/SoftmaxChecks.h"
#include "tests/common/TileKernel.h"

#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <latch>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace blockjit;
using namespace blockjit::test;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

LaunchOptions cpuOptions(Grid grid) {
  LaunchOptions options;
  options.grid = grid;
  options.target = TargetKind::CPU;
  return options;
}

/// "" on success, else the error's message.
std::string launchError(const KernelDef &kernel, const LaunchOptions &options,
                        llvm::ArrayRef<Arg> args) {
  if (llvm::Error error = launch(kernel, options, args))
    return "error: " + llvm::toString(std::move(error));
  return "";
}

#define EXPECT_LAUNCH_OK(kernel, options, ...)                                 \
  do {                                                                         \
    std::string launchMessage = launchError(kernel, options, __VA_ARGS__);     \
    ASSERT_EQ(launchMessage, "") << "launch failed";                           \
  } while (0)

/// `count` elements whose last one ends exactly at a PROT_NONE page: reading
/// or writing one element past the end faults. A guard page precedes the data
/// pages too.
template <typename T> class GuardedArray {
public:
  explicit GuardedArray(size_t count) : count_(count) {
    page_ = size_t(sysconf(_SC_PAGESIZE));
    size_t bytes = count * sizeof(T);
    size_t dataPages = std::max<size_t>(1, (bytes + page_ - 1) / page_);
    total_ = (dataPages + 2) * page_;
    void *map = mmap(nullptr, total_, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) {
      base_ = nullptr;
      return;
    }
    base_ = static_cast<char *>(map);
    mprotect(base_, page_, PROT_NONE);
    char *end = base_ + (dataPages + 1) * page_;
    mprotect(end, page_, PROT_NONE);
    data_ = reinterpret_cast<T *>(end - bytes);
  }
  ~GuardedArray() {
    if (base_)
      munmap(base_, total_);
  }
  GuardedArray(const GuardedArray &) = delete;
  GuardedArray &operator=(const GuardedArray &) = delete;
  bool ok() const { return base_ != nullptr; }
  T *data() { return data_; }
  T &operator[](size_t i) { return data_[i]; }
  size_t size() const { return count_; }

private:
  size_t count_, page_ = 0, total_ = 0;
  char *base_ = nullptr;
  T *data_ = nullptr;
};

//===----------------------------------------------------------------------===//
// Softmax (examples::softmax) against the double-precision reference
//===----------------------------------------------------------------------===//

struct SoftmaxShape {
  int64_t rows, cols, inStride, outStride;
  int grid;
};

/// Runs the softmax kernel over `input` into `output` (both with the shape's
/// strides); "" or the launch error.
template <typename In, typename Out>
std::string runSoftmax(const SoftmaxShape &s, const In *input, Out *output,
                       int numCTAs = 1) {
  LaunchOptions options = cpuOptions({s.grid});
  options.numCTAs = numCTAs;
  return launchError(*examples::softmax(), options,
                     {output, input, int32_t(s.inStride), int32_t(s.outStride),
                      int32_t(s.rows), int32_t(s.cols),
                      Constexpr(next_power_of_2(s.cols))});
}

/// The whole round trip on std::vectors; output padding (and 32 elements
/// past the end) hold a sentinel that must survive.
template <typename In, typename Out>
void softmaxRoundTrip(const SoftmaxShape &s, unsigned seed = 1,
                      int numCTAs = 1) {
  SCOPED_TRACE(testing::Message()
               << typeName<In>() << "->" << typeName<Out>() << " rows="
               << s.rows << " cols=" << s.cols << " inStride=" << s.inStride
               << " outStride=" << s.outStride << " grid=" << s.grid
               << " num_ctas=" << numCTAs);
  std::vector<In> input = makeSoftmaxInput<In>(s, seed);
  const Out sentinel = fromFloat<Out>(-7.25f);
  const int64_t tail = 32;
  std::vector<Out> output((s.rows - 1) * s.outStride + s.cols + tail, sentinel);
  std::string message = runSoftmax(s, input.data(), output.data(), numCTAs);
  ASSERT_EQ(message, "");
  std::string report;
  double maxError = 0;
  int64_t bad = checkSoftmax(s, input.data(), output.data(), tolerance<Out>,
                             report, &maxError);
  EXPECT_EQ(bad, 0) << "wrong elements (max ok error " << maxError << "):\n"
                    << report;
  int64_t clobbered = 0;
  for (int64_t r = 0; r < s.rows; ++r) {
    int64_t end =
        r + 1 < s.rows ? (r + 1) * s.outStride : int64_t(output.size());
    for (int64_t i = r * s.outStride + s.cols; i < end; ++i)
      clobbered += !sameBits(output[i], sentinel);
  }
  EXPECT_EQ(clobbered, 0) << "output padding / tail elements were written";
}

class CPUSoftmaxTest : public ::testing::TestWithParam<int64_t> {};

TEST_P(CPUSoftmaxTest, F32MatchesReference) {
  int64_t n = GetParam();
  // 37 rows over 5 programs: the persistent loop strides unevenly.
  softmaxRoundTrip<float, float>({37, n, n, n, 5});
}

TEST_P(CPUSoftmaxTest, F32MoreProgramsThanRows) {
  int64_t n = GetParam();
  softmaxRoundTrip<float, float>({3, n, n, n, 8}, 7);
}

TEST_P(CPUSoftmaxTest, PaddedStrides) {
  int64_t n = GetParam();
  softmaxRoundTrip<float, float>({37, n, n + 13, n + 7, 5}, 3);
}

INSTANTIATE_TEST_SUITE_P(CPUWidths, CPUSoftmaxTest,
                         ::testing::Values(1, 2, 3, 127, 128, 129, 781, 1024,
                                           4096, 12288));

TEST(CPUSoftmax, Shape1823x781) {
  softmaxRoundTrip<float, float>(
      {1823, 781, 781, 781, int(std::min<unsigned>(cpuThreadCount(), 16))});
  softmaxRoundTrip<float, float>({1823, 781, 781, 781, 7}, 2);
}

// num_ctas asks the GPU for a cluster per program; the CPU runs each
// program whole, with the same result.
TEST(CPUSoftmax, NumCTAsRunsEachProgramWhole) {
  for (int ctas : {2, 16})
    softmaxRoundTrip<float, float>({37, 32769, 32771, 32769, 5}, 4, ctas);
}

TEST(CPUSoftmax, SingleProgram) {
  softmaxRoundTrip<float, float>({37, 129, 129, 129, 1});
}

TEST(CPUSoftmax, F16) {
  for (int64_t n : {1, 3, 129, 781, 1024, 4096})
    softmaxRoundTrip<half, half>({37, n, n, n, 5});
  softmaxRoundTrip<half, half>({37, 781, 800, 790, 5});
}

TEST(CPUSoftmax, BF16) {
  for (int64_t n : {1, 3, 129, 781, 1024, 4096})
    softmaxRoundTrip<bfloat16, bfloat16>({37, n, n, n, 5});
  softmaxRoundTrip<bfloat16, bfloat16>({37, 781, 800, 790, 5});
}

// The maths is f32 after .to(F32): a 16-bit input written as f32 is exact to
// the fp32 tolerance against the reference on the same 16-bit values.
TEST(CPUSoftmax, MixedF16AndF32) {
  softmaxRoundTrip<half, float>({37, 781, 781, 781, 5});
  softmaxRoundTrip<float, half>({37, 781, 781, 781, 5});
}

TEST(CPUSoftmax, MixedBF16AndF32) {
  softmaxRoundTrip<bfloat16, float>({37, 129, 129, 129, 5});
  softmaxRoundTrip<float, bfloat16>({37, 781, 781, 781, 5});
}

//===----------------------------------------------------------------------===//
// Special values: -inf, large magnitudes, NaN
//===----------------------------------------------------------------------===//

template <typename T> void specialValues(int64_t cols) {
  SCOPED_TRACE(testing::Message() << typeName<T>() << " cols=" << cols);
  SoftmaxShape s{8, cols, cols, cols, 3};
  std::vector<float> values = specialValueRows(cols);

  std::vector<T> input(values.size()), output(values.size(), fromFloat<T>(0));
  for (size_t i = 0; i < values.size(); ++i)
    input[i] = fromFloat<T>(values[i]);
  ASSERT_EQ(runSoftmax(s, input.data(), output.data()), "");
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
  for (int64_t c = 0; c < cols; ++c) {
    EXPECT_TRUE(std::isnan(toDouble(output[4 * cols + c])))
        << "row 4 col " << c;
    EXPECT_TRUE(std::isnan(toDouble(output[6 * cols + c])))
        << "row 6 col " << c;
    EXPECT_FALSE(std::isnan(toDouble(output[7 * cols + c])))
        << "row 7 col " << c;
    EXPECT_FALSE(std::isnan(toDouble(output[2 * cols + c])))
        << "row 2 col " << c;
  }
}

TEST(CPUSoftmaxSpecialValues, F32) {
  for (int64_t cols : {1, 3, 129, 1024, 4097})
    specialValues<float>(cols);
}

TEST(CPUSoftmaxSpecialValues, F16) {
  for (int64_t cols : {3, 129, 1024})
    specialValues<half>(cols);
}

TEST(CPUSoftmaxSpecialValues, BF16) {
  for (int64_t cols : {3, 129, 1024})
    specialValues<bfloat16>(cols);
}

//===----------------------------------------------------------------------===//
// Guard pages: masked tails must not touch memory past the end
//===----------------------------------------------------------------------===//

/// Softmax over inputs and outputs that end at a PROT_NONE page; returns the
/// process exit code to use (0: right answer and no fault).
int guardedSoftmax(int64_t rows, int64_t cols, int64_t inStride,
                   int64_t outStride, int grid) {
  SoftmaxShape s{rows, cols, inStride, outStride, grid};
  std::vector<float> source = makeSoftmaxInput<float>(s, 5);
  GuardedArray<float> input(source.size());
  GuardedArray<float> output((rows - 1) * outStride + cols);
  if (!input.ok() || !output.ok())
    return 3;
  std::copy(source.begin(), source.end(), input.data());
  std::string message = runSoftmax(s, input.data(), output.data());
  if (!message.empty()) {
    std::fprintf(stderr, "%s\n", message.c_str());
    return 2;
  }
  std::string report;
  if (checkSoftmax(s, input.data(), output.data(), 1e-6, report, nullptr)) {
    std::fprintf(stderr, "wrong result:\n%s", report.c_str());
    return 1;
  }
  return 0;
}

int guardedVectorAdd(int64_t n) {
  GuardedArray<float> x(n), y(n), out(n);
  if (!x.ok() || !y.ok() || !out.ok())
    return 3;
  for (int64_t i = 0; i < n; ++i) {
    x[i] = float(i);
    y[i] = 0.5f * float(i);
  }
  std::string message = launchError(
      *examples::vectorAdd(), cpuOptions({int((n + 1023) / 1024)}),
      {x.data(), y.data(), out.data(), int32_t(n), Constexpr(1024)});
  if (!message.empty()) {
    std::fprintf(stderr, "%s\n", message.c_str());
    return 2;
  }
  for (int64_t i = 0; i < n; ++i)
    if (out[i] != x[i] + y[i]) {
      std::fprintf(stderr, "out[%lld] = %g\n", (long long)i, out[i]);
      return 1;
    }
  return 0;
}

class CPUGuardPageDeathTest : public ::testing::Test {
protected:
  void SetUp() override {
    // A fresh process per check: the CPU thread pool does not survive fork.
    GTEST_FLAG_SET(death_test_style, "threadsafe");
  }
};

TEST_F(CPUGuardPageDeathTest, SoftmaxReadsAndWritesStayInBounds) {
  EXPECT_EXIT(std::_Exit(guardedSoftmax(37, 129, 129, 129, 5)),
              ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(std::_Exit(guardedSoftmax(37, 129, 129 + 13, 129 + 7, 5)),
              ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(std::_Exit(guardedSoftmax(5, 1, 1, 1, 2)),
              ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(std::_Exit(guardedSoftmax(9, 781, 781 + 13, 781 + 7, 4)),
              ::testing::ExitedWithCode(0), "");
}

TEST_F(CPUGuardPageDeathTest, VectorAddMaskedTail) {
  EXPECT_EXIT(std::_Exit(guardedVectorAdd(1)), ::testing::ExitedWithCode(0),
              "");
  EXPECT_EXIT(std::_Exit(guardedVectorAdd(1000)), ::testing::ExitedWithCode(0),
              "");
  EXPECT_EXIT(std::_Exit(guardedVectorAdd(100003)),
              ::testing::ExitedWithCode(0), "");
}

//===----------------------------------------------------------------------===//
// vector_add
//===----------------------------------------------------------------------===//

template <typename T> void vectorAddCheck(int64_t n) {
  SCOPED_TRACE(testing::Message() << "n=" << n);
  std::mt19937 rng(n);
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
  const int block = 1024;
  EXPECT_LAUNCH_OK(
      *examples::vectorAdd(), cpuOptions({int((n + block - 1) / block)}),
      {x.data(), y.data(), out.data(), int32_t(n), Constexpr(block)});
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i)
    if (!sameBits<T>(out[i], T(x[i] + y[i])) && ++bad <= 5)
      ADD_FAILURE() << "out[" << i << "] = " << out[i] << ", want "
                    << x[i] + y[i];
  EXPECT_EQ(bad, 0);
  for (int64_t i = n; i < int64_t(out.size()); ++i)
    EXPECT_TRUE(sameBits(out[i], sentinel)) << "wrote past n at " << i;
}

TEST(CPUVectorAdd, F32) {
  for (int64_t n : {1, 1000, 4096, 100003})
    vectorAddCheck<float>(n);
}

TEST(CPUVectorAdd, I32) {
  for (int64_t n : {1, 1000, 4096, 100003})
    vectorAddCheck<int32_t>(n);
}

TEST(CPUVectorAdd, UnalignedPointers) {
  // Pointers that are not 16-byte aligned give another specialization.
  int64_t n = 1000;
  std::vector<float> x(n + 1), y(n + 1), out(n + 2, -1.0f);
  for (int64_t i = 0; i <= n; ++i) {
    x[i] = float(i);
    y[i] = float(2 * i);
  }
  EXPECT_LAUNCH_OK(*examples::vectorAdd(), cpuOptions({1}),
                   {x.data() + 1, y.data() + 1, out.data() + 1, int32_t(n),
                    Constexpr(1024)});
  EXPECT_EQ(out[0], -1.0f);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i + 1], x[i + 1] + y[i + 1]) << i;
  EXPECT_EQ(out[n + 1], -1.0f);
}

//===----------------------------------------------------------------------===//
// A 2-D block kernel: tile transpose and reductions along both axes
//===----------------------------------------------------------------------===//

TEST(CPU2DBlock, TileTransposeAndReductions) {
  for (auto [M, N, BM, BN] : tests::tileShapes()) {
    SCOPED_TRACE(testing::Message()
                 << M << "x" << N << " tiles " << BM << "x" << BN);
    tests::TileData t(M, N, BM, BN);
    std::vector<Arg> args = {t.in.data(),     t.outT.data(),   t.rowMax.data(),
                             t.rowSum.data(), t.colMax.data(), t.colSum.data()};
    llvm::append_range(args, t.tail());
    EXPECT_LAUNCH_OK(tests::tileKernel(), cpuOptions(t.grid()), args);
    t.check();
  }
}

//===----------------------------------------------------------------------===//
// Loop-carried values
//===----------------------------------------------------------------------===//
//
// Loops carrying blocks are checked in a child process (a death-test style
// subprocess that must exit 0): when the compiler corrupts memory while
// lowering them, one test fails instead of the whole test binary aborting.
// Each check returns "" or a description of what went wrong.

/// Runs `check` in a fresh process; the test fails with its report (or the
/// signal that killed it) unless it returns "".
#define EXPECT_CHECK_IN_CHILD(check)                                           \
  do {                                                                         \
    GTEST_FLAG_SET(death_test_style, "threadsafe");                            \
    EXPECT_EXIT(                                                               \
        {                                                                      \
          std::string failures = (check);                                      \
          std::fputs(failures.c_str(), stderr);                                \
          std::_Exit(failures.empty() ? 0 : 1);                                \
        },                                                                     \
        ::testing::ExitedWithCode(0), "")                                      \
        << #check;                                                             \
  } while (0)

/// out[row] = sum(in[row, :n_cols]): a block accumulated over column chunks,
/// then reduced; also counts the iterations with a carried scalar.
void rowsum_kernel(Ptr<float> in, Ptr<float> out, Ptr<int32_t> iterations,
                   Int stride, Int n_cols, Constexpr BLOCK) {
  Int row = program_id(0);
  Tensor row_ptr = in + row * stride;
  std::vector<Tensor> result = for_range(
      0, n_cols, BLOCK,
      {full({BLOCK}, 0.0, DType::F32), full({}, 0, DType::I32)},
      [&](Int start, std::vector<Tensor> carried) -> std::vector<Tensor> {
        Tensor cols = start + arange(0, BLOCK);
        Tensor x = load(row_ptr + cols, cols < n_cols, 0.0);
        return {carried[0] + x, carried[1] + 1};
      });
  store(out + row, sum(result[0], 0));
  store(iterations + row, result[1]);
}

/// A single carried block only.
void rowsum_block_only_kernel(Ptr<float> in, Ptr<float> out, Int stride,
                              Int n_cols, Constexpr BLOCK) {
  Int row = program_id(0);
  Tensor row_ptr = in + row * stride;
  std::vector<Tensor> result = for_range(
      0, n_cols, BLOCK, {full({BLOCK}, 0.0, DType::F32)},
      [&](Int start, std::vector<Tensor> carried) -> std::vector<Tensor> {
        Tensor cols = start + arange(0, BLOCK);
        Tensor x = load(row_ptr + cols, cols < n_cols, 0.0);
        return {carried[0] + x};
      });
  store(out + row, sum(result[0], 0));
}

/// The same sum through a carried scalar only.
void rowsum_scalar_kernel(Ptr<float> in, Ptr<float> out, Int stride, Int n_cols,
                          Constexpr BLOCK) {
  Int row = program_id(0);
  Tensor row_ptr = in + row * stride;
  std::vector<Tensor> result = for_range(
      0, n_cols, BLOCK, {full({}, 0.0, DType::F32)},
      [&](Int start, std::vector<Tensor> carried) -> std::vector<Tensor> {
        Tensor cols = start + arange(0, BLOCK);
        Tensor x = load(row_ptr + cols, cols < n_cols, 0.0);
        return {carried[0] + sum(x, 0)};
      });
  store(out + row, result[0]);
}

const KernelDef &rowsumKernel() {
  static auto kernel =
      jit("rowsum_block_carry", rowsum_kernel,
          {"in", "out", "iterations", "stride", "n_cols", "BLOCK"});
  return *kernel;
}

const KernelDef &rowsumBlockOnlyKernel() {
  static auto kernel = jit("rowsum_block_only", rowsum_block_only_kernel,
                           {"in", "out", "stride", "n_cols", "BLOCK"});
  return *kernel;
}

const KernelDef &rowsumScalarKernel() {
  static auto kernel = jit("rowsum_scalar_carry", rowsum_scalar_kernel,
                           {"in", "out", "stride", "n_cols", "BLOCK"});
  return *kernel;
}

/// Rows of multiples of 1/8 (exact sums), NaN padding, and their sums.
struct RowSumCase {
  int64_t rows = 5, cols, stride;
  std::vector<float> in;
  std::vector<double> want;
  explicit RowSumCase(int64_t cols) : cols(cols), stride(cols + 9) {
    std::mt19937 rng(cols);
    std::uniform_int_distribution<int> k(-64, 64);
    in.assign(rows * stride, std::numeric_limits<float>::quiet_NaN());
    want.assign(rows, 0.0);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        in[r * stride + c] = float(k(rng)) / 8.0f;
        want[r] += in[r * stride + c];
      }
  }
};

constexpr int64_t kRowSumBlock = 128;
const int64_t kRowSumWidths[] = {1, 100, 128, 1000, 4097};

TEST(CPULoopCarried, RowSumThroughCarriedScalar) {
  for (int64_t cols : kRowSumWidths) {
    SCOPED_TRACE(testing::Message() << "cols=" << cols);
    RowSumCase c(cols);
    std::vector<float> out(c.rows, -1.0f);
    EXPECT_LAUNCH_OK(rowsumScalarKernel(), cpuOptions({int(c.rows)}),
                     {c.in.data(), out.data(), int32_t(c.stride), int32_t(cols),
                      Constexpr(kRowSumBlock)});
    for (int64_t r = 0; r < c.rows; ++r)
      EXPECT_NEAR(out[r], c.want[r], 1e-6) << "row " << r;
  }
}

/// One carried block, then a final sum.
std::string rowSumBlockOnlyCheck() {
  std::string failures;
  for (int64_t cols : kRowSumWidths) {
    RowSumCase c(cols);
    std::vector<float> out(c.rows, -1.0f);
    std::string message =
        launchError(rowsumBlockOnlyKernel(), cpuOptions({int(c.rows)}),
                    {c.in.data(), out.data(), int32_t(c.stride), int32_t(cols),
                     Constexpr(kRowSumBlock)});
    if (!message.empty())
      return message + "\n";
    for (int64_t r = 0; r < c.rows; ++r)
      if (!(std::abs(out[r] - c.want[r]) <= 1e-6))
        failures += "cols=" + std::to_string(cols) + " row " +
                    std::to_string(r) + ": got " + std::to_string(out[r]) +
                    ", want " + std::to_string(c.want[r]) + "\n";
  }
  return failures;
}

/// A carried block and a carried scalar (the iteration count).
std::string rowSumBlockAndScalarCheck() {
  std::string failures;
  for (int64_t cols : kRowSumWidths) {
    RowSumCase c(cols);
    std::vector<float> out(c.rows, -1.0f);
    std::vector<int32_t> iterations(c.rows, -1);
    std::string message = launchError(rowsumKernel(), cpuOptions({int(c.rows)}),
                                      {c.in.data(), out.data(),
                                       iterations.data(), int32_t(c.stride),
                                       int32_t(cols), Constexpr(kRowSumBlock)});
    if (!message.empty())
      return message + "\n";
    int32_t wantIterations = int32_t((cols + kRowSumBlock - 1) / kRowSumBlock);
    for (int64_t r = 0; r < c.rows; ++r) {
      if (!(std::abs(out[r] - c.want[r]) <= 1e-6))
        failures += "cols=" + std::to_string(cols) + " row " +
                    std::to_string(r) + ": sum " + std::to_string(out[r]) +
                    ", want " + std::to_string(c.want[r]) + "\n";
      if (iterations[r] != wantIterations)
        failures += "cols=" + std::to_string(cols) + " row " +
                    std::to_string(r) + ": iterations " +
                    std::to_string(iterations[r]) + ", want " +
                    std::to_string(wantIterations) + "\n";
    }
  }
  return failures;
}

TEST(CPULoopCarried, RowSumOverColumnChunksCarriedBlock) {
  EXPECT_CHECK_IN_CHILD(rowSumBlockOnlyCheck());
}

TEST(CPULoopCarried, RowSumCarriedBlockAndScalar) {
  EXPECT_CHECK_IN_CHILD(rowSumBlockAndScalarCheck());
}

/// Two carried blocks where each next value reads the other's old value:
/// (a, b) -> (b, a + b), elementwise Fibonacci.
void fibonacci_kernel(Ptr<int32_t> a_ptr, Ptr<int32_t> b_ptr,
                      Ptr<int32_t> out_a, Ptr<int32_t> out_b, Int steps,
                      Constexpr BLOCK) {
  Tensor offsets = arange(0, BLOCK);
  std::vector<Tensor> result =
      for_range(0, steps, 1, {load(a_ptr + offsets), load(b_ptr + offsets)},
                [&](Int, std::vector<Tensor> c) -> std::vector<Tensor> {
                  return {c[1], c[0] + c[1]};
                });
  store(out_a + offsets, result[0]);
  store(out_b + offsets, result[1]);
}

const KernelDef &fibonacciKernel() {
  static auto kernel =
      jit("fibonacci_carry", fibonacci_kernel,
          {"a_ptr", "b_ptr", "out_a", "out_b", "steps", "BLOCK"});
  return *kernel;
}

std::string fibonacciCheck() {
  const int block = 16;
  std::vector<int32_t> a(block), b(block);
  for (int i = 0; i < block; ++i) {
    a[i] = i;
    b[i] = 100 - 3 * i;
  }
  std::string failures;
  int bad = 0;
  for (int steps : {0, 1, 2, 5, 10}) {
    std::vector<int32_t> outA(block, -1), outB(block, -1);
    std::string message =
        launchError(fibonacciKernel(), cpuOptions({1}),
                    {a.data(), b.data(), outA.data(), outB.data(),
                     int32_t(steps), Constexpr(block)});
    if (!message.empty())
      return message + "\n";
    for (int i = 0; i < block; ++i) {
      int64_t x = a[i], y = b[i];
      for (int s = 0; s < steps; ++s) {
        int64_t next = x + y;
        x = y;
        y = next;
      }
      if ((outA[i] != x || outB[i] != y) && ++bad <= 4)
        failures += "steps=" + std::to_string(steps) + " lane " +
                    std::to_string(i) + ": got (" + std::to_string(outA[i]) +
                    ", " + std::to_string(outB[i]) + "), want (" +
                    std::to_string(x) + ", " + std::to_string(y) + ")\n";
    }
  }
  if (bad > 4)
    failures += "... " + std::to_string(bad) + " wrong (steps, lane) pairs\n";
  return failures;
}

TEST(CPULoopCarried, TwoBlocksReadingEachOthersOldValue) {
  EXPECT_CHECK_IN_CHILD(fibonacciCheck());
}

/// Softmax of long rows in chunks with an online (running) max and sum: two
/// carried blocks, the new sum rescaled by exp(old max - new max).
void online_softmax_kernel(Ptr<float> out, Ptr<float> in, Int stride,
                           Int n_cols, Constexpr BLOCK) {
  Int row = program_id(0);
  Tensor row_in = in + row * stride;
  Tensor row_out = out + row * stride;
  std::vector<Tensor> ml = for_range(
      0, n_cols, BLOCK,
      {full({BLOCK}, -1e30, DType::F32), full({BLOCK}, 0.0, DType::F32)},
      [&](Int start, std::vector<Tensor> c) -> std::vector<Tensor> {
        Tensor cols = start + arange(0, BLOCK);
        Tensor x = load(row_in + cols, cols < n_cols, -INFINITY);
        Tensor m_new = maximum(c[0], x);
        Tensor l_new = c[1] * exp(c[0] - m_new) + exp(x - m_new);
        return {m_new, l_new};
      });
  Tensor m = max(ml[0], 0);
  Tensor l = sum(ml[1] * exp(ml[0] - m), 0);
  for_range(0, n_cols, BLOCK, [&](Int start) {
    Tensor cols = start + arange(0, BLOCK);
    Tensor mask = cols < n_cols;
    Tensor x = load(row_in + cols, mask, -INFINITY);
    store(row_out + cols, exp(x - m) / l, mask);
  });
}

const KernelDef &onlineSoftmaxKernel() {
  static auto kernel = jit("online_softmax", online_softmax_kernel,
                           {"out", "in", "stride", "n_cols", "BLOCK"});
  return *kernel;
}

std::string onlineSoftmaxCheck() {
  std::string failures;
  for (int64_t cols : {100, 256, 1000, 4097}) {
    SoftmaxShape s{6, cols, cols, cols, 6};
    std::vector<float> in = makeSoftmaxInput<float>(s, 9);
    // Row maxima that grow from chunk to chunk.
    for (int64_t c = 0; c < cols; ++c) {
      in[0 * cols + c] = float(c) * 0.01f;
      in[1 * cols + c] = float(c % 200) * 0.05f + float(c / 200);
    }
    std::vector<float> out(in.size(), -1.0f);
    std::string message = launchError(
        onlineSoftmaxKernel(), cpuOptions({int(s.rows)}),
        {out.data(), in.data(), int32_t(cols), int32_t(cols), Constexpr(64)});
    if (!message.empty())
      return message + "\n";
    std::string report;
    if (int64_t bad =
            checkSoftmax(s, in.data(), out.data(), 1e-6, report, nullptr))
      failures += "cols=" + std::to_string(cols) + ": " + std::to_string(bad) +
                  " wrong elements\n" + report;
  }
  return failures;
}

TEST(CPULoopCarried, OnlineSoftmaxRunningMaxAndSum) {
  EXPECT_CHECK_IN_CHILD(onlineSoftmaxCheck());
}

//===----------------------------------------------------------------------===//
// Runtime behaviour: argument checks, errors, the cache, dumps, threads
//===----------------------------------------------------------------------===//

void scale_kernel(Ptr<float> x, Ptr<float> y, Int n, Float factor,
                  Constexpr BLOCK) {
  Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
  Tensor mask = offsets < n;
  store(y + offsets, load(x + offsets, mask) * factor, mask);
}

const KernelDef &scaleKernel() {
  static auto kernel =
      jit("scale_f32", scale_kernel, {"x", "y", "n", "factor", "BLOCK"});
  return *kernel;
}

TEST(CPURuntime, ScaleKernelWithFloatScalar) {
  std::vector<float> x(300), y(300, 0.0f);
  for (int i = 0; i < 300; ++i)
    x[i] = float(i) - 150.0f;
  EXPECT_LAUNCH_OK(scaleKernel(), cpuOptions({3}),
                   {x.data(), y.data(), int32_t(300), 2.5f, Constexpr(128)});
  for (int i = 0; i < 300; ++i)
    ASSERT_EQ(y[i], x[i] * 2.5f) << i;
}

// exp of a masked row whose padding is `other`: the padding's exp joins
// the sum once per padding element. The CPU loops add it in one step where
// adding it once leaves the sum unchanged (exp(-inf) = 0), else per element
// (exp(0) = 1, exp(1) = e); both must give what every element would.
template <int Other> void padded_exp_sum_kernel(Ptr<float> x, Ptr<float> y,
                                                Int n, Constexpr BLOCK) {
  Tensor offsets = arange(0, BLOCK);
  Tensor mask = offsets < n;
  double other = Other < 0 ? -INFINITY : double(Other);
  Tensor e = exp(load(x + offsets, mask, other));
  store(y + offsets, e / sum(e, 0), mask);
}

TEST(CPURuntime, PaddingJoinsTheSumOncePerElement) {
  static auto negInf = jit("padded_exp_sum_ninf", padded_exp_sum_kernel<-1>,
                           {"x", "y", "n", "BLOCK"});
  static auto zero = jit("padded_exp_sum_zero", padded_exp_sum_kernel<0>,
                         {"x", "y", "n", "BLOCK"});
  static auto one = jit("padded_exp_sum_one", padded_exp_sum_kernel<1>,
                        {"x", "y", "n", "BLOCK"});
  constexpr int kBlock = 1024;
  for (int n : {781, 1, 1023, 1024}) {
    std::vector<float> x(n);
    for (int i = 0; i < n; ++i)
      x[i] = float((i * 37) % 101) / 17.0f - 3.0f;
    for (auto [kernel, other] :
         {std::pair{&negInf, -INFINITY}, std::pair{&zero, 0.0f},
          std::pair{&one, 1.0f}}) {
      std::vector<float> y(n, 0.0f);
      EXPECT_LAUNCH_OK(**kernel, cpuOptions({1}),
                       {x.data(), y.data(), int32_t(n), Constexpr(kBlock)});
      double sum = (kBlock - n) * std::exp(double(other));
      for (float v : x)
        sum += std::exp(double(v));
      for (int i = 0; i < n; ++i)
        ASSERT_NEAR(y[i], std::exp(double(x[i])) / sum,
                    2e-6 * std::exp(double(x[i])) / sum)
            << "n " << n << " other " << other << " i " << i;
    }
  }
}

TEST(CPURuntime, WrongArgumentCount) {
  std::vector<float> x(16), y(16), out(16);
  std::string message =
      launchError(*examples::vectorAdd(), cpuOptions({1}),
                  {x.data(), y.data(), out.data(), int32_t(16)});
  EXPECT_TRUE(contains(message, "vector_add")) << message;
  EXPECT_TRUE(contains(message, "takes 5 arguments, got 4")) << message;
}

TEST(CPURuntime, PointerWhereScalarExpected) {
  std::vector<float> x(16), y(16), out(16);
  std::string message =
      launchError(*examples::vectorAdd(), cpuOptions({1}),
                  {x.data(), y.data(), out.data(), out.data(), Constexpr(16)});
  EXPECT_TRUE(contains(message, "vector_add")) << message;
  EXPECT_TRUE(contains(message, "n_elements")) << message;
  EXPECT_TRUE(contains(message, "#3")) << message;
  EXPECT_TRUE(contains(message, "got a pointer")) << message;
}

TEST(CPURuntime, ScalarWherePointerExpected) {
  std::vector<float> x(16), out(16);
  std::string message = launchError(
      *examples::vectorAdd(), cpuOptions({1}),
      {x.data(), int32_t(5), out.data(), int32_t(16), Constexpr(16)});
  EXPECT_TRUE(contains(message, "vector_add")) << message;
  EXPECT_TRUE(contains(message, "y_ptr")) << message;
  EXPECT_TRUE(contains(message, "pointer")) << message;
}

TEST(CPURuntime, WrongPointeeType) {
  std::vector<half> x(16);
  std::vector<float> y(16);
  std::string message =
      launchError(scaleKernel(), cpuOptions({1}),
                  {x.data(), y.data(), int32_t(16), 1.0f, Constexpr(16)});
  EXPECT_TRUE(contains(message, "scale_f32")) << message;
  EXPECT_TRUE(contains(message, "'x'")) << message;
  EXPECT_TRUE(contains(message, "f32")) << message;
  EXPECT_TRUE(contains(message, "f16")) << message;
}

TEST(CPURuntime, IntWhereFloatScalarExpected) {
  std::vector<float> x(16), y(16);
  std::string message =
      launchError(scaleKernel(), cpuOptions({1}),
                  {x.data(), y.data(), int32_t(16), int32_t(2), Constexpr(16)});
  EXPECT_TRUE(contains(message, "scale_f32")) << message;
  EXPECT_TRUE(contains(message, "factor")) << message;
}

TEST(CPURuntime, ZeroSizedGrid) {
  std::vector<float> x(16), y(16), out(16);
  for (Grid grid :
       {Grid{0, 1, 1}, Grid{1, 0, 1}, Grid{1, 1, 0}, Grid{-1, 1, 1}}) {
    std::string message = launchError(
        *examples::vectorAdd(), cpuOptions(grid),
        {x.data(), y.data(), out.data(), int32_t(16), Constexpr(16)});
    EXPECT_TRUE(contains(message, "vector_add")) << message;
    EXPECT_TRUE(contains(message, "grid")) << message;
  }
}

void bad_arange_kernel(Ptr<float> x, Constexpr BLOCK) {
  store(x + arange(0, BLOCK), 1.0);
}

TEST(CPURuntime, TraceErrorIsReturnedEveryTime) {
  static auto kernel = jit("bad_arange", bad_arange_kernel, {"x", "BLOCK"});
  std::vector<float> x(3, 0.0f);
  for (int attempt = 0; attempt < 2; ++attempt) {
    SCOPED_TRACE(attempt);
    std::string message =
        launchError(*kernel, cpuOptions({1}), {x.data(), Constexpr(3)});
    EXPECT_TRUE(contains(message, "bad_arange")) << message;
    EXPECT_TRUE(contains(message, "power of two")) << message;
    EXPECT_TRUE(contains(message, "CPUKernelTest.cpp")) << message;
  }
  EXPECT_EQ(x, std::vector<float>(3, 0.0f));
  // The same kernel with a valid constexpr still works.
  std::vector<float> y(4, 0.0f);
  EXPECT_LAUNCH_OK(*kernel, cpuOptions({1}), {y.data(), Constexpr(4)});
  EXPECT_EQ(y, std::vector<float>(4, 1.0f));
}

void shape_mismatch_kernel(Ptr<float> x) {
  store(x + arange(0, 16), arange(0, 16) + arange(0, 32));
}

TEST(CPURuntime, ShapeMismatchIsAnError) {
  static auto kernel = jit("shape_mismatch", shape_mismatch_kernel, {"x"});
  std::vector<float> x(32, 0.0f);
  std::string first = launchError(*kernel, cpuOptions({1}), {x.data()});
  std::string second = launchError(*kernel, cpuOptions({1}), {x.data()});
  EXPECT_TRUE(contains(first, "shape_mismatch")) << first;
  EXPECT_EQ(first, second);
}

TEST(CPURuntime, SecondLaunchDoesNotRecompile) {
  static auto kernel =
      jit("cache_probe", scale_kernel, {"x", "y", "n", "factor", "BLOCK"});
  std::vector<float> x(100, 1.0f), y(100, 0.0f);
  auto options = cpuOptions({1});
  std::vector<Arg> args = {x.data(), y.data(), int32_t(100), 3.0f,
                           Constexpr(128)};
  EXPECT_LAUNCH_OK(*kernel, options, args);
  auto key = specializationFor(*kernel, options, args);
  ASSERT_TRUE(bool(key)) << llvm::toString(key.takeError());
  auto first = KernelCache::instance().get(*kernel, *key);
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  const CompiledKernel *firstAddress = &*first;
  EXPECT_GT(firstAddress->compileMilliseconds, 0.0);
  auto loaded = firstAddress->loaded(0);
  ASSERT_TRUE(bool(loaded)) << llvm::toString(loaded.takeError());
  EXPECT_NE(loaded->handle, nullptr);

  std::fill(y.begin(), y.end(), 0.0f);
  EXPECT_LAUNCH_OK(*kernel, options, args);
  EXPECT_EQ(y, std::vector<float>(100, 3.0f));
  auto second = KernelCache::instance().get(*kernel, *key);
  ASSERT_TRUE(bool(second)) << llvm::toString(second.takeError());
  EXPECT_EQ(&*second, firstAddress);
  EXPECT_EQ(second->compileMilliseconds, firstAddress->compileMilliseconds);

  // Another BLOCK_SIZE is another specialization.
  std::vector<Arg> args64 = {x.data(), y.data(), int32_t(100), 3.0f,
                             Constexpr(64)};
  std::fill(y.begin(), y.end(), 0.0f);
  EXPECT_LAUNCH_OK(*kernel, cpuOptions({2}), args64);
  EXPECT_EQ(y, std::vector<float>(100, 3.0f));
  auto key64 = specializationFor(*kernel, cpuOptions({2}), args64);
  ASSERT_TRUE(bool(key64)) << llvm::toString(key64.takeError());
  EXPECT_FALSE(*key64 == *key);
  auto other = KernelCache::instance().get(*kernel, *key64);
  ASSERT_TRUE(bool(other)) << llvm::toString(other.takeError());
  EXPECT_NE(&*other, firstAddress);
  EXPECT_NE(other->keyString, firstAddress->keyString);
  EXPECT_TRUE(contains(other->keyString, "BLOCK=64")) << other->keyString;
  EXPECT_TRUE(contains(firstAddress->keyString, "BLOCK=128"))
      << firstAddress->keyString;
}

/// Removes the regular files in `dir` (made by mkdtemp), then `dir`.
void removeTempDir(const std::string &dir) {
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *entry = readdir(d)) {
      std::string name = entry->d_name;
      if (name == "." || name == ".." || name.find('/') != std::string::npos)
        continue;
      std::string path = dir + "/" + name;
      struct stat info;
      if (lstat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode))
        unlink(path.c_str());
    }
    closedir(d);
  }
  rmdir(dir.c_str());
}

TEST(CPURuntime, DumpDirGetsEveryStage) {
  static auto kernel =
      jit("dump_probe", scale_kernel, {"x", "y", "n", "factor", "BLOCK"});
  char pattern[] = "/tmp/blockjit-cpu-dump-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  std::string dir = pattern;
  KernelCache::instance().clear();
  ASSERT_EQ(setenv("BLOCKJIT_DUMP_DIR", dir.c_str(), 1), 0);
  std::vector<float> x(50, 2.0f), y(50, 0.0f);
  auto options = cpuOptions({1});
  std::vector<Arg> args = {x.data(), y.data(), int32_t(50), 0.5f,
                           Constexpr(64)};
  std::string message = launchError(*kernel, options, args);
  unsetenv("BLOCKJIT_DUMP_DIR");
  EXPECT_EQ(message, "");
  EXPECT_EQ(y, std::vector<float>(50, 1.0f));
  auto key = specializationFor(*kernel, options, args);
  ASSERT_TRUE(bool(key)) << llvm::toString(key.takeError());
  std::string base = key->fileName(kernel->name(), kernel->constexprNames());
  EXPECT_TRUE(contains(base, "dump_probe")) << base;
  for (const char *stage : {"trace", "blk", "loops", "llvm", "llvmir", "asm"}) {
    std::string path = dir + "/" + base + "." + stage;
    struct stat info;
    EXPECT_EQ(stat(path.c_str(), &info), 0) << "missing " << path;
    EXPECT_GT(info.st_size, 0) << path;
  }
  removeTempDir(dir);
}

TEST(CPURuntime, RelaunchAfterCacheClear) {
  // A key compiled before clear() is compiled and loaded again after it.
  std::vector<float> x(2000, 1.5f), y(2000, 2.0f), out(2000, 0.0f);
  std::vector<Arg> args = {x.data(), y.data(), out.data(), int32_t(2000),
                           Constexpr(1024)};
  EXPECT_LAUNCH_OK(*examples::vectorAdd(), cpuOptions({2}), args);
  KernelCache::instance().clear();
  std::fill(out.begin(), out.end(), 0.0f);
  EXPECT_LAUNCH_OK(*examples::vectorAdd(), cpuOptions({2}), args);
  EXPECT_EQ(out, std::vector<float>(2000, 3.5f));
}

TEST(CPURuntime, ConcurrentFirstLaunches) {
  static auto kernel =
      jit("concurrent_probe", scale_kernel, {"x", "y", "n", "factor", "BLOCK"});
  const int threads = 8;
  const int n = 5000;
  std::latch start(threads);
  std::vector<std::string> errors(threads);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      std::vector<float> x(n), y(n, 0.0f);
      for (int i = 0; i < n; ++i)
        x[i] = float(i % 97) + float(t);
      start.arrive_and_wait();
      std::string message =
          launchError(*kernel, cpuOptions({(n + 255) / 256}),
                      {x.data(), y.data(), int32_t(n), 2.0f, Constexpr(256)});
      if (!message.empty()) {
        errors[t] = message;
        return;
      }
      for (int i = 0; i < n; ++i)
        if (y[i] != 2.0f * x[i]) {
          errors[t] = "y[" + std::to_string(i) + "] = " + std::to_string(y[i]);
          return;
        }
    });
  for (std::thread &worker : workers)
    worker.join();
  for (int t = 0; t < threads; ++t)
    EXPECT_EQ(errors[t], "") << "thread " << t;
}

} // namespace

namespace {

/// out[p] += p + 1 for program p (a read and a write: a program run twice
/// or not at all shows).
const std::shared_ptr<KernelDef> &addProgramIdKernel() {
  static auto kernel =
      jit("add_program_id", [](Ptr<int32_t> out, Constexpr ONE) {
        Int p = program_id(0);
        Tensor at = out + p + arange(0, ONE);
        store(at, load(at) + p + 1);
      });
  return kernel;
}

} // namespace

// The pool hands programs out in contiguous chunks and wakes only the
// workers a grid can use: every program still runs exactly once, for grids
// smaller than the threads, of one chunk, of a few, and of many.
TEST(CPUThreadPool, EveryProgramRunsOnceWhateverTheGrid) {
  for (int programs : {1, 2, 3, 7, 64, 1000, 100003}) {
    SCOPED_TRACE(testing::Message() << "programs=" << programs);
    std::vector<int32_t> out(programs, 0);
    for (int round = 0; round < 3; ++round)
      EXPECT_LAUNCH_OK(*addProgramIdKernel(), cpuOptions({programs}),
                       {out.data(), Constexpr(1)});
    for (int p = 0; p < programs; ++p)
      ASSERT_EQ(out[p], 3 * (p + 1)) << "program " << p;
  }
}

// The default thread count is what the process may use, not every core:
// at least one, at most the machine's, and below it under an affinity mask.
TEST(CPUThreadPool, ThreadsFollowTheAffinityMask) {
  unsigned processors = hostProcessors();
  EXPECT_GE(processors, 1u);
  EXPECT_LE(processors, std::max(1u, std::thread::hardware_concurrency()));
#ifdef __linux__
  cpu_set_t saved, one;
  ASSERT_EQ(sched_getaffinity(0, sizeof(saved), &saved), 0);
  CPU_ZERO(&one);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &saved)) {
      CPU_SET(cpu, &one);
      break;
    }
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  unsigned pinned = hostProcessors();
  ASSERT_EQ(sched_setaffinity(0, sizeof(saved), &saved), 0);
  EXPECT_EQ(pinned, 1u);
#endif
}
