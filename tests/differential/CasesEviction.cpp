//===- CasesEviction.cpp - loads and stores with eviction hints ---------===//
//
// An eviction hint changes no result. On the GPU a hinted access becomes
// inline PTX of the access's width (EvictionHints.cpp): 1-, 2-, 4-, 8- and
// 16-byte registers, taken apart and put back together around the asm. These
// cases copy and update blocks of every width with hinted loads and stores,
// masked tails, pointers an element off (narrower accesses, and shifted
// word pairs for 2-byte rows on one warp) and in place (the
// hinted load must still come before the store to its address), and blocks
// the GPU keeps in shared memory (cp.async with an L2 policy); the CPU
// ignores the hints, so both targets must give the reference's result.
//
//===----------------------------------------------------------------------===//
#include "tests/differential/CaseHelpers.h"

#include "frontend/blockjit.h"

namespace blockjit::difftest {

namespace {

/// out[i] = in[i] + 1 for i < n: the load evicts first, the store last.
const std::shared_ptr<KernelDef> &hintedBlock() {
  static auto kernel =
      jit("eviction_block", [](Ptr<> out, Ptr<> in, Int n, Constexpr BLOCK) {
        Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
        Tensor mask = offsets < n;
        Tensor x = load(in + offsets, mask, 0, Eviction::First);
        store(out + offsets, x + 1, mask, Eviction::Last);
      });
  return kernel;
}

/// out[p] = in[p] + 1 for program p, through scalar pointers (the common
/// scalar lowering), without masks.
const std::shared_ptr<KernelDef> &hintedScalar() {
  static auto kernel = jit("eviction_scalar", [](Ptr<> out, Ptr<> in) {
    Tensor x = load(in + program_id(0), Eviction::Last);
    store(out + program_id(0), x + 1, Eviction::First);
  });
  return kernel;
}

/// A case of hintedBlock over n elements of `t` in blocks of `block`:
/// buffers `lead` bytes off 16-byte alignment, in place or into a second
/// buffer.
Case hintedBlockCase(std::string name, DType t, int64_t n, int64_t block,
                     int lead, bool inPlace) {
  Case c{std::move(name), {"load", "store"}, hintedBlock()};
  std::vector<double> init =
      isFloat(t) ? floats(t, n, unsigned(n)) : ints(t, n, unsigned(n), 100);
  c.buffers = {{t, init, lead}};
  if (inPlace) {
    c.args = {bufArg(0), bufArg(0)};
  } else {
    c.buffers.push_back({t, sentinel(n + 8), lead});
    c.args = {bufArg(1), bufArg(0)};
  }
  c.args.push_back(i32Arg(int32_t(n)));
  c.args.push_back(constArg(block));
  c.grid = {int(blocks(n, block))};
  int out = inPlace ? 0 : 1;
  c.reference = [n, out, t](Buffers &b) {
    for (int64_t i = 0; i < n; ++i) {
      double r = b[0][i] + 1;
      b[out][i] = isFloat(t) ? r : wrap(t, r);
    }
  };
  return c;
}

} // namespace

void addEvictionCases(std::vector<Case> &cases) {
  for (DType t : {DType::I8, DType::I16, DType::BF16, DType::F32, DType::I64,
                  DType::F64}) {
    for (int64_t n : {int64_t(1), int64_t(781), int64_t(4097)}) {
      for (int variant = 0; variant < 4; ++variant) {
        // 0: plain; 1: pointers one element off a 16-byte boundary
        // (narrower accesses); 2: in place; 3: 2-byte elements one element
        // off a word on one warp (moved as shifted word pairs, Memory.cpp).
        bool twoBytes = dtypeBytes(t) == 2;
        if (variant == 3 && !twoBytes)
          continue;
        int lead = variant == 1 || variant == 3 ? int(dtypeBytes(t)) : 0;
        Case c = hintedBlockCase("eviction_block_" + suffix(t) + "_n" +
                                     std::to_string(n) +
                                     (variant == 1   ? "_unaligned"
                                      : variant == 2 ? "_inplace"
                                      : variant == 3 ? "_word_pairs"
                                                     : ""),
                                 t, n, 256, lead, variant == 2);
        if (variant == 3)
          c.numWarps = 1;
        cases.push_back(std::move(c));
      }
    }
  }
  // Blocks too large for the registers of 4 warps (256 f32 or 512 bf16 a
  // thread): the GPU keeps them in shared memory, copied with cp.async,
  // which carries the load's hint as an L2 cache policy (16-byte copies,
  // zero-filled past n; 4- or 2-byte ones one element off).
  for (DType t : {DType::F32, DType::BF16}) {
    int64_t block = t == DType::F32 ? 32768 : 65536;
    for (int variant = 0; variant < 3; ++variant) {
      int64_t n = block + 1 + 7 * variant;
      Case c = hintedBlockCase(
          "eviction_block_staged_" + suffix(t) +
              (variant == 1   ? "_unaligned"
               : variant == 2 ? "_inplace"
                              : ""),
          t, n, block, variant == 1 ? int(dtypeBytes(t)) : 0, variant == 2);
      c.numWarps = 4;
      cases.push_back(std::move(c));
    }
  }
  for (DType t : {DType::I8, DType::F16, DType::I32, DType::I64, DType::F64}) {
    const int programs = 5;
    Case c{"eviction_scalar_" + suffix(t), {"load", "store"}, hintedScalar()};
    c.buffers = {{t, ints(t, programs, 3, 100)}, {t, sentinel(programs + 3)}};
    c.args = {bufArg(1), bufArg(0)};
    c.grid = {programs};
    c.reference = [t](Buffers &b) {
      for (int p = 0; p < programs; ++p)
        b[1][p] = isFloat(t) ? b[0][p] + 1 : wrap(t, b[0][p] + 1);
    };
    cases.push_back(std::move(c));
  }
}

} // namespace blockjit::difftest
