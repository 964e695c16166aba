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
#include "examples/kernels/MatrixOperation.h"

#include "runtime/Registry.h"

#include <algorithm>

namespace blockjit::examples {

namespace {

/// The row length (0 for another kind: the launches then report it).
int64_t colsOf(llvm::ArrayRef<Arg> a) { return integerOf(a[kCols]); }

/// The algorithm `name`: one launch of `tuner`'s row kernel on the
/// operation's arguments and BLOCK_SIZE = `block(n_cols)` (a placeholder
/// the tuner replaces, except softmax's, which is the row's).
Algorithm rowKernel(std::string name, Autotuner &tuner,
                    int64_t (*block)(int64_t cols)) {
  Algorithm algorithm;
  algorithm.name = std::move(name);
  algorithm.steps.push_back(
      {&tuner, [block](llvm::ArrayRef<Arg> a, llvm::ArrayRef<Arg>) {
         llvm::SmallVector<Arg, 16> args(a.begin(), a.end());
         args.push_back(Constexpr(block(colsOf(a))));
         return args;
       }});
  return algorithm;
}

Algorithm wholeRows() {
  Algorithm algorithm = rowKernel("softmax", softmaxTuner(), [](int64_t cols) {
    return next_power_of_2(std::clamp<int64_t>(cols, 1, kSoftmaxMaxBlock));
  });
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
  return rowKernel("softmax_online", softmaxOnlineTuner(),
                   [](int64_t) { return kSoftmaxOnlineBlock; });
}

} // namespace

Operation &softmaxRows() {
  static Operation operation([] {
    // Its key (n_cols rounded up to a power of two) buckets rows as
    // softmax's refusal does: rows longer than kSoftmaxMaxBlock (a power of
    // two) fall in buckets of their own.
    OperationSpec spec =
        matrixOperationSpec("softmax_rows", {wholeRows(), chunkedRows()});
    // Untimed: the softmax example's rule (softmaxPrefersOnline).
    spec.untimed = [](llvm::ArrayRef<Arg> a, TargetKind target) -> size_t {
      return softmaxPrefersOnline(colsOf(a), target) ? 1 : 0;
    };
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
