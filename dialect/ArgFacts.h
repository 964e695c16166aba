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

} // namespace blockjit

#endif // BLOCKJIT_DIALECT_ARGFACTS_H
