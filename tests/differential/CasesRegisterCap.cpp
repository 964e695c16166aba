//===- CasesRegisterCap.cpp - a config's register cap ---------------------===//
//
// Copies of the row kernels', layernorm's and softmax_columns' cases with a
// register cap (LaunchOptions::maxRegisters, PTX's .maxnreg), the tuner's
// own neighbour of a config whose registers keep a CTA off each SM. A cap
// changes no result: on the GPU a tight one (32 registers) makes ptxas spill
// blocks, reductions' partials and addresses to local memory, a loose one
// (128) only reorders; the copies check both still compute what they did.
// The CPU ignores the cap and runs them as they are.
//
//===----------------------------------------------------------------------===//
#include "tests/differential/CaseHelpers.h"

namespace blockjit::difftest {

void addRegisterCapCases(std::vector<Case> &cases) {
  // Every `stride`-th case whose name starts with `prefix`, the two caps in
  // turn.
  addVariedCopies(cases,
                  {{"softmax_f", 4},
                   {"softmax_bf16", 4},
                   {"softmax_backward", 4},
                   {"softmax_causal", 4},
                   {"layernorm", 6},
                   {"softmax_columns", 6}},
                  [](Case &copy, int turn) {
                    copy.maxRegisters = turn % 2 == 0 ? 32 : 128;
                    copy.name += "_maxnreg" + std::to_string(copy.maxRegisters);
                    return true;
                  });
}

} // namespace blockjit::difftest
