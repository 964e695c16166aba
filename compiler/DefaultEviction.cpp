//===- DefaultEviction.cpp - a kernel-wide eviction hint -----------------===//
//
// Triton chooses an eviction_policy per access; blockjit also lets the
// config choose one for the accesses whose source says nothing (what
// Inductor writes into its kernels: evict_last on a row's reads made
// one-row softmax and softmax_backward programs 2-4 % faster on the H200,
// docs/eviction_hints_h200.txt; the same hint slowed cluster rows by up to
// 20 %, so it is a config the tuner times, not a rule). This pass only sets
// the attribute; each later stage that rebuilds a load or store carries it,
// and LowerEvictionHints turns it into PTX.
//
//===----------------------------------------------------------------------===//
#include "compiler/Passes.h"
#include "compiler/Specialization.h"

#include "dialect/BlkDialect.h"

#include "mlir/IR/BuiltinOps.h"

namespace blockjit {
#define GEN_PASS_DEF_BLKDEFAULTEVICTION
#include "compiler/Passes.h.inc"
} // namespace blockjit

using namespace mlir;

namespace blockjit {
namespace {

/// The attribute for option value `name` (null for normal), or failure
/// with the option's error reported on `module`.
FailureOr<blk::EvictionAttr>
evictionAttrFor(ModuleOp module, llvm::StringRef option, llvm::StringRef name) {
  llvm::Expected<DefaultEviction> eviction = parseDefaultEviction(name);
  if (!eviction) {
    module.emitError() << "blk-default-eviction: " << option << ": "
                       << llvm::toString(eviction.takeError());
    return failure();
  }
  switch (*eviction) {
  case DefaultEviction::Normal:
    return blk::EvictionAttr();
  case DefaultEviction::First:
    return blk::EvictionAttr::get(module.getContext(), blk::Eviction::First);
  case DefaultEviction::Last:
    return blk::EvictionAttr::get(module.getContext(), blk::Eviction::Last);
  }
  return blk::EvictionAttr();
}

struct BlkDefaultEvictionPass
    : impl::BlkDefaultEvictionBase<BlkDefaultEvictionPass> {
  using BlkDefaultEvictionBase::BlkDefaultEvictionBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<blk::EvictionAttr> forLoads =
        evictionAttrFor(module, "loads", loads);
    FailureOr<blk::EvictionAttr> forStores =
        evictionAttrFor(module, "stores", stores);
    if (failed(forLoads) || failed(forStores))
      return signalPassFailure();
    module.walk([&](Operation *op) {
      if (auto load = dyn_cast<blk::LoadOp>(op)) {
        if (*forLoads && !load.getEvictionAttr())
          load.setEvictionAttr(*forLoads);
      } else if (auto store = dyn_cast<blk::StoreOp>(op)) {
        if (*forStores && !store.getEvictionAttr())
          store.setEvictionAttr(*forStores);
      }
    });
  }
};

} // namespace
} // namespace blockjit
