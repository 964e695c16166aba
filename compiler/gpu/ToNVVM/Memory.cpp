//===- Memory.cpp - pointer arithmetic, vector loads and stores ----------===//
//
// A thread's contiguous elements are loaded and stored as vectors as wide as
// AxisAnalysis allows, under one branch per vector when masked: masked lanes
// never touch memory. A load that blk-version-prefix-masks marked
// blkgpu.branch_free takes no branch: a vector that is off reads the
// stand-in (16 bytes of global memory, kMaskedLoadStandIn) instead of its
// own address and yields `other`. A mask that may change within a vector (a
// causal `col <= row`) takes a second branch: a vector whose lanes are all on
// is one access, the rest go element by element. Every element is stored once,
// by its owner: replicas of a block smaller than the program's threads, and
// every thread but thread 0 for a scalar store, skip it. Otherwise a slower
// warp could store a value it loaded after a faster one had already stored
// there (an in-place `store(p, load(p) + 1)` would add twice). A row of 2-byte
// elements that starts only element-aligned, held by one warp, moves in
// 4-byte words shifted by an element at run time (WordPairs).
//
//===----------------------------------------------------------------------===//
#include "compiler/EvictionHints.h"
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

/// Whether lanes k .. k + width - 1 of `other` (none: zeros) are all zero
/// bits, as the masked-load stand-in's bytes read.
static bool otherIsZeroBits(ValueRange other, int64_t k, int64_t width) {
  return other.empty() || llvm::all_of(other.slice(k, width), [](Value v) {
           return matchPattern(v, m_PosZeroFloat()) ||
                  matchPattern(v, m_Zero());
         });
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

} // namespace

AccessWidth blockAccessWidth(const AxisAnalysis &axis, Value ptr, Value mask,
                             Type element) {
  AccessWidth access = splitAccessWidth(axis, ptr, mask, element);
  Layout1D layout = layoutOf(cast<RankedTensorType>(ptr.getType()));
  access.wordPairs = access.width == 1 && layout.vector == 2 &&
                     layout.threads == kWarpSize && !layout.split() &&
                     !layout.replicated() &&
                     elementAlignedRow(axis, ptr, blk::elementBytes(element));
  return access;
}

bool readsStandInWhenOff(Type element) {
  return element.isIntOrFloat() && !element.isInteger(1) &&
         element.getIntOrFloatBitWidth() <= 128;
}

namespace {

/// Whether all `width` lanes of `mask` from k are on.
Value allLanesOn(OpBuilder &builder, Location loc, ValueRange mask, int64_t k,
                 int64_t width) {
  Value all = mask[k];
  for (int64_t j = 1; j < width; ++j)
    all = arith::AndIOp::create(builder, loc, all, mask[k + j]);
  return all;
}

/// The stand-in's address in global memory.
Value maskedLoadStandIn(OpBuilder &builder, Location loc) {
  return LLVM::AddressOfOp::create(
      builder, loc, LLVM::LLVMPointerType::get(builder.getContext(), 1),
      kMaskedLoadStandIn);
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

/// Rows of 2-byte elements that start only element-aligned, on one warp
/// (AccessWidth::wordPairs). Lane l holds elements 2l and 2l + 1 of each
/// group g of 64 (registers 2g and 2g + 1). Where the row starts on a word
/// boundary each pair is one 4-byte word. Where it starts mid-word, the
/// aligned word at a pair's second element holds it and the next lane's
/// first (lane 31's: lane 0's of group g + 1): each lane moves that word,
/// and one shuffle a group brings each lane its first element (loads) or
/// its neighbour's (stores). Lane 0 of group 0 moves its first element on
/// its own. Masks travel as ballots: a word is stored only when both of
/// its elements are on, so each element is stored exactly once, and loaded
/// when its higher element is on, so a masked tail never touches a byte
/// past it (an off lower element's bytes are read and discarded).
struct WordPairs {
  OpBuilder &b;
  Location loc;
  Type element;                         // the 2-byte element type
  Value lane;                           // %laneid
  int64_t groups;                       // register pairs of the thread
  ValueRange mask;                      // per register; empty: every element on
  SmallVector<Value> firstOn, secondOn; // ballots of each group's elements

  WordPairs(OpBuilder &b, Location loc, Type element, int64_t perThread,
            ValueRange mask)
      : b(b), loc(loc), element(element), groups(perThread / 2), mask(mask) {
    lane = NVVM::LaneIdOp::create(
        b, loc, b.getI32Type(),
        LLVM::ConstantRangeAttr::get(b.getContext(), 32, 0, kWarpSize));
    for (int64_t g = 0; g < groups; ++g) {
      firstOn.push_back(ballot(on(2 * g)));
      secondOn.push_back(ballot(on(2 * g + 1)));
    }
  }

  Value i32(int64_t value) { return i32Constant(b, loc, value); }
  Value on(int64_t k) {
    return mask.empty() ? Value(arith::ConstantIntOp::create(b, loc, 1, 1))
                        : mask[k];
  }
  Value ballot(Value predicate) {
    if (mask.empty())
      return i32(-1);
    return NVVM::VoteSyncOp::create(b, loc, b.getI32Type(), i32(-1), predicate,
                                    NVVM::VoteSyncKind::ballot);
  }
  Value bitOfLane(Value bits) {
    Value shifted = arith::ShRUIOp::create(b, loc, bits, lane);
    return arith::TruncIOp::create(b, loc, b.getI1Type(), shifted);
  }
  /// Whether the element after this lane's pair of group g is on.
  Value nextOn(int64_t g) {
    Value bits = arith::ShRUIOp::create(b, loc, firstOn[g], i32(1));
    if (g + 1 < groups)
      bits = arith::OrIOp::create(
          b, loc, bits,
          arith::ShLIOp::create(
              b, loc, arith::AndIOp::create(b, loc, firstOn[g + 1], i32(1)),
              i32(31)));
    return bitOfLane(bits);
  }
  /// Whether the element before this lane's pair of group g is on.
  Value previousOn(int64_t g) {
    Value bits = arith::ShLIOp::create(b, loc, secondOn[g], i32(1));
    if (g > 0)
      bits = arith::OrIOp::create(
          b, loc, bits,
          arith::ShRUIOp::create(b, loc, secondOn[g - 1], i32(31)));
    return bitOfLane(bits);
  }
  Value isLane(int64_t l) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                 i32(l));
  }
  /// `word` of lane (lane + delta) mod 32.
  Value rotate(Value word, int64_t delta) {
    Value source = arith::AndIOp::create(
        b, loc, arith::AddIOp::create(b, loc, lane, i32(delta & 31)), i32(31));
    return NVVM::ShflOp::create(b, loc, b.getI32Type(), i32(-1), word, source,
                                i32(31), NVVM::ShflKind::idx, UnitAttr());
  }
  Value toWord(Value value) {
    Value bits = value.getType().isInteger(16)
                     ? value
                     : arith::BitcastOp::create(b, loc, b.getI16Type(), value);
    return arith::ExtUIOp::create(b, loc, b.getI32Type(), bits);
  }
  /// The element in bits [16 * half, 16 * half + 16) of `word`.
  Value fromWord(Value word, int64_t half) {
    if (half)
      word = arith::ShRUIOp::create(b, loc, word, i32(16));
    Value bits = arith::TruncIOp::create(b, loc, b.getI16Type(), word);
    return element.isInteger(16)
               ? bits
               : Value(arith::BitcastOp::create(b, loc, element, bits));
  }
  /// The 4-byte word at `pointer` (4-byte aligned).
  Value loadWord(Value pointer) {
    return LLVM::LoadOp::create(b, loc, b.getI32Type(),
                                toLLVMPointer(b, loc, pointer),
                                /*alignment=*/4);
  }
  void storeWord(Value word, Value pointer) {
    LLVM::StoreOp::create(b, loc, word, toLLVMPointer(b, loc, pointer),
                          /*alignment=*/4);
  }
};

/// Whether the row at `firstPointer` starts on a 4-byte boundary. It is the
/// same for every lane (the block is one contiguous run); the warp's vote
/// says so to ptxas, which otherwise treats the shuffles under the branch
/// as possibly divergent and wraps each in a collective slow path.
Value rowStartsOnWord(OpBuilder &b, Location loc, Value firstPointer) {
  Value address = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(),
                                           toLLVMPointer(b, loc, firstPointer));
  Value low = arith::AndIOp::create(
      b, loc, address, arith::ConstantIntOp::create(b, loc, 2, 64));
  Value onWord =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, low,
                            arith::ConstantIntOp::create(b, loc, 0, 64));
  return NVVM::VoteSyncOp::create(b, loc, b.getI1Type(),
                                  i32Constant(b, loc, -1), onWord,
                                  NVVM::VoteSyncKind::all);
}

/// `then` under `condition` (no results).
void emitIf(OpBuilder &b, Location loc, Value condition,
            function_ref<void()> then) {
  auto ifOp = scf::IfOp::create(b, loc, condition);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  then();
}

/// The value of `then` under `condition`, else of `otherwise`.
Value emitIfElse(OpBuilder &b, Location loc, Type type, Value condition,
                 function_ref<Value()> then, function_ref<Value()> otherwise) {
  auto ifOp = scf::IfOp::create(b, loc, type, condition, true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  scf::YieldOp::create(b, loc, then());
  b.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(b, loc, otherwise());
  return ifOp.getResult(0);
}

/// A row's elements loaded where it starts mid-word (WordPairs).
SmallVector<Value> loadShiftedPairs(OpBuilder &b, Location loc, Type element,
                                    ValueRange ptrs, ValueRange mask,
                                    ValueRange other) {
  // Lanes split the row's words by the mask of each access, so an element
  // stored alone by one lane may be read here in its neighbour's word:
  // bar.warp.sync orders the warp's earlier stores before these loads.
  NVVM::SyncWarpOp::create(b, loc, i32Constant(b, loc, -1));
  WordPairs pairs(b, loc, element, ptrs.size(), mask);
  auto otherAt = [&](int64_t k) {
    return other.empty() ? Value(arith::ConstantOp::create(
                               b, loc, b.getZeroAttr(element)))
                         : other[k];
  };
  Type i32 = b.getI32Type();
  SmallVector<Value> words;
  for (int64_t g = 0; g < pairs.groups; ++g) {
    Value second = ptrs[2 * g + 1];
    Value secondOn = pairs.on(2 * g + 1);
    // The word from the pair's second element: whole when the next element
    // is on, else the second element alone.
    words.push_back(emitIfElse(
        b, loc, i32, pairs.nextOn(g), [&] { return pairs.loadWord(second); },
        [&] {
          return emitIfElse(
              b, loc, i32, secondOn,
              [&] { return pairs.toWord(blk::LoadOp::create(b, loc, second)); },
              [&] { return pairs.i32(0); });
        }));
  }
  SmallVector<Value> result;
  for (int64_t g = 0; g < pairs.groups; ++g) {
    // Each lane's first element is the high half of the previous lane's
    // word (lane 0's: lane 31's of the group before).
    Value sent = g == 0
                     ? words[0]
                     : Value(arith::SelectOp::create(b, loc, pairs.isLane(31),
                                                     words[g - 1], words[g]));
    Value previous = pairs.rotate(sent, -1);
    Value firstOn = pairs.on(2 * g);
    Value first = arith::SelectOp::create(
        b, loc, firstOn, pairs.fromWord(previous, 1), otherAt(2 * g));
    if (g == 0) {
      Value own = arith::AndIOp::create(b, loc, firstOn, pairs.isLane(0));
      first = emitIfElse(
          b, loc, element, own,
          [&] { return Value(blk::LoadOp::create(b, loc, ptrs[0])); },
          [&] { return first; });
    }
    result.push_back(first);
    result.push_back(arith::SelectOp::create(b, loc, pairs.on(2 * g + 1),
                                             pairs.fromWord(words[g], 0),
                                             otherAt(2 * g + 1)));
  }
  return result;
}

/// A row's elements stored where it starts mid-word (WordPairs).
void storeShiftedPairs(OpBuilder &b, Location loc, Type element,
                       ValueRange ptrs, ValueRange mask, ValueRange values) {
  WordPairs pairs(b, loc, element, ptrs.size(), mask);
  for (int64_t g = 0; g < pairs.groups; ++g) {
    Value firstBits = pairs.toWord(values[2 * g]);
    // The next lane's first element (lane 31's: lane 0's of the next group).
    Value sent = firstBits;
    if (g + 1 < pairs.groups)
      sent = arith::SelectOp::create(b, loc, pairs.isLane(0),
                                     pairs.toWord(values[2 * g + 2]), sent);
    Value next = pairs.rotate(sent, 1);
    Value word = arith::OrIOp::create(
        b, loc, pairs.toWord(values[2 * g + 1]),
        arith::ShLIOp::create(b, loc, next, pairs.i32(16)));
    Value secondOn = pairs.on(2 * g + 1);
    Value nextOn = pairs.nextOn(g);
    Value previousOn = pairs.previousOn(g);
    Value firstOn = pairs.on(2 * g);
    Value second = ptrs[2 * g + 1], first = ptrs[2 * g];
    // The word at the second element when both of its elements are on, else
    // the second element alone.
    auto ifOp = scf::IfOp::create(
        b, loc, arith::AndIOp::create(b, loc, secondOn, nextOn), true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      pairs.storeWord(word, second);
      b.setInsertionPointToStart(ifOp.elseBlock());
      emitIf(b, loc, secondOn, [&] {
        blk::StoreOp::create(b, loc, second, values[2 * g + 1], Value());
      });
    }
    // The first element alone where the previous lane's word leaves it out.
    Value alone = arith::AndIOp::create(
        b, loc, firstOn,
        arith::XOrIOp::create(b, loc, previousOn,
                              arith::ConstantIntOp::create(b, loc, 1, 1)));
    emitIf(b, loc, alone, [&] {
      blk::StoreOp::create(b, loc, first, values[2 * g], Value());
    });
  }
}

} // namespace

/// Nested ops included, and the scalar blk accesses that the common patterns
/// lower next.
void markEviction(Operation *before, Operation *access,
                  blk::EvictionAttr eviction) {
  if (!eviction)
    return;
  Block *block = access->getBlock();
  for (Operation *op = before ? before->getNextNode() : &block->front();
       op && op != access; op = op->getNextNode())
    op->walk([&](Operation *nested) {
      if (isa<LLVM::LoadOp, LLVM::StoreOp, NVVM::CpAsyncOp>(nested))
        nested->setAttr(kEvictionAttrName, eviction);
      else if (auto load = dyn_cast<blk::LoadOp>(nested))
        load.setEvictionAttr(eviction);
      else if (auto store = dyn_cast<blk::StoreOp>(nested))
        store.setEvictionAttr(eviction);
    });
}

namespace {

struct LoadLowering : KernelOpLowering<blk::LoadOp> {
  using KernelOpLowering::KernelOpLowering;

  LogicalResult
  matchAndRewrite(blk::LoadOp load, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Operation *before = load->getPrevNode();
    SmallVector<Value> loaded = lowerLoad(load, adaptor, rewriter);
    markEviction(before, load, load.getEvictionAttr());
    rewriter.replaceOpWithMultiple(load, {loaded});
    return success();
  }

  SmallVector<Value> lowerLoad(blk::LoadOp load, OneToNOpAdaptor adaptor,
                               ConversionPatternRewriter &rewriter) const {
    auto type = cast<RankedTensorType>(load.getType());
    Layout1D layout = layoutOf(type);
    Location loc = load.getLoc();
    Type element = type.getElementType();
    AccessWidth access = kernel.accessWidths.at(load);
    ValueRange ptrs = adaptor.getPtr();
    ValueRange other = load.getOther() ? adaptor.getOther() : ValueRange();
    if (access.wordPairs && kernel.numCTAs == 1) {
      // Pairs as words where the row starts on one, else shifted words.
      ValueRange mask = load.getMask() ? adaptor.getMask() : ValueRange();
      SmallVector<Type> types(ptrs.size(), element);
      auto ifOp = scf::IfOp::create(rewriter, loc, types,
                                    rowStartsOnWord(rewriter, loc, ptrs[0]),
                                    /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(rewriter, loc,
                           loadChunks(load, adaptor, rewriter, layout, 2,
                                      /*maskVaries=*/bool(load.getMask())));
      rewriter.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(
          rewriter, loc,
          loadShiftedPairs(rewriter, loc, element, ptrs, mask, other));
      return SmallVector<Value>(ifOp.getResults());
    }
    return loadChunks(load, adaptor, rewriter, layout, access.width,
                      access.maskVaries);
  }

  /// The thread's elements in accesses of `width` (1 or the vector), under
  /// one branch per access, or per element where the mask varies within it.
  SmallVector<Value> loadChunks(blk::LoadOp load, OneToNOpAdaptor adaptor,
                                OpBuilder &rewriter, const Layout1D &layout,
                                int64_t width, bool maskVaries) const {
    Location loc = load.getLoc();
    Type element = cast<RankedTensorType>(load.getType()).getElementType();
    unsigned bytes = blk::elementBytes(element);
    ValueRange ptrs = adaptor.getPtr();
    ValueRange other = load.getOther() ? adaptor.getOther() : ValueRange();
    SmallVector<Value> result;
    // Registers that differ only in these bits hold the same element of a
    // stretched row (blkgpu.stretched_dims): each access loads the first.
    // (None is below the vector chunk, so none is below an access.)
    int64_t sameElementBits = stretchedRegisterBits(load, layout);
    auto vectorType = VectorType::get({width}, element);
    bool branchFree =
        load->hasAttr(blkgpu::BlkGPUDialect::kBranchFreeLoadAttrName);
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
      if (branchFree && readsStandInWhenOff(element)) {
        // No branch: an access that is off reads the stand-in instead and
        // yields `other`, so the accesses after it stay in the same basic
        // block, where ptxas issues them all before waiting on any.
        kernel.usesMaskedLoadStandIn = true;
        Value source = LLVM::SelectOp::create(
            rewriter, loc, on, toLLVMPointer(rewriter, loc, ptrs[k]),
            maskedLoadStandIn(rewriter, loc));
        Type type = n == 1 ? element : Type(vectorType);
        Value loaded =
            LLVM::LoadOp::create(rewriter, loc, type, source, n * bytes);
        // The stand-in's zero bytes are `other` already.
        if (otherIsZeroBits(other, k, n))
          return loaded;
        return arith::SelectOp::create(
            rewriter, loc, on, loaded,
            otherChunk(rewriter, loc, other, element, k, n));
      }
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
      if (int64_t first = k & ~sameElementBits; first != k) {
        for (int64_t j = 0; j < width; ++j)
          result.push_back(result[first + j]);
        continue;
      }
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
    return result;
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
    AccessWidth access = kernel.accessWidths.at(store);
    Operation *before = store->getPrevNode();
    if (access.wordPairs && kernel.numCTAs == 1) {
      // Pairs as words where the row starts on one, else shifted words.
      ValueRange ptrs = adaptor.getPtr();
      auto ifOp = scf::IfOp::create(rewriter, loc,
                                    rowStartsOnWord(rewriter, loc, ptrs[0]),
                                    /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      storeChunks(store, adaptor, rewriter, layout, 2,
                  /*maskVaries=*/bool(store.getMask()));
      rewriter.setInsertionPointToStart(ifOp.elseBlock());
      storeShiftedPairs(rewriter, loc, element, ptrs,
                        store.getMask() ? adaptor.getMask() : ValueRange(),
                        adaptor.getValue());
    } else {
      storeChunks(store, adaptor, rewriter, layout, access.width,
                  access.maskVaries);
    }
    markEviction(before, store, store.getEvictionAttr());
    rewriter.eraseOp(store);
    return success();
  }

  /// The thread's elements in accesses of `width` (1 or the vector), under
  /// one branch per access, or per element where the mask varies within it.
  void storeChunks(blk::StoreOp store, OneToNOpAdaptor adaptor,
                   OpBuilder &rewriter, const Layout1D &layout, int64_t width,
                   bool maskVaries) const {
    Location loc = store.getLoc();
    Type element = blk::elementTypeOf(store.getValue().getType());
    unsigned bytes = blk::elementBytes(element);
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
          vec = LLVM::InsertElementOp::create(rewriter, loc, vec, values[k + j],
                                              i32Constant(rewriter, loc, j));
      }
      storeVector(rewriter, loc, vec, toLLVMPointer(rewriter, loc, ptrs[k]),
                  /*alignment=*/width * bytes);
    }
  }
};

} // namespace

DenseMap<Operation *, AccessWidth> accessWidths(func::FuncOp func,
                                                const AxisAnalysis &axis) {
  DenseMap<Operation *, AccessWidth> widths;
  func.walk([&](Operation *op) {
    if (auto load = dyn_cast<blk::LoadOp>(op)) {
      if (blk::isBlock(load.getType()))
        widths[op] = blockAccessWidth(axis, load.getPtr(), load.getMask(),
                                      blk::elementTypeOf(load.getType()));
    } else if (auto staged = dyn_cast<blkgpu::AsyncLoadOp>(op)) {
      widths[op] = {accessWidth(axis, staged.getPtr(), staged.getMask(),
                                staged.getType().getElementType()),
                    false};
    } else if (auto store = dyn_cast<blk::StoreOp>(op)) {
      if (blk::isBlock(store.getPtr().getType()))
        widths[op] =
            blockAccessWidth(axis, store.getPtr(), store.getMask(),
                             blk::elementTypeOf(store.getValue().getType()));
    }
  });
  return widths;
}

void declareMaskedLoadStandIn(ModuleOp module, Location loc) {
  if (module.lookupSymbol(kMaskedLoadStandIn))
    return;
  auto builder = OpBuilder::atBlockBegin(module.getBody());
  auto bytes =
      LLVM::LLVMArrayType::get(builder.getI8Type(), kMaskedLoadStandInBytes);
  LLVM::GlobalOp::create(
      builder, loc, bytes, /*isConstant=*/true, LLVM::Linkage::Internal,
      kMaskedLoadStandIn,
      // Zero bytes as a string: no tensor type left
      // at this stage, even in an initializer.
      builder.getStringAttr(std::string(kMaskedLoadStandInBytes, '\0')),
      /*alignment=*/kMaskedLoadStandInBytes,
      /*addrSpace=*/1);
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
                         Value(), store.getEvictionAttr());
    store.erase();
  }
}

} // namespace blockjit::nvvm
