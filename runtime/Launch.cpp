//===- Launch.cpp - argument checking, specialization and dispatch -------===//
#include "runtime/Launch.h"
#include "compiler/Environment.h"

#include "runtime/Executor.h"
#include "runtime/KernelCache.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstdlib>
#include <cstring>

namespace blockjit {

namespace {

llvm::Error argError(const KernelDef &kernel, const ParamInfo &param,
                     size_t index, const llvm::Twine &message) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv("kernel '{0}': argument #{1} '{2}' {3}", kernel.name(),
                    index, param.name, message.str()));
}

const char *kindName(Arg::Kind kind) {
  switch (kind) {
  case Arg::Kind::Pointer:
    return "a pointer";
  case Arg::Kind::Int32:
    return "an i32 scalar";
  case Arg::Kind::Int64:
    return "an i64 scalar";
  case Arg::Kind::UInt64:
    return "an unsigned integer above INT64_MAX";
  case Arg::Kind::Float32:
    return "an f32 scalar";
  case Arg::Kind::Float64:
    return "an f64 scalar (pass a float, e.g. 1.5f)";
  case Arg::Kind::Constexpr:
    return "a Constexpr";
  }
  return "?";
}

} // namespace

TargetKind defaultTarget() {
  if (auto chosen = env::target()) {
    if (*chosen == "cuda")
      return TargetKind::CUDA;
    if (*chosen == "cpu")
      return TargetKind::CPU;
  }
  static const bool hasDevice = executorFor(TargetKind::CUDA).deviceCount() > 0;
  return hasDevice ? TargetKind::CUDA : TargetKind::CPU;
}

void setMaskBoundRanges(const KernelDef &kernel,
                        llvm::ArrayRef<std::optional<int64_t>> integers,
                        SpecializationKey &key) {
  // On the GPU each thread's share of a block is unrolled, and a mask
  // bound's range decides which of its vectors lie in the row; the CPU
  // backend loops over blocks instead.
  if (key.options.target.kind != TargetKind::CUDA ||
      llvm::none_of(integers, [](auto value) { return value.has_value(); }))
    return;
  // A signature that fails to trace gets no ranges: its own trace reports
  // the error where a launch or the autotuner expects it (a tuning config
  // that does not trace is skipped, not fatal).
  auto bounds = kernel.maskBounds(key.argTypes, key.constexprs);
  if (!bounds) {
    llvm::consumeError(bounds.takeError());
    return;
  }
  for (size_t i = 0; i < integers.size() && i < bounds->size(); ++i) {
    if (!(*bounds)[i] || !integers[i])
      continue;
    int64_t maxValue = key.argTypes[i] == DType::I32 ? INT32_MAX : INT64_MAX;
    IntRange range =
        maskBoundRangeOf(*integers[i], key.divisibility[i], maxValue);
    if (!range.known())
      continue;
    key.ranges.resize(key.argTypes.size());
    key.ranges[i] = range;
  }
}

llvm::Expected<SpecializationKey>
specializationFor(const KernelDef &kernel, const LaunchOptions &options,
                  llvm::ArrayRef<Arg> args) {
  const auto &params = kernel.params();
  if (args.size() != params.size())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("kernel '{0}' takes {1} arguments, got {2}",
                      kernel.name(), params.size(), args.size()));
  SpecializationKey key;
  key.options.numWarps = options.numWarps;
  key.options.numStages = options.numStages;
  key.options.numCTAs = options.numCTAs;
  auto target = executorFor(options.target.value_or(defaultTarget()))
                    .target(options.device);
  if (!target)
    return target.takeError();
  key.options.target = *target;
  // The CPU runs each program alone: one specialization whatever is asked.
  key.options.programsPerCTA =
      target->kind == TargetKind::CPU ? 1 : options.programsPerCTA;
  // A cap out of range is the caller's error on either target.
  if (llvm::Error error = checkMaxRegisters(options.maxRegisters))
    return std::move(error);
  if (target->kind != TargetKind::CPU) {
    key.options.loadEviction = options.loadEviction;
    key.options.storeEviction = options.storeEviction;
    key.options.maxRegisters = options.maxRegisters;
  }
  // Per runtime argument: its value where it is an integer.
  llvm::SmallVector<std::optional<int64_t>, 8> integers;
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamInfo &param = params[i];
    const Arg &arg = args[i];
    switch (param.kind) {
    case ParamKind::Constexpr:
      if (arg.kind == Arg::Kind::Constexpr || arg.kind == Arg::Kind::Int64)
        key.constexprs.push_back(arg.i64);
      else if (arg.kind == Arg::Kind::Int32)
        key.constexprs.push_back(arg.i32);
      else
        return argError(kernel, param, i,
                        llvm::Twine("is a Constexpr integer, got ") +
                            kindName(arg.kind));
      continue;
    case ParamKind::Pointer:
      if (arg.kind != Arg::Kind::Pointer)
        return argError(kernel, param, i,
                        llvm::Twine("is a pointer, got ") + kindName(arg.kind));
      // Cheap enough for every launch; a null pointer would crash a CPU
      // program or poison the CUDA context for the whole process.
      if (!arg.pointer && !param.nullable)
        return argError(kernel, param, i,
                        "is a null pointer (declare the parameter "
                        "NullablePtr<T> if null is meant)");
      if (param.dtype && *param.dtype != arg.dtype)
        return argError(kernel, param, i,
                        llvm::formatv("points to {0}, got a pointer to {1}",
                                      dtypeName(*param.dtype),
                                      dtypeName(arg.dtype)));
      key.divisibility.push_back(
          divisibilityOf(reinterpret_cast<uintptr_t>(arg.pointer)));
      key.argTypes.push_back(arg.dtype);
      integers.push_back(std::nullopt);
      break;
    case ParamKind::Scalar: {
      DType want = *param.dtype;
      bool isInt = want == DType::I32 || want == DType::I64;
      bool ok = (isInt && (arg.kind == Arg::Kind::Int32 ||
                           arg.kind == Arg::Kind::Int64)) ||
                (want == DType::F32 && arg.kind == Arg::Kind::Float32);
      if (!ok)
        return argError(kernel, param, i,
                        llvm::formatv("is a {0} scalar, got {1}",
                                      dtypeName(want), kindName(arg.kind)));
      int64_t value = arg.kind == Arg::Kind::Int32 ? arg.i32 : arg.i64;
      if (want == DType::I32 && (value < INT32_MIN || value > INT32_MAX))
        return argError(
            kernel, param, i,
            llvm::formatv("is an i32, but {0} does not fit", value));
      key.divisibility.push_back(isInt ? integerFactOf(value) : 1);
      key.argTypes.push_back(want);
      integers.push_back(isInt ? std::optional<int64_t>(value) : std::nullopt);
      break;
    }
    }
  }
  setMaskBoundRanges(kernel, integers, key);
  return key;
}

llvm::Error checkGrid(const KernelDef &kernel, const Grid &grid) {
  if (grid.x < 1 || grid.y < 1 || grid.z < 1)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("kernel '{0}': grid ({1}, {2}, {3}) must be positive",
                      kernel.name(), grid.x, grid.y, grid.z));
  return llvm::Error::success();
}

llvm::Expected<LoadedSpecialization>
loadSpecialization(const KernelDef &kernel, const LaunchOptions &options,
                   llvm::ArrayRef<Arg> args) {
  auto key = specializationFor(kernel, options, args);
  if (!key)
    return key.takeError();
  auto compiled = KernelCache::instance().get(kernel, *key);
  if (!compiled)
    return compiled.takeError();
  auto loaded = compiled->loaded(options.device);
  if (!loaded)
    return loaded.takeError();
  return LoadedSpecialization{std::move(*key), &*loaded};
}

llvm::Error checkRuntimeArgCount(const KernelDef &kernel) {
  if (kernel.numRuntimeParams() <= kMaxRuntimeArgs)
    return llvm::Error::success();
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv("kernel '{0}' takes {1} runtime arguments; kernels take "
                    "at most {2}",
                    kernel.name(), kernel.numRuntimeParams(), kMaxRuntimeArgs)
          .str());
}

void appendHiddenArguments(const LoadedKernel &kernel,
                           const int32_t *numProgramsX, void **slots,
                           size_t count) {
  // Several programs per CTA: the grid's program count along x, which the
  // rounded-up CTA count no longer says (compiler/gpu/BlkToNVVM.cpp).
  if (kernel.programsPerCTA > 1)
    slots[count] = const_cast<int32_t *>(numProgramsX);
}

LaunchConfig launchConfigOf(const LaunchOptions &options) {
  LaunchConfig config;
  config.grid = options.grid;
  config.dynamicSharedMemoryBytes = options.dynamicSharedMemoryBytes;
  config.cluster = options.cluster;
  config.stream = options.stream;
  config.device = options.device;
  config.attributes = options.attributes;
  return config;
}

llvm::Error launch(const KernelDef &kernel, const LaunchOptions &options,
                   llvm::ArrayRef<Arg> args) {
  if (llvm::Error error = checkGrid(kernel, options.grid))
    return error;
  auto loaded = loadSpecialization(kernel, options, args);
  if (!loaded)
    return loaded.takeError();

  // Runtime values in parameter order; each slot points at its value.
  void *slots[kMaxRuntimeArgs + 1];
  int32_t narrowed[kMaxRuntimeArgs];
  if (llvm::Error error = checkRuntimeArgCount(kernel))
    return error;
  size_t n = 0;
  const auto &params = kernel.params();
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].kind == ParamKind::Constexpr)
      continue;
    const Arg &arg = args[i];
    if (params[i].kind == ParamKind::Scalar && *params[i].dtype == DType::I32 &&
        arg.kind == Arg::Kind::Int64) {
      narrowed[n] = int32_t(arg.i64);
      slots[n] = &narrowed[n];
    } else if (params[i].kind == ParamKind::Scalar &&
               *params[i].dtype == DType::I64 && arg.kind == Arg::Kind::Int32) {
      // Widen through a copy of the Arg (its union holds the i32).
      static thread_local int64_t widened[kMaxRuntimeArgs];
      widened[n] = arg.i32;
      slots[n] = &widened[n];
    } else {
      slots[n] = const_cast<void *>(static_cast<const void *>(&arg.pointer));
    }
    ++n;
  }
  int32_t numProgramsX = options.grid.x;
  appendHiddenArguments(*loaded->kernel, &numProgramsX, slots, n);
  return executorFor(loaded->key.options.target.kind)
      .launch(*loaded->kernel, launchConfigOf(options), slots);
}

llvm::Expected<KernelResources> warmup(const KernelDef &kernel,
                                       const LaunchOptions &options,
                                       llvm::ArrayRef<Arg> args) {
  auto loaded = loadSpecialization(kernel, options, args);
  if (!loaded)
    return loaded.takeError();
  return executorFor(loaded->key.options.target.kind)
      .resources(*loaded->kernel, options.dynamicSharedMemoryBytes);
}

} // namespace blockjit
