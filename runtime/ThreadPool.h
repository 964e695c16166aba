//===- ThreadPool.h - the host threads that run a CPU grid -----*- C++ -*-===//
//
// A fixed set of worker threads that split a range of program indices.
// Programs go out in contiguous chunks (one atomic per chunk, guided: long
// ones first, short ones last), the calling thread works too, and a grid of
// few chunks wakes only the workers it can use. A worker that finishes, and
// a caller waiting for workers, spin for a while before sleeping: waking a
// sleeping thread costs tens of microseconds, as long as a whole small grid
// (OpenMP runtimes spin likewise between parallel regions).
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_RUNTIME_THREADPOOL_H
#define BLOCKJIT_RUNTIME_THREADPOOL_H

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace blockjit {

class ThreadPool {
public:
  /// `threads` in all, the caller included (threads - 1 workers); idle
  /// threads spin for `spin` before sleeping.
  ThreadPool(unsigned threads, std::chrono::microseconds spin);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  unsigned size() const { return unsigned(workers.size()) + 1; }

  /// Calls task(begin, end) on contiguous chunks covering [0, count) and
  /// returns when all are done; the caller works too. One grid at a time.
  /// `task` must not throw: workers may still be calling it.
  void run(int64_t count, const std::function<void(int64_t, int64_t)> &task);

private:
  template <typename Condition> void spinWhile(Condition condition) const;
  void drain();
  void work();

  /// The current grid's offer: its generation in the high 32 bits, the
  /// places it still offers to workers in the low 32. Workers claim a place
  /// with a compare-and-swap, so the workers awake when a grid is published
  /// join it without a lock (a mutex there lined 15 workers up one behind
  /// another: tens of microseconds on a 16-thread VM, as long as a grid).
  static constexpr uint64_t generationOf(uint64_t offer) { return offer >> 32; }
  static constexpr uint64_t placesOf(uint64_t offer) {
    return offer & 0xffffffffu;
  }

  const std::chrono::microseconds spin;
  std::vector<std::thread> workers;
  std::mutex mutex, runMutex;
  std::condition_variable wake, done;
  // The grid: written by the caller before it publishes `offer`, read by
  // the workers that claimed a place of it.
  const std::function<void(int64_t, int64_t)> *task = nullptr;
  int64_t count = 0, chunkSize = 1;
  std::atomic<int64_t> next{0};
  uint64_t generation = 0; // the caller's
  std::atomic<uint64_t> offer{0};
  /// Workers between looking at an offer and finishing the grid they
  /// claimed (or giving up): the caller returns only once it is 0.
  std::atomic<unsigned> busy{0};
  /// Workers asleep on `wake` (or about to be).
  std::atomic<unsigned> sleepers{0};
  std::atomic<bool> stopping{false};
};

} // namespace blockjit

#endif // BLOCKJIT_RUNTIME_THREADPOOL_H
