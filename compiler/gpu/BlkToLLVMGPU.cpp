//===- BlkToLLVMGPU.cpp - per-thread kernels to the LLVM dialect (NVVM) --===//
#include "compiler/BlkToLLVMCommon.h"
#include "compiler/MathLowering.h"
#include "compiler/Passes.h"
#include "compiler/Specialization.h"
#include "compiler/gpu/Layout.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

namespace blockjit {
#define GEN_PASS_DEF_CONVERTBLKTOLLVMGPU
#include "compiler/Passes.h.inc"
} // namespace blockjit

using namespace mlir;
using namespace blockjit;

namespace {

struct ConvertBlkToLLVMGPU
    : blockjit::impl::ConvertBlkToLLVMGPUBase<ConvertBlkToLLVMGPU> {
  using ConvertBlkToLLVMGPUBase::ConvertBlkToLLVMGPUBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    if (llvm::Error error = checkMaxRegisters(maxRegisters)) {
      module.emitError() << llvm::toString(std::move(error));
      return signalPassFailure();
    }
    auto warps = module->getAttrOfType<IntegerAttr>(kNumWarpsAttr);
    if (!warps) {
      module.emitError() << "run blk-assign-layouts first (no " << kNumWarpsAttr
                         << " on the module)";
      return signalPassFailure();
    }
    SmallVector<std::string> kernels;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        kernels.push_back(func.getName().str());
    if (failed(lowerMathForTarget(module, MathTarget::NVPTX)))
      return signalPassFailure();
    if (failed(lowerSCFToControlFlow(module)))
      return signalPassFailure();
    LowerToLLVMOptions options(context);
    LLVMTypeConverter converter(context, options);
    addBlkTypeConversions(converter, /*addressSpace=*/1);
    RewritePatternSet patterns(context);
    populateBlkToLLVMCommonPatterns(converter, patterns);
    LLVMConversionTarget target(*context);
    target.addLegalOp<ModuleOp>();
    target.addLegalDialect<NVVM::NVVMDialect>();
    target.addLegalOp<UnrealizedConversionCastOp>();
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    // The lowering's !blk.ptr -> !llvm.ptr<1> casts now cancel out.
    SmallVector<UnrealizedConversionCastOp> casts;
    module.walk([&](UnrealizedConversionCastOp op) { casts.push_back(op); });
    reconcileUnrealizedCasts(casts);
    // The CTA's threads: those of each program sharing it.
    auto threads = int32_t(threadsPerCTAOf(module));
    for (const std::string &name : kernels) {
      auto kernel = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
      if (!kernel) {
        module.emitError() << "kernel '" << name
                           << "' could not be lowered to an LLVM function";
        return signalPassFailure();
      }
      kernel->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(),
                      UnitAttr::get(context));
      kernel->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(),
                      DenseI32ArrayAttr::get(context, {threads, 1, 1}));
      if (maxRegisters > 0)
        kernel->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                        IntegerAttr::get(IntegerType::get(context, 32),
                                         int32_t(maxRegisters)));
      // No nvvm.cluster_dim for a program on a cluster: the launch names
      // the cluster (the runtime reads blkgpu.num_ctas into the artifact);
      // kernels with .reqnctapercluster do not launch under compute-sanitizer.
    }
  }
};

} // namespace
