//===- DriverTest.cpp - the CUDA driver loader (skips without a GPU) -----===//
#include "runtime/CudaDriver.h"

#include <gtest/gtest.h>

using namespace blockjit;

TEST(CudaDriver, LoadsOrExplainsWhyNot) {
  auto api = cuda::driver();
  if (!api) {
    std::string message = llvm::toString(api.takeError());
    // The message must say what is missing and what to do instead.
    EXPECT_TRUE(message.find("libcuda.so.1") != std::string::npos ||
                message.find("cuInit") != std::string::npos)
        << message;
    EXPECT_NE(message.find("CPU"), std::string::npos) << message;
    EXPECT_EQ(cuda::deviceCount(), 0);
    GTEST_SKIP() << message;
  }
  EXPECT_GE(cuda::deviceCount(), 1);
}

TEST(CudaDriver, DeviceProperties) {
  if (cuda::deviceCount() == 0)
    GTEST_SKIP() << "no CUDA device";
  auto props = cuda::deviceProperties(0);
  ASSERT_TRUE(bool(props)) << llvm::toString(props.takeError());
  EXPECT_FALSE(props->name.empty());
  EXPECT_GT(props->smCount, 0);
  EXPECT_GE(props->smArch, 50);
  EXPECT_EQ(props->warpSize, 32);
  EXPECT_GT(props->registersPerSM, 0);
  EXPECT_GT(props->sharedMemoryPerSM, 0);
  EXPECT_GT(props->maxThreadsPerSM, 0);
  std::printf("device 0: %s, sm_%d, %d SMs, %d regs/SM, %d B shared/SM\n",
              props->name.c_str(), props->smArch, props->smCount,
              props->registersPerSM, props->sharedMemoryPerSM);
}

TEST(CudaDriver, BadOrdinalIsAnError) {
  if (cuda::deviceCount() == 0)
    GTEST_SKIP() << "no CUDA device";
  // Checked before the driver is asked (no CUDA API error is raised).
  int ordinal = cuda::deviceCount() + 7;
  auto props = cuda::deviceProperties(ordinal);
  ASSERT_FALSE(bool(props));
  std::string error = llvm::toString(props.takeError());
  EXPECT_NE(error.find("no CUDA device " + std::to_string(ordinal)),
            std::string::npos)
      << error;
}
