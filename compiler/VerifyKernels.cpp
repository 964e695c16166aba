//===- VerifyKernels.cpp - what every backend assumes of a kernel ---------===//
//
// The blk verifiers check single ops; this pass checks the kernel as a whole
// (its signature, the shapes and sizes of its blocks) once, before any
// lowering, so that every backend can rely on it.
//
//===----------------------------------------------------------------------===//
#include "compiler/VerifyKernels.h"
#include "compiler/Passes.h"

#include "dialect/BlkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/MathExtras.h"

namespace blockjit {
#define GEN_PASS_DEF_BLKVERIFYKERNELS
#include "compiler/Passes.h.inc"
} // namespace blockjit

using namespace mlir;
using namespace blockjit;

namespace {

/// Integers of at least one bit (NVPTX aborts on an i0 parameter: "Empty
/// parameter types are not supported"), floats and pointers.
bool isScalar(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type))
    return integer.getWidth() >= 1;
  return isa<FloatType, blk::PtrType>(type);
}

/// The value `value` folds to when it is computed by arith ops from
/// constants alone (a few ops deep), else nothing. Each op is folded on
/// constant attributes without being changed.
std::optional<int64_t> foldedInteger(Value value, int depth = 8) {
  if (std::optional<int64_t> constant = getConstantIntValue(value))
    return constant;
  Operation *def = value.getDefiningOp();
  if (!def || depth == 0 || def->getNumResults() != 1 ||
      def->getNumRegions() || !isa<arith::ArithDialect>(def->getDialect()))
    return std::nullopt;
  SmallVector<Attribute> operands;
  for (Value operand : def->getOperands()) {
    std::optional<int64_t> folded = foldedInteger(operand, depth - 1);
    if (!folded || !operand.getType().isIntOrIndex())
      return std::nullopt;
    operands.push_back(IntegerAttr::get(operand.getType(), *folded));
  }
  SmallVector<OpFoldResult> results;
  if (failed(def->fold(operands, results)) || results.size() != 1)
    return std::nullopt;
  if (auto attr = dyn_cast_if_present<IntegerAttr>(
          dyn_cast_if_present<Attribute>(results[0])))
    return attr.getValue().getSExtValue();
  return std::nullopt;
}

/// Why `type` cannot be a block, or "" when it can (non-shaped types are not
/// blocks and pass).
std::string blockProblem(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped)
    return "";
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return "blocks are ranked tensors";
  if (!tensor.hasStaticShape())
    return "blocks have static shapes";
  if (!isScalar(tensor.getElementType()))
    return "block elements are integers (of at least 1 bit), floats or "
           "!blk.ptr pointers";
  int64_t elements = 1;
  for (int64_t size : tensor.getShape()) {
    if (size < 1 || !llvm::isPowerOf2_64(size))
      return "every block dimension is a power of two";
    if (elements > blk::kMaxBlockElements / size)
      return "a block holds at most " + std::to_string(blk::kMaxBlockElements) +
             " (2^24) elements";
    elements *= size;
  }
  return "";
}

struct BlkVerifyKernels
    : blockjit::impl::BlkVerifyKernelsBase<BlkVerifyKernels> {
  void runOnOperation() override {
    bool ok = true;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && failed(verifyKernelSignature(func)))
        ok = false;
    // One message per offending op is enough.
    getOperation().walk([&](Operation *op) {
      auto check = [&](Type type, const char *what) {
        std::string problem = blockProblem(type);
        if (problem.empty())
          return true;
        op->emitOpError() << what << " type " << type
                          << " is not a valid block: " << problem;
        return false;
      };
      // A kernel's own parameters were checked above.
      for (Region &region : op->getRegions())
        for (Block &block : region)
          if (!isa<func::FuncOp>(op) || !block.isEntryBlock())
            for (BlockArgument arg : block.getArguments())
              if (!check(arg.getType(), "block argument")) {
                ok = false;
                return;
              }
      for (Type type : op->getResultTypes())
        if (!check(type, "result")) {
          ok = false;
          return;
        }
    });
    // A step that folds to a constant (the DSL rejects literal ones; k * 2
    // with k specialized as 0 folds) must be positive: scf.for is undefined
    // otherwise, and canonicalization erases such a loop without a word.
    getOperation().walk([&](scf::ForOp loop) {
      std::optional<int64_t> step = foldedInteger(loop.getStep());
      if (step && *step <= 0) {
        loop.emitOpError()
            << "steps by " << *step
            << "; a for_range step must be positive (an integer argument "
               "equal to 0 is compiled as the constant)";
        ok = false;
      }
    });
    if (!ok)
      signalPassFailure();
  }
};

} // namespace

LogicalResult blockjit::verifyKernelSignature(func::FuncOp func) {
  bool ok = true;
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
    if (!isScalar(type)) {
      func.emitOpError() << "parameter #" << i << " has type " << type
                         << "; kernel parameters are integers (of at least "
                            "1 bit), floats or !blk.ptr pointers";
      ok = false;
    }
  if (func.getNumResults()) {
    func.emitOpError() << "returns values; a kernel returns nothing (it "
                          "writes its results through pointers)";
    ok = false;
  }
  return success(ok);
}
