//===- ScopedEnv.h - an environment variable set for one scope ------------===//
#ifndef BLOCKJIT_TESTS_COMMON_SCOPEDENV_H
#define BLOCKJIT_TESTS_COMMON_SCOPEDENV_H

#include <cstdlib>
#include <optional>
#include <string>

namespace blockjit {

/// Sets an environment variable for one scope, then puts back what it was.
struct ScopedEnv {
  std::string name;
  std::optional<std::string> previous;
  ScopedEnv(std::string n, const char *value) : name(std::move(n)) {
    if (const char *old = std::getenv(name.c_str()))
      previous = old;
    setenv(name.c_str(), value, 1);
  }
  ~ScopedEnv() {
    if (previous)
      setenv(name.c_str(), previous->c_str(), 1);
    else
      unsetenv(name.c_str());
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;
};

} // namespace blockjit

#endif // BLOCKJIT_TESTS_COMMON_SCOPEDENV_H
