//===- SoftmaxRows.cpp - row softmax of any length, the faster kernel -----===//
//
// softmax_rows is an Operation (runtime/Operation.h) with two algorithms:
//
//   softmax         the whole row in one block (on sm_90 split over a
//                   cluster's CTAs and kept on chip): read once, written
//                   once. It takes rows of up to kSoftmaxMaxBlock elements;
//                   it refuses longer ones.
//   softmax_online  the row in chunks with a running maximum and sum, then
//                   written: read twice, any length.
//
// Which is faster depends on the row's length, the dtype and the device
// (H200: softmax 1.1-1.7 x at 4096-262144 columns, softmax_online 1.05-1.18 x
// at 2^20; docs/softmax_long_rows_h200_rows_operation_*),
// so the first run for a shape times both (each tuned by its own tuner)
// and keeps the faster, on disk too; rows longer than softmax's block run
// softmax_online. The C ABI launches it by name, so a caller need not know
// where one kernel gives way to the other.
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/Kernels.h"
#include "examples/kernels/RowTuning.h"

#include "runtime/Registry.h"

#include <algorithm>

namespace blockjit::examples {

namespace {

enum { kOut, kIn, kInStride, kOutStride, kRows, kCols };

/// The row length (0 for another kind: the launches then report it).
int64_t colsOf(llvm::ArrayRef<Arg> a) {
  return integerValue(a[kCols]).value_or(0);
}

/// The operation's arguments and a BLOCK_SIZE (a placeholder the tuners
/// replace, except softmax's, which is the row's).
llvm::SmallVector<Arg, 16> withBlock(llvm::ArrayRef<Arg> a, int64_t block) {
  llvm::SmallVector<Arg, 16> args(a.begin(), a.end());
  args.push_back(Constexpr(block));
  return args;
}

Algorithm wholeRows() {
  Algorithm algorithm;
  algorithm.name = "softmax";
  algorithm.steps.push_back(
      {&softmaxTuner(), [](llvm::ArrayRef<Arg> a, llvm::ArrayRef<Arg>) {
         return withBlock(a, next_power_of_2(std::clamp<int64_t>(
                                 colsOf(a), 1, kSoftmaxMaxBlock)));
       }});
  algorithm.refuse = [](llvm::ArrayRef<Arg> a,
                        TargetKind) -> std::optional<std::string> {
    if (!softmaxNeedsOnline(colsOf(a)))
      return std::nullopt;
    return "a row of " + std::to_string(colsOf(a)) +
           " elements is longer than its largest block (" +
           std::to_string(kSoftmaxMaxBlock) + ")";
  };
  return algorithm;
}

Algorithm chunkedRows() {
  Algorithm algorithm;
  algorithm.name = "softmax_online";
  algorithm.steps.push_back(
      {&softmaxOnlineTuner(), [](llvm::ArrayRef<Arg> a, llvm::ArrayRef<Arg>) {
         return withBlock(a, kSoftmaxOnlineBlock);
       }});
  return algorithm;
}

} // namespace

Operation &softmaxRows() {
  static Operation operation([] {
    OperationSpec spec;
    spec.name = "softmax_rows";
    spec.params = {"output_ptr",        "input_ptr", "input_row_stride",
                   "output_row_stride", "n_rows",    "n_cols"};
    spec.algorithms = {wholeRows(), chunkedRows()};
    // Bucketed as softmax's refusal is: rows of more than kSoftmaxMaxBlock
    // (a power of two) elements are a bucket of their own.
    spec.key = {{"n_rows", KeyBucket::PowerOfTwo},
                {"n_cols", KeyBucket::PowerOfTwo}};
    // Untimed: the softmax example's rule (softmaxPrefersOnline).
    spec.untimed = [](llvm::ArrayRef<Arg> a, TargetKind target) -> size_t {
      return softmaxPrefersOnline(colsOf(a), target) ? 1 : 0;
    };
    // In place, every timed run would read what the last one wrote.
    spec.restore = {outputOverInput("output_ptr", kOut, kOutStride, kIn,
                                    kInStride,
                                    {kIn, kRows, kCols, /*block=*/-1})};
    spec.repetitions = 10;
    return spec;
  }());
  return operation;
}

static OperationRegistration registration(
    {"softmax_rows",
     "row-wise softmax of any length (torch.softmax(x, -1)): softmax (one "
     "block a row, read once) or softmax_online (chunks, read twice), the "
     "faster for the shape timed on first use; rows longer than softmax's "
     "block take softmax_online",
     &softmaxRows});

} // namespace blockjit::examples
