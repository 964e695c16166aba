//===- CAPI.cpp - the C ABI of blockjit_c.h ------------------------------===//
#include "runtime/blockjit_c.h"

#include "runtime/Registry.h"
#include "runtime/Launch.h"

#include "llvm/ADT/SmallVector.h"

#include <string>

using namespace blockjit;

namespace {

thread_local std::string lastError;

int fail(std::string message) {
  lastError = std::move(message);
  return 1;
}

/// Converts C arguments and options; reports the kernel or an error.
const KernelDef *prepare(const char *name, const blockjit_arg *args,
                         int32_t numArgs,
                         const blockjit_launch_options *options,
                         llvm::SmallVectorImpl<Arg> &converted,
                         LaunchOptions &launchOptions) {
  const RegisteredKernel *kernel = findKernel(name ? name : "");
  if (!kernel) {
    fail(std::string("no kernel named '") + (name ? name : "") +
         "' (registered: " + blockjit_kernel_names() + ")");
    return nullptr;
  }
  if (numArgs < 0 || (numArgs > 0 && !args)) {
    fail("kernel '" + std::string(name) + "': " +
         (numArgs < 0
              ? "num_args is negative (" + std::to_string(numArgs) + ")"
              : "args is NULL but num_args is " + std::to_string(numArgs)));
    return nullptr;
  }
  for (int32_t i = 0; i < numArgs; ++i) {
    const blockjit_arg &a = args[i];
    switch (a.kind) {
    case BLOCKJIT_ARG_POINTER:
      if (a.dtype < BLOCKJIT_I1 || a.dtype > BLOCKJIT_F64) {
        fail("argument #" + std::to_string(i) + ": unknown dtype " +
             std::to_string(a.dtype));
        return nullptr;
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
      return nullptr;
    }
  }
  if (options) {
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
    if (options->target == BLOCKJIT_TARGET_CPU)
      launchOptions.target = TargetKind::CPU;
    else if (options->target == BLOCKJIT_TARGET_CUDA)
      launchOptions.target = TargetKind::CUDA;
    launchOptions.stream = options->stream;
  }
  return kernel->kernel.get();
}

} // namespace

extern "C" {

int blockjit_launch(const char *kernel, const blockjit_arg *args,
                    int32_t numArgs, const blockjit_launch_options *options) {
  llvm::SmallVector<Arg, 16> converted;
  LaunchOptions launchOptions;
  const KernelDef *def =
      prepare(kernel, args, numArgs, options, converted, launchOptions);
  if (!def)
    return 1;
  if (llvm::Error error = launch(*def, launchOptions, converted))
    return fail(llvm::toString(std::move(error)));
  return 0;
}

int blockjit_warmup(const char *kernel, const blockjit_arg *args,
                    int32_t numArgs, const blockjit_launch_options *options,
                    blockjit_kernel_info *info) {
  llvm::SmallVector<Arg, 16> converted;
  LaunchOptions launchOptions;
  const KernelDef *def =
      prepare(kernel, args, numArgs, options, converted, launchOptions);
  if (!def)
    return 1;
  auto result = warmup(*def, launchOptions, converted);
  if (!result)
    return fail(llvm::toString(result.takeError()));
  if (info)
    *info = {result->registers, result->sharedMemoryBytes,
             result->threadsPerProgram, result->maxProgramsPerProcessor,
             result->processors,   result->ctasPerProgram,
             result->maxResidentPrograms};
  return 0;
}

const char *blockjit_last_error(void) { return lastError.c_str(); }

const char *blockjit_kernel_names(void) {
  static thread_local std::string names;
  names.clear();
  for (const RegisteredKernel *k : registeredKernels())
    names += (names.empty() ? "" : ",") + k->name;
  return names.c_str();
}

} // extern "C"
