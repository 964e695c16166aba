//===- SoftmaxRowsGPUTest.cpp - softmax_rows' choice on CUDA --------------===//
//
// On a CUDA device: softmax_rows (examples/kernels/SoftmaxRows.cpp) times
// softmax and softmax_online where softmax holds the row (781 columns on
// strided rows, 65536 on clusters on sm_90, 100003 in bf16 in place), and
// runs softmax_online alone past softmax's block (2^20 + 1, said in the
// choice); every output matches the double reference with -inf, NaN, 3e38
// and an all -inf row. The choices are printed, not asserted: which kernel
// is faster is the device's to say. Skips without a device.
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/Kernels.h"
#include "examples/kernels/Reference.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/Operation.h"
#include "tests/common/RequireGPU.h"
#include "tests/common/RowsInput.h"
#include "tests/common/ScopedCacheDirectory.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace blockjit;

namespace {

/// Runs a fresh softmax_rows over rowsInput(rows, cols, stride) in `dtype`
/// (F32 or BF16, in and out) and checks it within abs + rel * |want|.
/// Returns the choice.
OperationChoice runAndCheck(int64_t rows, int64_t cols, int64_t stride,
                            DType dtype, bool inPlace = false) {
  std::vector<float> x = rowsInput(rows, cols, stride);
  bool bf16 = dtype == DType::BF16;
  std::vector<bfloat16> xb(bf16 ? x.size() : 0);
  for (size_t i = 0; i < xb.size(); ++i) {
    xb[i] = bfloat16(x[i]);
    x[i] = float(xb[i]);
  }
  auto in = bf16 ? DeviceBuffer::copyOf(TargetKind::CUDA, llvm::ArrayRef(xb))
                 : DeviceBuffer::copyOf(TargetKind::CUDA, llvm::ArrayRef(x));
  auto out =
      DeviceBuffer::allocate(TargetKind::CUDA, x.size() * (bf16 ? 2 : 4));
  if (!in || !out) {
    ADD_FAILURE() << (in ? "" : llvm::toString(in.takeError()))
                  << (out ? "" : llvm::toString(out.takeError()));
    return {};
  }
  const DeviceBuffer &target = inPlace ? *in : *out;
  std::vector<Arg> args = {target.arg(dtype), in->arg(dtype), int32_t(stride),
                           int32_t(stride),   int32_t(rows),  int32_t(cols)};
  Operation op(examples::softmaxRows().spec());
  auto choice = op.choose(onGPU(), args);
  EXPECT_TRUE(bool(choice)) << llvm::toString(choice.takeError());
  if (!choice)
    return {};
  EXPECT_FALSE(bool(op.run(onGPU(), args)));
  EXPECT_FALSE(bool(cudaExecutor().synchronize(0)));
  std::vector<double> got(x.size());
  if (bf16) {
    std::vector<bfloat16> result(x.size());
    EXPECT_FALSE(bool(target.download(result)));
    for (size_t i = 0; i < got.size(); ++i)
      got[i] = float(result[i]);
  } else {
    std::vector<float> result(x.size());
    EXPECT_FALSE(bool(target.download(result)));
    got.assign(result.begin(), result.end());
  }
  std::vector<double> want(x.size());
  examples::referenceSoftmax(x.data(), want.data(), rows, cols, stride, stride,
                             [](float v) { return double(v); });
  // bf16: one ulp (2^-8 relative) of the output's rounding.
  double rel = bf16 ? 1.0 / 128 : 1e-5;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      double g = got[r * stride + c], w = want[r * stride + c];
      if (std::isnan(w)) {
        EXPECT_TRUE(std::isnan(g)) << r << "," << c;
        if (!std::isnan(g))
          return **choice;
      } else if (std::abs(g - w) > 1e-6 + rel * std::abs(w)) {
        ADD_FAILURE() << rows << "x" << cols << " at " << r << "," << c << ": "
                      << g << " vs " << w;
        return **choice;
      }
    }
  const OperationChoice &chosen = **choice;
  std::string timings;
  for (auto &[name, ms] : chosen.timings)
    timings += " " + name + " " + std::to_string(ms) + " ms";
  std::printf(
      "softmax_rows %lldx%lld %s: chose %s;%s\n", (long long)rows,
      (long long)cols, bf16 ? "bf16" : "f32",
      examples::softmaxRows().spec().algorithms[chosen.algorithm].name.c_str(),
      timings.c_str());
  return chosen;
}

} // namespace

TEST(GPUSoftmaxRows, TimesBothWhereSoftmaxHoldsTheRow) {
  REQUIRE_GPU();
  ScopedCacheDirectory cache;
  EXPECT_EQ(runAndCheck(1823, 781, 800, DType::F32).timings.size(), 2u);
  EXPECT_EQ(runAndCheck(64, 65536, 65536, DType::F32).timings.size(), 2u);
  EXPECT_EQ(runAndCheck(8, 100003, 100003, DType::BF16, /*inPlace=*/true)
                .timings.size(),
            2u);
}

TEST(GPUSoftmaxRows, LongerRowsThanSoftmaxHoldsRunOnline) {
  REQUIRE_GPU();
  ScopedCacheDirectory cache;
  const int64_t cols = examples::kSoftmaxMaxBlock + 1;
  OperationChoice choice = runAndCheck(5, cols, cols + 4, DType::F32);
  ASSERT_EQ(choice.skipped.size(), 1u);
  EXPECT_EQ(choice.skipped[0].first, "softmax");
  EXPECT_EQ(choice.algorithm, 1u);
}
