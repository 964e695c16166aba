//===- blockjit.h - the blockjit DSL: everything a kernel author needs ---===//
//
//   #include "frontend/blockjit.h"
//   using namespace blockjit;
//
//   void add_kernel(Ptr<float> x, Ptr<float> y, Ptr<float> out, Int n,
//                   Constexpr BLOCK) {
//     Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
//     Tensor mask = offsets < n;
//     store(out + offsets, load(x + offsets, mask) + load(y + offsets, mask),
//           mask);
//   }
//   auto kernel = jit("add", add_kernel);
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_FRONTEND_BLOCKJIT_H
#define BLOCKJIT_FRONTEND_BLOCKJIT_H

#include "dialect/DType.h"
#include "frontend/Kernel.h"
#include "frontend/Tensor.h"

#endif // BLOCKJIT_FRONTEND_BLOCKJIT_H
