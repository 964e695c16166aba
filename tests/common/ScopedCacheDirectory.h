//===- ScopedCacheDirectory.h - a fresh kernel cache for one test ---------===//
#ifndef BLOCKJIT_TESTS_COMMON_SCOPEDCACHEDIRECTORY_H
#define BLOCKJIT_TESTS_COMMON_SCOPEDCACHEDIRECTORY_H

#include "runtime/KernelCache.h"

#include "llvm/Support/FileSystem.h"

#include <cstdlib>
#include <optional>
#include <string>
#include <unistd.h>

namespace blockjit {

/// Points BLOCKJIT_CACHE_DIR at a fresh temporary directory and empties the
/// in-memory cache, for one test; restores both afterwards. `directory` is
/// empty if the directory could not be made.
struct ScopedCacheDirectory {
  std::string directory;
  std::optional<std::string> previous;

  ScopedCacheDirectory() {
    char pattern[] = "/tmp/blockjit-cache-test-XXXXXX";
    if (!mkdtemp(pattern))
      return;
    directory = pattern;
    if (const char *old = std::getenv("BLOCKJIT_CACHE_DIR"))
      previous = old;
    setenv("BLOCKJIT_CACHE_DIR", directory.c_str(), 1);
    KernelCache::instance().clear();
  }
  ~ScopedCacheDirectory() {
    if (previous)
      setenv("BLOCKJIT_CACHE_DIR", previous->c_str(), 1);
    else
      unsetenv("BLOCKJIT_CACHE_DIR");
    if (!directory.empty())
      llvm::sys::fs::remove_directories(directory);
    KernelCache::instance().clear();
  }
  ScopedCacheDirectory(const ScopedCacheDirectory &) = delete;
  ScopedCacheDirectory &operator=(const ScopedCacheDirectory &) = delete;
};

} // namespace blockjit

#endif // BLOCKJIT_TESTS_COMMON_SCOPEDCACHEDIRECTORY_H
