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
      auto report = [&](Value value, Location loc) {
        std::string facts;
        llvm::raw_string_ostream os(facts);
        analysis.get(value).print(os);
        emitRemark(loc) << facts;
      };
      // In the order values are defined in the source: an op's results, then
      // the arguments of its regions (function parameters, induction
      // variables, iter_args), then the ops inside.
      func.walk<WalkOrder::PreOrder>([&](Operation *op) {
        for (Value result : op->getResults())
          report(result, op->getLoc());
        for (Region &region : op->getRegions())
          for (Block &block : region)
            for (BlockArgument argument : block.getArguments())
              report(argument, argument.getLoc());
      });
    }
  }
};

} // namespace
