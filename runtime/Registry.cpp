//===- Registry.cpp - kernels that tools can find by name ----------------===//
#include "runtime/Registry.h"

#include <map>
#include <mutex>

namespace blockjit {
namespace {
struct Registry {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<RegisteredKernel>, std::less<>> kernels;
  std::map<std::string, std::unique_ptr<RegisteredOperation>, std::less<>>
      operations;
};
Registry &registry() {
  static Registry instance;
  return instance;
}
} // namespace

void registerKernel(RegisteredKernel kernel) {
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  std::string name = kernel.name;
  r.kernels[name] = std::make_unique<RegisteredKernel>(std::move(kernel));
}

const RegisteredKernel *findKernel(llvm::StringRef name) {
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.kernels.find(std::string_view(name));
  return it == r.kernels.end() ? nullptr : it->second.get();
}

std::vector<const RegisteredKernel *> registeredKernels() {
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<const RegisteredKernel *> all;
  for (auto &[name, kernel] : r.kernels)
    all.push_back(kernel.get());
  return all;
}

void registerOperation(RegisteredOperation operation) {
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  std::string name = operation.name;
  r.operations[name] =
      std::make_unique<RegisteredOperation>(std::move(operation));
}

const RegisteredOperation *findOperation(llvm::StringRef name) {
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.operations.find(std::string_view(name));
  return it == r.operations.end() ? nullptr : it->second.get();
}

std::vector<const RegisteredOperation *> registeredOperations() {
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<const RegisteredOperation *> all;
  for (auto &[name, operation] : r.operations)
    all.push_back(operation.get());
  return all;
}

} // namespace blockjit
