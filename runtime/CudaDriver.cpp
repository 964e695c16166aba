//===- CudaDriver.cpp - the CUDA driver API, loaded at run time ----------===//
#include "runtime/CudaDriver.h"

#include "llvm/Support/FormatVariadic.h"

#include <dlfcn.h>
#include <mutex>

namespace blockjit::cuda {

namespace {
// CUdevice_attribute values from cuda.h.
enum : int {
  kMaxThreadsPerSM = 39,
  kSMCount = 16,
  kWarpSize = 10,
  kRegistersPerSM = 82,
  kSharedMemoryPerSM = 81,
  kMajor = 75,
  kMinor = 76,
};
} // namespace

namespace {
struct LoadedDriver {
  DriverAPI api;
  std::string error;
};

LoadedDriver loadDriver() {
  LoadedDriver loaded;
  DriverAPI &api = loaded.api;
  std::string &error = loaded.error;
  {
    void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      error = std::string("no CUDA driver (dlopen libcuda.so.1: ") + dlerror() +
              "); use the CPU target";
      return loaded;
    }
    auto bind = [&](auto &slot, const char *name) {
      slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(
          dlsym(library, name));
      if (!slot && error.empty())
        error = std::string("the CUDA driver lacks ") + name;
    };
    bind(api.cuInit, "cuInit");
    bind(api.cuDeviceGetCount, "cuDeviceGetCount");
    bind(api.cuDeviceGet, "cuDeviceGet");
    bind(api.cuDeviceGetName, "cuDeviceGetName");
    bind(api.cuDeviceGetAttribute, "cuDeviceGetAttribute");
    bind(api.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    bind(api.cuCtxSetCurrent, "cuCtxSetCurrent");
    bind(api.cuGetErrorString, "cuGetErrorString");
    bind(api.cuModuleLoadData, "cuModuleLoadData");
    bind(api.cuModuleGetFunction, "cuModuleGetFunction");
    bind(api.cuFuncGetAttribute, "cuFuncGetAttribute");
    bind(api.cuOccupancyMaxActiveBlocksPerMultiprocessor,
         "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    bind(api.cuLaunchKernel, "cuLaunchKernel");
    bind(api.cuMemAlloc, "cuMemAlloc_v2");
    bind(api.cuMemFree, "cuMemFree_v2");
    bind(api.cuMemcpyHtoD, "cuMemcpyHtoD_v2");
    bind(api.cuMemcpyDtoH, "cuMemcpyDtoH_v2");
    bind(api.cuMemsetD8, "cuMemsetD8_v2");
    bind(api.cuMemsetD8Async, "cuMemsetD8Async");
    bind(api.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
    bind(api.cuCtxSynchronize, "cuCtxSynchronize");
    bind(api.cuStreamSynchronize, "cuStreamSynchronize");
    bind(api.cuEventCreate, "cuEventCreate");
    bind(api.cuEventDestroy, "cuEventDestroy_v2");
    bind(api.cuEventRecord, "cuEventRecord");
    bind(api.cuEventSynchronize, "cuEventSynchronize");
    bind(api.cuEventElapsedTime, "cuEventElapsedTime");
    // Optional: null when absent (see DriverAPI).
    auto bindOptional = [&](auto &slot, const char *name) {
      slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(
          dlsym(library, name));
    };
    bindOptional(api.cuLaunchKernelEx, "cuLaunchKernelEx");
    bindOptional(api.cuFuncSetAttribute, "cuFuncSetAttribute");
    bindOptional(api.cuOccupancyMaxActiveClusters,
                 "cuOccupancyMaxActiveClusters");
    bindOptional(api.cuCtxResetPersistingL2Cache,
                 "cuCtxResetPersistingL2Cache");
    if (error.empty() && api.cuInit(0) != 0)
      error = "cuInit failed: no usable CUDA device";
  }
  return loaded;
}
} // namespace

llvm::Expected<const DriverAPI &> driver() {
  // A function-local static: after the first call, one guard load (every
  // launch asks for the driver).
  static const LoadedDriver loaded = loadDriver();
  if (!loaded.error.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   loaded.error);
  return loaded.api;
}

llvm::Expected<const DriverAPI &> driverOn(int ordinal) {
  if (llvm::Error e = useDevice(ordinal))
    return std::move(e);
  return driver();
}

llvm::Error check(CUresult result, const char *call) {
  if (result == 0)
    return llvm::Error::success();
  const char *text = "unknown error";
  if (auto api = driver(); api && api->cuGetErrorString)
    api->cuGetErrorString(result, &text);
  else if (!api)
    llvm::consumeError(api.takeError());
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv("{0} failed: {1} (CUresult {2})", call, text, result));
}

llvm::Error missingEntryPoint(const char *name, const llvm::Twine &neededFor) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv("the CUDA driver lacks {0}, which {1} needs; a newer "
                    "driver has it",
                    name, neededFor.str()));
}

namespace {
/// An error for an ordinal that names no device, checked before the driver
/// is asked about it (which would report an API error).
llvm::Error checkOrdinal(int ordinal) {
  int count = deviceCount();
  if (ordinal >= 0 && ordinal < count && ordinal < kMaxDevices)
    return llvm::Error::success();
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "no CUDA device %d (this machine has %d; blockjit addresses at most "
      "%d)",
      ordinal, count, kMaxDevices);
}
} // namespace

llvm::Error useDevice(int ordinal) {
  // The common case, every launch from one thread to one device: done.
  thread_local int current = -1;
  if (current == ordinal && ordinal >= 0)
    return llvm::Error::success();
  auto api = driver();
  if (!api)
    return api.takeError();
  static std::mutex mutex;
  static CUcontext contexts[kMaxDevices] = {};
  if (llvm::Error e = checkOrdinal(ordinal))
    return e;
  CUcontext context;
  {
    std::lock_guard lock(mutex);
    if (!contexts[ordinal]) {
      CUdevice device;
      if (llvm::Error e =
              check(api->cuDeviceGet(&device, ordinal), "cuDeviceGet"))
        return e;
      if (llvm::Error e =
              check(api->cuDevicePrimaryCtxRetain(&contexts[ordinal], device),
                    "cuDevicePrimaryCtxRetain"))
        return e;
    }
    context = contexts[ordinal];
  }
  if (llvm::Error e = check(api->cuCtxSetCurrent(context), "cuCtxSetCurrent"))
    return e;
  current = ordinal;
  return llvm::Error::success();
}

int deviceCount() {
  auto api = driver();
  if (!api) {
    llvm::consumeError(api.takeError());
    return 0;
  }
  int count = 0;
  if (api->cuDeviceGetCount(&count) != 0)
    return 0;
  return count;
}

llvm::Expected<DeviceProperties> deviceProperties(int ordinal) {
  auto api = driver();
  if (!api)
    return api.takeError();
  if (llvm::Error e = checkOrdinal(ordinal))
    return std::move(e);
  CUdevice device;
  if (llvm::Error e = check(api->cuDeviceGet(&device, ordinal), "cuDeviceGet"))
    return std::move(e);
  DeviceProperties props;
  char name[256] = {};
  if (llvm::Error e = check(api->cuDeviceGetName(name, sizeof(name), device),
                            "cuDeviceGetName"))
    return std::move(e);
  props.name = name;
  int major = 0, minor = 0;
  std::pair<int *, int> queries[] = {
      {&props.smCount, kSMCount},
      {&props.warpSize, kWarpSize},
      {&props.registersPerSM, kRegistersPerSM},
      {&props.sharedMemoryPerSM, kSharedMemoryPerSM},
      {&props.maxThreadsPerSM, kMaxThreadsPerSM},
      {&major, kMajor},
      {&minor, kMinor}};
  for (auto [slot, attribute] : queries)
    if (llvm::Error e =
            check(api->cuDeviceGetAttribute(slot, attribute, device),
                  "cuDeviceGetAttribute"))
      return std::move(e);
  props.smArch = major * 10 + minor;
  return props;
}

} // namespace blockjit::cuda
