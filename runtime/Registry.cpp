//===- Registry.cpp - kernels that tools can find by name ----------------===//
#include "runtime/Registry.h"

#include <map>
#include <mutex>

namespace blockjit {
namespace {
struct Registry {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<RegisteredKernel>, std::less<>> kernels;
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

} // namespace blockjit
