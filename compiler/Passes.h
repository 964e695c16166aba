//===- Passes.h - blockjit's own passes ------------------------*- C++ -*-===//
#ifndef BLOCKJIT_COMPILER_PASSES_H
#define BLOCKJIT_COMPILER_PASSES_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace blockjit {

#define GEN_PASS_DECL
#include "compiler/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/Passes.h.inc"

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_PASSES_H
