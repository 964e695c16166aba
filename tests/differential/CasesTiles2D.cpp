//===- CasesTiles2D.cpp - 2-D tiles: reductions broadcast back ------------===//
//
// Kernels on [BLOCK_M, BLOCK_N] tiles that reduce along an axis and use the
// result at every element (x - max(x, axis, keep_dims)), and that index
// their tiles with rows[:, None] * stride + cols[None, :]. On the GPU
// blk-sink-broadcasts turns those broadcasts into blkgpu.all_reduce and
// broadcast ranges: the shapes and warp counts here put the reduced axis's
// bits in registers, lanes and warps (and blocks smaller than the threads,
// whose holders wrap), so each path of the lowering runs:
//   - softmax along rows, several rows per program;
//   - layernorm along rows: the mean and the variance divided by n and
//     rsqrt'ed between the reduction and its broadcast;
//   - softmax down columns, BLOCK_N columns per program;
//   - layernorm with weight and bias rows loaded once in front of a
//     persistent loop over row tiles (w[None, :] over every tile) and a
//     per-row shift loaded [BLOCK_M] and stretched along the columns
//     (shift[:, None]): blk-sink-broadcasts loads those at the tile's shape
//     (blkgpu.stretched_dims) instead of exchanging them;
// f32 and f16 (reductions accumulate in f32), with the edge rows (all -inf,
// +inf, NaN, +-1000) and masked tails in both dimensions.
//
//===----------------------------------------------------------------------===//
#include "tests/differential/CaseHelpers.h"

#include "frontend/blockjit.h"

#include <cmath>

namespace blockjit::difftest {

namespace {

double nanMax(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? kNaN : std::max(a, b);
}

/// Softmax of rows BLOCK_M at a time: program p takes rows p * BLOCK_M...
const std::shared_ptr<KernelDef> &tileRowSoftmax() {
  static auto kernel = jit(
      "tile_row_softmax", [](Ptr<> out, Ptr<> in, Int stride, Int m, Int n,
                             Constexpr BLOCK_M, Constexpr BLOCK_N) {
        Tensor rows =
            (program_id(0) * BLOCK_M + arange(0, BLOCK_M)).expand_dims(1);
        Tensor cols = arange(0, BLOCK_N).expand_dims(0);
        Tensor mask = (rows < m) & (cols < n);
        Tensor offsets = rows * stride + cols;
        Tensor x = load(in + offsets, mask, -INFINITY).to(DType::F32);
        Tensor e = exp(x - max(x, 1, true));
        store(out + offsets, e / sum(e, 1, true), mask);
      });
  return kernel;
}

/// (x - mean) * rstd along each row of the tile `x` (masked elements 0):
/// the variance of the centred row, the mean and the variance divided by n
/// and rsqrt'ed between the reduction and its broadcast.
Tensor normalizedRows(const Tensor &x, const Tensor &mask, const Int &n,
                      const Float &eps) {
  Tensor mean = sum(x, 1, true) / n;
  Tensor centered = where(mask, x - mean, 0.0);
  return centered * rsqrt(sum(centered * centered, 1, true) / n + eps);
}

/// Layernorm (no weight) of rows BLOCK_M at a time.
const std::shared_ptr<KernelDef> &tileRowLayerNorm() {
  static auto kernel = jit(
      "tile_row_layernorm", [](Ptr<> out, Ptr<> in, Int stride, Int m, Int n,
                               Float eps, Constexpr BLOCK_M,
                               Constexpr BLOCK_N) {
        Tensor rows =
            (program_id(0) * BLOCK_M + arange(0, BLOCK_M)).expand_dims(1);
        Tensor cols = arange(0, BLOCK_N).expand_dims(0);
        Tensor mask = (rows < m) & (cols < n);
        Tensor offsets = rows * stride + cols;
        Tensor x = load(in + offsets, mask, 0.0).to(DType::F32);
        store(out + offsets, normalizedRows(x, mask, n, eps), mask);
      });
  return kernel;
}

/// Layernorm of row tiles with weight and bias, then + shift[row]: programs
/// take tiles program_id(0), + num_programs(0), ...; weight and bias are
/// loaded once, before the loop.
const std::shared_ptr<KernelDef> &tileLayerNormAffine() {
  static auto kernel = jit(
      "tile_layernorm_affine",
      [](Ptr<> out, Ptr<> in, Ptr<> weight, Ptr<> bias, Ptr<> shift, Int stride,
         Int m, Int n, Float eps, Constexpr BLOCK_M, Constexpr BLOCK_N) {
        Tensor cols = arange(0, BLOCK_N);
        Tensor col_mask = cols < n;
        Tensor w = load(weight + cols, col_mask, 0.0).to(DType::F32);
        Tensor b = load(bias + cols, col_mask, 0.0).to(DType::F32);
        Tensor w_row = w.expand_dims(0), b_row = b.expand_dims(0);
        Tensor cols2 = cols.expand_dims(0);
        Tensor n_tiles = cdiv(m, BLOCK_M);
        for_range(program_id(0), n_tiles, num_programs(0), [&](Int tile) {
          Tensor rows = tile * BLOCK_M + arange(0, BLOCK_M);
          Tensor row_shift =
              load(shift + rows, rows < m, 0.0).to(DType::F32).expand_dims(1);
          Tensor rows2 = rows.expand_dims(1);
          Tensor mask = (rows2 < m) & (cols2 < n);
          Tensor offsets = rows2 * stride + cols2;
          Tensor x = load(in + offsets, mask, 0.0).to(DType::F32);
          store(out + offsets,
                normalizedRows(x, mask, n, eps) * w_row + b_row + row_shift,
                mask);
        });
      });
  return kernel;
}

/// Softmax down BLOCK_N columns per program, all rows in one tile.
const std::shared_ptr<KernelDef> &tileColumnSoftmax() {
  static auto kernel = jit(
      "tile_column_softmax", [](Ptr<> out, Ptr<> in, Int stride, Int m, Int n,
                                Constexpr BLOCK_M, Constexpr BLOCK_N) {
        Tensor rows = arange(0, BLOCK_M).expand_dims(1);
        Tensor cols =
            (program_id(0) * BLOCK_N + arange(0, BLOCK_N)).expand_dims(0);
        Tensor mask = (rows < m) & (cols < n);
        Tensor offsets = rows * stride + cols;
        Tensor x = load(in + offsets, mask, -INFINITY).to(DType::F32);
        Tensor e = exp(x - max(x, 0, true));
        store(out + offsets, e / sum(e, 0, true), mask);
      });
  return kernel;
}

enum class Kind { RowSoftmax, RowLayerNorm, ColumnSoftmax };

struct TileShape {
  int64_t m, n, blockM, blockN;
  int numWarps;
};

Case tileCase(Kind kind, DType type, TileShape s) {
  const int64_t stride = s.n + 3;
  const char *name = kind == Kind::RowSoftmax     ? "tile_row_softmax"
                     : kind == Kind::RowLayerNorm ? "tile_row_layernorm"
                                                  : "tile_column_softmax";
  Case c{std::string(name) + "_" + suffix(type) + "_m" + std::to_string(s.m) +
             "_n" + std::to_string(s.n) + "_b" + std::to_string(s.blockM) +
             "x" + std::to_string(s.blockN) + "_w" +
             std::to_string(s.numWarps),
         {std::string("tiles:") + name},
         kind == Kind::RowSoftmax     ? tileRowSoftmax()
         : kind == Kind::RowLayerNorm ? tileRowLayerNorm()
                                      : tileColumnSoftmax()};
  std::vector<double> in =
      floats(type, s.m * stride, unsigned(s.m * 7 + s.n), false);
  bool rows = kind != Kind::ColumnSoftmax;
  // The edge lines: along the reduced axis, line 0 all -inf (softmax; it
  // gives NaN), line 1 a +inf, line 2 a NaN, line 3 +-1000.
  int64_t lines = rows ? s.m : s.n, length = rows ? s.n : s.m;
  auto at = [&](int64_t line, int64_t i) -> double & {
    return rows ? in[line * stride + i] : in[i * stride + line];
  };
  for (int64_t i = 0; i < length; ++i) {
    if (lines > 0 && kind != Kind::RowLayerNorm)
      at(0, i) = -kInf;
    if (lines > 3)
      at(3, i) = i % 2 ? 1000 : -1000;
  }
  if (lines > 1)
    at(1, length / 2) = kInf;
  if (lines > 2)
    at(2, length / 3) = kNaN;
  c.buffers = {{type, in}, {type, sentinel(s.m * stride)}};
  c.args = {bufArg(1), bufArg(0), i32Arg(int32_t(stride)),
            i32Arg(int32_t(s.m)), i32Arg(int32_t(s.n))};
  const double eps = 1e-5;
  if (kind == Kind::RowLayerNorm)
    c.args.push_back(f32Arg(float(eps)));
  c.args.push_back(constArg(s.blockM));
  c.args.push_back(constArg(s.blockN));
  c.grid = {int(rows ? (s.m + s.blockM - 1) / s.blockM
                     : (s.n + s.blockN - 1) / s.blockN)};
  c.numWarps = s.numWarps;
  c.tolerance = type == DType::F32
                    ? Tolerance{kind == Kind::RowLayerNorm ? 1e-4 : 1e-6, 0,
                                "f32: abs 1e-6 (layernorm 1e-4)"}
                    : Tolerance{2e-3, 0, "f16: abs 2e-3"};
  if (kind == Kind::RowLayerNorm && type != DType::F32)
    c.tolerance = {1e-2, 0, "f16 layernorm: abs 1e-2"};
  c.reference = [kind, s, stride, rows, eps](Buffers &b) {
    int64_t lines = rows ? s.m : s.n, length = rows ? s.n : s.m;
    auto index = [&](int64_t line, int64_t i) {
      return rows ? line * stride + i : i * stride + line;
    };
    for (int64_t line = 0; line < lines; ++line) {
      if (kind == Kind::RowLayerNorm) {
        double mean = 0, var = 0;
        for (int64_t i = 0; i < length; ++i)
          mean += b[0][index(line, i)];
        mean /= double(length);
        for (int64_t i = 0; i < length; ++i)
          var += (b[0][index(line, i)] - mean) * (b[0][index(line, i)] - mean);
        double rstd = 1 / std::sqrt(var / double(length) + eps);
        for (int64_t i = 0; i < length; ++i)
          b[1][index(line, i)] = (b[0][index(line, i)] - mean) * rstd;
        continue;
      }
      double mx = -kInf, sum = 0;
      for (int64_t i = 0; i < length; ++i)
        mx = nanMax(mx, b[0][index(line, i)]);
      for (int64_t i = 0; i < length; ++i)
        sum += std::exp(b[0][index(line, i)] - mx);
      for (int64_t i = 0; i < length; ++i)
        b[1][index(line, i)] = std::exp(b[0][index(line, i)] - mx) / sum;
    }
  };
  return c;
}

/// The affine layernorm on `programs` persistent programs: weight, bias and
/// shift of their own (weight with +-1e4 and a 0, bias with 1e30 and
/// -1e30), rows with +inf, NaN and +-1000 as tileCase's.
Case affineCase(DType type, TileShape s, int programs, int ctas = 1) {
  const int64_t stride = s.n + 5;
  Case c{std::string("tile_layernorm_affine_") + suffix(type) + "_m" +
             std::to_string(s.m) + "_n" + std::to_string(s.n) + "_b" +
             std::to_string(s.blockM) + "x" + std::to_string(s.blockN) + "_w" +
             std::to_string(s.numWarps) + "_p" + std::to_string(programs) +
             (ctas > 1 ? "_ctas" + std::to_string(ctas) : ""),
         {"tiles:tile_layernorm_affine"},
         tileLayerNormAffine()};
  std::vector<double> in =
      floats(type, s.m * stride, unsigned(s.m * 5 + s.n), false);
  for (int64_t i = 0; s.m > 3 && i < s.n; ++i)
    in[3 * stride + i] = i % 2 ? 1000 : -1000;
  if (s.m > 1)
    in[1 * stride + s.n / 2] = kInf;
  if (s.m > 2)
    in[2 * stride + s.n / 3] = kNaN;
  std::vector<double> weight = floats(type, s.n, unsigned(s.n), false);
  std::vector<double> bias = floats(type, s.n, unsigned(s.n + 1), false);
  std::vector<double> shift = floats(type, s.m, unsigned(s.m), false);
  weight[0] = 0;
  if (s.n > 2)
    weight[s.n - 1] = type == DType::F32 ? 1e4 : -1e3;
  if (type == DType::F32 && s.n > 3) {
    bias[1] = 1e30;
    bias[2] = -1e30;
  }
  c.buffers = {{type, in},
               {type, sentinel(s.m * stride)},
               {type, weight},
               {type, bias},
               {type, shift}};
  const double eps = 1e-5;
  c.args = {bufArg(1),
            bufArg(0),
            bufArg(2),
            bufArg(3),
            bufArg(4),
            i32Arg(int32_t(stride)),
            i32Arg(int32_t(s.m)),
            i32Arg(int32_t(s.n)),
            f32Arg(float(eps)),
            constArg(s.blockM),
            constArg(s.blockN)};
  c.grid = {programs};
  c.numWarps = s.numWarps;
  c.numCTAs = ctas;
  // Relative to the output's scale where the bias is huge.
  c.tolerance = type == DType::F32
                    ? Tolerance{1e-3, 1e-5, "f32: abs 1e-3 + rel 1e-5"}
                    : Tolerance{3e-2, 1e-2, "f16: abs 3e-2 + rel 1e-2"};
  c.reference = [s, stride, eps](Buffers &b) {
    for (int64_t r = 0; r < s.m; ++r) {
      double mean = 0, var = 0;
      for (int64_t i = 0; i < s.n; ++i)
        mean += b[0][r * stride + i];
      mean /= double(s.n);
      for (int64_t i = 0; i < s.n; ++i) {
        double d = b[0][r * stride + i] - mean;
        var += d * d;
      }
      double rstd = 1 / std::sqrt(var / double(s.n) + eps);
      for (int64_t i = 0; i < s.n; ++i)
        b[1][r * stride + i] =
            (b[0][r * stride + i] - mean) * rstd * b[2][i] + b[3][i] + b[4][r];
    }
  };
  return c;
}

} // namespace

void addTiles2DCases(std::vector<Case> &cases) {
  // Rows: the reduced axis (the columns, low bits of the linear index) in
  // registers and lanes (16x64, 4 warps), across warps too (4x1024), in
  // lanes of a block smaller than the threads (2x32 over 4 warps: wraps),
  // in registers only (64x4, 1 warp), and 781 / 17 columns in tails.
  const TileShape rowShapes[] = {
      {37, 64, 16, 64, 4},  {9, 1000, 4, 1024, 4}, {5, 17, 2, 32, 4},
      {70, 4, 64, 4, 1},    {33, 781, 8, 1024, 8}, {40, 17, 16, 32, 2},
      {3, 4097, 1, 8192, 8}};
  // Columns: the reduced axis (the rows, high bits) in lanes and warps
  // (256x8 over 4 warps), registers (64x16 on 1 warp), wrapping (8x4 over
  // 4 warps).
  // The shapes of issue 12's trial column softmax too: one row, one
  // column, 7 x 4097 in strips of 16.
  const TileShape columnShapes[] = {{1, 17, 1, 16, 4},
                                    {17, 1, 32, 16, 4},
                                    {100, 781, 128, 16, 4},
                                    {7, 4097, 8, 16, 4},
                                    {200, 17, 256, 8, 4},
                                    {64, 33, 64, 16, 1},
                                    {7, 9, 8, 4, 4},
                                    {300, 100, 512, 32, 8},
                                    {17, 781, 32, 64, 2}};
  for (DType type : {DType::F32, DType::F16}) {
    for (const TileShape &s : rowShapes) {
      cases.push_back(tileCase(Kind::RowSoftmax, type, s));
      cases.push_back(tileCase(Kind::RowLayerNorm, type, s));
    }
    for (const TileShape &s : columnShapes)
      cases.push_back(tileCase(Kind::ColumnSoftmax, type, s));
  }
  // Affine layernorm: the stretched rows' registers in registers, lanes and
  // warps (16x64 on 4 warps: 2 rows a thread; 64x64 on 4: 8; 4x1024 on 8:
  // rows across warps; 32x32 on 1 warp; 2x32 over 4 warps wraps), tails in
  // both dimensions (1823 x 781 in 8 x 1024 tiles), several tiles a program.
  const std::pair<TileShape, int> affineShapes[] = {
      {{37, 64, 16, 64, 4}, 2},   {{130, 61, 64, 64, 4}, 1},
      {{9, 1000, 4, 1024, 8}, 2}, {{70, 17, 32, 32, 1}, 3},
      {{5, 17, 2, 32, 4}, 2},     {{1823, 781, 8, 1024, 8}, 37}};
  for (DType type : {DType::F32, DType::F16})
    for (auto [s, programs] : affineShapes)
      cases.push_back(affineCase(type, s, programs));
  // On a cluster (sm_90; one CTA elsewhere): the tiles split over 2 and 4
  // CTAs, each loading the stretched rows of its own piece.
  cases.push_back(affineCase(DType::F32, {100, 1000, 64, 1024, 4}, 2, 2));
  cases.push_back(affineCase(DType::F16, {61, 3000, 32, 4096, 4}, 3, 4));
}

} // namespace blockjit::difftest
