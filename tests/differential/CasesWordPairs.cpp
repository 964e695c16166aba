//===- CasesWordPairs.cpp - rows of 2-byte elements on odd strides -------===//
//
// A row of f16, bf16 or i16 whose stride is odd starts on a 4-byte word on
// every other row and mid-word on the rest. One warp moves such rows in
// words, two elements a lane, shifted by an element at run time where the
// row starts mid-word (Memory.cpp, WordPairs): shuffles bring each lane the
// element its neighbour's word holds, ballots carry the masks. These cases
// run it on one warp (and on 4 programs a CTA), and the same rows on 2 and
// 4 warps (which keep 2-byte scalars), with odd input and output
// strides of either parity, a row 0 that starts mid-word (2 lead bytes),
// in place, masks with holes (a word with one element on), `other`, no
// mask at all, and softmax's special rows.
//
//===----------------------------------------------------------------------===//
#include "tests/differential/CaseHelpers.h"

#include "examples/kernels/Kernels.h"
#include "examples/kernels/Reference.h"
#include "frontend/blockjit.h"

namespace blockjit::difftest {

namespace {

/// out[row, c] = in[row, c] where c < n and c % 5 != 2 (stored), the value
/// loaded where c % 3 != 1 and -7 elsewhere; one row a program.
const std::shared_ptr<KernelDef> &copyWithHoles() {
  static auto kernel =
      jit("word_pairs_holes", [](Ptr<> in, Ptr<> out, Int in_stride,
                                 Int out_stride, Int n, Constexpr BLOCK) {
        Int row = program_id(0);
        Tensor cols = arange(0, BLOCK);
        Tensor x = load(in + (row * in_stride + cols),
                        (cols < n) & (cols % 3 != 1), -7.0);
        store(out + (row * out_stride + cols), x, (cols < n) & (cols % 5 != 2));
      });
  return kernel;
}

/// row[c] += 1, `iterations` times in place, where c < n and c % 3 != 1;
/// one row a program. Each iteration loads what the last one stored: under
/// one mask, a load and a store must move each element in the same lane.
const std::shared_ptr<KernelDef> &incrementWithHoles() {
  static auto kernel =
      jit("word_pairs_increment",
          [](Ptr<> data, Int stride, Int n, Int iterations, Constexpr BLOCK) {
            Tensor cols = arange(0, BLOCK);
            Tensor row = data + (program_id(0) * stride + cols);
            Tensor mask = (cols < n) & (cols % 3 != 1);
            for_range(0, iterations, 1, [&](Int) {
              store(row, load(row, mask, 0.0) + 1.0, mask);
            });
          });
  return kernel;
}

/// out[row, :BLOCK] = in[row, :BLOCK], no mask; one row a program.
const std::shared_ptr<KernelDef> &copyUnmasked() {
  static auto kernel =
      jit("word_pairs_unmasked", [](Ptr<> in, Ptr<> out, Int in_stride,
                                    Int out_stride, Constexpr BLOCK) {
        Int row = program_id(0);
        Tensor cols = arange(0, BLOCK);
        store(out + (row * out_stride + cols),
              load(in + (row * in_stride + cols)));
      });
  return kernel;
}

void addSoftmaxCases(std::vector<Case> &cases) {
  enum Variant {
    Contiguous,
    EvenOutput,
    MidWordInPlace,
    Programs,
    TwoWarps,
    FourWarpsMidWord
  };
  const char *names[] = {"",           "_out_even", "_lead2_inplace",
                         "_programs4", "_w2",       "_w4_lead2"};
  for (DType t : {DType::F16, DType::BF16}) {
    for (int64_t cols : {65, 127, 781, 1023, 4097}) {
      for (Variant variant : {Contiguous, EvenOutput, MidWordInPlace, Programs,
                              TwoWarps, FourWarpsMidWord}) {
        const int64_t rows = 9;
        const int64_t inStride = cols;
        const int64_t outStride = variant == EvenOutput ? cols + 1 : cols;
        const bool inPlace = variant == MidWordInPlace;
        Case c{"word_pairs_softmax_" + suffix(t) + "_n" + std::to_string(cols) +
                   names[variant],
               {"example:softmax"},
               examples::softmax()};
        int lead = inPlace || variant == FourWarpsMidWord ? 2 : 0;
        c.buffers = {{t, softmaxSpecialRows(t, rows, cols, inStride), lead}};
        if (inPlace) {
          c.args = {bufArg(0), bufArg(0)};
        } else {
          c.buffers.push_back({t, sentinel(rows * outStride), lead});
          c.args = {bufArg(1), bufArg(0)};
        }
        c.args.push_back(i32Arg(int32_t(inStride)));
        c.args.push_back(i32Arg(int32_t(outStride)));
        c.args.push_back(i32Arg(int32_t(rows)));
        c.args.push_back(i32Arg(int32_t(cols)));
        c.args.push_back(constArg(next_power_of_2(cols)));
        c.grid = {4}; // fewer programs than rows: the persistent loop
        c.numWarps = variant == TwoWarps           ? 2
                     : variant == FourWarpsMidWord ? 4
                                                   : 1;
        if (variant == Programs)
          c.programsPerCTA = 4;
        int out = inPlace ? 0 : 1;
        c.reference = [rows, cols, inStride, outStride, out](Buffers &b) {
          std::vector<double> result(rows * outStride);
          examples::referenceSoftmax(b[0].data(), result.data(), rows, cols,
                                     inStride, outStride,
                                     [](double x) { return x; });
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t k = 0; k < cols; ++k)
              b[out][r * outStride + k] = result[r * outStride + k];
        };
        c.tolerance = t == DType::F16
                          ? Tolerance{2e-3, 0, "softmax f16: abs 2e-3"}
                          : Tolerance{1e-2, 0, "softmax bf16: abs 1e-2"};
        cases.push_back(std::move(c));
      }
    }
  }
}

void addCopyCases(std::vector<Case> &cases) {
  const int64_t rows = 7;
  for (DType t : {DType::F16, DType::BF16, DType::I16}) {
    // Masks with holes: a word may have one element on, either one.
    for (auto [cols, warps] : {std::pair<int64_t, int>{64, 1},
                               {100, 1},
                               {781, 1},
                               {781, 2},
                               {4097, 4}}) {
      // Output rows on an odd stride start mid-word on the same rows as the
      // input's; on an even one, all on a word (lead 0) or all mid-word
      // (lead 2) while the input's alternate.
      for (auto [lead, outEven] :
           {std::pair<int, bool>{0, false}, {2, false}, {0, true}, {2, true}}) {
        const int64_t inStride = cols | 1;
        const int64_t outStride = inStride + (outEven ? 1 : 2);
        Case c{"word_pairs_holes_" + suffix(t) + "_n" + std::to_string(cols) +
                   "_w" + std::to_string(warps) + (lead ? "_lead2" : "") +
                   (outEven ? "_out_even" : ""),
               {"load", "store"},
               copyWithHoles()};
        c.buffers = {{t, values(t, rows * inStride, unsigned(cols)), lead},
                     {t, sentinel(rows * outStride), lead}};
        c.args = {bufArg(0),
                  bufArg(1),
                  i32Arg(int32_t(inStride)),
                  i32Arg(int32_t(outStride)),
                  i32Arg(int32_t(cols)),
                  constArg(next_power_of_2(cols))};
        c.grid = {int(rows)};
        c.numWarps = warps;
        c.reference = [=](Buffers &b) {
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t k = 0; k < cols; ++k)
              if (k % 5 != 2)
                b[1][r * outStride + k] =
                    k % 3 != 1 ? b[0][r * inStride + k] : -7.0;
        };
        cases.push_back(std::move(c));
      }
    }
    // In place, each iteration reading what the last one stored.
    for (int64_t cols : {100, 781}) {
      const int64_t stride = cols | 1;
      const int32_t iterations = 5;
      Case c{"word_pairs_increment_" + suffix(t) + "_n" + std::to_string(cols),
             {"load", "store"},
             incrementWithHoles()};
      c.buffers = {
          {t, ints(DType::I16, rows * stride, unsigned(cols), 100), 2}};
      c.args = {bufArg(0), i32Arg(int32_t(stride)), i32Arg(int32_t(cols)),
                i32Arg(iterations), constArg(next_power_of_2(cols))};
      c.grid = {int(rows)};
      c.numWarps = 1;
      c.reference = [=](Buffers &b) {
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t k = 0; k < cols; ++k)
            if (k % 3 != 1)
              b[0][r * stride + k] += iterations;
      };
      cases.push_back(std::move(c));
    }
    // No mask: the last lane's last word must stop at the block's end.
    for (auto [block, warps] :
         {std::pair<int64_t, int>{64, 1}, {128, 1}, {1024, 1}, {1024, 4}}) {
      const int64_t inStride = block + 1, outStride = block + 3;
      Case c{"word_pairs_unmasked_" + suffix(t) + "_n" + std::to_string(block) +
                 "_w" + std::to_string(warps),
             {"load", "store"},
             copyUnmasked()};
      c.buffers = {{t, values(t, rows * inStride, unsigned(block))},
                   {t, sentinel(rows * outStride)}};
      c.args = {bufArg(0), bufArg(1), i32Arg(int32_t(inStride)),
                i32Arg(int32_t(outStride)), constArg(block)};
      c.grid = {int(rows)};
      c.numWarps = warps;
      c.reference = [=](Buffers &b) {
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t k = 0; k < block; ++k)
            b[1][r * outStride + k] = b[0][r * inStride + k];
      };
      cases.push_back(std::move(c));
    }
  }
}

} // namespace

void addWordPairsCases(std::vector<Case> &cases) {
  addSoftmaxCases(cases);
  addCopyCases(cases);
}

} // namespace blockjit::difftest
