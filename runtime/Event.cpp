//===- Event.cpp - a point in a stream's work, for timing it -------------===//
#include "runtime/Event.h"

#include <utility>

namespace blockjit {

namespace {
llvm::Error movedFrom() {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "use of a moved-from Event");
}
} // namespace

llvm::Expected<Event> Event::create(TargetKind target, int device) {
  Executor &executor = executorFor(target);
  auto handle = executor.createEvent(device);
  if (!handle)
    return handle.takeError();
  return Event(executor, *handle, device);
}

Event::Event(Event &&other) noexcept
    : executor(other.executor), handle(std::exchange(other.handle, nullptr)),
      device_(other.device_) {}

Event &Event::operator=(Event &&other) noexcept {
  std::swap(executor, other.executor);
  std::swap(handle, other.handle);
  std::swap(device_, other.device_);
  return *this;
}

Event::~Event() {
  if (handle)
    executor->destroyEvent(handle, device_);
}

llvm::Error Event::record(void *stream) {
  if (!handle)
    return movedFrom();
  return executor->recordEvent(handle, stream, device_);
}

llvm::Error Event::synchronize() {
  if (!handle)
    return movedFrom();
  return executor->synchronizeEvent(handle, device_);
}

llvm::Expected<float> Event::elapsedMilliseconds(const Event &start,
                                                 const Event &end) {
  if (start.executor != end.executor || start.device_ != end.device_)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "elapsed time between events of different targets or devices");
  if (!start.handle || !end.handle)
    return movedFrom();
  if (llvm::Error e = end.executor->synchronizeEvent(end.handle, end.device_))
    return std::move(e);
  return end.executor->elapsedMilliseconds(start.handle, end.handle,
                                           end.device_);
}

} // namespace blockjit
