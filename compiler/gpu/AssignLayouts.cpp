//===- AssignLayouts.cpp - distribute blocks over GPU threads ------------===//
#include "compiler/Passes.h"
#include "compiler/Specialization.h"
#include "compiler/VerifyKernels.h"
#include "compiler/gpu/AxisInfo.h"
#include "compiler/gpu/Layout.h"

#include "dialect/BlkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/MathExtras.h"

#include <map>
#include <optional>
#include <set>

namespace blockjit {
#define GEN_PASS_DEF_BLKASSIGNLAYOUTS
#include "compiler/Passes.h.inc"
} // namespace blockjit

using namespace mlir;
using namespace blockjit;

static_assert(kMaxProgramsPerCTA == int(blkgpu::kMaxProgramsPerCTA) &&
                  kMaxNumCTAs == int(blkgpu::kMaxCTAsPerCluster),
              "the compile options' limits are the dialect's");

namespace {

/// Whether the cluster lowering implements `op` on blocks split over CTAs
/// (`layoutOf` gives a split block's layout): ops that keep every element
/// where it is, broadcasts of ranges or of blocks held whole, 1-D reductions
/// (combined across the cluster through distributed shared memory) and
/// all_reduce whose lines a cluster buffer holds (each CTA sends one value
/// per line of its piece), both where their partials may cross a cluster.
bool implementedOnSplitBlocks(
    Operation *op, function_ref<Layout1D(RankedTensorType)> layoutOf) {
  if (isa<blk::MakeRangeOp, blk::SplatOp, blk::ExpandDimsOp, blk::ReshapeOp,
          blk::AddPtrOp, blk::LoadOp, blk::StoreOp>(op))
    return true;
  // A broadcast is computed in place (a range) or gathered from the source
  // every CTA holds whole.
  if (auto broadcast = dyn_cast<blk::BroadcastOp>(op))
    return blk::rangeBroadcastOf(broadcast) ||
           !layoutOf(broadcast.getSrc().getType()).split();
  if (auto reduce = dyn_cast<blk::ReduceOp>(op))
    return reduce.getSrc().getType().getRank() == 1 &&
           partialsCrossCluster(reduce.getSrc().getType().getElementType());
  if (auto allReduce = dyn_cast<blkgpu::AllReduceOp>(op)) {
    RankedTensorType type = allReduce.getSrc().getType();
    if (!partialsCrossCluster(type.getElementType()))
      return false;
    Layout1D layout = layoutOf(type);
    return clusterAllReduceBytes(type.getShape(), layout,
                                 allReduce.getAxis()) <=
           kMaxClusterAllReduceBytes;
  }
  StringRef dialect = op->getDialect() ? op->getDialect()->getNamespace() : "";
  return dialect == "arith" || dialect == "math" || dialect == "scf";
}

/// The CTAs per program and which block sizes are split over them, for a
/// requested cluster of `numCTAs`; the reason when it falls back to one CTA.
struct ClusterPlan {
  int64_t numCTAs = 1;
  std::set<int64_t> splitSizes;
  std::string fallback;

  /// Pieces a block of `size` elements is cut into (1: not split).
  int64_t piecesOf(int64_t size) const {
    return splitSizes.count(size) ? numCTAs : 1;
  }
};

ClusterPlan planCluster(ModuleOp module, int64_t numCTAs, int64_t threads,
                        const std::map<int64_t, int64_t> &vectors) {
  ClusterPlan plan;
  if (numCTAs == 1)
    return plan;
  // A block is split when every CTA gets at least one whole tile of it.
  for (auto [size, vector] : vectors)
    if (size / numCTAs >= vector * threads)
      plan.splitSizes.insert(size);
  if (plan.splitSizes.empty()) {
    plan.fallback = "no block is large enough to give each of the " +
                    std::to_string(numCTAs) + " CTAs a tile";
    return plan;
  }
  auto isSplit = [&](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && plan.splitSizes.count(tensor.getNumElements());
  };
  auto splitLayout = [&](RankedTensorType type) {
    int64_t size = type.getNumElements();
    return Layout1D{size, vectors.at(size), threads, plan.piecesOf(size)};
  };
  plan.numCTAs = numCTAs; // piecesOf() while checking; reset on a fallback
  WalkResult walk = module.walk([&](Operation *op) {
    if (!llvm::any_of(
            llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()),
            isSplit) ||
        implementedOnSplitBlocks(op, splitLayout))
      return WalkResult::advance();
    plan.fallback = "'" + op->getName().getStringRef().str() +
                    "' is not implemented on blocks split over a cluster";
    return WalkResult::interrupt();
  });
  if (walk.wasInterrupted()) {
    plan.splitSizes.clear();
    plan.numCTAs = 1;
  }
  return plan;
}

struct BlkAssignLayouts
    : blockjit::impl::BlkAssignLayoutsBase<BlkAssignLayouts> {
  using BlkAssignLayoutsBase::BlkAssignLayoutsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    if (llvm::Error error = checkNumWarps(numWarps)) {
      module.emitError() << llvm::toString(std::move(error));
      return signalPassFailure();
    }
    if (llvm::Error error = checkNumCTAs(numCTAs)) {
      module.emitError() << llvm::toString(std::move(error));
      return signalPassFailure();
    }
    if (llvm::Error error =
            checkProgramsPerCTA(programsPerCTA, numWarps, numCTAs)) {
      module.emitError() << llvm::toString(std::move(error));
      return signalPassFailure();
    }
    // The narrowest element accessed in memory at each block size decides
    // the vector: 16 bytes of it per thread chunk.
    // Blocks of any rank are distributed by their row-major linear index, so
    // one vector serves every shape of one element count (expand_dims moves
    // no data); a thread's chunk stays within one row of the last dimension.
    // A contiguous access that cannot be a full vector (a row start or a
    // mask known only to a few elements' alignment) narrows the chunk to
    // what it can move at once: a warp's scalar accesses then fall on
    // consecutive addresses (Triton's coalescing) instead of 16 bytes apart,
    // which left 2-byte rows of odd length at a third of copy speed.
    std::map<int64_t, int64_t> narrowestRun;
    // Sizes whose narrowing accesses are all rows of 2-byte elements that
    // start only element-aligned (elementAlignedRow).
    std::map<int64_t, bool> onlyElementAlignedRows;
    std::map<int64_t, unsigned> narrowestBytes;
    std::map<int64_t, int64_t> shortestRow;
    bool failedShape = false;
    std::optional<AxisAnalysis> axis;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto func = dyn_cast<func::FuncOp>(op))
        axis.emplace(func);
      for (Type type :
           llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
        auto tensor = dyn_cast<RankedTensorType>(type);
        if (!tensor)
          continue;
        if (!llvm::all_of(tensor.getShape(), [](int64_t size) {
              return size > 0 && llvm::isPowerOf2_64(size);
            })) {
          op->emitOpError() << "uses the block " << tensor
                            << "; the GPU backend distributes blocks of "
                               "static power-of-two dimensions";
          failedShape = true;
          return;
        }
        // 0: no memory access at this size yet (4 bytes if none comes).
        narrowestBytes.try_emplace(tensor.getNumElements(), 0);
        auto [row, inserted] = shortestRow.try_emplace(
            tensor.getNumElements(), tensor.getShape().back());
        row->second = std::min(row->second, tensor.getShape().back());
      }
      Value ptrValue, mask;
      // A stretched row (blkgpu.stretched_dims) has the tile's element count
      // but not its accesses: a weight row of narrow alignment must not
      // narrow the tile's own loads and stores (its own accesses are as
      // wide as both allow, accessWidths()).
      if (auto load = dyn_cast<blk::LoadOp>(op)) {
        if (!load->hasAttr(blkgpu::BlkGPUDialect::kStretchedDimsAttrName)) {
          ptrValue = load.getPtr();
          mask = load.getMask();
        }
      } else if (auto store = dyn_cast<blk::StoreOp>(op)) {
        ptrValue = store.getPtr();
        mask = store.getMask();
      }
      if (auto tensor = dyn_cast_or_null<RankedTensorType>(
              ptrValue ? ptrValue.getType() : Type())) {
        auto ptr = cast<blk::PtrType>(tensor.getElementType());
        unsigned bytes = unsigned(blk::elementBytes(ptr.getPointeeType()));
        unsigned &narrowest = narrowestBytes[tensor.getNumElements()];
        narrowest = narrowest ? std::min(narrowest, bytes) : bytes;
        // Gathers and uniform pointers (no contiguous run) coalesce alike
        // under any chunk; a full 16-byte vector never narrows it.
        // The mask does not narrow it: a vector whose lanes are not all on
        // goes element by element (Memory.cpp), the others stay vectors.
        int64_t run = axis && axis->get(ptrValue).contiguity > 1
                          ? vectorRunOf(*axis, ptrValue, Value(), bytes)
                          : 16 / bytes;
        if (run < 16 / bytes) {
          auto [entry, inserted] =
              narrowestRun.try_emplace(tensor.getNumElements(), run);
          entry->second = std::min(entry->second, run);
          bool pairs = axis && elementAlignedRow(*axis, ptrValue, bytes);
          auto [only, first] = onlyElementAlignedRows.try_emplace(
              tensor.getNumElements(), pairs);
          only->second = only->second && pairs;
        }
      }
    });
    if (failedShape)
      return signalPassFailure();
    // Kernel parameters are scalars and pointers (checked again: this pass
    // may run alone); a non-splat block constant has no per-thread lowering.
    bool unsupported = false;
    module.walk([&](Operation *op) {
      if (auto func = dyn_cast<func::FuncOp>(op)) {
        if (!func.isExternal() && failed(verifyKernelSignature(func)))
          unsupported = true;
      } else if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
        if (isa<RankedTensorType>(constant.getType()) &&
            !isa<SplatElementsAttr>(constant.getValue())) {
          constant.emitOpError()
              << "non-splat block constants are not supported on the GPU";
          unsupported = true;
        }
      }
    });
    if (unsupported)
      return signalPassFailure();

    std::map<int64_t, int64_t> vectors;
    int64_t threads = int64_t(numWarps) * kWarpSize;
    for (auto [size, accessed] : narrowestBytes) {
      unsigned bytes = accessed ? accessed : 4;
      int64_t vector =
          std::min<int64_t>(16 / bytes, std::max<int64_t>(1, size / threads));
      vector = std::min(vector, shortestRow[size]);
      if (auto run = narrowestRun.find(size); run != narrowestRun.end()) {
        // One warp moves element-aligned rows of 2-byte elements in words,
        // two elements a thread, shifted at run time where a row starts
        // mid-word (Memory.cpp): a warp's access spans 128 bytes instead
        // of 64 (the split stats kernel read such rows at 1.2 TB/s, rows
        // of 4-byte scalars at 2.3).
        int64_t narrowest = run->second;
        if (numWarps == 1 && numCTAs == 1 && onlyElementAlignedRows[size])
          narrowest = std::max<int64_t>(narrowest, 2);
        vector = std::min(vector, narrowest);
      }
      vectors[size] = vector;
    }
    ClusterPlan cluster = planCluster(module, numCTAs, threads, vectors);
    // Every element of a block is a value of its own in the thread's code,
    // and LLVM's register liveness over that code grows faster than
    // linearly: bound it with a clear error rather than a compile that
    // takes minutes.
    if (!narrowestBytes.empty()) {
      int64_t largest = narrowestBytes.rbegin()->first;
      int64_t pieces = cluster.piecesOf(largest);
      int64_t perThread = largest / (threads * pieces);
      if (perThread > kMaxElementsPerThread) {
        InFlightDiagnostic error = module.emitError();
        error << "a block of " << largest << " elements needs " << perThread
              << " elements per thread with num_warps " << int(numWarps);
        if (pieces > 1)
          error << " over " << pieces << " CTAs";
        error << "; the GPU backend allows at most " << kMaxElementsPerThread
              << " per thread (use more warps, num_ctas or a smaller block)";
        return signalPassFailure();
      }
    }
    // Each shape gets the per-dimension layout of that linear distribution.
    DenseMap<Type, Type> laidOutTypes;
    auto laidOut = [&](Type type) -> Type {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor || tensor.getEncoding())
        return type;
      Type &result = laidOutTypes[tensor];
      if (!result)
        result = RankedTensorType::get(
            tensor.getShape(), tensor.getElementType(),
            linearBlockedLayout(context, tensor.getShape(),
                                vectors.at(tensor.getNumElements()), numWarps,
                                cluster.numCTAs,
                                cluster.piecesOf(tensor.getNumElements())));
      return result;
    };
    module.walk([&](Operation *op) {
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            arg.setType(laidOut(arg.getType()));
      for (OpResult result : op->getResults())
        result.setType(laidOut(result.getType()));
      if (auto constant = dyn_cast<arith::ConstantOp>(op))
        if (auto splat = dyn_cast<SplatElementsAttr>(constant.getValue()))
          constant.setValueAttr(
              splat.resizeSplat(cast<ShapedType>(constant.getType())));
    });
    // Blocks that came with a layout keep it if the lowering implements it.
    if (failed(verifyLinearLayouts(module, numWarps, int(cluster.numCTAs))))
      return signalPassFailure();
    Type i32 = IntegerType::get(context, 32);
    module->setAttr(kNumWarpsAttr, IntegerAttr::get(i32, numWarps));
    if (cluster.numCTAs > 1)
      module->setAttr(kNumCTAsAttr, IntegerAttr::get(i32, cluster.numCTAs));
    if (programsPerCTA > 1)
      module->setAttr(kProgramsPerCTAAttr,
                      IntegerAttr::get(i32, programsPerCTA));
    if (!cluster.fallback.empty())
      module->setAttr(blkgpu::BlkGPUDialect::kClusterFallbackAttrName,
                      StringAttr::get(context, cluster.fallback));
  }
};

} // namespace
