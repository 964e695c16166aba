//===- Event.h - a point in a stream's work, for timing it -----*- C++ -*-===//
//
// An event of one device of a target (Executor.h), destroyed with its owner:
//
//   auto start = Event::create(target), end = Event::create(target);
//   if (!start || !end) ...
//   start->record(stream);  ... launches on `stream` ...  end->record(stream);
//   llvm::Expected<float> ms = Event::elapsedMilliseconds(*start, *end);
//
// On the CPU, whose launches are synchronous, an event records the host
// clock.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_RUNTIME_EVENT_H
#define BLOCKJIT_RUNTIME_EVENT_H

#include "runtime/Executor.h"

#include "llvm/Support/Error.h"

namespace blockjit {

class Event {
public:
  static llvm::Expected<Event> create(TargetKind target, int device = 0);

  Event(Event &&other) noexcept;
  Event &operator=(Event &&other) noexcept;
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
  ~Event();

  /// Marks the point after the work issued so far on `stream` (a CUstream
  /// of the event's device on CUDA; null is the default stream).
  llvm::Error record(void *stream = nullptr);
  /// Waits until the work before the recorded point is done.
  llvm::Error synchronize();
  /// Waits for `end`, then returns the milliseconds between the two
  /// recorded points (events of one target and device).
  static llvm::Expected<float> elapsedMilliseconds(const Event &start,
                                                   const Event &end);

  TargetKind target() const { return executor->kind(); }
  int device() const { return device_; }

private:
  Event(Executor &executor, void *handle, int device)
      : executor(&executor), handle(handle), device_(device) {}

  Executor *executor;
  void *handle;
  int device_;
};

} // namespace blockjit

#endif // BLOCKJIT_RUNTIME_EVENT_H
