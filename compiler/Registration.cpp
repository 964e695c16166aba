//===- Registration.cpp - dialects and passes every blockjit tool knows --===//
#include "compiler/Registration.h"
#include "compiler/Passes.h"
#include "compiler/Pipeline.h"

#include "dialect/BlkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace blockjit {

void registerDialects(mlir::DialectRegistry &registry) {
  registry.insert<blk::BlkDialect, mlir::arith::ArithDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
                  mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect,
                  mlir::math::MathDialect, mlir::scf::SCFDialect,
                  mlir::tensor::TensorDialect, mlir::memref::MemRefDialect>();
}

void registerPasses() {
  mlir::registerTransformsPasses();
  registerBlockjitPasses();
  // The JIT's own stage lists, runnable as one pipeline each.
  static mlir::PassPipelineRegistration<> cpu(
      "blockjit-cpu-pipeline", "every MLIR stage of the CPU backend",
      [](mlir::OpPassManager &pm) {
        buildMLIRPipeline(pm, PipelineOptions{Backend::CPU});
      });
  static mlir::PassPipelineRegistration<> gpu(
      "blockjit-gpu-pipeline", "every MLIR stage of the GPU backend",
      [](mlir::OpPassManager &pm) {
        buildMLIRPipeline(pm, PipelineOptions{Backend::GPU});
      });
}

} // namespace blockjit
