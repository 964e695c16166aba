//===- TestAxisInfo.cpp - AxisAnalysis's facts as remarks (lit tests) ----===//
#include "compiler/Passes.h"
#include "compiler/gpu/AxisInfo.h"

#include "mlir/IR/BuiltinOps.h"

namespace blockjit {
#define GEN_PASS_DEF_BLKTESTAXISINFO
#include "compiler/Passes.h.inc"
} // namespace blockjit

using namespace mlir;
using namespace blockjit;

namespace {

struct BlkTestAxisInfo : blockjit::impl::BlkTestAxisInfoBase<BlkTestAxisInfo> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      AxisAnalysis analysis(func);
      func.walk([&](Operation *op) {
        for (Value result : op->getResults()) {
          AxisInfo info = analysis.get(result);
          op->emitRemark() << "contiguity = " << info.contiguity
                           << ", divisibility = " << info.divisibility
                           << ", constancy = " << info.constancy;
        }
      });
    }
  }
};

} // namespace
