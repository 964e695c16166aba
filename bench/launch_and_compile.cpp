//===- launch_and_compile.cpp - host launch cost and compile times -------===//
//
//   build/bin/launch_and_compile [--launches N]
//
// 1. Host time per launch of a tiny softmax (4x128) that hits the in-memory
//    cache, and of the same launch prepared once (PreparedLaunch), against
//    a bare cuLaunchKernel of the same function and arguments
//    in the same process; and the device time per launch between events
//    around the same launches, which matches the host time while the host
//    limits the launch rate (above it, the GPU did and the host figure is
//    not the launch cost).
// 2. Cold compile: trace -> PTX -> module loaded, with an empty disk cache.
// 3. First launch in a fresh process whose disk cache is warm.
// Runs on the GPU when there is one, else reports the CPU backend's numbers
// for 2 and 3 only.
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/Kernels.h"
#include "runtime/CudaDriver.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/Event.h"
#include "runtime/Executor.h"
#include "runtime/KernelCache.h"
#include "runtime/Launch.h"
#include "runtime/PreparedLaunch.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

using namespace blockjit;
using Clock = std::chrono::steady_clock;

static double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

int main(int argc, char **argv) {
  int launches = 20000;
  bool child = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--launches") && i + 1 < argc)
      launches = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--child"))
      child = true;
  }
  auto fail = [](const std::string &message) {
    llvm::errs() << "launch_and_compile: " << message << "\n";
    return 1;
  };
  TargetKind target = defaultTarget();
  const int64_t rows = 4, cols = 128;
  std::vector<float> hostIn(rows * cols, 1.0f);
  Executor &executor = executorFor(target);
  auto in = DeviceBuffer::copyOf(target, llvm::ArrayRef(hostIn));
  if (!in)
    return fail(llvm::toString(in.takeError()));
  auto out = DeviceBuffer::allocate(target, hostIn.size() * sizeof(float));
  if (!out)
    return fail(llvm::toString(out.takeError()));
  LaunchOptions options;
  options.target = target;
  options.grid = {int(rows)};
  std::vector<Arg> args = {out->arg<float>(), in->arg<float>(), int32_t(cols),
                           int32_t(cols),     int32_t(rows),    int32_t(cols),
                           Constexpr(cols)};
  const KernelDef &kernel = *examples::softmax();

  // First launch: compile (cold, or from the disk cache in the child).
  auto start = Clock::now();
  if (llvm::Error e = launch(kernel, options, args))
    return fail(llvm::toString(std::move(e)));
  if (llvm::Error e = executor.synchronize(0))
    return fail(llvm::toString(std::move(e)));
  double firstMs = msSince(start);
  if (child) {
    llvm::outs() << llvm::format("%.3f\n", firstMs);
    return 0;
  }
  auto key = specializationFor(kernel, options, args);
  auto compiled = KernelCache::instance().get(kernel, *key);
  if (!compiled)
    return fail(llvm::toString(compiled.takeError()));
  const char *where = target == TargetKind::CUDA ? "cuda" : "cpu";
  llvm::outs() << llvm::format(
      "first launch (%s, disk cache %s): %.2f ms\n", where,
      compiled->fromDiskCache ? "hit" : "cold: trace + compile + load",
      firstMs);

  // First launch in a fresh process, same (now warm) disk cache.
  std::string command = std::string(argv[0]) + " --child";
  FILE *pipe = popen(command.c_str(), "r");
  char line[64] = {};
  if (pipe && fgets(line, sizeof(line), pipe))
    llvm::outs() << llvm::format(
        "first launch in a fresh process, warm disk cache (%s): %.2f ms\n",
        where, std::atof(line));
  if (pipe)
    pclose(pipe);

  if (target != TargetKind::CUDA)
    return 0;
  // Host cost per launch on a cache hit vs a bare cuLaunchKernel; events
  // around the timed launches give the device time they spanned.
  auto before = Event::create(target), after = Event::create(target);
  if (!before || !after)
    return fail(llvm::toString(
        llvm::joinErrors(before.takeError(), after.takeError())));
  double deviceUs = 0;
  auto timeLaunches = [&](auto &&body) {
    for (int i = 0; i < 1000; ++i)
      body();
    if (llvm::Error e = executor.synchronize(0))
      llvm::report_fatal_error(std::move(e));
    if (llvm::Error e = before->record())
      llvm::report_fatal_error(std::move(e));
    auto begin = Clock::now();
    for (int i = 0; i < launches; ++i)
      body();
    double us = msSince(begin) * 1e3 / launches;
    if (llvm::Error e = after->record())
      llvm::report_fatal_error(std::move(e));
    auto ms = Event::elapsedMilliseconds(*before, *after);
    if (!ms)
      llvm::report_fatal_error(ms.takeError());
    deviceUs = *ms * 1e3 / launches;
    return us;
  };
  auto blockjitLaunch = [&] {
    if (llvm::Error e = launch(kernel, options, args))
      llvm::report_fatal_error(std::move(e));
  };
  // The same launch prepared once (runtime/PreparedLaunch.h): per launch,
  // only the argument checks and the driver call.
  LaunchOptions preparedOptions = options;
  auto prepared = PreparedLaunch::prepare(kernel, preparedOptions, args);
  if (!prepared)
    return fail(llvm::toString(prepared.takeError()));
  std::vector<uint64_t> values;
  for (const Arg &arg : args)
    if (arg.kind == Arg::Kind::Pointer)
      values.push_back(uint64_t(uintptr_t(arg.pointer)));
    else if (arg.kind != Arg::Kind::Constexpr)
      values.push_back(uint64_t(arg.kind == Arg::Kind::Int32 ? arg.i32
                                                              : arg.i64));
  auto preparedLaunch = [&] {
    if (llvm::Error e = prepared->launch(values, nullptr))
      llvm::report_fatal_error(std::move(e));
  };
  // The baseline calls the driver by hand on purpose: it is what a launch
  // costs with nothing of blockjit's in between.
  auto driver = cuda::driver();
  if (!driver)
    return fail(llvm::toString(driver.takeError()));
  const cuda::DriverAPI &api = *driver;
  auto loaded = compiled->loaded(0);
  if (!loaded)
    return fail(llvm::toString(loaded.takeError()));
  auto function = static_cast<cuda::CUfunction>(loaded->handle);
  void *params[6];
  size_t n = 0;
  for (const Arg &arg : args)
    if (arg.kind != Arg::Kind::Constexpr)
      params[n++] = const_cast<void *>(static_cast<const void *>(&arg.pointer));
  auto bareLaunch = [&] {
    api.cuLaunchKernel(function, rows, 1, 1, loaded->threadsPerProgram, 1, 1, 0,
                       nullptr, params, nullptr);
  };
  // One round times each path in turn; the medians over the rounds (and of
  // the per-round ratios) keep one noisy round (another process, a CPU
  // frequency step) from deciding the result.
  const int rounds = 9;
  std::vector<double> blockjitUs, bareUs, ratios, deviceBlockjitUs,
      deviceBareUs, preparedUs, preparedRatios;
  for (int round = 0; round < rounds; ++round) {
    blockjitUs.push_back(timeLaunches(blockjitLaunch));
    deviceBlockjitUs.push_back(deviceUs);
    bareUs.push_back(timeLaunches(bareLaunch));
    deviceBareUs.push_back(deviceUs);
    preparedUs.push_back(timeLaunches(preparedLaunch));
    ratios.push_back(blockjitUs.back() / bareUs.back());
    preparedRatios.push_back(preparedUs.back() / bareUs.back());
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  llvm::outs() << llvm::format(
      "host time per launch, softmax 4x128, %d rounds of %d launches "
      "(medians): blockjit %.2f us, bare cuLaunchKernel %.2f us, ratio %.2f "
      "(per-round ratios %.2f..%.2f)\n",
      rounds, launches, median(blockjitUs), median(bareUs), median(ratios),
      *std::min_element(ratios.begin(), ratios.end()),
      *std::max_element(ratios.begin(), ratios.end()));
  llvm::outs() << llvm::format(
      "host time per prepared launch (PreparedLaunch): %.2f us, ratio to bare "
      "%.2f (per-round ratios %.2f..%.2f)\n",
      median(preparedUs), median(preparedRatios),
      *std::min_element(preparedRatios.begin(), preparedRatios.end()),
      *std::max_element(preparedRatios.begin(), preparedRatios.end()));
  llvm::outs() << llvm::format(
      "device time per launch (events, medians): blockjit %.2f us, bare "
      "%.2f us\n",
      median(deviceBlockjitUs), median(deviceBareUs));
  return 0;
}
