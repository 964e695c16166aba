//===- ArgFacts.h - what a specialization knows of an argument -*- C++ -*-===//
//
// A kernel is compiled for facts about its runtime arguments' values, one
// byte each (SpecializationKey::divisibility): the largest power of two up
// to 16 dividing a pointer or integer, or for an integer, that it is 0. The
// runtime derives them from each launch's values, the frontend traces with
// them (blk.divisibility attributes, constant zeros), the GPU lowering sizes
// vector accesses from them.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_DIALECT_ARGFACTS_H
#define BLOCKJIT_DIALECT_ARGFACTS_H

#include <algorithm>
#include <cstdint>

namespace blockjit {

/// The largest power of two dividing `value`, at most 16 (the widest
/// vector access); 0 is divisible by anything. Specializing on 2, 4 and 8
/// as well as Triton's 16 keeps vector accesses for row lengths such as 5000.
inline constexpr unsigned kMaxDivisibility = 16;
inline uint8_t divisibilityOf(uint64_t value) {
  uint64_t lowest = value & (~value + 1);
  return uint8_t(value == 0 || lowest >= kMaxDivisibility ? kMaxDivisibility
                                                          : lowest);
}

/// An integer argument's fact in SpecializationKey::divisibility: 0 when the
/// value is 0 (the kernel is traced with the constant: a broadcast stride of
/// 0 makes the loads through it loop-invariant, so they are hoisted out of a
/// persistent loop and kept on chip), else divisibilityOf(value). Triton
/// specializes integers equal to 1 the same way.
inline constexpr uint8_t kIsZero = 0;
inline uint8_t integerFactOf(int64_t value) {
  return value == 0 ? kIsZero : divisibilityOf(uint64_t(value));
}

/// The values [low, high] an integer argument is known to lie in
/// (SpecializationKey::ranges); low > high: nothing known.
struct IntRange {
  int64_t low = 1, high = 0;
  bool known() const { return low <= high; }
  bool contains(int64_t value) const { return low <= value && value <= high; }
  bool operator==(const IntRange &) const = default;
};

/// The range a positive integer the kernel compares with a block (a mask
/// bound such as softmax's n_cols) is specialized on: the octave
/// (2^k, 2^(k+1)] holding the value (the row lengths one 2^(k+1)-wide
/// block serves) cut in eight ranges (high - width, high], width 2^(k-3)
/// or the value's divisibility `divisor` if larger (then the range is the
/// value), taken from the first multiple of `divisor`; none where the
/// range would pass `maxValue`, the argument type's largest value (a clamp
/// constant must fit the type). Knowing n_cols in
/// [11280, 12288] tells a 16384-wide block which of each thread's vectors
/// are all in the row, all past it or both, so the masked quarter is
/// neither loaded nor computed; eight ranges an octave bound how many
/// kernels a kernel with varying row lengths compiles.
inline IntRange maskBoundRangeOf(int64_t value, uint8_t divisor,
                                 int64_t maxValue) {
  if (value <= 0 || divisor == kIsZero || value > maxValue)
    return {};
  int k = value > 1 ? 63 - __builtin_clzll(uint64_t(value - 1)) : 0;
  int64_t width = std::max<int64_t>(int64_t(1) << std::max(0, k - 3), divisor);
  // value + width - 1 may pass maxValue (and INT64_MAX): no range there.
  if (value - 1 > maxValue - width)
    return {};
  int64_t high = (value + width - 1) / width * width;
  // high and width are multiples of divisor: the first one above
  // high - width.
  return {high - width + divisor, high};
}

} // namespace blockjit

#endif // BLOCKJIT_DIALECT_ARGFACTS_H
