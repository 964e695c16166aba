//===- Backend.h - a target's whole stage list, trace to binary -*- C++ -*-===//
//
// A backend owns everything that makes one target's artifact: its ordered
// stages (MLIR pass groups, then LLVM IR, then machine code), its LLVM
// target machine, the format of what it produces and its fingerprint. The
// JIT (compileModule), blockjit-opt (the MLIR stages as one pipeline) and
// blockjit-dump (any stage by name) all read the same list, so a stage seen
// in a dump is exactly what the JIT ran. The lists themselves read top to
// bottom in compiler/cpu/CPUBackend.cpp and compiler/gpu/CUDABackend.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_COMPILER_BACKEND_H
#define BLOCKJIT_COMPILER_BACKEND_H

#include "compiler/Artifact.h"
#include "compiler/Specialization.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace blockjit {

class Backend;

/// One compilation in flight: what the stages read and fill in, in order.
struct Compilation {
  Compilation(mlir::ModuleOp module, const CompileOptions &options,
              const Backend &backend);
  ~Compilation();

  mlir::ModuleOp module; // changed in place by the MLIR stages
  const CompileOptions &options;
  const Backend &backend;
  /// Set by the "llvmir" stage.
  std::unique_ptr<llvm::LLVMContext> llvmContext;
  std::unique_ptr<llvm::Module> llvmModule;
  /// Filled in by the stages; complete after the last one.
  CompiledArtifact artifact;
};

/// One named stage. An MLIR stage adds passes that run on the module; any
/// other stage runs a step on the compilation (translate to LLVM IR, emit
/// PTX, assemble a cubin, ...).
struct Stage {
  const char *name;
  const char *description;
  /// MLIR stages: the pass group. Null for the stages after MLIR.
  void (*addPasses)(mlir::OpPassManager &pm, const CompileOptions &options);
  /// Stages after MLIR: the step.
  llvm::Error (*run)(Compilation &compilation);
  /// Stages after MLIR: their output as text, asked for only by dumps (an
  /// MLIR stage prints the module).
  llvm::Expected<std::string> (*print)(Compilation &compilation);

  bool isMLIR() const { return addPasses != nullptr; }
};

/// A compilation target: CPU (host code) or CUDA (PTX and cubins).
class Backend {
public:
  virtual ~Backend() = default;
  virtual TargetKind kind() const = 0;
  /// "cpu" or "cuda", as blockjit-dump's --target spells it.
  virtual llvm::StringRef name() const = 0;
  /// Every stage, in order, from the traced IR to the artifact; the first
  /// is "blk".
  virtual llvm::ArrayRef<Stage> stages() const = 0;
  /// Options this backend cannot compile for (say, an unknown sm arch), found
  /// before any work.
  virtual llvm::Error checkOptions(const CompileOptions &options) const = 0;
  /// The LLVM target machine code is optimized and generated for.
  virtual llvm::Expected<llvm::TargetMachine &>
  targetMachine(const CompileOptions &options) const = 0;
  /// What this backend's artifacts depend on besides the IR, the options,
  /// blockjit's sources and LLVM (the host CPU, the ptxas version...), as
  /// lines of text for the disk cache key.
  virtual std::string fingerprint(const CompileOptions &options) const = 0;
};

/// The backend of a target kind (process-wide singletons).
const Backend &backendFor(TargetKind kind);

/// The stage names of a backend, in order.
std::vector<std::string> stageNames(const Backend &backend);

//===- Stages every backend shares ---------------------------------------===//

/// "blk": kernel checks, i64 offsets, canonicalize, CSE, LICM.
void addBlkStagePasses(mlir::OpPassManager &pm, const CompileOptions &options);

/// "llvmir": the LLVM dialect module translated to LLVM IR and optimized at
/// -O3 for the backend's target machine.
extern const Stage kLLVMIRStage;

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_BACKEND_H
