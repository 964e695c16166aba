//===- BlkToLLVMCPU.cpp - loop-level kernels to the LLVM dialect (host) --===//
#include "compiler/BlkToLLVMCommon.h"
#include "compiler/MathLowering.h"
#include "compiler/Passes.h"
#include "compiler/cpu/EntryABI.h"

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

using cpu::kGridValues;

/// A memref<?xi8> parameter becomes five: allocated and aligned pointers,
/// offset, size, stride.
constexpr unsigned kArenaDescriptorValues = 5;

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

/// `@k_blockjit_entry(ptr args, ptr grid, ptr scratch, i64 begin, i64 end)`
/// (see compiler/cpu/EntryABI.h): loads every argument through args[i] (a
/// pointer to the value) and the three program counts once, passes the
/// scratch arena of `scratchBytes` bytes (if the kernel uses one), then
/// calls @k for programs begin..end-1, advancing x, then y, then z.
void addEntryPoint(ModuleOp module, LLVM::LLVMFuncOp kernel,
                   std::optional<int64_t> scratchBytes) {
  MLIRContext *context = module.getContext();
  OpBuilder b(context);
  b.setInsertionPointToEnd(module.getBody());
  Location loc = kernel.getLoc();
  auto ptrType = LLVM::LLVMPointerType::get(context);
  auto i32 = b.getI32Type();
  auto i64 = b.getI64Type();
  auto entry = LLVM::LLVMFuncOp::create(
      b, loc, (kernel.getName() + cpu::kEntrySuffix).str(),
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context),
                                  {ptrType, ptrType, ptrType, i64, i64}));
  Block *body = entry.addEntryBlock(b);
  b.setInsertionPointToStart(body);
  Value args = body->getArgument(0), grid = body->getArgument(1),
        scratch = body->getArgument(2), begin = body->getArgument(3),
        end = body->getArgument(4);
  auto constant = [&](Type type, int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, v));
  };
  SmallVector<Value> callArgs;
  unsigned numParams = kernel.getNumArguments() - kGridValues -
                       (scratchBytes ? kArenaDescriptorValues : 0);
  for (unsigned i = 0; i < numParams; ++i) {
    Value slot = LLVM::GEPOp::create(b, loc, ptrType, ptrType, args,
                                     ArrayRef<LLVM::GEPArg>{int32_t(i)});
    Value valuePtr = LLVM::LoadOp::create(b, loc, ptrType, slot);
    callArgs.push_back(
        LLVM::LoadOp::create(b, loc, kernel.getArgumentTypes()[i], valuePtr));
  }
  if (scratchBytes)
    callArgs.append({scratch, scratch, constant(i64, 0),
                     constant(i64, *scratchBytes), constant(i64, 1)});
  SmallVector<Value> counts;
  for (unsigned i = 0; i < cpu::kGridCounts; ++i) {
    Value slot = LLVM::GEPOp::create(b, loc, ptrType, i32, grid,
                                     ArrayRef<LLVM::GEPArg>{int32_t(i)});
    counts.push_back(LLVM::LoadOp::create(b, loc, i32, slot));
  }
  // The first program's ids, by division once.
  Value countX = LLVM::SExtOp::create(b, loc, i64, counts[0]);
  Value countY = LLVM::SExtOp::create(b, loc, i64, counts[1]);
  Value rowsOfX = LLVM::SDivOp::create(b, loc, begin, countX);
  Value x0 = LLVM::SRemOp::create(b, loc, begin, countX);
  Value y0 = LLVM::SRemOp::create(b, loc, rowsOfX, countY);
  Value z0 = LLVM::SDivOp::create(b, loc, rowsOfX, countY);
  auto narrow = [&](Value v) -> Value {
    return LLVM::TruncOp::create(b, loc, i32, v);
  };
  // loop(index, x, y, z): index < end ? call, advance : return.
  Block *loop = entry.addBlock();
  Block *call = entry.addBlock();
  Block *exit = entry.addBlock();
  for (Type type : {Type(i64), Type(i32), Type(i32), Type(i32)})
    loop->addArgument(type, loc);
  LLVM::BrOp::create(
      b, loc, ValueRange{begin, narrow(x0), narrow(y0), narrow(z0)}, loop);
  b.setInsertionPointToStart(loop);
  Value index = loop->getArgument(0), x = loop->getArgument(1),
        y = loop->getArgument(2), z = loop->getArgument(3);
  Value more =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::slt, index, end);
  LLVM::CondBrOp::create(b, loc, more, call, exit);
  b.setInsertionPointToStart(call);
  SmallVector<Value> programArgs(callArgs);
  programArgs.append({x, y, z, counts[0], counts[1], counts[2]});
  LLVM::CallOp::create(b, loc, kernel, programArgs);
  Value one = constant(i32, 1), zero = constant(i32, 0);
  Value nextX = LLVM::AddOp::create(b, loc, x, one);
  Value wrapX =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, nextX, counts[0]);
  nextX = LLVM::SelectOp::create(b, loc, wrapX, zero, nextX);
  Value nextY =
      LLVM::AddOp::create(b, loc, y, LLVM::ZExtOp::create(b, loc, i32, wrapX));
  Value wrapY =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, nextY, counts[1]);
  nextY = LLVM::SelectOp::create(b, loc, wrapY, zero, nextY);
  Value nextZ =
      LLVM::AddOp::create(b, loc, z, LLVM::ZExtOp::create(b, loc, i32, wrapY));
  Value nextIndex = LLVM::AddOp::create(b, loc, index, constant(i64, 1));
  LLVM::BrOp::create(b, loc, ValueRange{nextIndex, nextX, nextY, nextZ}, loop);
  b.setInsertionPointToStart(exit);
  LLVM::ReturnOp::create(b, loc, ValueRange{});
  // The kernel body is only reached through the entry point: inline it there.
  kernel.setLinkage(LLVM::Linkage::Internal);
  kernel.setAlwaysInline(true);
}

struct ConvertBlkToLLVMCPU
    : blockjit::impl::ConvertBlkToLLVMCPUBase<ConvertBlkToLLVMCPU> {
  using ConvertBlkToLLVMCPUBase::ConvertBlkToLLVMCPUBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    // Each kernel, with the size of its scratch arena if it has one.
    SmallVector<std::pair<std::string, std::optional<int64_t>>> kernels;
    int64_t moduleScratch = 0;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      std::optional<int64_t> scratch;
      if (auto attr = func->getAttrOfType<IntegerAttr>(cpu::kScratchBytesAttr))
        scratch = attr.getInt();
      moduleScratch = std::max(moduleScratch, scratch.value_or(0));
      kernels.push_back({func.getName().str(), scratch});
      addGridParameters(func);
    }
    // The runtime reads the arena size from the module (see Compile.cpp).
    if (moduleScratch)
      module->setAttr(cpu::kScratchBytesAttr,
                      Builder(context).getI64IntegerAttr(moduleScratch));

    if (failed(lowerMathForTarget(module, MathTarget::Host, scalef)))
      return signalPassFailure();
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
    // The loops stage's scf.for annotations reach the loop back edges as a
    // discardable attribute, which the translation to LLVM IR ignores: make
    // them the branches' own loop_annotation (!llvm.loop metadata).
    module.walk([](LLVM::BrOp branch) {
      if (auto annotation = branch->getAttrOfType<LLVM::LoopAnnotationAttr>(
              "llvm.loop_annotation")) {
        branch->removeAttr("llvm.loop_annotation");
        branch.setLoopAnnotationAttr(annotation);
      }
    });

    for (const auto &[name, scratch] : kernels) {
      auto kernel = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
      if (!kernel) {
        module.emitError() << "kernel '" << name
                           << "' could not be lowered to an LLVM function";
        return signalPassFailure();
      }
      addEntryPoint(module, kernel, scratch);
      if (preferVectorWidth > 0)
        for (const std::string &symbol : {name, name + cpu::kEntrySuffix})
          if (auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(symbol))
            func.setPreferVectorWidth(std::to_string(preferVectorWidth));
    }
  }
};

} // namespace
