//===- Environment.cpp - every environment variable blockjit reads -------===//
#include "compiler/Environment.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace blockjit::env {

namespace {

/// Every variable blockjit reads, with what its switch takes; the switch is
/// its name in lower case with '-' for '_' (BLOCKJIT_DUMP_DIR:
/// --blockjit-dump-dir).
struct Variable {
  const char *name;
  const char *value;
  const char *help;
};
constexpr Variable kVariables[] = {
    {"BLOCKJIT_CACHE_DIR", "DIR",
     "disk cache directory (default ~/.cache/blockjit; empty: none)"},
    {"BLOCKJIT_DUMP_DIR", "DIR",
     "write every stage of every compiled kernel there"},
    {"BLOCKJIT_PTXAS", "PATH",
     "the ptxas that assembles cubins ('none': PTX to the driver)"},
    {"BLOCKJIT_TARGET", "cpu|cuda", "where launches without a target run"},
    {"BLOCKJIT_CPU_THREADS", "N", "threads of the CPU executor"},
    {"BLOCKJIT_CPU_SPIN_US", "N",
     "microseconds CPU workers stay awake for the next launch (default "
     "1000; 0: sleep at once)"},
    {"BLOCKJIT_AUTOTUNE", "0|1", "0: autotuned launches time nothing"},
    {"BLOCKJIT_PERF_MAP", "0|1",
     "1: list the CPU kernels' code in /tmp/perf-PID.map for perf"},
};

/// --blockjit-dump-dir for BLOCKJIT_DUMP_DIR.
std::string switchOf(const Variable &variable) {
  std::string text = "--";
  for (const char *c = variable.name; *c; ++c)
    text += *c == '_' ? '-' : char(std::tolower((unsigned char)*c));
  return text;
}

llvm::Error switchError(const std::string &message) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      message + " (--blockjit-help lists blockjit's switches)");
}

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
bool perfMap() {
  auto text = read("BLOCKJIT_PERF_MAP");
  return text && *text == "1";
}
std::optional<std::string> home() { return read("HOME"); }

/// Variable `name` as a whole decimal number in [min, max], if it is one.
static std::optional<unsigned> readUnsigned(const char *name, long min,
                                            long max) {
  auto text = read(name);
  if (!text)
    return std::nullopt;
  char *end = nullptr;
  long n = std::strtol(text->c_str(), &end, 10);
  if (end == text->c_str() || *end || n < min || n > max)
    return std::nullopt;
  return unsigned(n);
}

std::optional<unsigned> cpuThreads() {
  return readUnsigned("BLOCKJIT_CPU_THREADS", 1, 4096);
}

std::optional<unsigned> cpuSpinMicroseconds() {
  return readUnsigned("BLOCKJIT_CPU_SPIN_US", 0, 1000000);
}

llvm::Expected<bool> parseCommandLine(int &argc, char **argv) {
  constexpr std::string_view prefix = "--blockjit-";
  int kept = argc > 0 ? 1 : 0;
  for (int i = kept; i < argc; ++i) {
    std::string_view argument = argv[i];
    if (argument == "--") { // the program's own arguments follow
      while (i < argc)
        argv[kept++] = argv[i++];
      break;
    }
    if (!argument.starts_with(prefix)) {
      argv[kept++] = argv[i];
      continue;
    }
    if (argument == "--blockjit-help") {
      std::printf("blockjit's switches, each setting its environment "
                  "variable:\n");
      for (const Variable &variable : kVariables)
        std::printf("  %s=%s\n      %s: %s\n", switchOf(variable).c_str(),
                    variable.value, variable.name, variable.help);
      return true;
    }
    std::string_view name = argument.substr(0, argument.find('='));
    const Variable *variable = nullptr;
    for (const Variable &candidate : kVariables)
      if (switchOf(candidate) == name)
        variable = &candidate;
    if (!variable)
      return switchError("unknown switch " + std::string(name));
    std::string value;
    if (name.size() < argument.size())
      value = argument.substr(name.size() + 1);
    else if (i + 1 < argc)
      value = argv[++i];
    else
      return switchError(std::string(name) + " needs a value (" +
                         variable->value + ")");
    if (setenv(variable->name, value.c_str(), /*overwrite=*/1) != 0)
      return switchError("cannot set " + std::string(variable->name));
  }
  argc = kept;
  argv[argc] = nullptr;
  return false;
}

} // namespace blockjit::env
