//===- CasesProgramsPerCTA.cpp - programs sharing one CTA -----------------===//
//
// Copies of cases whose programs use what a program must keep to itself
// when several share a CTA: program ids and the persistent loop, shared
// memory and barriers (reductions across warps, scans, broadcasts, 2-D
// tiles, argmax), one thread's scalar stores and atomics. Each runs with 2,
// 4 or 8 programs per CTA on its own grid, so the last CTA often has idle
// slots. The CPU runs them as they are.
//
//===----------------------------------------------------------------------===//
#include "tests/differential/CaseHelpers.h"

namespace blockjit::difftest {

void addProgramsPerCTACases(std::vector<Case> &cases) {
  // Every `stride`-th case whose name starts with `prefix`.
  addVariedCopies(cases,
                  {{"softmax_", 5},
                   {"reduce", 4},
                   {"scan1d", 6},
                   {"scan2d", 4},
                   {"atomic", 10},
                   {"am_", 8},
                   {"tile", 2},
                   {"layernorm", 3},
                   {"rank3", 5},
                   {"log_", 4},
                   {"temperature", 2},
                   {"online", 2},
                   {"loop", 1},
                   {"store", 1},
                   {"grid3d", 1},
                   {"join", 4},
                   {"trans", 4},
                   {"broadcast2d", 1}},
                  [](Case &copy, int turn) {
                    // 2, 4, 8 in turn for programs of 1 or 2 warps (what the
                    // tuner packs); 2 for larger ones, whose scratch arrays
                    // would overflow 48 KB four times over.
                    int programs = 2 << (turn % 3);
                    while (programs > 2 && copy.numWarps * programs > 8)
                      programs /= 2;
                    if (copy.numWarps * programs > 32)
                      return false;
                    copy.name += "_programs" + std::to_string(programs);
                    copy.programsPerCTA = programs;
                    return true;
                  });
}

} // namespace blockjit::difftest
