//===- Specialization.h - what one compiled kernel depends on --*- C++ -*-===//
//
// The one module that says what a specialization is: the target, the
// options the compiler takes (num_warps, num_stages, cluster size), the
// traced signature (argument types, constexpr values, divisibility), and
// from them every cache key: the in-memory kernel cache hashes and compares
// SpecializationKey, the disk cache names entries by artifactKeyMaterial(),
// and the autotuner keys its results by tuningKeyMaterial(). Each rule
// (num_warps a power of two up to 32, ...) is checked here and nowhere else.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_COMPILER_SPECIALIZATION_H
#define BLOCKJIT_COMPILER_SPECIALIZATION_H

#include "dialect/ArgFacts.h"
#include "dialect/DType.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace blockjit {

enum class TargetKind : uint8_t { CPU, CUDA };

/// Where a specialization runs: the host, or a CUDA device of an `sm_XX` arch.
struct Target {
  TargetKind kind = TargetKind::CPU;
  int smArch = 0; // e.g. 90 for sm_90; 0 on the CPU

  static Target cpu() { return {TargetKind::CPU, 0}; }
  static Target cuda(int smArch) { return {TargetKind::CUDA, smArch}; }
  bool operator==(const Target &) const = default;
  /// "cpu" or "cuda:sm_90".
  std::string str() const;
};

/// Bytes of dynamic shared memory the GPU lowering gives a CTA's blocks on
/// sm_`smArch` (blocks too large for registers, rows loaded ahead): what a
/// CTA may opt in to, less room for the kernel's static scratch.
int64_t sharedMemoryForBlocks(int smArch);

/// 32-bit registers per thread that the blocks live through a loop may take
/// together on a CTA of `threads` threads: five eighths of what a thread
/// can have (at most 255), the rest for addresses, masks and temporaries.
/// Rows loaded ahead whose copies would take more wait in shared memory.
int64_t liveRegisterWords(int64_t threads);

/// The limits of the compile options, checked by validate().
inline constexpr int kMaxNumWarps = 32;
inline constexpr int kMaxNumStages = 8;
inline constexpr int kMaxNumCTAs = 16;
/// Programs sharing one CTA: each takes a named barrier of its own, and
/// the hardware has 16.
inline constexpr int kMaxProgramsPerCTA = 16;
/// Threads of one CTA (CUDA's limit).
inline constexpr int kMaxThreadsPerCTA = 1024;
/// The range of a register cap (PTX's .maxnreg; ptxas allocates 255 at
/// most, and a thread needs a few for its indices and addresses).
inline constexpr int kMinRegisterCap = 24;
inline constexpr int kMaxRegisterCap = 255;

/// The L2 eviction priority a kernel's global loads, or its stores, take
/// where the source gives none (blk-default-eviction): Triton's
/// eviction_policy chosen for the whole kernel, a config the tuner may time.
/// A hint only, never a different result; the CPU ignores it.
enum class DefaultEviction : uint8_t { Normal, First, Last };

/// "normal", "evict_first", "evict_last": the option's name everywhere (keys,
/// configs, the tools' flags).
llvm::StringRef defaultEvictionName(DefaultEviction eviction);
/// The DefaultEviction `name` names, or an error listing the names.
llvm::Expected<DefaultEviction> parseDefaultEviction(llvm::StringRef name);

/// How the compiler turns traced IR into an artifact: everything besides the
/// IR that the compiled code depends on.
struct CompileOptions {
  Target target;
  /// GPU: warps per program, a power of two in 1..kMaxNumWarps.
  int numWarps = 4;
  /// GPU: software pipelining depth of loads (1 = off), 1..kMaxNumStages.
  int numStages = 1;
  /// GPU: CTAs that run one program as a thread-block cluster (sm_90),
  /// sharing its blocks; a power of two in 1..kMaxNumCTAs, 1 = no cluster
  /// (Triton's num_ctas). The CPU runs each program whole and ignores it.
  int numCTAs = 1;
  /// GPU: programs that share one CTA, each on its own num_warps warps
  /// (several small programs per CTA keep more warps resident than one per
  /// CTA, whose count per SM is capped); a power of two in
  /// 1..kMaxProgramsPerCTA, at most kMaxThreadsPerCTA threads in all, and
  /// 1 with num_ctas > 1. A program's source, ids and barriers are those of
  /// a program alone in its CTA. The CPU ignores it.
  int programsPerCTA = 1;
  /// GPU: the eviction priority of the global loads and of the stores that
  /// carry no hint of their own (Normal: none).
  DefaultEviction loadEviction = DefaultEviction::Normal;
  DefaultEviction storeEviction = DefaultEviction::Normal;
  /// GPU: the most 32-bit registers ptxas may give a thread (PTX's
  /// .maxnreg, Triton's maxnreg), in kMinRegisterCap..kMaxRegisterCap; 0 =
  /// ptxas's choice. A cap that lets one more CTA on an SM can be faster
  /// despite spills; the autotuner tries it where registers bind. The CPU
  /// ignores it.
  int maxRegisters = 0;

  bool operator==(const CompileOptions &) const = default;
  /// ",loads=evict_last,stores=evict_first", each part only where it is not
  /// Normal: how keys and configs name the eviction options.
  std::string evictionSuffix() const;
  /// "warps=8,stages=1|cuda:sm_90" (",ctas=N" and ",programs=N" when N > 1,
  /// ",maxnreg=N" when set, then evictionSuffix()).
  std::string str() const;
};

/// Each rule on its own, for the passes that take one of these as an option.
llvm::Error checkNumWarps(int numWarps);
llvm::Error checkNumStages(int numStages);
llvm::Error checkNumCTAs(int numCTAs);
/// programsPerCTA in range, and its CTA no more than kMaxThreadsPerCTA
/// threads of numWarps warps each, nor a cluster.
llvm::Error checkProgramsPerCTA(int programsPerCTA, int numWarps = 1,
                                int numCTAs = 1);
/// 0, or kMinRegisterCap..kMaxRegisterCap.
llvm::Error checkMaxRegisters(int maxRegisters);

/// Success if every option is in range and the target's backend can compile
/// for it (e.g. a known sm arch), else an error naming the option.
llvm::Error validate(const CompileOptions &options);

/// Everything a compiled kernel depends on besides its source: two launches
/// with equal keys share one binary.
struct SpecializationKey {
  /// Pointee type of each pointer, type of each scalar (in parameter order,
  /// constexprs skipped).
  llvm::SmallVector<DType, 8> argTypes;
  /// Values of the Constexpr parameters, in parameter order.
  llvm::SmallVector<int64_t, 4> constexprs;
  /// Per runtime argument, in order: divisibilityOf(its pointer address),
  /// integerFactOf(its integer value) (kIsZero: the value is 0), 1 for
  /// floats. The compiler sizes vector accesses from
  /// it (a row stride of 5000 bf16 still allows 16-byte ones).
  llvm::SmallVector<uint8_t, 8> divisibility;
  /// Per runtime argument (or empty: none known): the range a mask bound's
  /// value lies in (maskBoundRangeOf; the kernel is traced with the value
  /// clamped to it, so the compiler knows it).
  llvm::SmallVector<IntRange, 8> ranges;
  CompileOptions options;

  bool operator==(const SpecializationKey &) const = default;
  /// The in-memory cache's hash: of the fields only, cheap for every launch.
  size_t hash() const;
  /// "softmax[f32,f32,i32,i32,i32,i32|BLOCK_SIZE=1024|warps=8,stages=1|
  /// div16=0,1|div8=3|cuda:sm_90]": the kernel's name and its constexpr
  /// parameters' names (in order) label the fields.
  std::string str(llvm::StringRef kernelName,
                  llvm::ArrayRef<std::string> constexprNames) const;
  /// str() with every character unsafe in a file name replaced by '_'.
  std::string fileName(llvm::StringRef kernelName,
                       llvm::ArrayRef<std::string> constexprNames) const;
};

/// The full text the disk cache keys an artifact by: the compiler's
/// fingerprint for these options (its sources, LLVM, and what the target's
/// backend adds), the options, and the traced IR.
std::string artifactKeyMaterial(llvm::StringRef tracedIR,
                                const CompileOptions &options);

/// The full text the disk cache keys a tuning result by (runtime/
/// Autotune.h): the kernel as the first config traces it, with the
/// compiler's fingerprint (`firstConfigMaterial`, an artifactKeyMaterial());
/// the device's name; the tuning key (types, divisibility, the key
/// arguments' values); and the config list's count and SHA-256, so a
/// change to the kernel's code, the compiler, the device or the search
/// space tunes again, and the entry stays small however large the space.
std::string tuningKeyMaterial(llvm::StringRef firstConfigMaterial,
                              llvm::StringRef deviceName,
                              llvm::StringRef tuningKey,
                              llvm::ArrayRef<std::string> configs);

/// "12 sha256:...": a config list as its count and SHA-256 (what tuning and
/// operation keys hold of a search space).
std::string configListDigest(llvm::ArrayRef<std::string> configs);

/// The full text the disk cache keys an operation's choice of algorithm by
/// (runtime/Operation.h): the device's name; the choice key (the
/// operation, its arguments' types and its key arguments' values); and each
/// algorithm's name with its kernels as traced for the arguments
/// (artifactKeyMaterial()s, the compiler's fingerprint in each) and their
/// tuners' config lists (configListDigest), so a change to an algorithm, a
/// kernel's code or search space, the compiler or the device chooses again.
std::string operationKeyMaterial(
    llvm::StringRef deviceName, llvm::StringRef choiceKey,
    llvm::ArrayRef<std::pair<std::string, std::vector<std::string>>>
        algorithms);

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_SPECIALIZATION_H
