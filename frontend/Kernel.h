//===- Kernel.h - kernel signatures and tracing ----------------*- C++ -*-===//
#ifndef BLOCKJIT_FRONTEND_KERNEL_H
#define BLOCKJIT_FRONTEND_KERNEL_H

#include "frontend/Tensor.h"

#include "dialect/ArgFacts.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace mlir {
class MLIRContext;
class ModuleOp;
template <typename OpTy> class OwningOpRef;
} // namespace mlir

namespace blockjit {

enum class ParamKind : uint8_t { Pointer, Scalar, Constexpr };

/// One parameter of a kernel's C++ signature.
struct ParamInfo {
  ParamKind kind;
  /// Element type for pointers and scalars; empty for `Ptr<AnyType>`, whose
  /// type comes from the launch argument.
  std::optional<DType> dtype;
  std::string name;
  /// Pointers: null is a valid argument (NullablePtr<T>).
  bool nullable = false;
};

class KernelDef;

/// A kernel as written: its name, C++ signature and body. Calling trace()
/// emits blk IR for one specialization.
class KernelDef {
public:
  using Body = std::function<void(const std::vector<Tensor> &runtimeArgs,
                                  llvm::ArrayRef<int64_t> constexprs)>;

  KernelDef(std::string name, std::vector<ParamInfo> params, Body body);

  const std::string &name() const { return name_; }
  const std::vector<ParamInfo> &params() const { return params_; }
  size_t numRuntimeParams() const;

  /// The names of the Constexpr parameters, in order.
  std::vector<std::string> constexprNames() const;

  /// Checks that runtime argument types `argTypes` (pointee types of
  /// pointers, types of scalars) and `constexprs` fit this signature.
  llvm::Error checkTraceArgs(llvm::ArrayRef<DType> argTypes,
                             llvm::ArrayRef<int64_t> constexprs) const;

  /// Traces the body into a new module holding one func.func named after the
  /// kernel, for runtime arguments of `argTypes`, Constexpr parameters of
  /// values `constexprs`, and runtime argument i known divisible by
  /// `divisibility[i]` (SpecializationKey::divisibility; missing or 1: no
  /// fact; kIsZero: an integer traced as the constant 0). User mistakes
  /// come back as errors naming the kernel and line.
  /// `ranges[i]`, where known, clamps integer argument i to that range
  /// (SpecializationKey::ranges), which tells the compiler the range.
  llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
  trace(mlir::MLIRContext &context, llvm::ArrayRef<DType> argTypes,
        llvm::ArrayRef<int64_t> constexprs,
        llvm::ArrayRef<uint8_t> divisibility,
        llvm::ArrayRef<IntRange> ranges = {}) const;

  /// Per runtime argument: whether it is a mask bound, an integer the body
  /// compares with a block (softmax's `cols < n_cols`), for runtime
  /// arguments of `argTypes` and these `constexprs`. Found by tracing once
  /// per signature and kept; a trace error comes back the first time (as
  /// trace() returns it), no bounds after that.
  llvm::Expected<llvm::SmallVector<bool, 8>>
  maskBounds(llvm::ArrayRef<DType> argTypes,
             llvm::ArrayRef<int64_t> constexprs) const;

private:
  std::string name_;
  std::vector<ParamInfo> params_;
  Body body_;
  struct MaskBoundCache;
  std::shared_ptr<MaskBoundCache> maskBoundCache_;
};

namespace detail {

template <typename P> struct ParamTraits;
template <typename T> struct ParamTraits<Ptr<T>> {
  static ParamInfo info() {
    if constexpr (std::is_same_v<T, AnyType>)
      return {ParamKind::Pointer, std::nullopt, {}};
    else
      return {ParamKind::Pointer, dtype_v<T>, {}};
  }
};
template <typename T> struct ParamTraits<NullablePtr<T>> {
  static ParamInfo info() {
    ParamInfo info = ParamTraits<Ptr<T>>::info();
    info.nullable = true;
    return info;
  }
};
template <> struct ParamTraits<Int> {
  static ParamInfo info() { return {ParamKind::Scalar, DType::I32, {}}; }
};
template <> struct ParamTraits<Int64> {
  static ParamInfo info() { return {ParamKind::Scalar, DType::I64, {}}; }
};
template <> struct ParamTraits<Float> {
  static ParamInfo info() { return {ParamKind::Scalar, DType::F32, {}}; }
};
template <> struct ParamTraits<Constexpr> {
  static ParamInfo info() { return {ParamKind::Constexpr, std::nullopt, {}}; }
};

/// Builds the I-th C++ argument from the traced runtime values and constexprs.
template <typename P> struct ArgMaker {
  static P make(const std::vector<Tensor> &runtime,
                llvm::ArrayRef<int64_t> constexprs, size_t &nextRuntime,
                size_t &nextConstexpr) {
    if constexpr (std::is_same_v<P, Constexpr>)
      return Constexpr(constexprs[nextConstexpr++]);
    else
      return P(runtime[nextRuntime++]);
  }
};

template <typename... Params, typename F>
std::shared_ptr<KernelDef> makeKernel(std::string name,
                                      std::vector<std::string> names, F fn) {
  std::vector<ParamInfo> params = {
      ParamTraits<std::remove_cvref_t<Params>>::info()...};
  for (size_t i = 0; i < params.size(); ++i)
    params[i].name = i < names.size() ? names[i] : "arg" + std::to_string(i);
  auto body = [fn](const std::vector<Tensor> &runtime,
                   llvm::ArrayRef<int64_t> constexprs) {
    size_t r = 0, c = 0;
    // Braced init: arguments are made left to right.
    std::tuple<std::remove_cvref_t<Params>...> args{
        ArgMaker<std::remove_cvref_t<Params>>::make(runtime, constexprs, r,
                                                    c)...};
    std::apply(fn, args);
  };
  return std::make_shared<KernelDef>(std::move(name), std::move(params),
                                     std::move(body));
}

template <typename F>
struct CallableTraits : CallableTraits<decltype(&F::operator())> {};
template <typename... Params> struct CallableTraits<void (*)(Params...)> {
  template <typename F>
  static auto make(std::string name, std::vector<std::string> names, F fn) {
    return makeKernel<Params...>(std::move(name), std::move(names), fn);
  }
};
template <typename C, typename... Params>
struct CallableTraits<void (C::*)(Params...) const>
    : CallableTraits<void (*)(Params...)> {};

} // namespace detail

/// Wraps a C++ callable whose parameters are Ptr<T>, Int, Int64, Float and
/// Constexpr as a JIT kernel. `paramNames` name the parameters in messages.
template <typename F>
std::shared_ptr<KernelDef> jit(std::string name, F fn,
                               std::vector<std::string> paramNames = {}) {
  using Fn = std::conditional_t<std::is_function_v<F>, F *, F>;
  return detail::CallableTraits<Fn>::make(std::move(name),
                                          std::move(paramNames), Fn(fn));
}

} // namespace blockjit

#endif // BLOCKJIT_FRONTEND_KERNEL_H
