//===- PreparedLaunch.cpp - a launch fixed once, repeated cheaply --------===//
#include "runtime/PreparedLaunch.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>

namespace blockjit {

llvm::Expected<PreparedLaunch>
PreparedLaunch::prepare(const KernelDef &kernel, const LaunchOptions &options,
                        llvm::ArrayRef<Arg> args) {
  if (llvm::Error error = checkGrid(kernel, options.grid))
    return std::move(error);
  if (llvm::Error error = checkRuntimeArgCount(kernel))
    return std::move(error);
  auto loaded = loadSpecialization(kernel, options, args);
  if (!loaded)
    return loaded.takeError();
  const SpecializationKey *key = &loaded->key;

  PreparedLaunch prepared;
  prepared.kernel_ = &kernel;
  prepared.options_ = options;
  prepared.options_.target = key->options.target.kind;
  prepared.args_.assign(args.begin(), args.end());
  prepared.loaded_ = loaded->kernel;
  prepared.executor_ = &executorFor(key->options.target.kind);
  auto resources = prepared.executor_->resources(
      *loaded->kernel, options.dynamicSharedMemoryBytes);
  if (!resources)
    return resources.takeError();
  prepared.resources_ = *resources;
  size_t runtimeIndex = 0;
  for (const ParamInfo &param : kernel.params()) {
    if (param.kind == ParamKind::Constexpr)
      continue;
    ValueCheck check;
    check.mask = uint64_t(key->divisibility[runtimeIndex]) - 1;
    if (runtimeIndex < key->ranges.size())
      check.range = key->ranges[runtimeIndex];
    check.nullable = param.nullable;
    DType type = key->argTypes[runtimeIndex];
    check.kind = param.kind == ParamKind::Pointer ? Arg::Kind::Pointer
                 : type == DType::I32             ? Arg::Kind::Int32
                 : type == DType::I64             ? Arg::Kind::Int64
                                                  : Arg::Kind::Float32;
    prepared.checks_.push_back(check);
    ++runtimeIndex;
  }
  return prepared;
}

llvm::Error PreparedLaunch::launch(llvm::ArrayRef<uint64_t> values,
                                   void *stream) const {
  size_t n = checks_.size();
  if (values.size() != n)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("prepared launch of kernel '{0}': {1} runtime "
                      "arguments, got {2}",
                      kernel_->name(), n, values.size()));
  // Runtime values are little-endian 64-bit words, so each slot may point at
  // its word whatever the parameter's width (an i32 or f32 in its low half).
  static_assert(sizeof(void *) == sizeof(uint64_t));
  void *slots[kMaxRuntimeArgs + 1];
  for (size_t i = 0; i < n; ++i) {
    const ValueCheck &check = checks_[i];
    uint64_t value = values[i];
    bool keeps = (value & check.mask) == 0;
    if (check.kind == Arg::Kind::Pointer)
      keeps = keeps && (value || check.nullable);
    else if (check.kind == Arg::Kind::Int32)
      keeps = keeps && int64_t(value) == int64_t(int32_t(value));
    if (check.range.known())
      keeps = keeps && check.range.contains(int64_t(value));
    if (!keeps)
      return launchUnprepared(values, stream);
    slots[i] = const_cast<uint64_t *>(&values[i]);
  }
  int32_t numProgramsX = options_.grid.x;
  appendHiddenArguments(*loaded_, &numProgramsX, slots, n);
  LaunchConfig config = launchConfigOf(options_);
  config.stream = stream;
  return executor_->launch(*loaded_, config, slots);
}

llvm::Error PreparedLaunch::launchUnprepared(llvm::ArrayRef<uint64_t> values,
                                             void *stream) const {
  llvm::SmallVector<Arg, 16> args = args_;
  size_t runtimeIndex = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    if (kernel_->params()[i].kind == ParamKind::Constexpr)
      continue;
    uint64_t value = values[runtimeIndex];
    switch (checks_[runtimeIndex++].kind) {
    case Arg::Kind::Pointer:
      args[i] = Arg::typedPointer(reinterpret_cast<const void *>(value),
                                  args[i].dtype);
      break;
    case Arg::Kind::Int32:
    case Arg::Kind::Int64:
      // launch() reports an i32 value that does not fit.
      args[i] = Arg(int64_t(value));
      break;
    default: {
      float f;
      uint32_t bits = uint32_t(value);
      std::memcpy(&f, &bits, sizeof f);
      args[i] = Arg(f);
      break;
    }
    }
  }
  LaunchOptions options = options_;
  options.stream = stream;
  return blockjit::launch(*kernel_, options, args);
}

} // namespace blockjit
