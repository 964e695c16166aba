//===- LayoutTest.cpp - the maps of the #blkgpu layouts ------------------===//
//
// The per-dimension map (DistributedMap) against the 1-D one the GPU
// lowering uses (Layout1D) for many shapes, vectors and warp counts; the
// ownership rule (one owner per element, whatever replicates) for blocked,
// clustered and sliced layouts; what a slice holds after a reduction; and
// the shared-memory swizzle.
//
//===----------------------------------------------------------------------===//
#include "compiler/gpu/Layout.h"
#include "compiler/Registration.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

using namespace mlir;
using namespace blockjit;

namespace {

class LayoutTest : public ::testing::Test {
protected:
  LayoutTest() {
    DialectRegistry registry;
    registerDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  blkgpu::BlockedLayoutAttr blocked(ArrayRef<unsigned> sizePerThread,
                                    ArrayRef<unsigned> threadsPerWarp,
                                    ArrayRef<unsigned> warpsPerCTA,
                                    ArrayRef<unsigned> order) {
    return blkgpu::BlockedLayoutAttr::get(&context, sizePerThread,
                                          threadsPerWarp, warpsPerCTA, order);
  }

  MLIRContext context;
};

std::string str(Attribute attr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << attr;
  return text;
}

int64_t rowMajor(ArrayRef<int64_t> shape, ArrayRef<int64_t> coordinates) {
  int64_t linear = 0;
  for (auto [size, x] : llvm::zip_equal(shape, coordinates))
    linear = linear * size + x;
  return linear;
}

int64_t elementsOf(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t size : shape)
    n *= size;
  return n;
}

/// Every (CTA, thread, register) of `map` on `shape`: each holds an element
/// inside the block, and each element has exactly one owner.
void expectOneOwnerPerElement(const DistributedMap &map,
                              ArrayRef<int64_t> shape) {
  std::map<int64_t, int> owners;
  for (int64_t c = 0; c < map.numCTAs(); ++c)
    for (int64_t t = 0; t < map.threadsPerCTA(); ++t)
      for (int64_t k = 0; k < map.elementsPerThread(); ++k) {
        SmallVector<int64_t> x = map.coordinates(c, t, k);
        ASSERT_EQ(x.size(), shape.size());
        for (auto [size, xi] : llvm::zip_equal(shape, x))
          ASSERT_TRUE(xi >= 0 && xi < size);
        if (!map.isReplica(c, t, k))
          ++owners[rowMajor(shape, x)];
      }
  ASSERT_EQ(int64_t(owners.size()), elementsOf(shape));
  for (auto [element, count] : owners)
    ASSERT_EQ(count, 1) << "element " << element;
}

/// Power-of-two shapes of rank 1..4, up to `largest` elements.
std::vector<SmallVector<int64_t>> shapes(int64_t largest) {
  std::vector<SmallVector<int64_t>> result;
  for (int64_t a = 1; a <= largest; a *= 2) {
    result.push_back({a});
    for (int64_t b = 1; a * b <= largest; b *= 2) {
      result.push_back({a, b});
      for (int64_t c = 1; a * b * c <= largest && a <= 16; c *= 4) {
        result.push_back({a, b, c});
        for (int64_t d = 2; a * b * c * d <= largest && a <= 2 && b <= 8;
             d *= 8)
          result.push_back({a, b, c, d});
      }
    }
  }
  return result;
}

// The linear layout of every shape, vector and warp count puts register k
// of thread t where Layout1D does: row-major index rawIndex % size, a
// replica exactly when rawIndex >= size; and linearLayoutOf gives back that
// Layout1D.
TEST_F(LayoutTest, LinearLayoutsMatchLayout1D) {
  int checked = 0;
  for (const SmallVector<int64_t> &shape : shapes(4096))
    for (int64_t vector : {1, 2, 4, 16})
      for (int warps : {1, 4, 32}) {
        blkgpu::BlockedLayoutAttr layout =
            linearBlockedLayout(&context, shape, vector, warps);
        std::optional<DistributedMap> map = DistributedMap::get(layout, shape);
        ASSERT_TRUE(map);
        Layout1D linear{elementsOf(shape), vector, int64_t(warps) * kWarpSize};
        ASSERT_EQ(map->threadsPerCTA(), linear.threads);
        ASSERT_EQ(map->elementsPerThread(), linear.perThread());
        for (int64_t t = 0; t < linear.threads; ++t)
          for (int64_t k = 0; k < linear.perThread(); ++k) {
            int64_t raw = linear.rawIndex(t, k);
            ASSERT_EQ(rowMajor(shape, map->coordinates(0, t, k)),
                      raw % linear.size)
                << "thread " << t << " register " << k << " of " << str(layout);
            ASSERT_EQ(map->isReplica(0, t, k), raw >= linear.size);
          }
        auto type =
            RankedTensorType::get(shape, Float32Type::get(&context), layout);
        std::optional<Layout1D> view = linearLayoutOf(type);
        ASSERT_TRUE(view);
        EXPECT_EQ(view->size, linear.size);
        EXPECT_EQ(view->vector, linear.vector);
        EXPECT_EQ(view->threads, linear.threads);
        ++checked;
      }
  EXPECT_GT(checked, 1000);
}

// A block split over a cluster: the CTAs take turns tile by tile along the
// linear index (CTA c holds tiles c, c + C, ...), in every shape of one
// size alike; DistributedMap (the attribute's meaning) and Layout1D agree.
TEST_F(LayoutTest, ClusterSplitLayoutsMatchLayout1D) {
  int checked = 0;
  for (const SmallVector<int64_t> &shape : shapes(4096))
    for (int64_t ctas : {2, 4, 16})
      for (int64_t vector : {1, 4})
        for (int warps : {1, 4}) {
          int64_t size = elementsOf(shape);
          Layout1D linear{size, vector, int64_t(warps) * kWarpSize, ctas};
          if (linear.piece() < linear.tile())
            continue; // not split: blk-assign-layouts keeps it whole
          blkgpu::BlockedLayoutAttr layout =
              linearBlockedLayout(&context, shape, vector, warps, ctas, ctas);
          std::optional<DistributedMap> map =
              DistributedMap::get(layout, shape);
          ASSERT_TRUE(map) << str(layout);
          ASSERT_EQ(map->numCTAs(), ctas);
          ASSERT_EQ(map->elementsPerThread(), linear.perThread());
          for (int64_t c = 0; c < ctas; ++c)
            for (int64_t t = 0; t < linear.threads; t += 7)
              for (int64_t k = 0; k < linear.perThread(); ++k) {
                ASSERT_EQ(rowMajor(shape, map->coordinates(c, t, k)),
                          linear.index(c, t, k))
                    << "CTA " << c << " thread " << t << " register " << k
                    << " of " << str(layout);
                ASSERT_FALSE(map->isReplica(c, t, k));
              }
          auto type =
              RankedTensorType::get(shape, Float32Type::get(&context), layout);
          std::optional<Layout1D> view = linearLayoutOf(type);
          ASSERT_TRUE(view) << str(layout);
          EXPECT_EQ(view->ctas, ctas);
          EXPECT_EQ(view->perThread(), linear.perThread());
          ++checked;
        }
  EXPECT_GT(checked, 50);
}

// A masked tail of a split row costs every CTA alike: with 2 CTAs and 512-
// element tiles, CTA 0 holds tiles 0, 2, 4, ... and CTA 1 tiles 1, 3, 5, ...
TEST_F(LayoutTest, ClusterSplitCTAsTakeTurnsByTile) {
  Layout1D linear{8192, 4, 128, 2};
  EXPECT_EQ(linear.index(0, 0, 0), 0);
  EXPECT_EQ(linear.index(1, 0, 0), 512);
  EXPECT_EQ(linear.index(0, 0, 4), 1024);
  EXPECT_EQ(linear.index(1, 127, 7), 3 * 512 + 127 * 4 + 3);
  // Of the first 5000 elements, each CTA holds 2560 or 2440.
  int64_t held[2] = {0, 0};
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t t = 0; t < linear.threads; ++t)
      for (int64_t k = 0; k < linear.perThread(); ++k)
        held[c] += linear.index(c, t, k) < 5000;
  EXPECT_EQ(held[0], 2560);
  EXPECT_EQ(held[1], 2440);
  // The attribute says the same for a 1-D and a 2-D block of that size.
  for (SmallVector<int64_t> shape : {SmallVector<int64_t>{8192}, {4, 2048}}) {
    auto layout = linearBlockedLayout(&context, shape, 4, 4, 2, 2);
    std::optional<DistributedMap> map = DistributedMap::get(layout, shape);
    ASSERT_TRUE(map) << str(layout);
    EXPECT_EQ(rowMajor(shape, map->coordinates(1, 0, 0)), 512) << str(layout);
  }
}

// A block every CTA of a cluster holds whole: CTA c > 0 holds replicas.
TEST_F(LayoutTest, ClusterReplicatedLayout) {
  SmallVector<int64_t> shape = {64};
  blkgpu::BlockedLayoutAttr layout =
      linearBlockedLayout(&context, shape, 1, 1, 4, 1);
  std::optional<DistributedMap> map = DistributedMap::get(layout, shape);
  ASSERT_TRUE(map);
  EXPECT_EQ(map->numCTAs(), 4);
  for (int64_t t = 0; t < 32; ++t)
    for (int64_t k = 0; k < 2; ++k) {
      EXPECT_EQ(map->coordinates(0, t, k), map->coordinates(3, t, k));
      EXPECT_FALSE(map->isReplica(0, t, k));
      EXPECT_TRUE(map->isReplica(3, t, k));
    }
  auto type = RankedTensorType::get(shape, Float32Type::get(&context), layout);
  std::optional<Layout1D> view = linearLayoutOf(type);
  ASSERT_TRUE(view);
  EXPECT_EQ(view->ctas, 1);
}

// The per-dimension form of the linear distribution, as docs/LAYOUTS.md
// spells it out.
TEST_F(LayoutTest, LinearLayoutExamples) {
  // Rows at least vector * threads long: all threads and warps along them.
  EXPECT_EQ(linearBlockedLayout(&context, {4, 1024}, 4, 8),
            blocked({1, 4}, {1, 32}, {1, 8}, {1, 0}));
  // Shorter rows: threads, then warps, spill onto the rows.
  EXPECT_EQ(linearBlockedLayout(&context, {16, 64}, 4, 4),
            blocked({1, 4}, {2, 16}, {4, 1}, {1, 0}));
  EXPECT_EQ(linearBlockedLayout(&context, {64, 256}, 2, 8),
            blocked({1, 2}, {1, 32}, {2, 4}, {1, 0}));
  // Fewer elements than threads: dimension 0 takes the rest and wraps.
  EXPECT_EQ(linearBlockedLayout(&context, {1, 64}, 1, 4),
            blocked({1, 1}, {1, 32}, {2, 2}, {1, 0}));
  EXPECT_EQ(linearBlockedLayout(&context, {64}, 1, 4),
            blocked({1}, {32}, {4}, {0}));
  // A chunk longer than a row spans rows.
  EXPECT_EQ(linearBlockedLayout(&context, {64, 2}, 4, 1),
            blocked({2, 2}, {32, 1}, {1, 1}, {1, 0}));
  // Rank 3 and 4: innermost first, dimension 0 takes (and wraps) the rest.
  EXPECT_EQ(linearBlockedLayout(&context, {4, 8, 32}, 4, 4),
            blocked({1, 1, 4}, {1, 4, 8}, {2, 2, 1}, {2, 1, 0}));
  EXPECT_EQ(linearBlockedLayout(&context, {2, 2, 4}, 1, 4),
            blocked({1, 1, 1}, {4, 2, 4}, {4, 1, 1}, {2, 1, 0}));
  EXPECT_EQ(linearBlockedLayout(&context, {2, 4, 8, 16}, 8, 4),
            blocked({1, 1, 1, 8}, {1, 2, 8, 2}, {2, 2, 1, 1}, {3, 2, 1, 0}));
}

// Only the linear layout of a type's own vector and warps has a 1-D view.
TEST_F(LayoutTest, OtherLayoutsHaveNo1DView) {
  Type f32 = Float32Type::get(&context);
  auto typeWith = [&](ArrayRef<int64_t> shape, Attribute layout) {
    return RankedTensorType::get(shape, f32, layout);
  };
  EXPECT_FALSE(linearLayoutOf(RankedTensorType::get({16, 64}, f32)));
  EXPECT_FALSE(linearLayoutOf(
      typeWith({16, 64}, blocked({1, 4}, {8, 4}, {4, 1}, {1, 0}))));
  EXPECT_FALSE(linearLayoutOf(
      typeWith({64, 64}, blocked({4, 1}, {32, 1}, {1, 4}, {0, 1}))));
  auto slice = blkgpu::SliceLayoutAttr::get(
      &context, 1, blocked({1, 4}, {2, 16}, {4, 1}, {1, 0}));
  EXPECT_FALSE(linearLayoutOf(typeWith({16}, slice)));
  auto shared = blkgpu::SharedLayoutAttr::get(&context, 4, 1, 8, {1, 0});
  EXPECT_FALSE(linearLayoutOf(typeWith({64, 64}, shared)));
  EXPECT_FALSE(DistributedMap::get(shared, {64, 64}));
  // The map needs the layout's rank and power-of-two sizes.
  EXPECT_FALSE(DistributedMap::get(blocked({4}, {32}, {4}, {0}), {16, 64}));
  EXPECT_FALSE(DistributedMap::get(blocked({4}, {32}, {4}, {0}), {48}));
}

// Blocked layouts of any order, repeated, wrapped or split over a cluster:
// every element has exactly one owner.
TEST_F(LayoutTest, BlockedLayoutsOwnEachElementOnce) {
  auto columnMajor = blocked({4, 1}, {8, 4}, {1, 2}, {0, 1});
  for (SmallVector<int64_t> shape :
       {SmallVector<int64_t>{64, 64}, {8, 2}, {32, 4}, {1, 1}, {256, 1}})
    expectOneOwnerPerElement(*DistributedMap::get(columnMajor, shape), shape);

  // 2x2 CTAs; rows cut in two, columns replicated over the CTA pairs.
  auto cluster = blkgpu::BlockedLayoutAttr::get(
      &context, {1, 4}, {4, 8}, {2, 1}, {1, 0}, {2, 2}, {2, 1}, {1, 0});
  for (SmallVector<int64_t> shape :
       {SmallVector<int64_t>{16, 32}, {64, 64}, {1, 4}, {2, 128}}) {
    std::optional<DistributedMap> map = DistributedMap::get(cluster, shape);
    ASSERT_TRUE(map);
    EXPECT_EQ(map->numCTAs(), 4);
    expectOneOwnerPerElement(*map, shape);
  }
  // CTA 0 (position [0, 0]) holds rows 0..7 of a 16x32 block, CTA 2
  // (position [1, 0]) rows 8..15; CTA 1 ([0, 1]) replicates CTA 0.
  std::optional<DistributedMap> map = DistributedMap::get(cluster, {16, 32});
  EXPECT_EQ(map->coordinates(0, 0, 0), (SmallVector<int64_t>{0, 0}));
  EXPECT_EQ(map->coordinates(2, 0, 0), (SmallVector<int64_t>{8, 0}));
  EXPECT_EQ(map->coordinates(1, 0, 0), (SmallVector<int64_t>{0, 0}));
  EXPECT_TRUE(map->isReplica(1, 0, 0));
  EXPECT_FALSE(map->isReplica(2, 0, 0));
}

// A register of a thread counts its elements of one tile first, in order,
// then the repeats of the tile, in order.
TEST_F(LayoutTest, RegistersCountTileThenRepeats) {
  // Tile 4x64; a 8x128 block repeats it twice along each dimension.
  auto layout = blocked({2, 2}, {2, 16}, {1, 2}, {1, 0});
  std::optional<DistributedMap> map = DistributedMap::get(layout, {8, 128});
  ASSERT_EQ(map->elementsPerThread(), 16);
  using Coordinates = SmallVector<int64_t>;
  EXPECT_EQ(map->coordinates(0, 0, 0), (Coordinates{0, 0}));
  EXPECT_EQ(map->coordinates(0, 0, 1), (Coordinates{0, 1}));
  EXPECT_EQ(map->coordinates(0, 0, 2), (Coordinates{1, 0}));
  EXPECT_EQ(map->coordinates(0, 0, 4), (Coordinates{0, 64}));
  EXPECT_EQ(map->coordinates(0, 0, 8), (Coordinates{4, 0}));
  // Lane 17 is position [1, 1]; warp 1 is the second 32 columns.
  EXPECT_EQ(map->coordinates(0, 17, 0), (Coordinates{2, 2}));
  EXPECT_EQ(map->coordinates(0, 32 + 17, 3), (Coordinates{3, 35}));
}

// A slice holds, in each thread, the rows (or columns) whose elements the
// thread held in the parent: a reduction along `dim` leaves its results
// where they were computed. Threads along `dim` hold replicas.
TEST_F(LayoutTest, SlicesHoldTheReducedElements) {
  for (auto parent : {blocked({1, 4}, {2, 16}, {4, 1}, {1, 0}),
                      blocked({2, 1}, {4, 8}, {2, 2}, {0, 1}),
                      blocked({1, 1}, {1, 32}, {2, 2}, {1, 0})})
    for (SmallVector<int64_t> shape :
         {SmallVector<int64_t>{16, 64}, {2, 8}, {128, 4}, {1, 1}})
      for (unsigned dim : {0u, 1u}) {
        auto slice = blkgpu::SliceLayoutAttr::get(&context, dim, parent);
        SmallVector<int64_t> sliceShape(shape);
        sliceShape.erase(sliceShape.begin() + dim);
        std::optional<DistributedMap> sliced =
            DistributedMap::get(slice, sliceShape);
        std::optional<DistributedMap> full = DistributedMap::get(parent, shape);
        ASSERT_TRUE(sliced && full);
        expectOneOwnerPerElement(*sliced, sliceShape);
        for (int64_t t = 0; t < sliced->threadsPerCTA(); ++t) {
          std::set<SmallVector<int64_t>> held;
          for (int64_t k = 0; k < full->elementsPerThread(); ++k) {
            SmallVector<int64_t> x = full->coordinates(0, t, k);
            x.erase(x.begin() + dim);
            held.insert(x);
          }
          for (int64_t k = 0; k < sliced->elementsPerThread(); ++k)
            ASSERT_TRUE(held.count(sliced->coordinates(0, t, k)))
                << "thread " << t << " of " << str(slice) << " on " << shape[0]
                << "x" << shape[1];
        }
      }

  // The row sums of a 16x64 block of [1, 4] / [2, 16] / [4, 1]: 2 rows per
  // thread (tile 8 rows, repeated), each held by the 16 lanes of its row.
  auto slice = blkgpu::SliceLayoutAttr::get(
      &context, 1, blocked({1, 4}, {2, 16}, {4, 1}, {1, 0}));
  std::optional<DistributedMap> map = DistributedMap::get(slice, {16});
  EXPECT_EQ(map->elementsPerThread(), 2);
  EXPECT_EQ(map->coordinates(0, 16, 0), SmallVector<int64_t>{1});
  EXPECT_EQ(map->coordinates(0, 32 + 16, 1), SmallVector<int64_t>{11});
  EXPECT_FALSE(map->isReplica(0, 16, 0));
  EXPECT_TRUE(map->isReplica(0, 17, 0));
}

// A slice of a slice: a 3-D block reduced along 2, then along 0.
TEST_F(LayoutTest, NestedSlices) {
  auto parent = blocked({1, 1, 4}, {2, 2, 8}, {1, 2, 2}, {2, 1, 0});
  auto inner = blkgpu::SliceLayoutAttr::get(&context, 2, parent);
  auto outer = blkgpu::SliceLayoutAttr::get(&context, 0, inner);
  EXPECT_EQ(outer.getRank(), 1u);
  for (int64_t size : {1, 4, 8, 64}) {
    std::optional<DistributedMap> map = DistributedMap::get(outer, {size});
    ASSERT_TRUE(map);
    EXPECT_EQ(map->threadsPerCTA(), 128);
    expectOneOwnerPerElement(*map, {size});
  }
}

// Shared memory: each swizzle is a permutation of the block's offsets,
// keeps groups of `vec` together, and maxPhase 1 is plain row-major (in
// `order`).
TEST_F(LayoutTest, SharedOffsets) {
  for (unsigned vec : {1u, 2u, 8u})
    for (unsigned perPhase : {1u, 2u})
      for (unsigned maxPhase : {1u, 4u, 8u})
        for (SmallVector<int64_t> shape :
             {SmallVector<int64_t>{16, 64}, {64, 4}, {8, 8}, {1, 2}}) {
          auto layout = blkgpu::SharedLayoutAttr::get(&context, vec, perPhase,
                                                      maxPhase, {1, 0});
          std::set<int64_t> offsets;
          for (int64_t r = 0; r < shape[0]; ++r)
            for (int64_t c = 0; c < shape[1]; ++c) {
              int64_t offset = sharedOffset(layout, shape, {r, c});
              ASSERT_EQ(offset / shape[1], r);
              offsets.insert(offset);
              if (c % vec != 0) {
                ASSERT_EQ(offset, sharedOffset(layout, shape, {r, c - 1}) + 1);
              }
              if (maxPhase == 1) {
                ASSERT_EQ(offset, r * shape[1] + c);
              }
            }
          ASSERT_EQ(int64_t(offsets.size()), shape[0] * shape[1]);
        }
  // vec 2, maxPhase 4 on 4x8: row r moves column c to c xor 2r.
  auto layout = blkgpu::SharedLayoutAttr::get(&context, 2, 1, 4, {1, 0});
  EXPECT_EQ(sharedOffset(layout, {4, 8}, {0, 5}), 5);
  EXPECT_EQ(sharedOffset(layout, {4, 8}, {1, 0}), 8 + 2);
  EXPECT_EQ(sharedOffset(layout, {4, 8}, {3, 1}), 24 + 7);
  // Column-major order: dimension 0 is contiguous.
  auto columns = blkgpu::SharedLayoutAttr::get(&context, 1, 1, 1, {0, 1});
  EXPECT_EQ(sharedOffset(columns, {4, 8}, {3, 2}), 2 * 4 + 3);
}

} // namespace
