//===- VersionPrefixMasks.cpp - accesses without a loop-variant prefix ---===//
//
// A masked 1-D access costs per element where its mask may change within a
// thread's vector or a warp's words: each vector branches on its own lanes
// (loadChunks' maskVaries), each pair of words ballots its mask (word
// pairs). The row bound `cols < n` is loop-invariant, and the bound's range
// folds the branches of every vector wholly inside the row; a causal
// `cols <= row` is not, and costs its branches on every row (bf16 softmax
// under a causal mask, 32768 x 781 on one warp: 1128 SASS instructions
// against softmax's 672). Yet such a prefix term `i + start + offset < bound`
// holds for the whole block on most rows, which one scalar compare of its
// last index says. So each access whose mask has loop-variant prefix terms
// becomes
//
//   scf.if (every such term holds at the block's last index) {
//     the access under the rest of its mask (none if nothing is left)
//   } else {
//     the access as it was
//   }
//
// The condition is the same for all threads of the program, so the branch
// does not diverge (a warp vote, nvvm.vote.sync all, tells ptxas so).
// A load in a loop of constant trip count whose mask is the same over each
// of its vectors is marked blkgpu.branch_free instead: lowered with no
// branch at all, its unrolled copies issue together. So is such a load of
// vectors with nothing to version (a mask the same on every row, or outside
// any loop): no branch parts it from the loads after it.
// Accesses of more than 32 elements a thread stay as they are: their two
// copies cost more than the fast one saves on rows where it is not taken. Terms
// whose index may wrap (offset + start + size past the integer range) take the
// original access.
//
//===----------------------------------------------------------------------===//
#include "compiler/MaskTerms.h"
#include "compiler/Passes.h"
#include "compiler/gpu/AxisInfo.h"
#include "compiler/gpu/Layout.h"
#include "compiler/gpu/ToNVVM/Lowering.h"

#include "dialect/BlkDialect.h"
#include "dialect/gpu/BlkGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

namespace blockjit {
#define GEN_PASS_DEF_BLKVERSIONPREFIXMASKS
#include "compiler/Passes.h.inc"
} // namespace blockjit

using namespace mlir;
using namespace blockjit;

namespace {

/// The most elements a thread of which an access is versioned.
constexpr int64_t kMaxElementsPerThread = 32;

/// Whether `value` is a splat or a splat constant.
bool isUniform(Value value) {
  SplatElementsAttr constant;
  return value.getDefiningOp<blk::SplatOp>() ||
         matchPattern(value, m_Constant(&constant));
}

/// The scalar every element of uniform block `value` holds (isUniform).
Value uniformScalar(OpBuilder &builder, Location loc, Value value) {
  if (auto splat = value.getDefiningOp<blk::SplatOp>())
    return splat.getSrc();
  SplatElementsAttr constant;
  matchPattern(value, m_Constant(&constant));
  return arith::ConstantOp::create(builder, loc,
                                   constant.getSplatValue<TypedAttr>());
}

/// Whether prefix `term` of the mask of an access in `loop` is one that
/// versioning can test once: it changes in the loop, its bound and offset
/// are splats, its index is 32 bits or narrower.
bool isVersionable(scf::ForOp loop, const PrefixTerm &term) {
  if (loop.isDefinedOutsideOfLoop(term.term) || !isUniform(term.bound) ||
      (term.offset && !isUniform(term.offset)))
    return false;
  Type type = getElementTypeOrSelf(term.bound.getType());
  return type.isSignlessInteger() && type.getIntOrFloatBitWidth() <= 32;
}

/// Whether prefix `term` (versionableTerm) of a block of `size` elements
/// holds for all of them, as a scalar i1 computed at the builder: in 64
/// bits, the last index start + offset + size - 1 is below (or at) the
/// bound, and the index does not wrap.
Value holdsForWholeBlock(OpBuilder &builder, Location loc,
                         const PrefixTerm &term, int64_t size) {
  Type i64 = builder.getI64Type();
  auto widen = [&](Value value) -> Value {
    if (term.isUnsigned)
      return arith::ExtUIOp::create(builder, loc, i64, value);
    return arith::ExtSIOp::create(builder, loc, i64, value);
  };
  int64_t last = term.start + size - 1;
  // last (+ offset) + 1 <= bound, or last (+ offset) <= bound when
  // inclusive.
  Value limit = arith::ConstantIntOp::create(
      builder, loc, last + (term.inclusive ? 0 : 1), 64);
  Value offset;
  if (term.offset) {
    offset = arith::ExtSIOp::create(builder, loc, i64,
                                    uniformScalar(builder, loc, term.offset));
    limit = arith::AddIOp::create(builder, loc, limit, offset);
  }
  Value holds =
      arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sle, limit,
                            widen(uniformScalar(builder, loc, term.bound)));
  if (!offset)
    return holds;
  Value wraps = prefixIndexWraps(builder, loc, term, offset, size);
  Value noWrap = arith::XOrIOp::create(
      builder, loc, wraps, arith::ConstantIntOp::create(builder, loc, 1, 1));
  return arith::AndIOp::create(builder, loc, holds, noWrap);
}

struct BlkVersionPrefixMasksPass
    : blockjit::impl::BlkVersionPrefixMasksBase<BlkVersionPrefixMasksPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      AxisAnalysis axis(func);
      SmallVector<Operation *> accesses;
      func.walk([&](Operation *op) {
        if (auto load = dyn_cast<blk::LoadOp>(op); load && load.getMask())
          accesses.push_back(op);
        else if (auto store = dyn_cast<blk::StoreOp>(op);
                 store && store.getMask())
          accesses.push_back(op);
      });
      for (Operation *access : accesses)
        version(axis, access);
    }
  }

  /// Whether `loop`'s bounds and step are constants.
  static bool hasConstantTripCount(scf::ForOp loop) {
    return getConstantIntValue(loop.getLowerBound()) &&
           getConstantIntValue(loop.getUpperBound()) &&
           getConstantIntValue(loop.getStep());
  }

  /// Whether `load`'s mask is the same over each of its vectors, so that a
  /// vector that is off can read the stand-in instead of its own address:
  /// the lowering's own access (nvvm::blockAccessWidth) decides.
  /// `minWidth` is the narrowest access that counts.
  static bool loadsWholeVectors(const AxisAnalysis &axis, blk::LoadOp load,
                                int64_t minWidth = 1) {
    auto type = dyn_cast<RankedTensorType>(load.getType());
    std::optional<Layout1D> layout = type ? linearLayoutOf(type) : std::nullopt;
    if (!layout || !nvvm::readsStandInWhenOff(type.getElementType()))
      return false;
    nvvm::AccessWidth access = nvvm::blockAccessWidth(
        axis, load.getPtr(), load.getMask(), type.getElementType());
    // A row known only element-aligned (narrower than the layout's vector)
    // may move in word pairs, which branch by themselves: versioned as
    // before.
    if (access.width == 1 && layout->vector > 1)
      return false;
    return access.width >= minWidth && !access.maskVaries;
  }

  /// `access` in an scf.if on its loop-variant prefix terms (file comment),
  /// if its mask has any.
  void version(const AxisAnalysis &axis, Operation *access) {
    auto load = dyn_cast<blk::LoadOp>(access);
    auto store = dyn_cast<blk::StoreOp>(access);
    Value mask = load ? load.getMask() : store.getMask();
    auto loop = access->getParentOfType<scf::ForOp>();
    auto type = dyn_cast<RankedTensorType>(mask.getType());
    if (!type || type.getRank() != 1)
      return;
    auto markBranchFree = [&] {
      load->setAttr(blkgpu::BlkGPUDialect::kBranchFreeLoadAttrName,
                    UnitAttr::get(load.getContext()));
    };
    // The mask's terms (compiler/MaskTerms.h): the versionable prefixes,
    // and the rest, which the fast access keeps.
    MaskTerms split = splitMask(mask);
    SmallVector<PrefixTerm> terms;
    SmallVector<Value> rest(split.perLine);
    for (const PrefixTerm &prefix : split.prefixes) {
      if (loop && isVersionable(loop, prefix))
        terms.push_back(prefix);
      else
        rest.push_back(prefix.term);
    }
    // A load with nothing to version (its mask the same on every row, as
    // a row kernel's `cols < n_cols`, or outside any loop) whose mask holds
    // over whole vectors needs no branch either: behind one, the next load
    // waited for the computation on the one before (softmax_backward's y
    // and dy, bf16 4096 columns on 8 warps: dy's second vector issued after
    // y's conversion, a second trip to DRAM a row). Scalar accesses keep
    // their branches: every element past the row would read the stand-in
    // (f32 rows of 781 on the H200: layernorm and softmax_masked 6-7 %
    // slower in one session, where the order of the runs alone made 0-3 %).
    if (terms.empty()) {
      if (load && loadsWholeVectors(axis, load, /*minWidth=*/2))
        markBranchFree();
      return;
    }
    // Two copies of an access of many elements a thread cost more than the
    // fast one saves where the term rarely holds (bf16 causal softmax, 4096
    // x 12288 on 4 warps, 128 elements a thread: 1.29 -> 1.22 x copy).
    if (std::optional<Layout1D> layout = linearLayoutOf(type);
        layout && layout->perThread() > kMaxElementsPerThread)
      return;
    // A load whose mask holds over whole vectors, in a loop of a known trip
    // count (which LLVM unrolls), needs no version: lowered without a branch
    // (kBranchFreeLoadAttrName), the unrolled copies stay in one basic block
    // with the loads after them, where ptxas issues them all before waiting
    // on any; behind a branch each waited for the one before (layernorm's
    // chunks of 2048 f32 on 8 warps, 32768 x 4096, H200: 4061 -> 4216
    // GB/s). In a loop that stays a loop the version's fast path, with no
    // mask at all, is cheaper (softmax_online, H200: 0-2.5 % slower without
    // it).
    if (load && hasConstantTripCount(loop) && loadsWholeVectors(axis, load)) {
      markBranchFree();
      return;
    }
    llvm::append_range(rest, split.perElement);

    OpBuilder builder(access);
    Location loc = access->getLoc();
    Value condition;
    for (const PrefixTerm &term : terms) {
      Value holds = holdsForWholeBlock(builder, loc, term, type.getShape()[0]);
      condition =
          condition
              ? Value(arith::AndIOp::create(builder, loc, condition, holds))
              : holds;
    }
    Value restMask;
    for (Value leaf : rest)
      restMask =
          restMask ? Value(arith::AndIOp::create(builder, loc, restMask, leaf))
                   : leaf;
    // The condition is the program's, so the same in each of its warps; a
    // warp's vote says so to ptxas, which otherwise treats the collectives
    // under the branch (shuffles, ballots) as possibly divergent and wraps
    // each in a slow path (bf16 causal softmax on 1 warp: 21 BRA.DIV).
    condition = NVVM::VoteSyncOp::create(
        builder, loc, builder.getI1Type(),
        arith::ConstantIntOp::create(builder, loc, -1, 32), condition,
        NVVM::VoteSyncKind::all);
    auto ifOp = scf::IfOp::create(builder, loc, access->getResultTypes(),
                                  condition, /*withElseRegion=*/true);
    ifOp->setAttr(blkgpu::BlkGPUDialect::kVersionedAccessAttrName,
                  builder.getUnitAttr());
    // Fast: the access under the rest of its mask.
    builder.setInsertionPointToStart(ifOp.thenBlock());
    Operation *fast;
    if (load)
      fast = blk::LoadOp::create(builder, loc, load.getPtr(), restMask,
                                 restMask ? load.getOther() : Value(),
                                 load.getEvictionAttr());
    else
      fast =
          blk::StoreOp::create(builder, loc, store.getPtr(), store.getValue(),
                               restMask, store.getEvictionAttr());
    fast->setDiscardableAttrs(access->getDiscardableAttrDictionary());
    // (An scf.if without results comes with its yields.)
    if (load)
      scf::YieldOp::create(builder, loc, fast->getResults());
    // Slow: the access as it was.
    builder.setInsertionPointToStart(ifOp.elseBlock());
    Operation *slow = builder.clone(*access);
    if (load)
      scf::YieldOp::create(builder, loc, slow->getResults());
    access->replaceAllUsesWith(ifOp.getResults());
    access->erase();
  }
};

} // namespace
