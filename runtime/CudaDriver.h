//===- CudaDriver.h - the CUDA driver API, loaded at run time --*- C++ -*-===//
//
// blockjit has no link-time CUDA dependency: libcuda.so.1 is opened with
// dlopen on first use. Machines without it get a clear error and keep the
// CPU backend.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_RUNTIME_CUDADRIVER_H
#define BLOCKJIT_RUNTIME_CUDADRIVER_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <string>

namespace blockjit::cuda {

/// CUDA devices blockjit addresses (ordinals 0 .. kMaxDevices-1): the one
/// limit for contexts, loaded modules and per-device memos.
inline constexpr int kMaxDevices = 16;

using CUresult = int;
using CUdevice = int;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUdeviceptr = unsigned long long;
using CUevent = struct CUevent_st *;

/// CUresult values from cuda.h that blockjit tells apart.
enum : CUresult { kErrorNotSupported = 801 };

/// cuLaunchKernelEx's description of a launch (cuda.h, CUDA 12.0).
struct CUlaunchAttribute {
  int id; // CUlaunchAttributeID
  char pad[4];
  union alignas(8) { // cuda.h's holds pointers
    char bytes[64];
    struct {
      unsigned x, y, z;
    } clusterDim;
    int value; // cooperative, priority, programmaticStreamSerializationAllowed
  } value;
};
static_assert(sizeof(CUlaunchAttribute) == 72, "cuda.h's layout");

struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned numAttrs;
};

/// CUlaunchAttributeID values from cuda.h.
enum : int {
  kLaunchAttributeCooperative = 2,
  kLaunchAttributeClusterDimension = 4,
  kLaunchAttributeProgrammaticStreamSerialization = 6,
  kLaunchAttributePriority = 8,
};

/// The driver entry points blockjit uses. Those marked optional are null
/// when the driver is older than they are; only the launches that need them
/// fail then (with an error naming the entry point).
struct DriverAPI {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncGetAttribute)(int *, int, CUfunction);
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction,
                                                          int, size_t);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  // Optional: launches with a cluster or launch attributes (CUDA 12.0).
  CUresult (*cuLaunchKernelEx)(const CUlaunchConfig *, CUfunction, void **,
                               void **);
  // Optional: raising a function's dynamic shared memory or cluster size
  // limits (CUDA 9.0 and 11.8).
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  // Optional: how many clusters of a launch can be resident at once
  // (CUDA 11.8).
  CUresult (*cuOccupancyMaxActiveClusters)(int *, CUfunction,
                                           const CUlaunchConfig *);
  // Optional: returning persisting L2 lines to normal (CUDA 11.0).
  CUresult (*cuCtxResetPersistingL2Cache)();
};

/// An error for a DriverAPI entry point that this driver lacks; `neededFor`
/// says what asked for it.
llvm::Error missingEntryPoint(const char *name, const llvm::Twine &neededFor);

/// Makes device `ordinal`'s primary context current on this thread (the one
/// the CUDA runtime and PyTorch use, so their pointers work here).
llvm::Error useDevice(int ordinal = 0);

/// The loaded driver, or an error saying why there is none.
llvm::Expected<const DriverAPI &> driver();

/// The driver, with device `ordinal`'s context current on this thread: what
/// every call that works on one device needs first.
llvm::Expected<const DriverAPI &> driverOn(int ordinal);

/// Turns a CUresult into an error naming the call (success when 0).
llvm::Error check(CUresult result, const char *call);

/// What a launch needs to know about a device.
struct DeviceProperties {
  std::string name;
  int smCount = 0;
  int smArch = 0; // major * 10 + minor
  int warpSize = 32;
  int registersPerSM = 0;
  int sharedMemoryPerSM = 0; // bytes
  int maxThreadsPerSM = 0;
};

int deviceCount(); // 0 when there is no driver
llvm::Expected<DeviceProperties> deviceProperties(int ordinal);

} // namespace blockjit::cuda

#endif // BLOCKJIT_RUNTIME_CUDADRIVER_H
