//===- Memory.cpp - pointer arithmetic, vector loads and stores ----------===//
//
// A thread's contiguous elements are loaded and stored as vectors as wide as
// AxisAnalysis allows, under one branch per vector when masked: masked lanes
// never touch memory. A mask that may change within a vector (a causal
// `col <= row`) takes a second branch: a vector whose lanes are all on is one
// access, the rest go element by element. Every element is stored once, by its
// owner: replicas of a block smaller than the program's threads, and every
// thread but thread 0 for a scalar store, skip it. Otherwise a slower warp
// could store a value it loaded after a faster one had already stored there (an
// in-place `store(p, load(p) + 1)` would add twice).
//
//===----------------------------------------------------------------------===//
#include "compiler/gpu/AxisInfo.h"
#include "compiler/gpu/ToNVVM/Lowering.h"

#include "dialect/BlkDialect.h"
#include "dialect/gpu/BlkGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace blockjit::nvvm {

Value otherChunk(OpBuilder &builder, Location loc, ValueRange other,
                 Type element, int64_t k, int64_t width) {
  auto value = [&](int64_t j) -> Value {
    if (!other.empty())
      return other[k + j];
    return arith::ConstantOp::create(builder, loc,
                                     builder.getZeroAttr(element));
  };
  if (width == 1)
    return value(0);
  Value vec =
      LLVM::UndefOp::create(builder, loc, VectorType::get({width}, element));
  for (int64_t j = 0; j < width; ++j)
    vec = LLVM::InsertElementOp::create(builder, loc, vec, value(j),
                                        i32Constant(builder, loc, j));
  return vec;
}

Value loadVector(OpBuilder &builder, Location loc, Type element, int64_t width,
                 Value ptr, unsigned alignment) {
  auto type = VectorType::get({width}, element);
  if (!element.isInteger(1))
    return LLVM::LoadOp::create(builder, loc, type, ptr, alignment);
  Value bytes = LLVM::LoadOp::create(
      builder, loc, VectorType::get({width}, builder.getI8Type()), ptr,
      alignment);
  return LLVM::TruncOp::create(builder, loc, type, bytes);
}

void storeVector(OpBuilder &builder, Location loc, Value vector, Value ptr,
                 unsigned alignment) {
  // A scalar i1 already stores as a byte.
  auto type = dyn_cast<VectorType>(vector.getType());
  if (type && type.getElementType().isInteger(1))
    vector = LLVM::ZExtOp::create(
        builder, loc, VectorType::get(type.getShape(), builder.getI8Type()),
        vector);
  LLVM::StoreOp::create(builder, loc, vector, ptr, alignment);
}

namespace {

/// Elements per vector access for `ptr` (and `mask`): contiguous, aligned
/// and uniformly masked runs within one thread chunk, at most 16 bytes.
/// Blocks of any rank: a chunk is `vector` consecutive linear indices
/// starting at a multiple of `vector`, which blk-assign-layouts keeps within
/// one row of the last dimension, and AxisAnalysis's facts are runs aligned
/// along that dimension, so a width dividing both stays within one run.
int64_t accessWidth(const AxisAnalysis &axis, Value ptr, Value mask,
                    Type element) {
  auto type = cast<RankedTensorType>(ptr.getType());
  return std::min(layoutOf(type).vector,
                  vectorRunOf(axis, ptr, mask, blk::elementBytes(element)));
}

/// A blk.load's or blk.store's access: as wide as the pointers allow, the
/// mask split per vector where its constancy is narrower.
AccessWidth splitAccessWidth(const AxisAnalysis &axis, Value ptr, Value mask,
                             Type element) {
  AccessWidth access;
  access.width = accessWidth(axis, ptr, Value(), element);
  access.maskVaries =
      mask && accessWidth(axis, ptr, mask, element) < access.width;
  return access;
}

/// Whether all `width` lanes of `mask` from k are on.
Value allLanesOn(OpBuilder &builder, Location loc, ValueRange mask, int64_t k,
                 int64_t width) {
  Value all = mask[k];
  for (int64_t j = 1; j < width; ++j)
    all = arith::AndIOp::create(builder, loc, all, mask[k + j]);
  return all;
}

/// addptr of blocks: one addptr per element.
struct AddPtrLowering : OpConversionPattern<blk::AddPtrOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(blk::AddPtrOp addptr, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ValueRange ptrs = adaptor.getPtr(), offsets = adaptor.getOffset();
    Type ptrType = blk::elementTypeOf(addptr.getType());
    SmallVector<Value> elements;
    for (size_t k = 0; k < ptrs.size(); ++k)
      elements.push_back(blk::AddPtrOp::create(rewriter, addptr.getLoc(),
                                               ptrType, ptrs[k], offsets[k]));
    rewriter.replaceOpWithMultiple(addptr, {elements});
    return success();
  }
};

struct LoadLowering : KernelOpLowering<blk::LoadOp> {
  using KernelOpLowering::KernelOpLowering;

  LogicalResult
  matchAndRewrite(blk::LoadOp load, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(load.getType());
    Layout1D layout = layoutOf(type);
    Location loc = load.getLoc();
    Type element = type.getElementType();
    unsigned bytes = blk::elementBytes(element);
    auto [width, maskVaries] = kernel.accessWidths.at(load);
    ValueRange ptrs = adaptor.getPtr();
    ValueRange other = load.getOther() ? adaptor.getOther() : ValueRange();
    SmallVector<Value> result;
    auto vectorType = VectorType::get({width}, element);
    // Lanes k .. k + n - 1 loaded when `on` (n = 1 or width), else `other`.
    auto loadUnder = [&](Value on, int64_t k, int64_t n) -> Value {
      auto emitLoad = [&]() -> Value {
        if (n == 1)
          return blk::LoadOp::create(rewriter, loc, ptrs[k]);
        return loadVector(rewriter, loc, element, n,
                          toLLVMPointer(rewriter, loc, ptrs[k]),
                          /*alignment=*/n * bytes);
      };
      if (!on)
        return emitLoad();
      Type resultType = n == 1 ? element : Type(vectorType);
      auto ifOp = scf::IfOp::create(rewriter, loc, resultType, on, true);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(rewriter, loc, emitLoad());
      rewriter.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(rewriter, loc,
                           otherChunk(rewriter, loc, other, element, k, n));
      return ifOp.getResult(0);
    };
    for (int64_t k = 0; k < layout.perThread(); k += width) {
      Value loaded;
      if (!load.getMask()) {
        loaded = loadUnder(Value(), k, width);
      } else if (!maskVaries) {
        // One branch per vector: masked lanes never touch memory.
        loaded = loadUnder(adaptor.getMask()[k], k, width);
      } else {
        // All lanes on: one vector; else each lane under its own mask.
        ValueRange mask = adaptor.getMask();
        auto ifOp =
            scf::IfOp::create(rewriter, loc, vectorType,
                              allLanesOn(rewriter, loc, mask, k, width), true);
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(ifOp.thenBlock());
        scf::YieldOp::create(rewriter, loc, loadUnder(Value(), k, width));
        rewriter.setInsertionPointToStart(ifOp.elseBlock());
        Value lanes = LLVM::UndefOp::create(rewriter, loc, vectorType);
        for (int64_t j = 0; j < width; ++j)
          lanes = LLVM::InsertElementOp::create(
              rewriter, loc, lanes, loadUnder(mask[k + j], k + j, 1),
              i32Constant(rewriter, loc, j));
        scf::YieldOp::create(rewriter, loc, lanes);
        loaded = ifOp.getResult(0);
      }
      if (width == 1) {
        result.push_back(loaded);
        continue;
      }
      for (int64_t j = 0; j < width; ++j)
        result.push_back(LLVM::ExtractElementOp::create(
            rewriter, loc, loaded, i32Constant(rewriter, loc, j)));
    }
    rewriter.replaceOpWithMultiple(load, {result});
    return success();
  }
};

/// The values as 32-bit words when each consecutive pair is the two halves
/// of one packed conversion (PairedTruncFLowering's vector<2xbf16/f16>);
/// null otherwise. The pairs then reach a store under a mask, blocks away,
/// as one register each rather than as halves to pack again.
Value packedPairsVector(OpBuilder &builder, Location loc, ValueRange values) {
  if (values.size() % 2)
    return Value();
  SmallVector<Value> pairs;
  for (size_t j = 0; j < values.size(); j += 2) {
    auto lo = values[j].getDefiningOp<LLVM::ExtractElementOp>();
    auto hi = values[j + 1].getDefiningOp<LLVM::ExtractElementOp>();
    if (!lo || !hi || lo.getVector() != hi.getVector())
      return Value();
    // Two 16-bit halves make one word; other pairs (a shape op's vector of
    // 2 x f32 or 2 x i8) are stored element by element.
    auto pairType = cast<VectorType>(lo.getVector().getType());
    if (pairType.getNumElements() != 2 ||
        pairType.getElementType() != values[j].getType() ||
        pairType.getElementTypeBitWidth() != 16)
      return Value();
    APInt loIndex, hiIndex;
    if (!matchPattern(lo.getPosition(), m_ConstantInt(&loIndex)) ||
        !matchPattern(hi.getPosition(), m_ConstantInt(&hiIndex)) ||
        loIndex != 0 || hiIndex != 1)
      return Value();
    pairs.push_back(lo.getVector());
  }
  Type word = builder.getI32Type();
  Value vec = LLVM::UndefOp::create(
      builder, loc, VectorType::get({int64_t(pairs.size())}, word));
  for (auto [j, pair] : llvm::enumerate(pairs))
    vec = LLVM::InsertElementOp::create(
        builder, loc, vec, LLVM::BitcastOp::create(builder, loc, word, pair),
        i32Constant(builder, loc, j));
  return vec;
}

struct StoreLowering : KernelOpLowering<blk::StoreOp> {
  using KernelOpLowering::KernelOpLowering;

  LogicalResult
  matchAndRewrite(blk::StoreOp store, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(store.getPtr().getType());
    Layout1D layout = layoutOf(type);
    Location loc = store.getLoc();
    Type element = blk::elementTypeOf(store.getValue().getType());
    unsigned bytes = blk::elementBytes(element);
    auto [width, maskVaries] = kernel.accessWidths.at(store);
    ValueRange ptrs = adaptor.getPtr(), values = adaptor.getValue();
    auto vectorType = VectorType::get({width}, element);
    for (int64_t k = 0; k < layout.perThread(); k += width) {
      OpBuilder::InsertionGuard guard(rewriter);
      // A vector never straddles a chunk, whose threads own all or none of it.
      Value condition;
      if (store.getMask())
        condition = maskVaries
                        ? allLanesOn(rewriter, loc, adaptor.getMask(), k, width)
                        : adaptor.getMask()[k];
      Value owner; // this thread stores the chunk (null: always)
      auto require = [&](Value also) {
        condition = condition
                        ? arith::AndIOp::create(rewriter, loc, condition, also)
                        : also;
        owner =
            owner ? arith::AndIOp::create(rewriter, loc, owner, also) : also;
      };
      if (layout.replicated())
        require(arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::slt,
            rawElementIndex(rewriter, loc, kernel.threadId, layout, k),
            i32Constant(rewriter, loc, layout.size)));
      // A cluster's CTAs all hold a block that is not split: one stores it.
      if (kernel.numCTAs > 1 && !layout.split())
        require(kernel.isFirstCTA);
      if (maskVaries) {
        // Not all lanes on: each lane under its own mask (and ownership).
        auto ifOp = scf::IfOp::create(rewriter, loc, condition,
                                      /*withElseRegion=*/true);
        rewriter.setInsertionPointToStart(ifOp.elseBlock());
        for (int64_t j = 0; j < width; ++j) {
          Value on = adaptor.getMask()[k + j];
          if (owner)
            on = arith::AndIOp::create(rewriter, loc, on, owner);
          auto lane = scf::IfOp::create(rewriter, loc, on);
          OpBuilder::InsertionGuard inLane(rewriter);
          rewriter.setInsertionPointToStart(lane.thenBlock());
          blk::StoreOp::create(rewriter, loc, ptrs[k + j], values[k + j],
                               Value());
        }
        // The vector store below goes in the all-lanes-on branch.
        rewriter.setInsertionPointToStart(ifOp.thenBlock());
      } else if (condition) {
        auto ifOp = scf::IfOp::create(rewriter, loc, condition);
        rewriter.setInsertionPointToStart(ifOp.thenBlock());
      }
      if (width == 1) {
        blk::StoreOp::create(rewriter, loc, ptrs[k], values[k], Value());
        continue;
      }
      Value vec = packedPairsVector(rewriter, loc, values.slice(k, width));
      if (!vec) {
        vec = LLVM::UndefOp::create(rewriter, loc, vectorType);
        for (int64_t j = 0; j < width; ++j)
          vec = LLVM::InsertElementOp::create(rewriter, loc, vec,
                                              values[k + j],
                                              i32Constant(rewriter, loc, j));
      }
      storeVector(rewriter, loc, vec, toLLVMPointer(rewriter, loc, ptrs[k]),
                  /*alignment=*/width * bytes);
    }
    rewriter.eraseOp(store);
    return success();
  }
};

} // namespace

DenseMap<Operation *, AccessWidth> accessWidths(func::FuncOp func,
                                                const AxisAnalysis &axis) {
  DenseMap<Operation *, AccessWidth> widths;
  func.walk([&](Operation *op) {
    if (auto load = dyn_cast<blk::LoadOp>(op)) {
      if (blk::isBlock(load.getType()))
        widths[op] = splitAccessWidth(axis, load.getPtr(), load.getMask(),
                                      blk::elementTypeOf(load.getType()));
    } else if (auto staged = dyn_cast<blkgpu::AsyncLoadOp>(op)) {
      widths[op] = {accessWidth(axis, staged.getPtr(), staged.getMask(),
                                staged.getType().getElementType()),
                    false};
    } else if (auto store = dyn_cast<blk::StoreOp>(op)) {
      if (blk::isBlock(store.getPtr().getType()))
        widths[op] =
            splitAccessWidth(axis, store.getPtr(), store.getMask(),
                             blk::elementTypeOf(store.getValue().getType()));
    }
  });
  return widths;
}

void populateMemoryPatterns(const BlockTypeConverter &converter,
                            RewritePatternSet &patterns, KernelState &kernel) {
  MLIRContext *context = patterns.getContext();
  patterns.add<AddPtrLowering>(converter, context);
  patterns.add<LoadLowering, StoreLowering>(converter, context, kernel);
}

void guardScalarStores(func::FuncOp func, const KernelState &kernel) {
  SmallVector<blk::StoreOp> stores;
  func.walk([&](blk::StoreOp store) {
    if (!blk::isBlock(store.getPtr().getType()))
      stores.push_back(store);
  });
  for (blk::StoreOp store : stores) {
    OpBuilder builder(store);
    Location loc = store.getLoc();
    Value condition =
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                              kernel.threadId, i32Constant(builder, loc, 0));
    if (kernel.numCTAs > 1)
      condition =
          arith::AndIOp::create(builder, loc, condition, kernel.isFirstCTA);
    if (Value mask = store.getMask())
      condition = arith::AndIOp::create(builder, loc, mask, condition);
    auto ifOp = scf::IfOp::create(builder, loc, condition);
    builder.setInsertionPointToStart(ifOp.thenBlock());
    blk::StoreOp::create(builder, loc, store.getPtr(), store.getValue(),
                         Value());
    store.erase();
  }
}

} // namespace blockjit::nvvm
