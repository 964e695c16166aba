//===- Kernel.cpp - kernel signatures and tracing a kernel body ----------===//
#include "frontend/Kernel.h"
#include "frontend/TraceContext.h"

#include "dialect/ArgFacts.h"
#include "dialect/BlkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;

namespace blockjit {

size_t KernelDef::numRuntimeParams() const {
  size_t n = 0;
  for (const ParamInfo &p : params_)
    n += p.kind != ParamKind::Constexpr;
  return n;
}

std::vector<std::string> KernelDef::constexprNames() const {
  std::vector<std::string> names;
  for (const ParamInfo &p : params_)
    if (p.kind == ParamKind::Constexpr)
      names.push_back(p.name);
  return names;
}

llvm::Error
KernelDef::checkTraceArgs(llvm::ArrayRef<DType> argTypes,
                          llvm::ArrayRef<int64_t> constexprs) const {
  auto error = [&](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   llvm::Twine("kernel '") + name_ +
                                       "': " + message);
  };
  size_t runtime = 0, numConstexprs = 0;
  for (const ParamInfo &p : params_) {
    if (p.kind == ParamKind::Constexpr) {
      ++numConstexprs;
      continue;
    }
    if (runtime >= argTypes.size())
      break;
    DType given = argTypes[runtime++];
    if (p.dtype && *p.dtype != given)
      return error(llvm::formatv(
          "argument '{0}' expects {1} {2}, got {3}", p.name,
          p.kind == ParamKind::Pointer ? "a pointer to" : "a scalar",
          dtypeName(*p.dtype), dtypeName(given)));
  }
  if (argTypes.size() != numRuntimeParams())
    return error(llvm::formatv("expects {0} runtime arguments, got {1}",
                               numRuntimeParams(), argTypes.size()));
  if (constexprs.size() != numConstexprs)
    return error(llvm::formatv("expects {0} constexpr values, got {1}",
                               numConstexprs, constexprs.size()));
  return llvm::Error::success();
}

/// maskBounds() per signature (argument types and constexprs).
struct KernelDef::MaskBoundCache {
  struct Entry {
    std::vector<DType> argTypes;
    std::vector<int64_t> constexprs;
    llvm::SmallVector<bool, 8> bounds;
  };
  std::mutex mutex;
  // A kernel is launched with few signatures: a scan, no allocation.
  std::vector<Entry> entries;
};

KernelDef::KernelDef(std::string name, std::vector<ParamInfo> params, Body body)
    : name_(std::move(name)), params_(std::move(params)),
      body_(std::move(body)),
      maskBoundCache_(std::make_shared<MaskBoundCache>()) {}

/// The function argument `value` is, looking through integer casts; null
/// if it is not one.
static BlockArgument argumentUnderCasts(Value value) {
  while (Operation *op = value.getDefiningOp()) {
    if (!isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp,
             arith::IndexCastOp>(op))
      return {};
    value = op->getOperand(0);
  }
  return dyn_cast<BlockArgument>(value);
}

llvm::Expected<llvm::SmallVector<bool, 8>>
KernelDef::maskBounds(llvm::ArrayRef<DType> argTypes,
                      llvm::ArrayRef<int64_t> constexprs) const {
  std::lock_guard<std::mutex> lock(maskBoundCache_->mutex);
  for (const MaskBoundCache::Entry &entry : maskBoundCache_->entries)
    if (llvm::ArrayRef(entry.argTypes) == argTypes &&
        llvm::ArrayRef(entry.constexprs) == constexprs)
      return entry.bounds;
  MLIRContext context(MLIRContext::Threading::DISABLED);
  llvm::SmallVector<bool, 8> bounds(argTypes.size(), false);
  auto remember = [&] {
    maskBoundCache_->entries.push_back(
        {std::vector<DType>(argTypes.begin(), argTypes.end()),
         std::vector<int64_t>(constexprs.begin(), constexprs.end()), bounds});
  };
  auto module = trace(context, argTypes, constexprs, {});
  if (!module) {
    // Said once; later calls find no bounds without tracing again.
    remember();
    return module.takeError();
  }
  (*module)->walk([&](arith::CmpIOp compare) {
    if (!blk::isBlock(compare.getLhs().getType()))
      return;
    for (Value operand : compare->getOperands())
      if (auto splat = operand.getDefiningOp<blk::SplatOp>())
        if (BlockArgument arg = argumentUnderCasts(splat.getSrc());
            arg && isa<func::FuncOp>(arg.getOwner()->getParentOp()) &&
            arg.getArgNumber() < bounds.size())
          bounds[arg.getArgNumber()] = true;
  });
  remember();
  return bounds;
}

/// `arg` clamped to `range` (the value itself when the range is one value).
static Value clampedArgument(OpBuilder &builder, Location loc,
                             BlockArgument arg, IntRange range) {
  Type type = arg.getType();
  if (range.low == range.high)
    return arith::ConstantIntOp::create(builder, loc, type, range.low);
  Value low = arith::ConstantIntOp::create(builder, loc, type, range.low);
  Value high = arith::ConstantIntOp::create(builder, loc, type, range.high);
  Value atLeastLow = arith::MaxSIOp::create(builder, loc, arg, low);
  return arith::MinSIOp::create(builder, loc, atLeastLow, high);
}

llvm::Expected<OwningOpRef<ModuleOp>>
KernelDef::trace(MLIRContext &context, llvm::ArrayRef<DType> argTypesIn,
                 llvm::ArrayRef<int64_t> constexprs,
                 llvm::ArrayRef<uint8_t> divisibility,
                 llvm::ArrayRef<IntRange> ranges) const {
  if (llvm::Error error = checkTraceArgs(argTypesIn, constexprs))
    return std::move(error);
  context.loadDialect<blk::BlkDialect, func::FuncDialect, arith::ArithDialect,
                      math::MathDialect, scf::SCFDialect>();
  OpBuilder builder(&context);
  Location loc = NameLoc::get(builder.getStringAttr(name_));
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());

  SmallVector<Type> argTypes;
  size_t runtime = 0;
  for (const ParamInfo &p : params_) {
    if (p.kind == ParamKind::Constexpr)
      continue;
    Type element = toMLIRType(&context, argTypesIn[runtime++]);
    argTypes.push_back(p.kind == ParamKind::Pointer ? blk::PtrType::get(element)
                                                    : element);
  }
  auto func = func::FuncOp::create(builder, loc, name_,
                                   builder.getFunctionType(argTypes, {}));
  for (size_t i = 0; i < argTypes.size() && i < divisibility.size(); ++i)
    if (divisibility[i] > 1)
      func.setArgAttr(i, "blk.divisibility",
                      builder.getI32IntegerAttr(divisibility[i]));
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToEnd(entry);

  // An integer specialized as 0 (kIsZero) is traced as the constant, so
  // what it multiplies folds away; the parameter stays in the signature.
  std::vector<Tensor> runtimeArgs;
  for (BlockArgument arg : entry->getArguments()) {
    size_t i = arg.getArgNumber();
    if (i < divisibility.size() && divisibility[i] == kIsZero &&
        isa<IntegerType>(arg.getType())) {
      runtimeArgs.emplace_back(
          arith::ConstantIntOp::create(builder, loc, arg.getType(), 0)
              .getResult());
    } else if (i < ranges.size() && ranges[i].known() &&
               isa<IntegerType>(arg.getType())) {
      // A mask bound known to lie in [low, high]: clamped, which changes no
      // value of the specialization's launches, its uses see the range
      // (LLVM folds each vector's mask that the range decides).
      runtimeArgs.emplace_back(clampedArgument(builder, loc, arg, ranges[i]));
    } else {
      runtimeArgs.emplace_back(arg);
    }
  }
  {
    TraceContext trace(builder, name_);
    body_(runtimeArgs, constexprs);
    if (trace.failed())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     *trace.error());
  }
  func::ReturnOp::create(builder, loc);

  // A body that passes the DSL's checks but builds invalid IR (a value used
  // outside the loop that defines it, say) is still the user's mistake.
  std::string diagnostics;
  {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      diagnostics += blk::describeDiagnostic(diag);
      return success();
    });
    if (failed(verify(*module)))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "kernel '" + name_ + "' traced to invalid IR:\n" + diagnostics);
  }
  return module;
}

} // namespace blockjit
