//===- DeviceBuffer.cpp - device memory for examples, benches, tests -----===//
#include "runtime/DeviceBuffer.h"

#include "runtime/CudaDriver.h"

#include <algorithm>
#include <string>
#include <utility>

namespace blockjit {

llvm::Expected<DeviceBuffer> DeviceBuffer::allocate(size_t bytes, int device) {
  auto api = cuda::driverOn(device);
  if (!api)
    return api.takeError();
  cuda::CUdeviceptr address = 0;
  bytes = std::max<size_t>(1, bytes); // cuMemAlloc rejects 0 bytes
  if (llvm::Error e =
          cuda::check(api->cuMemAlloc(&address, bytes), "cuMemAlloc"))
    return std::move(e);
  return DeviceBuffer(address, bytes, device);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : address_(std::exchange(other.address_, 0)),
      size_(std::exchange(other.size_, 0)), device_(other.device_) {}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  std::swap(address_, other.address_);
  std::swap(size_, other.size_);
  std::swap(device_, other.device_);
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (!address_)
    return;
  if (auto api = cuda::driverOn(device_)) {
    api->cuMemFree(address_);
  } else {
    llvm::consumeError(api.takeError());
  }
}

llvm::Error DeviceBuffer::checkRange(size_t bytes, size_t offset,
                                     const char *what) const {
  if (offset > size_ || bytes > size_ - offset)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        std::string(what) + " of " + std::to_string(bytes) +
            " bytes at offset " + std::to_string(offset) +
            " is outside the device buffer of " + std::to_string(size_) +
            " bytes");
  return llvm::Error::success();
}

llvm::Error DeviceBuffer::upload(const void *host, size_t bytes,
                                 size_t offset) {
  if (llvm::Error e = checkRange(bytes, offset, "upload"))
    return e;
  if (!bytes)
    return llvm::Error::success();
  auto api = cuda::driverOn(device_);
  if (!api)
    return api.takeError();
  return cuda::check(api->cuMemcpyHtoD(address_ + offset, host, bytes),
                     "cuMemcpyHtoD");
}

llvm::Error DeviceBuffer::download(void *host, size_t bytes,
                                   size_t offset) const {
  if (llvm::Error e = checkRange(bytes, offset, "download"))
    return e;
  if (!bytes)
    return llvm::Error::success();
  auto api = cuda::driverOn(device_);
  if (!api)
    return api.takeError();
  return cuda::check(api->cuMemcpyDtoH(host, address_ + offset, bytes),
                     "cuMemcpyDtoH");
}

llvm::Error synchronizeDevice(int device) {
  auto api = cuda::driverOn(device);
  if (!api)
    return api.takeError();
  return cuda::check(api->cuCtxSynchronize(), "cuCtxSynchronize");
}

} // namespace blockjit
