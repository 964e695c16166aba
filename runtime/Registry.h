//===- Registry.h - kernels that tools can find by name --------*- C++ -*-===//
#ifndef BLOCKJIT_RUNTIME_REGISTRY_H
#define BLOCKJIT_RUNTIME_REGISTRY_H

#include "compiler/Specialization.h"
#include "frontend/Kernel.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace blockjit {

class Autotuner;
class Operation;

/// The knobs a tool (blockjit-dump, benchmarks) sets on a registered kernel.
struct ExampleConfig {
  int64_t blockSize = 1024;
  DType dtype = DType::F32;
  CompileOptions options;
};

struct RegisteredKernel {
  std::string name;
  std::string description;
  std::shared_ptr<KernelDef> kernel;
  /// The specialization key a tool should use for `config`.
  std::function<SpecializationKey(const ExampleConfig &)> exampleKey;
  /// The kernel's autotuner, if it has one (launches with autotuning on in
  /// the C ABI use it).
  Autotuner &(*tuner)() = nullptr;
};

/// Adds `kernel` to the process-wide registry (names are unique; a second
/// registration of a name replaces the first).
void registerKernel(RegisteredKernel kernel);
const RegisteredKernel *findKernel(llvm::StringRef name);
std::vector<const RegisteredKernel *> registeredKernels();

/// Registers a kernel from a static initializer.
struct KernelRegistration {
  explicit KernelRegistration(RegisteredKernel kernel) {
    registerKernel(std::move(kernel));
  }
};

/// An operation (runtime/Operation.h: one computation, several algorithms,
/// the faster chosen) that the C ABI launches by name, as it does kernels.
struct RegisteredOperation {
  std::string name;
  std::string description;
  Operation &(*operation)() = nullptr;
};

/// Adds `operation` to the process-wide registry of operations (names are
/// unique among kernels and operations; a second registration of a name
/// replaces the first).
void registerOperation(RegisteredOperation operation);
const RegisteredOperation *findOperation(llvm::StringRef name);
std::vector<const RegisteredOperation *> registeredOperations();

/// Registers an operation from a static initializer.
struct OperationRegistration {
  explicit OperationRegistration(RegisteredOperation operation) {
    registerOperation(std::move(operation));
  }
};

} // namespace blockjit

#endif // BLOCKJIT_RUNTIME_REGISTRY_H
