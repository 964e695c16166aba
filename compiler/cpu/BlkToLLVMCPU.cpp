//===- BlkToLLVMCPU.cpp - loop-level kernels to the LLVM dialect (host) --===//
#include "compiler/BlkToLLVMCommon.h"
#include "compiler/Passes.h"

#include "dialect/BlkDialect.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace blockjit {
#define GEN_PASS_DEF_CONVERTBLKTOLLVMCPU
#include "compiler/Passes.h.inc"
} // namespace blockjit

using namespace mlir;
using namespace blockjit;

namespace {

constexpr unsigned kGridValues = 6; // program ids x,y,z; program counts x,y,z

/// Program ids and counts become six trailing i32 parameters.
void addGridParameters(func::FuncOp func) {
  Builder b(func.getContext());
  unsigned first = func.getNumArguments();
  SmallVector<Type> types(kGridValues, b.getI32Type());
  SmallVector<DictionaryAttr> attrs(kGridValues, b.getDictionaryAttr({}));
  SmallVector<Location> locs(kGridValues, func.getLoc());
  SmallVector<unsigned> positions(kGridValues, first);
  (void)func.insertArguments(positions, types, attrs, locs);
  func.walk([&](Operation *op) {
    if (auto pid = dyn_cast<blk::ProgramIdOp>(op)) {
      pid.replaceAllUsesWith(func.getArgument(first + pid.getAxis()));
      pid.erase();
    } else if (auto n = dyn_cast<blk::NumProgramsOp>(op)) {
      n.replaceAllUsesWith(func.getArgument(first + 3 + n.getAxis()));
      n.erase();
    }
  });
}

/// `@k_blockjit_entry(ptr args, ptr grid)`: loads every argument through
/// args[i] (a pointer to the value) and the grid values, then calls @k.
void addEntryPoint(ModuleOp module, LLVM::LLVMFuncOp kernel) {
  MLIRContext *context = module.getContext();
  OpBuilder b(context);
  b.setInsertionPointToEnd(module.getBody());
  Location loc = kernel.getLoc();
  auto ptrType = LLVM::LLVMPointerType::get(context);
  auto i32 = b.getI32Type();
  auto entry = LLVM::LLVMFuncOp::create(
      b, loc, (kernel.getName() + kCPUEntrySuffix).str(),
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context),
                                  {ptrType, ptrType}));
  Block *body = entry.addEntryBlock(b);
  b.setInsertionPointToStart(body);
  Value args = body->getArgument(0), grid = body->getArgument(1);
  SmallVector<Value> callArgs;
  unsigned numParams = kernel.getNumArguments() - kGridValues;
  for (unsigned i = 0; i < numParams; ++i) {
    Value slot = LLVM::GEPOp::create(b, loc, ptrType, ptrType, args,
                                     ArrayRef<LLVM::GEPArg>{int32_t(i)});
    Value valuePtr = LLVM::LoadOp::create(b, loc, ptrType, slot);
    callArgs.push_back(
        LLVM::LoadOp::create(b, loc, kernel.getArgumentTypes()[i], valuePtr));
  }
  for (unsigned i = 0; i < kGridValues; ++i) {
    Value slot = LLVM::GEPOp::create(b, loc, ptrType, i32, grid,
                                     ArrayRef<LLVM::GEPArg>{int32_t(i)});
    callArgs.push_back(LLVM::LoadOp::create(b, loc, i32, slot));
  }
  LLVM::CallOp::create(b, loc, kernel, callArgs);
  LLVM::ReturnOp::create(b, loc, ValueRange{});
  // The kernel body is only reached through the entry point: inline it there.
  kernel.setLinkage(LLVM::Linkage::Internal);
  kernel.setAlwaysInline(true);
}

struct ConvertBlkToLLVMCPU
    : blockjit::impl::ConvertBlkToLLVMCPUBase<ConvertBlkToLLVMCPU> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    SmallVector<std::string> kernels;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      kernels.push_back(func.getName().str());
      addGridParameters(func);
    }

    // Polynomial approximations vectorize; libm calls would not.
    {
      RewritePatternSet patterns(context);
      populateMathF32ExpansionPatterns(patterns,
                                       [](StringRef) { return true; });
      populateMathPolynomialApproximationPatterns(
          patterns, [](StringRef) { return true; });
      if (failed(applyPatternsGreedily(module, std::move(patterns))))
        return signalPassFailure();
    }
    if (failed(lowerSCFToControlFlow(module)))
      return signalPassFailure();

    LowerToLLVMOptions options(context);
    LLVMTypeConverter converter(context, options);
    addBlkTypeConversions(converter);
    RewritePatternSet patterns(context);
    populateBlkToLLVMCommonPatterns(converter, patterns);
    populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns);
    LLVMConversionTarget target(*context);
    target.addLegalOp<ModuleOp>();
    if (failed(applyFullConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    for (const std::string &name : kernels) {
      auto kernel = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
      if (!kernel) {
        module.emitError() << "kernel '" << name
                           << "' could not be lowered to an LLVM function";
        return signalPassFailure();
      }
      addEntryPoint(module, kernel);
    }
  }
};

} // namespace
