//===- CAPI.cpp - the C ABI of blockjit_c.h ------------------------------===//
#include "runtime/blockjit_c.h"

#include "runtime/Autotune.h"
#include "runtime/Launch.h"
#include "runtime/Operation.h"
#include "runtime/PreparedLaunch.h"
#include "runtime/Registry.h"

#include "llvm/ADT/SmallVector.h"

#include <cstddef>
#include <optional>
#include <string>

using namespace blockjit;

namespace {

thread_local std::string lastError;

int fail(std::string message) {
  lastError = std::move(message);
  return 1;
}

/// Converts C arguments into launch arguments (false: an error is set);
/// `what` names the kernel or operation in errors.
bool convertArgs(const std::string &what, const blockjit_arg *args,
                 int32_t numArgs, llvm::SmallVectorImpl<Arg> &converted) {
  if (numArgs < 0 || (numArgs > 0 && !args)) {
    fail(what + ": " +
         (numArgs < 0
              ? "num_args is negative (" + std::to_string(numArgs) + ")"
              : "args is NULL but num_args is " + std::to_string(numArgs)));
    return false;
  }
  for (int32_t i = 0; i < numArgs; ++i) {
    const blockjit_arg &a = args[i];
    switch (a.kind) {
    case BLOCKJIT_ARG_POINTER:
      if (a.dtype < BLOCKJIT_I1 || a.dtype > BLOCKJIT_F64) {
        fail("argument #" + std::to_string(i) + ": unknown dtype " +
             std::to_string(a.dtype));
        return false;
      }
      converted.push_back(Arg::typedPointer(a.value.pointer, DType(a.dtype)));
      break;
    case BLOCKJIT_ARG_I32:
      converted.push_back(Arg(a.value.i32));
      break;
    case BLOCKJIT_ARG_I64:
      converted.push_back(Arg(a.value.i64));
      break;
    case BLOCKJIT_ARG_F32:
      converted.push_back(Arg(a.value.f32));
      break;
    case BLOCKJIT_ARG_CONSTEXPR:
      converted.push_back(Arg(Constexpr(a.value.i64)));
      break;
    default:
      fail("argument #" + std::to_string(i) + ": unknown kind " +
           std::to_string(a.kind));
      return false;
    }
  }
  return true;
}

/// The launch options `options` (NULL: the defaults) sets, without the
/// autotuner's, into `launchOptions`; false (the error set) for a value
/// outside its enum, which is a caller's bug that no default should hide.
bool convertOptions(const blockjit_launch_options *options,
                    LaunchOptions &launchOptions) {
  launchOptions = LaunchOptions();
  if (!options)
    return true;
  // 0 counts as 1 (blockjit_c.h); a negative size reaches launch(), which
  // reports it.
  auto axis = [](int32_t n) { return n == 0 ? 1 : n; };
  launchOptions.grid = {axis(options->grid[0]), axis(options->grid[1]),
                        axis(options->grid[2])};
  if (options->num_warps)
    launchOptions.numWarps = options->num_warps;
  if (options->num_stages)
    launchOptions.numStages = options->num_stages;
  if (options->num_ctas)
    launchOptions.numCTAs = options->num_ctas;
  if (options->programs_per_cta)
    launchOptions.programsPerCTA = options->programs_per_cta;
  launchOptions.maxRegisters = options->max_registers;
  auto eviction = [](const char *field, int32_t value, DefaultEviction &into) {
    switch (value) {
    case BLOCKJIT_EVICTION_NORMAL:
      into = DefaultEviction::Normal;
      return true;
    case BLOCKJIT_EVICTION_FIRST:
      into = DefaultEviction::First;
      return true;
    case BLOCKJIT_EVICTION_LAST:
      into = DefaultEviction::Last;
      return true;
    }
    fail(std::string("launch options: ") + field + " " + std::to_string(value) +
         " is not a blockjit_eviction (0 normal, 1 evict_first, 2 "
         "evict_last)");
    return false;
  };
  if (!eviction("load_eviction", options->load_eviction,
                launchOptions.loadEviction) ||
      !eviction("store_eviction", options->store_eviction,
                launchOptions.storeEviction))
    return false;
  switch (options->target) {
  case BLOCKJIT_TARGET_AUTO:
    break;
  case BLOCKJIT_TARGET_CPU:
    launchOptions.target = TargetKind::CPU;
    break;
  case BLOCKJIT_TARGET_CUDA:
    launchOptions.target = TargetKind::CUDA;
    break;
  default:
    fail("launch options: target " + std::to_string(options->target) +
         " is not a blockjit_target (0 auto, 1 cpu, 2 cuda)");
    return false;
  }
  launchOptions.stream = options->stream;
  return true;
}

/// What a name launches: a registered kernel, else an operation (neither:
/// an error is set).
struct Launchable {
  const RegisteredKernel *kernel = nullptr;
  const RegisteredOperation *operation = nullptr;
  explicit operator bool() const { return kernel || operation; }
};

Launchable find(const char *name) {
  const RegisteredKernel *kernel = findKernel(name ? name : "");
  Launchable found{kernel, kernel ? nullptr : findOperation(name ? name : "")};
  if (!found)
    fail(std::string("no kernel or operation named '") + (name ? name : "") +
         "' (kernels: " + blockjit_kernel_names() +
         "; operations: " + blockjit_operation_names() + ")");
  return found;
}

/// Converts C arguments and options into those of a kernel's launch (the
/// autotuner's config and grid when options->autotune asks); reports the
/// kernel or an error.
const RegisteredKernel *convert(const RegisteredKernel *kernel,
                                const blockjit_arg *args, int32_t numArgs,
                                const blockjit_launch_options *options,
                                llvm::SmallVectorImpl<Arg> &converted,
                                LaunchOptions &launchOptions) {
  if (!convertArgs("kernel '" + kernel->name + "'", args, numArgs, converted))
    return nullptr;
  if (!convertOptions(options, launchOptions))
    return nullptr;
  if (options && options->autotune) {
    if (!kernel->tuner) {
      fail("kernel '" + kernel->name + "' has no autotuner");
      return nullptr;
    }
    auto tuned = kernel->tuner().choose(launchOptions, converted);
    if (!tuned) {
      fail(llvm::toString(tuned.takeError()));
      return nullptr;
    }
    launchOptions = tuned->options;
    converted.assign(tuned->args.begin(), tuned->args.end());
  }
  return kernel;
}

/// Converts C arguments and options into those of an operation's launch;
/// false (the error set) if either is invalid.
bool convertForOperation(const RegisteredOperation &operation,
                         const blockjit_arg *args, int32_t numArgs,
                         const blockjit_launch_options *options,
                         llvm::SmallVectorImpl<Arg> &converted,
                         LaunchOptions &launchOptions) {
  return convertArgs("operation '" + operation.name + "'", args, numArgs,
                     converted) &&
         convertOptions(options, launchOptions);
}

blockjit_kernel_info infoOf(const KernelResources &r) {
  return {r.registers,           r.sharedMemoryBytes,
          r.threadsPerProgram,   r.maxProgramsPerProcessor,
          r.processors,          r.ctasPerProgram,
          r.maxResidentPrograms, r.programsPerCTA};
}

/// "warps=8,stages=2,ctas=1,BLOCK_SIZE=1024,grid=132": a prepared launch's
/// configuration, its constexprs as `args` sets them.
std::string configText(const KernelDef &kernel, const LaunchOptions &o,
                       llvm::ArrayRef<Arg> args) {
  TuningConfig chosen{o.numWarps, o.numStages, o.numCTAs, {}};
  chosen.programsPerCTA = o.programsPerCTA;
  chosen.loadEviction = o.loadEviction;
  chosen.storeEviction = o.storeEviction;
  chosen.maxRegisters = o.maxRegisters;
  std::string config = chosen.str();
  for (size_t i = 0, c = 0; i < kernel.params().size(); ++i)
    if (kernel.params()[i].kind == ParamKind::Constexpr && i < args.size())
      config += "," + kernel.constexprNames()[c++] + "=" +
                std::to_string(args[i].i64);
  config += ",grid=" + std::to_string(o.grid.x);
  if (o.grid.y > 1 || o.grid.z > 1)
    config += "x" + std::to_string(o.grid.y) + "x" + std::to_string(o.grid.z);
  return config;
}

} // namespace

extern "C" {

int blockjit_launch(const char *kernel, const blockjit_arg *args,
                    int32_t numArgs, const blockjit_launch_options *options) {
  Launchable found = find(kernel);
  if (!found)
    return 1;
  llvm::SmallVector<Arg, 16> converted;
  if (found.operation) {
    LaunchOptions launchOptions;
    if (!convertForOperation(*found.operation, args, numArgs, options,
                             converted, launchOptions))
      return 1;
    if (llvm::Error error =
            found.operation->operation().run(launchOptions, converted))
      return fail(llvm::toString(std::move(error)));
    return 0;
  }
  LaunchOptions launchOptions;
  const RegisteredKernel *registered =
      convert(found.kernel, args, numArgs, options, converted, launchOptions);
  if (!registered)
    return 1;
  if (llvm::Error error =
          launch(*registered->kernel, launchOptions, converted))
    return fail(llvm::toString(std::move(error)));
  return 0;
}

int blockjit_warmup(const char *kernel, const blockjit_arg *args,
                    int32_t numArgs, const blockjit_launch_options *options,
                    blockjit_kernel_info *info) {
  Launchable found = find(kernel);
  if (!found)
    return 1;
  if (found.operation)
    return fail("'" + found.operation->name +
                "' is an operation (its algorithms launch several kernels): "
                "blockjit_prepare it, and blockjit_prepared_info reports its "
                "launches");
  llvm::SmallVector<Arg, 16> converted;
  LaunchOptions launchOptions;
  const RegisteredKernel *registered =
      convert(found.kernel, args, numArgs, options, converted, launchOptions);
  if (!registered)
    return 1;
  auto result = warmup(*registered->kernel, launchOptions, converted);
  if (!result)
    return fail(llvm::toString(result.takeError()));
  if (info)
    *info = infoOf(*result);
  return 0;
}

// The C structs' layout is the ABI bench/blockjit_ctypes.py mirrors: fields
// are only ever appended (max_registers last), and a change here must be
// made there too.
static_assert(sizeof(blockjit_launch_options) == 56 &&
                  offsetof(blockjit_launch_options, stream) == 24 &&
                  offsetof(blockjit_launch_options, programs_per_cta) == 40 &&
                  offsetof(blockjit_launch_options, store_eviction) == 48 &&
                  offsetof(blockjit_launch_options, max_registers) == 52,
              "blockjit_launch_options changed: update blockjit_ctypes.py");
static_assert(sizeof(blockjit_kernel_info) == 32 &&
                  offsetof(blockjit_kernel_info, programs_per_cta) == 28,
              "blockjit_kernel_info changed: update blockjit_ctypes.py");

struct blockjit_prepared {
  /// A kernel's launch, or an operation's.
  std::optional<PreparedLaunch> launch;
  std::optional<PreparedOperation> operation;
  std::string config;
};

int blockjit_prepare(const char *kernel, const blockjit_arg *args,
                     int32_t numArgs, const blockjit_launch_options *options,
                     blockjit_prepared **prepared) {
  if (!prepared)
    return fail("blockjit_prepare: prepared is NULL");
  *prepared = nullptr;
  Launchable found = find(kernel);
  if (!found)
    return 1;
  llvm::SmallVector<Arg, 16> converted;
  if (found.operation) {
    LaunchOptions launchOptions;
    if (!convertForOperation(*found.operation, args, numArgs, options,
                             converted, launchOptions))
      return 1;
    auto operation =
        found.operation->operation().prepare(launchOptions, converted);
    if (!operation)
      return fail(llvm::toString(operation.takeError()));
    // "algorithm=NAME; kernel[config]; kernel[config]".
    std::string config = "algorithm=" + operation->algorithm();
    for (const OperationLaunch &l : operation->launches())
      config += "; " + l.kernel->name() + "[" +
                configText(*l.kernel, l.options, l.args) + "]";
    *prepared = new blockjit_prepared{std::nullopt, std::move(*operation),
                                      std::move(config)};
    return 0;
  }
  LaunchOptions launchOptions;
  const RegisteredKernel *registered =
      convert(found.kernel, args, numArgs, options, converted, launchOptions);
  if (!registered)
    return 1;
  auto launch =
      PreparedLaunch::prepare(*registered->kernel, launchOptions, converted);
  if (!launch)
    return fail(llvm::toString(launch.takeError()));
  std::string config =
      configText(*registered->kernel, launch->options(), converted);
  *prepared = new blockjit_prepared{std::move(*launch), std::nullopt,
                                    std::move(config)};
  return 0;
}

int blockjit_launch_prepared(const blockjit_prepared *prepared,
                             const uint64_t *values, int32_t numValues,
                             void *stream) {
  if (!prepared)
    return fail("blockjit_launch_prepared: prepared is NULL");
  if (numValues < 0 || (numValues > 0 && !values))
    return fail("blockjit_launch_prepared: values is NULL or num_values is "
                "negative");
  llvm::ArrayRef<uint64_t> runtimeValues(values, size_t(numValues));
  if (llvm::Error error =
          prepared->operation
              ? prepared->operation->launch(runtimeValues, stream)
              : prepared->launch->launch(runtimeValues, stream))
    return fail(llvm::toString(std::move(error)));
  return 0;
}

int blockjit_prepared_info(const blockjit_prepared *prepared,
                           blockjit_kernel_info *info, const char **config) {
  if (!prepared)
    return fail("blockjit_prepared_info: prepared is NULL");
  // An operation's: its first launch's.
  if (info)
    *info = infoOf(prepared->operation ? prepared->operation->resources()
                                       : prepared->launch->resources());
  if (config)
    *config = prepared->config.c_str();
  return 0;
}

void blockjit_release(blockjit_prepared *prepared) { delete prepared; }

int32_t blockjit_launch_options_size(void) {
  return int32_t(sizeof(blockjit_launch_options));
}

const char *blockjit_last_error(void) { return lastError.c_str(); }

const char *blockjit_kernel_names(void) {
  static thread_local std::string names;
  names.clear();
  for (const RegisteredKernel *k : registeredKernels())
    names += (names.empty() ? "" : ",") + k->name;
  return names.c_str();
}

const char *blockjit_operation_names(void) {
  static thread_local std::string names;
  names.clear();
  for (const RegisteredOperation *o : registeredOperations())
    names += (names.empty() ? "" : ",") + o->name;
  return names.c_str();
}

} // extern "C"
