//===- ThreadPool.h - the host threads that run a CPU grid -----*- C++ -*-===//
//
// A fixed set of worker threads that split a range of program indices.
// Programs go out in contiguous chunks (one atomic per chunk, about four
// per thread), the calling thread works too, and a grid of few chunks wakes
// only the workers it can use. A worker that finishes, and a caller waiting
// for workers, spin for a while before sleeping: waking a sleeping thread
// costs tens of microseconds, as long as a whole small grid (OpenMP runtimes
// spin likewise between parallel regions).
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

  const std::chrono::microseconds spin;
  std::vector<std::thread> workers;
  std::mutex mutex, runMutex;
  std::condition_variable wake, done;
  const std::function<void(int64_t, int64_t)> *task = nullptr;
  int64_t count = 0, chunkSize = 1;
  std::atomic<int64_t> next{0};
  /// Places a grid still offers to workers; the caller closes them (0) once
  /// it has drained the chunks.
  unsigned wanted = 0;
  /// Workers that took a place of the current grid and have not finished.
  std::atomic<unsigned> busy{0};
  uint64_t generation = 0;
  std::atomic<uint64_t> published{0}; // generation, read without the lock
  std::atomic<bool> stopping{false};
};

} // namespace blockjit

#endif // BLOCKJIT_RUNTIME_THREADPOOL_H
