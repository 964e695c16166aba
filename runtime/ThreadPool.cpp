//===- ThreadPool.cpp - the host threads that run a CPU grid -------------===//
//
// The caller waits only for the workers that actually took a place of its
// grid: each taker counts itself in `busy` under the lock, and the caller
// closes the remaining places under the lock once it has drained the
// chunks. A wake-up is therefore never needed for completion: a worker that
// finished its chunk and went back to waiting can absorb one of the
// caller's notify_one calls (its own generation is already seen, so it
// sleeps on), leaving a place that nobody takes; counting places instead of
// takers waited for that place forever (a 49-program grid on 64 threads
// hung the differential suite).
//
//===----------------------------------------------------------------------===//
#include "runtime/ThreadPool.h"

#include <algorithm>

namespace blockjit {

ThreadPool::ThreadPool(unsigned threads, std::chrono::microseconds spin)
    : spin(spin) {
  for (unsigned i = 1; i < threads; ++i)
    workers.emplace_back([this] { work(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex);
    stopping = true;
  }
  wake.notify_all();
  for (std::thread &t : workers)
    t.join();
}

void ThreadPool::run(int64_t count,
                     const std::function<void(int64_t, int64_t)> &task) {
  if (count <= 0)
    return;
  std::lock_guard serial(runMutex); // one grid at a time
  int64_t chunkSize = std::max<int64_t>(1, count / (int64_t(size()) * 4));
  int64_t chunks = (count + chunkSize - 1) / chunkSize;
  unsigned helpers =
      unsigned(std::min<int64_t>(int64_t(workers.size()), chunks - 1));
  {
    std::lock_guard lock(mutex);
    this->task = &task;
    this->count = count;
    this->chunkSize = chunkSize;
    next = 0;
    wanted = helpers;
    ++generation;
    published.store(generation, std::memory_order_release);
  }
  for (unsigned i = 0; i < helpers; ++i)
    wake.notify_one();
  drain();
  {
    // Every chunk is taken: places nobody took are no longer needed.
    std::lock_guard lock(mutex);
    wanted = 0;
  }
  spinWhile([&] { return busy.load(std::memory_order_acquire) != 0; });
  std::unique_lock lock(mutex);
  done.wait(lock, [&] { return busy == 0; });
  this->task = nullptr;
}

template <typename Condition>
void ThreadPool::spinWhile(Condition condition) const {
  auto deadline = std::chrono::steady_clock::now() + spin;
  for (unsigned i = 0; condition(); ++i) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    if (i % 64 == 63 && std::chrono::steady_clock::now() > deadline)
      return;
  }
}

void ThreadPool::drain() {
  for (int64_t begin; (begin = next.fetch_add(chunkSize)) < count;)
    (*task)(begin, std::min(count, begin + chunkSize));
}

void ThreadPool::work() {
  uint64_t seen = 0;
  while (true) {
    // A next grid often follows at once: wait for it awake first.
    spinWhile([&] {
      return published.load(std::memory_order_acquire) == seen &&
             !stopping.load(std::memory_order_relaxed);
    });
    {
      std::unique_lock lock(mutex);
      // A grid's helpers take the `wanted` places, one per worker; the
      // other workers sleep through it.
      wake.wait(lock, [&] {
        return stopping || (generation != seen && wanted > 0);
      });
      if (stopping)
        return;
      seen = generation;
      --wanted;
      ++busy;
    }
    drain();
    std::lock_guard lock(mutex);
    if (--busy == 0)
      done.notify_one();
  }
}

} // namespace blockjit
