//===- ThreadIndex.cpp - which block elements a thread owns; shuffles ----===//
#include "compiler/gpu/ToNVVM/Lowering.h"

#include "dialect/gpu/BlkGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace blockjit::nvvm {

Value i32Constant(OpBuilder &builder, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(builder, loc, value, 32);
}

/// `raw` wrapped into the block (replicas hold the same elements).
static Value wrapIntoBlock(OpBuilder &builder, Location loc, Value raw,
                           const Layout1D &layout) {
  if (!layout.replicated())
    return raw;
  return arith::AndIOp::create(builder, loc, raw,
                               i32Constant(builder, loc, layout.size - 1));
}

Value rawElementIndex(OpBuilder &builder, Location loc, Value threadId,
                      const Layout1D &layout, int64_t k) {
  Value base = arith::MulIOp::create(builder, loc, threadId,
                                     i32Constant(builder, loc, layout.vector));
  return arith::AddIOp::create(
      builder, loc, base,
      i32Constant(builder, loc, layout.rawIndex(/*thread=*/0, k)));
}

Value elementIndex(OpBuilder &builder, Location loc, Value threadId,
                   const Layout1D &layout, int64_t k) {
  return wrapIntoBlock(
      builder, loc, rawElementIndex(builder, loc, threadId, layout, k), layout);
}

Value threadElementBase(OpBuilder &builder, Location loc,
                        const KernelState &kernel, const Layout1D &layout) {
  Value thread = arith::MulIOp::create(
      builder, loc, kernel.threadId, i32Constant(builder, loc, layout.vector));
  if (!layout.split())
    return thread;
  // Layout1D::index: the CTAs take turns tile by tile.
  Value turn = arith::MulIOp::create(builder, loc, kernel.ctaRank,
                                     i32Constant(builder, loc, layout.tile()));
  return arith::AddIOp::create(builder, loc, thread, turn);
}

Value threadElementBaseFor(OpBuilder &builder, Location loc,
                           const KernelState &kernel, const Layout1D &layout,
                           Operation *op) {
  Value base = threadElementBase(builder, loc, kernel, layout);
  if (!op->hasAttr(blkgpu::BlkGPUDialect::kRematerializedAttrName))
    return base;
  // No range is put back on the copy (an and with the thread count): with
  // it LLVM splits each row's offset into the thread's and a constant row's
  // times the stride, and hoists the latter again (a whole-column softmax
  // of 64 elements a thread: 127 -> 158 registers).
  return inlinePtx(builder, loc, "mov.b32 $0, $1;", "=r,r", base,
                   builder.getI32Type());
}

Value blockElementIndex(OpBuilder &builder, Location loc, Value base,
                        const Layout1D &layout, int64_t k) {
  if (layout.split())
    return arith::AddIOp::create(
        builder, loc, base, i32Constant(builder, loc, layout.index(0, 0, k)));
  Value raw = arith::AddIOp::create(
      builder, loc, base,
      i32Constant(builder, loc, layout.rawIndex(/*thread=*/0, k)));
  return wrapIntoBlock(builder, loc, raw, layout);
}

Value blockElementIndex(OpBuilder &builder, Location loc,
                        const KernelState &kernel, const Layout1D &layout,
                        int64_t k) {
  return blockElementIndex(
      builder, loc, threadElementBase(builder, loc, kernel, layout), layout, k);
}

Value inlinePtx(OpBuilder &builder, Location loc, StringRef asmString,
                StringRef constraints, ValueRange operands, Type result) {
  auto op = LLVM::InlineAsmOp::create(
      builder, loc, result ? TypeRange{result} : TypeRange{}, operands,
      asmString, constraints, /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::TailCallKind::None,
      LLVM::AsmDialectAttr(), ArrayAttr());
  return result ? op.getResult(0) : Value();
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

Value withoutBits(OpBuilder &builder, Location loc, Value value, int64_t mask) {
  if (!mask)
    return value;
  int64_t low = llvm::countr_zero(uint64_t(mask));
  int64_t width = llvm::popcount(uint64_t(mask));
  assert(mask == ((int64_t(1) << width) - 1) << low &&
         "the bits taken out are one contiguous run");
  Value below = arith::AndIOp::create(
      builder, loc, value, i32Constant(builder, loc, (int64_t(1) << low) - 1));
  Value above = arith::ShRUIOp::create(builder, loc, value,
                                       i32Constant(builder, loc, low + width));
  return arith::OrIOp::create(
      builder, loc, below,
      arith::ShLIOp::create(builder, loc, above,
                            i32Constant(builder, loc, low)));
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

Value warpShuffle(OpBuilder &b, Location loc, Value value, int64_t offset,
                  NVVM::ShflKind kind) {
  Type type = value.getType();
  Type i32 = b.getI32Type();
  unsigned width = type.getIntOrFloatBitWidth();
  Value all = i32Constant(b, loc, -1);
  // shfl.up clamps at lane 0 (lanes below `offset` read their own value);
  // down and idx at lane 31.
  Value clamp = i32Constant(b, loc, kind == NVVM::ShflKind::up ? 0 : 31);
  Value delta = i32Constant(b, loc, offset);
  auto shfl32 = [&](Value x) -> Value {
    return NVVM::ShflOp::create(b, loc, x.getType(), all, x, delta, clamp, kind,
                                UnitAttr());
  };
  if (type.isF32() || type.isInteger(32))
    return shfl32(value);
  Type bitsType = b.getIntegerType(width);
  Value bits = isa<FloatType>(type)
                   ? Value(arith::BitcastOp::create(b, loc, bitsType, value))
                   : value;
  Value result;
  if (width == 64) {
    Value lo = arith::TruncIOp::create(b, loc, i32, bits);
    Value hi = arith::TruncIOp::create(
        b, loc, i32,
        arith::ShRUIOp::create(b, loc, bits,
                               arith::ConstantIntOp::create(b, loc, 32, 64)));
    Value newLo = arith::ExtUIOp::create(b, loc, bitsType, shfl32(lo));
    Value newHi = arith::ShLIOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, bitsType, shfl32(hi)),
        arith::ConstantIntOp::create(b, loc, 32, 64));
    result = arith::OrIOp::create(b, loc, newLo, newHi);
  } else {
    Value wide = arith::ExtUIOp::create(b, loc, i32, bits);
    result = arith::TruncIOp::create(b, loc, bitsType, shfl32(wide));
  }
  if (isa<FloatType>(type))
    result = arith::BitcastOp::create(b, loc, type, result);
  return result;
}

} // namespace blockjit::nvvm
