//===- TraceTestUtil.h - helpers for tests that trace DSL kernels -*- C++
//-*-===//
#ifndef BLOCKJIT_TESTS_UNIT_TRACETESTUTIL_H
#define BLOCKJIT_TESTS_UNIT_TRACETESTUTIL_H

#include "compiler/Specialization.h"
#include "dialect/BlkDialect.h"
#include "frontend/blockjit.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace blockjit::test {

inline SpecializationKey makeKey(std::vector<DType> argTypes,
                                 std::vector<int64_t> constexprs = {}) {
  SpecializationKey key;
  key.argTypes.assign(argTypes.begin(), argTypes.end());
  key.constexprs.assign(constexprs.begin(), constexprs.end());
  return key;
}

inline std::string str(mlir::Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

inline std::string str(mlir::Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

inline std::string str(mlir::Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << loc;
  return text;
}

inline bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

/// Every operation named `name` (e.g. "arith.addf") in `module`, in order.
inline std::vector<mlir::Operation *> opsNamed(mlir::ModuleOp module,
                                               llvm::StringRef name) {
  std::vector<mlir::Operation *> ops;
  module.walk([&](mlir::Operation *op) {
    if (op->getName().getStringRef() == name)
      ops.push_back(op);
  });
  return ops;
}

inline int count(mlir::ModuleOp module, llvm::StringRef name) {
  return int(opsNamed(module, name).size());
}

template <typename OpTy> std::vector<OpTy> opsOf(mlir::ModuleOp module) {
  std::vector<OpTy> ops;
  module.walk([&](OpTy op) { ops.push_back(op); });
  return ops;
}

/// Result type of the only op named `name`, or "" (with a test failure).
inline std::string onlyResultType(mlir::ModuleOp module, llvm::StringRef name) {
  auto ops = opsNamed(module, name);
  if (ops.size() != 1 || ops[0]->getNumResults() != 1) {
    ADD_FAILURE() << "expected one " << name.str() << " with one result, got "
                  << ops.size() << " ops in\n"
                  << str(module.getOperation());
    return "";
  }
  return str(ops[0]->getResult(0).getType());
}

class TraceFixture : public ::testing::Test {
protected:
  /// Traces `kernel`; a failed trace is a test failure and gives null.
  mlir::OwningOpRef<mlir::ModuleOp> traceOk(const KernelDef &kernel,
                                            const SpecializationKey &key) {
    auto module = kernel.trace(context, key.argTypes, key.constexprs,
                               key.divisibility, key.ranges);
    if (!module) {
      ADD_FAILURE() << "trace of " << kernel.name()
                    << " failed: " << llvm::toString(module.takeError());
      return {};
    }
    return std::move(*module);
  }

  /// Traces `kernel`, which must fail; the error's text.
  std::string traceError(const KernelDef &kernel,
                         const SpecializationKey &key) {
    auto module =
        kernel.trace(context, key.argTypes, key.constexprs, key.divisibility);
    if (module) {
      ADD_FAILURE() << "trace of " << kernel.name()
                    << " unexpectedly succeeded:\n"
                    << str(module->get().getOperation());
      return "";
    }
    return llvm::toString(module.takeError());
  }

  mlir::MLIRContext context;
};

} // namespace blockjit::test

#endif // BLOCKJIT_TESTS_UNIT_TRACETESTUTIL_H
