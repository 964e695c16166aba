//===- FamilyRegistration.h - registry entries of the family ----*- C++ -*-===//
//
// What the softmax family's kernels register (runtime/Registry.h): the
// example specialization blockjit-dump compiles is read off each kernel's
// signature, so that no kernel spells out its argument list twice.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_EXAMPLES_KERNELS_FAMILYREGISTRATION_H
#define BLOCKJIT_EXAMPLES_KERNELS_FAMILYREGISTRATION_H

#include "runtime/Registry.h"

#include "llvm/ADT/ArrayRef.h"

#include <memory>
#include <string>
#include <vector>

namespace blockjit::examples {

/// Every pointer of `c`'s dtype (unless its parameter fixes one), i32 and
/// f32 scalars as the parameters say; pointers, strides and n_cols 16-byte
/// aligned (the fast path, 16-byte vector accesses), n_rows and floats with
/// no fact; the Constexpr parameters take `constexprs` in order.
inline SpecializationKey familyExampleKey(const KernelDef &kernel,
                                          const ExampleConfig &c,
                                          llvm::ArrayRef<int64_t> constexprs) {
  SpecializationKey key;
  for (const ParamInfo &param : kernel.params()) {
    if (param.kind == ParamKind::Constexpr)
      continue;
    DType type = param.dtype.value_or(c.dtype);
    key.argTypes.push_back(type);
    bool noFact = param.name == "n_rows" ||
                  (param.kind == ParamKind::Scalar && isFloat(type));
    key.divisibility.push_back(noFact ? 1 : 16);
  }
  key.constexprs.assign(constexprs.begin(), constexprs.end());
  key.options = c.options;
  return key;
}

/// The registry entry of a row kernel, whose first Constexpr is BLOCK_SIZE;
/// any after it (layernorm's CHUNK_SIZE) default to 0.
inline RegisteredKernel rowKernelEntry(std::string name,
                                       std::string description,
                                       std::shared_ptr<KernelDef> kernel,
                                       Autotuner &(*tuner)()) {
  const KernelDef *def = kernel.get();
  return {std::move(name), std::move(description), std::move(kernel),
          [def](const ExampleConfig &c) {
            std::vector<int64_t> constexprs(def->constexprNames().size(), 0);
            constexprs.front() = c.blockSize;
            return familyExampleKey(*def, c, constexprs);
          },
          tuner};
}

} // namespace blockjit::examples

#endif // BLOCKJIT_EXAMPLES_KERNELS_FAMILYREGISTRATION_H
