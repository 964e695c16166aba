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

//===----------------------------------------------------------------------===//
// Casts: float -> integer saturates, integer -> float rounds to nearest even
//===----------------------------------------------------------------------===//

/// C++'s (defined) version of the DSL's float -> integer cast: NaN is 0,
/// values at or past +-2^(bits-1) saturate, the rest truncate toward zero.
int64_t saturatingCast(double x, int bits) {
  if (std::isnan(x))
    return 0;
  double bound = std::ldexp(1.0, bits - 1);
  int64_t max = bits == 64 ? std::numeric_limits<int64_t>::max()
                           : (int64_t(1) << (bits - 1)) - 1;
  if (x >= bound)
    return max;
  if (x <= -bound)
    return -max - 1;
  return int64_t(std::trunc(x));
}

int bitsOf(DType type) { return int(dtypeBytes(type)) * 8; }

/// The inputs where C++ leaves the conversion undefined, for an integer
/// type of `bits`, then random values within +-2.5 times its range.
std::vector<double> saturationInputs(int bits, int64_t n, unsigned seed) {
  double m = std::ldexp(1.0, bits - 1);
  std::vector<double> v = {kInf,
                           -kInf,
                           kNaN,
                           1e30,
                           -1e30,
                           0.5,
                           -0.5,
                           -0.0,
                           0.0,
                           0.99,
                           -0.99,
                           1.5,
                           -1.5,
                           2.5,
                           -2.5,
                           m - 1,
                           m - 0.5,
                           m,
                           m + 1,
                           m * 1.5,
                           -m,
                           -m - 0.5,
                           -m - 1,
                           -m * 1.5,
                           2 * m,
                           -2 * m,
                           std::nextafter(m, 0.0),
                           -std::nextafter(m, 0.0),
                           double(std::nextafter(float(m), 0.0f)),
                           -double(std::nextafter(float(m), 0.0f)),
                           1e10,
                           -1e10,
                           65504,
                           -65504,
                           3e38,
                           -3e38};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-2.5 * m, 2.5 * m);
  while (int64_t(v.size()) < n)
    v.push_back(v.size() % 2 ? dist(rng) : std::trunc(dist(rng) / 3));
  v.resize(n);
  return v;
}

/// `x` (an integer exact in double) rounded to `precision` significant bits,
/// ties to even; past `max`, infinity.
double roundNearestEven(double x, int precision, double max) {
  if (x == 0)
    return x;
  int exponent;
  std::frexp(x, &exponent);
  double scale = std::ldexp(1.0, precision - exponent);
  double r = std::nearbyint(x * scale) / scale; // the default mode: ties even
  return std::fabs(r) > max ? std::copysign(kInf, r) : r;
}

void addCastCases(std::vector<Case> &cases) {
  // Every float type to every integer type. i64 results are stored as two
  // exact halves (a double holds no INT64_MAX): hi = r / 2^32 in an i32
  // buffer, lo = r & 0xffffffff.
  for (DType from : {D::F16, D::BF16, D::F32, D::F64}) {
    for (DType to : {D::I8, D::I16, D::I32, D::I64}) {
      std::string name = "cast_saturate_" + suffix(from) + "_" + suffix(to);
      auto kernel = jit(name, [to](Ptr<> x, Ptr<> out, Ptr<int32_t> hi, Int n,
                                   Constexpr BLOCK) {
        Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
        Tensor mask = offsets < n;
        Tensor r = cast(load(x + offsets, mask), to);
        if (to != DType::I64) {
          store(out + offsets, r, mask);
          return;
        }
        store(out + offsets, r & int64_t(0xffffffff), mask);
        store(hi + offsets, (r / (int64_t(1) << 32)).to(DType::I32), mask);
      });
      int64_t n = 781;
      Case c{name, {"cast", "Tensor::to"}, kernel};
      c.buffers = {
          {from, saturationInputs(bitsOf(to), n, unsigned(bitsOf(to)))},
          {to, sentinel(n + 4)},
          {D::I32, sentinel(n + 4)}};
      c.args = {bufArg(0), bufArg(1), bufArg(2), i32Arg(int32_t(n)),
                constArg(kBlock)};
      c.grid = {int(blocks(n))};
      c.reference = [to, n](Buffers &b) {
        for (int64_t i = 0; i < n; ++i) {
          int64_t r = saturatingCast(b[0][i], bitsOf(to));
          if (to != D::I64) {
            b[1][i] = double(r);
            continue;
          }
          b[1][i] = double(r & int64_t(0xffffffff));
          b[2][i] = double(r / (int64_t(1) << 32));
        }
      };
      cases.push_back(std::move(c));
    }
  }

  // Integer -> float at ties: 2^e + ulp/2 rounds down to the even 2^e,
  // 2^e + 3 ulp/2 up to 2^e + 2 ulp, one past a tie rounds up; f16 overflows
  // to inf from 65520 on.
  struct Pair {
    DType from, to;
    int precision;
    double max;
  };
  const double f32Max = std::numeric_limits<float>::max();
  const Pair pairs[] = {{D::I32, D::F32, 24, f32Max},
                        {D::I64, D::F32, 24, f32Max},
                        {D::I64, D::F64, 53, kInf},
                        {D::I32, D::F16, 11, 65504},
                        {D::I16, D::F16, 11, 65504},
                        {D::I64, D::F16, 11, 65504},
                        {D::I32, D::BF16, 8, 3.3895313892515355e38},
                        {D::I16, D::BF16, 8, 3.3895313892515355e38},
                        {D::I64, D::BF16, 8, 3.3895313892515355e38}};
  for (const Pair &pair : pairs) {
    std::string name =
        "cast_round_" + suffix(pair.from) + "_" + suffix(pair.to);
    auto kernel =
        jit(name, [to = pair.to](Ptr<> x, Ptr<> out, Int n, Constexpr BLOCK) {
          Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
          Tensor mask = offsets < n;
          store(out + offsets, load(x + offsets, mask).to(to), mask);
        });
    int bits = bitsOf(pair.from);
    std::vector<double> inputs = {0, 1, -1, 65519, 65520, -65520, 65535};
    for (int e = pair.precision; e <= std::min(bits - 2, 62); ++e) {
      double base = std::ldexp(1.0, e);
      double half = std::ldexp(1.0, e - pair.precision); // ulp / 2
      for (double sign : {1.0, -1.0}) {
        inputs.push_back(sign * (base + half));
        inputs.push_back(sign * (base + 3 * half));
        if (e <= 52 && half >= 2) {
          inputs.push_back(sign * (base + half + 1));
          inputs.push_back(sign * (base + half - 1));
        }
      }
    }
    std::vector<double> fits;
    double limit = std::ldexp(1.0, bits - 1);
    for (double v : inputs)
      if (v < limit && v >= -limit)
        fits.push_back(v);
    int64_t n = int64_t(fits.size());
    Case c{name, {"Tensor::to", "cast"}, kernel};
    c.buffers = {{pair.from, fits}, {pair.to, sentinel(n + 4)}};
    c.args = {bufArg(0), bufArg(1), i32Arg(int32_t(n)), constArg(kBlock)};
    c.grid = {int(blocks(n))};
    c.reference = [pair, n](Buffers &b) {
      for (int64_t i = 0; i < n; ++i)
        b[1][i] = roundNearestEven(b[0][i], pair.precision, pair.max);
    };
    cases.push_back(std::move(c));
  }
}

//===----------------------------------------------------------------------===//
// Shape ops in a loop: the shared scratch array reused every iteration
//===----------------------------------------------------------------------===//

/// out[i][j] = sum over tiles t of x_t[j][i] + x_t[i][j ^ 1]: per iteration a
/// transpose and a split/join/reshape that swaps neighbours, each an exchange
/// through shared memory on the GPU, carried through scf.for; 64 elements
/// with 4 warps (replicas).
void addShapeLoopCase(std::vector<Case> &cases) {
  auto kernel = jit("shape_loop", [](Ptr<float> x, Ptr<float> out, Int tiles) {
    Tensor r = arange(0, 8).expand_dims(1), c = arange(0, 8).expand_dims(0);
    std::vector<Tensor> result =
        for_range(0, tiles, 1, {full({8, 8}, 0, DType::F32)},
                  [&](Int t, std::vector<Tensor> acc) -> std::vector<Tensor> {
                    Tensor tile = load(x + t * 64 + r * 8 + c);
                    auto [even, odd] = split(reshape(tile, {32, 2}));
                    Tensor swapped = reshape(join(odd, even), {8, 8});
                    return {acc[0] + trans(tile) + swapped};
                  });
    store(out + r * 8 + c, result[0]);
  });
  const int tiles = 3;
  std::vector<double> input(64 * tiles);
  for (size_t k = 0; k < input.size(); ++k)
    input[k] = double(int(k * 37 % 101) - 50);
  Case c{"shape_loop", {"trans", "split", "join", "reshape"}, kernel};
  c.buffers = {{D::F32, input}, {D::F32, sentinel(66)}};
  c.args = {bufArg(0), bufArg(1), i32Arg(tiles)};
  c.grid = {1};
  c.numWarps = 4;
  c.reference = [](Buffers &b) {
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) {
        double s = 0;
        for (int t = 0; t < tiles; ++t)
          s += b[0][t * 64 + j * 8 + i] + b[0][t * 64 + i * 8 + (j ^ 1)];
        b[1][i * 8 + j] = s;
      }
  };
  cases.push_back(std::move(c));
}

} // namespace

void addShapesCases(std::vector<Case> &cases) {
  addReshapeCases(cases);
  addTransCases(cases);
  addJoinSplitCases(cases);
  addShapeLoopCase(cases);
  addCastCases(cases);
}

} // namespace blockjit::difftest
