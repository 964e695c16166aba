//===- Environment.cpp - every environment variable blockjit reads -------===//
#include "compiler/Environment.h"

#include <cstdlib>

namespace blockjit::env {

namespace {
std::optional<std::string> read(const char *name) {
  if (const char *value = std::getenv(name))
    return std::string(value);
  return std::nullopt;
}
} // namespace

std::optional<std::string> cacheDir() { return read("BLOCKJIT_CACHE_DIR"); }
std::optional<std::string> dumpDir() { return read("BLOCKJIT_DUMP_DIR"); }
std::optional<std::string> ptxas() { return read("BLOCKJIT_PTXAS"); }
std::optional<std::string> target() { return read("BLOCKJIT_TARGET"); }
bool autotuneEnabled() {
  auto text = read("BLOCKJIT_AUTOTUNE");
  return !text || *text != "0";
}
std::optional<std::string> home() { return read("HOME"); }

std::optional<unsigned> cpuThreads() {
  auto text = read("BLOCKJIT_CPU_THREADS");
  if (!text)
    return std::nullopt;
  char *end = nullptr;
  long n = std::strtol(text->c_str(), &end, 10);
  if (end == text->c_str() || *end || n < 1 || n > 4096)
    return std::nullopt;
  return unsigned(n);
}

} // namespace blockjit::env
