//===- Launch.h - launching kernels on the CPU or a GPU --------*- C++ -*-===//
//
//   using namespace blockjit;
//   LaunchOptions options;
//   options.grid = {n_rows};
//   if (llvm::Error e = launch(*examples::softmax(), options,
//                              {out, in, stride, stride, n_rows, n_cols,
//                               Constexpr(1024)}))
//     report(std::move(e));
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_RUNTIME_LAUNCH_H
#define BLOCKJIT_RUNTIME_LAUNCH_H

#include "compiler/Specialization.h"
#include "frontend/Kernel.h"
#include "runtime/Executor.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

namespace blockjit {

/// One launch argument: a pointer (host or device) with its element type, a
/// scalar, or a constexpr value.
struct Arg {
  /// Scalars keep the C++ type they were given: every integer and float
  /// type converts (no "ambiguous conversion"), and the launch either passes
  /// the exact value to the parameter or reports an error naming it (a
  /// double for a Float parameter, an integer that does not fit).
  enum class Kind : uint8_t {
    Pointer,
    Int32,
    Int64,
    UInt64, // an unsigned value above INT64_MAX, in `u64`
    Float32,
    Float64,
    Constexpr
  };
  Kind kind;
  DType dtype;
  union {
    const void *pointer;
    int32_t i32;
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
  };

  template <typename T>
  Arg(T *p)
      : kind(Kind::Pointer), dtype(dtype_v<std::remove_cv_t<T>>), pointer(p) {}
  Arg(int32_t v) : kind(Kind::Int32), dtype(DType::I32), i32(v) {}
  Arg(int64_t v) : kind(Kind::Int64), dtype(DType::I64), i64(v) {}
  Arg(float v) : kind(Kind::Float32), dtype(DType::F32), f32(v) {}
  Arg(double v) : kind(Kind::Float64), dtype(DType::F64), f64(v) {}
  /// Any other integer type (size_t, unsigned, long long, short, char...):
  /// its exact value, checked against the parameter at launch. (bool is
  /// left out: a flag passed as a number is more likely a mistake.)
  template <typename T,
            std::enable_if_t<
                std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                    !std::is_same_v<T, int32_t> && !std::is_same_v<T, int64_t>,
                int> = 0>
  Arg(T v) : kind(Kind::Int64), dtype(DType::I64), i64(0) {
    if constexpr (std::is_unsigned_v<T>) {
      if (uint64_t(v) > uint64_t(INT64_MAX)) {
        kind = Kind::UInt64;
        u64 = uint64_t(v);
        return;
      }
    }
    i64 = int64_t(v);
  }
  Arg(Constexpr v) : kind(Kind::Constexpr), dtype(DType::I64), i64(v.value) {}
  /// A pointer whose element type is only known at run time (C ABI, Python).
  static Arg typedPointer(const void *p, DType type) {
    Arg arg(static_cast<const float *>(nullptr));
    arg.pointer = p;
    arg.dtype = type;
    return arg;
  }
};

struct LaunchOptions {
  /// Programs per axis.
  Grid grid;
  int numWarps = 4;
  int numStages = 1;
  /// CTAs that run each program together as a thread-block cluster (sm_90),
  /// its blocks split over them; program_id stays the program's (Triton's
  /// num_ctas). The compiler may run a program in one CTA instead
  /// (KernelResources::ctasPerProgram says); the CPU always does.
  int numCTAs = 1;
  /// Programs sharing one CTA, each on its own num_warps warps (GPU; a
  /// power of two, 1 with numCTAs > 1): for small programs, more warps
  /// resident per SM than one program per CTA allows. Ids, barriers and
  /// shared memory stay each program's own; the CPU ignores it.
  int programsPerCTA = 1;
  /// GPU: the eviction hint of global loads and of stores whose source
  /// gives none (CompileOptions::loadEviction); the CPU ignores them.
  DefaultEviction loadEviction = DefaultEviction::Normal;
  DefaultEviction storeEviction = DefaultEviction::Normal;
  /// GPU: registers a thread may take at most (CompileOptions::maxRegisters;
  /// 0: ptxas's choice). Checked on every target; the CPU ignores it.
  int maxRegisters = 0;
  /// Where to run; unset: $BLOCKJIT_TARGET (cpu|cuda), else the GPU when a
  /// CUDA driver and device are present, else the CPU.
  std::optional<TargetKind> target;
  /// CUDA stream (CUstream) of `device`; null is the default stream.
  void *stream = nullptr;
  /// Device ordinal of the target (the CPU has one device, 0).
  int device = 0;
  /// Shared memory per program beyond the kernel's static shared memory.
  int dynamicSharedMemoryBytes = 0;
  /// CTAs per thread-block cluster for a kernel whose programs are single
  /// CTAs (numCTAs = 1); (1, 1, 1) is none. Each grid dimension must be a
  /// multiple of the cluster's.
  Grid cluster;
  /// Extra launch attributes (see LaunchAttribute for what each target
  /// honours).
  std::vector<LaunchAttribute> attributes;
};

/// Compiles (or finds in the cache) the specialization these arguments call
/// for and runs it over `options.grid` with its target's executor
/// (runtime/Executor.h). On the CPU the call returns when all programs are
/// done; on the GPU it is asynchronous on the stream.
llvm::Error launch(const KernelDef &kernel, const LaunchOptions &options,
                   llvm::ArrayRef<Arg> args);

/// Success if every dimension of `grid` is positive, else an error naming
/// the kernel.
llvm::Error checkGrid(const KernelDef &kernel, const Grid &grid);

/// The specialization `args` call for, compiled (or found in the cache) and
/// loaded on `options.device`: what launch(), warmup() and PreparedLaunch
/// start from.
struct LoadedSpecialization {
  SpecializationKey key;
  const LoadedKernel *kernel;
};
llvm::Expected<LoadedSpecialization>
loadSpecialization(const KernelDef &kernel, const LaunchOptions &options,
                   llvm::ArrayRef<Arg> args);

/// The executor's view of one launch with `options`.
LaunchConfig launchConfigOf(const LaunchOptions &options);

/// Runtime arguments a kernel may take; a launch passes them in an array of
/// kMaxRuntimeArgs + 1 slots, the last for the hidden argument.
inline constexpr size_t kMaxRuntimeArgs = 64;
/// An error when `kernel` takes more than kMaxRuntimeArgs.
llvm::Error checkRuntimeArgCount(const KernelDef &kernel);

/// Appends the arguments the compiled kernel takes beyond the user's (at
/// `slots[count]`): with several programs per CTA, `*numProgramsX`, the
/// grid's program count along x, which must outlive the launch call.
/// `slots` has room for kMaxRuntimeArgs + 1.
void appendHiddenArguments(const LoadedKernel &kernel,
                           const int32_t *numProgramsX, void **slots,
                           size_t count);

/// Sets `key.ranges` (maskBoundRangeOf) for the mask bounds of `kernel`
/// (KernelDef::maskBounds) among the runtime arguments whose integer values
/// are `integers` (per runtime argument; none: not an integer), on GPU
/// targets (clusters included); a signature that fails to trace gets
/// none (its own trace reports the error). specializationFor calls it;
/// blockjit-dump's --arg-value too.
void setMaskBoundRanges(const KernelDef &kernel,
                        llvm::ArrayRef<std::optional<int64_t>> integers,
                        SpecializationKey &key);

/// The specialization key `args` call for (checked against the signature).
llvm::Expected<SpecializationKey>
specializationFor(const KernelDef &kernel, const LaunchOptions &options,
                  llvm::ArrayRef<Arg> args);

/// The target a launch without an explicit one goes to: $BLOCKJIT_TARGET,
/// else CUDA when a driver and a device are present, else the CPU.
TargetKind defaultTarget();

/// Compiles and loads (or finds) the specialization `args` call for, without
/// running it, and reports its resources and its occupancy with
/// `options.dynamicSharedMemoryBytes`.
llvm::Expected<KernelResources> warmup(const KernelDef &kernel,
                                       const LaunchOptions &options,
                                       llvm::ArrayRef<Arg> args);

/// The persistent grid of the Triton tutorial: as many programs as can be
/// resident at once, but no more than there is work.
inline int persistentGrid(const KernelResources &info, int64_t work) {
  return int(
      std::max<int64_t>(1, std::min<int64_t>(info.maxResidentPrograms, work)));
}

} // namespace blockjit

#endif // BLOCKJIT_RUNTIME_LAUNCH_H
