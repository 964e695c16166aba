//===- fuzz-ir.cpp - mutation fuzzer for blk IR through both JIT paths ----===//
//
//   blockjit-fuzz-ir --seeds tests/lit --seed 1 --runs 2000 --jobs 2
//   blockjit-fuzz-ir crash.mlir          # replay files, no mutation
//
// Takes the .mlir files under --seeds (split at `// -----`, comment lines
// dropped) as seeds, mutates them (characters, lines, numbers, types, op
// names, splices of two seeds) and feeds each input to a forked child that
// parses and verifies it with the dialects of every blockjit tool, then runs
// the whole JIT path on a fresh clone for each backend: compileModule for the
// CPU (to an object file) and for the GPU (sm_90, to PTX; ptxas is never
// run). The pass manager verifies the IR after every pass.
//
// A diagnostic is a fine outcome. A child killed by a signal (a segfault, an
// abort after "LLVM ERROR") or exiting with an unexpected status is a crash;
// running out of time (--timeout) or memory (--memory-mb, RLIMIT_AS) is only
// "resource-limited". Input i depends only on --seed and i, so a run is
// reproducible whatever --jobs is.
//
// Known upstream MLIR 22 crash, filtered out: parsing a dense array of index
// elements (`func.func @f() attributes {a = array<index: 1>} { return }`)
// crashes in the builtin attribute parser; inputs containing `array<index`
// are skipped.
//
//===----------------------------------------------------------------------===//
#include "compiler/Compile.h"
#include "compiler/Registration.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <new>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

//===----------------------------------------------------------------------===//
// How a child ends
//===----------------------------------------------------------------------===//

// Exit statuses of a child. Anything else (a signal, exit(1) after a fatal
// LLVM error) is a crash.
enum ChildStatus : int {
  kCompiled = 0,         // parsed, verified and compiled for both backends
  kRejectedParse = 10,   // parse or verify diagnostic
  kRejectedCompile = 11, // a diagnostic from compileModule (either backend)
  kOutOfMemory = 12,     // allocation failure under RLIMIT_AS
};

struct Options {
  std::vector<std::string> seedPaths;
  std::vector<std::string> replay; // files to run as they are
  uint64_t seed = 1;
  int64_t runs = 1000;
  double maxSeconds = 0; // 0: no limit
  std::string crashDir;
  int jobs = 1;
  int timeoutSeconds = 10;
  int64_t memoryMB = 4096;
  bool verbose = false;
  bool printOnly = false;      // --print-inputs: print the inputs, run nothing
  bool cpu = true, gpu = true; // --backend cpu|gpu|both
  // --known-crashes FILE: crashes whose signature contains one of these
  // lines are reported and counted apart, and do not fail the run.
  std::vector<std::string> knownCrashes;
};

[[noreturn]] void outOfMemory() {
  static const char message[] = "fuzz-ir: out of memory\n";
  (void)!write(2, message, sizeof message - 1);
  _exit(kOutOfMemory);
}

void badAlloc(void *, const char *, bool) { outOfMemory(); }

/// Parses `text`, verifies it and compiles it for both backends. Returns a
/// ChildStatus. Diagnostics are printed to stderr with `verbose`.
int compileInput(const std::string &text, const Options &options,
                 bool verbose) {
  mlir::DialectRegistry registry;
  blockjit::registerDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
    if (verbose)
      llvm::errs() << diag.getLocation() << ": " << diag.str() << "\n";
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text,
                                              mlir::ParserConfig(&context));
  if (!module || failed(mlir::verify(*module)))
    return kRejectedParse;
  int status = kCompiled;
  for (blockjit::TargetKind target :
       {blockjit::TargetKind::CPU, blockjit::TargetKind::CUDA}) {
    bool cpu = target == blockjit::TargetKind::CPU;
    if (!(cpu ? options.cpu : options.gpu))
      continue;
    const char *name = cpu ? "cpu" : "gpu";
    // Tells crash reports which backend was compiling.
    llvm::errs() << "fuzz-ir: compiling for " << name << "\n";
    mlir::OwningOpRef<mlir::ModuleOp> clone = module->clone();
    blockjit::CompileOptions options;
    options.target = cpu ? blockjit::Target::cpu() : blockjit::Target::cuda(90);
    auto artifact = blockjit::compileModule(*clone, options);
    if (!artifact) {
      std::string message = llvm::toString(artifact.takeError());
      if (verbose)
        llvm::errs() << name << ": " << message << "\n";
      status = kRejectedCompile;
    } else if (verbose) {
      llvm::errs() << name << ": compiled, " << artifact->binary.size()
                   << " bytes\n";
    }
  }
  return status;
}

/// The child: limits, then compileInput; never returns.
[[noreturn]] void runChild(const std::string &text, const Options &options,
                           int outputFd) {
  if (outputFd >= 0) {
    dup2(outputFd, 1);
    dup2(outputFd, 2);
  }
  if (options.memoryMB > 0) {
    rlim_t bytes = rlim_t(options.memoryMB) << 20;
    struct rlimit limit = {bytes, bytes};
    setrlimit(RLIMIT_AS, &limit);
  }
  struct rlimit noCore = {0, 0};
  setrlimit(RLIMIT_CORE, &noCore);
  llvm::install_bad_alloc_error_handler(badAlloc);
  std::set_new_handler(outOfMemory);
  if (options.timeoutSeconds > 0)
    alarm(unsigned(options.timeoutSeconds));
  int status = compileInput(text, options, options.verbose || outputFd < 0);
  fflush(stdout);
  _exit(status);
}

//===----------------------------------------------------------------------===//
// Seeds
//===----------------------------------------------------------------------===//

using Lines = std::vector<std::string>;

Lines splitLines(const std::string &text) {
  Lines lines;
  std::string line;
  std::istringstream stream(text);
  while (std::getline(stream, line))
    lines.push_back(line);
  return lines;
}

std::string joinLines(const Lines &lines) {
  std::string text;
  for (const std::string &line : lines)
    text += line + "\n";
  return text;
}

bool isCommentLine(const std::string &line) {
  size_t first = line.find_first_not_of(" \t");
  return first == std::string::npos || line.compare(first, 2, "//") == 0;
}

/// Every `// -----` section of every .mlir file under `paths`, in a fixed
/// order, without comment or blank lines.
std::vector<Lines> loadSeeds(const std::vector<std::string> &paths) {
  std::vector<std::string> files;
  for (const std::string &path : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      for (auto &entry :
           std::filesystem::recursive_directory_iterator(path, ec))
        if (entry.is_regular_file() && entry.path().extension() == ".mlir")
          files.push_back(entry.path().string());
    } else {
      files.push_back(path);
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<Lines> seeds;
  for (const std::string &file : files) {
    std::ifstream in(file);
    std::stringstream buffer;
    buffer << in.rdbuf();
    Lines section;
    auto flush = [&] {
      if (!section.empty())
        seeds.push_back(section);
      section.clear();
    };
    for (const std::string &line : splitLines(buffer.str())) {
      if (line.rfind("// -----", 0) == 0) {
        flush();
        continue;
      }
      if (!isCommentLine(line))
        section.push_back(line);
    }
    flush();
  }
  return seeds;
}

//===----------------------------------------------------------------------===//
// Mutations
//===----------------------------------------------------------------------===//

const char *const kNumbers[] = {
    "0",
    "-1",
    "1",
    "2",
    "3",
    "7",
    "-2",
    "31",
    "32",
    "63",
    "64",
    "255",
    "1023",
    "4095",
    "4096",
    "8192",
    "65536",
    "16777216",
    "33554432",
    "2147483647",
    "2147483648",
    "-2147483648",
    "4294967295",
    "4294967296",
    "1099511627776",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551616",
    "340282366920938463463374607431768211456",
    "12345",
    "100",
    "6",
    "1.5",
    "0.0",
    "-0.0",
    "1.0e39",
    "0x7FC00000",
    "0xFFFFFFFF",
};

const char *const kTypes[] = {
    "f32",
    "f16",
    "bf16",
    "f64",
    "i1",
    "i8",
    "i16",
    "i32",
    "i64",
    "index",
    "none",
    "tensor<*xf32>",
    "tensor<?xf32>",
    "tensor<4xf32>",
    "tensor<1xi32>",
    "tensor<0xf32>",
    "tensor<3xf32>",
    "tensor<1x1xf32>",
    "tensor<2x2x2xf32>",
    "tensor<16777216xf32>",
    "tensor<33554432xi32>",
    "tensor<4096x4096xf32>",
    "tensor<8xi1>",
    "tensor<8x!blk.ptr<f32>>",
    "!blk.ptr<f32>",
    "!blk.ptr<f16>",
    "!blk.ptr<i1>",
    "!blk.ptr<i64>",
    "!blk.ptr<index>",
    "!blk.ptr<!blk.ptr<f32>>",
    "!blk.ptr<tensor<4xf32>>",
    "memref<4xf32>",
    "vector<4xf32>",
    "complex<f32>",
    "tuple<>",
};

// Names that are swapped with each other when found in an input.
const char *const kOpNames[] = {
    "blk.program_id", "blk.num_programs", "blk.make_range", "blk.splat",
    "blk.broadcast",  "blk.expand_dims",  "blk.addptr",     "blk.load",
    "blk.store",      "blk.reduce",       "arith.addf",     "arith.subf",
    "arith.mulf",     "arith.divf",       "arith.remf",     "arith.maximumf",
    "arith.minimumf", "arith.negf",       "arith.addi",     "arith.subi",
    "arith.muli",     "arith.divsi",      "arith.divui",    "arith.remsi",
    "arith.andi",     "arith.ori",        "arith.xori",     "arith.shli",
    "arith.maxsi",    "arith.minsi",      "arith.cmpi",     "arith.cmpf",
    "arith.select",   "arith.sitofp",     "arith.fptosi",   "arith.uitofp",
    "arith.extf",     "arith.truncf",     "arith.extsi",    "arith.extui",
    "arith.trunci",   "arith.index_cast", "arith.bitcast",  "arith.constant",
    "math.exp",       "math.exp2",        "math.log",       "math.log2",
    "math.sqrt",      "math.rsqrt",       "math.absf",      "math.tanh",
    "math.fma",       "math.powf",        "scf.for",        "scf.yield",
    "scf.if",         "scf.while",        "scf.condition",  "func.return",
    "func.call",
};

// Keywords swapped within their group (reduction kinds, predicates).
const std::vector<std::vector<const char *>> kKeywordGroups = {
    {"max", "min", "sum", "prod", "argmax"},
    {"slt", "sle", "sgt", "sge", "eq", "ne", "ult", "ule", "ugt", "uge"},
    {"olt", "ole", "ogt", "oge", "oeq", "one", "ult", "uno", "ord", "une"},
    {"axis", "to", "iter_args", "step"},
};

const char kPunctuation[] = "<>(){}[]:,=%@!#x?*-+.\"0123456789 ";

bool isWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

struct Mutator {
  std::mt19937_64 rng;
  const std::vector<Lines> &seeds;
  // Indices of the seeds that parse and verify: most inputs start from one,
  // so that mutations reach the passes rather than only the parser.
  const std::vector<size_t> &validSeeds;

  Mutator(uint64_t seed, const std::vector<Lines> &seeds,
          const std::vector<size_t> &validSeeds)
      : rng(seed), seeds(seeds), validSeeds(validSeeds) {}

  size_t below(size_t n) {
    return n ? std::uniform_int_distribution<size_t>(0, n - 1)(rng) : 0;
  }
  bool chance(int percent) { return int(below(100)) < percent; }
  template <typename T, size_t N> const T &pick(const T (&list)[N]) {
    return list[below(N)];
  }

  /// A random position (line, column) of a non-empty line, if any.
  bool randomPosition(const Lines &lines, size_t &line, size_t &column) {
    if (lines.empty()) // after a splice that kept nothing
      return false;
    for (int tries = 0; tries < 8; ++tries) {
      line = below(lines.size());
      if (!lines[line].empty()) {
        column = below(lines[line].size());
        return true;
      }
    }
    return false;
  }

  /// All occurrences of `pattern` in `lines` as (line, column).
  std::vector<std::pair<size_t, size_t>>
  find(const Lines &lines, const std::string &pattern, bool wholeWord) {
    std::vector<std::pair<size_t, size_t>> hits;
    for (size_t l = 0; l < lines.size(); ++l)
      for (size_t c = lines[l].find(pattern); c != std::string::npos;
           c = lines[l].find(pattern, c + 1)) {
        if (wholeWord) {
          const std::string &s = lines[l];
          char before = c ? s[c - 1] : ' ';
          size_t end = c + pattern.size();
          char after = end < s.size() ? s[end] : ' ';
          // "xf32" in a shape: 'x' before a type is a boundary.
          if ((isWordChar(before) && before != 'x') || isWordChar(after))
            continue;
        }
        hits.push_back({l, c});
      }
    return hits;
  }

  bool flipChar(Lines &lines) {
    size_t l, c;
    if (!randomPosition(lines, l, c))
      return false;
    if (chance(50))
      lines[l][c] = pick(kPunctuation);
    else if (chance(50))
      lines[l].erase(c, 1 + below(3));
    else
      lines[l][c] = char(32 + below(95));
    return true;
  }

  bool deleteLine(Lines &lines) {
    if (lines.size() < 2)
      return false;
    lines.erase(lines.begin() + below(lines.size()));
    return true;
  }

  bool duplicateLine(Lines &lines) {
    if (lines.empty())
      return false;
    size_t from = below(lines.size()), to = below(lines.size() + 1);
    std::string copy = lines[from];
    lines.insert(lines.begin() + to, copy);
    return true;
  }

  bool swapLines(Lines &lines) {
    if (lines.size() < 2)
      return false;
    std::swap(lines[below(lines.size())], lines[below(lines.size())]);
    return true;
  }

  bool replaceNumber(Lines &lines) {
    // Digit runs, with a leading '-' when there is one.
    std::vector<std::tuple<size_t, size_t, size_t>> numbers;
    for (size_t l = 0; l < lines.size(); ++l) {
      const std::string &s = lines[l];
      for (size_t c = 0; c < s.size();) {
        if (!std::isdigit(static_cast<unsigned char>(s[c]))) {
          ++c;
          continue;
        }
        size_t start = c;
        while (c < s.size() && std::isdigit(static_cast<unsigned char>(s[c])))
          ++c;
        if (start && s[start - 1] == '-')
          --start;
        numbers.push_back({l, start, c - start});
      }
    }
    if (numbers.empty())
      return false;
    auto [l, c, n] = numbers[below(numbers.size())];
    std::string value = pick(kNumbers);
    if (chance(15)) // an odd non-power of two near a power of two
      value = std::to_string((int64_t(1) << below(26)) + 1 + 2 * below(3));
    if (chance(50)) {
      // Everywhere: a block size changes in every type that mentions it, so
      // the input still parses and reaches the verifiers and passes.
      replaceAll(lines, lines[l].substr(c, n), value);
      return true;
    }
    lines[l].replace(c, n, value);
    return true;
  }

  /// Replaces every whole-token occurrence of `from` by `to`.
  void replaceAll(Lines &lines, const std::string &from,
                  const std::string &to) {
    for (std::string &line : lines) {
      std::string out;
      size_t at = 0;
      for (size_t c = line.find(from); c != std::string::npos;
           c = line.find(from, c + 1)) {
        char before = c ? line[c - 1] : ' ';
        size_t end = c + from.size();
        char after = end < line.size() ? line[end] : ' ';
        // Digits and type names: 'x' (shapes) and '<' are boundaries.
        if ((isWordChar(before) && before != 'x') || isWordChar(after) ||
            (before == '%' || before == '@' || before == '#'))
          continue;
        out += line.substr(at, c - at) + to;
        at = end;
      }
      line = out + line.substr(at);
    }
  }

  /// The end of the type starting at `c` (after its matching '>').
  static size_t typeEnd(const std::string &s, size_t c) {
    size_t open = s.find('<', c);
    if (open == std::string::npos)
      return std::string::npos;
    int depth = 0;
    for (size_t i = open; i < s.size(); ++i) {
      if (s[i] == '<')
        ++depth;
      else if (s[i] == '>' && s[i - 1] != '-' && --depth == 0)
        return i + 1;
    }
    return std::string::npos;
  }

  bool replaceType(Lines &lines) {
    std::string replacement = pick(kTypes);
    if (chance(40)) {
      // A whole tensor<...> or !blk.ptr<...> type.
      const char *prefix = chance(60) ? "tensor<" : "!blk.ptr<";
      auto hits = find(lines, prefix, false);
      if (hits.empty())
        return false;
      auto [l, c] = hits[below(hits.size())];
      size_t end = typeEnd(lines[l], c);
      if (end == std::string::npos)
        return false;
      lines[l].replace(c, end - c, replacement);
      return true;
    }
    static const char *const scalars[] = {"f32", "f16",  "bf16", "f64",
                                          "i1",  "i32",  "i64",  "index",
                                          "i8",  "none", "i16"};
    const char *from = pick(scalars);
    auto hits = find(lines, from, true);
    if (hits.empty())
      return false;
    auto [l, c] = hits[below(hits.size())];
    // Keep shapes well-formed most of the time: a scalar for a scalar.
    if (chance(70))
      replacement = pick(scalars);
    if (chance(50))
      replaceAll(lines, from, replacement);
    else
      lines[l].replace(c, std::strlen(from), replacement);
    return true;
  }

  bool swapOpName(Lines &lines) {
    std::vector<std::tuple<size_t, size_t, size_t>> hits;
    for (const char *name : kOpNames)
      for (auto [l, c] : find(lines, name, true))
        hits.push_back({l, c, std::strlen(name)});
    if (hits.empty())
      return false;
    auto [l, c, n] = hits[below(hits.size())];
    if (chance(30))
      replaceAll(lines, lines[l].substr(c, n), pick(kOpNames));
    else
      lines[l].replace(c, n, pick(kOpNames));
    return true;
  }

  bool swapKeyword(Lines &lines) {
    const auto &group = kKeywordGroups[below(kKeywordGroups.size())];
    const char *from = group[below(group.size())];
    auto hits = find(lines, from, true);
    if (hits.empty())
      return false;
    auto [l, c] = hits[below(hits.size())];
    lines[l].replace(c, std::strlen(from), group[below(group.size())]);
    return true;
  }

  /// Uses one SSA value where another was: type confusion at its users.
  bool swapValueName(Lines &lines) {
    std::vector<std::tuple<size_t, size_t, size_t>> names;
    for (size_t l = 0; l < lines.size(); ++l) {
      const std::string &s = lines[l];
      for (size_t c = s.find('%'); c != std::string::npos;
           c = s.find('%', c + 1)) {
        size_t end = c + 1;
        while (end < s.size() && (isWordChar(s[end]) || s[end] == '#'))
          ++end;
        if (end > c + 1)
          names.push_back({l, c, end - c});
      }
    }
    if (names.size() < 2)
      return false;
    auto [l, c, n] = names[below(names.size())];
    auto [l2, c2, n2] = names[below(names.size())];
    std::string other = lines[l2].substr(c2, n2);
    lines[l].replace(c, n, other);
    return true;
  }

  bool splice(Lines &lines) {
    const Lines &other = seeds[below(seeds.size())];
    if (other.empty())
      return false;
    if (chance(50)) {
      // Some lines of another seed, inserted anywhere.
      size_t from = below(other.size());
      size_t count = 1 + below(std::min<size_t>(6, other.size() - from));
      size_t to = below(lines.size() + 1);
      lines.insert(lines.begin() + to, other.begin() + from,
                   other.begin() + from + count);
    } else {
      // The head of this input, then the tail of the other.
      size_t cut = below(lines.size() + 1);
      size_t otherCut = below(other.size() + 1);
      lines.resize(cut);
      lines.insert(lines.end(), other.begin() + otherCut, other.end());
    }
    return true;
  }

  std::string mutate() {
    Lines lines = !validSeeds.empty() && chance(80)
                      ? seeds[validSeeds[below(validSeeds.size())]]
                      : seeds[below(seeds.size())];
    // Mostly one or two mutations, so that many inputs still parse.
    int count = chance(50) ? 1 : 2 + int(below(2));
    if (chance(10))
      count += int(below(8));
    // Weights: edits that keep an input well-formed come up more often.
    static const int kinds[] = {0, 1, 2, 3, 4, 4, 4, 5, 5, 6, 6, 7, 7, 8, 9};
    for (int done = 0, tries = 0; done < count && tries < 50; ++tries) {
      bool changed = false;
      switch (pick(kinds)) {
      case 0:
        changed = chance(50) ? flipChar(lines) : swapValueName(lines);
        break;
      case 1:
        changed = deleteLine(lines);
        break;
      case 2:
        changed = duplicateLine(lines);
        break;
      case 3:
        changed = swapLines(lines);
        break;
      case 4:
        changed = replaceNumber(lines);
        break;
      case 5:
        changed = replaceType(lines);
        break;
      case 6:
        changed = swapOpName(lines);
        break;
      case 7:
        changed = swapKeyword(lines);
        break;
      case 8:
        changed = splice(lines);
        break;
      case 9:
        changed = flipChar(lines);
        break;
      }
      done += changed;
    }
    return joinLines(lines);
  }
};

//===----------------------------------------------------------------------===//
// The driver
//===----------------------------------------------------------------------===//

[[noreturn]] void usage(const char *message) {
  std::fprintf(
      stderr,
      "fuzz-ir: %s\n"
      "usage: blockjit-fuzz-ir --seeds DIR|FILE [--seeds ...] [--seed S]\n"
      "         [--runs N] [--max-seconds T] [--crash-dir D] [--jobs J]\n"
      "         [--timeout SECONDS] [--memory-mb MB] [--backend cpu|gpu|both]\n"
      "         [--known-crashes FILE] [--verbose]\n"
      "       blockjit-fuzz-ir [--backend B] [--timeout S] [--memory-mb MB] "
      "FILE...\n"
      "         (runs each FILE as it is and prints its diagnostics)\n",
      message);
  std::exit(2);
}

Options parseOptions(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    if (size_t eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != arg.npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else if (arg.rfind("--", 0) == 0 && arg != "--verbose" &&
               arg != "--print-inputs") {
      if (i + 1 >= argc)
        usage(("missing value after " + arg).c_str());
      value = argv[++i];
    }
    auto number = [&]() -> double {
      char *end = nullptr;
      double x = std::strtod(value.c_str(), &end);
      if (value.empty() || *end)
        usage(("not a number: " + arg + " " + value).c_str());
      return x;
    };
    if (arg == "--seeds")
      options.seedPaths.push_back(value);
    else if (arg == "--seed")
      options.seed = uint64_t(number());
    else if (arg == "--runs")
      options.runs = int64_t(number());
    else if (arg == "--max-seconds")
      options.maxSeconds = number();
    else if (arg == "--crash-dir")
      options.crashDir = value;
    else if (arg == "--jobs")
      options.jobs = std::max(1, int(number()));
    else if (arg == "--timeout")
      options.timeoutSeconds = int(number());
    else if (arg == "--memory-mb")
      options.memoryMB = int64_t(number());
    else if (arg == "--verbose")
      options.verbose = true;
    else if (arg == "--print-inputs")
      options.printOnly = true;
    else if (arg == "--known-crashes") {
      std::ifstream in(value);
      if (!in)
        usage(("cannot read " + value).c_str());
      for (std::string line; std::getline(in, line);)
        if (!line.empty() && line[0] != '#')
          options.knownCrashes.push_back(line);
    } else if (arg == "--backend") {
      if (value != "cpu" && value != "gpu" && value != "both")
        usage("--backend takes cpu, gpu or both");
      options.cpu = value != "gpu";
      options.gpu = value != "cpu";
    } else if (arg.rfind("--", 0) == 0)
      usage(("unknown option " + arg).c_str());
    else
      options.replay.push_back(arg);
  }
  return options;
}

std::string hexHash(const std::string &text) {
  char name[32];
  std::snprintf(name, sizeof name, "%016llx",
                (unsigned long long)llvm::xxh3_64bits(llvm::StringRef(text)));
  return name;
}

struct Running {
  pid_t pid = 0;
  int64_t index = 0;
  int outputFd = -1;
  std::string input;
  std::chrono::steady_clock::time_point start;
};

struct Counts {
  int64_t inputs = 0, crashes = 0, resource = 0, rejectedParse = 0,
          rejectedCompile = 0, compiled = 0, skipped = 0, known = 0;
  // Distinct crashes: signature -> (count, hash of the first input).
  std::map<std::string, std::pair<int64_t, std::string>> signatures;
};

/// What tells one crash from another: how the child ended, the backend it
/// was compiling for and the first error line or meaningful stack frame.
std::string crashSignature(const std::string &reason,
                           const std::string &output) {
  std::string backend = "parse";
  std::string what;
  for (const std::string &line : splitLines(output)) {
    if (line.rfind("fuzz-ir: compiling for ", 0) == 0) {
      backend = line.substr(23);
      what.clear();
      continue;
    }
    if (!what.empty())
      continue;
    if (line.find("LLVM ERROR") != std::string::npos ||
        line.find("error:") != std::string::npos ||
        line.find("Assertion") != std::string::npos ||
        line.find("UNREACHABLE") != std::string::npos) {
      what = line;
      continue;
    }
    // "#3 0x000055d0c1a2b3c4 mlir::Foo::bar(...) /path/file.cpp:12:3"
    if (line.size() > 2 && line[0] == '#' && std::isdigit(line[1])) {
      size_t space = line.find(' ');
      size_t name =
          space == std::string::npos ? space : line.find(' ', space + 1);
      if (name == std::string::npos)
        continue;
      std::string frame = line.substr(name + 1);
      static const char *const noise[] = {
          "llvm::sys::",    "SignalHandler", "__restore_rt",
          "raise",          "abort",         "pthread_kill",
          "__assert",       "report_fatal",  "llvm_unreachable",
          "libc.so",        "_start",        "__libc",
          "PrintStackTrace"};
      bool isNoise = false;
      for (const char *n : noise)
        isNoise |= frame.find(n) != std::string::npos;
      if (!isNoise)
        what = frame.substr(0, frame.find(" /"));
    }
  }
  // Addresses differ from run to run: "Cannot select: 0x55d0...: f32 = ...".
  std::string normalized;
  for (size_t i = 0; i < what.size(); ++i) {
    normalized += what[i];
    if (what[i] == '0' && i + 1 < what.size() && what[i + 1] == 'x') {
      normalized += 'x';
      for (i += 2; i < what.size() && std::isxdigit(what[i]);)
        ++i;
      --i;
    }
  }
  return reason + " [" + backend + "] " + normalized;
}

std::string readAll(int fd) {
  std::string text;
  char buffer[4096];
  off_t offset = 0;
  for (ssize_t n; (n = pread(fd, buffer, sizeof buffer, offset)) > 0;
       offset += n)
    text.append(buffer, size_t(n));
  return text;
}

/// The last `count` lines of `text`.
std::string lastLines(const std::string &text, size_t count) {
  Lines lines = splitLines(text);
  size_t from = lines.size() > count ? lines.size() - count : 0;
  return joinLines(Lines(lines.begin() + from, lines.end()));
}

/// Classifies the end of `job`; prints crashes.
void finish(const Running &job, int waitStatus, const Options &options,
            Counts &counts) {
  if (options.verbose) {
    std::string output = job.outputFd >= 0 ? readAll(job.outputFd) : "";
    std::printf("== input %lld\n%s-- output\n", (long long)job.index,
                job.input.c_str());
    std::fwrite(output.data(), 1, output.size(), stdout);
    std::fflush(stdout);
  }
  std::string reason;
  if (WIFEXITED(waitStatus)) {
    switch (WEXITSTATUS(waitStatus)) {
    case kCompiled:
      ++counts.compiled;
      return;
    case kRejectedParse:
      ++counts.rejectedParse;
      return;
    case kRejectedCompile:
      ++counts.rejectedCompile;
      return;
    case kOutOfMemory:
      ++counts.resource;
      return;
    default:
      reason = "exit status " + std::to_string(WEXITSTATUS(waitStatus));
    }
  } else if (WIFSIGNALED(waitStatus)) {
    int signal = WTERMSIG(waitStatus);
    if (signal == SIGALRM || signal == SIGKILL) {
      ++counts.resource;
      if (options.verbose)
        std::printf("input %lld: timed out\n", (long long)job.index);
      return;
    }
    reason = std::string("signal ") + strsignal(signal);
  } else {
    reason = "unknown wait status";
  }
  ++counts.crashes;
  std::string hash = hexHash(job.input);
  std::string output = job.outputFd >= 0 ? readAll(job.outputFd) : "";
  std::string signature = crashSignature(reason, output);
  for (const std::string &known : options.knownCrashes)
    if (signature.find(known) != std::string::npos) {
      signature = "KNOWN " + signature;
      ++counts.known;
      break;
    }
  auto [entry, isNew] = counts.signatures.insert({signature, {0, hash}});
  ++entry->second.first;
  std::printf("CRASH input %lld (%s), hash %s\n", (long long)job.index,
              signature.c_str(), hash.c_str());
  if (isNew) {
    // The first crash of its kind in full; later ones in one line.
    Lines lines = splitLines(job.input);
    for (size_t i = 0; i < lines.size() && i < 12; ++i)
      std::printf("  | %s\n", lines[i].c_str());
    if (lines.size() > 12)
      std::printf("  | ... (%zu lines)\n", lines.size());
    for (const std::string &line : splitLines(lastLines(output, 8)))
      std::printf("  > %s\n", line.c_str());
  }
  if (!options.crashDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.crashDir, ec);
    std::string path = options.crashDir + "/crash-" + hash + ".mlir";
    std::ofstream(path) << job.input;
    std::ofstream(options.crashDir + "/crash-" + hash + ".txt")
        << reason << "\n"
        << output;
    if (isNew)
      std::printf("  written to %s\n", path.c_str());
  }
  std::fflush(stdout);
}

int replayFiles(const Options &options) {
  int worst = 0;
  for (const std::string &file : options.replay) {
    std::ifstream in(file);
    if (!in) {
      std::fprintf(stderr, "fuzz-ir: cannot read %s\n", file.c_str());
      return 2;
    }
    std::stringstream buffer;
    buffer << in.rdbuf();
    std::fflush(nullptr);
    pid_t pid = fork();
    if (pid == 0)
      runChild(buffer.str(), options, -1);
    int status = 0;
    waitpid(pid, &status, 0);
    const char *verdict = "crash";
    int code = 1;
    if (WIFEXITED(status)) {
      switch (WEXITSTATUS(status)) {
      case kCompiled:
        verdict = "compiled", code = 0;
        break;
      case kRejectedParse:
        verdict = "rejected at parse/verify", code = 0;
        break;
      case kRejectedCompile:
        verdict = "rejected with a diagnostic", code = 0;
        break;
      case kOutOfMemory:
        verdict = "resource-limited (out of memory)", code = 0;
        break;
      }
    } else if (WIFSIGNALED(status) &&
               (WTERMSIG(status) == SIGALRM || WTERMSIG(status) == SIGKILL)) {
      verdict = "resource-limited (timeout)", code = 0;
    }
    std::printf("%s: %s\n", file.c_str(), verdict);
    worst = std::max(worst, code);
  }
  return worst;
}

} // namespace

int main(int argc, char **argv) {
  llvm::sys::PrintStackTraceOnErrorSignal(argv[0]);
  Options options = parseOptions(argc, argv);
  // No ptxas, no writes to the user's disk cache.
  setenv("BLOCKJIT_PTXAS", "none", 1);
  setenv("BLOCKJIT_CACHE_DIR", "", 1);
  if (!options.replay.empty())
    return replayFiles(options);
  if (options.seedPaths.empty())
    usage("give --seeds or files to replay");
  std::vector<Lines> seeds = loadSeeds(options.seedPaths);
  if (seeds.empty())
    usage("no .mlir seeds found");
  std::vector<size_t> validSeeds;
  {
    mlir::DialectRegistry registry;
    blockjit::registerDialects(registry);
    mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
    mlir::ScopedDiagnosticHandler quiet(
        &context, [](mlir::Diagnostic &) { return mlir::success(); });
    for (size_t i = 0; i < seeds.size(); ++i) {
      std::string text = joinLines(seeds[i]);
      if (text.find("array<index") != std::string::npos)
        continue;
      auto module = mlir::parseSourceString<mlir::ModuleOp>(
          text, mlir::ParserConfig(&context));
      if (module && succeeded(mlir::verify(*module)))
        validSeeds.push_back(i);
    }
  }
  std::printf("fuzz-ir: %zu seeds (%zu valid), seed %llu\n", seeds.size(),
              validSeeds.size(), (unsigned long long)options.seed);

  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  Counts counts;
  std::vector<Running> running(size_t(options.jobs));
  for (Running &slot : running)
    slot.outputFd = memfd_create("fuzz-ir-output", 0);
  int64_t next = 0;
  size_t active = 0;
  bool stopped = false;
  while (true) {
    // Start inputs in the free slots.
    for (Running &slot : running) {
      if (slot.pid || stopped)
        continue;
      if (next >= options.runs ||
          (options.maxSeconds > 0 && elapsed() >= options.maxSeconds)) {
        stopped = true;
        break;
      }
      int64_t index = next++;
      // Input `index` depends on the seed and the index only.
      Mutator mutator(options.seed * 0x9E3779B97F4A7C15ull + uint64_t(index),
                      seeds, validSeeds);
      std::string input = mutator.mutate();
      ++counts.inputs;
      if (options.printOnly) {
        std::printf("// ----- input %lld\n%s", (long long)index, input.c_str());
        continue;
      }
      if (input.find("array<index") != std::string::npos) {
        ++counts.skipped; // known upstream parser crash
        continue;
      }
      if (slot.outputFd >= 0) {
        (void)!ftruncate(slot.outputFd, 0);
        lseek(slot.outputFd, 0, SEEK_SET);
      }
      std::fflush(nullptr);
      pid_t pid = fork();
      if (pid < 0) {
        std::perror("fork");
        return 2;
      }
      if (pid == 0)
        runChild(input, options, slot.outputFd);
      slot.pid = pid;
      slot.index = index;
      slot.input = std::move(input);
      slot.start = std::chrono::steady_clock::now();
      ++active;
    }
    if (!active && stopped)
      break;
    if (!active)
      continue;
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid == 0) {
      // A child that ignores its alarm is killed a little later.
      for (Running &slot : running)
        if (slot.pid && options.timeoutSeconds > 0 &&
            std::chrono::steady_clock::now() - slot.start >
                std::chrono::seconds(options.timeoutSeconds + 5))
          kill(slot.pid, SIGKILL);
      usleep(1000);
      continue;
    }
    if (pid < 0) {
      std::perror("waitpid");
      return 2;
    }
    for (Running &slot : running)
      if (slot.pid == pid) {
        finish(slot, status, options, counts);
        slot.pid = 0;
        --active;
      }
  }
  for (const auto &[signature, entry] : counts.signatures)
    std::printf("distinct crash (%lld x, first %s): %s\n",
                (long long)entry.first, entry.second.c_str(),
                signature.c_str());
  std::printf("fuzz-ir: %lld inputs, %lld crashes (%lld known), %lld "
              "resource-limited, %lld rejected with a diagnostic (%lld at "
              "parse/verify), "
              "%lld compiled, %lld skipped (known upstream crash), %.0f s\n",
              (long long)counts.inputs, (long long)counts.crashes,
              (long long)counts.known, (long long)counts.resource,
              (long long)(counts.rejectedParse + counts.rejectedCompile),
              (long long)counts.rejectedParse, (long long)counts.compiled,
              (long long)counts.skipped, elapsed());
  return counts.crashes > counts.known ? 1 : 0;
}
