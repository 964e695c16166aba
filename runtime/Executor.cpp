//===- Executor.cpp - the executor of each target kind -------------------===//
#include "runtime/Executor.h"

#include "runtime/CPUExecutor.h"
#include "runtime/CudaExecutor.h"

namespace blockjit {

Executor &executorFor(TargetKind kind) {
  // Function-local statics: constructed on first use, so launches from
  // static initializers work too.
  switch (kind) {
  case TargetKind::CPU: {
    static CPUExecutor cpu;
    return cpu;
  }
  case TargetKind::CUDA: {
    static CudaExecutor cuda;
    return cuda;
  }
  }
  llvm_unreachable("every TargetKind has an executor");
}

} // namespace blockjit
