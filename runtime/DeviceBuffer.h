//===- DeviceBuffer.h - memory of a target's device, owned ------*- C++ -*-===//
//
// Memory on one device of a target, freed with its owner, with the copies
// programs need around a launch; built on the target's Executor, so one
// buffer type serves the CPU (host memory) and CUDA devices alike. Every
// program that needs device buffers uses this instead of driver calls.
//
//   auto in = DeviceBuffer::copyOf(target, llvm::ArrayRef(host));
//   auto out = DeviceBuffer::allocate(target, host.size() * sizeof(float));
//   if (!in || !out) ...
//   launch(kernel, options, {out->arg<float>(), in->arg<float>(), ...});
//   executorFor(target).synchronize(0);
//   if (llvm::Error e = out->download(llvm::MutableArrayRef(host))) ...
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_RUNTIME_DEVICEBUFFER_H
#define BLOCKJIT_RUNTIME_DEVICEBUFFER_H

#include "runtime/Executor.h"
#include "runtime/Launch.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace blockjit {

class DeviceBuffer {
public:
  /// `bytes` of memory (at least one byte is allocated, 256-byte aligned)
  /// on `device` of `target`.
  static llvm::Expected<DeviceBuffer> allocate(TargetKind target, size_t bytes,
                                               int device = 0);
  /// A buffer holding a copy of `host`.
  template <typename T>
  static llvm::Expected<DeviceBuffer>
  copyOf(TargetKind target, llvm::ArrayRef<T> host, int device = 0) {
    auto buffer = allocate(target, host.size() * sizeof(T), device);
    if (buffer)
      if (llvm::Error e = buffer->upload(host))
        return std::move(e);
    return buffer;
  }

  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer();

  /// Copies `bytes` from `host` to the buffer at byte `offset`.
  llvm::Error uploadBytes(const void *host, size_t bytes, size_t offset = 0);
  /// Copies `bytes` at byte `offset` back to `host` (after the work issued
  /// before on the default stream, e.g. the kernel that writes them).
  llvm::Error downloadBytes(void *host, size_t bytes, size_t offset = 0) const;
  /// Sets every byte to `byte`.
  llvm::Error fill(uint8_t byte);

  /// Elements of `host` to the buffer, starting at element `at`.
  template <typename T>
  llvm::Error upload(llvm::ArrayRef<T> host, size_t at = 0) {
    return uploadBytes(host.data(), host.size() * sizeof(T), at * sizeof(T));
  }
  /// Elements from element `at` on back to `host` (as many as it holds).
  template <typename T>
  llvm::Error download(llvm::MutableArrayRef<T> host, size_t at = 0) const {
    return downloadBytes(host.data(), host.size() * sizeof(T), at * sizeof(T));
  }
  template <typename T>
  llvm::Error upload(const std::vector<T> &host, size_t at = 0) {
    return upload(llvm::ArrayRef<T>(host), at);
  }
  template <typename T>
  llvm::Error download(std::vector<T> &host, size_t at = 0) const {
    return download(llvm::MutableArrayRef<T>(host), at);
  }

  /// The address kernels of the target take.
  void *data() const { return data_; }
  template <typename T> T *data() const { return static_cast<T *>(data_); }
  size_t size() const { return size_; }
  TargetKind target() const { return executor->kind(); }
  int device() const { return device_; }
  /// A launch argument pointing to the buffer's elements of type `dtype`.
  Arg arg(DType dtype) const { return Arg::typedPointer(data_, dtype); }
  template <typename T> Arg arg() const { return Arg(data<T>()); }

private:
  DeviceBuffer(Executor &executor, void *data, size_t size, int device)
      : executor(&executor), data_(data), size_(size), device_(device) {}
  llvm::Error checkRange(size_t bytes, size_t offset, const char *what) const;

  Executor *executor;
  void *data_ = nullptr;
  size_t size_ = 0;
  int device_ = 0;
};

} // namespace blockjit

#endif // BLOCKJIT_RUNTIME_DEVICEBUFFER_H
