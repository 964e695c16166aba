//===- ReliabilityTest.cpp - hostile input at run time --------------------===//
//
// Regression tests of the reliability issue: each launch here once crashed
// or gave a silent wrong answer. It must now work, or fail with a clear
// error that names the argument.
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/Kernels.h"
#include "examples/kernels/Reference.h"
#include "runtime/KernelCache.h"
#include "runtime/Launch.h"
#include "runtime/blockjit_c.h"

#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace blockjit;

namespace {

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

LaunchOptions cpuOptions(int grid) {
  LaunchOptions options;
  options.grid = {grid};
  options.target = TargetKind::CPU;
  return options;
}

std::string launchError(const KernelDef &kernel, const LaunchOptions &options,
                        llvm::ArrayRef<Arg> args) {
  if (llvm::Error error = launch(kernel, options, args))
    return llvm::toString(std::move(error));
  return "";
}

/// Runs the softmax example on the CPU over rows x cols at `stride` and
/// returns the largest error relative to each element of the double
/// reference.
double softmaxRelativeError(const float *in, float *out, int64_t rows,
                            int64_t cols, int64_t stride) {
  std::vector<Arg> args = {out,
                           in,
                           int32_t(stride),
                           int32_t(stride),
                           int32_t(rows),
                           int32_t(cols),
                           Constexpr(next_power_of_2(cols))};
  std::string error = launchError(*examples::softmax(), cpuOptions(2), args);
  EXPECT_EQ(error, "");
  double worst = 0;
  std::vector<double> expected(cols);
  for (int64_t r = 0; r < rows; ++r) {
    examples::referenceSoftmax(in + r * stride, expected.data(), 1, cols, cols,
                               cols, [](float x) { return double(x); });
    for (int64_t c = 0; c < cols; ++c)
      worst = std::max(worst, std::abs(expected[c] - out[r * stride + c]) /
                                  std::max(std::abs(expected[c]), 1e-30));
  }
  return worst;
}

//===----------------------------------------------------------------------===//
// Blocks larger than a thread's stack (CPU scratch arena)
//===----------------------------------------------------------------------===//

// A block of 2^20 f32 (two 4 MiB temporaries) once overflowed the stack.
TEST(LargeBlocks, CPUSoftmaxOfTwoToTheTwentyPlusOne) {
  int64_t rows = 3, cols = (int64_t(1) << 19) + 1; // BLOCK = 2^20
  std::vector<float> in(rows * cols), out(rows * cols, -1.0f);
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (float &x : in)
    x = normal(rng);
  in[5] = -INFINITY;
  in[cols + 17] = 1000.0f;
  EXPECT_LT(softmaxRelativeError(in.data(), out.data(), rows, cols, cols),
            1e-4);
}

// The largest block the compiler accepts runs on the CPU (2^24 f32 is 64 MiB
// a temporary; two rows, so both threads use their arena).
TEST(LargeBlocks, CPUVectorAddAtTheBlockLimit) {
  int64_t n = (int64_t(1) << 24) + 5; // two programs, the second masked
  std::vector<float> x(n), y(n), z(n, -1.0f);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = float(i % 1000);
    y[i] = 0.5f;
  }
  std::vector<Arg> args = {x.data(), y.data(), z.data(), int32_t(n),
                           Constexpr(int64_t(1) << 24)};
  EXPECT_EQ(launchError(*examples::vectorAdd(), cpuOptions(2), args), "");
  for (int64_t i = 0; i < n; i += 4099)
    ASSERT_EQ(z[i], float(i % 1000) + 0.5f) << i;
  EXPECT_EQ(z[n - 1], float((n - 1) % 1000) + 0.5f);
}

TEST(LargeBlocks, BlockAboveTheLimitIsAClearError) {
  std::vector<float> x(16), y(16), z(16);
  std::vector<Arg> args = {x.data(), y.data(), z.data(), int32_t(16),
                           Constexpr(int64_t(1) << 25)};
  std::string error = launchError(*examples::vectorAdd(), cpuOptions(1), args);
  EXPECT_TRUE(contains(error, "vector_add")) << error;
  EXPECT_TRUE(contains(error, "at most 16777216 (2^24) elements")) << error;
}

//===----------------------------------------------------------------------===//
// Offsets of 2^31 elements and more
//===----------------------------------------------------------------------===//

// row * stride = 2 * 2^30 wraps in i32; the pointers must not. The rows lie
// 4 GiB apart in a sparse mapping (only the touched pages are real).
TEST(WideOffsets, CPUSoftmaxRowsFourGiBApart) {
  int64_t rows = 3, cols = 100, stride = int64_t(1) << 30;
  size_t bytes =
      size_t(rows - 1) * stride * sizeof(float) + size_t(cols) * sizeof(float);
  void *memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(memory, MAP_FAILED);
  float *data = static_cast<float *>(memory);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      data[r * stride + c] = float((r + 1) * (c % 13)) / 7.0f;
  // In place: each program reads its row, then overwrites it.
  std::vector<float> expected(rows * cols);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      expected[r * cols + c] = data[r * stride + c];
  std::vector<float> result(rows * cols);
  std::vector<Arg> args = {
      data,          data,          int32_t(stride), int32_t(stride),
      int32_t(rows), int32_t(cols), Constexpr(128)};
  EXPECT_EQ(launchError(*examples::softmax(), cpuOptions(3), args), "");
  std::vector<double> reference(cols);
  for (int64_t r = 0; r < rows; ++r) {
    examples::referenceSoftmax(expected.data() + r * cols, reference.data(), 1,
                               cols, cols, cols,
                               [](float x) { return double(x); });
    for (int64_t c = 0; c < cols; ++c)
      ASSERT_NEAR(data[r * stride + c], reference[c], 1e-6)
          << "row " << r << " col " << c;
  }
  munmap(memory, bytes);
}

//===----------------------------------------------------------------------===//
// Null pointers
//===----------------------------------------------------------------------===//

TEST(NullPointers, NullDataPointerIsAnErrorNamingTheArgument) {
  std::vector<float> in(8, 1.0f);
  std::vector<Arg> args = {static_cast<float *>(nullptr),
                           in.data(),
                           int32_t(8),
                           int32_t(8),
                           int32_t(1),
                           int32_t(8),
                           Constexpr(8)};
  std::string error = launchError(*examples::softmax(), cpuOptions(1), args);
  EXPECT_TRUE(contains(error, "kernel 'softmax': argument #0 'output_ptr' is "
                              "a null pointer"))
      << error;
}

// A kernel that reads `bias` only when `has_bias` is set: null is meant.
void biased_copy(Ptr<float> out, Ptr<float> in, NullablePtr<float> bias,
                 Int has_bias, Int n, Constexpr BLOCK) {
  Tensor offs = arange(0, BLOCK);
  Tensor mask = offs < n;
  Tensor x = load(in + offs, mask, 0.0f);
  Tensor b = load(bias + offs, mask & (offs < has_bias * n), 0.0f);
  store(out + offs, x + b, mask);
}

TEST(NullPointers, NullablePointerMayBeNull) {
  static auto kernel = jit("biased_copy", biased_copy,
                           {"out", "in", "bias", "has_bias", "n", "BLOCK"});
  EXPECT_TRUE(kernel->params()[2].nullable);
  EXPECT_FALSE(kernel->params()[1].nullable);
  std::vector<float> in(10, 2.0f), bias(10, 1.0f), out(10);
  std::vector<Arg> args = {
      out.data(), in.data(),   static_cast<float *>(nullptr),
      int32_t(0), int32_t(10), Constexpr(16)};
  EXPECT_EQ(launchError(*kernel, cpuOptions(1), args), "");
  EXPECT_EQ(out, std::vector<float>(10, 2.0f));
  args[2] = bias.data();
  args[3] = int32_t(1);
  EXPECT_EQ(launchError(*kernel, cpuOptions(1), args), "");
  EXPECT_EQ(out, std::vector<float>(10, 3.0f));
}

//===----------------------------------------------------------------------===//
// The C ABI with bad arguments
//===----------------------------------------------------------------------===//

blockjit_launch_options cOptions() {
  blockjit_launch_options options = {};
  options.grid[0] = 1;
  options.target = BLOCKJIT_TARGET_CPU;
  return options;
}

/// vector_add(x, y, out, n = 4; BLOCK = 4)'s arguments through the C ABI.
struct VectorAddCArgs {
  std::vector<float> x = std::vector<float>(4), y = x, z = x;
  blockjit_arg args[5] = {};
  VectorAddCArgs() {
    float *ptrs[3] = {x.data(), y.data(), z.data()};
    for (int i = 0; i < 3; ++i) {
      args[i].kind = BLOCKJIT_ARG_POINTER;
      args[i].dtype = BLOCKJIT_F32;
      args[i].value.pointer = ptrs[i];
    }
    args[3].kind = BLOCKJIT_ARG_I32;
    args[3].value.i32 = 4;
    args[4].kind = BLOCKJIT_ARG_CONSTEXPR;
    args[4].value.i64 = 4;
  }
};

TEST(CABI, NullArgsArrayWithArguments) {
  blockjit_launch_options options = cOptions();
  EXPECT_EQ(blockjit_launch("softmax", nullptr, 7, &options), 1);
  std::string error = blockjit_last_error();
  EXPECT_TRUE(contains(error, "args is NULL but num_args is 7")) << error;
}

TEST(CABI, NegativeArgumentCount) {
  blockjit_launch_options options = cOptions();
  blockjit_arg arg = {};
  EXPECT_EQ(blockjit_launch("softmax", &arg, -3, &options), 1);
  EXPECT_TRUE(contains(blockjit_last_error(), "num_args is negative"))
      << blockjit_last_error();
}

TEST(CABI, NullDataPointers) {
  blockjit_launch_options options = cOptions();
  std::vector<float> in(8, 1.0f);
  blockjit_arg args[7] = {};
  args[0].kind = BLOCKJIT_ARG_POINTER;
  args[0].dtype = BLOCKJIT_F32;
  args[0].value.pointer = nullptr;
  args[1].kind = BLOCKJIT_ARG_POINTER;
  args[1].dtype = BLOCKJIT_F32;
  args[1].value.pointer = in.data();
  for (int i = 2; i < 6; ++i) {
    args[i].kind = BLOCKJIT_ARG_I32;
    args[i].value.i32 = i == 4 ? 4 : 8; // n_rows = 4 > 0
  }
  args[6].kind = BLOCKJIT_ARG_CONSTEXPR;
  args[6].value.i64 = 8;
  EXPECT_EQ(blockjit_launch("softmax", args, 7, &options), 1);
  EXPECT_TRUE(contains(blockjit_last_error(), "'output_ptr' is a null pointer"))
      << blockjit_last_error();
  args[0].value.pointer = in.data();
  args[1].value.pointer = nullptr;
  EXPECT_EQ(blockjit_launch("softmax", args, 7, &options), 1);
  EXPECT_TRUE(contains(blockjit_last_error(), "'input_ptr' is a null pointer"))
      << blockjit_last_error();
}

TEST(CABI, NegativeGridIsAnError) {
  blockjit_launch_options options = cOptions();
  options.grid[0] = -1;
  VectorAddCArgs vectorAdd;
  blockjit_arg *args = vectorAdd.args;
  EXPECT_EQ(blockjit_launch("vector_add", args, 5, &options), 1);
  EXPECT_TRUE(contains(blockjit_last_error(), "must be positive"))
      << blockjit_last_error();
}

TEST(CABI, LaunchOptionsSizeIsTheHeaders) {
  EXPECT_EQ(blockjit_launch_options_size(),
            int32_t(sizeof(blockjit_launch_options)));
}

// A value outside its enum is a caller's bug (an uninitialized field, a
// mismatched header): an error naming the field and its values, for a kernel
// launch, an operation, and a prepared launch alike, never a default.
TEST(CABI, OptionOutsideItsEnumIsAnError) {
  VectorAddCArgs vectorAdd;
  blockjit_arg *args = vectorAdd.args;
  blockjit_launch_options options = cOptions();
  ASSERT_EQ(blockjit_launch("vector_add", args, 5, &options), 0)
      << blockjit_last_error();
  options.load_eviction = 3;
  EXPECT_EQ(blockjit_launch("vector_add", args, 5, &options), 1);
  EXPECT_TRUE(contains(blockjit_last_error(),
                       "load_eviction 3 is not a blockjit_eviction"))
      << blockjit_last_error();
  options = cOptions();
  options.store_eviction = -1;
  blockjit_prepared *prepared = nullptr;
  EXPECT_EQ(blockjit_prepare("vector_add", args, 5, &options, &prepared), 1);
  EXPECT_EQ(prepared, nullptr);
  EXPECT_TRUE(contains(blockjit_last_error(),
                       "store_eviction -1 is not a blockjit_eviction"))
      << blockjit_last_error();
  options = cOptions();
  options.target = 7;
  EXPECT_EQ(blockjit_launch("vector_add", args, 5, &options), 1);
  EXPECT_TRUE(
      contains(blockjit_last_error(), "target 7 is not a blockjit_target"))
      << blockjit_last_error();
  // An operation's launch reads the same options.
  std::vector<float> in(8, 1.0f), out(8);
  blockjit_arg dim0[6] = {};
  dim0[0].kind = dim0[1].kind = BLOCKJIT_ARG_POINTER;
  dim0[0].dtype = dim0[1].dtype = BLOCKJIT_F32;
  dim0[0].value.pointer = out.data();
  dim0[1].value.pointer = in.data();
  for (int i = 2; i < 6; ++i) {
    dim0[i].kind = BLOCKJIT_ARG_I32;
    dim0[i].value.i32 = i < 4 ? 4 : 2 + (i - 4) * 2; // strides 4, 2 x 4
  }
  options = cOptions();
  options.load_eviction = 9;
  EXPECT_EQ(blockjit_launch("softmax_dim0", dim0, 6, &options), 1);
  EXPECT_TRUE(contains(blockjit_last_error(),
                       "load_eviction 9 is not a blockjit_eviction"))
      << blockjit_last_error();
}

// A register cap reaches the launch: in range it runs (the CPU ignores it),
// out of range it is an error naming the range on every target.
TEST(CABI, RegisterCapOutOfRangeIsAnError) {
  VectorAddCArgs vectorAdd;
  blockjit_arg *args = vectorAdd.args;
  blockjit_launch_options options = cOptions();
  options.max_registers = 64;
  EXPECT_EQ(blockjit_launch("vector_add", args, 5, &options), 0)
      << blockjit_last_error();
  for (int32_t cap : {8, 256}) {
    options.max_registers = cap;
    EXPECT_EQ(blockjit_launch("vector_add", args, 5, &options), 1);
    EXPECT_TRUE(contains(blockjit_last_error(),
                         "max_registers must be 0 (no cap) or in 24..255, "
                         "got " +
                             std::to_string(cap)))
        << blockjit_last_error();
  }
}

//===----------------------------------------------------------------------===//
// BLOCKJIT_DUMP_DIR that cannot be written
//===----------------------------------------------------------------------===//

void twice(Ptr<float> x, Int n, Constexpr BLOCK) {
  Tensor offs = arange(0, BLOCK);
  store(x + offs, load(x + offs, offs < n) * 2.0f, offs < n);
}

TEST(DumpDir, UnwritableDirectoryWarnsOnce) {
  static auto kernel = jit("dump_unwritable", twice, {"x", "n", "BLOCK"});
  // A regular file in the path: no directory can be made under it.
  char pattern[] = "/tmp/blockjit-dumpfile-XXXXXX";
  int fd = mkstemp(pattern);
  ASSERT_GE(fd, 0);
  close(fd);
  std::string dir = std::string(pattern) + "/dumps";
  KernelCache::instance().clear();
  ASSERT_EQ(setenv("BLOCKJIT_DUMP_DIR", dir.c_str(), 1), 0);
  std::vector<float> x(8, 1.0f);
  testing::internal::CaptureStderr();
  std::string error =
      launchError(*kernel, cpuOptions(1), {x.data(), int32_t(8), Constexpr(8)});
  std::string warnings = testing::internal::GetCapturedStderr();
  unsetenv("BLOCKJIT_DUMP_DIR");
  unlink(pattern);
  EXPECT_EQ(error, ""); // the launch itself works
  EXPECT_EQ(x, std::vector<float>(8, 2.0f));
  EXPECT_TRUE(contains(warnings, "BLOCKJIT_DUMP_DIR: cannot write " + dir))
      << warnings;
  // One warning, not one per stage.
  EXPECT_EQ(warnings.find("BLOCKJIT_DUMP_DIR"),
            warnings.rfind("BLOCKJIT_DUMP_DIR"))
      << warnings;
}

} // namespace

namespace {

// Issue 12: every C++ integer and float type converts to an Arg (no
// "ambiguous conversion" at compile time), and the launch passes the exact
// value or names the parameter it cannot take.
std::shared_ptr<KernelDef> scalarKernel() {
  static auto kernel =
      jit("scalars",
          [](Ptr<float> out, Int n, Int64 big, Float scale) {
            store(out, scale * n.to(DType::F32) + big.to(DType::F32));
          },
          {"out", "n", "big", "scale"});
  return kernel;
}

TEST(ArgumentConversion, EveryIntegerTypeGivesItsExactValue) {
  float out = 0;
  size_t n = 3;
  unsigned long long big = 4;
  short narrow = 3;
  EXPECT_EQ(launchError(*scalarKernel(), cpuOptions(1), {&out, n, big, 2.0f}),
            "");
  EXPECT_EQ(out, 10.0f);
  EXPECT_EQ(launchError(*scalarKernel(), cpuOptions(1),
                        {&out, narrow, uint32_t(1), 1.0f}),
            "");
  EXPECT_EQ(out, 4.0f);
}

TEST(ArgumentConversion, ValuesThatDoNotFitNameTheParameter) {
  float out = 0;
  EXPECT_EQ(launchError(*scalarKernel(), cpuOptions(1),
                        {&out, size_t(1) << 40, 0, 1.0f}),
            "kernel 'scalars': argument #1 'n' is an i32, but 1099511627776 "
            "does not fit");
  EXPECT_EQ(launchError(*scalarKernel(), cpuOptions(1),
                        {&out, 1, ~uint64_t(0), 1.0f}),
            "kernel 'scalars': argument #2 'big' is a i64 scalar, got an "
            "unsigned integer above INT64_MAX");
}

TEST(ArgumentConversion, ADoubleForAFloatParameterIsAnError) {
  float out = 0;
  EXPECT_EQ(launchError(*scalarKernel(), cpuOptions(1), {&out, 1, 0, 2.5}),
            "kernel 'scalars': argument #3 'scale' is a f32 scalar, got an "
            "f64 scalar (pass a float, e.g. 1.5f)");
  EXPECT_EQ(out, 0.0f);
}

} // namespace
