//===- Harness.h - one test definition, run on every target -----*- C++ -*-===//
//
// A differential case is a DSL kernel, its buffers' initial contents (inputs
// and sentinel-filled outputs), its launch arguments and grid, a plain C++
// reference that turns the initial buffers into the expected final ones, and
// a tolerance rule. The harness runs the case on the CPU target and on the
// CUDA target (when a device is present) through runtime/DeviceBuffer and
// runtime/Launch, compares every buffer element with the reference and the
// two targets with each other, and reports the first mismatch with its
// index, the inputs at that index, what came back and what was wanted.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_TESTS_DIFFERENTIAL_HARNESS_H
#define BLOCKJIT_TESTS_DIFFERENTIAL_HARNESS_H

#include "frontend/Kernel.h"
#include "runtime/Executor.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace blockjit::difftest {

/// got matches want when both are NaN, both the same infinity, or
/// |got - want| <= abs + rel * |want|. `rule` says why, for the messages.
struct Tolerance {
  double abs = 0;
  double rel = 0;
  const char *rule = "exact";
};

/// A buffer: element type, initial contents (as doubles, rounded to the
/// type before the reference sees them) and how many bytes before element 0
/// its allocation has (4 makes every pointer to it misaligned for vectors).
struct Buffer {
  DType type;
  std::vector<double> init;
  int leadBytes = 0;
};

/// One launch argument.
struct ArgSpec {
  enum class Kind { Buffer, I32, I64, F32, Constexpr } kind;
  int buffer = -1;
  int64_t integer = 0;
  float real = 0;
};
inline ArgSpec bufArg(int index) { return {ArgSpec::Kind::Buffer, index}; }
inline ArgSpec i32Arg(int32_t v) { return {ArgSpec::Kind::I32, -1, v}; }
inline ArgSpec i64Arg(int64_t v) { return {ArgSpec::Kind::I64, -1, v}; }
inline ArgSpec f32Arg(float v) { return {ArgSpec::Kind::F32, -1, 0, v}; }
inline ArgSpec constArg(int64_t v) { return {ArgSpec::Kind::Constexpr, -1, v}; }

using Buffers = std::vector<std::vector<double>>;

struct Case {
  /// Unique, [A-Za-z0-9_] (it names the googletest test).
  std::string name;
  /// The DSL operations this case exercises (names checked by the coverage
  /// test against frontend/Tensor.h).
  std::vector<std::string> covers;
  std::shared_ptr<KernelDef> kernel;
  std::vector<Buffer> buffers;
  std::vector<ArgSpec> args;
  Grid grid;
  int numWarps = 4;
  /// GPU software pipelining depth (the CPU target ignores it).
  int numStages = 1;
  /// CTAs per program, a thread-block cluster on sm_90 (the CPU target and
  /// older GPUs run each program in one CTA).
  int numCTAs = 1;
  /// Programs sharing one CTA (the CPU target ignores it).
  int programsPerCTA = 1;
  /// The config's eviction hints (the CPU target ignores them).
  DefaultEviction loadEviction = DefaultEviction::Normal;
  DefaultEviction storeEviction = DefaultEviction::Normal;
  /// The config's register cap (0: none; the CPU target ignores it).
  int maxRegisters = 0;
  /// Turns the initial buffers (already rounded to their types) into the
  /// expected final ones; the harness rounds the result to the types too.
  std::function<void(Buffers &)> reference;
  Tolerance tolerance;
  /// Optional, for results that are correct in more than one way (which
  /// program wins an atomic race): maps a run's final buffers, given the
  /// initial ones, to the one form the reference predicts (e.g. a claimed
  /// slot holding any valid claimant's id becomes 1). Applied to every
  /// target's result before any comparison.
  std::function<void(const Buffers &initial, Buffers &got)> canonicalize;
};

/// Every case of the suite (Cases.cpp).
const std::vector<Case> &allCases();

/// Rounds `v` to what an element of `type` holds.
double roundTo(DType type, double v);

/// Runs `c` on `target`; the final buffers, or why the run failed.
llvm::Expected<Buffers> runOn(TargetKind target, const Case &c);

/// The initial buffers rounded to their types.
Buffers initialBuffers(const Case &c);

/// "" when `got` matches `want` for every element, else the first mismatch.
std::string compare(const Case &c, const Buffers &initial, const Buffers &got,
                    const Buffers &want, const char *gotName,
                    const char *wantName, double toleranceScale = 1);

} // namespace blockjit::difftest

#endif // BLOCKJIT_TESTS_DIFFERENTIAL_HARNESS_H
