//===- Layout.cpp - the maps of the #blkgpu layouts, in numbers ----------===//
#include "compiler/gpu/Layout.h"
#include "compiler/Reduction.h"

#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/Support/MathExtras.h"

#include <map>

using namespace mlir;
using namespace blockjit;

namespace {

bool isPowerOfTwoShape(ArrayRef<int64_t> shape) {
  return llvm::all_of(shape, [](int64_t size) {
    return size > 0 && llvm::isPowerOf2_64(size);
  });
}

/// Splits `index` into digits of the given extents, dimensions taken in
/// `order` (fastest first).
SmallVector<int64_t> digits(int64_t index, ArrayRef<int64_t> extents,
                            ArrayRef<unsigned> order) {
  SmallVector<int64_t> result(extents.size());
  for (unsigned d : order) {
    result[d] = index % extents[d];
    index /= extents[d];
  }
  return result;
}

SmallVector<int64_t> toInt64(ArrayRef<unsigned> values) {
  return SmallVector<int64_t>(values.begin(), values.end());
}

int64_t product(ArrayRef<int64_t> values) {
  int64_t result = 1;
  for (int64_t value : values)
    result *= value;
  return result;
}

} // namespace

//===----------------------------------------------------------------------===//
// DistributedMap
//===----------------------------------------------------------------------===//

std::optional<DistributedMap> DistributedMap::get(Attribute layout,
                                                  ArrayRef<int64_t> shape) {
  if (!blkgpu::isDistributedLayout(layout) || !isPowerOfTwoShape(shape))
    return std::nullopt;
  DistributedMap map;
  map.shape.assign(shape.begin(), shape.end());
  map.sliced.assign(shape.size(), false);
  // Unwind the slices: each puts back its dimension, of size 1.
  while (auto slice = dyn_cast<blkgpu::SliceLayoutAttr>(layout)) {
    if (slice.getDim() > map.shape.size())
      return std::nullopt;
    map.shape.insert(map.shape.begin() + slice.getDim(), 1);
    map.sliced.insert(map.sliced.begin() + slice.getDim(), true);
    layout = slice.getParent();
  }
  auto root = cast<blkgpu::BlockedLayoutAttr>(layout);
  if (root.getRank() != map.shape.size())
    return std::nullopt;
  map.sizePerThread = toInt64(root.getSizePerThread());
  map.threadsPerWarp = toInt64(root.getThreadsPerWarp());
  map.warpsPerCTA = toInt64(root.getWarpsPerCTA());
  map.order.assign(root.getOrder().begin(), root.getOrder().end());
  map.cta = root.getCTALayout();
  return map;
}

int64_t DistributedMap::numCTAs() const { return cta.numCTAs(); }

int64_t DistributedMap::threadsPerCTA() const {
  return product(threadsPerWarp) * product(warpsPerCTA);
}

/// A sliced dimension keeps one register: the others would repeat it.
int64_t DistributedMap::registersAlong(unsigned d) const {
  return sliced[d] ? 1 : sizePerThread[d];
}

/// How many times the tile repeats along d to cover the CTA's piece.
int64_t DistributedMap::repeatsAlong(unsigned d) const {
  int64_t piece = std::max<int64_t>(1, shape[d] / cta.CTASplitNum[d]);
  int64_t tile = sizePerThread[d] * threadsPerWarp[d] * warpsPerCTA[d];
  return std::max<int64_t>(1, piece / tile);
}

int64_t DistributedMap::elementsPerThread() const {
  int64_t count = 1;
  for (unsigned d = 0; d < shape.size(); ++d)
    count *= registersAlong(d) * repeatsAlong(d);
  return count;
}

DistributedMap::Position DistributedMap::position(int64_t ctaId, int64_t thread,
                                                  int64_t k) const {
  unsigned rank = shape.size();
  SmallVector<int64_t> registers(rank), repeats(rank);
  for (unsigned d = 0; d < rank; ++d) {
    registers[d] = registersAlong(d);
    repeats[d] = repeatsAlong(d);
  }
  // Register k: its element of the tile first, then which repeat.
  SmallVector<int64_t> inTile = digits(k, registers, order);
  SmallVector<int64_t> repeat = digits(k / product(registers), repeats, order);
  SmallVector<int64_t> lane = digits(thread % kWarpSize, threadsPerWarp, order);
  SmallVector<int64_t> warp = digits(thread / kWarpSize, warpsPerCTA, order);
  Position result;
  result.ctaPosition = digits(ctaId, toInt64(cta.CTAsPerCluster), cta.CTAOrder);
  for (unsigned d = 0; d < rank; ++d) {
    int64_t tile = sizePerThread[d] * threadsPerWarp[d] * warpsPerCTA[d];
    result.local.push_back(
        repeat[d] * tile +
        (warp[d] * threadsPerWarp[d] + lane[d]) * sizePerThread[d] + inTile[d]);
    result.pieceSize.push_back(
        std::max<int64_t>(1, shape[d] / cta.CTASplitNum[d]));
  }
  return result;
}

SmallVector<int64_t> DistributedMap::coordinates(int64_t ctaId, int64_t thread,
                                                 int64_t k) const {
  Position pos = position(ctaId, thread, k);
  SmallVector<int64_t> result;
  for (unsigned d = 0; d < shape.size(); ++d) {
    if (sliced[d])
      continue;
    int64_t split = cta.CTASplitNum[d];
    int64_t piece = pos.ctaPosition[d] % split;
    int64_t tile = sizePerThread[d] * threadsPerWarp[d] * warpsPerCTA[d];
    if (tile < pos.pieceSize[d]) {
      // The split CTAs take turns along d, tile by tile.
      int64_t turn = pos.local[d] / tile;
      result.push_back(((turn * split + piece) * tile + pos.local[d] % tile) %
                       shape[d]);
      continue;
    }
    result.push_back(
        (piece * pos.pieceSize[d] + pos.local[d] % pos.pieceSize[d]) %
        shape[d]);
  }
  return result;
}

bool DistributedMap::isReplica(int64_t ctaId, int64_t thread, int64_t k) const {
  Position pos = position(ctaId, thread, k);
  for (unsigned d = 0; d < shape.size(); ++d) {
    int64_t split = cta.CTASplitNum[d];
    if (pos.local[d] >= pos.pieceSize[d] || pos.ctaPosition[d] >= split ||
        pos.ctaPosition[d] * pos.pieceSize[d] >= shape[d])
      return true;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

int64_t blockjit::sharedOffset(blkgpu::SharedLayoutAttr layout,
                               ArrayRef<int64_t> shape,
                               ArrayRef<int64_t> coordinates) {
  ArrayRef<unsigned> order = layout.getOrder();
  SmallVector<int64_t> stored(coordinates);
  int64_t columns = shape[order[0]];
  int64_t row = order.size() > 1 ? coordinates[order[1]] : 0;
  int64_t phase = (row / layout.getPerPhase()) % layout.getMaxPhase();
  // Both powers of two: the xor stays within the row.
  stored[order[0]] ^= (phase * layout.getVec()) % columns;
  int64_t offset = 0, stride = 1;
  for (unsigned d : order) {
    offset += stored[d] * stride;
    stride *= shape[d];
  }
  return offset;
}

//===----------------------------------------------------------------------===//
// Linear layouts
//===----------------------------------------------------------------------===//

blkgpu::BlockedLayoutAttr
blockjit::linearBlockedLayout(MLIRContext *context, ArrayRef<int64_t> shape,
                              int64_t vector, int numWarps, int64_t clusterCTAs,
                              int64_t splitCTAs) {
  unsigned rank = shape.size();
  SmallVector<int64_t> room(shape);
  // Each factor of the linear index, lowest first, takes the room left in
  // the innermost dimensions; dimension 0 takes whatever remains (and wraps
  // when the block is smaller than the tile).
  auto spread = [&](int64_t factor) {
    SmallVector<unsigned> perDim(rank, 1);
    for (unsigned d = rank; d-- > 0 && factor > 1;) {
      int64_t take = d == 0 ? factor : std::min(factor, room[d]);
      perDim[d] = unsigned(take);
      room[d] = std::max<int64_t>(1, room[d] / take);
      factor /= take;
    }
    return perDim;
  };
  SmallVector<unsigned> sizePerThread = spread(vector);
  SmallVector<unsigned> threadsPerWarp = spread(kWarpSize);
  SmallVector<unsigned> warpsPerCTA = spread(numWarps);
  // The CTAs come right after the tile: they take turns tile by tile, in
  // every shape of the block's size alike.
  SmallVector<unsigned> split = spread(splitCTAs);
  SmallVector<unsigned> order;
  for (unsigned d = rank; d-- > 0;)
    order.push_back(d);
  blkgpu::CTALayout cta = blkgpu::CTALayout::single(rank);
  if (clusterCTAs > 1) {
    // CTAs along the split dimensions; the rest (replicas) along 0.
    cta.CTAsPerCluster = split;
    cta.CTAsPerCluster[0] *= unsigned(clusterCTAs / splitCTAs);
    cta.CTASplitNum = split;
  }
  return blkgpu::BlockedLayoutAttr::get(
      context, sizePerThread, threadsPerWarp, warpsPerCTA, order,
      cta.CTAsPerCluster, cta.CTASplitNum, cta.CTAOrder);
}

AxisBits blockjit::axisBitsOf(ArrayRef<int64_t> shape, const Layout1D &layout,
                              int64_t axis) {
  auto log2 = [](int64_t v) { return int64_t(llvm::Log2_64(v)); };
  int64_t lo = 0;
  for (int64_t size : shape.drop_front(axis + 1))
    lo += log2(size);
  int64_t hi = lo + log2(shape[axis]);
  int64_t a = log2(layout.vector), b = log2(layout.threads),
          c = log2(layout.ctas);
  AxisBits bits;
  for (int64_t i = lo; i < hi; ++i) {
    if (i < a)
      bits.registerMask |= int64_t(1) << i;
    else if (i < a + b)
      bits.threadMask |= int64_t(1) << (i - a);
    else if (i < a + b + c)
      bits.ctaMask |= int64_t(1) << (i - a - b);
    else
      bits.registerMask |= int64_t(1) << (i - b - c);
  }
  return bits;
}

int64_t blockjit::stretchedRegisterBits(Operation *load,
                                        const Layout1D &layout) {
  auto dims = load->getAttrOfType<DenseI64ArrayAttr>(
      blkgpu::BlkGPUDialect::kStretchedDimsAttrName);
  if (!dims)
    return 0;
  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(load->getResult(0).getType()).getShape();
  int64_t bits = 0;
  for (int64_t d : dims.asArrayRef())
    bits |= axisBitsOf(shape, layout, d).registerMask;
  // Within a vector chunk the elements differ along the contiguous
  // dimension, which a stretched row spans: no chunk repeats another then.
  return bits & (layout.vector - 1) ? 0 : bits;
}

bool blockjit::partialsCrossCluster(Type element) {
  return reductionAccumulatorType(element).getIntOrFloatBitWidth() <= 32;
}

int64_t blockjit::clusterAllReduceBytes(ArrayRef<int64_t> shape,
                                        const Layout1D &layout, int64_t axis) {
  AxisBits bits = axisBitsOf(shape, layout, axis);
  if (!bits.ctaMask)
    return 0;
  // Each thread's groups of lines (one per register group) go as one
  // packed tuple per writer (combineLinesAcrossCTAs).
  int64_t groups =
      layout.perThread() >> llvm::popcount(uint64_t(bits.registerMask));
  int64_t writers = layout.threads >> llvm::popcount(uint64_t(bits.threadMask));
  return clusterBufferBytes(layout.ctas * writers * clusterLineSlots(groups));
}

std::optional<Layout1D> blockjit::linearLayoutOf(RankedTensorType type) {
  auto layout = dyn_cast_or_null<blkgpu::BlockedLayoutAttr>(type.getEncoding());
  if (!layout || layout.getRank() != type.getRank() ||
      !isPowerOfTwoShape(type.getShape()))
    return std::nullopt;
  // The lowering indexes in i32: a chunk of 2^31 elements or more (whose
  // size would overflow here at rank 3) is not one it implements.
  unsigned log2Vector = 0;
  for (unsigned size : layout.getSizePerThread())
    log2Vector += llvm::Log2_32(size);
  if (log2Vector >= 31)
    return std::nullopt;
  Layout1D result;
  result.size = type.getNumElements();
  result.vector = int64_t(1) << log2Vector;
  int64_t warps = blkgpu::warpsOf(layout);
  result.threads = warps * kWarpSize;
  blkgpu::CTALayout cta = layout.getCTALayout();
  int64_t clusterCTAs = cta.numCTAs();
  result.ctas = 1;
  for (unsigned pieces : cta.CTASplitNum)
    result.ctas *= pieces;
  if (layout != linearBlockedLayout(type.getContext(), type.getShape(),
                                    result.vector, int(warps), clusterCTAs,
                                    result.ctas))
    return std::nullopt;
  return result;
}

Layout1D blockjit::layoutOf(RankedTensorType type) {
  std::optional<Layout1D> layout = linearLayoutOf(type);
  assert(layout && "not a linear layout (see verifyLinearLayouts)");
  return *layout;
}

int blockjit::numCTAsOf(ModuleOp module) {
  auto ctas = module->getAttrOfType<IntegerAttr>(kNumCTAsAttr);
  return ctas ? int(ctas.getInt()) : 1;
}

int blockjit::programsPerCTAOf(ModuleOp module) {
  auto programs = module->getAttrOfType<IntegerAttr>(kProgramsPerCTAAttr);
  return programs ? int(programs.getInt()) : 1;
}

int64_t blockjit::threadsPerCTAOf(ModuleOp module) {
  auto warps = module->getAttrOfType<IntegerAttr>(kNumWarpsAttr);
  return warps ? warps.getInt() * kWarpSize * programsPerCTAOf(module) : 0;
}

LogicalResult blockjit::verifyLinearLayouts(Operation *root, int numWarps,
                                            int numCTAs) {
  std::map<int64_t, std::pair<RankedTensorType, Layout1D>> bySize;
  auto check = [&](Operation *op, Type type) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return success();
    // A block kept in shared memory (only blkgpu.local_load reads it),
    // made by its async_load or carried by a loop: their verifiers check it.
    if (isa_and_nonnull<blkgpu::SharedLayoutAttr>(tensor.getEncoding())) {
      if (isa<blkgpu::AsyncLoadOp, LoopLikeOpInterface>(op))
        return success();
      return op->emitOpError()
             << "has the block " << tensor
             << " in shared memory, which only blkgpu.async_load makes, "
                "loops carry and blkgpu.local_load reads";
    }
    if (!tensor.getEncoding())
      return op->emitOpError()
             << "has the block " << tensor
             << " without a layout (run blk-assign-layouts first)";
    std::optional<Layout1D> layout = linearLayoutOf(tensor);
    if (!layout)
      return op->emitOpError()
             << "has the block " << tensor
             << ", whose layout the GPU lowering does not implement yet: it "
                "implements the linear #blkgpu.blocked layouts that "
                "blk-assign-layouts assigns (docs/LAYOUTS.md)";
    if (layout->threads != int64_t(numWarps) * kWarpSize)
      return op->emitOpError()
             << "has the block " << tensor << ", laid out for "
             << layout->threads / kWarpSize << " warps in a program of "
             << numWarps;
    int64_t clusterCTAs = blkgpu::clusterCTAsOf(tensor.getEncoding());
    if (clusterCTAs != numCTAs)
      return op->emitOpError()
             << "has the block " << tensor << ", laid out for a cluster of "
             << clusterCTAs << " CTAs in a program of " << numCTAs;
    auto [first, inserted] = bySize.try_emplace(layout->size, tensor, *layout);
    if (!inserted && (first->second.second.vector != layout->vector ||
                      first->second.second.ctas != layout->ctas))
      return op->emitOpError()
             << "has the block " << tensor << ", laid out unlike "
             << first->second.first
             << ": the GPU lowering needs one layout for all blocks of "
             << layout->size << " elements (it has no layout conversions)";
    return success();
  };
  WalkResult walk = root->walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      if (failed(check(op, type)))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Type type : block.getArgumentTypes())
          if (failed(check(op, type)))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}
