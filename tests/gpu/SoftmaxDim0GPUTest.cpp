//===- SoftmaxDim0GPUTest.cpp - softmax_dim0's choice on CUDA ------------===//
//
// On a CUDA device: softmax_dim0 (examples/kernels/SoftmaxDim0.cpp) times
// both algorithms on the caller's stream and runs the faster, whose output
// matches the double reference (strided rows, -inf/NaN/large values, tall
// and odd shapes, bf16 in and out); a new operation reads the choice back
// from the disk; each algorithm alone matches; in place; a prepared
// operation takes new pointers. Skips without a device.
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/Kernels.h"
#include "examples/kernels/ReferenceFamily.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/Operation.h"
#include "tests/common/ColumnsInput.h"
#include "tests/common/RequireGPU.h"
#include "tests/common/ScopedCacheDirectory.h"
#include "tests/common/ScopedEnv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace blockjit;

namespace {

/// Checks `got` (rows x stride, cols written) against softmax over dim 0 of
/// `x` within abs + rel * |want|; the padding keeps `padding`.
void expectColumnsSoftmax(const std::vector<double> &x,
                          const std::vector<double> &got, int64_t rows,
                          int64_t cols, int64_t stride, double abs, double rel,
                          double padding) {
  std::vector<double> want(rows * stride, padding);
  examples::referenceSoftmaxColumns(x.data(), want.data(), rows, cols, stride,
                                    stride, [](double v) { return v; });
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < stride; ++c) {
      double g = got[r * stride + c], w = want[r * stride + c];
      if (std::isnan(w))
        ASSERT_TRUE(std::isnan(g)) << r << "," << c;
      else
        ASSERT_NEAR(g, w, abs + rel * std::abs(w)) << r << "," << c;
    }
}

/// Runs `op` on the GPU over an f32 rows x cols matrix (row stride
/// `stride`) and checks it; `inPlace` writes over the input.
void runAndCheck(Operation &op, int64_t rows, int64_t cols, int64_t stride,
                 bool inPlace = false) {
  std::vector<float> x = columnsInput(rows, cols, stride);
  auto in = DeviceBuffer::copyOf(TargetKind::CUDA, llvm::ArrayRef(x));
  std::vector<float> sentinel(x.size(), -7.0f);
  auto out = DeviceBuffer::copyOf(TargetKind::CUDA, llvm::ArrayRef(sentinel));
  ASSERT_TRUE(in && out);
  const DeviceBuffer &target = inPlace ? *in : *out;
  ASSERT_FALSE(bool(
      op.run(onGPU(), {target.arg<float>(), in->arg<float>(), int32_t(stride),
                       int32_t(stride), int32_t(rows), int32_t(cols)})));
  ASSERT_FALSE(bool(cudaExecutor().synchronize(0)));
  std::vector<float> result(x.size());
  ASSERT_FALSE(bool(target.download(result)));
  std::vector<double> xd(x.begin(), x.end()), got(result.begin(), result.end());
  expectColumnsSoftmax(xd, got, rows, cols, stride, 1e-6, 1e-5,
                       inPlace ? 12345.0 : -7.0);
}

} // namespace

TEST(GPUSoftmaxDim0, TimesBothAndRunsTheFaster) {
  REQUIRE_GPU();
  ScopedCacheDirectory cache;
  Operation op(examples::softmaxDim0().spec());
  runAndCheck(op, 1823, 781, 800);
  EXPECT_EQ(op.choicesTimed(), 1);
  std::vector<float> x = columnsInput(1823, 781, 800);
  auto in = DeviceBuffer::copyOf(TargetKind::CUDA, llvm::ArrayRef(x));
  ASSERT_TRUE(bool(in));
  std::vector<Arg> args = {
      in->arg<float>(), in->arg<float>(), 800, 800, 1823, 781};
  auto choice = op.choose(onGPU(), args);
  ASSERT_TRUE(bool(choice)) << llvm::toString(choice.takeError());
  ASSERT_EQ((*choice)->timings.size(), 2u);
  for (auto &[name, ms] : (*choice)->timings)
    EXPECT_GT(ms, 0.0) << name;
  // A second operation (process) reads the choice from the disk.
  Operation again(examples::softmaxDim0().spec());
  auto kept = again.choose(onGPU(), args);
  ASSERT_TRUE(bool(kept)) << llvm::toString(kept.takeError());
  EXPECT_TRUE((*kept)->fromDiskCache);
  EXPECT_EQ((*kept)->algorithm, (*choice)->algorithm);
  EXPECT_EQ(again.choicesTimed(), 0);
}

TEST(GPUSoftmaxDim0, TallOddAndInPlace) {
  REQUIRE_GPU();
  ScopedCacheDirectory cache;
  Operation op(examples::softmaxDim0().spec());
  runAndCheck(op, 32769, 33, 33);
  runAndCheck(op, 65537, 5, 8);
  runAndCheck(op, 4097, 1025, 1025, /*inPlace=*/true);
}

namespace {

/// softmax_dim0 with algorithm `name` forced (run untimed).
void expectAlgorithmMatches(const std::string &name) {
  ScopedCacheDirectory cache;
  ScopedEnv off("BLOCKJIT_AUTOTUNE", "0");
  OperationSpec forced = examples::softmaxDim0().spec();
  size_t index = 0;
  while (index < forced.algorithms.size() &&
         forced.algorithms[index].name != name)
    ++index;
  ASSERT_LT(index, forced.algorithms.size()) << name;
  forced.untimed = [index](llvm::ArrayRef<Arg>, TargetKind) { return index; };
  Operation op(std::move(forced));
  runAndCheck(op, 1823, 781, 800);
  runAndCheck(op, 32769, 100, 100);
}

} // namespace

// Each algorithm alone (synccheck runs the split's: the one launch's
// 16-CTA clusters over more than 7 clusters trip a synccheck fault that a
// kernel without blockjit code reproduces, docs/RELIABILITY.md).
TEST(GPUSoftmaxDim0, OneLaunchMatches) {
  REQUIRE_GPU();
  expectAlgorithmMatches("softmax_columns");
}

TEST(GPUSoftmaxDim0, SplitMatches) {
  REQUIRE_GPU();
  expectAlgorithmMatches("softmax_columns_split");
}

TEST(GPUSoftmaxDim0, Bf16InAndOut) {
  REQUIRE_GPU();
  ScopedCacheDirectory cache;
  const int64_t rows = 4097, cols = 781;
  std::vector<float> x = columnsInput(rows, cols, cols);
  std::vector<bfloat16> xb(x.size());
  std::vector<double> xd(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    xb[i] = bfloat16(x[i]);
    xd[i] = float(xb[i]);
  }
  auto in = DeviceBuffer::copyOf(TargetKind::CUDA, llvm::ArrayRef(xb));
  auto out = DeviceBuffer::allocate(TargetKind::CUDA, xb.size() * 2);
  ASSERT_TRUE(in && out);
  ASSERT_FALSE(bool(examples::softmaxDim0().run(
      onGPU(), {out->arg(DType::BF16), in->arg(DType::BF16), int32_t(cols),
                int32_t(cols), int32_t(rows), int32_t(cols)})));
  ASSERT_FALSE(bool(cudaExecutor().synchronize(0)));
  std::vector<bfloat16> result(xb.size());
  ASSERT_FALSE(bool(out->download(result)));
  std::vector<double> got(result.size());
  for (size_t i = 0; i < result.size(); ++i)
    got[i] = float(result[i]);
  // One bf16 ulp (2^-8 relative) of the output's rounding, and f32 math.
  expectColumnsSoftmax(xd, got, rows, cols, cols, 1e-6, 1.0 / 128, 0);
}

TEST(GPUSoftmaxDim0, PreparedTakesNewPointers) {
  REQUIRE_GPU();
  ScopedCacheDirectory cache;
  const int64_t rows = 5000, cols = 300;
  std::vector<float> x = columnsInput(rows, cols, cols);
  auto in = DeviceBuffer::copyOf(TargetKind::CUDA, llvm::ArrayRef(x));
  auto out = DeviceBuffer::allocate(TargetKind::CUDA, x.size() * 4);
  auto in2 = DeviceBuffer::copyOf(TargetKind::CUDA, llvm::ArrayRef(x));
  auto out2 = DeviceBuffer::allocate(TargetKind::CUDA, x.size() * 4);
  ASSERT_TRUE(in && out && in2 && out2);
  auto prepared = examples::softmaxDim0().prepare(
      onGPU(), {out->arg<float>(), in->arg<float>(), int32_t(cols),
                int32_t(cols), int32_t(rows), int32_t(cols)});
  ASSERT_TRUE(bool(prepared)) << llvm::toString(prepared.takeError());
  uint64_t values[] = {uint64_t(uintptr_t(out2->data())),
                       uint64_t(uintptr_t(in2->data())),
                       uint64_t(cols),
                       uint64_t(cols),
                       uint64_t(rows),
                       uint64_t(cols)};
  ASSERT_FALSE(bool(prepared->launch(values, nullptr)));
  ASSERT_FALSE(bool(cudaExecutor().synchronize(0)));
  std::vector<float> result(x.size());
  ASSERT_FALSE(bool(out2->download(result)));
  std::vector<double> xd(x.begin(), x.end()), got(result.begin(), result.end());
  expectColumnsSoftmax(xd, got, rows, cols, cols, 1e-6, 1e-5, 0);
}
