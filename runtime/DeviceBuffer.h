//===- DeviceBuffer.h - device memory for examples, benches, tests -*- C++
//-*-===//
//
// Memory on a CUDA device, freed with its owner, with the copies programs
// need around a launch. Every program that needs device buffers uses this
// instead of calling the driver by hand.
//
//   auto in = DeviceBuffer::allocate(bytes);          // llvm::Expected
//   if (llvm::Error e = in->upload(host.data(), bytes)) ...
//   launch(kernel, options, {out->arg(DType::F32), in->arg(DType::F32), ...});
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_RUNTIME_DEVICEBUFFER_H
#define BLOCKJIT_RUNTIME_DEVICEBUFFER_H

#include "runtime/Launch.h"

#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>

namespace blockjit {

class DeviceBuffer {
public:
  /// `bytes` (at least one) of memory on CUDA device `device`.
  static llvm::Expected<DeviceBuffer> allocate(size_t bytes, int device = 0);

  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer();

  /// Copies `bytes` from `host` to the buffer at byte `offset` (synchronous).
  llvm::Error upload(const void *host, size_t bytes, size_t offset = 0);
  /// Copies `bytes` at byte `offset` back to `host` (synchronous: it waits
  /// for the work that writes them on the default stream).
  llvm::Error download(void *host, size_t bytes, size_t offset = 0) const;

  /// The device address.
  uint64_t address() const { return address_; }
  void *data() const { return reinterpret_cast<void *>(address_); }
  size_t size() const { return size_; }
  int device() const { return device_; }
  /// A launch argument pointing to the buffer's elements of type `dtype`.
  Arg arg(DType dtype) const { return Arg::typedPointer(data(), dtype); }

private:
  DeviceBuffer(uint64_t address, size_t size, int device)
      : address_(address), size_(size), device_(device) {}
  llvm::Error checkRange(size_t bytes, size_t offset, const char *what) const;

  uint64_t address_ = 0;
  size_t size_ = 0;
  int device_ = 0;
};

/// Waits for all work on CUDA device `device`; reports a kernel's fault.
llvm::Error synchronizeDevice(int device = 0);

} // namespace blockjit

#endif // BLOCKJIT_RUNTIME_DEVICEBUFFER_H
