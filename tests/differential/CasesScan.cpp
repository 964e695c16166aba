//===- CasesScan.cpp - cumsum, cumprod and associative_scan ---------------===//
//
// Inclusive scans along both axes, forward and reverse, on every dtype, with
// masked tails (the masked lanes load the combine's identity), blocks
// smaller than the threads (16 and 64 elements with 4 warps: replicated
// lanes and replicated warps), and one warp to eight. Float inputs keep
// every grouping exact (multiples of 1/8, powers of two), since the GPU
// regroups the combinations: inf, NaN and +-1000 then propagate the same on
// both targets, and two 3e38 in a row overflow to inf in any grouping.
//
// Tolerance: exact. f32 cumsums hold one denormal, which a regrouped sum
// may drop (abs 1e-37).
//
//===----------------------------------------------------------------------===//
#include "tests/differential/CaseHelpers.h"

#include "frontend/blockjit.h"

#include <cmath>
#include <cstdint>
#include <random>

namespace blockjit::difftest {

namespace {

enum class Scan { Sum, Prod, Max, FirstNonzero, Or };

const char *scanName(Scan s) {
  switch (s) {
  case Scan::Sum:
    return "cumsum";
  case Scan::Prod:
    return "cumprod";
  case Scan::Max:
    return "scanmax";
  case Scan::FirstNonzero:
    return "scanfirst";
  case Scan::Or:
    return "scanor";
  }
  return "";
}

/// The DSL scan `s` of `x` along `axis`.
Tensor dslScan(Scan s, const Tensor &x, int axis, bool reverse) {
  switch (s) {
  case Scan::Sum:
    return cumsum(x, axis, reverse);
  case Scan::Prod:
    return cumprod(x, axis, reverse);
  case Scan::Max:
    return associative_scan(
        x, axis, [](Tensor a, Tensor b) { return maximum(a, b); }, reverse);
  case Scan::FirstNonzero:
    // Associative but not commutative: the earliest nonzero element.
    return associative_scan(
        x, axis, [](Tensor a, Tensor b) { return where(a != 0, a, b); },
        reverse);
  case Scan::Or:
    return associative_scan(
        x, axis, [](Tensor a, Tensor b) { return a | b; }, reverse);
  }
  return {};
}

std::vector<std::string> coversOf(Scan s) {
  switch (s) {
  case Scan::Sum:
    return {"cumsum"};
  case Scan::Prod:
    return {"cumprod"};
  case Scan::Max:
    return {"associative_scan", "maximum"};
  case Scan::FirstNonzero:
    return {"associative_scan", "where", "operator!="};
  case Scan::Or:
    return {"associative_scan", "operator|"};
  }
  return {};
}

/// What a masked lane loads: the identity of the combine.
double identityOf(Scan s, DType t) {
  switch (s) {
  case Scan::Sum:
  case Scan::FirstNonzero:
  case Scan::Or:
    return 0;
  case Scan::Prod:
    return 1;
  case Scan::Max:
    if (isFloat(t))
      return -kInf;
    return t == DType::I64 ? -9223372036854775808.0 : -2147483648.0;
  }
  return 0;
}

double maxRef(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return kNaN;
  if (a == 0 && b == 0)
    return std::signbit(a) ? b : a;
  return std::max(a, b);
}

/// `acc (+) x` as the target computes it in `t` (the result is rounded to
/// `t` by the harness; integer sums and products wrap here).
double combineRef(Scan s, DType t, double acc, double x) {
  switch (s) {
  case Scan::Sum:
    if (t == DType::F64)
      return acc + x;
    // f32 accumulation (f16/bf16 too): 3e38 + 3e38 overflows.
    return isFloat(t) ? double(float(acc) + float(x)) : wrap(t, acc + x);
  case Scan::Prod:
    if (t == DType::F64)
      return acc * x;
    if (isFloat(t))
      return double(float(acc) * float(x));
    // Two's complement: multiply modulo 2^64, then wrap to the type.
    return wrap(t,
                double(int64_t(uint64_t(int64_t(acc)) * uint64_t(int64_t(x)))));
  case Scan::Max:
    return maxRef(acc, x);
  case Scan::FirstNonzero:
    return acc != 0 ? acc : x;
  case Scan::Or:
    return double(int64_t(acc) | int64_t(x));
  }
  return 0;
}

/// Inputs whose every grouping is exact (see the file comment).
std::vector<double> scanInputs(Scan s, DType t, int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<double> v(n);
  if (s == Scan::Or) {
    for (double &x : v)
      x = rng() % 4 == 0;
    return v;
  }
  if (s == Scan::Prod) {
    // +-1, +-2, +-0.5 with the running exponent kept within +-8 (integers:
    // +-1, +-2, +-3, some large ones so that i32 products wrap).
    int exponent = 0;
    for (int64_t i = 0; i < n; ++i) {
      int r = int(rng() % 8);
      double sign = rng() % 2 ? -1 : 1;
      if (!isFloat(t)) {
        v[i] = sign * (r < 5 ? 1 : r < 7 ? 2 : 3);
        if (t != DType::I64 && i % 97 == 5)
          v[i] = 65537;
        continue;
      }
      double x = 1;
      if (r == 6 && exponent < 8)
        x = 2, ++exponent;
      else if (r == 7 && exponent > -8)
        x = 0.5, --exponent;
      v[i] = sign * x;
    }
    if (isFloat(t) && n > 100) {
      v[n / 2] = kInf;
      v[n / 3] = 0;
      v[n - 5] = kNaN;
    }
    return v;
  }
  if (s == Scan::FirstNonzero) {
    for (int64_t i = 0; i < n; ++i)
      v[i] = rng() % 3 == 0 ? double(int(rng() % 201) - 100) : 0;
    return v;
  }
  if (!isFloat(t)) {
    // Sums of i32/i8/i16 extremes wrap; i64 stays within +-2^40.
    v = ints(t, n, seed);
    return v;
  }
  // Floats: multiples of 1/8 (small integers for f16/bf16, whose f32
  // accumulation is then exact too).
  for (int64_t i = 0; i < n; ++i)
    v[i] = t == DType::F32 || t == DType::F64
               ? double(int(rng() % 2001) - 1000) / 8
               : double(int(rng() % 33) - 16);
  if (n > 8) {
    v[1] = 1000;
    v[2] = -1000;
  }
  if (s == Scan::Max && n > 8 && t == DType::F32)
    v[n / 2] = 1e-40;
  if (s == Scan::Sum && t == DType::F32 && n > 8)
    v[0] = 1e-40;
  if (n > 100) {
    v[n / 4] = kInf;
    if (t == DType::F32 && s == Scan::Sum) {
      v[n / 4] = 3e38; // two in a row: inf in any grouping
      v[n / 4 + 1] = 3e38;
    }
    v[n / 2 + 1] = -kInf;
    v[n - 3] = kNaN;
  }
  return v;
}

/// The inclusive scan of `line` (stride `stride`, `length` elements from
/// `base`) of buffer `in` into `out`.
void scanRef(Scan s, DType t, const std::vector<double> &in,
             std::vector<double> &out, int64_t base, int64_t stride,
             int64_t length, bool reverse) {
  double acc = 0;
  for (int64_t n = 0; n < length; ++n) {
    int64_t i = base + stride * (reverse ? length - 1 - n : n);
    acc = n == 0 ? in[i] : combineRef(s, t, acc, in[i]);
    out[i] = acc;
  }
}

Tolerance toleranceOf(Scan s, DType t) {
  if (s == Scan::Sum && t == DType::F32)
    return {1e-37, 0, "exact (a denormal may be dropped by regrouping)"};
  return kExact;
}

/// 1-D: each program scans its block of `in`; lanes past n load the
/// identity and store nothing.
void add1D(std::vector<Case> &cases, Scan s, DType t, int64_t n, int64_t block,
           bool reverse, int numWarps) {
  std::string kernelName = std::string("scan1d_") + scanName(s) + "_" +
                           suffix(t) + (reverse ? "_rev" : "");
  double identity = identityOf(s, t);
  auto kernel =
      jit(kernelName, [s, reverse, identity](Ptr<> in, Ptr<> out, Int size,
                                             Constexpr BLOCK) {
        Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
        Tensor mask = offsets < size;
        Tensor x = load(in + offsets, mask, identity);
        store(out + offsets, dslScan(s, x, 0, reverse), mask);
      });
  Case c{kernelName + "_n" + std::to_string(n) + "_b" + std::to_string(block) +
             "_w" + std::to_string(numWarps),
         coversOf(s), kernel};
  c.buffers = {{t, scanInputs(s, t, n, unsigned(n * 13 + int(s)))},
               {t, sentinel(n + 5)}};
  c.args = {bufArg(0), bufArg(1), i32Arg(int32_t(n)), constArg(block)};
  c.grid = {int(blocks(n, block))};
  c.numWarps = numWarps;
  c.reference = [s, t, n, block, reverse](Buffers &b) {
    for (int64_t start = 0; start < n; start += block)
      scanRef(s, t, b[0], b[1], start, 1, std::min(block, n - start), reverse);
  };
  c.tolerance = toleranceOf(s, t);
  cases.push_back(std::move(c));
}

/// 2-D: a rows x cols matrix in one block (not multiples of the block),
/// scanned along `axis`.
void add2D(std::vector<Case> &cases, Scan s, DType t, int64_t rows,
           int64_t cols, int axis, bool reverse) {
  std::string kernelName = std::string("scan2d_") + scanName(s) + "_" +
                           suffix(t) + "_axis" + std::to_string(axis) +
                           (reverse ? "_rev" : "");
  double identity = identityOf(s, t);
  auto kernel = jit(kernelName, [s, axis, reverse,
                                 identity](Ptr<> in, Ptr<> out, Int nr, Int nc,
                                           Constexpr RB, Constexpr CB) {
    Tensor r = arange(0, RB).expand_dims(1);
    Tensor c = arange(0, CB).expand_dims(0);
    Tensor mask = (r < nr) & (c < nc);
    Tensor x = load(in + r * nc + c, mask, identity);
    store(out + r * nc + c, dslScan(s, x, axis, reverse), mask);
  });
  Case c{kernelName + "_" + std::to_string(rows) + "x" + std::to_string(cols),
         coversOf(s), kernel};
  c.buffers = {{t, scanInputs(s, t, rows * cols, unsigned(rows * 7 + cols))},
               {t, sentinel(rows * cols + 5)}};
  c.args = tileArgs(rows, cols);
  c.grid = {1};
  c.reference = [s, t, rows, cols, axis, reverse](Buffers &b) {
    if (axis == 0)
      for (int64_t col = 0; col < cols; ++col)
        scanRef(s, t, b[0], b[1], col, cols, rows, reverse);
    else
      for (int64_t row = 0; row < rows; ++row)
        scanRef(s, t, b[0], b[1], row * cols, 1, cols, reverse);
  };
  c.tolerance = toleranceOf(s, t);
  cases.push_back(std::move(c));
}

} // namespace

void addScanCases(std::vector<Case> &cases) {
  using D = DType;
  auto blockFor = [](int64_t n) {
    return std::min<int64_t>(next_power_of_2(n), 8192);
  };
  // 1-D, one program per size: every dtype of cumsum, both directions.
  for (D t : {D::F32, D::F16, D::BF16, D::F64, D::I32, D::I64, D::I8})
    for (int64_t n : kSizes)
      for (bool reverse : {false, true})
        add1D(cases, Scan::Sum, t, n, blockFor(n), reverse, 4);
  for (D t : {D::F32, D::F16, D::I32})
    for (int64_t n : kSizes)
      for (bool reverse : {false, true})
        add1D(cases, Scan::Prod, t, n, blockFor(n), reverse, 4);
  for (D t : {D::F32, D::I32, D::I64, D::F16})
    for (int64_t n : {int64_t(17), int64_t(4097)})
      for (bool reverse : {false, true})
        add1D(cases, Scan::Max, t, n, blockFor(n), reverse, 4);
  for (int64_t n : kSizes)
    for (bool reverse : {false, true})
      add1D(cases, Scan::FirstNonzero, D::I32, n, blockFor(n), reverse, 4);
  for (bool reverse : {false, true}) {
    // Blocks smaller than the 128 threads: 16 elements (replicated lanes),
    // 64 (two replicated warps); several programs.
    for (int64_t block : {int64_t(16), int64_t(64)}) {
      add1D(cases, Scan::Sum, D::I32, 781, block, reverse, 4);
      add1D(cases, Scan::FirstNonzero, D::I32, 781, block, reverse, 4);
      add1D(cases, Scan::Sum, D::F16, 17, block, reverse, 4);
    }
    // One warp (tile totals by shuffle) and eight, with repeats.
    for (int warps : {1, 8}) {
      add1D(cases, Scan::Sum, D::F32, 4097, 4096, reverse, warps);
      add1D(cases, Scan::FirstNonzero, D::I32, 4097, 1024, reverse, warps);
    }
  }
  // i1: cumsum counts in i32; an or-scan stays i1.
  {
    auto kernel = jit("scan_count_true",
                      [](Ptr<> in, Ptr<int32_t> out, Int n, Constexpr BLOCK) {
                        Tensor offsets = arange(0, BLOCK);
                        Tensor mask = offsets < n;
                        Tensor positive = load(in + offsets, mask, 0) > 0;
                        store(out + offsets, cumsum(positive & mask), mask);
                      });
    for (int64_t n : kSizes) {
      Case c{"scan_count_true_n" + std::to_string(n),
             {"cumsum", "operator&"},
             kernel};
      c.buffers = {{D::F32, floats(D::F32, n, 4)}, {D::I32, sentinel(n + 2)}};
      c.args = {bufArg(0), bufArg(1), i32Arg(int32_t(n)),
                constArg(blockFor(n))};
      c.grid = {1};
      c.reference = [n](Buffers &b) {
        double count = 0;
        for (int64_t i = 0; i < n; ++i)
          b[1][i] = count += b[0][i] > 0;
      };
      cases.push_back(std::move(c));
    }
  }
  for (int64_t n : {int64_t(17), int64_t(781)})
    add1D(cases, Scan::Or, D::I1, n, blockFor(n), n == 781, 4);
  // 2-D, along both axes.
  for (bool reverse : {false, true})
    for (int axis : {0, 1}) {
      for (auto [rows, cols] : {std::pair<int64_t, int64_t>{5, 17},
                                {3, 781},
                                {17, 3},
                                {1, 1},
                                {3, 5}, // 32 elements: replicas
                                {64, 64}}) {
        add2D(cases, Scan::Sum, D::F32, rows, cols, axis, reverse);
        add2D(cases, Scan::FirstNonzero, D::I32, rows, cols, axis, reverse);
      }
      // One line along the axis (the GPU's 1-D scan in linear order).
      add2D(cases, Scan::FirstNonzero, D::I32, axis == 0 ? 17 : 1,
            axis == 0 ? 1 : 4097, axis, reverse);
      add2D(cases, Scan::Sum, D::I64, 9, 33, axis, reverse);
      add2D(cases, Scan::Sum, D::BF16, 9, 33, axis, reverse);
      add2D(cases, Scan::Prod, D::F16, 33, 9, axis, reverse);
      add2D(cases, Scan::Max, D::F32, 33, 9, axis, reverse);
      add2D(cases, Scan::Or, D::I1, 9, 33, axis, reverse);
    }
}

} // namespace blockjit::difftest
