//===- CasesAtomics.cpp - atomic_add/max/min/xchg/cas on both targets -----===//
//
// Atomics of many programs race, so every case is built to have one correct
// final memory: counters (count = hits) and the sum of the old values each
// counter returned (0 + 1 + ... + (hits - 1): each old value seen exactly
// once), histograms with collisions, max/min folds (order-free), xchg, add,
// max, min and cas into distinct slots (old values deterministic), and a
// cas "claim" whose winner is any valid claimant (Case::canonicalize). The
// sizes are kSizes with masked tails; a 16-element block with num_warps 4
// (128 threads: each element held by 8 threads) checks that each element's
// atomic executes exactly once, also for 2-D blocks and scalar pointers.
//
// Tolerance: exact, except f32 atomic_add, which on CUDA flushes subnormal
// inputs and results to zero (PTX atom.add.f32): abs 1.2e-38.
//
//===----------------------------------------------------------------------===//
#include "tests/differential/CaseHelpers.h"

#include "frontend/blockjit.h"

#include <cstring>

namespace blockjit::difftest {

namespace {

const Tolerance kAtomicAddF32 = {1.2e-38, 0,
                                 "exact; CUDA f32 atomic_add flushes "
                                 "subnormals (abs 1.2e-38)"};

/// Float values of `floats()` without zeros (which of -0 and +0 max/min
/// pick is unspecified): 0 becomes 0.5 and -0 becomes -0.5.
std::vector<double> nonzeroFloats(DType type, int64_t n, unsigned seed) {
  std::vector<double> v = floats(type, n, seed);
  for (double &x : v)
    if (x == 0)
      x = std::signbit(x) ? -0.5 : 0.5;
  return v;
}

std::string sizeName(int64_t n) { return "_n" + std::to_string(n); }

//===----------------------------------------------------------------------===//
// Counters: hits = programs x lanes over `slots` counters
//===----------------------------------------------------------------------===//

/// Lane i < n adds 1 to counter i % slots and then adds the old value it got
/// to sums[i % slots]: counts[s] = hits, sums[s] = hits (hits - 1) / 2.
void addCounterCases(std::vector<Case> &cases) {
  constexpr int64_t kSlots = 4;
  auto kernel = jit("atomic_counters",
                    [](Ptr<> counts, Ptr<> sums, Int n, Constexpr BLOCK) {
                      Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
                      Tensor mask = offsets < n;
                      Tensor slot = offsets % kSlots;
                      Tensor old = atomic_add(counts + slot, 1, mask);
                      atomic_add(sums + slot, old, mask);
                    });
  struct Shape {
    int64_t block;
    int warps;
  };
  for (DType t : {DType::I32, DType::I64, DType::F32, DType::F64})
    for (Shape shape : {Shape{256, 4}, Shape{16, 4}, Shape{64, 1}})
      for (int64_t n : kSizes) {
        Case c{"atomic_counters_" + suffix(t) + "_b" +
                   std::to_string(shape.block) + "_w" +
                   std::to_string(shape.warps) + sizeName(n),
               {"atomic_add"},
               kernel};
        c.buffers = {{t, std::vector<double>(kSlots + 2, 0)},
                     {t, std::vector<double>(kSlots + 2, 0)}};
        c.args = {bufArg(0), bufArg(1), i32Arg(int32_t(n)),
                  constArg(shape.block)};
        c.grid = {int(blocks(n, shape.block))};
        c.numWarps = shape.warps;
        c.reference = [n](Buffers &b) {
          for (int64_t s = 0; s < kSlots; ++s) {
            int64_t hits = n / kSlots + (s < n % kSlots ? 1 : 0);
            b[0][s] = double(hits);
            b[1][s] = double(hits * (hits - 1) / 2);
          }
        };
        c.tolerance = kExact;
        cases.push_back(std::move(c));
      }
  // f16 and bf16 atomic_add: counts only (integers up to 256 are exact in
  // bf16); 64 counters, so that 4097 lanes give at most 65 hits each.
  auto narrow =
      jit("atomic_counters_narrow", [](Ptr<> counts, Int n, Constexpr BLOCK) {
        Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
        atomic_add(counts + offsets % 64, 1.0, offsets < n);
      });
  for (DType t : {DType::F16, DType::BF16})
    for (int64_t block : {int64_t(256), int64_t(16)})
      for (int64_t n : kSizes) {
        Case c{"atomic_counters_" + suffix(t) + "_b" + std::to_string(block) +
                   sizeName(n),
               {"atomic_add"},
               narrow};
        c.buffers = {{t, std::vector<double>(66, 0)}};
        c.args = {bufArg(0), i32Arg(int32_t(n)), constArg(block)};
        c.grid = {int(blocks(n, block))};
        c.reference = [n](Buffers &b) {
          for (int64_t i = 0; i < n; ++i)
            b[0][i % 64] += 1;
        };
        c.tolerance = kExact;
        cases.push_back(std::move(c));
      }
}

/// A histogram with collisions: bins[data[i]] += 1 for i < n.
void addHistogramCases(std::vector<Case> &cases) {
  constexpr int64_t kBins = 37;
  auto kernel = jit("atomic_histogram",
                    [](Ptr<> data, Ptr<> bins, Int n, Constexpr BLOCK) {
                      Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
                      Tensor mask = offsets < n;
                      Tensor bin = load(data + offsets, mask, 0);
                      atomic_add(bins + bin, 1, mask);
                    });
  for (int64_t block : {int64_t(256), int64_t(16)})
    for (int64_t n : kSizes) {
      Case c{"atomic_histogram_b" + std::to_string(block) + sizeName(n),
             {"atomic_add"},
             kernel};
      std::vector<double> data = ints(DType::I32, n, unsigned(n + block));
      for (double &x : data)
        x = double((int64_t(std::fabs(x)) * 7) % kBins);
      c.buffers = {{DType::I32, data}, {DType::I32, sentinel(kBins)}};
      c.args = {bufArg(0), bufArg(1), i32Arg(int32_t(n)), constArg(block)};
      c.grid = {int(blocks(n, block))};
      c.reference = [n](Buffers &b) {
        for (int64_t i = 0; i < n; ++i)
          b[1][int64_t(b[0][i])] += 1;
      };
      c.tolerance = kExact;
      cases.push_back(std::move(c));
    }
}

//===----------------------------------------------------------------------===//
// max/min folds: order-free, with +-inf, NaN and denormals
//===----------------------------------------------------------------------===//

/// Lane i < n folds v[i] into mx[i % 8] with atomic_max and into mn[i % 8]
/// with atomic_min. Floats follow fmax/fmin: NaN values leave memory as it
/// was, a NaN in memory (slot 1) is replaced.
void addFoldCases(std::vector<Case> &cases) {
  constexpr int64_t kSlots = 8;
  auto kernel = jit("atomic_fold",
                    [](Ptr<> v, Ptr<> mx, Ptr<> mn, Int n, Constexpr BLOCK) {
                      Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
                      Tensor mask = offsets < n;
                      Tensor x = load(v + offsets, mask);
                      atomic_max(mx + offsets % kSlots, x, mask);
                      atomic_min(mn + offsets % kSlots, x, mask);
                    });
  for (DType t : {DType::F32, DType::F64, DType::I32, DType::I64})
    for (int64_t block : {int64_t(256), int64_t(16)})
      for (int64_t n : kSizes) {
        Case c{"atomic_fold_" + suffix(t) + "_b" + std::to_string(block) +
                   sizeName(n),
               {"atomic_max", "atomic_min"},
               kernel};
        unsigned seed = unsigned(n * 3 + block);
        std::vector<double> init(kSlots + 1, kSentinel);
        if (isFloat(t)) {
          init[1] = kNaN;
          init[2] = -kInf;
          init[3] = kInf;
        } else {
          init[2] = -1e9;
          init[3] = 1e9;
        }
        c.buffers = {
            {t, isFloat(t) ? nonzeroFloats(t, n, seed) : ints(t, n, seed)},
            {t, init},
            {t, init}};
        c.args = {bufArg(0), bufArg(1), bufArg(2), i32Arg(int32_t(n)),
                  constArg(block)};
        c.grid = {int(blocks(n, block))};
        c.reference = [n](Buffers &b) {
          for (int64_t i = 0; i < n; ++i) {
            b[1][i % kSlots] = std::fmax(b[1][i % kSlots], b[0][i]);
            b[2][i % kSlots] = std::fmin(b[2][i % kSlots], b[0][i]);
          }
        };
        c.tolerance = kExact;
        cases.push_back(std::move(c));
      }
}

//===----------------------------------------------------------------------===//
// Distinct slots: deterministic old values
//===----------------------------------------------------------------------===//

/// Lane i < n does mem[i] = op(mem[i], v[i]) and stores the old value to
/// out[i]; lanes past n touch neither.
void addDistinctSlotCases(std::vector<Case> &cases) {
  struct RMW {
    const char *name;
    std::function<Tensor(Tensor, Tensor, Tensor)> dsl;
    std::function<double(double, double)> ref;
    std::vector<DType> types;
  };
  const RMW ops[] = {
      {"add",
       [](Tensor p, Tensor v, Tensor m) { return atomic_add(p, v, m); },
       [](double a, double b) { return a + b; },
       {DType::I32, DType::I64, DType::F32, DType::F64}},
      {"max",
       [](Tensor p, Tensor v, Tensor m) { return atomic_max(p, v, m); },
       [](double a, double b) { return std::fmax(a, b); },
       {DType::I32, DType::I64, DType::F32, DType::F64}},
      {"min",
       [](Tensor p, Tensor v, Tensor m) { return atomic_min(p, v, m); },
       [](double a, double b) { return std::fmin(a, b); },
       {DType::I32, DType::I64, DType::F32, DType::F64}},
      {"xchg",
       [](Tensor p, Tensor v, Tensor m) { return atomic_xchg(p, v, m); },
       [](double, double b) { return b; },
       {DType::I32, DType::I64, DType::F32, DType::F64}},
  };
  for (const RMW &op : ops) {
    auto dsl = op.dsl;
    auto kernel =
        jit(std::string("atomic_slots_") + op.name,
            [dsl](Ptr<> mem, Ptr<> v, Ptr<> out, Int n, Constexpr BLOCK) {
              Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
              Tensor mask = offsets < n;
              Tensor old = dsl(mem + offsets, load(v + offsets, mask), mask);
              store(out + offsets, old, mask);
            });
    for (DType t : op.types)
      for (int64_t block : {int64_t(256), int64_t(16)})
        for (int64_t n : kSizes) {
          std::string name = std::string("atomic_slots_") + op.name + "_" +
                             suffix(t) + "_b" + std::to_string(block) +
                             sizeName(n);
          Case c{name, {std::string("atomic_") + op.name}, kernel};
          unsigned seed = unsigned(n + block + std::strlen(op.name));
          auto input = [&](unsigned s) {
            if (!isFloat(t))
              // Sums must not overflow: i32 inputs within +-2^30.
              return ints(t, n + 5, s, int64_t(1) << 30);
            return nonzeroFloats(t, n + 5, s);
          };
          c.buffers = {
              {t, input(seed)}, {t, input(seed + 1)}, {t, sentinel(n + 5)}};
          c.args = {bufArg(0), bufArg(1), bufArg(2), i32Arg(int32_t(n)),
                    constArg(block)};
          c.grid = {int(blocks(n, block))};
          auto ref = op.ref;
          c.reference = [n, ref](Buffers &b) {
            for (int64_t i = 0; i < n; ++i) {
              b[2][i] = b[0][i];
              b[0][i] = ref(b[0][i], b[1][i]);
            }
          };
          c.tolerance = t == DType::F32 && std::string(op.name) == "add"
                            ? kAtomicAddF32
                            : kExact;
          cases.push_back(std::move(c));
        }
  }
}

/// Bitwise equality, as atomic_cas compares (NaN == NaN of the same bits,
/// -0 != +0); the harness encodes every NaN with the same bits.
bool sameBits(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

/// atomic_cas into distinct slots: lanes with i % 3 != 2 compare with the
/// slot's own contents (and swap), the others with a value that differs
/// (no swap); the old values go to out.
void addCasSlotCases(std::vector<Case> &cases) {
  auto kernel = jit("atomic_cas_slots", [](Ptr<> mem, Ptr<> cmp, Ptr<> v,
                                           Ptr<> out, Int n, Constexpr BLOCK) {
    Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
    Tensor mask = offsets < n;
    Tensor old = atomic_cas(mem + offsets, load(cmp + offsets, mask),
                            load(v + offsets, mask), mask);
    store(out + offsets, old, mask);
  });
  for (DType t : {DType::I32, DType::I64, DType::F32, DType::F64})
    for (int64_t block : {int64_t(256), int64_t(16)})
      for (int64_t n : kSizes) {
        Case c{"atomic_cas_slots_" + suffix(t) + "_b" + std::to_string(block) +
                   sizeName(n),
               {"atomic_cas"},
               kernel};
        unsigned seed = unsigned(n * 5 + block);
        std::vector<double> mem = values(t, n + 3, seed);
        std::vector<double> cmp = mem;
        for (int64_t i = 0; i < n + 3; ++i) {
          if (i % 3 != 2)
            continue;
          // A different value; for floats also -0 against +0.
          if (isFloat(t) && mem[i] == 0)
            cmp[i] = std::signbit(mem[i]) ? 0.0 : -0.0;
          else if (std::isnan(mem[i]))
            cmp[i] = 1;
          else
            cmp[i] = mem[i] == 5 ? 6 : 5;
        }
        c.buffers = {{t, mem},
                     {t, cmp},
                     {t, values(t, n + 3, seed + 1)},
                     {t, sentinel(n + 3)}};
        c.args = {bufArg(0), bufArg(1),          bufArg(2),
                  bufArg(3), i32Arg(int32_t(n)), constArg(block)};
        c.grid = {int(blocks(n, block))};
        c.reference = [n](Buffers &b) {
          for (int64_t i = 0; i < n; ++i) {
            b[3][i] = b[0][i];
            if (sameBits(b[0][i], b[1][i]))
              b[0][i] = b[2][i];
          }
        };
        c.tolerance = kExact;
        cases.push_back(std::move(c));
      }
}

/// The claim pattern: every lane i < n tries to claim slot i % 8 (initially
/// -1) with atomic_cas(slot, -1, i); exactly one lane per slot sees -1 and
/// counts its win. Which lane wins is a race: a slot holding any claimant's
/// id (i % 8 == slot, i < n) is canonicalized to 1.
void addClaimCases(std::vector<Case> &cases) {
  constexpr int64_t kSlots = 8;
  auto kernel =
      jit("atomic_claim", [](Ptr<> slots, Ptr<> wins, Int n, Constexpr BLOCK) {
        Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
        Tensor mask = offsets < n;
        Tensor old = atomic_cas(slots + offsets % kSlots, -1, offsets, mask);
        atomic_add(wins + offsets % kSlots, where(old == -1, 1, 0), mask);
      });
  for (int64_t block : {int64_t(256), int64_t(16)})
    for (int64_t n : kSizes) {
      Case c{"atomic_claim_b" + std::to_string(block) + sizeName(n),
             {"atomic_cas", "atomic_add"},
             kernel};
      c.buffers = {{DType::I32, std::vector<double>(kSlots, -1)},
                   {DType::I32, std::vector<double>(kSlots, 0)}};
      c.args = {bufArg(0), bufArg(1), i32Arg(int32_t(n)), constArg(block)};
      c.grid = {int(blocks(n, block))};
      c.reference = [n](Buffers &b) {
        for (int64_t s = 0; s < kSlots && s < n; ++s) {
          b[0][s] = 1;
          b[1][s] = 1;
        }
      };
      c.canonicalize = [n](const Buffers &, Buffers &got) {
        for (int64_t s = 0; s < kSlots; ++s) {
          double id = got[0][s];
          if (id == -1)
            continue;
          bool valid = id >= 0 && id < double(n) && int64_t(id) % kSlots == s;
          got[0][s] = valid ? 1 : -999;
        }
      };
      c.tolerance = kExact;
      cases.push_back(std::move(c));
    }
}

//===----------------------------------------------------------------------===//
// 2-D blocks and scalar pointers
//===----------------------------------------------------------------------===//

/// A [4, 8] block (32 elements; with 4 warps each is held by 4 threads) and
/// a [16, 32] block, masked to the first m columns and r rows: counters as
/// above over 5 slots, keyed by the element's row-major index.
void add2DCases(std::vector<Case> &cases) {
  constexpr int64_t kSlots = 5;
  auto kernel =
      jit("atomic_counters_2d", [](Ptr<> counts, Ptr<> sums, Int r, Int m,
                                   Constexpr ROWS, Constexpr COLS) {
        Tensor rows = arange(0, ROWS).expand_dims(1);
        Tensor cols = arange(0, COLS).expand_dims(0);
        Tensor index = rows * COLS + cols;
        Tensor mask = (rows < r) & (cols < m);
        Tensor slot = (index + program_id(0)) % kSlots;
        Tensor old = atomic_add(counts + slot, 1, mask);
        atomic_add(sums + slot, old, mask);
      });
  struct Shape {
    int64_t rows, cols, r, m;
    int warps;
  };
  for (Shape s : {Shape{4, 8, 3, 7, 4}, Shape{16, 32, 13, 30, 4},
                  Shape{16, 32, 16, 32, 2}}) {
    const int programs = 9;
    Case c{"atomic_counters_2d_" + std::to_string(s.rows) + "x" +
               std::to_string(s.cols) + "_m" + std::to_string(s.m) + "_w" +
               std::to_string(s.warps),
           {"atomic_add"},
           kernel};
    c.buffers = {{DType::I32, std::vector<double>(kSlots, 0)},
                 {DType::I32, std::vector<double>(kSlots, 0)}};
    c.args = {bufArg(0),
              bufArg(1),
              i32Arg(int32_t(s.r)),
              i32Arg(int32_t(s.m)),
              constArg(s.rows),
              constArg(s.cols)};
    c.grid = {programs};
    c.numWarps = s.warps;
    c.reference = [s, programs](Buffers &b) {
      std::vector<int64_t> hits(kSlots, 0);
      for (int p = 0; p < programs; ++p)
        for (int64_t i = 0; i < s.r; ++i)
          for (int64_t j = 0; j < s.m; ++j)
            ++hits[(i * s.cols + j + p) % kSlots];
      for (int64_t k = 0; k < kSlots; ++k) {
        b[0][k] = double(hits[k]);
        b[1][k] = double(hits[k] * (hits[k] - 1) / 2);
      }
    };
    c.tolerance = kExact;
    cases.push_back(std::move(c));
  }
}

/// Atomics on scalar pointers, once per program: a counter whose old values
/// every thread must see (the sums of a 16-element block are P (P - 1) / 2
/// in every lane), a masked counter (even programs only), max and min of
/// the program ids, an xchg and a cas into the program's own slot.
void addScalarCases(std::vector<Case> &cases) {
  auto kernel =
      jit("atomic_scalar", [](Ptr<> counter, Ptr<> sums, Ptr<> even,
                              Ptr<> extremes, Ptr<> slots, Ptr<> olds) {
        Int pid = program_id(0);
        Tensor old = atomic_add(counter, 1);
        atomic_add(sums + arange(0, 16), old);
        atomic_add(even, 1, pid % 2 == 0);
        atomic_max(extremes, pid);
        atomic_min(extremes + 1, pid);
        Tensor swapped = atomic_xchg(slots + pid, pid + 100);
        Tensor compared =
            atomic_cas(slots + pid, pid + 100, pid + 200, pid % 3 != 1);
        store(olds + pid * 2, swapped);
        store(olds + pid * 2 + 1, compared);
      });
  for (int warps : {4, 1})
    for (int programs : {1, 17, 200}) {
      Case c{"atomic_scalar_p" + std::to_string(programs) + "_w" +
                 std::to_string(warps),
             {"atomic_add", "atomic_max", "atomic_min", "atomic_xchg",
              "atomic_cas"},
             kernel};
      c.buffers = {{DType::I32, {0, kSentinel}},
                   {DType::I64, std::vector<double>(17, 0)},
                   {DType::I32, {0}},
                   {DType::I32, {-5, 1000}},
                   {DType::I32, ints(DType::I32, programs + 1, 11)},
                   {DType::I32, sentinel(2 * programs + 1)}};
      c.args = {bufArg(0), bufArg(1), bufArg(2),
                bufArg(3), bufArg(4), bufArg(5)};
      c.grid = {programs};
      c.numWarps = warps;
      c.reference = [programs](Buffers &b) {
        double p = programs;
        b[0][0] = p;
        for (int j = 0; j < 16; ++j)
          b[1][j] = p * (p - 1) / 2;
        b[2][0] = double((programs + 1) / 2);
        b[3][0] = p - 1;
        b[3][1] = 0;
        for (int i = 0; i < programs; ++i) {
          b[5][2 * i] = b[4][i];
          b[5][2 * i + 1] = i % 3 != 1 ? i + 100 : 0;
          b[4][i] = i % 3 != 1 ? i + 200 : i + 100;
        }
      };
      c.tolerance = kExact;
      cases.push_back(std::move(c));
    }
}

/// Atomics in a loop (the exchange's barriers run once per iteration, by
/// every thread) on a 16-element block of 128 threads, and i32 counters 4
/// bytes off 8-byte alignment: iteration k of program p adds 1 to counter
/// (lane + k) % 4 and the old value to sums, as in the counter cases.
void addLoopCases(std::vector<Case> &cases) {
  constexpr int64_t kSlots = 4;
  auto kernel = jit("atomic_loop", [](Ptr<> counts, Ptr<> sums, Int n,
                                      Int iterations, Constexpr BLOCK) {
    Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
    Tensor mask = offsets < n;
    for_range(0, iterations, 1, [&](Int k) {
      Tensor slot = (offsets + k) % kSlots;
      Tensor old = atomic_add(counts + slot, 1, mask);
      atomic_add(sums + slot, old, mask);
    });
  });
  for (int lead : {0, 4})
    for (int64_t n : {int64_t(17), int64_t(781)}) {
      const int iterations = 3;
      Case c{"atomic_loop_lead" + std::to_string(lead) + sizeName(n),
             {"atomic_add", "for_range"},
             kernel};
      c.buffers = {{DType::I32, std::vector<double>(kSlots, 0), lead},
                   {DType::I32, std::vector<double>(kSlots, 0), lead}};
      c.args = {bufArg(0), bufArg(1), i32Arg(int32_t(n)), i32Arg(iterations),
                constArg(16)};
      c.grid = {int(blocks(n, 16))};
      c.reference = [n, iterations](Buffers &b) {
        std::vector<int64_t> hits(kSlots, 0);
        for (int64_t i = 0; i < n; ++i)
          for (int k = 0; k < iterations; ++k)
            ++hits[(i + k) % kSlots];
        for (int64_t s = 0; s < kSlots; ++s) {
          b[0][s] = double(hits[s]);
          b[1][s] = double(hits[s] * (hits[s] - 1) / 2);
        }
      };
      c.tolerance = kExact;
      cases.push_back(std::move(c));
    }
}

/// The counters with every sem and both scopes (the final counts and sums
/// do not depend on the ordering) and the claim with acquire/release: each
/// combination compiles and runs on both targets.
void addOrderingCases(std::vector<Case> &cases) {
  constexpr int64_t kSlots = 4;
  const std::pair<AtomicSem, const char *> sems[] = {
      {AtomicSem::Relaxed, "relaxed"},
      {AtomicSem::Acquire, "acquire"},
      {AtomicSem::Release, "release"},
      {AtomicSem::AcqRel, "acq_rel"}};
  for (auto [sem, semName] : sems)
    for (AtomicScope scope : {AtomicScope::Cta, AtomicScope::Gpu}) {
      std::string name = std::string("atomic_order_") + semName +
                         (scope == AtomicScope::Cta ? "_cta" : "_gpu");
      auto kernel =
          jit(name, [sem, scope](Ptr<> counts, Ptr<> sums, Ptr<> slots, Int n,
                                 Constexpr BLOCK) {
            Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
            Tensor mask = offsets < n;
            Tensor slot = offsets % kSlots;
            Tensor old = atomic_add(counts + slot, 1, mask, sem, scope);
            atomic_xchg(sums + offsets, old, mask, sem, scope);
            atomic_cas(slots + slot, -1, 7, mask, sem, scope);
            Tensor same = offsets * 0; // every lane on one slot
            atomic_max(slots + kSlots + same, offsets, mask, sem, scope);
            atomic_min(slots + kSlots + 1 + same, offsets, mask, sem, scope);
          });
      for (int64_t n : {int64_t(17), int64_t(781)}) {
        Case c{name + sizeName(n),
               {"atomic_add", "atomic_xchg", "atomic_cas", "atomic_max",
                "atomic_min"},
               kernel};
        c.buffers = {{DType::I32, std::vector<double>(kSlots, 0)},
                     {DType::I32, std::vector<double>(n, 0)},
                     {DType::I32, {-1, -1, -1, -1, -5, 5000}}};
        c.args = {bufArg(0), bufArg(1), bufArg(2), i32Arg(int32_t(n)),
                  constArg(16)};
        c.grid = {int(blocks(n, 16))};
        c.reference = [n](Buffers &b) {
          for (int64_t s = 0; s < kSlots; ++s) {
            int64_t hits = n / kSlots + (s < n % kSlots ? 1 : 0);
            b[0][s] = double(hits);
            b[2][s] = 7;
          }
          b[2][kSlots] = double(n - 1);
          b[2][kSlots + 1] = 0;
        };
        // The old counts each lane stored are a race; each is below the
        // hits of its counter: canonicalized to 1 when valid.
        c.canonicalize = [n](const Buffers &, Buffers &got) {
          for (int64_t i = 0; i < n; ++i) {
            int64_t s = i % kSlots;
            int64_t hits = n / kSlots + (s < n % kSlots ? 1 : 0);
            got[1][i] = got[1][i] >= 0 && got[1][i] < double(hits) ? 0 : -1;
          }
        };
        c.tolerance = kExact;
        cases.push_back(std::move(c));
      }
    }
}

} // namespace

void addAtomicsCases(std::vector<Case> &cases) {
  addCounterCases(cases);
  addHistogramCases(cases);
  addFoldCases(cases);
  addDistinctSlotCases(cases);
  addCasSlotCases(cases);
  addClaimCases(cases);
  add2DCases(cases);
  addScalarCases(cases);
  addLoopCases(cases);
  addOrderingCases(cases);
}

} // namespace blockjit::difftest
