//===- LayerNorm.cpp - fused layer normalization over rows ----------------===//
//
// (x - mean) * rstd * weight + bias per row, with the biased variance and
// rstd = 1 / sqrt(var + eps), as torch.nn.functional.layer_norm over the
// last dimension and Triton's layer-norm tutorial: softmax's persistent
// rows (Softmax.cpp), the row held in registers, two reductions (the mean,
// then the variance of the centred row, which is exact for constant rows).
// With CHUNK_SIZE < BLOCK_SIZE the row is read in chunks instead, twice
// (the second time from L1/L2, the first read kept in the caches and the
// second let go: eviction hints): Welford's running mean and sum of squared
// deviations per lane, combined over the lanes at the end; what Inductor
// does, with few registers a thread and many warps an SM.
//
//===----------------------------------------------------------------------===//
#include "examples/kernels/FamilyRegistration.h"
#include "examples/kernels/Kernels.h"
#include "examples/kernels/RowTuning.h"

#include "compiler/Specialization.h"

#include <cmath>

namespace blockjit::examples {

void layernorm_kernel(Ptr<> output_ptr, Ptr<> input_ptr, Ptr<> weight_ptr,
                      Ptr<> bias_ptr, Int input_row_stride,
                      Int output_row_stride, Int n_rows, Int n_cols, Float eps,
                      Constexpr BLOCK_SIZE, Constexpr CHUNK_SIZE) {
  Int row_start = program_id(0);
  Int row_step = num_programs(0);
  // The mean and the variance divide by n_cols without a division a row:
  // inv_columns = 1 / n_cols rounded once, before the row loop; a row's sum
  // s gives the estimate q = s * inv_columns, the remainder
  // s - q * columns exactly (an fma), and one correction q + remainder *
  // inv_columns (Markstein's, the refinement div.rn runs itself). q alone is
  // not enough: a row far from 0 with a small spread turns its extra ulp
  // into 5e-5 relative error in the output (the differential cases'
  // 9 x 12289 rows).
  Tensor columns = n_cols.to(DType::F32);
  Tensor inv_columns = 1.0 / columns;
  auto over_n_cols = [&](const Tensor &s) {
    Tensor q = s * inv_columns;
    return fma(fma(q, 0.0 - columns, s), inv_columns, q);
  };
  if (CHUNK_SIZE.value > 0 && CHUNK_SIZE.value < BLOCK_SIZE.value) {
    // The row in chunks: each lane j keeps the count n, mean and sum of
    // squared deviations m2 of the columns j, j + CHUNK_SIZE, ... it has
    // read (Welford). A lane is masked only in the last chunk, so while it
    // reads, its count is the chunk's index + 1, one value for all lanes.
    // The loops run to BLOCK_SIZE rather than n_cols: a trip count known
    // when compiling lets LLVM unroll them (f32 4096 in chunks of 2048 on
    // 16 warps: 57 -> 32 registers, both chunks' loads in flight at once);
    // chunks past n_cols load nothing.
    Tensor chunk_offsets = arange(0, CHUNK_SIZE);
    for_range(row_start, n_rows, row_step, [&](Int row_idx) {
      Tensor row_in = input_ptr + row_idx * input_row_stride;
      std::vector<Tensor> lanes =
          for_range(0, BLOCK_SIZE, CHUNK_SIZE,
                    {full({CHUNK_SIZE}, 0.0, DType::F32),
                     full({CHUNK_SIZE}, 0.0, DType::F32),
                     full({CHUNK_SIZE}, 0.0, DType::F32)},
                    [&](Int chunk_start, std::vector<Tensor> carried) {
                      Tensor cols = chunk_start + chunk_offsets;
                      Tensor mask = cols < n_cols;
                      Tensor x = load(row_in + cols, mask, 0, Eviction::Last)
                                     .to(DType::F32);
                      Tensor reads =
                          (chunk_start / CHUNK_SIZE + 1).to(DType::F32);
                      Tensor n = carried[0], mean = carried[1], m2 = carried[2];
                      Tensor delta = x - mean;
                      Tensor mean_new = mean + delta * (1.0 / reads);
                      return std::vector<Tensor>{
                          where(mask, reads, n), where(mask, mean_new, mean),
                          where(mask, m2 + delta * (x - mean_new), m2)};
                    });
      // The lanes combined (Chan et al.): the row's mean, then its m2 as
      // the lanes' m2 plus each lane's count times its mean's squared
      // distance from the row's.
      Tensor mean = over_n_cols(sum(lanes[0] * lanes[1], 0));
      Tensor apart = lanes[1] - mean;
      Tensor variance =
          over_n_cols(sum(lanes[2] + lanes[0] * apart * apart, 0));
      Tensor rstd = 1.0 / sqrt(variance + eps);
      Tensor row_out = output_ptr + row_idx * output_row_stride;
      for_range(0, BLOCK_SIZE, CHUNK_SIZE, [&](Int chunk_start) {
        Tensor cols = chunk_start + chunk_offsets;
        Tensor mask = cols < n_cols;
        // The row's last read: its lines may go first. Weight and bias
        // stay, for every row (Inductor's hints; on the H200 they make a
        // Triton kernel of this loop 3-8 % faster).
        Tensor x = load(row_in + cols, mask, 0, Eviction::First).to(DType::F32);
        Tensor weight =
            load(weight_ptr + cols, mask, 0, Eviction::Last).to(DType::F32);
        Tensor bias =
            load(bias_ptr + cols, mask, 0, Eviction::Last).to(DType::F32);
        store(row_out + cols, fma((x - mean) * rstd, weight, bias), mask);
      });
    });
    return;
  }
  for_range(row_start, n_rows, row_step, [&](Int row_idx) {
    Tensor col_offsets = arange(0, BLOCK_SIZE);
    Tensor mask = col_offsets < n_cols;
    Tensor input_ptrs = input_ptr + row_idx * input_row_stride + col_offsets;
    Tensor x = load(input_ptrs, mask, 0).to(DType::F32);
    Tensor mean = over_n_cols(sum(x, 0));
    // Masked lanes 0, so that they add nothing to the variance.
    Tensor centred = where(mask, x - mean, 0.0);
    Tensor variance = over_n_cols(sum(centred * centred, 0));
    Tensor rstd = 1.0 / sqrt(variance + eps);
    // Weight and bias do not depend on the row: with num_stages >= 2 the
    // compiler loads them once, before the row loop (blk-pipeline-loads);
    // with 1 they are read per row (from L2) and only the row stays live
    // across the reductions.
    Tensor weight = load(weight_ptr + col_offsets, mask, 0).to(DType::F32);
    Tensor bias = load(bias_ptr + col_offsets, mask, 0).to(DType::F32);
    // One rounding for `* weight + bias`: an fma, as Triton's and Inductor's
    // contracted code computes it (blockjit does not contract by itself).
    Tensor output = fma(centred * rstd, weight, bias);
    Tensor output_ptrs = output_ptr + row_idx * output_row_stride + col_offsets;
    store(output_ptrs, output, mask);
  });
}

const std::shared_ptr<KernelDef> &layerNorm() {
  static auto kernel = jit("layernorm", layernorm_kernel,
                           {"output_ptr", "input_ptr", "weight_ptr", "bias_ptr",
                            "input_row_stride", "output_row_stride", "n_rows",
                            "n_cols", "eps", "BLOCK_SIZE", "CHUNK_SIZE"});
  return kernel;
}

namespace {

constexpr RowArgPositions kLayerNormArgs = {1, 6, 7, 9};
constexpr char kChunkSize[] = "CHUNK_SIZE";

/// The CHUNK_SIZE `config` sets (0: the whole row in one block).
int64_t chunkOf(const TuningConfig &config) {
  return config.constexprValue(kChunkSize, 0);
}

/// Chunks worth timing for a row of `block` elements: at least two a row,
/// 2 to 32 elements a thread.
bool chunkWorthTiming(int64_t chunk, int64_t block, int warps) {
  double perThread = double(chunk) / (32.0 * warps);
  return chunk * 2 <= block && perThread >= 2 && perThread <= 32;
}

/// softmax's row spec (whole rows, CHUNK_SIZE = 0) and, on the GPU, rows
/// read in chunks twice on one program a row: Inductor's loop (on the
/// H200 its fp32 32768 x 4096 kernel, chunks of 2048 on 16 warps and 32
/// registers, runs at copy speed; blockjit's whole rows 0.96 x copy, its
/// chunks of 1024 on 8 warps 0.977). Each num_warps x num_stages pair of
/// chunks is timed, its chunk refined by halving and doubling.
AutotuneSpec layerNormTuningSpec() {
  AutotuneSpec spec = rowTuningSpec(
      kLayerNormArgs, {rowMajorBuffer("output_ptr", 0, 5, kLayerNormArgs)});
  for (int64_t chunk : {1024, 2048, 4096})
    for (int warps : {4, 8, 16})
      for (int stages : {1, 2})
        spec.configs.push_back(
            {warps, stages, 1, {{kChunkSize, chunk}}, {{kRowsPerProgram, 1}}});
  auto blockOf = [](llvm::ArrayRef<Arg> args) {
    return integerArgAt(args, kLayerNormArgs.block, 0);
  };
  spec.prune = [rowPrune = spec.prune,
                blockOf](llvm::ArrayRef<TuningConfig> configs,
                         llvm::ArrayRef<Arg> args, const Target &target) {
    std::vector<TuningConfig> whole, chunked;
    for (const TuningConfig &c : configs)
      (chunkOf(c) ? chunked : whole).push_back(c);
    std::vector<TuningConfig> kept = rowPrune(whole, args, target);
    // Whole rows whatever CHUNK_SIZE the caller passed.
    for (TuningConfig &c : kept)
      c = c.withConstexpr(kChunkSize, 0);
    if (target.kind != TargetKind::CPU)
      for (const TuningConfig &c : chunked)
        if (chunkWorthTiming(chunkOf(c), blockOf(args), c.numWarps))
          kept.push_back(c);
    return kept;
  };
  // Chunks: about 4 elements a thread (Inductor's 2048 on 16 warps) first.
  spec.estimate = [rowEstimate = spec.estimate](const TuningConfig &c,
                                                llvm::ArrayRef<Arg> args,
                                                const Target &target) {
    if (int64_t chunk = chunkOf(c))
      return std::abs(std::log2(double(chunk) / (32.0 * c.numWarps) / 4.0));
    return rowEstimate(c, args, target);
  };
  spec.coverGroup = [rowGroup = spec.coverGroup](const TuningConfig &c) {
    return chunkOf(c) ? (int64_t(1) << 20) + c.numWarps * 16 + c.numStages
                      : rowGroup(c);
  };
  spec.refine = [rowRefine = spec.refine, blockOf](const TuningConfig &c,
                                                   llvm::ArrayRef<Arg> args,
                                                   const Target &target) {
    int64_t chunk = chunkOf(c);
    if (!chunk)
      return rowRefine(c, args, target);
    std::vector<TuningConfig> near;
    for (int64_t next : {chunk / 2, chunk * 2})
      if (chunkWorthTiming(next, blockOf(args), c.numWarps))
        near.push_back(c.withConstexpr(kChunkSize, next));
    return near;
  };
  return spec;
}

} // namespace

Autotuner &layerNormTuner() {
  static Autotuner tuner(layerNorm(), layerNormTuningSpec());
  return tuner;
}

static KernelRegistration registration(rowKernelEntry(
    "layernorm", "fused layer normalization of rows (biased variance, eps)",
    layerNorm(), layerNormTuner));

} // namespace blockjit::examples
