//===- cpu_softmax_reference.h - the hand-written C++ softmax --*- C++ -*-===//
#ifndef BLOCKJIT_BENCH_CPU_SOFTMAX_REFERENCE_H
#define BLOCKJIT_BENCH_CPU_SOFTMAX_REFERENCE_H

#include <cstdint>

/// Row-wise softmax of a rows x cols row-major matrix, on `threads` threads
/// (a std::thread each per call when more than one).
extern "C" void reference_softmax(const float *in, float *out, int64_t rows,
                                  int64_t cols, int32_t threads);

#endif // BLOCKJIT_BENCH_CPU_SOFTMAX_REFERENCE_H
