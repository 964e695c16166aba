//===- Registration.h - dialects and passes every blockjit tool knows ----===//
#ifndef BLOCKJIT_COMPILER_REGISTRATION_H
#define BLOCKJIT_COMPILER_REGISTRATION_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace blockjit {

/// blk and every upstream dialect the pipelines produce or consume, with the
/// interfaces (LLVM translation, bufferization) they need.
void registerDialects(mlir::DialectRegistry &registry);

/// blockjit's own passes plus the upstream ones the pipelines use, so that
/// `blockjit-opt` can run any stage of a pipeline on its own.
void registerPasses();

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_REGISTRATION_H
