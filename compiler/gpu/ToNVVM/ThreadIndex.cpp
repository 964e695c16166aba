//===- ThreadIndex.cpp - which block elements this thread owns -----------===//
#include "compiler/gpu/ToNVVM/Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace blockjit::nvvm {

Value i32Constant(OpBuilder &builder, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(builder, loc, value, 32);
}

Value rawElementIndex(OpBuilder &builder, Location loc, Value threadId,
                      const Layout1D &layout, int64_t k) {
  Value base = arith::MulIOp::create(builder, loc, threadId,
                                     i32Constant(builder, loc, layout.vector));
  int64_t offset = (k / layout.vector) * layout.tile() + k % layout.vector;
  return arith::AddIOp::create(builder, loc, base,
                               i32Constant(builder, loc, offset));
}

Value elementIndex(OpBuilder &builder, Location loc, Value threadId,
                   const Layout1D &layout, int64_t k) {
  Value raw = rawElementIndex(builder, loc, threadId, layout, k);
  if (!layout.replicated())
    return raw;
  return arith::AndIOp::create(builder, loc, raw,
                               i32Constant(builder, loc, layout.size - 1));
}

SmallVector<Value> delinearize(OpBuilder &builder, Location loc,
                               ArrayRef<int64_t> shape, Value linear) {
  SmallVector<Value> indices(shape.size());
  for (int d = int(shape.size()) - 1; d >= 0; --d) {
    indices[d] = arith::AndIOp::create(builder, loc, linear,
                                       i32Constant(builder, loc, shape[d] - 1));
    linear = arith::ShRUIOp::create(
        builder, loc, linear,
        i32Constant(builder, loc, llvm::Log2_64(shape[d])));
  }
  return indices;
}

Value linearize(OpBuilder &builder, Location loc, ArrayRef<int64_t> shape,
                ArrayRef<Value> indices) {
  Value linear = i32Constant(builder, loc, 0);
  for (auto [size, index] : llvm::zip(shape, indices)) {
    linear = arith::ShLIOp::create(
        builder, loc, linear, i32Constant(builder, loc, llvm::Log2_64(size)));
    linear = arith::OrIOp::create(builder, loc, linear, index);
  }
  return linear;
}

} // namespace blockjit::nvvm
