//===- DeviceBuffer.cpp - memory of a target's device, owned -------------===//
#include "runtime/DeviceBuffer.h"

#include <string>
#include <utility>

namespace blockjit {

llvm::Expected<DeviceBuffer> DeviceBuffer::allocate(TargetKind target,
                                                    size_t bytes, int device) {
  Executor &executor = executorFor(target);
  auto data = executor.allocate(bytes, device);
  if (!data)
    return data.takeError();
  return DeviceBuffer(executor, *data, bytes, device);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : executor(other.executor), data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)), device_(other.device_) {}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  std::swap(executor, other.executor);
  std::swap(data_, other.data_);
  std::swap(size_, other.size_);
  std::swap(device_, other.device_);
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (data_)
    executor->deallocate(data_, device_);
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

llvm::Error DeviceBuffer::uploadBytes(const void *host, size_t bytes,
                                      size_t offset) {
  if (llvm::Error e = checkRange(bytes, offset, "upload"))
    return e;
  if (!bytes)
    return llvm::Error::success();
  return executor->copyToDevice(static_cast<char *>(data_) + offset, host,
                                bytes, device_);
}

llvm::Error DeviceBuffer::downloadBytes(void *host, size_t bytes,
                                        size_t offset) const {
  if (llvm::Error e = checkRange(bytes, offset, "download"))
    return e;
  if (!bytes)
    return llvm::Error::success();
  return executor->copyToHost(host, static_cast<const char *>(data_) + offset,
                              bytes, device_);
}

llvm::Error DeviceBuffer::fill(uint8_t byte) {
  return executor->fill(data_, byte, size_, device_);
}

} // namespace blockjit
