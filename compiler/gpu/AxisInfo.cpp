//===- AxisInfo.cpp - contiguity, divisibility and constancy of values ---===//
#include "compiler/gpu/AxisInfo.h"
#include "compiler/gpu/AxisInfoAnalysis.h"

#include "mlir/Analysis/DataFlow/Utils.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

using namespace mlir;

namespace blockjit {

AxisInfo AxisInfo::join(const AxisInfo &lhs, const AxisInfo &rhs) {
  AxisInfo result;
  result.contiguity = std::gcd(lhs.contiguity, rhs.contiguity);
  // Shorter runs start inside the operands' runs: not at their first
  // elements, whose divisibility is all the operands promise.
  result.divisibility = std::min(lhs.divisibilityAt(result.contiguity),
                                 rhs.divisibilityAt(result.contiguity));
  result.constancy = std::gcd(lhs.constancy, rhs.constancy);
  return result;
}

int64_t AxisInfo::divisibilityAt(int64_t length, int64_t unit) const {
  if (length % contiguity == 0)
    return divisibility;
  // A run of `length` starts `k * length` elements into one of ours.
  return std::min(divisibility, length * unit);
}

void AxisInfo::print(llvm::raw_ostream &os) const {
  os << "contiguity = " << contiguity << ", divisibility = " << divisibility
     << ", constancy = " << constancy;
}

AxisAnalysis::AxisAnalysis(func::FuncOp func) {
  // One function at a time: its arguments are the kernel's parameters, seeded
  // from their attributes rather than from call sites.
  DataFlowSolver solver(DataFlowConfig().setInterprocedural(false));
  dataflow::loadBaselineAnalyses(solver);
  solver.load<AxisInfoAnalysis>();
  // The analyses never fail; were one to, knowing nothing is always safe.
  if (failed(solver.initializeAndRun(func)))
    return;
  // Copied out: convert-blk-to-nvvm rewrites the function while it asks.
  auto record = [&](Value value) {
    const auto *lattice = solver.lookupState<AxisInfoLattice>(value);
    if (lattice && !lattice->getValue().isUninitialized())
      infos[value] = lattice->getValue().getValue();
  };
  func.walk([&](Block *block) {
    for (BlockArgument argument : block->getArguments())
      record(argument);
  });
  func.walk([&](Operation *op) {
    for (Value result : op->getResults())
      record(result);
  });
}

AxisInfo AxisAnalysis::get(Value value) const {
  auto it = infos.find(value);
  return it == infos.end() ? AxisInfo() : it->second;
}

int64_t vectorRunOf(const AxisAnalysis &axis, Value ptr, Value mask,
                    unsigned elementBytes) {
  AxisInfo info = axis.get(ptr);
  int64_t run = std::min<int64_t>(16 / elementBytes, info.contiguity);
  run = std::min(run, std::max<int64_t>(1, info.divisibility / elementBytes));
  if (mask)
    run = std::min(run, axis.get(mask).constancy);
  return int64_t(1) << llvm::Log2_64(std::max<int64_t>(1, run));
}

bool elementAlignedRow(const AxisAnalysis &axis, Value ptr,
                       unsigned elementBytes) {
  auto type = dyn_cast<RankedTensorType>(ptr.getType());
  if (!type || elementBytes != 2 || !type.hasStaticShape() ||
      type.getShape().back() != type.getNumElements())
    return false;
  AxisInfo info = axis.get(ptr);
  return info.contiguity >= type.getNumElements() && info.divisibility < 4;
}

} // namespace blockjit
