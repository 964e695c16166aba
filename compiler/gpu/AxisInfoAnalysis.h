//===- AxisInfoAnalysis.h - AxisInfo on MLIR's sparse data-flow framework -===//
//
// AxisInfo (AxisInfo.h) as a forward data-flow problem: each value's lattice
// starts unknown and is joined with what its definition implies. The
// framework carries the facts through scf.for iter_args, scf.if results and
// other region control flow to a fixpoint; this file gives the transfer
// function of each op family. The solver needs DeadCodeAnalysis and
// SparseConstantPropagation loaded beside it
// (mlir::dataflow::loadBaselineAnalyses); the constants also refine
// divisions, remainders, shifts, masks and selects.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_COMPILER_GPU_AXISINFOANALYSIS_H
#define BLOCKJIT_COMPILER_GPU_AXISINFOANALYSIS_H

#include "compiler/gpu/AxisInfo.h"

#include "mlir/Analysis/DataFlow/SparseAnalysis.h"

#include <optional>

namespace blockjit {

/// A lattice value: unknown until the solver reaches the value (the identity
/// of join), then the facts that hold on every path seen so far.
class AxisInfoState {
public:
  AxisInfoState() = default;
  AxisInfoState(const AxisInfo &info) : info(info) {}

  bool isUninitialized() const { return !info.has_value(); }
  const AxisInfo &getValue() const {
    assert(info && "AxisInfo of a value the solver has not reached");
    return *info;
  }

  static AxisInfoState join(const AxisInfoState &lhs, const AxisInfoState &rhs);
  bool operator==(const AxisInfoState &other) const = default;
  void print(llvm::raw_ostream &os) const;

private:
  std::optional<AxisInfo> info;
};

class AxisInfoLattice : public mlir::dataflow::Lattice<AxisInfoState> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AxisInfoLattice)
  using Lattice::Lattice;
};

class AxisInfoAnalysis
    : public mlir::dataflow::SparseForwardDataFlowAnalysis<AxisInfoLattice> {
public:
  using SparseForwardDataFlowAnalysis::SparseForwardDataFlowAnalysis;

  mlir::LogicalResult
  visitOperation(mlir::Operation *op,
                 llvm::ArrayRef<const AxisInfoLattice *> operands,
                 llvm::ArrayRef<AxisInfoLattice *> results) override;

  /// The induction variable of scf.for: lower bound + k * step.
  void visitNonControlFlowArguments(mlir::Operation *op,
                                    const mlir::RegionSuccessor &successor,
                                    llvm::ArrayRef<AxisInfoLattice *> arguments,
                                    unsigned firstIndex) override;

  /// Function arguments: their `blk.divisibility` attribute; anything else
  /// the analysis cannot see through: nothing known.
  void setToEntryState(AxisInfoLattice *lattice) override;

private:
  /// The integer that `value` (a scalar or a splat block) holds wherever
  /// `user` runs, if it is one constant. If constant propagation has not
  /// reached `value` yet, sets waitingForConstants: `user` is visited again
  /// when it does.
  std::optional<llvm::APInt> constantOf(mlir::Operation *user,
                                        mlir::Value value);

  /// The facts of `op`'s single result, or std::nullopt if `op` is not an op
  /// family this analysis knows (its results are then unknown).
  std::optional<AxisInfo> transfer(mlir::Operation *op,
                                   llvm::ArrayRef<AxisInfo> operands);

  bool waitingForConstants = false;
};

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_GPU_AXISINFOANALYSIS_H
