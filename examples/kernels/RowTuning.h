//===- RowTuning.h - one autotuner spec for every row kernel ----*- C++ -*-===//
//
// softmax and the kernels of its family (log_softmax, softmax_temperature,
// ...) share a structure: persistent programs over rows, one row per block
// of BLOCK_SIZE = next_power_of_2(n_cols) elements. They are tuned over the
// same space with the same prune, cost model and grid (SoftmaxTuning.cpp);
// only where their arguments sit differs, and which buffers tuning must give
// back.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_EXAMPLES_KERNELS_ROWTUNING_H
#define BLOCKJIT_EXAMPLES_KERNELS_ROWTUNING_H

#include "runtime/Autotune.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <string>
#include <vector>

namespace blockjit::examples {

/// The grid parameter of a row kernel's configs that gives each program
/// about that many rows (0: a persistent grid; rowTuningSpec's grid).
inline constexpr char kRowsPerProgram[] = "ROWS";

/// Argument positions of a row kernel (parameters named n_rows and n_cols
/// key the tuning; these positions feed the grid, prune and restore sizes).
struct RowArgPositions {
  /// The pointer whose element size the prune and cost model use.
  int input = 1;
  int rows = 4;
  int cols = 5;
  /// The Constexpr BLOCK_SIZE.
  int block = 6;
};

/// The integer argument at `index` (i32 or i64), or `otherwise`.
inline int64_t integerArgAt(llvm::ArrayRef<Arg> args, int index,
                            int64_t otherwise) {
  if (args.size() <= size_t(index))
    return otherwise;
  return args[index].kind == Arg::Kind::Int32 ? args[index].i32
                                              : args[index].i64;
}

/// A row kernel's grid: a persistent one (every program resident at once,
/// no more than the work items of `rowsPerItem` rows each), or with
/// grid:ROWS=R about R rows a program (R = 1: one program per row), which
/// the hardware balances (a persistent grid's last rows fall unevenly: 4096
/// rows on 132 programs leave some with 31 and some with 32; clusters of
/// several CTAs an SM fall unevenly on the SMs). The row count is the
/// integer argument at `rowsIndex`.
Grid rowGrid(const TuningConfig &config, const KernelResources &resources,
             llvm::ArrayRef<Arg> args, int rowsIndex, int64_t rowsPerItem = 1);

/// A row-major buffer of n_rows rows `rowStride` elements apart (each
/// n_cols long), for AutotuneSpec::restore: the pointer parameter `name` at
/// position `pointer`, its row stride at position `rowStride`.
TuningBuffer rowMajorBuffer(std::string name, int pointer, int rowStride,
                            RowArgPositions where);

/// rowMajorBuffer's output (at `output`, row stride at `outputStride`),
/// restored only where its rows overlap those of the input at `input`
/// (row stride at `inputStride`): a kernel that reads only the input and
/// writes only the output writes the same values on every tuning run when
/// the two are apart, so nothing is copied then (no copy of a large output
/// beside it on the device either).
TuningBuffer outputOverInput(std::string name, int output, int outputStride,
                             int input, int inputStride, RowArgPositions where);

/// AutotuneSpec::refine's neighbours of a [BLOCK_M, BLOCK_N] config `c`:
/// its BLOCK_M (when `stepBlockM`), BLOCK_N and num_warps each halved and
/// doubled, in that order, as `next(num_warps, BLOCK_M, BLOCK_N)` makes
/// them (nullopt: outside the space).
std::vector<TuningConfig> blockSteps(
    const TuningConfig &c, bool stepBlockM,
    llvm::function_ref<std::optional<TuningConfig>(int, int64_t, int64_t)>
        next);

/// softmax's tuning spec for a row kernel whose arguments sit at `where`:
/// softmaxSearchSpace() pruned by softmaxPrune, ranked by softmaxEstimate
/// (the best kSoftmaxTuningTopK timed), keyed by n_cols (exact) and n_rows
/// (next power of two), a persistent grid, one program per row or about 8
/// rows a program (softmaxSearchSpace), refined by halving and doubling the
/// rows per program of the fastest (rowsPerProgramRefined) and by loads
/// with evict_last (evictionRefined).
/// `restore`: buffers tuning runs overwrite that must keep their contents
/// (an output that may alias an input).
AutotuneSpec rowTuningSpec(RowArgPositions where,
                           std::vector<TuningBuffer> restore = {});

} // namespace blockjit::examples

#endif // BLOCKJIT_EXAMPLES_KERNELS_ROWTUNING_H
