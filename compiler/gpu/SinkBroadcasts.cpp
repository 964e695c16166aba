//===- SinkBroadcasts.cpp - 2-D broadcasts without shared memory ----------===//
//
// A broadcast stretches a block along a dimension; on the GPU the source
// and the result are distributed differently (each element count has its
// own layout), so the lowering exchanges the elements through shared memory,
// twice fenced by barriers. 2-D kernels broadcast all the time: the row and
// column indices of a tile (rows[:, None] * stride + cols[None, :]), its
// masks, and each reduction kept as a column (x - max(x, 1, keep_dims)).
//
// This pass rebuilds such a broadcast in the result's shape when its source
// is computed only from:
//   - splats and splat constants: made at the result's shape;
//   - make_range: the broadcast of the range alone, which the lowering
//     computes in every thread from its element's coordinates;
//   - reduce(x, a) stretched back along a (x of the result's shape):
//     blkgpu.all_reduce(x, a), which leaves each line's result in the
//     threads that hold the line (in-thread, shuffles, shared memory only
//     across warps);
//   - a load whose pointers, mask and `other` are made of those (a weight
//     row [1, N] over a tile's rows): the load of the stretched pointers,
//     where the original load was (so it reads what that one read), marked
//     blkgpu.stretched_dims; every thread reads the elements it holds,
//     each of its own once (the lowering loads one register of each run of
//     registers that differ only along the stretched dimensions), as
//     Triton's loads in a slice layout do;
//   - elementwise ops of those (blk.addptr included): the same op on the
//     rebuilt operands.
// The elementwise ops then run on more elements (cheap index arithmetic, or
// values that are equal along the reduced axis and that CSE merges per
// thread after the lowering). Anything else (a scan, a load through
// pointers that cannot be rebuilt, such as a block the kernel was given)
// keeps its broadcast.
//
//===----------------------------------------------------------------------===//
#include "compiler/Passes.h"

#include "dialect/BlkDialect.h"
#include "dialect/gpu/BlkGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"

#include <map>
#include <tuple>

namespace blockjit {
#define GEN_PASS_DEF_BLKSINKBROADCASTS
#include "compiler/Passes.h.inc"
} // namespace blockjit

using namespace mlir;
using namespace blockjit;

namespace {

/// The loads rebuilt so far, by original load, shape and dims: a row that
/// several broadcasts stretch the same way is loaded once.
using StretchedLoads = std::map<
    std::tuple<Operation *, SmallVector<int64_t>, SmallVector<int64_t>>, Value>;

/// Rebuilds values in the shape `shape` of one broadcast's result. A value
/// of rank r comes with `dims`, the result dimension each of its dimensions
/// is (its size there or 1); the result's other dimensions are stretched.
class BroadcastSinker {
public:
  BroadcastSinker(OpBuilder &builder, ArrayRef<int64_t> shape,
                  StretchedLoads &loads)
      : builder(builder), shape(shape), loads(loads) {}

  /// Whether `value` can be rebuilt, visiting at most kMaxOps ops, and
  /// whether doing so removes an exchange (a range, a reduction or a load).
  bool canSink(Value value, ArrayRef<int64_t> dims) {
    budget = kMaxOps;
    removesExchange = false;
    return check(value, dims) && removesExchange;
  }

  /// `value` rebuilt in the result's shape (canSink must hold).
  Value sink(Value value, ArrayRef<int64_t> dims) {
    auto type = cast<RankedTensorType>(value.getType());
    Location loc = value.getLoc();
    RankedTensorType result = resultType(type.getElementType());
    Operation *def = value.getDefiningOp();
    if (auto splat = dyn_cast<blk::SplatOp>(def))
      return blk::SplatOp::create(builder, loc, result, splat.getSrc());
    if (auto constant = dyn_cast<arith::ConstantOp>(def))
      return arith::ConstantOp::create(
          builder, loc,
          cast<SplatElementsAttr>(constant.getValue()).resizeSplat(result));
    if (auto range = dyn_cast<blk::MakeRangeOp>(def))
      return sinkRange(range, dims[0]);
    if (auto load = dyn_cast<blk::LoadOp>(def))
      return sinkLoad(load, dims);
    if (auto reduce = dyn_cast<blk::ReduceOp>(def))
      return blkgpu::AllReduceOp::create(
          builder, loc, reduce.getSrc().getType(), reduce.getKindAttr(),
          reduce.getSrc(), reduce.getAxisAttr());
    if (auto expand = dyn_cast<blk::ExpandDimsOp>(def))
      return sink(expand.getSrc(), withoutDim(dims, expand.getAxis()));
    if (auto inner = dyn_cast<blk::BroadcastOp>(def))
      return sink(inner.getSrc(), dims);
    // Elementwise: the same op on the rebuilt operands.
    OperationState state(loc, def->getName());
    for (Value operand : def->getOperands())
      state.addOperands(isa<RankedTensorType>(operand.getType())
                            ? sink(operand, dims)
                            : operand);
    state.addAttributes(def->getAttrs());
    state.addTypes(result);
    return builder.create(state)->getResult(0);
  }

private:
  static constexpr int kMaxOps = 64;
  OpBuilder &builder;
  ArrayRef<int64_t> shape;
  StretchedLoads &loads;
  int budget = kMaxOps;
  bool removesExchange = false;

  RankedTensorType resultType(Type element) const {
    return RankedTensorType::get(shape, element);
  }

  static SmallVector<int64_t> withoutDim(ArrayRef<int64_t> dims,
                                         int64_t axis) {
    SmallVector<int64_t> rest(dims);
    rest.erase(rest.begin() + axis);
    return rest;
  }

  /// Whether reduce(x, axis) seen at `dims` is stretched back along its
  /// own axis: x has the result's shape, and the reduction's dimensions are
  /// x's other than `axis`, in order.
  bool reducesAlong(blk::ReduceOp reduce, ArrayRef<int64_t> dims) const {
    RankedTensorType x = reduce.getSrc().getType();
    int64_t axis = reduce.getAxis();
    if (x.getShape() != shape)
      return false;
    for (auto [d, target] : llvm::enumerate(dims))
      if (target != (int64_t(d) < axis ? int64_t(d) : int64_t(d) + 1))
        return false;
    return true;
  }

  bool check(Value value, ArrayRef<int64_t> dims) {
    if (--budget < 0)
      return false;
    auto type = dyn_cast<RankedTensorType>(value.getType());
    Operation *def = value.getDefiningOp();
    if (!type || !def || def->getNumResults() != 1)
      return false;
    if (isa<blk::SplatOp>(def))
      return true;
    if (auto constant = dyn_cast<arith::ConstantOp>(def))
      return isa<SplatElementsAttr>(constant.getValue());
    if (isa<blk::MakeRangeOp>(def)) {
      removesExchange = true;
      return true;
    }
    if (auto reduce = dyn_cast<blk::ReduceOp>(def)) {
      if (!reducesAlong(reduce, dims))
        return false;
      removesExchange = true;
      return true;
    }
    if (auto load = dyn_cast<blk::LoadOp>(def)) {
      for (Value operand : load->getOperands())
        if (isa<RankedTensorType>(operand.getType()) && !check(operand, dims))
          return false;
      removesExchange = true;
      return true;
    }
    if (auto expand = dyn_cast<blk::ExpandDimsOp>(def))
      return check(expand.getSrc(), withoutDim(dims, expand.getAxis()));
    if (auto inner = dyn_cast<blk::BroadcastOp>(def))
      return check(inner.getSrc(), dims);
    // Memory-effect free is enough (integer division included): the op runs
    // on the same values, before the broadcast the original reached.
    if (!(def->hasTrait<OpTrait::Elementwise>() || isa<blk::AddPtrOp>(def)) ||
        def->getNumRegions() != 0 || !isMemoryEffectFree(def))
      return false;
    for (Value operand : def->getOperands())
      if (isa<RankedTensorType>(operand.getType()) && !check(operand, dims))
        return false;
    return true;
  }

  /// `load` seen at `dims`, loading the stretched pointers: created where
  /// `load` is, so that the same stores precede it, with its operands
  /// rebuilt there (they are computed before `load`, so their rebuilt
  /// sources are too).
  Value sinkLoad(blk::LoadOp load, ArrayRef<int64_t> dims) {
    auto key = std::make_tuple(load.getOperation(), SmallVector<int64_t>(shape),
                               SmallVector<int64_t>(dims));
    if (auto done = loads.find(key); done != loads.end())
      return done->second;
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(load);
    auto rebuilt = [&](Value operand) -> Value {
      if (!operand || !isa<RankedTensorType>(operand.getType()))
        return operand;
      return sink(operand, dims);
    };
    auto stretchedLoad = blk::LoadOp::create(
        builder, load.getLoc(), rebuilt(load.getPtr()), rebuilt(load.getMask()),
        rebuilt(load.getOther()), load.getEvictionAttr());
    SmallVector<int64_t> stretched =
        stretchedDims(cast<RankedTensorType>(load.getType()).getShape(), dims);
    // (None: a broadcast to its own shape, which canonicalize removes.)
    if (!stretched.empty())
      stretchedLoad->setAttr(blkgpu::BlkGPUDialect::kStretchedDimsAttrName,
                             builder.getDenseI64ArrayAttr(stretched));
    loads[key] = stretchedLoad;
    return stretchedLoad;
  }

  /// The result's dimensions that a value of `valueShape` seen at `dims`
  /// does not span: absent from it, or of size 1 there.
  SmallVector<int64_t> stretchedDims(ArrayRef<int64_t> valueShape,
                                     ArrayRef<int64_t> dims) const {
    SmallVector<int64_t> stretched;
    for (int64_t d = 0; d < int64_t(shape.size()); ++d) {
      const int64_t *at = llvm::find(dims, d);
      if (shape[d] > 1 &&
          (at == dims.end() || valueShape[at - dims.begin()] == 1))
        stretched.push_back(d);
    }
    return stretched;
  }

  /// make_range(start, start + n) along result dimension `dim` (n equals
  /// the result's size there, or 1): expand_dims to the result's rank, then
  /// broadcast; the lowering computes that from element coordinates.
  Value sinkRange(blk::MakeRangeOp range, int64_t dim) {
    Location loc = range.getLoc();
    int64_t rank = int64_t(shape.size());
    if (range.getType().getNumElements() == 1)
      return arith::ConstantOp::create(
          builder, loc,
          SplatElementsAttr::get(resultType(range.getType().getElementType()),
                                 range.getStartAttr()));
    Value value = range;
    for (int64_t d = 0; d < rank; ++d)
      if (d != dim)
        value = blk::ExpandDimsOp::create(builder, loc, value, int32_t(d));
    return blk::BroadcastOp::create(
        builder, loc, resultType(range.getType().getElementType()), value);
  }
};

struct BlkSinkBroadcasts
    : blockjit::impl::BlkSinkBroadcastsBase<BlkSinkBroadcasts> {
  void runOnOperation() override {
    SmallVector<blk::BroadcastOp> broadcasts;
    StretchedLoads loads;
    getOperation().walk(
        [&](blk::BroadcastOp broadcast) { broadcasts.push_back(broadcast); });
    for (blk::BroadcastOp broadcast : broadcasts) {
      RankedTensorType type = broadcast.getType();
      // After blk-assign-layouts (blockjit-opt may run it there) blocks
      // carry layouts that a rebuilt value would lack: leave them.
      if (type.getEncoding())
        continue;
      OpBuilder builder(broadcast);
      BroadcastSinker sinker(builder, type.getShape(), loads);
      SmallVector<int64_t> dims =
          llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
      // A range already alone under its broadcast stays as it is (the
      // lowering computes it in place); one of a single element becomes a
      // constant.
      blk::MakeRangeOp range = blk::rangeThroughExpandDims(broadcast.getSrc());
      if ((range && range.getType().getNumElements() > 1) ||
          !sinker.canSink(broadcast.getSrc(), dims))
        continue;
      Value rebuilt = sinker.sink(broadcast.getSrc(), dims);
      broadcast.replaceAllUsesWith(rebuilt);
      broadcast.erase();
    }
  }
};

} // namespace
