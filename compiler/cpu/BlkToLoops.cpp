//===- BlkToLoops.cpp - blocks to scalar loops for the host --------------===//
//
// Every tensor value of a kernel gets a *lowering*: either a stack buffer
// holding its elements, a recipe that recomputes an element from the
// element indices (splat, make_range, broadcast, expand_dims, addptr and
// cheap elementwise ops), or, for a 1-D load read only before the next
// store, a load from memory again. Consumers call readElement(), so chains
// such as `exp(x - max)` or `base + arange(0, N)` fuse into their consumer's
// loop. Inner loops end in a remainder LLVM vectorizes as one masked vector,
// and the next unit of work's loads are prefetched while this one computes
// (prefetchNextWork, emitPrefetchingChunks).
//
//===----------------------------------------------------------------------===//
#include "compiler/Atomics.h"
#include "compiler/BlockOps.h"
#include "compiler/MaskTerms.h"
#include "compiler/MathLowering.h"
#include "compiler/Passes.h"
#include "compiler/Reduction.h"
#include "compiler/VerifyKernels.h"
#include "compiler/cpu/EntryABI.h"

#include "dialect/BlkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/bit.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/SaveAndRestore.h"

#include <limits>

namespace blockjit {
#define GEN_PASS_DEF_CONVERTBLKTOLOOPS
#include "compiler/Passes.h.inc"
} // namespace blockjit

using namespace mlir;
using namespace blockjit;

namespace {

using blk::isBlock;

/// Elementwise ops cheap enough to recompute at every use instead of storing.
bool isCheap(Operation *op) {
  return !isa<math::MathDialect>(op->getDialect()) &&
         !isa<arith::DivFOp, arith::RemFOp, arith::DivSIOp, arith::RemSIOp,
              arith::DivUIOp, arith::RemUIOp>(op);
}

class KernelLowering {
public:
  KernelLowering(func::FuncOp func) : func(func), builder(func.getContext()) {}

  LogicalResult run() {
    // Blocks are built inside a program; a kernel's parameters are scalars
    // and pointers (checked again: this pass may run alone).
    if (failed(verifyKernelSignature(func)))
      return failure();
    if (failed(lowerScalarAtomics()))
      return failure();
    if (failed(lowerBlock(func.getBody().front())))
      return failure();
    for (Operation *op : llvm::reverse(toErase)) {
      op->dropAllUses();
      op->erase();
    }
    for (Operation *loop : llvm::reverse(oldLoops)) {
      loop->dropAllUses();
      loop->erase();
    }
    if (scratch)
      func->setAttr(cpu::kScratchBytesAttr,
                    builder.getI64IntegerAttr(scratchBytes));
    return success();
  }

private:
  /// How the elements of one tensor value are obtained.
  struct Lowered {
    /// Buffer: stored once, read from `buffer`. Reload: a load read from
    /// memory again at every use (see canReload).
    enum Kind { Buffer, Reload } kind;
    Value buffer; // memref, for Buffer
  };

  func::FuncOp func;
  OpBuilder builder;
  DenseMap<Value, Lowered> lowered;
  Value scratch;            // the arena parameter, once a buffer needs it
  int64_t scratchBytes = 0; // bytes of the arena this kernel uses
  SmallVector<Operation *> toErase;
  SmallVector<Operation *> oldLoops;
  /// Reductions already computed by the loop that stored their source.
  llvm::SmallPtrSet<Operation *, 4> fusedReductions;
  /// 1-D buffers whose elements from `start` on all equal the scalar
  /// `fill` (a masked load's padding, and what is computed from it): ops on
  /// them compute [0, start) and store f(fill) once for the rest, instead
  /// of computing f on every padding element (a row of 12288 in a block of
  /// 16384 is a third padding).
  struct Tail {
    Value start;
    Value fill;
  };
  DenseMap<Value, Tail> tails;
  /// Memory a loop over a 1-D block's elements prefetches as it goes: the
  /// pointers `ptrs` with the values `next` maps replaced (the next unit of
  /// work's loads, see prefetchNextWork), or as they are (the stores that
  /// follow: their lines are fetched for writing ahead of the stores).
  struct PrefetchStream {
    Value ptrs;
    IRMapping next;
    Value end;    // active elements end here (null: all)
    Block *block; // where the load or store is
    bool write = false;
    Operation *anchor = nullptr; // a burst of it goes before this op
  };

  /// While set, readElement reads a buffer with a tail as its fill.
  bool readingTail = false;
  /// While emitting a loop body over active elements: the mask known to
  /// hold there, and the index below which elements of values with a tail
  /// starting there are active (reloaded loads read them untested).
  Value activeMask;
  Value activeTailStart;
  /// While set (emitting the fast copy of a loop over elements, see
  /// maskedLoopNest), a division by a value equal at every element, defined
  /// outside `reciprocalLoop` and of a type that dividesByReciprocal,
  /// multiplies by its reciprocal and records the divisor here.
  SmallVector<Value> *reciprocalDivisors = nullptr;
  Operation *reciprocalLoop = nullptr;

  /// A buffer for the elements of a block of `type`, allocated once per
  /// program: small ones on the stack, large ones in the thread's scratch
  /// arena (see compiler/cpu/EntryABI.h), so that no block size can
  /// overflow a thread's stack.
  Value allocBuffer(RankedTensorType type) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&func.getBody().front());
    Location loc = func.getLoc();
    auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
    Type element = type.getElementType();
    int64_t bytes = type.getNumElements() * blk::elementBytes(element);
    if (bytes <= cpu::kMaxStackBufferBytes)
      return memref::AllocaOp::create(builder, loc, memrefType,
                                      builder.getI64IntegerAttr(64));
    if (!scratch) {
      // The arena: one more parameter, which aliases nothing else.
      unsigned index = func.getNumArguments();
      auto arenaType =
          MemRefType::get({ShapedType::kDynamic}, builder.getI8Type());
      (void)func.insertArgument(index, arenaType, {}, loc);
      func.setArgAttr(index, "llvm.noalias", builder.getUnitAttr());
      scratch = func.getArgument(index);
    }
    int64_t offset = llvm::alignTo(scratchBytes, cpu::kScratchAlignment);
    scratchBytes = offset + bytes;
    Value byteShift = arith::ConstantIndexOp::create(builder, loc, offset);
    return memref::ViewOp::create(builder, loc, memrefType, scratch, byteShift,
                                  ValueRange{});
  }

  /// Emits a loop nest over `shape` (innermost = last dimension) and calls
  /// `body` with the induction variables inside it.
  void loopNest(Location loc, ArrayRef<int64_t> shape,
                function_ref<void(ValueRange)> body) {
    SmallVector<Value> ivs;
    OpBuilder::InsertionGuard guard(builder);
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    for (int64_t size : shape) {
      Value ub = arith::ConstantIndexOp::create(builder, loc, size);
      auto loop = scf::ForOp::create(builder, loc, zero, ub, one);
      builder.setInsertionPointToStart(loop.getBody());
      ivs.push_back(loop.getInductionVar());
    }
    body(ivs);
  }

  /// Elements of type `element` in 64 bytes: a cache line, and an AVX-512
  /// register.
  static int64_t elementsPerLine(Type element) {
    return std::max<int64_t>(1, 64 / blk::elementBytes(element));
  }

  /// Elements of `type` in a 64-byte vector.
  static int64_t vectorLanes(RankedTensorType type) {
    return elementsPerLine(type.getElementType());
  }

  /// The type that the block of pointers `ptrs` points to.
  static Type pointeeOf(Value ptrs) {
    auto type = cast<RankedTensorType>(ptrs.getType());
    return cast<blk::PtrType>(type.getElementType()).getPointeeType();
  }

  /// Loop metadata asking LLVM for one masked vector of `lanes` (a loop of
  /// fewer than `lanes` iterations): tail folding, no interleaving.
  LLVM::LoopAnnotationAttr maskedVectorAnnotation(int64_t lanes) {
    MLIRContext *context = builder.getContext();
    auto vectorize = LLVM::LoopVectorizeAttr::get(
        context, /*disable=*/BoolAttr::get(context, false),
        /*predicateEnable=*/BoolAttr::get(context, true),
        /*scalableEnable=*/BoolAttr::get(context, false),
        /*width=*/builder.getI32IntegerAttr(lanes), {}, {}, {});
    auto interleave =
        LLVM::LoopInterleaveAttr::get(context, builder.getI32IntegerAttr(1));
    return LLVM::LoopAnnotationAttr::get(context, /*disableNonforced=*/{},
                                         vectorize, interleave, {}, {}, {}, {},
                                         {}, {}, {}, {}, {}, {}, {}, {});
  }

  /// A loop body that carries values: the element's indices and the
  /// running values in, the next running values out.
  using CarryingBody =
      function_ref<SmallVector<Value>(ValueRange ivs, ValueRange carried)>;

  /// A loop nest over `shape` that calls `body` where `mask` (null: all)
  /// holds and `masked` (if given) where it does not, testing each term of
  /// the mask as rarely as it can (see compiler/MaskTerms.h): prefixes
  /// of the innermost dimension bound its loop, terms constant along it are
  /// tested once per line, the rest per element. The bodies carry `inits`
  /// through every element in index order (1-D only) and the final values
  /// are returned.
  ///
  /// 1-D only: `activeEnd` (with no mask) makes [0, activeEnd) the active
  /// elements; `tailStart`, if given, receives the index from which every
  /// element is masked off when the active ones are a prefix (null when
  /// they are not, or when all are active).
  ///
  /// An inner loop over active elements whose length may not be a whole
  /// number of vectors of `type` is two: one over whole vectors, and one
  /// over the rest that LLVM vectorizes as a single masked vector (tail
  /// folding) instead of a scalar remainder loop (13 elements of exp per
  /// row of 781 took a third of the row's time on an Intel host).
  ///
  /// Carried reductions restart from `chunkInits` (their identities) in
  /// each chunk of a long line, and `combineChunk(running, chunk)` adds a
  /// chunk's partials to the running values: LLVM puts the incoming running
  /// value in one lane of its vector partials, so a sum carried through
  /// every element had that lane add 1/8 of a 2^20-wide row one by one
  /// (AVX2: relative error 1.3e-4 against 1e-6 with chunk sums).
  SmallVector<Value>
  maskedLoopNest(Location loc, RankedTensorType type, Value mask,
                 CarryingBody body, CarryingBody masked, ValueRange inits = {},
                 Value activeEnd = {}, Value *tailStart = nullptr,
                 ValueRange chunkInits = {}, CarryingBody combineChunk = {}) {
    ArrayRef<int64_t> shape = type.getShape();
    assert(((inits.empty() && !activeEnd && !tailStart) || shape.size() == 1) &&
           "only 1-D loops carry values or split at a given end");
    int64_t lanes = vectorLanes(type);
    MaskTerms terms;
    if (mask)
      terms = splitMask(mask);
    int64_t size = shape.back();
    SmallVector<Value> carried(inits);
    // One loop over [from, to) whose elements are active (perElement tested
    // per element) or masked off, carrying `inits`.
    auto buildLoop = [&](ValueRange outer, Value from, Value to, bool active,
                         bool vectorTail, ValueRange inits) -> scf::ForOp {
      OpBuilder::InsertionGuard guard(builder);
      Value one = arith::ConstantIndexOp::create(builder, loc, 1);
      auto loop = scf::ForOp::create(builder, loc, from, to, one, inits);
      if (vectorTail)
        loop->setAttr("llvm.loop_annotation", maskedVectorAnnotation(lanes));
      if (reciprocalDivisors)
        reciprocalLoop = loop;
      builder.setInsertionPointToStart(loop.getBody());
      SmallVector<Value> ivs(outer);
      ivs.push_back(loop.getInductionVar());
      ValueRange running = loop.getRegionIterArgs();
      SmallVector<Value> next;
      // Inside an active body the whole mask holds (the loop's bounds and
      // the per-element test imply it): loads under it read unconditionally.
      llvm::SaveAndRestore<Value> holds(activeMask, active ? mask : activeMask);
      if (!active) {
        next = masked(ivs, running);
      } else if (terms.perElement.empty()) {
        next = body(ivs, running);
      } else {
        Value test = readAll(loc, terms.perElement, ivs);
        bool hasElse = masked || !running.empty();
        auto ifOp =
            scf::IfOp::create(builder, loc, TypeRange(running), test, hasElse);
        builder.setInsertionPointToStart(ifOp.thenBlock());
        SmallVector<Value> taken = body(ivs, running);
        if (!running.empty())
          scf::YieldOp::create(builder, loc, taken);
        if (hasElse) {
          builder.setInsertionPointToStart(ifOp.elseBlock());
          SmallVector<Value> skipped =
              masked ? masked(ivs, running) : SmallVector<Value>(running);
          if (!running.empty())
            scf::YieldOp::create(builder, loc, skipped);
        }
        next = ifOp.getResults();
        builder.setInsertionPointAfter(ifOp);
      }
      if (!running.empty())
        scf::YieldOp::create(builder, loc, next);
      return loop;
    };
    // One loop over [from, to) that updates `carried`. Where its body
    // divides by values equal at every element, two: one that multiplies by
    // their reciprocals, run when all of them are in range, and one that
    // divides (see emitScalarClone and allInReciprocalRange).
    auto emitOneLoop = [&](ValueRange outer, Value from, Value to, bool active,
                           bool vectorTail) {
      SmallVector<Value> divisors;
      scf::ForOp fast;
      {
        llvm::SaveAndRestore<SmallVector<Value> *> collect(reciprocalDivisors,
                                                           &divisors);
        llvm::SaveAndRestore<Operation *> within(reciprocalLoop);
        fast = buildLoop(outer, from, to, active, vectorTail, carried);
      }
      if (divisors.empty()) {
        carried = fast.getResults();
        return;
      }
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPoint(fast);
      auto ifOp = scf::IfOp::create(builder, loc, fast.getResultTypes(),
                                    allInReciprocalRange(loc, divisors),
                                    /*withElseRegion=*/true);
      fast->moveBefore(ifOp.thenBlock(), ifOp.thenBlock()->begin());
      builder.setInsertionPointAfter(fast);
      if (fast.getNumResults())
        scf::YieldOp::create(builder, loc, fast.getResults());
      builder.setInsertionPointToStart(ifOp.elseBlock());
      llvm::SaveAndRestore<SmallVector<Value> *> exact(reciprocalDivisors,
                                                       nullptr);
      scf::ForOp slow = buildLoop(outer, from, to, active, vectorTail, carried);
      builder.setInsertionPointAfter(slow);
      if (slow.getNumResults())
        scf::YieldOp::create(builder, loc, slow.getResults());
      carried = ifOp.getResults();
    };
    // [from, split) as chunks of kChunkLines lines, each prefetching
    // `interleaved` over its elements before a loop over them; `from`
    // advances past the chunks (what is left is less than one).
    auto emitPrefetchingChunks = [&](Value &from, Value split) {
      SmallVector<PrefetchStream> streams = std::move(interleaved);
      interleaved.clear();
      int64_t chunk = lanes * kChunkLines;
      auto constant = [&](int64_t v) -> Value {
        return arith::ConstantIndexOp::create(builder, loc, v);
      };
      Value chunksEnd = arith::AddIOp::create(
          builder, loc, from,
          arith::AndIOp::create(
              builder, loc, arith::SubIOp::create(builder, loc, split, from),
              constant(-chunk)));
      auto chunks = scf::ForOp::create(builder, loc, from, chunksEnd,
                                       constant(chunk), carried);
      {
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToStart(chunks.getBody());
        Value start = chunks.getInductionVar();
        for (PrefetchStream &stream : streams) {
          // The chunk's elements of this stream, one per 64 bytes.
          auto lines = scf::ForOp::create(
              builder, loc, start,
              arith::AddIOp::create(builder, loc, start, constant(chunk)),
              constant(elementsPerLine(pointeeOf(stream.ptrs))));
          OpBuilder::InsertionGuard inner(builder);
          builder.setInsertionPointToStart(lines.getBody());
          if (!emitPrefetch(loc, stream, lines.getInductionVar(), lines))
            lines.erase();
        }
        ValueRange running = chunks.getRegionIterArgs();
        if (combineChunk)
          carried.assign(chunkInits.begin(), chunkInits.end());
        else
          carried.assign(running.begin(), running.end());
        emitOneLoop({}, start,
                    arith::AddIOp::create(builder, loc, start, constant(chunk)),
                    /*active=*/true, /*vectorTail=*/false);
        if (combineChunk)
          carried = combineChunk(running, carried);
        if (!carried.empty())
          scf::YieldOp::create(builder, loc, carried);
      }
      carried.assign(chunks.getResults().begin(), chunks.getResults().end());
      from = chunksEnd;
    };
    // Active elements: whole vectors, then the rest as one masked vector.
    auto emitLoop = [&](ValueRange outer, Value from, Value to, bool active) {
      std::optional<int64_t> first = getConstantIntValue(from);
      std::optional<int64_t> last = getConstantIntValue(to);
      // LLVM sees constant trip counts and plans their remainder itself.
      if (!active || lanes <= 1 || (first && last)) {
        emitOneLoop(outer, from, to, active, /*vectorTail=*/false);
        return;
      }
      Value count = arith::SubIOp::create(builder, loc, to, from);
      Value whole = arith::AndIOp::create(
          builder, loc, count,
          arith::ConstantIndexOp::create(builder, loc, -lanes));
      Value split = arith::AddIOp::create(builder, loc, from, whole);
      if (!interleaved.empty() && shape.size() == 1)
        emitPrefetchingChunks(from, split);
      emitOneLoop(outer, from, split, active, /*vectorTail=*/false);
      emitOneLoop(outer, split, to, active, /*vectorTail=*/true);
    };
    // A line's loops: its active elements, then (if `masked`) the rest.
    // `setTail` says whether *tailStart may be set (it must dominate the
    // caller's uses).
    auto lineLoops = [&](ValueRange outer, bool setTail) {
      Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
      Value full = arith::ConstantIndexOp::create(builder, loc, size);
      SmallVector<Value> first(outer);
      first.push_back(zero);
      // Where the line's elements stop being active: the least bound of
      // its prefixes, 0 if a line term is false.
      Value end;
      for (const PrefixTerm &prefix : terms.prefixes) {
        Value prefixEnds = prefixEnd(loc, prefix, first, size);
        end = end ? arith::MinSIOp::create(builder, loc, end, prefixEnds)
                  : prefixEnds;
      }
      if (activeEnd)
        end = activeEnd;
      if (!end)
        end = full;
      if (!terms.perLine.empty()) {
        Value active = readAll(loc, terms.perLine, first);
        end = arith::SelectOp::create(builder, loc, active, end, zero);
      }
      emitLoop(outer, zero, end, /*active=*/true);
      bool split =
          !terms.prefixes.empty() || !terms.perLine.empty() || bool(activeEnd);
      if (masked && split)
        emitLoop(outer, end, full, /*active=*/false);
      if (tailStart && setTail && split && terms.perElement.empty())
        *tailStart = end;
    };
    // A prefix whose index wraps holds again past the wrap: on lines where
    // one does, the prefixes with offsets are tested per element instead.
    bool offsetPrefixes = llvm::any_of(
        terms.prefixes, [](const PrefixTerm &prefix) { return prefix.offset; });
    auto line = [&](ValueRange outer) {
      if (!offsetPrefixes) {
        lineLoops(outer, /*setTail=*/true);
        return;
      }
      SmallVector<Value> first(outer);
      first.push_back(arith::ConstantIndexOp::create(builder, loc, 0));
      Value wraps = anyPrefixWraps(loc, terms.prefixes, first, size);
      SmallVector<Value> before(carried);
      auto ifOp =
          scf::IfOp::create(builder, loc, ValueRange(carried).getTypes(), wraps,
                            /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(builder);
      // No wrap (first: it takes the prefetches), then a wrap. A tail
      // start would not dominate the uses after the branch: none.
      builder.setInsertionPointToStart(ifOp.elseBlock());
      lineLoops(outer, /*setTail=*/false);
      if (!carried.empty())
        scf::YieldOp::create(builder, loc, carried);
      carried = before;
      builder.setInsertionPointToStart(ifOp.thenBlock());
      MaskTerms whole = terms;
      llvm::erase_if(terms.prefixes, [&](const PrefixTerm &prefix) {
        if (prefix.offset)
          terms.perElement.push_back(prefix.term);
        return bool(prefix.offset);
      });
      lineLoops(outer, /*setTail=*/false);
      terms = whole;
      if (!carried.empty())
        scf::YieldOp::create(builder, loc, carried);
      carried.assign(ifOp.getResults().begin(), ifOp.getResults().end());
    };
    if (shape.size() == 1)
      line({});
    else
      loopNest(loc, shape.drop_back(), line);
    return carried;
  }

  /// The conjunction of block terms `terms` at `indices`.
  Value readAll(Location loc, ArrayRef<Value> terms, ValueRange indices) {
    Value all;
    for (Value term : terms) {
      Value x = readElement(loc, term, indices);
      all = all ? arith::AndIOp::create(builder, loc, all, x) : x;
    }
    return all;
  }

  /// The index along the innermost dimension where `prefix` becomes false,
  /// in [0, size], for the line whose first element is at `first`.
  Value prefixEnd(Location loc, const PrefixTerm &prefix, ValueRange first,
                  int64_t size) {
    Type i64 = builder.getI64Type();
    auto widen = [&](Value x, bool isUnsigned) -> Value {
      if (x.getType() == i64)
        return x;
      if (isUnsigned)
        return arith::ExtUIOp::create(builder, loc, i64, x);
      return arith::ExtSIOp::create(builder, loc, i64, x);
    };
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(builder, loc, v, 64);
    };
    // i + start + offset < bound: i < bound - start - offset, in 64 bits.
    // bound and offset may be smaller blocks that the mask broadcasts.
    Value zeroIndex = arith::ConstantIndexOp::create(builder, loc, 0);
    Value bound = readElement(loc, prefix.bound,
                              readIndices(prefix.bound, first, {}, zeroIndex));
    if (bound.getType() == i64 || prefix.offsetWidth >= 64)
      return prefixEnd64(loc, prefix, first, size,
                         widen(bound, prefix.isUnsigned));
    // Below 64 bits, no step here overflows.
    Value end = widen(bound, prefix.isUnsigned);
    if (prefix.inclusive)
      end = arith::AddIOp::create(builder, loc, end, constant(1));
    if (prefix.start)
      end = arith::SubIOp::create(builder, loc, end, constant(prefix.start));
    if (prefix.offset)
      end = arith::SubIOp::create(builder, loc, end,
                                  prefixOffset(loc, prefix, first));
    end = arith::MaxSIOp::create(
        builder, loc, constant(0),
        arith::MinSIOp::create(builder, loc, end, constant(size)));
    return arith::IndexCastOp::create(builder, loc, builder.getIndexType(),
                                      end);
  }

  /// prefixEnd with a 64-bit bound or offset, where bound - first may
  /// overflow (INT64_MIN - 1 read as INT64_MAX kept a whole line): compared
  /// with the line's first and last index instead, which do not wrap (lines
  /// where they would test the term per element).
  Value prefixEnd64(Location loc, const PrefixTerm &prefix, ValueRange first,
                    int64_t size, Value bound) {
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(builder, loc, v, 64);
    };
    auto compare = [&](arith::CmpIPredicate predicate, Value a, Value b) {
      return arith::CmpIOp::create(builder, loc, predicate, a, b);
    };
    using P = arith::CmpIPredicate;
    bool u = prefix.isUnsigned, inclusive = prefix.inclusive;
    Value firstIndex = constant(prefix.start);
    if (prefix.offset)
      firstIndex = arith::AddIOp::create(builder, loc, firstIndex,
                                         prefixOffset(loc, prefix, first));
    Value lastIndex =
        arith::AddIOp::create(builder, loc, firstIndex, constant(size - 1));
    // None where bound < first (<= for `<`), all where bound >= last (>),
    // else bound - first (+ 1 for `<=`), which lies in [1, size - 1].
    Value none =
        compare(inclusive ? (u ? P::ult : P::slt) : (u ? P::ule : P::sle),
                bound, firstIndex);
    Value all =
        compare(inclusive ? (u ? P::uge : P::sge) : (u ? P::ugt : P::sgt),
                bound, lastIndex);
    Value some = arith::SubIOp::create(builder, loc, bound, firstIndex);
    if (inclusive)
      some = arith::AddIOp::create(builder, loc, some, constant(1));
    Value end = arith::SelectOp::create(
        builder, loc, none, constant(0),
        arith::SelectOp::create(builder, loc, all, constant(size), some));
    return arith::IndexCastOp::create(builder, loc, builder.getIndexType(),
                                      end);
  }

  /// The offset of `prefix` (which has one) for the line whose first
  /// element is at `first`, sign-extended to i64.
  Value prefixOffset(Location loc, const PrefixTerm &prefix, ValueRange first) {
    Value zeroIndex = arith::ConstantIndexOp::create(builder, loc, 0);
    Value offset = readElement(
        loc, prefix.offset,
        readIndices(prefix.offset, first, prefix.offsetDroppedAxes, zeroIndex));
    if (offset.getType().isInteger(64))
      return offset;
    return arith::ExtSIOp::create(builder, loc, builder.getI64Type(), offset);
  }

  /// Whether the index of any prefix of `prefixes` with an offset (one at
  /// least) wraps on the line whose first element is at `first`
  /// (prefixIndexWraps).
  Value anyPrefixWraps(Location loc, ArrayRef<PrefixTerm> prefixes,
                       ValueRange first, int64_t size) {
    Value any;
    for (const PrefixTerm &prefix : prefixes) {
      if (!prefix.offset)
        continue;
      Value wraps = prefixIndexWraps(builder, loc, prefix,
                                     prefixOffset(loc, prefix, first), size);
      any = any ? arith::OrIOp::create(builder, loc, any, wraps) : wraps;
    }
    return any;
  }

  /// The element of tensor `value` at `indices`, emitted at the builder's
  /// insertion point.
  Value readElement(Location loc, Value value, ValueRange indices) {
    auto it = lowered.find(value);
    if (it != lowered.end()) {
      if (auto tail = tails.find(value); readingTail && tail != tails.end())
        return tail->second.fill;
      if (it->second.kind == Lowered::Reload)
        return reloadElement(loc, value.getDefiningOp<blk::LoadOp>(), indices);
      return memref::LoadOp::create(builder, loc, it->second.buffer, indices);
    }
    Operation *def = value.getDefiningOp();
    if (auto splat = dyn_cast_or_null<blk::SplatOp>(def))
      return splat.getSrc();
    if (auto range = dyn_cast_or_null<blk::MakeRangeOp>(def)) {
      Value i = arith::IndexCastOp::create(builder, loc, builder.getI32Type(),
                                           indices[0]);
      if (range.getStart() == 0)
        return i;
      Value start =
          arith::ConstantIntOp::create(builder, loc, range.getStart(), 32);
      return arith::AddIOp::create(builder, loc, i, start);
    }
    if (auto bcast = dyn_cast_or_null<blk::BroadcastOp>(def)) {
      SmallVector<Value> srcIndices;
      Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
      for (auto [size, index] :
           llvm::zip(bcast.getSrc().getType().getShape(), indices))
        srcIndices.push_back(size == 1 ? zero : index);
      return readElement(loc, bcast.getSrc(), srcIndices);
    }
    if (auto expand = dyn_cast_or_null<blk::ExpandDimsOp>(def)) {
      SmallVector<Value> srcIndices(indices);
      srcIndices.erase(srcIndices.begin() + expand.getAxis());
      return readElement(loc, expand.getSrc(), srcIndices);
    }
    if (auto constant = dyn_cast_or_null<arith::ConstantOp>(def)) {
      auto splat = cast<SplatElementsAttr>(constant.getValue());
      return arith::ConstantOp::create(
          builder, loc, cast<TypedAttr>(splat.getSplatValue<Attribute>()));
    }
    if (auto addptr = dyn_cast_or_null<blk::AddPtrOp>(def)) {
      Value ptr = readElement(loc, addptr.getPtr(), indices);
      Value offset = readElement(loc, addptr.getOffset(), indices);
      return blk::AddPtrOp::create(builder, loc, ptr.getType(), ptr, offset);
    }
    if (isa_and_nonnull<blk::ReshapeOp, blk::PermuteOp, blk::JoinOp,
                        blk::SplitOp>(def))
      return readShapeOpElement(loc, value, indices);
    // An elementwise op: recompute it from its operands' elements.
    return emitScalarClone(loc, def, indices);
  }

  /// The element at `indices` of the result `value` of a reshape, permute,
  /// join or split: the source element it moves, recomputed like the others.
  Value readShapeOpElement(Location loc, Value value, ValueRange indices) {
    Operation *def = value.getDefiningOp();
    auto constant = [&](int64_t c) -> Value {
      return arith::ConstantIndexOp::create(builder, loc, c);
    };
    if (auto reshape = dyn_cast<blk::ReshapeOp>(def)) {
      // Row-major linear index in the result, then the source's indices of
      // it (sizes are powers of two: LLVM makes these shifts and masks).
      Value linear = constant(0);
      for (auto [size, index] :
           llvm::zip(reshape.getType().getShape(), indices))
        linear = arith::AddIOp::create(
            builder, loc,
            arith::MulIOp::create(builder, loc, linear, constant(size)), index);
      ArrayRef<int64_t> srcShape = reshape.getSrc().getType().getShape();
      SmallVector<Value> srcIndices(srcShape.size());
      for (int64_t d = srcShape.size() - 1; d >= 0; --d) {
        srcIndices[d] =
            arith::RemUIOp::create(builder, loc, linear, constant(srcShape[d]));
        linear =
            arith::DivUIOp::create(builder, loc, linear, constant(srcShape[d]));
      }
      return readElement(loc, reshape.getSrc(), srcIndices);
    }
    if (auto permute = dyn_cast<blk::PermuteOp>(def)) {
      SmallVector<Value> srcIndices(indices.size());
      for (auto [d, from] : llvm::enumerate(permute.getOrder()))
        srcIndices[from] = indices[d];
      return readElement(loc, permute.getSrc(), srcIndices);
    }
    if (auto join = dyn_cast<blk::JoinOp>(def)) {
      ValueRange inner = indices.drop_back();
      Value lhs = readElement(loc, join.getLhs(), inner);
      Value rhs = readElement(loc, join.getRhs(), inner);
      Value second = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::ne, indices.back(), constant(0));
      return arith::SelectOp::create(builder, loc, second, rhs, lhs);
    }
    auto split = cast<blk::SplitOp>(def);
    SmallVector<Value> srcIndices(indices);
    srcIndices.push_back(
        constant(cast<OpResult>(value).getResultNumber() == 0 ? 0 : 1));
    return readElement(loc, split.getSrc(), srcIndices);
  }

  Value emitScalarClone(Location loc, Operation *op, ValueRange indices) {
    SmallVector<Value> operands;
    for (Value operand : op->getOperands())
      operands.push_back(isBlock(operand.getType())
                             ? readElement(loc, operand, indices)
                             : operand);
    if (auto div = dyn_cast<arith::DivFOp>(op);
        div && reciprocalDivisors && isBlock(div.getRhs().getType()) &&
        dividesByReciprocal(operands[1].getType()) &&
        variesAlong(div.getRhs()).none() &&
        !reciprocalLoop->isAncestor(
            operands[1].getParentRegion()->getParentOp())) {
      // x / s as x * (1/s): the host compiler hoists 1/s out of the loop.
      reciprocalDivisors->push_back(operands[1]);
      Value one = arith::ConstantOp::create(
          builder, loc, builder.getFloatAttr(operands[1].getType(), 1.0));
      Value reciprocal = arith::DivFOp::create(builder, loc, one, operands[1]);
      return arith::MulFOp::create(builder, loc, operands[0], reciprocal);
    }
    OperationState state(loc, op->getName());
    state.addOperands(operands);
    state.addAttributes(op->getAttrs());
    state.addTypes(blk::elementTypeOf(op->getResult(0).getType()));
    return builder.create(state)->getResult(0);
  }

  /// Whether every divisor in `divisors` has a normal reciprocal
  /// (reciprocalIsNormal: 2^-126 <= |s| <= 2^126 for f32), where x * (1/s)
  /// is within 1.5 ulp of x / s; beyond (subnormal s, near the largest
  /// float, 0, inf, NaN) the loop's dividing copy runs instead. One division
  /// per element bounded softmax on AVX-512 (vdivps: one 16-lane vector per
  /// ~10 cycles).
  Value allInReciprocalRange(Location loc, ArrayRef<Value> divisors) {
    Value all;
    llvm::SmallSetVector<Value, 2> distinct(divisors.begin(), divisors.end());
    for (Value s : distinct) {
      Value inRange = reciprocalIsNormal(builder, loc,
                                         math::AbsFOp::create(builder, loc, s));
      all = all ? arith::AndIOp::create(builder, loc, all, inRange) : inRange;
    }
    return all;
  }

  /// Whether the elements of 1-D `value` from some index on are all equal
  /// because it is computed elementwise from buffers with tails starting
  /// there (the same `start`, returned) and from values equal everywhere.
  bool hasUniformTail(Value value, Value &start) {
    if (lowered.contains(value)) {
      auto tail = tails.find(value);
      if (tail == tails.end() || (start && start != tail->second.start))
        return false;
      start = tail->second.start;
      return true;
    }
    if (variesAlong(value).none())
      return true;
    Operation *def = value.getDefiningOp();
    if (!def || def->getNumResults() != 1 ||
        !def->hasTrait<OpTrait::Elementwise>() ||
        isa<blk::BlkDialect>(def->getDialect()))
      return false;
    return llvm::all_of(def->getOperands(), [&](Value operand) {
      return !isBlock(operand.getType()) || hasUniformTail(operand, start);
    });
  }

  /// Lines (64 bytes of the block's elements) per chunk of a loop that
  /// interleaves prefetches: a horizontal reduction per chunk costs little
  /// against 16 vectors of work.
  static constexpr int64_t kChunkLines = 16;

  /// While set, the next inner loop over whole vectors of active elements
  /// prefetches these as it goes (see emitLoop), and clears them.
  SmallVector<PrefetchStream> interleaved;

  /// The prefetches for the loop that stores 1-D `value` (an expensive
  /// elementwise result, such as exp(x - max)): the next unit of work's
  /// loads of its size waiting in its block, and the lines of the first
  /// store of its size after it, fetched for writing (on the Intel dev
  /// host the stores of a 12288-element row waited on their lines for
  /// 40 % of the row's time; with both fetched during the exp pass, softmax
  /// over 512 x 12288 went from 13.6 to 15.6 GB/s on 1 thread, 4096 x 1024
  /// from 15.9 to 20.2).
  SmallVector<PrefetchStream> prefetchesAlong(Value value) {
    SmallVector<PrefetchStream> streams;
    auto type = cast<RankedTensorType>(value.getType());
    Operation *def = value.getDefiningOp();
    if (type.getRank() != 1 || !def)
      return streams;
    Block *block = def->getBlock();
    auto sameLength = [&](Value ptrs) {
      auto ptrType = cast<RankedTensorType>(ptrs.getType());
      return ptrType.getShape() == type.getShape();
    };
    for (PrefetchStream &stream : pendingPrefetches)
      if (stream.block == block && sameLength(stream.ptrs)) {
        streams.push_back(stream);
        stream.ptrs = Value(); // taken
      }
    llvm::erase_if(pendingPrefetches,
                   [&](const PrefetchStream &stream) { return !stream.ptrs; });
    for (Operation *op = def->getNextNode(); op; op = op->getNextNode())
      if (auto store = dyn_cast<blk::StoreOp>(op)) {
        if (isBlock(store.getPtr().getType()) && sameLength(store.getPtr()))
          streams.push_back(
              {store.getPtr(), IRMapping(), Value(), block, /*write=*/true});
        break;
      }
    return streams;
  }

  void materialize(Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    Value buffer = allocBuffer(type);
    Location loc = value.getLoc();
    FusedReductions fused = fuseReductionsOf(value);
    Value tailStart;
    if (type.getRank() != 1 || !hasUniformTail(value, tailStart) || !tailStart)
      tailStart = {};
    // The tail's element, computed once.
    Value fill;
    if (tailStart) {
      readingTail = true;
      fill = readElement(loc, value, ValueRange{tailStart});
      readingTail = false;
    }
    // Below the tail's start, the loads it comes from are active.
    llvm::SaveAndRestore<Value> below(activeTailStart,
                                      tailStart ? tailStart : activeTailStart);
    llvm::SaveAndRestore<SmallVector<PrefetchStream>> prefetching(
        interleaved, prefetchesAlong(value));
    SmallVector<Value> results = maskedLoopNest(
        loc, type, Value(),
        [&](ValueRange ivs, ValueRange running) {
          Value element = readElement(loc, value, ivs);
          memref::StoreOp::create(builder, loc, element, buffer, ivs);
          return fused.combine(*this, loc, running, element);
        },
        [&](ValueRange ivs, ValueRange running) {
          memref::StoreOp::create(builder, loc, fill, buffer, ivs);
          return SmallVector<Value>(running); // combined below, at once
        },
        fused.inits, tailStart, /*tailStart=*/nullptr, fused.inits,
        [&](ValueRange running, ValueRange chunk) {
          return fused.combineChunk(*this, loc, running, chunk);
        });
    if (tailStart && !results.empty())
      results = combineTail(loc, fused, results, fill, tailStart,
                            type.getDimSize(0));
    lowered[value] = {Lowered::Buffer, buffer};
    if (tailStart)
      tails[value] = {tailStart, fill};
    fused.finish(*this, loc, results);
  }

  LogicalResult lowerLoad(blk::LoadOp load) {
    auto type = cast<RankedTensorType>(load.getType());
    bool reload = canReload(load);
    Value buffer = reload ? Value() : allocBuffer(type);
    Location loc = load.getLoc();
    FusedReductions fused = fuseReductionsOf(load.getResult());
    auto otherAt = [&](ValueRange ivs) { return otherElement(loc, load, ivs); };
    Value tailStart;
    auto store = [&](ValueRange ivs, ValueRange running, Value element) {
      if (!reload)
        memref::StoreOp::create(builder, loc, element, buffer, ivs);
      return fused.combine(*this, loc, running, element);
    };
    // Masked-off elements touch no memory and take `other` (or 0). A
    // reloaded block's loop only computes its fused reductions (or nothing:
    // the loops stage's canonicalization then erases it as dead).
    SmallVector<Value> results = maskedLoopNest(
        loc, type, load.getMask(),
        [&](ValueRange ivs, ValueRange running) {
          Value ptr = readElement(loc, load.getPtr(), ivs);
          return store(ivs, running, blk::LoadOp::create(builder, loc, ptr));
        },
        [&](ValueRange ivs, ValueRange running) {
          return store(ivs, running, otherAt(ivs));
        },
        fused.inits, Value(), type.getRank() == 1 ? &tailStart : nullptr,
        fused.inits,
        [&](ValueRange running, ValueRange chunk) {
          return fused.combineChunk(*this, loc, running, chunk);
        });
    lowered[load.getResult()] = {reload ? Lowered::Reload : Lowered::Buffer,
                                 buffer};
    if (type.getRank() == 1)
      prefetchNextWork(load, tailStart);
    // Padding equal everywhere: a tail that later ops can skip computing.
    if (tailStart && (!load.getOther() || variesAlong(load.getOther()).none()))
      tails[load.getResult()] = {tailStart, otherAt(ValueRange{tailStart})};
    fused.finish(*this, loc, results);
    return success();
  }

  /// Bytes of a load's block prefetched for the next unit of work: the
  /// start of its row, whose rest the hardware prefetcher streams. On the
  /// Intel dev host (1 thread) softmax moved 3-6 % more over rows of 128 to
  /// 8192 floats with 2 KB, while 4 KB at once slowed rows of 1024 and
  /// prefetching all of a 64K-element row was slower still.
  static constexpr int64_t kPrefetchBytes = 2048;

  /// Prefetches the first elements of 1-D `load`'s block (active ones end
  /// at `end`, null: all) where the next unit of work will load them, one
  /// prefetch per 64 bytes, while this one computes: the next iteration of
  /// the innermost loop its pointers depend on, or past that loop's end
  /// (or where they depend on program_id alone) the next program's, which
  /// the same host thread runs next (programs go to threads in contiguous
  /// chunks). Nothing when the pointers depend on neither, or on values
  /// this cannot recompute (loaded ones).
  void prefetchNextWork(blk::LoadOp load, Value end) {
    Location loc = load.getLoc();
    Value ptrs = load.getPtr();
    DenseMap<Value, bool> memo;
    if (!programIds) {
      programIds.emplace();
      func.walk([&](blk::ProgramIdOp op) {
        if (op.getAxis() == 0)
          programIds->push_back(op.getResult());
      });
    }
    auto dependsOnAny = [&](Value value, ArrayRef<Value> keys) {
      memo.clear();
      return llvm::any_of(
          keys, [&](Value key) { return dependsOn(value, key, memo); });
    };
    // The next unit of work, as values that replace the current one's.
    IRMapping next;
    scf::ForOp loop;
    for (Operation *parent = load->getParentOp(); parent && parent != func;
         parent = parent->getParentOp())
      if (auto candidate = dyn_cast<scf::ForOp>(parent);
          candidate && dependsOnAny(ptrs, {candidate.getInductionVar()})) {
        // A loop still carrying blocks has not been rebuilt yet: its next
        // iteration is not known here, and an outer unit of work would be
        // too far ahead to stay cached.
        if (llvm::any_of(candidate.getInitArgs().getTypes(), isBlock))
          return;
        loop = candidate;
        break;
      }
    auto nextProgram = [&]() {
      for (Value pid : *programIds)
        next.map(pid, arith::AddIOp::create(
                          builder, loc, pid,
                          arith::ConstantIntOp::create(builder, loc, 1, 32)));
    };
    if (loop) {
      Value iv = loop.getInductionVar();
      Value following = arith::AddIOp::create(builder, loc, iv, loop.getStep());
      // Past the loop's end: where the next program starts it.
      if (dependsOnAny(loop.getLowerBound(), *programIds)) {
        nextProgram();
        Value start = cloneWithReplacements(loop.getLowerBound(), next, loop);
        if (!start)
          return;
        Value inLoop =
            arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt,
                                  following, loop.getUpperBound());
        following =
            arith::SelectOp::create(builder, loc, inLoop, following, start);
      }
      next.clear();
      next.map(iv, following);
    } else if (dependsOnAny(ptrs, *programIds)) {
      nextProgram();
    } else {
      return;
    }
    pendingPrefetches.push_back({load.getPtr(), std::move(next), end,
                                 load->getBlock(), /*write=*/false, load});
  }

  /// Prefetches still waiting for a loop to interleave them with (see
  /// prefetchNextWork, PrefetchStream).
  SmallVector<PrefetchStream> pendingPrefetches;
  /// The kernel's program_id(0) values, found at the first prefetch.
  std::optional<SmallVector<Value>> programIds;

  /// Emits `stream` at the builder's insertion point as one loop over its
  /// first kPrefetchBytes, one prefetch per 64 bytes: where no loop over its
  /// elements follows to interleave it with.
  void emitPrefetchBurst(Location loc, PrefetchStream &stream) {
    auto type = cast<RankedTensorType>(stream.ptrs.getType());
    Type pointee = pointeeOf(stream.ptrs);
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(builder, loc, v);
    };
    Value limit = constant(std::min(
        type.getDimSize(0), kPrefetchBytes / blk::elementBytes(pointee)));
    Value stop = stream.end
                     ? arith::MinSIOp::create(builder, loc, stream.end, limit)
                     : limit;
    auto loop = scf::ForOp::create(builder, loc, constant(0), stop,
                                   constant(elementsPerLine(pointee)));
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(loop.getBody());
    if (!emitPrefetch(loc, stream, loop.getInductionVar(), loop))
      loop.erase();
  }

  /// One prefetch of element `index` of `stream`, in `scope` (an op whose
  /// body the builder is in). False if its address cannot be computed
  /// there.
  bool emitPrefetch(Location loc, PrefetchStream &stream, Value index,
                    Operation *scope) {
    Value ptr = readElement(loc, stream.ptrs, index);
    IRMapping replacements = stream.next;
    Value address = cloneWithReplacements(ptr, replacements, scope);
    if (address)
      blk::PrefetchOp::create(builder, loc, address, stream.write);
    // What readElement built for the current unit of work may use values
    // defined after `scope` (the stores' pointers): erased unless used.
    eraseUnusedInside(ptr, scope);
    return bool(address);
  }

  /// Erases the op defining `value` inside `scope` if nothing uses it, then
  /// its operands' likewise.
  static void eraseUnusedInside(Value value, Operation *scope) {
    Operation *def = value.getDefiningOp();
    if (!def || !scope->isAncestor(def) || !def->use_empty() ||
        !isMemoryEffectFree(def))
      return;
    SmallVector<Value> operands(def->getOperands());
    def->erase();
    for (Value operand : operands)
      eraseUnusedInside(operand, scope);
  }

  /// Whether `value` is computed from `key`.
  static bool dependsOn(Value value, Value key, DenseMap<Value, bool> &memo) {
    if (value == key)
      return true;
    if (auto it = memo.find(value); it != memo.end())
      return it->second;
    Operation *def = value.getDefiningOp();
    bool result = def && llvm::any_of(def->getOperands(), [&](Value operand) {
                    return dependsOn(operand, key, memo);
                  });
    memo[value] = result;
    return result;
  }

  /// Whether `value` is available in the body of `scope`.
  static bool availableIn(Value value, Operation *scope) {
    Operation *def = value.getDefiningOp();
    Block *block =
        def ? def->getBlock() : cast<BlockArgument>(value).getOwner();
    Operation *ancestor = block->findAncestorOpInBlock(*scope);
    return ancestor && (!def || def->isBeforeInBlock(ancestor));
  }

  /// `value` recomputed at the builder's insertion point (inside `scope`)
  /// with the values that `replacements` maps replaced: the ops between
  /// them cloned, and those not available in `scope` yet (defined after
  /// it) too; null if one of those may touch memory or has regions.
  Value cloneWithReplacements(Value value, IRMapping &replacements,
                              Operation *scope) {
    if (Value mapped = replacements.lookupOrNull(value))
      return mapped;
    Operation *def = value.getDefiningOp();
    if (!def)
      return value;
    bool affected = !scope->isAncestor(def) && !availableIn(value, scope);
    SmallVector<Value> operands;
    for (Value operand : def->getOperands()) {
      Value replaced = cloneWithReplacements(operand, replacements, scope);
      if (!replaced)
        return {};
      affected |= replaced != operand;
      operands.push_back(replaced);
    }
    if (!affected)
      return value;
    if (def->getNumRegions() || !isMemoryEffectFree(def))
      return {};
    Operation *clone = builder.clone(*def);
    clone->setOperands(operands);
    for (auto [from, to] : llvm::zip(def->getResults(), clone->getResults()))
      replacements.map(from, to);
    return replacements.lookup(value);
  }

  /// Element `indices` of reloaded `load`: read from memory where its mask
  /// holds, else its `other` (or 0).
  Value reloadElement(Location loc, blk::LoadOp load, ValueRange indices) {
    Value ptr = readElement(loc, load.getPtr(), indices);
    auto tail = tails.find(load.getResult());
    bool active = !load.getMask() || load.getMask() == activeMask ||
                  (activeTailStart && tail != tails.end() &&
                   tail->second.start == activeTailStart);
    if (active)
      return blk::LoadOp::create(builder, loc, ptr);
    Type element = blk::elementTypeOf(load.getType());
    auto ifOp = scf::IfOp::create(builder, loc, element,
                                  readElement(loc, load.getMask(), indices),
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(builder, loc,
                         Value(blk::LoadOp::create(builder, loc, ptr)));
    builder.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(builder, loc, otherElement(loc, load, indices));
    return ifOp.getResult(0);
  }

  /// What masked-off element `indices` of `load` takes: its `other`, or 0.
  Value otherElement(Location loc, blk::LoadOp load, ValueRange indices) {
    if (load.getOther())
      return readElement(loc, load.getOther(), indices);
    return arith::ConstantOp::create(
        builder, loc, builder.getZeroAttr(blk::elementTypeOf(load.getType())));
  }

  /// Whether 1-D `load` is read from memory again wherever its elements are
  /// used instead of copied to a buffer first: a row that stays in the
  /// cache between two passes over it costs less to read twice than to copy
  /// and read back (softmax's max pass, then its exp pass; ATen's kernels
  /// read their input twice too). Only while memory cannot have changed:
  /// every read of the block (by its users, and by the users of what is
  /// recomputed from it, see readersOf) comes before the first op after it
  /// that may write memory. Its mask must be one the loops bound (prefix
  /// and per-line terms): a reload tests it per element.
  bool canReload(blk::LoadOp load) {
    auto type = cast<RankedTensorType>(load.getType());
    if (type.getRank() != 1)
      return false;
    if (load.getMask() && !splitMask(load.getMask()).perElement.empty())
      return false;
    Block *block = load->getBlock();
    Operation *firstWrite = nullptr;
    for (Operation *op = load->getNextNode(); op && !firstWrite;
         op = op->getNextNode())
      if (mayWriteMemory(op))
        firstWrite = op;
    SmallVector<Operation *> readers;
    if (!readersOf(load.getResult(), block, readers))
      return false;
    return llvm::all_of(readers, [&](Operation *reader) {
      return !firstWrite || reader->isBeforeInBlock(firstWrite);
    });
  }

  /// Whether `op` or an op nested in it stores to memory a kernel can see.
  static bool mayWriteMemory(Operation *op) {
    WalkResult result = op->walk([](Operation *nested) {
      return isa<blk::StoreOp, blk::AtomicRMWOp, blk::AtomicCASOp>(nested)
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    return result.wasInterrupted();
  }

  /// The ops of `block` at which the elements of `value` are read, added to
  /// `readers`: each user's ancestor in `block`, and for users recomputed
  /// at their own uses (cheap elementwise ops, shape ops, loads reading
  /// their pointers or masks), their readers too. False if a user is not
  /// in `block`.
  bool readersOf(Value value, Block *block,
                 SmallVectorImpl<Operation *> &readers) {
    for (Operation *user : value.getUsers()) {
      Operation *top = block->findAncestorOpInBlock(*user);
      if (!top)
        return false;
      readers.push_back(top);
      if (user != top || !isRecomputedAtUses(user))
        continue;
      for (Value result : user->getResults())
        if (isBlock(result.getType()) && !readersOf(result, block, readers))
          return false;
    }
    return true;
  }

  /// Whether lowerOp leaves `op`'s result unstored, to be recomputed (or
  /// reloaded) wherever it is read.
  bool isRecomputedAtUses(Operation *op) {
    if (isa<blk::LoadOp, blk::SplitOp>(op))
      return true;
    if (isa<blk::ReduceOp, blk::ScanOp, blk::ArgReduceOp, blk::StoreOp,
            blk::AtomicRMWOp, blk::AtomicCASOp>(op) ||
        op->getNumResults() != 1)
      return false;
    return (isa<blk::BlkDialect>(op->getDialect()) ||
            op->hasTrait<OpTrait::Elementwise>()) &&
           !needsBuffer(op);
  }

  void lowerStore(blk::StoreOp store) {
    Location loc = store.getLoc();
    auto type = cast<RankedTensorType>(store.getValue().getType());
    auto storeAt = [&](ValueRange ivs) {
      Value ptr = readElement(loc, store.getPtr(), ivs);
      Value value = readElement(loc, store.getValue(), ivs);
      blk::StoreOp::create(builder, loc, ptr, value, Value());
    };
    maskedLoopNest(
        loc, type, store.getMask(),
        [&](ValueRange ivs, ValueRange) {
          storeAt(ivs);
          return SmallVector<Value>();
        },
        nullptr);
  }

  /// Partial accumulator rows of a reduction along an outer axis (a power
  /// of two; accumulateRows).
  static constexpr int64_t kPartialRows = 8;

  /// Whether `reduce` is a float max or min, whose fast loop may return
  /// either zero (see exactZero).
  static bool isFloatMinMax(blk::ReduceOp reduce) {
    return isa<FloatType>(reduce.getSrc().getType().getElementType()) &&
           reduce.getKind() != blk::ReduceKind::Sum;
  }

  /// `acc` combined with element `x` of `reduce`'s source. Sums may be
  /// reassociated so that the host compiler vectorizes them; without
  /// `signedZeros` a float max or min may return either zero (IEEE
  /// maximum(-0, +0) is +0, which a vector max honours only at two more
  /// instructions per vector and a slow horizontal step: the max of a short
  /// row took twice as long).
  Value combineElement(Location loc, blk::ReduceOp reduce, Value acc, Value x,
                       bool signedZeros) {
    Type accType = acc.getType();
    if (x.getType() != accType)
      x = arith::ExtFOp::create(builder, loc, accType, x);
    Value combined = combineReduction(builder, loc, reduce.getKind(), acc, x,
                                      /*reassociate=*/true);
    if (!signedZeros && isFloatMinMax(reduce))
      combined.getDefiningOp()->setAttr(
          cast<arith::ArithFastMathInterface>(combined.getDefiningOp())
              .getFastMathAttrName(),
          arith::FastMathFlagsAttr::get(builder.getContext(),
                                        arith::FastMathFlags::nsz));
    return combined;
  }

  /// One loop over `reduce`'s axis at `outer` (the other indices), in the
  /// accumulator type.
  Value reduceLine(blk::ReduceOp reduce, ValueRange outer, bool signedZeros) {
    Location loc = reduce.getLoc();
    RankedTensorType srcType = reduce.getSrc().getType();
    int64_t axis = reduce.getAxis();
    Type accType = reductionAccumulatorType(srcType.getElementType());
    Value init = reductionIdentity(builder, loc, reduce.getKind(), accType);
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    Value ub =
        arith::ConstantIndexOp::create(builder, loc, srcType.getDimSize(axis));
    auto loop = scf::ForOp::create(builder, loc, zero, ub, one, init);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> indices(outer);
    indices.insert(indices.begin() + axis, loop.getInductionVar());
    Value x = readElement(loc, reduce.getSrc(), indices);
    scf::YieldOp::create(builder, loc,
                         combineElement(loc, reduce,
                                        loop.getRegionIterArgs()[0], x,
                                        signedZeros));
    return loop.getResult(0);
  }

  /// The result of `reduce` at `outer` from `acc`, its fast (zero-sign
  /// free) accumulation: a float max or min that came out zero is
  /// recomputed with signed zeros; then rounded to the element type.
  Value finishReduction(blk::ReduceOp reduce, ValueRange outer, Value acc) {
    Location loc = reduce.getLoc();
    Type accType = acc.getType();
    if (isFloatMinMax(reduce)) {
      Value zero = arith::ConstantOp::create(
          builder, loc, builder.getFloatAttr(accType, 0.0));
      Value isZero = arith::CmpFOp::create(
          builder, loc, arith::CmpFPredicate::OEQ, acc, zero);
      auto ifOp = scf::IfOp::create(builder, loc, accType, isZero,
                                    /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(builder, loc,
                           reduceLine(reduce, outer, /*signedZeros=*/true));
      builder.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(builder, loc, acc);
      acc = ifOp.getResult(0);
    }
    Type element = reduce.getSrc().getType().getElementType();
    if (accType != element)
      acc = arith::TruncFOp::create(builder, loc, element, acc);
    return acc;
  }

  /// Reductions of all of a 1-D block that the loop storing the block's
  /// elements computes too, instead of another pass over the stored block.
  struct FusedReductions {
    SmallVector<blk::ReduceOp> reductions;
    SmallVector<Value> inits;

    SmallVector<Value> combine(KernelLowering &lowering, Location loc,
                               ValueRange running, Value element) const {
      SmallVector<Value> next;
      for (auto [op, acc] : llvm::zip(reductions, running))
        next.push_back(lowering.combineElement(loc, op, acc, element,
                                               /*signedZeros=*/false));
      return next;
    }
    /// Running values combined with a chunk's (`chunk`, from `inits`).
    SmallVector<Value> combineChunk(KernelLowering &lowering, Location loc,
                                    ValueRange running,
                                    ValueRange chunk) const {
      SmallVector<Value> next;
      for (auto [op, acc, part] : llvm::zip(reductions, running, chunk))
        next.push_back(combineReduction(lowering.builder, loc,
                                        blk::ReduceOp(op).getKind(), acc, part,
                                        /*reassociate=*/true));
      return next;
    }
    /// Replaces each reduction's result, once the block is stored.
    void finish(KernelLowering &lowering, Location loc,
                ValueRange results) const {
      for (auto [op, acc] : llvm::zip(reductions, results)) {
        blk::ReduceOp reduce = op;
        reduce.getResult().replaceAllUsesWith(
            lowering.finishReduction(reduce, {}, acc));
      }
    }
  };

  /// `fused`'s reductions `running` combined with `fill` once for every
  /// element of [tailStart, size). Where combining the fill changes no
  /// running value (its bits: softmax's padding adds exp(-inf - max) = 0 to
  /// the sum), that is `running` itself; otherwise a loop over the tail.
  /// The tail loop then only stores, off the path to the reductions' results
  /// (1823 x 781 softmax, 243 padding elements a row: 26.1 -> 27.7 GB/s on
  /// one Zen 5 thread, alternating runs).
  SmallVector<Value> combineTail(Location loc, const FusedReductions &fused,
                                 ValueRange running, Value fill,
                                 Value tailStart, int64_t size) {
    Value unchanged;
    SmallVector<Value> once = fused.combine(*this, loc, running, fill);
    for (auto [before, after] : llvm::zip(running, once)) {
      Value same = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                         bitsOf(loc, before), bitsOf(loc, after));
      unchanged = unchanged
                      ? arith::AndIOp::create(builder, loc, unchanged, same)
                      : same;
    }
    auto ifOp = scf::IfOp::create(builder, loc, TypeRange(running), unchanged,
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(builder, loc, running);
    builder.setInsertionPointToStart(ifOp.elseBlock());
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    Value end = arith::ConstantIndexOp::create(builder, loc, size);
    auto loop = scf::ForOp::create(builder, loc, tailStart, end, one, running);
    {
      OpBuilder::InsertionGuard inLoop(builder);
      builder.setInsertionPointToStart(loop.getBody());
      scf::YieldOp::create(
          builder, loc,
          fused.combine(*this, loc, loop.getRegionIterArgs(), fill));
    }
    scf::YieldOp::create(builder, loc, loop.getResults());
    return SmallVector<Value>(ifOp.getResults());
  }

  /// The bits of scalar `value` as an integer (itself if one).
  Value bitsOf(Location loc, Value value) {
    Type type = value.getType();
    if (type.isIntOrIndex())
      return value;
    return arith::BitcastOp::create(
        builder, loc, builder.getIntegerType(type.getIntOrFloatBitWidth()),
        value);
  }

  /// The reductions of `value` (1-D) along its axis in the block that
  /// defines it, to be computed while it is stored (see FusedReductions);
  /// lowerOp skips them afterwards.
  FusedReductions fuseReductionsOf(Value value) {
    FusedReductions fused;
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getRank() != 1)
      return fused;
    SmallVector<Operation *> users(value.getUsers());
    llvm::sort(users, [](Operation *a, Operation *b) {
      return a->getBlock() == b->getBlock() && a->isBeforeInBlock(b);
    });
    for (Operation *user : users) {
      auto reduce = dyn_cast<blk::ReduceOp>(user);
      if (!reduce || reduce->getBlock() != value.getParentBlock() ||
          fusedReductions.contains(reduce))
        continue;
      Type accType = reductionAccumulatorType(type.getElementType());
      fused.reductions.push_back(reduce);
      fused.inits.push_back(reductionIdentity(builder, reduce.getLoc(),
                                              reduce.getKind(), accType));
      fusedReductions.insert(reduce);
    }
    return fused;
  }

  void lowerReduce(blk::ReduceOp reduce) {
    if (fusedReductions.contains(reduce))
      return; // computed where its source was stored
    Location loc = reduce.getLoc();
    RankedTensorType srcType = reduce.getSrc().getType();
    int64_t axis = reduce.getAxis();
    SmallVector<int64_t> outerShape(srcType.getShape());
    outerShape.erase(outerShape.begin() + axis);
    auto reduceAt = [&](ValueRange outer) -> Value {
      return finishReduction(
          reduce, outer,
          reduceLine(reduce, outer, /*signedZeros=*/!isFloatMinMax(reduce)));
    };
    if (outerShape.empty()) {
      reduce.getResult().replaceAllUsesWith(reduceAt({}));
      return;
    }
    auto resultType = cast<RankedTensorType>(reduce.getType());
    Value buffer = allocBuffer(resultType);
    if (axis + 1 < srcType.getRank()) {
      // Along an outer axis (a column of a row-major block), one loop per
      // result element would stride across the block, one element per
      // row. Instead the block is read in its own order, each row
      // combined into a row of accumulators: the innermost loop runs
      // along contiguous elements and vectorizes.
      auto [acc, partials] = accumulateRows(reduce, outerShape);
      loopNest(loc, outerShape, [&](ValueRange ivs) {
        // The partial rows pairwise: (p0 + p1) + (p2 + p3), ...
        SmallVector<Value> rows;
        for (int64_t p = 0; p < partials; ++p) {
          SmallVector<Value> indices(ivs);
          indices.insert(indices.begin(),
                         arith::ConstantIndexOp::create(builder, loc, p));
          rows.push_back(memref::LoadOp::create(builder, loc, acc, indices));
        }
        Value combined =
            combineInterleaved(builder, loc, reduce.getKind(), rows, partials,
                               /*reassociate=*/true);
        memref::StoreOp::create(builder, loc,
                                finishReduction(reduce, ivs, combined), buffer,
                                ivs);
      });
    } else {
      loopNest(loc, outerShape, [&](ValueRange ivs) {
        memref::StoreOp::create(builder, loc, reduceAt(ivs), buffer, ivs);
      });
    }
    lowered[reduce.getResult()] = {Lowered::Buffer, buffer};
  }

  /// `reduce`'s source combined along its axis into rows of accumulators
  /// of `outerShape` (the other axes), reading the source in row-major
  /// order: row i of the axis goes to partial row i mod P, P the largest
  /// power of two up to min(8, the axis' length) (a block's dimensions need
  /// not be powers of two; the caller pairs the partials), so that each
  /// accumulator sums 1/P of the rows and the
  /// rounding error stays that of a vectorized line (the caller adds the
  /// partials pairwise). Returns the [P, outerShape...] buffer and P. Float
  /// max and min ignore the sign of zero here, as reduceLine's fast loop
  /// does; finishReduction redoes a zero.
  std::pair<Value, int64_t> accumulateRows(blk::ReduceOp reduce,
                                           ArrayRef<int64_t> outerShape) {
    Location loc = reduce.getLoc();
    RankedTensorType srcType = reduce.getSrc().getType();
    int64_t axis = reduce.getAxis();
    int64_t partials = int64_t(llvm::bit_floor(uint64_t(
        std::min<int64_t>(kPartialRows, srcType.getDimSize(axis)))));
    Type accType = reductionAccumulatorType(srcType.getElementType());
    SmallVector<int64_t> accShape(outerShape);
    accShape.insert(accShape.begin(), partials);
    Value acc = allocBuffer(RankedTensorType::get(accShape, accType));
    Value identity =
        reductionIdentity(builder, loc, reduce.getKind(), accType);
    loopNest(loc, accShape, [&](ValueRange ivs) {
      memref::StoreOp::create(builder, loc, identity, acc, ivs);
    });
    Value mask = arith::ConstantIndexOp::create(builder, loc, partials - 1);
    loopNest(loc, srcType.getShape(), [&](ValueRange ivs) {
      SmallVector<Value> indices(ivs);
      indices.erase(indices.begin() + axis);
      indices.insert(indices.begin(),
                     arith::AndIOp::create(builder, loc, ivs[axis], mask));
      Value partial = memref::LoadOp::create(builder, loc, acc, indices);
      Value x = readElement(loc, reduce.getSrc(), ivs);
      memref::StoreOp::create(
          builder, loc,
          combineElement(loc, reduce, partial, x,
                         /*signedZeros=*/!isFloatMinMax(reduce)),
          acc, indices);
    });
    return {acc, partials};
  }

  /// blk.arg_reduce: one loop per result element carrying the best (value,
  /// index) pair; elements come in index order, so a tie keeps the first.
  void lowerArgReduce(blk::ArgReduceOp reduce) {
    Location loc = reduce.getLoc();
    RankedTensorType srcType = reduce.getSrc().getType();
    Type valueType = argReductionValueType(srcType.getElementType());
    int64_t axis = reduce.getAxis();
    SmallVector<int64_t> outerShape(srcType.getShape());
    outerShape.erase(outerShape.begin() + axis);

    auto reduceAt = [&](ValueRange outer) -> Value {
      auto [initValue, initIndex] =
          argReductionIdentity(builder, loc, reduce.getKind(), valueType);
      Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
      Value one = arith::ConstantIndexOp::create(builder, loc, 1);
      Value ub = arith::ConstantIndexOp::create(builder, loc,
                                                srcType.getDimSize(axis));
      auto loop = scf::ForOp::create(builder, loc, zero, ub, one,
                                     ValueRange{initValue, initIndex});
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(loop.getBody());
      SmallVector<Value> indices(outer);
      indices.insert(indices.begin() + axis, loop.getInductionVar());
      Value x = argReductionValue(builder, loc,
                                  readElement(loc, reduce.getSrc(), indices));
      Value index = arith::IndexCastOp::create(
          builder, loc, builder.getI32Type(), loop.getInductionVar());
      auto [value, best] = combineArgReduction(
          builder, loc, reduce.getKind(), loop.getRegionIterArgs()[0],
          loop.getRegionIterArgs()[1], x, index);
      scf::YieldOp::create(builder, loc, ValueRange{value, best});
      builder.setInsertionPointAfter(loop);
      return loop.getResult(1);
    };

    if (outerShape.empty()) {
      reduce.getResult().replaceAllUsesWith(reduceAt({}));
      return;
    }
    auto resultType = cast<RankedTensorType>(reduce.getType());
    Value buffer = allocBuffer(resultType);
    loopNest(loc, outerShape, [&](ValueRange ivs) {
      memref::StoreOp::create(builder, loc, reduceAt(ivs), buffer, ivs);
    });
    lowered[reduce.getResult()] = {Lowered::Buffer, buffer};
  }

  /// blk.scan: for each line along the axis, a sequential loop carrying the
  /// running value, with the combine region inlined.
  void lowerScan(blk::ScanOp scan) {
    Location loc = scan.getLoc();
    auto type = cast<RankedTensorType>(scan.getType());
    int64_t axis = scan.getAxis();
    int64_t length = type.getDimSize(axis);
    bool reverse = scan.getReverse();
    SmallVector<int64_t> outerShape(type.getShape());
    outerShape.erase(outerShape.begin() + axis);
    Value buffer = allocBuffer(type);
    auto scanLine = [&](ValueRange outer) {
      auto indicesAt = [&](Value position) {
        SmallVector<Value> indices(outer);
        indices.insert(indices.begin() + axis, position);
        return indices;
      };
      Value first = arith::ConstantIndexOp::create(builder, loc,
                                                   reverse ? length - 1 : 0);
      Value acc = readElement(loc, scan.getSrc(), indicesAt(first));
      memref::StoreOp::create(builder, loc, acc, buffer, indicesAt(first));
      if (length == 1)
        return;
      Value one = arith::ConstantIndexOp::create(builder, loc, 1);
      Value ub = arith::ConstantIndexOp::create(builder, loc, length);
      auto loop = scf::ForOp::create(builder, loc, one, ub, one, acc);
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(loop.getBody());
      Value position = loop.getInductionVar();
      if (reverse)
        position = arith::SubIOp::create(
            builder, loc,
            arith::ConstantIndexOp::create(builder, loc, length - 1), position);
      SmallVector<Value> indices = indicesAt(position);
      Value x = readElement(loc, scan.getSrc(), indices);
      Value next =
          inlineScanCombine(builder, scan, loop.getRegionIterArgs()[0], x);
      memref::StoreOp::create(builder, loc, next, buffer, indices);
      scf::YieldOp::create(builder, loc, next);
    };
    if (outerShape.empty())
      scanLine({});
    else
      loopNest(loc, outerShape, scanLine);
    lowered[scan.getResult()] = {Lowered::Buffer, buffer};
  }

  /// scf.for carrying blocks: each carried block lives in a buffer of its own
  /// that the loop overwrites at the end of every iteration.
  LogicalResult lowerFor(scf::ForOp loop) {
    Location loc = loop.getLoc();
    SmallVector<Value> carry(loop.getInitArgs().size());
    SmallVector<Value> scalarInits;
    for (auto [i, init] : llvm::enumerate(loop.getInitArgs())) {
      auto type = dyn_cast<RankedTensorType>(init.getType());
      if (!type) {
        scalarInits.push_back(init);
        continue;
      }
      if (isa<blk::PtrType>(type.getElementType()))
        return loop.emitOpError()
               << "carries a block of pointers, which the CPU backend does "
                  "not support yet; carry integer offsets instead";
      carry[i] = allocBuffer(type);
      copyBuffer(loc, snapshot(loc, init), carry[i]);
    }
    auto newLoop =
        scf::ForOp::create(builder, loc, loop.getLowerBound(),
                           loop.getUpperBound(), loop.getStep(), scalarInits);
    // Move the body over; carried blocks are read from their buffers.
    Block *oldBody = loop.getBody();
    Block *newBody = newLoop.getBody();
    if (newBody->mightHaveTerminator())
      newBody->getTerminator()->erase();
    newBody->getOperations().splice(newBody->end(), oldBody->getOperations());
    oldBody->getArgument(0).replaceAllUsesWith(newLoop.getInductionVar());
    unsigned scalarIndex = 0;
    for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
      if (carry[i]) {
        lowered[arg] = {Lowered::Buffer, carry[i]};
        continue;
      }
      arg.replaceAllUsesWith(newLoop.getRegionIterArgs()[scalarIndex++]);
    }
    auto yield = cast<scf::YieldOp>(newBody->getTerminator());
    builder.setInsertionPoint(yield);
    if (failed(lowerBlock(*newBody)))
      return failure();
    // lowerBlock may have lowered ops before the yield; copy at the end.
    builder.setInsertionPoint(yield);
    // Snapshot every yielded block before overwriting any carry buffer: a
    // yielded value may read another carried block of this iteration.
    SmallVector<Value> scalarYields;
    SmallVector<std::pair<Value, Value>> copies; // snapshot, carry buffer
    for (auto [i, value] : llvm::enumerate(yield.getOperands())) {
      if (!carry[i]) {
        scalarYields.push_back(value);
        continue;
      }
      copies.push_back({snapshot(loc, value), carry[i]});
    }
    for (auto [from, to] : copies)
      copyBuffer(loc, from, to);
    scf::YieldOp::create(builder, loc, scalarYields);
    toErase.push_back(yield);
    scalarIndex = 0;
    for (auto [i, result] : llvm::enumerate(loop.getResults())) {
      if (carry[i])
        lowered[result] = {Lowered::Buffer, carry[i]};
      else
        result.replaceAllUsesWith(newLoop.getResult(scalarIndex++));
    }
    // The old loop (now with an empty body) goes last: the moved body ops
    // still use its block arguments until they are erased themselves.
    oldLoops.push_back(loop);
    builder.setInsertionPointAfter(newLoop);
    return success();
  }

  /// The elements of `value` computed into a fresh buffer.
  Value snapshot(Location loc, Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    Value buffer = allocBuffer(type);
    loopNest(loc, type.getShape(), [&](ValueRange ivs) {
      memref::StoreOp::create(builder, loc, readElement(loc, value, ivs),
                              buffer, ivs);
    });
    return buffer;
  }

  void copyBuffer(Location loc, Value from, Value to) {
    loopNest(loc, cast<MemRefType>(from.getType()).getShape(),
             [&](ValueRange ivs) {
               Value x = memref::LoadOp::create(builder, loc, from, ivs);
               memref::StoreOp::create(builder, loc, x, to, ivs);
             });
  }

  /// Whether an elementwise result must be stored rather than recomputed.
  bool needsBuffer(Operation *op) {
    Value result = op->getResult(0);
    if (isa<blk::SplatOp, blk::MakeRangeOp, blk::BroadcastOp, blk::ExpandDimsOp,
            blk::AddPtrOp, arith::ConstantOp>(op))
      return false;
    // Shape ops move elements: recomputed from their sources' elements.
    if (isa<blk::ReshapeOp, blk::PermuteOp, blk::JoinOp>(op))
      return false;
    // Reading a loop-carried buffer that the loop overwrites later is fine:
    // the copy at the end of the iteration goes through a snapshot.
    if (isCheap(op))
      return false;
    return !result.hasOneUse();
  }

  LogicalResult lowerBlock(Block &block) {
    if (failed(walkBlockOps(
            block, "CPU",
            [&](scf::ForOp loop) -> LogicalResult {
              builder.setInsertionPoint(loop);
              if (llvm::any_of(loop.getInitArgs().getTypes(), isBlock))
                return lowerFor(loop);
              return lowerBlock(*loop.getBody());
            },
            [&](Operation *op) { return lowerOp(op); })))
      return failure();
    // Next-work prefetches no loop interleaved: at once, right after their
    // load's own loop (before the load, which is erased last).
    for (PrefetchStream &stream : pendingPrefetches)
      if (stream.block == &block) {
        builder.setInsertionPoint(stream.anchor);
        emitPrefetchBurst(stream.anchor->getLoc(), stream);
      }
    llvm::erase_if(pendingPrefetches, [&](const PrefetchStream &stream) {
      return stream.block == &block;
    });
    return success();
  }

  LogicalResult lowerOp(Operation *op) {
    builder.setInsertionPoint(op);
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      if (!isa<SplatElementsAttr>(constant.getValue()))
        return op->emitOpError()
               << "non-splat block constants are not supported on the CPU";
    } else if (auto load = dyn_cast<blk::LoadOp>(op)) {
      if (failed(lowerLoad(load)))
        return failure();
    } else if (auto store = dyn_cast<blk::StoreOp>(op)) {
      lowerStore(store);
    } else if (auto reduce = dyn_cast<blk::ReduceOp>(op)) {
      lowerReduce(reduce);
    } else if (isa<blk::SplitOp>(op)) {
      // Both halves are recomputed from the source's elements.
    } else if (auto scan = dyn_cast<blk::ScanOp>(op)) {
      lowerScan(scan);
    } else if (auto argReduce = dyn_cast<blk::ArgReduceOp>(op)) {
      lowerArgReduce(argReduce);
    } else if (isa<blk::AtomicRMWOp, blk::AtomicCASOp>(op)) {
      if (failed(lowerAtomic(op)))
        return failure();
    } else if (isa<blk::BlkDialect>(op->getDialect()) ||
               op->hasTrait<OpTrait::Elementwise>()) {
      if (op->getNumResults() != 1)
        return op->emitOpError() << "has no CPU lowering";
      if (needsBuffer(op))
        materialize(op->getResult(0));
    } else {
      return op->emitOpError() << "on blocks has no CPU lowering";
    }
    toErase.push_back(op);
    return success();
  }

  //===--------------------------------------------------------------------===//
  // Atomics: one scalar atomic per lane, real atomics (programs run in
  // parallel on the thread pool); masked lanes touch no memory and give 0.
  //===--------------------------------------------------------------------===//

  /// The scalar, unmasked clone of atomic `op` on `operands` (pointer,
  /// [cmp,] value), under `mask` if there is one: `mask ? atomic : 0`.
  Value emitScalarAtomic(Location loc, Operation *op, ValueRange operands,
                         Value mask) {
    Type element = blk::elementTypeOf(op->getResult(0).getType());
    auto emit = [&]() -> Value {
      if (auto rmw = dyn_cast<blk::AtomicRMWOp>(op))
        return blk::AtomicRMWOp::create(builder, loc, rmw.getKind(),
                                        operands[0], operands[1], Value(),
                                        rmw.getSem(), rmw.getScope());
      auto cas = cast<blk::AtomicCASOp>(op);
      return blk::AtomicCASOp::create(builder, loc, operands[0], operands[1],
                                      operands[2], Value(), cas.getSem(),
                                      cas.getScope());
    };
    if (!mask)
      return emit();
    auto ifOp = scf::IfOp::create(builder, loc, element, mask,
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(builder, loc, emit());
    builder.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(builder, loc,
                         Value(arith::ConstantOp::create(
                             builder, loc, builder.getZeroAttr(element))));
    return ifOp.getResult(0);
  }

  /// The operands of atomic `op` other than its mask.
  static SmallVector<Value> atomicOperands(Operation *op) {
    if (auto rmw = dyn_cast<blk::AtomicRMWOp>(op))
      return {rmw.getPtr(), rmw.getValue()};
    auto cas = cast<blk::AtomicCASOp>(op);
    return {cas.getPtr(), cas.getCmp(), cas.getValue()};
  }
  static Value atomicMask(Operation *op) {
    if (auto rmw = dyn_cast<blk::AtomicRMWOp>(op))
      return rmw.getMask();
    return cast<blk::AtomicCASOp>(op).getMask();
  }

  /// Masked atomics on scalar pointers become an scf.if around an unmasked
  /// one (the LLVM lowering takes unmasked scalar atomics only).
  LogicalResult lowerScalarAtomics() {
    SmallVector<Operation *> atomics;
    func.walk([&](Operation *op) {
      if (isa<blk::AtomicRMWOp, blk::AtomicCASOp>(op))
        atomics.push_back(op);
    });
    for (Operation *op : atomics) {
      if (failed(checkAtomicSupported(op, "CPU")))
        return failure();
      if (isBlock(op->getResult(0).getType()) || !atomicMask(op))
        continue;
      builder.setInsertionPoint(op);
      Value old = emitScalarAtomic(op->getLoc(), op, atomicOperands(op),
                                   atomicMask(op));
      op->getResult(0).replaceAllUsesWith(old);
      op->erase();
    }
    return success();
  }

  LogicalResult lowerAtomic(Operation *op) {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    Value buffer = allocBuffer(type);
    Location loc = op->getLoc();
    loopNest(loc, type.getShape(), [&](ValueRange ivs) {
      SmallVector<Value> operands;
      for (Value operand : atomicOperands(op))
        operands.push_back(readElement(loc, operand, ivs));
      Value mask = atomicMask(op);
      Value old = emitScalarAtomic(loc, op, operands,
                                   mask ? readElement(loc, mask, ivs) : mask);
      memref::StoreOp::create(builder, loc, old, buffer, ivs);
    });
    lowered[op->getResult(0)] = {Lowered::Buffer, buffer};
    return success();
  }
};

struct ConvertBlkToLoops
    : blockjit::impl::ConvertBlkToLoopsBase<ConvertBlkToLoops> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      if (failed(KernelLowering(func).run()))
        return signalPassFailure();
    }
  }
};

} // namespace
