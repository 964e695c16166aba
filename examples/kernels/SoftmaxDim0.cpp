//===- SoftmaxDim0.cpp - softmax over dim 0, the faster algorithm --------===//
//
// softmax_dim0 is an Operation (runtime/Operation.h) with two algorithms:
//
//   softmax_columns        one launch: a strip of columns per program or
//                          cluster, read once where it fits on chip.
//   softmax_columns_split  three launches (SoftmaxColumnsSplit.cpp): each
//                          row block's column statistics over the whole
//                          grid, their combination, then the output.
//
// Which is faster depends on the shape and the device (H200: the split at
// M = 32768, 1.0-1.6 x; one launch at M = 4096, 1.2-1.4 x;
// docs/softmax_columns_choice_h200.txt), so the first run for a shape times
// both and keeps the faster, on disk too. Each launch's config is its own
// tuner's; the constexprs passed here are placeholders the tuners replace
// (and the blocks a config fixed on the command line runs).
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/Kernels.h"
#include "examples/kernels/MatrixOperation.h"

#include "runtime/Registry.h"

#include <algorithm>

namespace blockjit::examples {

namespace {

/// The split's placeholder blocks: stats' chunks of kSplitStatsRows rows of
/// kSplitStatsColumns columns, combine's strips of kSplitCombineColumns.
constexpr int64_t kSplitStatsRows = 4, kSplitStatsColumns = 1024,
                  kSplitCombineColumns = 64;

Algorithm oneLaunch() {
  Algorithm algorithm;
  algorithm.name = "softmax_columns";
  algorithm.steps.push_back(
      {&softmaxColumnsTuner(), [](llvm::ArrayRef<Arg> a, llvm::ArrayRef<Arg>) {
         // Placeholder blocks (the tuner chooses); an empty matrix's are
         // any, its launch reports it.
         ColumnBlocks blocks;
         if (auto chosen =
                 softmaxColumnsBlocks(integerOf(a[kRows]), integerOf(a[kCols])))
           blocks = *chosen;
         else
           llvm::consumeError(chosen.takeError());
         return llvm::SmallVector<Arg, 16>{a[kOut],
                                           a[kIn],
                                           a[kInStride],
                                           a[kOutStride],
                                           a[kRows],
                                           a[kCols],
                                           Constexpr(blocks.m),
                                           Constexpr(blocks.n),
                                           Constexpr(blocks.wholeColumn)};
       }});
  return algorithm;
}

Algorithm split() {
  Algorithm algorithm;
  algorithm.name = "softmax_columns_split";
  // scratch[0]: each row block's column statistics, [2, splits, cols];
  // scratch[1]: each column's, [2, cols].
  algorithm.scratch = [](llvm::ArrayRef<Arg> a) {
    int64_t rows = integerOf(a[kRows]), cols = integerOf(a[kCols]);
    return std::vector<ScratchBuffer>{
        {DType::F32, 2 * softmaxColumnsSplits(rows, cols) * cols},
        {DType::F32, 2 * cols}};
  };
  algorithm.steps.push_back(
      {&softmaxColumnsStatsTuner(),
       [](llvm::ArrayRef<Arg> a, llvm::ArrayRef<Arg> scratch) {
         int64_t rows = integerOf(a[kRows]), cols = integerOf(a[kCols]);
         return llvm::SmallVector<Arg, 16>{
             scratch[0],
             a[kIn],
             a[kInStride],
             a[kRows],
             a[kCols],
             int32_t(softmaxColumnsSplitRows(rows, cols)),
             Constexpr(kSplitStatsRows),
             Constexpr(kSplitStatsColumns)};
       }});
  algorithm.steps.push_back(
      {&softmaxColumnsCombineTuner(),
       [](llvm::ArrayRef<Arg> a, llvm::ArrayRef<Arg> scratch) {
         int64_t rows = integerOf(a[kRows]), cols = integerOf(a[kCols]);
         return llvm::SmallVector<Arg, 16>{
             scratch[1],
             scratch[0],
             int32_t(softmaxColumnsSplits(rows, cols)),
             a[kCols],
             Constexpr(softmaxColumnsCombineBlock(rows, cols)),
             Constexpr(kSplitCombineColumns)};
       }});
  algorithm.steps.push_back(
      {&softmaxColumnsNormalizeTuner(),
       [](llvm::ArrayRef<Arg> a, llvm::ArrayRef<Arg> scratch) {
         int64_t cols = integerOf(a[kCols]);
         return llvm::SmallVector<Arg, 16>{
             a[kOut],
             a[kIn],
             scratch[1],
             a[kInStride],
             a[kOutStride],
             a[kRows],
             a[kCols],
             Constexpr(4),
             Constexpr(std::clamp<int64_t>(next_power_of_2(cols), 64, 1024))};
       }});
  return algorithm;
}

} // namespace

Operation &softmaxDim0() {
  static Operation operation([] {
    OperationSpec spec =
        matrixOperationSpec("softmax_dim0", {oneLaunch(), split()});
    // Untimed: the split on tall matrices (on a GPU one launch's few
    // strips leave SMs idle; on the CPU its rows read as 1-D blocks beat
    // whole columns: 2 threads, 4096 x 1024 5.5 against 8.1 ms, 32768 x 128
    // 4.7 against 7.3), one launch on shorter ones (CPU 1823 x 781: 2.7
    // against 3.6 ms).
    spec.untimed = [](llvm::ArrayRef<Arg> a, TargetKind target) -> size_t {
      return integerOf(a[kRows]) >= (target == TargetKind::CUDA ? 16384 : 4096);
    };
    return spec;
  }());
  return operation;
}

static OperationRegistration registration(
    {"softmax_dim0",
     "softmax over dim 0 of a row-major matrix (torch.softmax(x, 0)): "
     "softmax_columns in one launch or softmax_columns_split in three, the "
     "faster for the shape timed on first use",
     &softmaxDim0});

} // namespace blockjit::examples
