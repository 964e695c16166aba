//===- BlkToNVVM.cpp - laid-out blocks to per-thread scalars and NVVM ----===//
//
// Each block value becomes the list of elements its thread owns (see
// Layout1D); elementwise ops are cloned per element. Memory accesses group a
// thread's contiguous elements into vectors as wide as AxisAnalysis allows.
//
//===----------------------------------------------------------------------===//
#include "compiler/Passes.h"
#include "compiler/Reduction.h"
#include "compiler/gpu/AxisInfo.h"
#include "compiler/gpu/Layout.h"

#include "dialect/BlkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/MathExtras.h"

#include <numbers>

namespace blockjit {
#define GEN_PASS_DEF_CONVERTBLKTONVVM
#include "compiler/Passes.h.inc"
} // namespace blockjit

using namespace mlir;
using namespace blockjit;

namespace {

/// Static shared memory a program may use without opting in to more.
constexpr int64_t kMaxSharedBytes = 48 * 1024;

using blk::hasBlocks;
using blk::isBlock;

class KernelLowering {
public:
  KernelLowering(func::FuncOp func, int numWarps)
      : func(func), builder(func.getContext()), axis(func), numWarps(numWarps) {
  }

  LogicalResult run() {
    builder.setInsertionPointToStart(&func.getBody().front());
    threadId =
        NVVM::ThreadIdXOp::create(builder, func.getLoc(), builder.getI32Type());
    if (failed(lowerBlock(func.getBody().front())))
      return failure();
    if (sharedBytes > kMaxSharedBytes)
      return func.emitOpError()
             << "needs " << sharedBytes
             << " bytes of shared memory to exchange block elements between "
                "threads; a program has at most "
             << kMaxSharedBytes << " (use smaller blocks)";
    declareShared();
    for (Operation *op : llvm::reverse(toErase))
      op->dropAllReferences();
    for (Operation *op : llvm::reverse(toErase))
      op->erase();
    return success();
  }

private:
  func::FuncOp func;
  OpBuilder builder;
  AxisAnalysis axis;
  int numWarps;
  Value threadId;
  DenseMap<Value, SmallVector<Value>> elements;
  SmallVector<Operation *> toErase;
  int64_t sharedBytes = 0; // size of the shared scratch array

  Value i32(Location loc, int64_t v) {
    return arith::ConstantIntOp::create(builder, loc, v, 32);
  }

  /// Raw (unwrapped) index of this thread's element k, as an i32 value.
  Value rawIndex(Location loc, const Layout1D &layout, int64_t k) {
    Value base =
        arith::MulIOp::create(builder, loc, threadId, i32(loc, layout.vector));
    int64_t offset = (k / layout.vector) * layout.tile() + k % layout.vector;
    return arith::AddIOp::create(builder, loc, base, i32(loc, offset));
  }

  /// The index (wrapped into the block) of element k.
  Value index(Location loc, const Layout1D &layout, int64_t k) {
    Value raw = rawIndex(loc, layout, k);
    if (!layout.replicated())
      return raw;
    return arith::AndIOp::create(builder, loc, raw, i32(loc, layout.size - 1));
  }

  SmallVector<Value> &elementsOf(Value v) { return elements[v]; }

  /// The multi-index of row-major linear index `linear` in `shape` (all
  /// sizes are powers of two: masks and shifts).
  SmallVector<Value> delinearize(Location loc, ArrayRef<int64_t> shape,
                                 Value linear) {
    SmallVector<Value> indices(shape.size());
    for (int d = int(shape.size()) - 1; d >= 0; --d) {
      indices[d] = arith::AndIOp::create(builder, loc, linear,
                                         i32(loc, shape[d] - 1));
      linear = arith::ShRUIOp::create(builder, loc, linear,
                                      i32(loc, llvm::Log2_64(shape[d])));
    }
    return indices;
  }

  Value linearize(Location loc, ArrayRef<int64_t> shape,
                  ArrayRef<Value> indices) {
    Value linear = i32(loc, 0);
    for (auto [size, index] : llvm::zip(shape, indices)) {
      linear = arith::ShLIOp::create(builder, loc, linear,
                                     i32(loc, llvm::Log2_64(size)));
      linear = arith::OrIOp::create(builder, loc, linear, index);
    }
    return linear;
  }

  /// How a block's elements are kept in shared memory.
  Type storageType(Type element) {
    if (isa<blk::PtrType>(element))
      return LLVM::LLVMPointerType::get(builder.getContext(), 1);
    return element;
  }

  /// Publishes every element of `block` (converted by `convert`) in a new
  /// shared array indexed by linear index; returns the array. Followed by a
  /// barrier, so any thread may then read any element.
  Value publish(Location loc, Value block, Type storage,
                function_ref<Value(Value)> convert) {
    auto type = cast<RankedTensorType>(block.getType());
    Layout1D layout = layoutOf(type);
    auto ptrType = LLVM::LLVMPointerType::get(builder.getContext(), 3);
    Value smem = sharedArray(loc, storage, type.getNumElements());
    auto &elems = elementsOf(block);
    for (int64_t k = 0; k < layout.perThread(); ++k) {
      Value slot = LLVM::GEPOp::create(builder, loc, ptrType, storage, smem,
                                       ValueRange{index(loc, layout, k)});
      LLVM::StoreOp::create(builder, loc, convert(elems[k]), slot);
    }
    NVVM::Barrier0Op::create(builder, loc);
    return smem;
  }

  Value readShared(Location loc, Value smem, Type storage, Value linear) {
    auto ptrType = LLVM::LLVMPointerType::get(builder.getContext(), 3);
    Value slot = LLVM::GEPOp::create(builder, loc, ptrType, storage, smem,
                                     ValueRange{linear});
    return LLVM::LoadOp::create(builder, loc, storage, slot);
  }

  /// broadcast: element (i, j) of the result is element (i or 0, j or 0) of
  /// the source, which another thread may own: exchanged through shared
  /// memory.
  LogicalResult lowerBroadcast(blk::BroadcastOp bcast) {
    Location loc = bcast.getLoc();
    RankedTensorType srcType = bcast.getSrc().getType();
    RankedTensorType resultType = bcast.getType();
    Type element = srcType.getElementType();
    Type storage = storageType(element);
    Value smem = publish(loc, bcast.getSrc(), storage, [&](Value v) {
      return storage == element ? v : toLLVMPointer(loc, v);
    });
    Layout1D layout = layoutOf(resultType);
    SmallVector<Value> result;
    for (int64_t k = 0; k < layout.perThread(); ++k) {
      SmallVector<Value> indices =
          delinearize(loc, resultType.getShape(), index(loc, layout, k));
      for (auto [d, size] : llvm::enumerate(srcType.getShape()))
        if (size == 1)
          indices[d] = i32(loc, 0);
      Value v = readShared(loc, smem, storage,
                           linearize(loc, srcType.getShape(), indices));
      if (storage != element)
        v = UnrealizedConversionCastOp::create(builder, loc, element, v)
                .getResult(0);
      result.push_back(v);
    }
    // The array is not reused, but its next publication (a loop's next
    // iteration) must wait for these reads.
    NVVM::Barrier0Op::create(builder, loc);
    elements[bcast.getResult()] = result;
    return success();
  }

  /// reduce of a 2-D block: every element goes through shared memory, then
  /// each thread combines the rows or columns of the result elements it owns.
  LogicalResult lowerReduce2D(blk::ReduceOp reduce) {
    Location loc = reduce.getLoc();
    RankedTensorType srcType = reduce.getSrc().getType();
    Type element = srcType.getElementType();
    Type accType = reductionAccumulatorType(element);
    Value smem = publish(loc, reduce.getSrc(), accType, [&](Value v) {
      return accType == element
                 ? v
                 : Value(arith::ExtFOp::create(builder, loc, accType, v));
    });
    auto resultType = cast<RankedTensorType>(reduce.getType());
    Layout1D layout = layoutOf(resultType);
    int64_t axis = reduce.getAxis();
    blk::ReduceKind kind = reduce.getKind();
    SmallVector<Value> result;
    for (int64_t k = 0; k < layout.perThread(); ++k) {
      SmallVector<Value> outer =
          delinearize(loc, resultType.getShape(), index(loc, layout, k));
      Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
      Value one = arith::ConstantIndexOp::create(builder, loc, 1);
      Value ub = arith::ConstantIndexOp::create(builder, loc,
                                                srcType.getDimSize(axis));
      auto loop = scf::ForOp::create(
          builder, loc, zero, ub, one,
          reductionIdentity(builder, loc, kind, accType));
      {
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToStart(loop.getBody());
        SmallVector<Value> indices(outer);
        indices.insert(indices.begin() + axis,
                       arith::IndexCastOp::create(builder, loc,
                                                  builder.getI32Type(),
                                                  loop.getInductionVar()));
        Value x = readShared(loc, smem, accType,
                             linearize(loc, srcType.getShape(), indices));
        scf::YieldOp::create(builder, loc,
                             combineReduction(builder, loc, kind,
                                              loop.getRegionIterArgs()[0], x));
      }
      Value acc = loop.getResult(0);
      if (accType != element)
        acc = arith::TruncFOp::create(builder, loc, element, acc);
      result.push_back(acc);
    }
    NVVM::Barrier0Op::create(builder, loc);
    elements[reduce.getResult()] = result;
    return success();
  }

  LogicalResult lowerElementwise(Operation *op) {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    Layout1D layout = layoutOf(type);
    Location loc = op->getLoc();
    SmallVector<Value> result;
    // x / s with one scalar s: one reciprocal, then multiplies.
    if (auto div = dyn_cast<arith::DivFOp>(op)) {
      auto &rhs = elementsOf(div.getRhs());
      if (llvm::all_equal(rhs)) {
        Value one = arith::ConstantOp::create(
            builder, loc, builder.getFloatAttr(rhs[0].getType(), 1.0));
        Value reciprocal = arith::DivFOp::create(builder, loc, one, rhs[0]);
        for (Value x : elementsOf(div.getLhs()))
          result.push_back(arith::MulFOp::create(builder, loc, x, reciprocal));
        elements[op->getResult(0)] = result;
        return success();
      }
    }
    for (int64_t k = 0; k < layout.perThread(); ++k) {
      SmallVector<Value> operands;
      for (Value operand : op->getOperands())
        operands.push_back(isBlock(operand.getType()) ? elementsOf(operand)[k]
                                                      : operand);
      Type elementType = type.getElementType();
      if (isa<math::ExpOp>(op)) {
        // NVPTX has no exp: exp(x) = exp2(x * log2(e)) (ex2.approx).
        Value log2e = arith::ConstantOp::create(
            builder, loc,
            builder.getFloatAttr(elementType, std::numbers::log2e));
        Value scaled = arith::MulFOp::create(builder, loc, operands[0], log2e);
        result.push_back(math::Exp2Op::create(builder, loc, scaled));
        continue;
      }
      if (isa<math::LogOp>(op)) {
        Value ln2 = arith::ConstantOp::create(
            builder, loc, builder.getFloatAttr(elementType, std::numbers::ln2));
        Value log2 = math::Log2Op::create(builder, loc, operands[0]);
        result.push_back(arith::MulFOp::create(builder, loc, log2, ln2));
        continue;
      }
      OperationState state(loc, op->getName());
      state.addOperands(operands);
      state.addAttributes(op->getAttrs());
      state.addTypes(elementType);
      result.push_back(builder.create(state)->getResult(0));
    }
    elements[op->getResult(0)] = result;
    return success();
  }

  /// Elements per vector access for `ptr` (and `mask`): contiguous, aligned
  /// and uniformly masked runs within one thread chunk, at most 16 bytes.
  int64_t accessWidth(Value ptr, Value mask, const Layout1D &layout,
                      unsigned bytes) {
    // AxisAnalysis describes 1-D blocks; 2-D accesses are scalar for now.
    if (cast<RankedTensorType>(ptr.getType()).getRank() > 1)
      return 1;
    AxisInfo info = axis.get(ptr);
    int64_t width = std::min<int64_t>(layout.vector, 16 / bytes);
    width = std::min(width, info.contiguity);
    width = std::min(width, std::max<int64_t>(1, info.divisibility / bytes));
    if (mask)
      width = std::min(width, axis.get(mask).constancy);
    return int64_t(1) << llvm::Log2_64(std::max<int64_t>(1, width));
  }

  Value toLLVMPointer(Location loc, Value ptr) {
    auto llvmPtr = LLVM::LLVMPointerType::get(builder.getContext(), 1);
    return UnrealizedConversionCastOp::create(builder, loc, llvmPtr, ptr)
        .getResult(0);
  }

  LogicalResult lowerLoad(blk::LoadOp load) {
    auto type = cast<RankedTensorType>(load.getType());
    Layout1D layout = layoutOf(type);
    Location loc = load.getLoc();
    Type element = type.getElementType();
    unsigned bytes = std::max(1u, element.getIntOrFloatBitWidth() / 8);
    int64_t width = accessWidth(load.getPtr(), load.getMask(), layout, bytes);
    auto &ptrs = elementsOf(load.getPtr());
    SmallVector<Value> result;
    auto vectorType = VectorType::get({width}, element);
    for (int64_t k = 0; k < layout.perThread(); k += width) {
      auto emitLoad = [&]() -> Value {
        if (width == 1)
          return blk::LoadOp::create(builder, loc, ptrs[k]);
        return LLVM::LoadOp::create(builder, loc, vectorType,
                                    toLLVMPointer(loc, ptrs[k]),
                                    /*alignment=*/width * bytes);
      };
      auto otherAt = [&]() -> Value {
        auto value = [&](int64_t j) -> Value {
          if (load.getOther())
            return elementsOf(load.getOther())[k + j];
          return arith::ConstantOp::create(builder, loc,
                                           builder.getZeroAttr(element));
        };
        if (width == 1)
          return value(0);
        Value vec = LLVM::UndefOp::create(builder, loc, vectorType);
        for (int64_t j = 0; j < width; ++j)
          vec = LLVM::InsertElementOp::create(builder, loc, vec, value(j),
                                              i32(loc, j));
        return vec;
      };
      Value loaded;
      if (!load.getMask()) {
        loaded = emitLoad();
      } else {
        // One branch per vector: masked lanes never touch memory.
        Value mask = elementsOf(load.getMask())[k];
        Type resultType = width == 1 ? element : Type(vectorType);
        auto ifOp = scf::IfOp::create(builder, loc, resultType, mask, true);
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToStart(ifOp.thenBlock());
        scf::YieldOp::create(builder, loc, emitLoad());
        builder.setInsertionPointToStart(ifOp.elseBlock());
        scf::YieldOp::create(builder, loc, otherAt());
        loaded = ifOp.getResult(0);
      }
      if (width == 1) {
        result.push_back(loaded);
        continue;
      }
      for (int64_t j = 0; j < width; ++j)
        result.push_back(
            LLVM::ExtractElementOp::create(builder, loc, loaded, i32(loc, j)));
    }
    elements[load.getResult()] = result;
    return success();
  }

  LogicalResult lowerStore(blk::StoreOp store) {
    auto type = cast<RankedTensorType>(store.getPtr().getType());
    Layout1D layout = layoutOf(type);
    Location loc = store.getLoc();
    Type element = blk::elementTypeOf(store.getValue().getType());
    unsigned bytes = std::max(1u, element.getIntOrFloatBitWidth() / 8);
    int64_t width = accessWidth(store.getPtr(), store.getMask(), layout, bytes);
    auto &ptrs = elementsOf(store.getPtr());
    auto &values = elementsOf(store.getValue());
    auto vectorType = VectorType::get({width}, element);
    for (int64_t k = 0; k < layout.perThread(); k += width) {
      OpBuilder::InsertionGuard guard(builder);
      if (store.getMask()) {
        auto ifOp =
            scf::IfOp::create(builder, loc, elementsOf(store.getMask())[k]);
        builder.setInsertionPointToStart(ifOp.thenBlock());
      }
      if (width == 1) {
        blk::StoreOp::create(builder, loc, ptrs[k], values[k], Value());
        continue;
      }
      Value vec = LLVM::UndefOp::create(builder, loc, vectorType);
      for (int64_t j = 0; j < width; ++j)
        vec = LLVM::InsertElementOp::create(builder, loc, vec, values[k + j],
                                            i32(loc, j));
      LLVM::StoreOp::create(builder, loc, vec, toLLVMPointer(loc, ptrs[k]),
                            /*alignment=*/width * bytes);
    }
    return success();
  }

  /// A fresh shared-memory array of `count` elements for one reduction.
  /// The kernel's shared-memory scratch, seen as `count` elements of
  /// `element`. Every exchange through it (cross-warp reductions,
  /// broadcasts, 2-D reductions) is fenced by barriers before and after the
  /// reads, so all of them share one array sized for the largest.
  Value sharedArray(Location loc, Type element, int64_t count) {
    int64_t bytes = count * std::max<int64_t>(
                                1, isa<LLVM::LLVMPointerType>(element)
                                       ? 8
                                       : element.getIntOrFloatBitWidth() / 8);
    sharedBytes = std::max(sharedBytes, bytes);
    return LLVM::AddressOfOp::create(
        builder, loc, LLVM::LLVMPointerType::get(builder.getContext(), 3),
        sharedName());
  }

  std::string sharedName() {
    return ("__blk_smem_" + func.getName()).str();
  }

  /// Declares the scratch array once its size is known.
  void declareShared() {
    if (!sharedBytes)
      return;
    auto module = func->getParentOfType<ModuleOp>();
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(
        builder, func.getLoc(),
        LLVM::LLVMArrayType::get(builder.getI8Type(), sharedBytes),
        /*isConstant=*/false, LLVM::Linkage::Internal, sharedName(),
        Attribute(), /*alignment=*/16, /*addrSpace=*/3);
  }

  LogicalResult lowerReduce(blk::ReduceOp reduce) {
    if (reduce.getSrc().getType().getRank() > 1)
      return lowerReduce2D(reduce);
    Location loc = reduce.getLoc();
    RankedTensorType srcType = reduce.getSrc().getType();
    Layout1D layout = layoutOf(srcType);
    Type element = srcType.getElementType();
    Type accType = reductionAccumulatorType(element);
    bool widen = accType != element;
    if (accType.getIntOrFloatBitWidth() > 32)
      return reduce.emitOpError()
             << "of " << element << " is not supported on the GPU yet";
    blk::ReduceKind kind = reduce.getKind();
    auto &xs = elementsOf(reduce.getSrc());

    // 1. In-thread; replicas of small blocks contribute the identity.
    Value acc = reductionIdentity(builder, loc, kind, accType);
    for (int64_t k = 0; k < layout.perThread(); ++k) {
      Value x = xs[k];
      if (widen)
        x = arith::ExtFOp::create(builder, loc, accType, x);
      if (layout.replicated()) {
        Value valid = arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::slt, rawIndex(loc, layout, k),
            i32(loc, layout.size));
        x = arith::SelectOp::create(
            builder, loc, valid, x,
            reductionIdentity(builder, loc, kind, accType));
      }
      acc = combineReduction(builder, loc, kind, acc, x);
    }
    // 2. Across the warp: butterfly shuffles.
    Value all = i32(loc, -1), clamp = i32(loc, kWarpSize - 1);
    for (int offset = kWarpSize / 2; offset >= 1; offset /= 2) {
      Value other = NVVM::ShflOp::create(builder, loc, accType, all, acc,
                                         i32(loc, offset), clamp,
                                         NVVM::ShflKind::bfly, UnitAttr());
      acc = combineReduction(builder, loc, kind, acc, other);
    }
    // 3. Across warps: lane 0 of each warp publishes, everyone combines.
    if (numWarps > 1) {
      Value smem = sharedArray(loc, accType, numWarps);
      Value lane = arith::AndIOp::create(builder, loc, threadId,
                                         i32(loc, kWarpSize - 1));
      Value warp = arith::ShRUIOp::create(builder, loc, threadId,
                                          i32(loc, llvm::Log2_32(kWarpSize)));
      Value isLeader = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::eq, lane, i32(loc, 0));
      auto ptrType = LLVM::LLVMPointerType::get(builder.getContext(), 3);
      {
        OpBuilder::InsertionGuard guard(builder);
        auto ifOp = scf::IfOp::create(builder, loc, isLeader);
        builder.setInsertionPointToStart(ifOp.thenBlock());
        Value slot = LLVM::GEPOp::create(builder, loc, ptrType, accType, smem,
                                         ValueRange{warp});
        LLVM::StoreOp::create(builder, loc, acc, slot);
      }
      NVVM::Barrier0Op::create(builder, loc);
      acc = reductionIdentity(builder, loc, kind, accType);
      for (int w = 0; w < numWarps; ++w) {
        Value slot = LLVM::GEPOp::create(builder, loc, ptrType, accType, smem,
                                         ArrayRef<LLVM::GEPArg>{w});
        acc =
            combineReduction(builder, loc, kind, acc,
                             LLVM::LoadOp::create(builder, loc, accType, slot));
      }
      // The next use of this array (next loop iteration) waits for readers.
      NVVM::Barrier0Op::create(builder, loc);
    }
    if (widen)
      acc = arith::TruncFOp::create(builder, loc, element, acc);
    reduce.getResult().replaceAllUsesWith(acc);
    return success();
  }

  LogicalResult lowerFor(scf::ForOp loop) {
    Location loc = loop.getLoc();
    // Carried blocks travel as their per-thread elements.
    SmallVector<Value> inits;
    SmallVector<int64_t> counts;
    for (Value init : loop.getInitArgs()) {
      if (isBlock(init.getType())) {
        auto &elems = elementsOf(init);
        inits.append(elems.begin(), elems.end());
        counts.push_back(elems.size());
      } else {
        inits.push_back(init);
        counts.push_back(-1);
      }
    }
    auto newLoop =
        scf::ForOp::create(builder, loc, loop.getLowerBound(),
                           loop.getUpperBound(), loop.getStep(), inits);
    Block *oldBody = loop.getBody(), *newBody = newLoop.getBody();
    if (newBody->mightHaveTerminator())
      newBody->getTerminator()->erase();
    newBody->getOperations().splice(newBody->end(), oldBody->getOperations());
    oldBody->getArgument(0).replaceAllUsesWith(newLoop.getInductionVar());
    unsigned next = 0;
    for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
      if (counts[i] < 0) {
        arg.replaceAllUsesWith(newLoop.getRegionIterArgs()[next++]);
        continue;
      }
      SmallVector<Value> elems;
      for (int64_t j = 0; j < counts[i]; ++j)
        elems.push_back(newLoop.getRegionIterArgs()[next++]);
      elements[arg] = elems;
    }
    OpBuilder::InsertionGuard guard(builder);
    if (failed(lowerBlock(*newBody)))
      return failure();
    auto yield = cast<scf::YieldOp>(newBody->getTerminator());
    builder.setInsertionPoint(yield);
    SmallVector<Value> yielded;
    for (Value v : yield.getOperands()) {
      if (isBlock(v.getType()))
        llvm::append_range(yielded, elementsOf(v));
      else
        yielded.push_back(v);
    }
    scf::YieldOp::create(builder, loc, yielded);
    toErase.push_back(yield);
    next = 0;
    for (auto [i, result] : llvm::enumerate(loop.getResults())) {
      if (counts[i] < 0) {
        result.replaceAllUsesWith(newLoop.getResult(next++));
        continue;
      }
      SmallVector<Value> elems;
      for (int64_t j = 0; j < counts[i]; ++j)
        elems.push_back(newLoop.getResult(next++));
      elements[result] = elems;
    }
    toErase.push_back(loop);
    return success();
  }

  LogicalResult lowerBlock(Block &block) {
    for (Operation &opRef : llvm::make_early_inc_range(block)) {
      Operation *op = &opRef;
      builder.setInsertionPoint(op);
      Location loc = op->getLoc();
      if (auto pid = dyn_cast<blk::ProgramIdOp>(op)) {
        Type i32Type = builder.getI32Type();
        Value id = pid.getAxis() == 0
                       ? Value(NVVM::BlockIdXOp::create(builder, loc, i32Type))
                   : pid.getAxis() == 1
                       ? Value(NVVM::BlockIdYOp::create(builder, loc, i32Type))
                       : Value(NVVM::BlockIdZOp::create(builder, loc, i32Type));
        pid.replaceAllUsesWith(id);
        toErase.push_back(op);
        continue;
      }
      if (auto n = dyn_cast<blk::NumProgramsOp>(op)) {
        Type i32Type = builder.getI32Type();
        Value count =
            n.getAxis() == 0
                ? Value(NVVM::GridDimXOp::create(builder, loc, i32Type))
            : n.getAxis() == 1
                ? Value(NVVM::GridDimYOp::create(builder, loc, i32Type))
                : Value(NVVM::GridDimZOp::create(builder, loc, i32Type));
        n.replaceAllUsesWith(count);
        toErase.push_back(op);
        continue;
      }
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        if (failed(lowerFor(loop)))
          return failure();
        continue;
      }
      if (op->getNumRegions() > 0) {
        if (hasBlocks(op))
          return op->emitOpError()
                 << "on blocks has no GPU lowering (only scf.for may carry "
                    "blocks)";
        for (Region &region : op->getRegions())
          for (Block &inner : region)
            if (failed(lowerBlock(inner)))
              return failure();
        continue;
      }
      if (isa<scf::YieldOp>(op) || !hasBlocks(op))
        continue;
      LogicalResult result = success();
      if (auto expand = dyn_cast<blk::ExpandDimsOp>(op)) {
        // Same element count, same layout: the same elements.
        elements[expand.getResult()] = elementsOf(expand.getSrc());
      } else if (auto bcast = dyn_cast<blk::BroadcastOp>(op)) {
        result = lowerBroadcast(bcast);
      } else if (auto range = dyn_cast<blk::MakeRangeOp>(op)) {
        Layout1D layout = layoutOf(range.getType());
        SmallVector<Value> elems;
        for (int64_t k = 0; k < layout.perThread(); ++k) {
          Value i = index(loc, layout, k);
          if (range.getStartAttr().getInt() != 0)
            i = arith::AddIOp::create(builder, loc, i,
                                      i32(loc, range.getStartAttr().getInt()));
          elems.push_back(i);
        }
        elements[range.getResult()] = elems;
      } else if (auto splat = dyn_cast<blk::SplatOp>(op)) {
        elements[splat.getResult()] = SmallVector<Value>(
            layoutOf(splat.getType()).perThread(), splat.getSrc());
      } else if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
        auto splatAttr = dyn_cast<SplatElementsAttr>(constant.getValue());
        if (!splatAttr)
          return op->emitOpError() << "non-splat block constants are not "
                                      "supported on the GPU";
        Value scalar = arith::ConstantOp::create(
            builder, loc,
            cast<TypedAttr>(splatAttr.getSplatValue<Attribute>()));
        elements[constant.getResult()] = SmallVector<Value>(
            layoutOf(cast<RankedTensorType>(constant.getType())).perThread(),
            scalar);
      } else if (auto addptr = dyn_cast<blk::AddPtrOp>(op)) {
        SmallVector<Value> elems;
        auto &ptrs = elementsOf(addptr.getPtr());
        auto &offsets = elementsOf(addptr.getOffset());
        Type ptrType = blk::elementTypeOf(addptr.getType());
        for (size_t k = 0; k < ptrs.size(); ++k)
          elems.push_back(blk::AddPtrOp::create(builder, loc, ptrType, ptrs[k],
                                                offsets[k]));
        elements[addptr.getResult()] = elems;
      } else if (auto load = dyn_cast<blk::LoadOp>(op)) {
        result = lowerLoad(load);
      } else if (auto store = dyn_cast<blk::StoreOp>(op)) {
        result = lowerStore(store);
      } else if (auto reduce = dyn_cast<blk::ReduceOp>(op)) {
        result = lowerReduce(reduce);
      } else if (op->hasTrait<OpTrait::Elementwise>() &&
                 op->getNumResults() == 1) {
        result = lowerElementwise(op);
      } else {
        return op->emitOpError() << "on blocks has no GPU lowering";
      }
      if (failed(result))
        return failure();
      toErase.push_back(op);
    }
    return success();
  }
};

struct ConvertBlkToNVVM
    : blockjit::impl::ConvertBlkToNVVMBase<ConvertBlkToNVVM> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto warps = module->getAttrOfType<IntegerAttr>(kNumWarpsAttr);
    if (!warps) {
      module.emitError() << "run blk-assign-layouts first (no " << kNumWarpsAttr
                         << " on the module)";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (func.isExternal())
        continue;
      if (failed(KernelLowering(func, warps.getInt()).run()))
        return signalPassFailure();
    }
  }
};

} // namespace
