//===- Kernel.cpp - specialization keys and tracing a kernel body --------===//
#include "frontend/Kernel.h"
#include "frontend/TraceContext.h"

#include "dialect/BlkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace blockjit {

std::string Target::str() const {
  if (kind == TargetKind::CPU)
    return "cpu";
  return "cuda:sm_" + std::to_string(smArch);
}

size_t SpecializationKey::hash() const {
  return llvm::hash_combine(
      llvm::hash_combine_range(argTypes.begin(), argTypes.end()),
      llvm::hash_combine_range(constexprs.begin(), constexprs.end()),
      divisibleBy16, numWarps, numStages, target.kind, target.smArch);
}

size_t KernelDef::numRuntimeParams() const {
  size_t n = 0;
  for (const ParamInfo &p : params_)
    n += p.kind != ParamKind::Constexpr;
  return n;
}

std::string KernelDef::keyString(const SpecializationKey &key) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << name_ << "[";
  llvm::interleave(
      key.argTypes, os, [&](DType t) { os << dtypeName(t); }, ",");
  os << "|";
  size_t c = 0;
  bool first = true;
  for (const ParamInfo &p : params_) {
    if (p.kind != ParamKind::Constexpr)
      continue;
    os << (first ? "" : ",") << p.name << "="
       << (c < key.constexprs.size() ? key.constexprs[c] : 0);
    ++c;
    first = false;
  }
  os << "|warps=" << key.numWarps << ",stages=" << key.numStages << "|div16=";
  first = true;
  for (size_t i = 0; i < key.argTypes.size(); ++i)
    if (key.divisibleBy16 >> i & 1) {
      os << (first ? "" : ",") << i;
      first = false;
    }
  os << "|" << key.target.str() << "]";
  return text;
}

std::string KernelDef::keyFileName(const SpecializationKey &key) const {
  std::string name = keyString(key);
  for (char &ch : name)
    if (!isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '-' &&
        ch != '=' && ch != ',' && ch != '.')
      ch = '_';
  return name;
}

llvm::Error KernelDef::checkKey(const SpecializationKey &key) const {
  auto error = [&](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   llvm::Twine("kernel '") + name_ +
                                       "': " + message);
  };
  size_t runtime = 0, constexprs = 0;
  for (const ParamInfo &p : params_) {
    if (p.kind == ParamKind::Constexpr) {
      ++constexprs;
      continue;
    }
    if (runtime >= key.argTypes.size())
      break;
    DType given = key.argTypes[runtime++];
    if (p.dtype && *p.dtype != given)
      return error(llvm::formatv(
          "argument '{0}' expects {1} {2}, got {3}", p.name,
          p.kind == ParamKind::Pointer ? "a pointer to" : "a scalar",
          dtypeName(*p.dtype), dtypeName(given)));
  }
  if (key.argTypes.size() != numRuntimeParams())
    return error(llvm::formatv("expects {0} runtime arguments, got {1}",
                               numRuntimeParams(), key.argTypes.size()));
  if (key.constexprs.size() != constexprs)
    return error(llvm::formatv("expects {0} constexpr values, got {1}",
                               constexprs, key.constexprs.size()));
  if (key.numWarps < 1 || key.numWarps > 32 ||
      (key.numWarps & (key.numWarps - 1)))
    return error(llvm::formatv("num_warps must be a power of two in 1..32, "
                               "got {0}",
                               key.numWarps));
  if (key.numStages < 1 || key.numStages > 8)
    return error(
        llvm::formatv("num_stages must be in 1..8, got {0}", key.numStages));
  return llvm::Error::success();
}

llvm::Expected<OwningOpRef<ModuleOp>>
KernelDef::trace(MLIRContext &context, const SpecializationKey &key) const {
  if (llvm::Error error = checkKey(key))
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
    Type element = toMLIRType(&context, key.argTypes[runtime++]);
    argTypes.push_back(p.kind == ParamKind::Pointer ? blk::PtrType::get(element)
                                                    : element);
  }
  auto func = func::FuncOp::create(builder, loc, name_,
                                   builder.getFunctionType(argTypes, {}));
  for (size_t i = 0; i < argTypes.size(); ++i)
    if (key.divisibleBy16 >> i & 1)
      func.setArgAttr(i, "blk.divisibility", builder.getI32IntegerAttr(16));
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToEnd(entry);

  std::vector<Tensor> runtimeArgs;
  for (BlockArgument arg : entry->getArguments())
    runtimeArgs.emplace_back(arg);
  {
    TraceContext trace(builder, name_);
    body_(runtimeArgs, key.constexprs);
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
      llvm::raw_string_ostream os(diagnostics);
      os << diag.getLocation() << ": " << diag.str() << "\n";
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
