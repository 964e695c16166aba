//===- CasesDefaultEviction.cpp - a config's eviction hints ---------------===//
//
// Copies of the row kernels' cases (the ones the row tuner may run with
// loads evict_last or stores evict_first: examples::evictionRefined), of
// in-place and strided vector adds and of the staged eviction blocks, with
// each config hint in turn. A hint changes no result: on the GPU the copies
// check that every access the hint rewrites into inline PTX (vector widths,
// masked tails, cp.async into shared memory, a source hint kept) still
// reads and writes what it did. The CPU ignores the hints and runs them as
// they are.
//
//===----------------------------------------------------------------------===//
#include "tests/differential/CaseHelpers.h"

namespace blockjit::difftest {

void addDefaultEvictionCases(std::vector<Case> &cases) {
  // Every `stride`-th case whose name starts with `prefix`, the two hints
  // in turn.
  addVariedCopies(cases,
                  {{"softmax_f", 3},
                   {"softmax_bf16", 3},
                   {"softmax_backward", 3},
                   {"log_softmax", 4},
                   {"softmax_temperature", 8},
                   {"softmax_scale", 6},
                   {"softmax_masked", 6},
                   {"softmax_causal", 4},
                   {"layernorm", 6},
                   {"vector_add", 4},
                   {"eviction_block_staged", 1}},
                  [](Case &copy, int turn) {
                    if (turn % 2 == 0) {
                      copy.name += "_loads_evict_last";
                      copy.loadEviction = DefaultEviction::Last;
                    } else {
                      copy.name += "_stores_evict_first";
                      copy.storeEviction = DefaultEviction::First;
                    }
                    return true;
                  });
}

} // namespace blockjit::difftest
