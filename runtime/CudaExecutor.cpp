//===- CudaExecutor.cpp - load PTX and launch it on a CUDA device --------===//
#include "runtime/CudaExecutor.h"

#include "compiler/Compile.h"

#include "llvm/Support/Compiler.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace blockjit {

namespace {
// CUfunction_attribute values from cuda.h.
enum : int {
  kFuncSharedSizeBytes = 1,
  kFuncNumRegs = 4,
  kFuncMaxDynamicSharedSizeBytes = 8,
  kFuncNonPortableClusterSizeAllowed = 14,
};
// CUdevice_attribute values from cuda.h.
enum : int {
  kDeviceMaxSharedMemoryPerBlockOptin = 97,
  kDeviceClusterLaunch = 120,
};
/// Programs per cluster that every cluster-capable device launches.
constexpr int64_t kPortableClusterSize = 8;

llvm::Error cudaError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "CUDA target: " + message.str());
}

std::string str(const Grid &grid) {
  return llvm::formatv("({0}, {1}, {2})", grid.x, grid.y, grid.z);
}

cuda::CUfunction functionOf(const LoadedKernel &kernel) {
  return static_cast<cuda::CUfunction>(kernel.handle);
}

cuda::CUdeviceptr deviceAddress(const void *address) {
  return reinterpret_cast<cuda::CUdeviceptr>(address);
}

/// The cluster checks the driver would otherwise make, with messages that
/// name the launch (the grid positive is launch()'s check).
llvm::Error checkCluster(const Grid &grid, const Grid &cluster) {
  if (cluster.x < 1 || cluster.y < 1 || cluster.z < 1)
    return cudaError("cluster " + str(cluster) + " must be positive");
  if (grid.x % cluster.x || grid.y % cluster.y || grid.z % cluster.z)
    return cudaError("cluster " + str(cluster) + " does not divide the grid " +
                     str(grid) +
                     ": each grid dimension must be a multiple of the "
                     "cluster's");
  return llvm::Error::success();
}

/// The launch attribute that groups a launch's CTAs into clusters of `dims`.
cuda::CUlaunchAttribute clusterAttribute(const Grid &dims) {
  cuda::CUlaunchAttribute attribute = {};
  attribute.id = cuda::kLaunchAttributeClusterDimension;
  attribute.value.clusterDim = {unsigned(dims.x), unsigned(dims.y),
                                unsigned(dims.z)};
  return attribute;
}

int launchAttributeId(LaunchAttribute::Kind kind) {
  switch (kind) {
  case LaunchAttribute::Kind::Cooperative:
    return cuda::kLaunchAttributeCooperative;
  case LaunchAttribute::Kind::ProgrammaticStreamSerialization:
    return cuda::kLaunchAttributeProgrammaticStreamSerialization;
  case LaunchAttribute::Kind::Priority:
    return cuda::kLaunchAttributePriority;
  }
  return -1;
}
} // namespace

namespace {
/// The sm_XX of a device, asked of the driver once per device.
llvm::Expected<int> deviceArchSlow(int device) {
  static std::mutex mutex;
  static std::map<int, std::pair<int, std::string>> known; // arch, error
  std::lock_guard lock(mutex);
  auto it = known.find(device);
  if (it == known.end()) {
    auto props = cuda::deviceProperties(device);
    it = known
             .try_emplace(device, props ? props->smArch : 0,
                          props ? "" : llvm::toString(props.takeError()))
             .first;
  }
  if (!it->second.first)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the CUDA target needs device " +
                                       std::to_string(device) + ": " +
                                       it->second.second);
  return it->second.first;
}

/// deviceArchSlow without its lock on every launch: each thread remembers
/// the archs it has seen (a device's arch never changes).
llvm::Expected<int> deviceArch(int device) {
  thread_local int known[cuda::kMaxDevices] = {};
  if (device >= 0 && device < cuda::kMaxDevices && known[device])
    return known[device];
  auto arch = deviceArchSlow(device);
  if (arch && device >= 0 && device < cuda::kMaxDevices)
    known[device] = *arch;
  return arch;
}
} // namespace

llvm::Expected<Target> CudaExecutor::target(int device) {
  auto arch = deviceArch(device);
  if (!arch)
    return arch.takeError();
  return Target::cuda(*arch);
}

llvm::Expected<std::string> CudaExecutor::deviceName(int device) {
  auto props = cuda::deviceProperties(device);
  if (!props)
    return props.takeError();
  return props->name;
}

llvm::Error CudaExecutor::load(const CompiledArtifact &artifact,
                               llvm::StringRef /*uniqueName*/, int device,
                               LoadedKernel &kernel) {
  auto api = cuda::driverOn(device);
  if (!api)
    return api.takeError();
  cuda::CUmodule module;
  // std::string keeps PTX NUL-terminated, as cuModuleLoadData needs; a
  // cubin is an ELF image the driver reads as is.
  if (llvm::Error e =
          cuda::check(api->cuModuleLoadData(&module, artifact.binary.c_str()),
                      artifact.format == ArtifactFormat::Cubin
                          ? "cuModuleLoadData (the driver rejected the cubin)"
                          : "cuModuleLoadData (the driver rejected the PTX)"))
    return e;
  cuda::CUfunction function;
  if (llvm::Error e =
          cuda::check(api->cuModuleGetFunction(&function, module,
                                               artifact.entryName.c_str()),
                      "cuModuleGetFunction"))
    return e;
  int staticShared = 0, dynamicLimit = 0;
  if (llvm::Error e =
          cuda::check(api->cuFuncGetAttribute(&staticShared,
                                              kFuncSharedSizeBytes, function),
                      "cuFuncGetAttribute"))
    return e;
  if (llvm::Error e = cuda::check(
          api->cuFuncGetAttribute(&dynamicLimit, kFuncMaxDynamicSharedSizeBytes,
                                  function),
          "cuFuncGetAttribute"))
    return e;
  kernel.handle = function;
  kernel.device = device;
  kernel.threadsPerProgram = artifact.threadsPerProgram;
  kernel.ctasPerProgram = artifact.ctasPerProgram;
  kernel.programsPerCTA = artifact.programsPerCTA;
  kernel.staticSharedMemoryBytes = staticShared;
  kernel.kernelDynamicSharedMemoryBytes = artifact.dynamicSharedMemoryBytes;
  kernel.dynamicSharedMemoryLimit.store(dynamicLimit,
                                        std::memory_order_relaxed);
  return llvm::Error::success();
}

llvm::Expected<KernelResources>
CudaExecutor::resources(const LoadedKernel &kernel,
                        int dynamicSharedMemoryBytes) {
  if (dynamicSharedMemoryBytes < 0)
    return cudaError("dynamic shared memory of " +
                     llvm::Twine(dynamicSharedMemoryBytes) +
                     " bytes is negative");
  dynamicSharedMemoryBytes += kernel.kernelDynamicSharedMemoryBytes;
  auto api = cuda::driverOn(kernel.device);
  if (!api)
    return api.takeError();
  // Past 48 KB the function must opt in before occupancy counts it.
  if (llvm::Error e =
          allowDynamicSharedMemory(*api, kernel, dynamicSharedMemoryBytes))
    return std::move(e);
  auto props = cuda::deviceProperties(kernel.device);
  if (!props)
    return props.takeError();
  KernelResources resources;
  if (llvm::Error e =
          cuda::check(api->cuFuncGetAttribute(&resources.registers,
                                              kFuncNumRegs, functionOf(kernel)),
                      "cuFuncGetAttribute"))
    return std::move(e);
  int perSM = 0;
  if (llvm::Error e =
          cuda::check(api->cuOccupancyMaxActiveBlocksPerMultiprocessor(
                          &perSM, functionOf(kernel), threadsPerCTA(kernel),
                          size_t(dynamicSharedMemoryBytes)),
                      "cuOccupancyMaxActiveBlocksPerMultiprocessor"))
    return std::move(e);
  resources.sharedMemoryBytes =
      kernel.staticSharedMemoryBytes + kernel.kernelDynamicSharedMemoryBytes;
  resources.threadsPerProgram = kernel.threadsPerProgram;
  resources.ctasPerProgram = kernel.ctasPerProgram;
  resources.programsPerCTA = kernel.programsPerCTA;
  resources.maxProgramsPerProcessor =
      std::max(1, perSM) * kernel.programsPerCTA;
  resources.processors = props->smCount;
  resources.maxResidentPrograms =
      resources.processors * resources.maxProgramsPerProcessor;
  if (kernel.ctasPerProgram > 1) {
    // Clusters must fit within a GPC: the driver counts them for the whole
    // device, which is not SMs x CTAs per SM / cluster size.
    auto clusters = residentClusters(*api, kernel, dynamicSharedMemoryBytes);
    if (!clusters)
      return clusters.takeError();
    resources.maxResidentPrograms = std::max(1, *clusters);
  }
  return resources;
}

llvm::Expected<int>
CudaExecutor::residentClusters(const cuda::DriverAPI &api,
                               const LoadedKernel &kernel,
                               int dynamicSharedMemoryBytes) {
  if (!api.cuOccupancyMaxActiveClusters)
    return cuda::missingEntryPoint("cuOccupancyMaxActiveClusters",
                                   "the occupancy of a cluster kernel");
  if (llvm::Error e = allowClusterSize(api, kernel, kernel.ctasPerProgram))
    return std::move(e);
  if (llvm::Error e =
          allowDynamicSharedMemory(api, kernel, dynamicSharedMemoryBytes))
    return std::move(e);
  cuda::CUlaunchAttribute cluster =
      clusterAttribute({kernel.ctasPerProgram, 1, 1});
  cuda::CUlaunchConfig config = {unsigned(kernel.ctasPerProgram),
                                 1,
                                 1,
                                 unsigned(threadsPerCTA(kernel)),
                                 1,
                                 1,
                                 unsigned(dynamicSharedMemoryBytes),
                                 nullptr,
                                 &cluster,
                                 1};
  int clusters = 0;
  if (llvm::Error e = cuda::check(api.cuOccupancyMaxActiveClusters(
                                      &clusters, functionOf(kernel), &config),
                                  "cuOccupancyMaxActiveClusters"))
    return std::move(e);
  if (clusters < 1)
    return cudaError(llvm::formatv(
        "no cluster of {0} CTAs of {1} threads fits on device {2} at once",
        kernel.ctasPerProgram, kernel.threadsPerProgram, kernel.device));
  return clusters;
}

llvm::Error CudaExecutor::allowClusterSize(const cuda::DriverAPI &api,
                                           const LoadedKernel &kernel,
                                           int64_t ctas) {
  if (ctas <= kPortableClusterSize)
    return llvm::Error::success();
  // Idempotent; the driver still rejects sizes the device cannot run.
  if (!api.cuFuncSetAttribute)
    return cuda::missingEntryPoint("cuFuncSetAttribute",
                                   "a cluster above 8 CTAs");
  return cuda::check(api.cuFuncSetAttribute(functionOf(kernel),
                                            kFuncNonPortableClusterSizeAllowed,
                                            1),
                     "cuFuncSetAttribute (non-portable cluster sizes)");
}

llvm::Error CudaExecutor::launch(const LoadedKernel &kernel,
                                 const LaunchConfig &config, void **args) {
  auto api = cuda::driverOn(config.device);
  if (!api)
    return api.takeError();
  if (LLVM_UNLIKELY(!config.isPlain() || config.device != kernel.device ||
                    kernel.ctasPerProgram > 1 ||
                    kernel.kernelDynamicSharedMemoryBytes))
    return launchUnusual(*api, kernel, config, args);
  const Grid &grid = config.grid;
  return cuda::check(
      api->cuLaunchKernel(functionOf(kernel), ctasAlongX(kernel, grid.x),
                          grid.y, grid.z, threadsPerCTA(kernel), 1, 1, 0,
                          static_cast<cuda::CUstream>(config.stream), args,
                          nullptr),
      "cuLaunchKernel");
}

llvm::Error CudaExecutor::launchUnusual(const cuda::DriverAPI &api,
                                        const LoadedKernel &kernel,
                                        const LaunchConfig &config,
                                        void **args) {
  if (config.device != kernel.device)
    return cudaError("a kernel loaded on device " + llvm::Twine(kernel.device) +
                     " cannot run on device " + llvm::Twine(config.device));
  int dynamicShared = config.dynamicSharedMemoryBytes;
  if (dynamicShared < 0)
    return cudaError("dynamic shared memory of " + llvm::Twine(dynamicShared) +
                     " bytes is negative");
  dynamicShared += kernel.kernelDynamicSharedMemoryBytes;
  if (config.attributes.size() > LaunchConfig::kMaxLaunchAttributes)
    return cudaError(llvm::formatv("{0} launch attributes (at most {1})",
                                   config.attributes.size(),
                                   LaunchConfig::kMaxLaunchAttributes));
  // A program on a cluster: grid x ctas CTAs in clusters of ctas along x.
  Grid grid = config.grid, clusterDims = config.cluster;
  if (kernel.ctasPerProgram > 1) {
    if (!clusterDims.isOne())
      return cudaError(llvm::formatv(
          "the kernel runs each program on a cluster of {0} CTAs (num_ctas); "
          "a launch cluster of {1} cannot be given as well",
          kernel.ctasPerProgram, str(clusterDims)));
    int64_t ctas = int64_t(grid.x) * kernel.ctasPerProgram;
    if (ctas > INT32_MAX)
      return cudaError(llvm::formatv(
          "{0} programs of {1} CTAs exceed the {2} CTAs a grid holds along x",
          grid.x, kernel.ctasPerProgram, INT32_MAX));
    grid.x = int(ctas);
    clusterDims = {kernel.ctasPerProgram, 1, 1};
  }
  grid.x = int(ctasAlongX(kernel, grid.x));
  bool clustered = !clusterDims.isOne();
  if (clustered) {
    if (llvm::Error e = checkCluster(grid, clusterDims))
      return e;
    if (!launchesClusters(api, config.device))
      return cudaError("device " + llvm::Twine(config.device) +
                       " cannot launch clusters (they need sm_90 or newer)");
  }
  if (llvm::Error e = allowDynamicSharedMemory(api, kernel, dynamicShared))
    return e;

  auto stream = static_cast<cuda::CUstream>(config.stream);
  if (!clustered && config.attributes.empty())
    return cuda::check(api.cuLaunchKernel(functionOf(kernel), grid.x, grid.y,
                                          grid.z, threadsPerCTA(kernel), 1, 1,
                                          unsigned(dynamicShared), stream, args,
                                          nullptr),
                       "cuLaunchKernel");

  if (!api.cuLaunchKernelEx)
    return cuda::missingEntryPoint("cuLaunchKernelEx",
                                   "a launch with a cluster or attributes");
  cuda::CUlaunchAttribute attributes[LaunchConfig::kMaxLaunchAttributes + 1] =
      {};
  unsigned count = 0;
  if (clustered) {
    if (llvm::Error e = allowClusterSize(api, kernel, clusterDims.size()))
      return e;
    attributes[count++] = clusterAttribute(clusterDims);
  }
  unsigned seen = 0; // bit per LaunchAttribute::Kind
  for (const LaunchAttribute &attribute : config.attributes) {
    unsigned bit = 1u << unsigned(attribute.kind);
    if (seen & bit)
      return cudaError("a launch attribute is given twice");
    seen |= bit;
    cuda::CUlaunchAttribute &converted = attributes[count++];
    converted.id = launchAttributeId(attribute.kind);
    converted.value.value = attribute.value;
  }
  cuda::CUlaunchConfig launchConfig = {unsigned(grid.x),
                                       unsigned(grid.y),
                                       unsigned(grid.z),
                                       unsigned(threadsPerCTA(kernel)),
                                       1,
                                       1,
                                       unsigned(dynamicShared),
                                       stream,
                                       attributes,
                                       count};
  return cuda::check(
      api.cuLaunchKernelEx(&launchConfig, functionOf(kernel), args, nullptr),
      "cuLaunchKernelEx");
}

llvm::Error CudaExecutor::allowDynamicSharedMemory(const cuda::DriverAPI &api,
                                                   const LoadedKernel &kernel,
                                                   int bytes) {
  if (bytes <= kernel.dynamicSharedMemoryLimit.load(std::memory_order_acquire))
    return llvm::Error::success();
  if (!api.cuFuncSetAttribute)
    return cuda::missingEntryPoint(
        "cuFuncSetAttribute",
        llvm::formatv("dynamic shared memory of {0} bytes", bytes));
  // One raise at a time, so a smaller raise never undoes a larger one.
  std::lock_guard lock(limitsMutex);
  if (bytes <= kernel.dynamicSharedMemoryLimit.load(std::memory_order_relaxed))
    return llvm::Error::success();
  cuda::CUdevice device;
  int optIn = 0;
  if (llvm::Error e =
          cuda::check(api.cuDeviceGet(&device, kernel.device), "cuDeviceGet"))
    return e;
  if (llvm::Error e =
          cuda::check(api.cuDeviceGetAttribute(
                          &optIn, kDeviceMaxSharedMemoryPerBlockOptin, device),
                      "cuDeviceGetAttribute"))
    return e;
  if (int64_t(bytes) + kernel.staticSharedMemoryBytes > optIn)
    return cudaError(llvm::formatv(
        "dynamic shared memory of {0} bytes and the kernel's {1} static bytes "
        "exceed the {2} bytes a program may use on device {3}",
        bytes, kernel.staticSharedMemoryBytes, optIn, kernel.device));
  if (llvm::Error e = cuda::check(
          api.cuFuncSetAttribute(functionOf(kernel),
                                 kFuncMaxDynamicSharedSizeBytes, bytes),
          "cuFuncSetAttribute (dynamic shared memory)"))
    return e;
  kernel.dynamicSharedMemoryLimit.store(bytes, std::memory_order_release);
  return llvm::Error::success();
}

bool CudaExecutor::launchesClusters(const cuda::DriverAPI &api, int device) {
  // launch() made `device`'s context current, so the ordinal is valid.
  std::atomic<int8_t> &known = clusterSupport[device];
  if (int8_t answer = known.load(std::memory_order_relaxed))
    return answer > 0;
  cuda::CUdevice handle;
  int supported = 0;
  // A driver that does not know the attribute predates clusters.
  if (api.cuDeviceGet(&handle, device) != 0 ||
      api.cuDeviceGetAttribute(&supported, kDeviceClusterLaunch, handle) != 0)
    supported = 0;
  known.store(supported ? 1 : -1, std::memory_order_relaxed);
  return supported;
}

llvm::Expected<void *> CudaExecutor::allocate(size_t bytes, int device) {
  auto api = cuda::driverOn(device);
  if (!api)
    return api.takeError();
  cuda::CUdeviceptr address = 0;
  bytes = std::max<size_t>(1, bytes); // cuMemAlloc rejects 0 bytes
  if (llvm::Error e =
          cuda::check(api->cuMemAlloc(&address, bytes), "cuMemAlloc"))
    return std::move(e);
  return reinterpret_cast<void *>(address);
}

void CudaExecutor::deallocate(void *address, int device) {
  if (!address)
    return;
  if (auto api = cuda::driverOn(device))
    api->cuMemFree(deviceAddress(address));
  else
    llvm::consumeError(api.takeError());
}

llvm::Error CudaExecutor::copyToDevice(void *address, const void *host,
                                       size_t bytes, int device) {
  if (!bytes)
    return llvm::Error::success();
  auto api = cuda::driverOn(device);
  if (!api)
    return api.takeError();
  return cuda::check(api->cuMemcpyHtoD(deviceAddress(address), host, bytes),
                     "cuMemcpyHtoD");
}

llvm::Error CudaExecutor::copyToHost(void *host, const void *address,
                                     size_t bytes, int device) {
  if (!bytes)
    return llvm::Error::success();
  auto api = cuda::driverOn(device);
  if (!api)
    return api.takeError();
  return cuda::check(api->cuMemcpyDtoH(host, deviceAddress(address), bytes),
                     "cuMemcpyDtoH");
}

llvm::Error CudaExecutor::fill(void *address, uint8_t byte, size_t bytes,
                               int device) {
  if (!bytes)
    return llvm::Error::success();
  auto api = cuda::driverOn(device);
  if (!api)
    return api.takeError();
  return cuda::check(api->cuMemsetD8(deviceAddress(address), byte, bytes),
                     "cuMemsetD8");
}

llvm::Error CudaExecutor::fillOnStream(void *address, uint8_t byte,
                                       size_t bytes, void *stream,
                                       int device) {
  if (!bytes)
    return llvm::Error::success();
  auto api = cuda::driverOn(device);
  if (!api)
    return api.takeError();
  return cuda::check(api->cuMemsetD8Async(deviceAddress(address), byte, bytes,
                                          static_cast<cuda::CUstream>(stream)),
                     "cuMemsetD8Async");
}

llvm::Error CudaExecutor::flushCacheOnStream(void *scratch, uint8_t byte,
                                             size_t bytes, void *stream,
                                             int device) {
  auto api = cuda::driverOn(device);
  if (!api)
    return api.takeError();
  // The reset is not stream-ordered: it waits for the runs before it, or
  // one still running could leave lines persisting after it. A driver
  // without it (before CUDA 11.0), or a device that does not support it,
  // has no persisting lines either.
  if (api->cuCtxResetPersistingL2Cache) {
    if (llvm::Error e = cuda::check(
            api->cuStreamSynchronize(static_cast<cuda::CUstream>(stream)),
            "cuStreamSynchronize"))
      return e;
    cuda::CUresult reset = api->cuCtxResetPersistingL2Cache();
    if (reset != cuda::kErrorNotSupported)
      if (llvm::Error e = cuda::check(reset, "cuCtxResetPersistingL2Cache"))
        return e;
  }
  return fillOnStream(scratch, byte, bytes, stream, device);
}

llvm::Error CudaExecutor::copyOnStream(void *to, const void *from, size_t bytes,
                                       void *stream, int device) {
  if (!bytes)
    return llvm::Error::success();
  auto api = cuda::driverOn(device);
  if (!api)
    return api.takeError();
  return cuda::check(api->cuMemcpyDtoDAsync(deviceAddress(to),
                                            deviceAddress(from), bytes,
                                            static_cast<cuda::CUstream>(stream)),
                     "cuMemcpyDtoDAsync");
}

llvm::Error CudaExecutor::synchronize(int device) {
  auto api = cuda::driverOn(device);
  if (!api)
    return api.takeError();
  return cuda::check(api->cuCtxSynchronize(), "cuCtxSynchronize");
}

llvm::Expected<void *> CudaExecutor::createEvent(int device) {
  auto api = cuda::driverOn(device);
  if (!api)
    return api.takeError();
  cuda::CUevent event;
  if (llvm::Error e =
          cuda::check(api->cuEventCreate(&event, 0), "cuEventCreate"))
    return std::move(e);
  return event;
}

void CudaExecutor::destroyEvent(void *event, int device) {
  if (!event)
    return;
  if (auto api = cuda::driverOn(device))
    api->cuEventDestroy(static_cast<cuda::CUevent>(event));
  else
    llvm::consumeError(api.takeError());
}

llvm::Error CudaExecutor::recordEvent(void *event, void *stream, int device) {
  auto api = cuda::driverOn(device);
  if (!api)
    return api.takeError();
  return cuda::check(api->cuEventRecord(static_cast<cuda::CUevent>(event),
                                        static_cast<cuda::CUstream>(stream)),
                     "cuEventRecord");
}

llvm::Error CudaExecutor::synchronizeEvent(void *event, int device) {
  auto api = cuda::driverOn(device);
  if (!api)
    return api.takeError();
  return cuda::check(api->cuEventSynchronize(static_cast<cuda::CUevent>(event)),
                     "cuEventSynchronize");
}

llvm::Expected<float> CudaExecutor::elapsedMilliseconds(void *start, void *end,
                                                        int device) {
  auto api = cuda::driverOn(device);
  if (!api)
    return api.takeError();
  float milliseconds = 0;
  if (llvm::Error e =
          cuda::check(api->cuEventElapsedTime(&milliseconds,
                                              static_cast<cuda::CUevent>(start),
                                              static_cast<cuda::CUevent>(end)),
                      "cuEventElapsedTime"))
    return std::move(e);
  return milliseconds;
}

} // namespace blockjit
