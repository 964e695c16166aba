//===- saxpy.cpp - a kernel of one's own, built against installed blockjit ===//
//
//   saxpy [--n N] [--blockjit-target=cpu|cuda] [--blockjit-dump-dir=DIR]
//
// JIT-compiles out = alpha * x + y, runs it (on the GPU when there is one,
// else on the CPU), compares it with a plain C++ loop and prints one line.
//
//===----------------------------------------------------------------------===//
#include "compiler/Environment.h"
#include "frontend/blockjit.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/Launch.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace blockjit;

// One block of BLOCK elements per program; the mask covers the tail.
void saxpy_kernel(Ptr<float> out, Ptr<float> x, Ptr<float> y, Float alpha,
                  Int n, Constexpr BLOCK) {
  Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
  Tensor mask = offsets < n;
  Tensor result = alpha * load(x + offsets, mask) + load(y + offsets, mask);
  store(out + offsets, result, mask);
}

static int fail(llvm::Error error) {
  std::fprintf(stderr, "saxpy: %s\n", llvm::toString(std::move(error)).c_str());
  return 1;
}

int main(int argc, char **argv) {
  // --blockjit-dump-dir=DIR, --blockjit-target=cpu, ... (--blockjit-help).
  llvm::Expected<bool> help = env::parseCommandLine(argc, argv);
  if (!help) {
    std::fprintf(stderr, "saxpy: %s\n",
                 llvm::toString(help.takeError()).c_str());
    return 1;
  }
  if (*help)
    return 0;
  int n = 100003;
  if (argc == 3 && std::strcmp(argv[1], "--n") == 0)
    n = std::atoi(argv[2]);
  if (n < 1)
    return std::fprintf(stderr, "usage: saxpy [--n N]\n"), 2;

  static auto kernel =
      jit("saxpy", saxpy_kernel, {"out", "x", "y", "alpha", "n", "BLOCK"});
  const float alpha = 2.5f;
  std::vector<float> x(n), y(n), out(n), expected(n);
  for (int i = 0; i < n; ++i) {
    x[i] = float(i % 1000) / 7.0f;
    y[i] = 1.0f - float(i % 13);
    expected[i] = alpha * x[i] + y[i];
  }

  TargetKind target = defaultTarget(); // $BLOCKJIT_TARGET, else GPU if any
  auto xs = DeviceBuffer::copyOf(target, llvm::ArrayRef(x));
  if (!xs)
    return fail(xs.takeError());
  auto ys = DeviceBuffer::copyOf(target, llvm::ArrayRef(y));
  if (!ys)
    return fail(ys.takeError());
  auto outs = DeviceBuffer::allocate(target, n * sizeof(float));
  if (!outs)
    return fail(outs.takeError());

  constexpr int64_t block = 1024;
  LaunchOptions options;
  options.target = target;
  options.grid = {int(cdiv(n, block))};
  if (llvm::Error error =
          launch(*kernel, options,
                 {outs->arg<float>(), xs->arg<float>(), ys->arg<float>(), alpha,
                  n, Constexpr(block)}))
    return fail(std::move(error));
  if (llvm::Error error = executorFor(target).synchronize(0))
    return fail(std::move(error));
  if (llvm::Error error = outs->download(out))
    return fail(std::move(error));

  // Relative to the terms' magnitudes: the JIT may fuse the multiply-add,
  // which rounds once where the C++ loop rounds twice.
  double maxError = 0;
  for (int i = 0; i < n; ++i)
    maxError = std::max(maxError,
                        std::abs(double(out[i]) - expected[i]) /
                            (std::abs(alpha * x[i]) + std::abs(y[i]) + 1e-30));
  bool ok = maxError <= 1e-6;
  auto device = executorFor(target).deviceName(0);
  std::printf("saxpy n=%d on %s: max relative error %.2g vs a C++ loop: %s\n",
              n, device ? device->c_str() : "?", maxError, ok ? "OK" : "FAIL");
  if (!device)
    llvm::consumeError(device.takeError());
  return ok ? 0 : 1;
}
