//===- ThreadPool.cpp - the host threads that run a CPU grid -------------===//
//
// The caller drains the chunks itself, so completion never depends on a
// worker waking up: workers only speed a grid up. A worker counts itself in
// `busy` before it looks at the offer and claims a place by compare-and-swap;
// the caller closes the offer once every chunk is taken and then waits for
// `busy` to reach 0. A worker that counted itself after the caller saw 0
// finds the offer closed (or a later grid's, which counts it) and never reads
// the finished grid's fields. (A pool that waited for the places it had
// offered hung when a worker absorbed a wake-up and no one took the place: a
// 49-program grid on 64 threads, in the differential suite.)
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
  // Guided chunks (see drain): none smaller than 1/16 of a thread's share.
  int64_t chunkSize = std::max<int64_t>(1, count / (int64_t(size()) * 16));
  int64_t chunks = (count + chunkSize - 1) / chunkSize;
  unsigned helpers =
      unsigned(std::min<int64_t>(int64_t(workers.size()), chunks - 1));
  this->task = &task;
  this->count = count;
  this->chunkSize = chunkSize;
  next.store(0, std::memory_order_relaxed);
  ++generation;
  offer.store(generation << 32 | helpers); // seq_cst: see sleepers below
  // A worker that counted itself a sleeper before this load checks the offer
  // under the lock after it (both seq_cst): it sees the grid or is woken.
  if (unsigned asleep = helpers ? sleepers.load() : 0) {
    { std::lock_guard lock(mutex); }
    for (unsigned i = 0; i < std::min(helpers, asleep); ++i)
      wake.notify_one();
  }
  drain();
  // Every chunk is taken: places nobody took are no longer needed.
  offer.store(generation << 32);
  spinWhile([&] { return busy.load(std::memory_order_acquire) != 0; });
  std::unique_lock lock(mutex);
  done.wait(lock, [&] { return busy.load() == 0; });
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

/// Guided self-scheduling: each chunk is the remaining programs over twice
/// the threads, at least chunkSize. Early chunks are long (the next row a
/// program prefetches is mostly its own), the last ones short, so a thread
/// that started late or was descheduled leaves little for the others to
/// wait on. One compare-and-swap per chunk. (Fixed quarters of a thread's
/// share: 32768 x 128 softmax on 2 threads of a Zen 5 VM, 47.9 GB/s, this
/// 49.5, medians of 6 interleaved runs.)
void ThreadPool::drain() {
  const int64_t parts = 2 * int64_t(size());
  int64_t begin = next.load(std::memory_order_relaxed);
  while (begin < count) {
    int64_t end =
        std::min(count, begin + std::max(chunkSize, (count - begin) / parts));
    if (next.compare_exchange_weak(begin, end, std::memory_order_relaxed)) {
      (*task)(begin, end);
      begin = next.load(std::memory_order_relaxed);
    }
  }
}

void ThreadPool::work() {
  uint64_t seen = 0;
  auto noNewGrid = [&] {
    return generationOf(offer.load(std::memory_order_acquire)) == seen &&
           !stopping.load(std::memory_order_relaxed);
  };
  while (true) {
    // A next grid often follows at once: wait for it awake first.
    spinWhile(noNewGrid);
    if (noNewGrid()) {
      std::unique_lock lock(mutex);
      sleepers.fetch_add(1); // seq_cst: see run()
      wake.wait(lock,
                [&] { return stopping || generationOf(offer.load()) != seen; });
      sleepers.fetch_sub(1);
    }
    if (stopping)
      return;
    busy.fetch_add(1); // before looking: the caller waits for it
    uint64_t current = offer.load();
    seen = generationOf(current);
    bool claimed = false;
    while (placesOf(current) > 0 && generationOf(current) == seen &&
           !(claimed = offer.compare_exchange_weak(current, current - 1))) {
    }
    if (claimed)
      drain();
    if (busy.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard lock(mutex);
      done.notify_one();
    }
  }
}

} // namespace blockjit
