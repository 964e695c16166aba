//===- ThreadPoolTest.cpp - the CPU grid's threads -------------------------===//
//
// Every program index runs exactly once per grid and run() returns, for
// many back-to-back grids of every size against many more threads than
// cores, with and without spinning: the shapes under which a place offered
// to a worker could be left untaken forever (a worker that had finished its
// chunk absorbed the caller's wake-up), which hung the CPU differential
// suite on the H100 machine's 16-core host.
//
//===----------------------------------------------------------------------===//
#include "runtime/ThreadPool.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <random>
#include <vector>

namespace blockjit {
namespace {

void runManyGrids(unsigned threads, std::chrono::microseconds spin,
                  int grids) {
  ThreadPool pool(threads, spin);
  ASSERT_EQ(pool.size(), threads);
  std::mt19937 rng(threads);
  std::uniform_int_distribution<int64_t> size(1, 4 * int64_t(threads) + 7);
  std::vector<std::atomic<int>> hits(4 * threads + 8);
  for (int g = 0; g < grids; ++g) {
    int64_t count = g % 3 == 0 ? g % int64_t(threads + 2) + 1 : size(rng);
    for (int64_t i = 0; i < count; ++i)
      hits[i] = 0;
    pool.run(count, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        hits[i].fetch_add(1, std::memory_order_relaxed);
    });
    for (int64_t i = 0; i < count; ++i)
      ASSERT_EQ(hits[i].load(), 1) << "grid " << g << " of " << count
                                   << " programs, index " << i;
  }
}

TEST(ThreadPool, EveryProgramOnceWithoutSpinning) {
  runManyGrids(64, std::chrono::microseconds(0), 3000);
}

TEST(ThreadPool, EveryProgramOnceWithSpinning) {
  runManyGrids(16, std::chrono::microseconds(200), 3000);
}

TEST(ThreadPool, TwoThreadsAndOne) {
  runManyGrids(2, std::chrono::microseconds(0), 2000);
  runManyGrids(1, std::chrono::microseconds(0), 100);
}

// Guided chunks: contiguous, covering the grid once, the first a long one
// (half a thread's share), about six per thread in all (one atomic each),
// never one per program.
TEST(ThreadPool, GuidedChunksCoverTheGridInFewAtomics) {
  constexpr unsigned kThreads = 4;
  constexpr int64_t kCount = 100003;
  ThreadPool pool(kThreads, std::chrono::microseconds(100));
  std::mutex mutex;
  std::vector<std::pair<int64_t, int64_t>> chunks;
  pool.run(kCount, [&](int64_t begin, int64_t end) {
    std::lock_guard lock(mutex);
    chunks.push_back({begin, end});
  });
  std::sort(chunks.begin(), chunks.end());
  ASSERT_FALSE(chunks.empty());
  EXPECT_EQ(chunks.front().first, 0);
  EXPECT_GE(chunks.front().second, kCount / (2 * kThreads));
  for (size_t i = 0; i < chunks.size(); ++i) {
    EXPECT_LT(chunks[i].first, chunks[i].second);
    if (i + 1 < chunks.size())
      EXPECT_EQ(chunks[i].second, chunks[i + 1].first);
  }
  EXPECT_EQ(chunks.back().second, kCount);
  EXPECT_LE(chunks.size(), 8 * kThreads);
  // The tail is cut finer than the head.
  EXPECT_LT(chunks.back().second - chunks.back().first,
            chunks.front().second - chunks.front().first);
}

TEST(ThreadPool, EmptyGridRunsNothing) {
  ThreadPool pool(8, std::chrono::microseconds(0));
  bool ran = false;
  pool.run(0, [&](int64_t, int64_t) { ran = true; });
  EXPECT_FALSE(ran);
}

} // namespace
} // namespace blockjit
