//===- TraceContext.h - the kernel being traced (internal) -----*- C++ -*-===//
#ifndef BLOCKJIT_FRONTEND_TRACECONTEXT_H
#define BLOCKJIT_FRONTEND_TRACECONTEXT_H

#include "frontend/Tensor.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/Twine.h"

#include <optional>
#include <string>

namespace blockjit {

/// The state of one trace: where ops are inserted and the first user error.
/// Installed for the current thread while a kernel body runs.
class TraceContext {
public:
  TraceContext(mlir::OpBuilder &builder, std::string kernelName);
  ~TraceContext();
  TraceContext(const TraceContext &) = delete;
  TraceContext &operator=(const TraceContext &) = delete;

  /// The trace running on this thread, or null outside of one.
  static TraceContext *current();

  mlir::OpBuilder &builder() { return builder_; }
  mlir::Location location(const SourceLoc &loc);

  /// Records `message` at `loc` (only the first error is kept: later ones are
  /// usually consequences) and returns an invalid tensor.
  Tensor fail(const SourceLoc &loc, const llvm::Twine &message);
  bool failed() const { return error_.has_value(); }
  const std::optional<std::string> &error() const { return error_; }
  const std::string &kernelName() const { return kernelName_; }

private:
  mlir::OpBuilder &builder_;
  std::string kernelName_;
  std::optional<std::string> error_;
  TraceContext *previous_;
};

} // namespace blockjit

#endif // BLOCKJIT_FRONTEND_TRACECONTEXT_H
