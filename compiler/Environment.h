//===- Environment.h - every environment variable blockjit reads -*- C++
//-*-===//
//
// The one place that reads the process environment. Each function reads its
// variable when called (tests and long-running programs may change it) and
// returns nothing when the variable is unset.
//
//   BLOCKJIT_CACHE_DIR    disk cache directory (default ~/.cache/blockjit);
//                         empty disables the disk cache
//   BLOCKJIT_DUMP_DIR     write every stage of every compiled kernel there
//   BLOCKJIT_PTXAS        the ptxas that assembles cubins; "none": hand PTX
//                         to the driver
//   BLOCKJIT_TARGET       "cpu" or "cuda": where launches without an explicit
//                         target run (default: the GPU when there is one)
//   BLOCKJIT_CPU_THREADS  threads of the CPU executor (default: all cores)
//   BLOCKJIT_AUTOTUNE     "0": autotuned launches take their best-ranked
//                         config without timing any (runtime/Autotune.h)
//   BLOCKJIT_PERF_MAP     "1": name the CPU kernels' machine code for perf
//                         (lines in /tmp/perf-PID.map)
//
// Each variable is also a command-line switch of every program whose main
// calls env::parseCommandLine: --blockjit-dump-dir=DIR sets
// BLOCKJIT_DUMP_DIR, and so on (the name in lower case, '_' as '-');
// --blockjit-help lists them.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_COMPILER_ENVIRONMENT_H
#define BLOCKJIT_COMPILER_ENVIRONMENT_H

#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace blockjit::env {

std::optional<std::string> cacheDir();
std::optional<std::string> dumpDir();
std::optional<std::string> ptxas();
std::optional<std::string> target();
/// A positive number, or nothing (unset or not a positive number).
std::optional<unsigned> cpuThreads();
/// $BLOCKJIT_CPU_SPIN_US: how long an idle CPU worker spins for the next
/// launch before sleeping, if set to a number in [0, 10^6].
std::optional<unsigned> cpuSpinMicroseconds();
/// False when $BLOCKJIT_AUTOTUNE is "0" (tuning off), else true.
bool autotuneEnabled();
/// True when $BLOCKJIT_PERF_MAP is "1".
bool perfMap();
/// $HOME, for the default cache directory.
std::optional<std::string> home();

/// Takes blockjit's switches (--blockjit-dump-dir=DIR or
/// --blockjit-dump-dir DIR, ... for each variable above) out of argv, sets
/// their variables, and leaves the program's own arguments in argv for its
/// parser. Returns true when --blockjit-help printed the switches (the
/// program should then stop), an error for an unknown --blockjit-* switch
/// or a missing value (argv is then left as it was up to it). Call it
/// first in main, before other threads start:
///   llvm::Expected<bool> help = env::parseCommandLine(argc, argv);
///   if (!help) { report(help.takeError()); return 1; }
///   if (*help) return 0;
llvm::Expected<bool> parseCommandLine(int &argc, char **argv);

} // namespace blockjit::env

#endif // BLOCKJIT_COMPILER_ENVIRONMENT_H
