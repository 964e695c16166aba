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

#include "mlir/Dialect/Func/IR/FuncOps.h"
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
