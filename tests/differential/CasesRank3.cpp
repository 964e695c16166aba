//===- CasesRank3.cpp - blocks of rank 3 and 4 on both targets ------------===//
//
// Kernels whose blocks have rank 3 (and a join to rank 4): the CUDA target
// distributes them through their row-major linear index like any block, so
// every op that touches them must index through all dimensions. Each case
// builds positions natively in 3-D (three aranges, expanded twice), so an op
// that confuses two dimensions moves elements to the wrong place:
//   - load/store of a masked irregular box (e.g. 3x5x17 inside a 4x8x32
//     block) with row and plane strides, f32/f16/i8;
//   - elementwise maths with operands broadcast over 3-D;
//   - sum/max/min/argmax/argmin along each axis and without an axis, and
//     cumsum along each axis, of masked boxes with -inf/NaN/+-1000/denormals;
//   - join of 2-D blocks (to 3-D) and of 3-D blocks (to 4-D), split back;
//   - all 6 permutations of one 3-D shape, reshape 1-D <-> 3-D;
//   - atomic_add through a 3-D pointer block, slots shared by elements and
//     programs.
// Block shapes include 2x2x4 (16 elements) with 4 warps: 128 threads, most
// of them holding replicas; 1 and 4 warps elsewhere.
//
// Tolerance: exact (elements are moved, compared, or summed as integers;
// the float arithmetic is one correctly rounded operation per element).
//
//===----------------------------------------------------------------------===//
#include "tests/differential/CaseHelpers.h"

#include "frontend/blockjit.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>

namespace blockjit::difftest {

namespace {

using D = DType;

/// A block shape, the box of it that the data fills, and the warps.
struct Box {
  int64_t a, b, c;    // block dimensions (powers of two)
  int64_t na, nb, nc; // box dimensions (at most the block's)
  int numWarps;
};

std::string boxName(const Box &s) {
  return std::to_string(s.na) + "x" + std::to_string(s.nb) + "x" +
         std::to_string(s.nc) + "_in_" + std::to_string(s.a) + "x" +
         std::to_string(s.b) + "x" + std::to_string(s.c) + "_w" +
         std::to_string(s.numWarps);
}

const Box kBoxes[] = {{4, 8, 32, 3, 5, 17, 4},
                      {4, 8, 32, 3, 5, 17, 1},
                      {2, 2, 4, 2, 2, 3, 4},
                      {8, 4, 2, 5, 4, 1, 4},
                      {1, 1, 1, 1, 1, 1, 4}};

/// The three coordinate blocks of an [A, B, C] block: [A,1,1], [1,B,1] and
/// [1,1,C].
struct Coords {
  Tensor i, j, k;
};
Coords coords(int64_t a, int64_t b, int64_t c) {
  return {arange(0, a).expand_dims(1).expand_dims(2),
          arange(0, b).expand_dims(0).expand_dims(2),
          arange(0, c).expand_dims(0).expand_dims(0)};
}

//===----------------------------------------------------------------------===//
// load/store of a strided masked box; elementwise + broadcast
//===----------------------------------------------------------------------===//

/// Program p copies the box at x + p * planes * s0 (element (i, j, k) at
/// i * s0 + j * s1 + k) to out (row-major na x nb x nc, program p at
/// p * na * nb * nc): an exact copy for every type; masked-off lanes never
/// touch memory (the sentinels past the box stay).
void addBoxCopyCases(std::vector<Case> &cases) {
  for (DType type : {D::F32, D::F16, D::I8}) {
    auto kernel =
        jit("rank3_box_" + suffix(type), [](Ptr<> x, Ptr<> out, Int na, Int nb,
                                            Int nc, Int s0, Int s1, Constexpr A,
                                            Constexpr B, Constexpr C) {
          Coords p = coords(A, B, C);
          Tensor mask = (p.i < na) & (p.j < nb) & (p.k < nc);
          Tensor src = x + program_id(0) * na * s0 + p.i * s0 + p.j * s1 + p.k;
          Tensor v = load(src, mask);
          Tensor dst =
              out + program_id(0) * na * nb * nc + (p.i * nb + p.j) * nc + p.k;
          store(dst, v, mask);
        });
    for (const Box &s : kBoxes) {
      int64_t s1 = s.nc + 3, s0 = s.nb * s1 + 2, programs = 2;
      int64_t inSize = programs * s.na * s0,
              outSize = programs * s.na * s.nb * s.nc;
      Case c{"rank3_box_" + suffix(type) + "_" + boxName(s),
             {"load", "store", "Tensor::expand_dims"},
             kernel};
      c.buffers = {{type, values(type, inSize, 11)},
                   {type, sentinel(outSize + 5)}};
      c.args = {bufArg(0),     bufArg(1),    i32Arg(s.na), i32Arg(s.nb),
                i32Arg(s.nc),  i32Arg(s0),   i32Arg(s1),   constArg(s.a),
                constArg(s.b), constArg(s.c)};
      c.grid = {int(programs)};
      c.numWarps = s.numWarps;
      c.reference = [s, s0, s1, programs](Buffers &b) {
        for (int64_t p = 0; p < programs; ++p)
          for (int64_t i = 0; i < s.na; ++i)
            for (int64_t j = 0; j < s.nb; ++j)
              for (int64_t k = 0; k < s.nc; ++k)
                b[1][p * s.na * s.nb * s.nc + (i * s.nb + j) * s.nc + k] =
                    b[0][p * s.na * s0 + i * s0 + j * s1 + k];
      };
      c.tolerance = kExact;
      cases.push_back(std::move(c));
    }
  }
}

/// out[i, j, k] = x[i, j, k] * w[k] + u[i] - j (i32, wrapping) and
/// fout[i, j, k] = maximum(xf[i, j, k], wf[k]) - uf[i] (f32): w and u are
/// 1-D loads expanded twice and broadcast over the box.
void addBroadcastCases(std::vector<Case> &cases) {
  auto kernel =
      jit("rank3_broadcast",
          [](Ptr<int32_t> x, Ptr<int32_t> w, Ptr<int32_t> u, Ptr<int32_t> out,
             Ptr<float> xf, Ptr<float> wf, Ptr<float> uf, Ptr<float> fout,
             Int na, Int nb, Int nc, Constexpr A, Constexpr B, Constexpr C) {
            Coords p = coords(A, B, C);
            Tensor mask = (p.i < na) & (p.j < nb) & (p.k < nc);
            Tensor at = (p.i * nb + p.j) * nc + p.k;
            Tensor kk = arange(0, C), ii = arange(0, A);
            Tensor wk = load(w + kk, kk < nc).expand_dims(0).expand_dims(0);
            Tensor ui = load(u + ii, ii < na).expand_dims(1).expand_dims(2);
            store(out + at, load(x + at, mask) * wk + ui - p.j, mask);
            Tensor wfk = load(wf + kk, kk < nc).expand_dims(0).expand_dims(0);
            Tensor ufi = load(uf + ii, ii < na).expand_dims(1).expand_dims(2);
            store(fout + at, maximum(load(xf + at, mask), wfk) - ufi, mask);
          });
  for (const Box &s : kBoxes) {
    int64_t n = s.na * s.nb * s.nc;
    Case c{"rank3_broadcast_" + boxName(s),
           {"maximum", "operator*", "operator-"},
           kernel};
    c.buffers = {{D::I32, ints(D::I32, n, 21)},
                 {D::I32, ints(D::I32, s.nc, 22, 1000)},
                 {D::I32, ints(D::I32, s.na, 23)},
                 {D::I32, sentinel(n + 3)},
                 {D::F32, floats(D::F32, n, 24)},
                 {D::F32, floats(D::F32, s.nc, 25)},
                 {D::F32, floats(D::F32, s.na, 26, /*special=*/false)},
                 {D::F32, sentinel(n + 3)}};
    c.args = {bufArg(0),     bufArg(1),    bufArg(2),    bufArg(3),
              bufArg(4),     bufArg(5),    bufArg(6),    bufArg(7),
              i32Arg(s.na),  i32Arg(s.nb), i32Arg(s.nc), constArg(s.a),
              constArg(s.b), constArg(s.c)};
    c.grid = {1};
    c.numWarps = s.numWarps;
    c.reference = [s](Buffers &b) {
      for (int64_t i = 0; i < s.na; ++i)
        for (int64_t j = 0; j < s.nb; ++j)
          for (int64_t k = 0; k < s.nc; ++k) {
            int64_t at = (i * s.nb + j) * s.nc + k;
            uint32_t v =
                uint32_t(int32_t(b[0][at])) * uint32_t(int32_t(b[1][k])) +
                uint32_t(int32_t(b[2][i])) - uint32_t(j);
            b[3][at] = double(int32_t(v));
            double m =
                std::isnan(b[4][at]) || std::isnan(b[5][k])
                    ? kNaN
                    : (b[4][at] == 0 && b[5][k] == 0
                           ? (std::signbit(b[4][at]) ? b[5][k] : b[4][at])
                           : std::max(b[4][at], b[5][k]));
            b[7][at] = double(float(m) - float(b[6][i]));
          }
    };
    c.tolerance = kExact;
    cases.push_back(std::move(c));
  }
}

//===----------------------------------------------------------------------===//
// Reductions and scans along each axis
//===----------------------------------------------------------------------===//

/// Offsets of the results along axes 0, 1, 2 and of the axis-less one in
/// the reduction outputs: [B, C], [A, C], [A, B], then one scalar.
struct ReduceSections {
  int64_t axis[3], all, total;
};
ReduceSections sectionsOf(int64_t a, int64_t b, int64_t c) {
  ReduceSections s;
  s.axis[0] = 0;
  s.axis[1] = b * c;
  s.axis[2] = b * c + a * c;
  s.all = b * c + a * c + a * b;
  s.total = s.all + 1;
  return s;
}

/// First index of the largest (`max`) or smallest element; NaN wins, ties
/// go to the first.
int64_t argRef(const std::vector<double> &v, bool max) {
  int64_t best = 0;
  for (int64_t i = 1; i < int64_t(v.size()); ++i) {
    if (std::isnan(v[best]))
      break;
    if (std::isnan(v[i]) || (max ? v[i] > v[best] : v[i] < v[best]))
      best = i;
  }
  return best;
}

double maxRef(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return kNaN;
  if (a == 0 && b == 0)
    return std::signbit(a) ? b : a;
  return std::max(a, b);
}
double minRef(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return kNaN;
  if (a == 0 && b == 0)
    return std::signbit(a) ? a : b;
  return std::min(a, b);
}

/// A masked box of f32 (loaded as -inf for max/argmax, +inf for min/argmin)
/// and of i32 (loaded as 0): sum, max, min, argmax and argmin along each
/// axis and over the whole block; cumsum of the i32 box along each axis
/// (three [A, B, C] sections of `scans`). Besides the common boxes: rows
/// of whole tiles along the last axis (2x2x256 with 1 warp: 4-element
/// chunks, 128-element tiles), whose scan goes through registers and
/// shuffles, and blocks that are one line (1x1x64, 32x1x1) with 4 warps.
void addReduceCases(std::vector<Case> &cases) {
  std::vector<Box> boxes(std::begin(kBoxes), std::end(kBoxes));
  boxes.push_back({2, 2, 256, 2, 2, 250, 1});
  boxes.push_back({1, 1, 64, 1, 1, 60, 4});
  boxes.push_back({32, 1, 1, 30, 1, 1, 4});
  auto kernel = jit("rank3_reduce", [](Ptr<float> xf, Ptr<int32_t> xi,
                                       Ptr<float> maxes, Ptr<float> mins,
                                       Ptr<int32_t> sums, Ptr<int32_t> argmaxes,
                                       Ptr<int32_t> argmins, Ptr<int32_t> scans,
                                       Int na, Int nb, Int nc, Constexpr A,
                                       Constexpr B, Constexpr C) {
    Coords p = coords(A, B, C);
    Tensor mask = (p.i < na) & (p.j < nb) & (p.k < nc);
    Tensor at = (p.i * nb + p.j) * nc + p.k;
    float inf = std::numeric_limits<float>::infinity();
    Tensor lo = load(xf + at, mask, -inf), hi = load(xf + at, mask, inf);
    Tensor v = load(xi + at, mask, 0);
    ReduceSections s = sectionsOf(A, B, C);
    // Row-major positions in [B, C], [A, C] and [A, B].
    Tensor bc =
        arange(0, B).expand_dims(1) * int64_t(C) + arange(0, C).expand_dims(0);
    Tensor ac =
        arange(0, A).expand_dims(1) * int64_t(C) + arange(0, C).expand_dims(0);
    Tensor ab =
        arange(0, A).expand_dims(1) * int64_t(B) + arange(0, B).expand_dims(0);
    Tensor pos[3] = {bc, ac, ab};
    for (int axis = 0; axis < 3; ++axis) {
      Tensor dst = pos[axis] + s.axis[axis];
      store(maxes + dst, max(lo, axis));
      store(mins + dst, min(hi, axis));
      store(sums + dst, sum(v, axis));
      store(argmaxes + dst, argmax(lo, axis));
      store(argmins + dst, argmin(hi, axis));
      Tensor whole = (p.i * int64_t(B) + p.j) * int64_t(C) + p.k;
      store(scans + axis * A * B * C + whole, cumsum(v, axis));
    }
    store(maxes + s.all, max(lo));
    store(mins + s.all, min(hi));
    store(sums + s.all, sum(v));
    store(argmaxes + s.all, argmax(lo));
    store(argmins + s.all, argmin(hi));
  });
  for (const Box &s : boxes) {
    int64_t n = s.na * s.nb * s.nc, size = s.a * s.b * s.c;
    ReduceSections sec = sectionsOf(s.a, s.b, s.c);
    Case c{"rank3_reduce_" + boxName(s),
           {"sum", "max", "min", "argmax", "argmin", "cumsum"},
           kernel};
    c.buffers = {{D::F32, floats(D::F32, n, 31)},
                 {D::I32, ints(D::I32, n, 32, 1 << 20)},
                 {D::F32, sentinel(sec.total + 2)},
                 {D::F32, sentinel(sec.total + 2)},
                 {D::I32, sentinel(sec.total + 2)},
                 {D::I32, sentinel(sec.total + 2)},
                 {D::I32, sentinel(sec.total + 2)},
                 {D::I32, sentinel(3 * size + 2)}};
    c.args = {bufArg(0),     bufArg(1),    bufArg(2),    bufArg(3),
              bufArg(4),     bufArg(5),    bufArg(6),    bufArg(7),
              i32Arg(s.na),  i32Arg(s.nb), i32Arg(s.nc), constArg(s.a),
              constArg(s.b), constArg(s.c)};
    c.grid = {1};
    c.numWarps = s.numWarps;
    c.reference = [s, sec, size](Buffers &b) {
      int64_t dims[3] = {s.a, s.b, s.c};
      auto inside = [&](int64_t i, int64_t j, int64_t k) {
        return i < s.na && j < s.nb && k < s.nc;
      };
      auto element = [&](int which, int64_t i, int64_t j, int64_t k) {
        if (!inside(i, j, k))
          return which == 0 ? -kInf : which == 1 ? kInf : 0.0;
        int64_t at = (i * s.nb + j) * s.nc + k;
        return which == 2 ? b[1][at] : b[0][at];
      };
      for (int axis = 0; axis < 3; ++axis) {
        // The two kept dimensions, outer first.
        int d0 = axis == 0 ? 1 : 0, d1 = axis == 2 ? 1 : 2;
        for (int64_t x = 0; x < dims[d0]; ++x)
          for (int64_t y = 0; y < dims[d1]; ++y) {
            std::vector<double> lo, hi;
            double mx = -kInf, mn = kInf;
            int64_t total = 0;
            for (int64_t r = 0; r < dims[axis]; ++r) {
              int64_t idx[3];
              idx[axis] = r;
              idx[d0] = x;
              idx[d1] = y;
              double l = element(0, idx[0], idx[1], idx[2]);
              double h = element(1, idx[0], idx[1], idx[2]);
              lo.push_back(l);
              hi.push_back(h);
              mx = maxRef(mx, l);
              mn = minRef(mn, h);
              total += int64_t(element(2, idx[0], idx[1], idx[2]));
            }
            int64_t at = sec.axis[axis] + x * dims[d1] + y;
            b[2][at] = mx;
            b[3][at] = mn;
            b[4][at] = double(int32_t(uint32_t(total)));
            b[5][at] = double(argRef(lo, true));
            b[6][at] = double(argRef(hi, false));
          }
      }
      std::vector<double> lo, hi;
      double mx = -kInf, mn = kInf;
      int64_t total = 0;
      for (int64_t i = 0; i < s.a; ++i)
        for (int64_t j = 0; j < s.b; ++j)
          for (int64_t k = 0; k < s.c; ++k) {
            lo.push_back(element(0, i, j, k));
            hi.push_back(element(1, i, j, k));
            mx = maxRef(mx, lo.back());
            mn = minRef(mn, hi.back());
            total += int64_t(element(2, i, j, k));
          }
      b[2][sec.all] = mx;
      b[3][sec.all] = mn;
      b[4][sec.all] = double(int32_t(uint32_t(total)));
      b[5][sec.all] = double(argRef(lo, true));
      b[6][sec.all] = double(argRef(hi, false));
      // cumsum along each axis: element (i, j, k) sums the elements before
      // it (inclusive) along the axis.
      for (int axis = 0; axis < 3; ++axis)
        for (int64_t i = 0; i < s.a; ++i)
          for (int64_t j = 0; j < s.b; ++j)
            for (int64_t k = 0; k < s.c; ++k) {
              int64_t idx[3] = {i, j, k}, total = 0;
              for (int64_t r = 0; r <= idx[axis]; ++r) {
                int64_t at[3] = {i, j, k};
                at[axis] = r;
                total += int64_t(element(2, at[0], at[1], at[2]));
              }
              b[7][axis * size + (i * s.b + j) * s.c + k] =
                  double(int32_t(uint32_t(total)));
            }
    };
    c.tolerance = kExact;
    cases.push_back(std::move(c));
  }
}

//===----------------------------------------------------------------------===//
// join / split, permute, reshape
//===----------------------------------------------------------------------===//

/// Two masked nr x nc tiles a and b in [R, C] blocks:
///   out  (nr x nc x 2)     = join(a, b), through native 3-D positions;
///   outA, outB (nr x nc)   = split(join(a, b)), stored as 2-D;
///   out4 (R x C x 2 x 2)   = join(j, -j) (rank 4), reshaped to 1-D, the
///                            masked-off lanes as loaded (0);
///   outS (nr x nc)         = the halves of a natively loaded 3-D block
///                            (out's layout, from x3) split, a' - b'.
void addJoinCases(std::vector<Case> &cases) {
  struct Tile {
    int64_t r, c, nr, nc;
    int numWarps;
  };
  const Tile tiles[] = {
      {4, 8, 3, 5, 4}, {2, 2, 2, 1, 4}, {16, 32, 13, 29, 1}, {1, 1, 1, 1, 4}};
  for (DType type : {D::F32, D::F16}) {
    auto kernel = jit(
        "rank3_join_" + suffix(type),
        [](Ptr<> xa, Ptr<> xb, Ptr<> x3, Ptr<> out, Ptr<> outA, Ptr<> outB,
           Ptr<> out4, Ptr<> outS, Int nr, Int nc, Constexpr R, Constexpr C) {
          Tensor r = arange(0, R).expand_dims(1);
          Tensor c = arange(0, C).expand_dims(0);
          Tensor mask = (r < nr) & (c < nc);
          Tensor at = r * nc + c;
          Tensor a = load(xa + at, mask, 0), b = load(xb + at, mask, 0);
          Tensor j = join(a, b);
          Tensor t = arange(0, 2).expand_dims(0).expand_dims(0);
          Tensor at3 = at.expand_dims(2) * 2 + t;
          Tensor mask3 = mask.expand_dims(2) & (t < 2);
          store(out + at3, j, mask3);
          auto [a2, b2] = split(j);
          store(outA + at, a2, mask);
          store(outB + at, b2, mask);
          Tensor j4 = join(j, -j);
          store(out4 + arange(0, R * C * 4), reshape(j4, {R * C * 4}));
          auto [a3, b3] = split(load(x3 + at3, mask3, 0));
          store(outS + at, a3 - b3, mask);
        });
    for (const Tile &s : tiles) {
      int64_t n = s.nr * s.nc;
      Case c{"rank3_join_" + suffix(type) + "_" + std::to_string(s.nr) + "x" +
                 std::to_string(s.nc) + "_in_" + std::to_string(s.r) + "x" +
                 std::to_string(s.c) + "_w" + std::to_string(s.numWarps),
             {"join", "split", "reshape", "operator-"},
             kernel};
      c.buffers = {{type, values(type, n, 41)},
                   {type, values(type, n, 42)},
                   {type, floats(type, 2 * n, 43, /*special=*/false)},
                   {type, sentinel(2 * n + 3)},
                   {type, sentinel(n + 3)},
                   {type, sentinel(n + 3)},
                   {type, sentinel(s.r * s.c * 4 + 3)},
                   {type, sentinel(n + 3)}};
      c.args = {bufArg(0),    bufArg(1),    bufArg(2),     bufArg(3),
                bufArg(4),    bufArg(5),    bufArg(6),     bufArg(7),
                i32Arg(s.nr), i32Arg(s.nc), constArg(s.r), constArg(s.c)};
      c.grid = {1};
      c.numWarps = s.numWarps;
      c.reference = [s, type](Buffers &b) {
        for (int64_t r = 0; r < s.r; ++r)
          for (int64_t col = 0; col < s.c; ++col) {
            bool in = r < s.nr && col < s.nc;
            int64_t at = r * s.nc + col;
            double a = in ? b[0][at] : 0, bb = in ? b[1][at] : 0;
            int64_t flat = (r * s.c + col) * 4;
            b[6][flat + 0] = a;
            b[6][flat + 1] = -a;
            b[6][flat + 2] = bb;
            b[6][flat + 3] = -bb;
            if (!in)
              continue;
            b[3][2 * at] = a;
            b[3][2 * at + 1] = bb;
            b[4][at] = a;
            b[5][at] = bb;
            // One rounding of the difference to the type.
            b[7][at] = roundTo(type, b[2][2 * at] - b[2][2 * at + 1]);
          }
      };
      c.tolerance = kExact;
      cases.push_back(std::move(c));
    }
  }
}

/// A [A, B, C] block loaded from x (row-major, masked to na x nb x nc,
/// other 0) goes through all 6 permutations, each stored row-major in its
/// own section of `out` through positions built in the permuted shape;
/// flat = reshape(3-D load, [A*B*C]) and back = reshape(1-D load, [A, B, C])
/// stored through 3-D positions.
void addPermuteCases(std::vector<Case> &cases) {
  static const std::array<std::array<int, 3>, 6> kOrders = {
      {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}};
  const Box boxes[] = {{2, 4, 8, 2, 3, 7, 4},
                       {4, 8, 16, 4, 8, 16, 1},
                       {2, 2, 4, 2, 2, 4, 4},
                       {8, 2, 32, 5, 2, 31, 4}};
  for (DType type : {D::F32, D::I8}) {
    auto kernel =
        jit("rank3_permute_" + suffix(type),
            [](Ptr<> x, Ptr<> out, Ptr<> flat, Ptr<> back, Int na, Int nb,
               Int nc, Constexpr A, Constexpr B, Constexpr C) {
              int64_t dims[3] = {A, B, C}, size = A * B * C;
              Coords p = coords(A, B, C);
              Tensor mask = (p.i < na) & (p.j < nb) & (p.k < nc);
              Tensor whole = (p.i * int64_t(B) + p.j) * int64_t(C) + p.k;
              Tensor v = load(x + (p.i * nb + p.j) * nc + p.k, mask, 0);
              for (size_t o = 0; o < kOrders.size(); ++o) {
                const std::array<int, 3> &order = kOrders[o];
                Coords q =
                    coords(dims[order[0]], dims[order[1]], dims[order[2]]);
                Tensor at = (q.i * dims[order[1]] + q.j) * dims[order[2]] + q.k;
                store(out + int64_t(o) * size + at,
                      permute(v, {order[0], order[1], order[2]}));
              }
              store(flat + arange(0, size), reshape(v, {size}));
              Tensor line = load(x + arange(0, size));
              store(back + whole, reshape(line, {A, B, C}));
            });
    for (const Box &s : boxes) {
      int64_t n = s.na * s.nb * s.nc, size = s.a * s.b * s.c;
      Case c{"rank3_permute_" + suffix(type) + "_" + boxName(s),
             {"permute", "reshape"},
             kernel};
      // x holds at least `size` elements: the 1-D load reads them all.
      c.buffers = {{type, values(type, std::max(n, size), 51)},
                   {type, sentinel(6 * size + 3)},
                   {type, sentinel(size + 3)},
                   {type, sentinel(size + 3)}};
      c.args = {bufArg(0),     bufArg(1),    bufArg(2),    bufArg(3),
                i32Arg(s.na),  i32Arg(s.nb), i32Arg(s.nc), constArg(s.a),
                constArg(s.b), constArg(s.c)};
      c.grid = {1};
      c.numWarps = s.numWarps;
      c.reference = [s, size](Buffers &b) {
        int64_t dims[3] = {s.a, s.b, s.c};
        for (int64_t i = 0; i < s.a; ++i)
          for (int64_t j = 0; j < s.b; ++j)
            for (int64_t k = 0; k < s.c; ++k) {
              bool in = i < s.na && j < s.nb && k < s.nc;
              double v = in ? b[0][(i * s.nb + j) * s.nc + k] : 0;
              int64_t src[3] = {i, j, k};
              int64_t whole = (i * s.b + j) * s.c + k;
              for (size_t o = 0; o < kOrders.size(); ++o) {
                const std::array<int, 3> &order = kOrders[o];
                // Result index d is source index order[d].
                int64_t at = (src[order[0]] * dims[order[1]] + src[order[1]]) *
                                 dims[order[2]] +
                             src[order[2]];
                b[1][int64_t(o) * size + at] = v;
              }
              b[2][whole] = v;
              b[3][whole] = b[0][whole];
            }
      };
      c.tolerance = kExact;
      cases.push_back(std::move(c));
    }
  }
}

//===----------------------------------------------------------------------===//
// atomic_add through a 3-D pointer block
//===----------------------------------------------------------------------===//

/// Program p adds x[p, i, j, k] (a masked box) to acc[(i + 3j + 5k) % 7]:
/// many elements and every program share each slot.
void addAtomicCases(std::vector<Case> &cases) {
  auto kernel = jit("rank3_atomic_add", [](Ptr<int32_t> x, Ptr<int32_t> acc,
                                           Int na, Int nb, Int nc, Constexpr A,
                                           Constexpr B, Constexpr C) {
    Coords p = coords(A, B, C);
    Tensor mask = (p.i < na) & (p.j < nb) & (p.k < nc);
    Tensor at = program_id(0) * na * nb * nc + (p.i * nb + p.j) * nc + p.k;
    Tensor v = load(x + at, mask);
    atomic_add(acc + (p.i + p.j * 3 + p.k * 5) % 7, v, mask);
  });
  for (const Box &s : kBoxes) {
    int64_t programs = 3, n = s.na * s.nb * s.nc;
    Case c{"rank3_atomic_add_" + boxName(s), {"atomic_add"}, kernel};
    c.buffers = {{D::I32, ints(D::I32, programs * n, 61, 1 << 20)},
                 {D::I32, ints(D::I32, 8, 62, 1 << 20)}};
    c.args = {bufArg(0),    bufArg(1),     i32Arg(s.na),  i32Arg(s.nb),
              i32Arg(s.nc), constArg(s.a), constArg(s.b), constArg(s.c)};
    c.grid = {int(programs)};
    c.numWarps = s.numWarps;
    c.reference = [s, programs, n](Buffers &b) {
      for (int64_t p = 0; p < programs; ++p)
        for (int64_t i = 0; i < s.na; ++i)
          for (int64_t j = 0; j < s.nb; ++j)
            for (int64_t k = 0; k < s.nc; ++k)
              b[1][(i + 3 * j + 5 * k) % 7] +=
                  b[0][p * n + (i * s.nb + j) * s.nc + k];
    };
    c.tolerance = kExact;
    cases.push_back(std::move(c));
  }
}

} // namespace

void addRank3Cases(std::vector<Case> &cases) {
  addBoxCopyCases(cases);
  addBroadcastCases(cases);
  addReduceCases(cases);
  addJoinCases(cases);
  addPermuteCases(cases);
  addAtomicCases(cases);
}

} // namespace blockjit::difftest
