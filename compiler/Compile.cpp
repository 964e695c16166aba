//===- Compile.cpp - run a backend's stages, trace to artifact -----------===//
#include "compiler/Compile.h"
#include "compiler/Backend.h"
#include "dialect/BlkDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace blockjit {

namespace {

std::string printModule(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return text;
}

llvm::Error stageError(const Stage &stage, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 llvm::Twine("stage '") + stage.name +
                                     "' failed:\n" + message);
}

} // namespace

llvm::Expected<CompiledArtifact> compileModule(ModuleOp module,
                                               const CompileOptions &options,
                                               const DumpHook &dump,
                                               llvm::StringRef lastStage) {
  if (llvm::Error error = validate(options))
    return std::move(error);
  const Backend &backend = backendFor(options.target.kind);
  Compilation compilation(module, options, backend);
  for (auto func : module.getOps<func::FuncOp>())
    compilation.artifact.entryName = func.getName().str();

  // A failing pass would otherwise attach the whole module to its message.
  MLIRContext *context = module.getContext();
  context->printOpOnDiagnostic(false);
  std::string diagnostics;
  ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
    diagnostics += blk::describeDiagnostic(diag);
    return success();
  });

  for (const Stage &stage : backend.stages()) {
    if (stage.isMLIR()) {
      PassManager pm(context);
      stage.addPasses(pm, options);
      if (failed(pm.run(module)))
        return stageError(stage, diagnostics);
      if (dump)
        dump(stage.name, printModule(module));
    } else {
      if (llvm::Error error = stage.run(compilation))
        return stageError(stage, llvm::toString(std::move(error)));
      if (dump) {
        auto text = stage.print(compilation);
        if (!text)
          return stageError(stage, llvm::toString(text.takeError()));
        dump(stage.name, *text);
      }
    }
    if (lastStage == stage.name)
      break;
  }
  return std::move(compilation.artifact);
}

void buildMLIRPipeline(OpPassManager &pm, const CompileOptions &options) {
  for (const Stage &stage : backendFor(options.target.kind).stages())
    if (stage.isMLIR())
      stage.addPasses(pm, options);
}

} // namespace blockjit
