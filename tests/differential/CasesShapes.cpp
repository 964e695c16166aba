//===- CasesShapes.cpp - block shape ops and saturating casts -------------===//
//
// reshape, trans/permute, join/split (Triton's tl.reshape, tl.trans,
// tl.permute, tl.join, tl.split) move elements between positions; each case
// builds the expected positions natively in 2-D (pointers and masks from
// aranges), so that a shape op that reorders elements wrongly shows even when
// pointers and values would move alike. Irregular 2-D shapes are masked
// tiles; f16, i8 and i1 elements and pointer blocks go through the ops; tiles
// of 1 and 16 elements run with 4 warps (blocks smaller than the threads).
//
// Casts from every float type to every integer type with the values where
// C++ is undefined: inf, NaN, +-1e30, just past the type's range, +-0.5. The
// DSL defines them (Tensor.h, `cast`): truncation toward zero, saturation to
// the type's minimum/maximum, NaN to 0. Integer to float rounds to nearest
// even, checked at ties.
//
// Tolerance: exact everywhere (elements are moved, not computed; casts are
// defined to the bit).
//
//===----------------------------------------------------------------------===//
#include "tests/differential/CaseHelpers.h"

#include "frontend/blockjit.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

namespace blockjit::difftest {

namespace {

using D = DType;

std::string shapeName(int64_t rows, int64_t cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}

//===----------------------------------------------------------------------===//
// reshape: 1-D <-> 2-D
//===----------------------------------------------------------------------===//

/// out[i] = x[i] through a [R, BLOCK / R] reshape of the values, stored
/// through natively 2-D pointers and mask; back[i] = x[i] through a 2-D load
/// reshaped to 1-D; rowmax[p * R + r] = max of row r of the reshaped block
/// (integers only, masked lanes 0... as loaded with other = lowest).
void addReshapeCases(std::vector<Case> &cases) {
  for (DType type : {D::F32, D::F16, D::I8, D::I32}) {
    auto kernel = jit("reshape_" + suffix(type),
                      [type](Ptr<> x, Ptr<> out, Ptr<> back, Ptr<> rowsum,
                             Int n, Constexpr BLOCK, Constexpr R) {
                        int64_t C = BLOCK / R;
                        Tensor base = program_id(0) * BLOCK;
                        Tensor offsets = base + arange(0, BLOCK);
                        Tensor mask = offsets < n;
                        Tensor v = load(x + offsets, mask, 0);
                        Tensor tile = reshape(v, {R, C});
                        // Row-major positions, built in 2-D.
                        Tensor pos = arange(0, R).expand_dims(1) * C +
                                     arange(0, C).expand_dims(0) + base;
                        store(out + pos, tile, pos < n);
                        // The other way: a 2-D load reshaped to 1-D (as a
                        // Tensor method).
                        Tensor loaded = load(x + pos, pos < n, 0);
                        store(back + offsets, loaded.reshape({BLOCK}), mask);
                        // Row sums of the reshaped block (integers: exact), and
                        // an i1 block through reshape.
                        if (type == D::I32) {
                          Tensor positive = reshape(v > 0, {R, C}).to(D::I32);
                          store(rowsum + program_id(0) * R + arange(0, R),
                                sum(tile, 1) * 2 + sum(positive, 1) % 2);
                        }
                      });
    for (int64_t n : kSizes) {
      int64_t block = n < 32 ? 16 : 256, rows = n < 32 ? 4 : 8;
      int64_t programs = blocks(n, block);
      Case c{"reshape_" + suffix(type) + "_n" + std::to_string(n),
             {"reshape", "Tensor::reshape"},
             kernel};
      c.buffers = {{type, type == D::I32 ? ints(type, n, 3, 1 << 20)
                                         : values(type, n, 3)},
                   {type, sentinel(n + 8)},
                   {type, sentinel(n + 8)},
                   {D::I32, sentinel(programs * rows + 3)}};
      c.args = {bufArg(0), bufArg(1),       bufArg(2),     bufArg(3),
                i32Arg(n), constArg(block), constArg(rows)};
      c.grid = {int(programs)};
      c.reference = [n, type, block, rows, programs](Buffers &b) {
        for (int64_t i = 0; i < n; ++i)
          b[1][i] = b[2][i] = b[0][i];
        if (type != D::I32)
          return;
        int64_t cols = block / rows;
        for (int64_t p = 0; p < programs; ++p)
          for (int64_t r = 0; r < rows; ++r) {
            int64_t s = 0, positives = 0;
            for (int64_t k = 0; k < cols; ++k) {
              int64_t i = p * block + r * cols + k;
              int64_t x = i < n ? int64_t(b[0][i]) : 0;
              s += x;
              positives += x > 0;
            }
            b[3][p * rows + r] =
                double(int32_t(uint32_t(s) * 2u)) + double(positives % 2);
          }
      };
      // A 16-element block with 4 warps: 128 threads hold replicas.
      c.numWarps = 4;
      cases.push_back(std::move(c));
    }
  }
}

//===----------------------------------------------------------------------===//
// trans / permute of masked irregular 2-D tiles
//===----------------------------------------------------------------------===//

/// A rows x cols matrix x (row-major) in one [RB, CB] tile:
///   out  (cols x rows) = x^T, from trans of the loaded tile stored through
///        natively computed transposed pointers;
///   copy (rows x cols) = x, stored as store(trans(ptrs), trans(tile),
///        trans(mask)) (pointer and i1 blocks through trans);
///   pos  (cols x rows) = x^T > 0 as i32, from permute of an i1 block.
void addTransCases(std::vector<Case> &cases) {
  struct Shape {
    int64_t rows, cols;
    int numWarps;
  };
  // 32x64 pointers (8 bytes each) fill 16 KiB of shared memory in trans.
  const Shape shapes[] = {{5, 17, 4}, {1, 1, 4},  {20, 50, 4},
                          {3, 4, 4},  {17, 5, 1}, {64, 8, 2}};
  for (DType type : {D::F32, D::F16, D::I8}) {
    auto kernel =
        jit("trans_" + suffix(type),
            [](Ptr<> x, Ptr<> out, Ptr<> copy, Ptr<int32_t> pos, Int nr, Int nc,
               Constexpr RB, Constexpr CB) {
              Tensor r = arange(0, RB).expand_dims(1);
              Tensor c = arange(0, CB).expand_dims(0);
              Tensor mask = (r < nr) & (c < nc);
              Tensor tile = load(x + r * nc + c, mask, 0);
              Tensor t = trans(tile); // [CB, RB]
              // t[j, i] = x[i, j] goes to out[j * nr + i].
              Tensor tr = arange(0, CB).expand_dims(1);
              Tensor tc = arange(0, RB).expand_dims(0);
              Tensor tmask = (tr < nc) & (tc < nr);
              store(out + tr * nr + tc, t, tmask);
              Tensor ptrs = copy + r * nc + c;
              store(trans(ptrs), t, trans(mask));
              Tensor positive = permute(tile > 0, {1, 0});
              store(pos + tr * nr + tc, positive.to(DType::I32), tmask);
            });
    for (const Shape &s : shapes) {
      int64_t RB = next_power_of_2(s.rows), CB = next_power_of_2(s.cols);
      int64_t n = s.rows * s.cols;
      Case c{"trans_" + suffix(type) + "_" + shapeName(s.rows, s.cols) + "_w" +
                 std::to_string(s.numWarps),
             {"trans", "permute"},
             kernel};
      c.buffers = {{type, values(type, n, unsigned(n))},
                   {type, sentinel(n + 5)},
                   {type, sentinel(n + 5)},
                   {D::I32, sentinel(n + 5)}};
      c.args = {bufArg(0),      bufArg(1),      bufArg(2),    bufArg(3),
                i32Arg(s.rows), i32Arg(s.cols), constArg(RB), constArg(CB)};
      c.grid = {1};
      c.numWarps = s.numWarps;
      c.reference = [s](Buffers &b) {
        for (int64_t i = 0; i < s.rows; ++i)
          for (int64_t j = 0; j < s.cols; ++j) {
            double v = b[0][i * s.cols + j];
            b[1][j * s.rows + i] = v;
            b[2][i * s.cols + j] = v;
            b[3][j * s.rows + i] = v > 0;
          }
      };
      cases.push_back(std::move(c));
    }
  }
  // Tensor::trans and Tensor::permute, and permute by the identity, on a
  // square tile: out[j][i] = x[i][j] + x[i][j] (identity) as f32.
  auto kernel = jit("trans_methods", [](Ptr<float> x, Ptr<float> out) {
    Tensor r = arange(0, 8).expand_dims(1), c = arange(0, 8).expand_dims(0);
    Tensor tile = load(x + r * 8 + c);
    Tensor t = tile.trans() + tile.permute({0, 1}).permute({1, 0});
    store(out + r * 8 + c, t);
  });
  Case c{"trans_methods", {"Tensor::trans", "Tensor::permute"}, kernel};
  c.buffers = {{D::F32, floats(D::F32, 64, 9, /*special=*/false)},
               {D::F32, sentinel(66)}};
  c.args = {bufArg(0), bufArg(1)};
  c.grid = {1};
  c.reference = [](Buffers &b) {
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j)
        b[1][i * 8 + j] = float(float(b[0][j * 8 + i]) * 2.0f);
  };
  cases.push_back(std::move(c));
}

//===----------------------------------------------------------------------===//
// join / split
//===----------------------------------------------------------------------===//

/// For i < n:
///   z[2i], z[2i + 1] = a[i], b[i]          join, stored through natively 2-D
///                                          pointers;
///   w[2i], w[2i + 1] = a[i], b[i]          join of pointer and i1 blocks;
///   re[i], im[i] = x2[2i], x2[2i + 1]      split of a 2-D load;
///   swapped[2i], swapped[2i + 1] = x2[2i + 1], x2[2i]   join of the halves.
void addJoinSplitCases(std::vector<Case> &cases) {
  for (DType type : {D::F32, D::F16, D::I8}) {
    auto kernel =
        jit("join_split_" + suffix(type),
            [](Ptr<> a, Ptr<> b, Ptr<> x2, Ptr<> z, Ptr<> w, Ptr<> re, Ptr<> im,
               Ptr<> swapped, Int n, Constexpr BLOCK) {
              Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
              Tensor mask = offsets < n;
              Tensor va = load(a + offsets, mask, 0);
              Tensor vb = load(b + offsets, mask, 0);
              Tensor pairs =
                  offsets.expand_dims(1) * 2 + arange(0, 2).expand_dims(0);
              Tensor pairMask = pairs < n * 2;
              store(z + pairs, join(va, vb), pairMask);
              store(join(w + offsets * 2, w + offsets * 2 + 1), join(va, vb),
                    join(mask, mask));
              auto [first, second] = split(load(x2 + pairs, pairMask, 0));
              store(re + offsets, first, mask);
              store(im + offsets, second, mask);
              store(swapped + pairs, join(second, first), pairMask);
            });
    for (int64_t n : kSizes) {
      int64_t block = n < 32 ? 16 : 256;
      Case c{"join_split_" + suffix(type) + "_n" + std::to_string(n),
             {"join", "split"},
             kernel};
      c.buffers = {{type, values(type, n, 5)},     {type, values(type, n, 6)},
                   {type, values(type, 2 * n, 7)}, {type, sentinel(2 * n + 6)},
                   {type, sentinel(2 * n + 6)},    {type, sentinel(n + 6)},
                   {type, sentinel(n + 6)},        {type, sentinel(2 * n + 6)}};
      c.args = {bufArg(0), bufArg(1), bufArg(2), bufArg(3), bufArg(4),
                bufArg(5), bufArg(6), bufArg(7), i32Arg(n), constArg(block)};
      c.grid = {int(blocks(n, block))};
      c.numWarps = 4;
      c.reference = [n](Buffers &b) {
        for (int64_t i = 0; i < n; ++i) {
          b[3][2 * i] = b[4][2 * i] = b[0][i];
          b[3][2 * i + 1] = b[4][2 * i + 1] = b[1][i];
          b[5][i] = b[2][2 * i];
          b[6][i] = b[2][2 * i + 1];
          b[7][2 * i] = b[2][2 * i + 1];
          b[7][2 * i + 1] = b[2][2 * i];
        }
      };
      cases.push_back(std::move(c));
    }
  }
}

} // namespace

void addShapesCases(std::vector<Case> &cases) {
  addReshapeCases(cases);
  addTransCases(cases);
  addJoinSplitCases(cases);
}

} // namespace blockjit::difftest
