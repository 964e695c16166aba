//===- CasesStoreOnce.cpp - every element is stored once ----------------===//
//
// On the GPU a block smaller than the program's threads is held by several
// threads, and a scalar by all of them. If each holder stored, a slower warp
// could load a value after a faster warp had stored to it and store again:
// an in-place `store(p, load(p) + 1)` repeated in a loop would add more than
// once per iteration. These cases count: the result must be exactly the
// number of iterations, on both targets.
//
//===----------------------------------------------------------------------===//
#include "tests/differential/CaseHelpers.h"

#include "frontend/blockjit.h"

namespace blockjit::difftest {

namespace {

/// counts[i] += 1, `iterations` times, for i < n, in blocks of BLOCK.
const std::shared_ptr<KernelDef> &incrementBlock() {
  static auto kernel =
      jit("store_once_block", [](Ptr<int32_t> counts, Int n, Int iterations,
                                 Constexpr BLOCK) {
        Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
        Tensor mask = offsets < n;
        for_range(0, iterations, 1, [&](Int) {
          store(counts + offsets, load(counts + offsets, mask, 0) + 1, mask);
        });
      });
  return kernel;
}

/// counts[program] += 1, `iterations` times, through a scalar pointer.
const std::shared_ptr<KernelDef> &incrementScalar() {
  static auto kernel =
      jit("store_once_scalar", [](Ptr<int32_t> counts, Int iterations) {
        Tensor slot = counts + program_id(0);
        for_range(0, iterations, 1, [&](Int) { store(slot, load(slot) + 1); });
      });
  return kernel;
}

} // namespace

void addStoreOnceCases(std::vector<Case> &cases) {
  const int32_t iterations = 200;
  for (auto [n, block, warps] : {std::tuple<int64_t, int64_t, int>{16, 16, 4},
                                 {17, 16, 4},
                                 {100, 32, 8},
                                 {781, 64, 4},
                                 {4097, 256, 4}}) {
    Case c{"store_once_block" + std::to_string(block) + "_w" +
               std::to_string(warps) + "_n" + std::to_string(n),
           {"store", "load"},
           incrementBlock()};
    c.buffers = {{DType::I32, ints(DType::I32, n + 8, unsigned(n), 1000)}};
    c.args = {bufArg(0), i32Arg(int32_t(n)), i32Arg(iterations),
              constArg(block)};
    c.grid = {int(blocks(n, block))};
    c.numWarps = warps;
    c.reference = [n, iterations](Buffers &b) {
      for (int64_t i = 0; i < n; ++i)
        b[0][i] += iterations;
    };
    cases.push_back(std::move(c));
  }
  for (int programs : {1, 5}) {
    Case c{"store_once_scalar_p" + std::to_string(programs),
           {"store", "load"},
           incrementScalar()};
    c.buffers = {{DType::I32, ints(DType::I32, programs + 3, 7, 1000)}};
    c.args = {bufArg(0), i32Arg(iterations)};
    c.grid = {programs};
    c.numWarps = 4;
    c.reference = [programs, iterations](Buffers &b) {
      for (int p = 0; p < programs; ++p)
        b[0][p] += iterations;
    };
    cases.push_back(std::move(c));
  }
}

} // namespace blockjit::difftest
