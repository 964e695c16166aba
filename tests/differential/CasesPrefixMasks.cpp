//===- CasesPrefixMasks.cpp - masks with a prefix that changes per row ----===//
//
// A row loop whose load and store masks have a prefix term that changes
// with the row, `cols + shift <= row + base` (and `<`): the GPU's
// blk-version-prefix-masks runs each access without that term on the rows
// where it holds for the whole block, and as written elsewhere. These cases
// cross from one to the other (rows below and above the block), on 1 and 4
// warps, f32 and bf16 on odd strides (word pairs on one warp), persistent
// programs of several rows, and terms whose index wraps in 32 bits (shift
// near INT32_MAX: the compare holds again past the wrap, so the block is
// never wholly on and the access keeps its mask), also compared in 64 bits
// against an Int64 bound.
//
//===----------------------------------------------------------------------===//
#include "tests/differential/CaseHelpers.h"

#include "frontend/blockjit.h"

#include <cstdint>
#include <limits>

namespace blockjit::difftest {

namespace {

/// Rows row_start, row_start + step, ...: out[row, c] = in[row, c] where
/// c < n and c + shift <= row + base (loaded, -3 where the load's mask is
/// off), stored where c < n and c + shift < row + base + 5.
const std::shared_ptr<KernelDef> &prefixRows() {
  static auto kernel =
      jit("prefix_rows", [](Ptr<> in, Ptr<> out, Int stride, Int n_rows, Int n,
                            Int shift, Int base, Constexpr BLOCK) {
        for_range(program_id(0), n_rows, num_programs(0), [&](Int row) {
          Tensor cols = arange(0, BLOCK);
          Tensor index = cols + shift;
          Tensor x = load(in + (row * stride + cols),
                          (cols < n) & (index <= row + base), -3.0);
          store(out + (row * stride + cols), x,
                (cols < n) & (index < row + base + 5));
        });
      });
  return kernel;
}

/// prefixRows with the load's term compared in 64 bits: the 32-bit index
/// c + shift (which wraps in 32 bits) sign-extended against an Int64
/// bound, out[row, c] = in[row, c] where c < n and c + shift < bound + row.
const std::shared_ptr<KernelDef> &prefixRowsWide() {
  static auto kernel = jit(
      "prefix_rows_wide", [](Ptr<> in, Ptr<> out, Int stride, Int n_rows, Int n,
                             Int shift, Int64 bound, Constexpr BLOCK) {
        for_range(program_id(0), n_rows, num_programs(0), [&](Int row) {
          Tensor cols = arange(0, BLOCK);
          Tensor x = load(in + (row * stride + cols),
                          (cols < n) & ((cols + shift) < bound + row), -3.0);
          store(out + (row * stride + cols), x, cols < n);
        });
      });
  return kernel;
}

/// 64-bit prefixes at the ends of the range: out[row, c] = in[row, c]
/// where c + offset < bound (else -3), stored where c <= last; BLOCK = n.
const std::shared_ptr<KernelDef> &prefixBounds64() {
  static auto kernel =
      jit("prefix_bounds64", [](Ptr<> in, Ptr<> out, Int n_rows, Int64 offset,
                                Int64 bound, Int64 last, Constexpr BLOCK) {
        for_range(program_id(0), n_rows, num_programs(0), [&](Int row) {
          Tensor cols = arange(0, BLOCK);
          Tensor x =
              load(in + (row * BLOCK + cols), (cols + offset) < bound, -3.0);
          store(out + (row * BLOCK + cols), x, cols <= last);
        });
      });
  return kernel;
}

/// `a + b` as 32-bit integers add (wrapping).
int64_t add32(int64_t a, int64_t b) {
  return int64_t(int32_t(uint32_t(int32_t(a)) + uint32_t(int32_t(b))));
}

} // namespace

void addPrefixMasksCases(std::vector<Case> &cases) {
  const int32_t kMax = std::numeric_limits<int32_t>::max();
  struct Shape {
    const char *name;
    int64_t cols, rows;
    int32_t shift, base;
  };
  // causal: rows 0 .. 2 * block cross the diagonal and pass it; shifted:
  // a negative shift and a base; wrap: c + shift wraps for c > 60 (the
  // term holds there again), row + base stays below INT32_MAX.
  const Shape shapes[] = {{"causal", 100, 300, 0, 0},
                          {"causal", 781, 1700, 0, 0},
                          {"shifted", 257, 700, -5, 3},
                          {"wrap", 100, 90, kMax - 60, kMax - 100}};
  for (const Shape &shape : shapes)
    for (DType t : {DType::F32, DType::BF16})
      for (int warps : {1, 4}) {
        const int64_t stride = shape.cols | 1; // odd: word pairs for bf16
        const int64_t cols = shape.cols, rows = shape.rows;
        const int32_t shift = shape.shift, base = shape.base;
        Case c{std::string("prefix_rows_") + shape.name + "_" + suffix(t) +
                   "_n" + std::to_string(cols) + "_w" + std::to_string(warps),
               {"load", "store", "for_range"},
               prefixRows()};
        c.buffers = {{t, values(t, rows * stride, unsigned(cols))},
                     {t, sentinel(rows * stride)}};
        c.args = {bufArg(0),
                  bufArg(1),
                  i32Arg(int32_t(stride)),
                  i32Arg(int32_t(rows)),
                  i32Arg(int32_t(cols)),
                  i32Arg(shift),
                  i32Arg(base),
                  constArg(next_power_of_2(cols))};
        // Persistent programs: each takes every 7th row.
        c.grid = {7};
        c.numWarps = warps;
        c.reference = [=](Buffers &b) {
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t k = 0; k < cols; ++k) {
              int64_t index = add32(k, shift), bound = add32(r, base);
              if (index < add32(bound, 5))
                b[1][r * stride + k] =
                    index <= bound ? b[0][r * stride + k] : -3.0;
            }
        };
        cases.push_back(std::move(c));
      }
  // The index wraps in 32 bits, the compare is in 64: c + shift is below
  // the bound for c < 20 + row and again past the wrap (c > 60).
  for (int warps : {1, 4}) {
    const int64_t cols = 100, rows = 90, stride = 101;
    const int32_t shift = kMax - 60;
    const int64_t bound = int64_t(kMax) - 40;
    Case c{"prefix_rows_wide_wrap_f32_w" + std::to_string(warps),
           {"load", "store", "for_range"},
           prefixRowsWide()};
    c.buffers = {{DType::F32, values(DType::F32, rows * stride, 5)},
                 {DType::F32, sentinel(rows * stride)}};
    c.args = {bufArg(0),
              bufArg(1),
              i32Arg(int32_t(stride)),
              i32Arg(int32_t(rows)),
              i32Arg(int32_t(cols)),
              i32Arg(shift),
              i64Arg(bound),
              constArg(128)};
    c.grid = {7};
    c.numWarps = warps;
    c.reference = [=](Buffers &b) {
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t k = 0; k < cols; ++k)
          b[1][r * stride + k] =
              add32(k, shift) < bound + r ? b[0][r * stride + k] : -3.0;
    };
    cases.push_back(std::move(c));
  }
  // 64-bit bounds where bound - first overflows: none below INT64_MIN + 1,
  // all up to INT64_MAX inclusive; an offset near INT64_MAX; none stored.
  const int64_t kMin64 = std::numeric_limits<int64_t>::min();
  const int64_t kMax64 = std::numeric_limits<int64_t>::max();
  struct Bounds {
    const char *name;
    int64_t offset, bound, last;
  };
  const Bounds bounds[] = {{"extremes", 1, kMin64, kMax64},
                           {"near_max", kMax64 - 200, kMax64 - 150, 60},
                           {"negative", -5, 3, -1}};
  for (const Bounds &e : bounds) {
    const int64_t block = 128, rows = 9;
    Case c{std::string("prefix_bounds64_") + e.name,
           {"load", "store", "for_range"},
           prefixBounds64()};
    c.buffers = {{DType::F32, values(DType::F32, rows * block, 9)},
                 {DType::F32, sentinel(rows * block)}};
    c.args = {bufArg(0),        bufArg(1),       i32Arg(int32_t(rows)),
              i64Arg(e.offset), i64Arg(e.bound), i64Arg(e.last),
              constArg(block)};
    c.grid = {4};
    c.numWarps = 1;
    c.reference = [=](Buffers &b) {
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t k = 0; k < block; ++k) {
          // k + offset in 64 bits (no case here wraps), written so that
          // no subtraction overflows.
          bool loaded =
              e.bound != kMin64 &&
              (e.offset > 0 ? k < e.bound - e.offset : k + e.offset < e.bound);
          if (k <= e.last)
            b[1][r * block + k] = loaded ? b[0][r * block + k] : -3.0;
        }
    };
    cases.push_back(std::move(c));
  }
}

} // namespace blockjit::difftest
