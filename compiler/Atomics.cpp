//===- Atomics.cpp - atomics of blk, as LLVM atomics, on both targets ----===//
#include "compiler/Atomics.h"

#include "dialect/BlkDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace blockjit {

LogicalResult checkAtomicSupported(Operation *op, StringRef target) {
  Type element = blk::elementTypeOf(op->getResult(0).getType());
  if (element.isInteger(32) || element.isInteger(64) || element.isF32() ||
      element.isF64())
    return success();
  auto rmw = dyn_cast<blk::AtomicRMWOp>(op);
  if (rmw && rmw.getKind() == blk::AtomicRMWKind::Add &&
      (element.isF16() || element.isBF16()))
    return success();
  std::string name =
      rmw ? "atomic_" + blk::stringifyAtomicRMWKind(rmw.getKind()).str()
          : std::string("atomic_cas");
  return op->emitOpError() << "(" << name << ") of " << element
                           << " is not supported on the " << target
                           << " target (i32, i64, f32 and f64; f16 and bf16 "
                              "for atomic_add only)";
}

blk::MemSem atomicSem(Operation *op) {
  if (auto rmw = dyn_cast<blk::AtomicRMWOp>(op))
    return rmw.getSem();
  return cast<blk::AtomicCASOp>(op).getSem();
}

blk::MemScope atomicScope(Operation *op) {
  if (auto rmw = dyn_cast<blk::AtomicRMWOp>(op))
    return rmw.getScope();
  return cast<blk::AtomicCASOp>(op).getScope();
}

static LLVM::AtomicOrdering llvmOrdering(blk::MemSem sem) {
  switch (sem) {
  case blk::MemSem::Relaxed:
    return LLVM::AtomicOrdering::monotonic;
  case blk::MemSem::Acquire:
    return LLVM::AtomicOrdering::acquire;
  case blk::MemSem::Release:
    return LLVM::AtomicOrdering::release;
  case blk::MemSem::AcqRel:
    return LLVM::AtomicOrdering::acq_rel;
  }
  llvm_unreachable("unknown MemSem");
}

Value emitAtomic(OpBuilder &builder, Location loc, Operation *op, Value ptr,
                 Value value, Value cmp, StringRef syncscope) {
  blk::MemSem sem = atomicSem(op);
  auto ordering = llvmOrdering(sem);
  Type type = value.getType();
  if (isa<blk::AtomicCASOp>(op)) {
    // A failed compare only reads: it keeps the acquire half, if any.
    auto failureOrdering =
        sem == blk::MemSem::Acquire || sem == blk::MemSem::AcqRel
            ? LLVM::AtomicOrdering::acquire
            : LLVM::AtomicOrdering::monotonic;
    // cmpxchg takes integers: floats compare by their bits.
    Type bits = builder.getIntegerType(type.getIntOrFloatBitWidth());
    if (type != bits) {
      cmp = LLVM::BitcastOp::create(builder, loc, bits, cmp);
      value = LLVM::BitcastOp::create(builder, loc, bits, value);
    }
    auto cas = LLVM::AtomicCmpXchgOp::create(
        builder, loc, ptr, cmp, value, ordering, failureOrdering, syncscope);
    Value old = LLVM::ExtractValueOp::create(builder, loc, cas, 0);
    if (type != bits)
      old = LLVM::BitcastOp::create(builder, loc, type, old);
    return old;
  }
  bool isFloat = isa<FloatType>(type);
  LLVM::AtomicBinOp binOp;
  switch (cast<blk::AtomicRMWOp>(op).getKind()) {
  case blk::AtomicRMWKind::Add:
    binOp = isFloat ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add;
    break;
  case blk::AtomicRMWKind::Max:
    binOp = isFloat ? LLVM::AtomicBinOp::fmax : LLVM::AtomicBinOp::max;
    break;
  case blk::AtomicRMWKind::Min:
    binOp = isFloat ? LLVM::AtomicBinOp::fmin : LLVM::AtomicBinOp::min;
    break;
  case blk::AtomicRMWKind::Xchg:
    binOp = LLVM::AtomicBinOp::xchg;
    break;
  }
  return LLVM::AtomicRMWOp::create(builder, loc, binOp, ptr, value, ordering,
                                   syncscope);
}

} // namespace blockjit
