//===- StageInShared.cpp - blocks too large for registers kept on chip ---===//
//
// blk-stage-in-shared: a loaded block whose share of each thread would not
// fit in registers is copied into shared memory (blkgpu.async_load, one
// HBM read) and read back right before each use (blkgpu.local_load);
// elementwise values computed from it are recomputed per use rather than
// held across reductions. See compiler/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "compiler/Passes.h"
#include "compiler/gpu/Layout.h"

#include "dialect/BlkDialect.h"
#include "dialect/gpu/BlkGPUDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace blockjit {
#define GEN_PASS_DEF_BLKSTAGEINSHARED
#include "compiler/Passes.h.inc"
} // namespace blockjit

using namespace mlir;
using namespace blockjit;

namespace {

/// 32-bit registers a thread may give one block before it should live in
/// shared memory: softmax keeps about one block live at a time, and a
/// thread has 255 registers (ptxas spills past them).
constexpr int64_t kMaxRegisterWordsPerBlock = 128;

/// Dynamic shared memory a CTA may opt in to on `smArch`, less room for the
/// kernel's static scratch (reductions across warps, cluster exchanges).
int64_t sharedCapacity(int smArch) {
  int64_t optIn = smArch >= 90   ? 227 * 1024
                  : smArch == 80 ? 163 * 1024
                  : smArch == 86 || smArch == 89 ? 99 * 1024
                  : smArch >= 75                 ? 64 * 1024
                  : smArch >= 70                 ? 96 * 1024
                                                 : 48 * 1024;
  return optIn - 4 * 1024;
}

/// The linear layout of `load`'s block; none for a scalar load or a block
/// the lowering lays out otherwise.
std::optional<Layout1D> blockLayoutOf(blk::LoadOp load) {
  auto type = dyn_cast<RankedTensorType>(load.getType());
  return type ? linearLayoutOf(type) : std::nullopt;
}

/// The 32-bit registers each thread gives `load`'s block (which has a
/// linear layout).
int64_t registerWordsOf(blk::LoadOp load) {
  auto type = cast<RankedTensorType>(load.getType());
  int64_t words = (blk::elementBytes(type.getElementType()) + 3) / 4;
  return layoutOf(type).perThread() * std::max<int64_t>(1, words);
}

/// Whether `load`'s block can be kept in shared memory: numbers in a
/// linear layout that no thread holds twice.
bool canStage(blk::LoadOp load) {
  std::optional<Layout1D> layout = blockLayoutOf(load);
  return layout && !layout->replicated() &&
         cast<RankedTensorType>(load.getType()).getElementType().isIntOrFloat();
}

/// The loads to keep on chip: blocks whose share of a thread would exceed
/// the register budget, unless their value is carried around a loop.
SmallVector<blk::LoadOp> oversizedLoads(ModuleOp module) {
  SmallVector<blk::LoadOp> loads;
  module.walk([&](blk::LoadOp load) {
    if (!canStage(load) || registerWordsOf(load) <= kMaxRegisterWordsPerBlock)
      return;
    if (llvm::any_of(load->getUsers(),
                     [](Operation *user) { return isa<scf::YieldOp>(user); }))
      return;
    loads.push_back(load);
  });
  return loads;
}

/// 32-bit registers per thread that blocks live through a loop may take
/// together: five eighths of what a thread of a CTA of `threads` can have
/// (at most 255), the rest for addresses, masks and temporaries.
int64_t liveRegisterWords(int64_t threads) {
  return std::min<int64_t>(255, 65536 / std::max<int64_t>(1, threads)) * 5 / 8;
}

/// Loads hoisted in front of a loop that uses them (a layernorm's weight and
/// bias, blk-pipeline-loads' invariant-load hoist) stay in registers
/// through every iteration, beside the loop's own blocks and their
/// prefetched copies. When all the function's block loads together ask more
/// of a thread than liveRegisterWords, the hoisted ones, largest first, are
/// kept in shared memory instead and read back where the loop uses them.
SmallVector<blk::LoadOp> hoistedLoadsToStage(ModuleOp module,
                                             ArrayRef<blk::LoadOp> oversized,
                                             int64_t threads) {
  int64_t live = 0;
  SmallVector<blk::LoadOp> hoisted;
  module.walk([&](blk::LoadOp load) {
    if (!blockLayoutOf(load) || llvm::is_contained(oversized, load))
      return;
    live += registerWordsOf(load);
    if (!canStage(load) || load->getParentOfType<scf::ForOp>())
      return;
    if (llvm::any_of(load->getUsers(), [](Operation *user) {
          return user->getParentOfType<scf::ForOp>() != nullptr;
        }))
      hoisted.push_back(load);
  });
  llvm::stable_sort(hoisted, [](blk::LoadOp a, blk::LoadOp b) {
    return registerWordsOf(a) > registerWordsOf(b);
  });
  SmallVector<blk::LoadOp> staged;
  for (blk::LoadOp load : hoisted) {
    if (live <= liveRegisterWords(threads))
      break;
    staged.push_back(load);
    live -= registerWordsOf(load);
  }
  return staged;
}

/// The bytes a loaded block takes in a CTA's shared memory: its CTA's share,
/// rounded up so the next block starts 16-byte aligned.
int64_t sharedBytesOf(blk::LoadOp load) {
  auto type = cast<RankedTensorType>(load.getType());
  return llvm::alignTo(
      layoutOf(type).piece() * blk::elementBytes(type.getElementType()), 16);
}

/// The layout of the block kept in shared memory: each CTA's share in its
/// own row-major order, where each thread finds its elements of the
/// register layout.
blkgpu::SharedLayoutAttr sharedLayoutFor(RankedTensorType type) {
  auto blocked = cast<blkgpu::BlockedLayoutAttr>(type.getEncoding());
  SmallVector<unsigned> order;
  for (unsigned d = type.getRank(); d-- > 0;)
    order.push_back(d);
  blkgpu::CTALayout cta = blocked.getCTALayout();
  return blkgpu::SharedLayoutAttr::get(type.getContext(), /*vec=*/1,
                                       /*perPhase=*/1, /*maxPhase=*/1, order,
                                       cta.CTAsPerCluster, cta.CTASplitNum,
                                       cta.CTAOrder);
}

/// Whether `op` is cheap to recompute per use: an elementwise op on blocks.
bool isRecomputable(Operation *op) {
  return op->hasTrait<OpTrait::Elementwise>() && op->getNumResults() == 1 &&
         op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
         blk::isBlock(op->getResult(0).getType());
}

/// Gives each use of a value derived from a kept block its own copy of the
/// elementwise ops that compute it, placed right before the use, so that
/// no thread holds the block while a reduction runs. Ops are visited last
/// first: a value's users have their copies by the time it is copied.
void recomputePerUse(func::FuncOp func) {
  llvm::SetVector<Operation *> derived;
  func.walk([&](Operation *op) {
    if (isa<blkgpu::LocalLoadOp>(op) ||
        (isRecomputable(op) &&
         llvm::any_of(op->getOperands(), [&](Value operand) {
           Operation *def = operand.getDefiningOp();
           return def && derived.contains(def);
         })))
      derived.insert(op);
  });
  for (Operation *op : llvm::reverse(derived)) {
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : op->getResult(0).getUses())
      uses.push_back(&use);
    // The first use keeps the original; it moves next to that use.
    for (OpOperand *use : llvm::drop_begin(uses)) {
      OpBuilder builder(use->getOwner());
      use->set(builder.clone(*op)->getResult(0));
    }
    if (!uses.empty() && uses.front()->getOwner()->getBlock() == op->getBlock())
      op->moveBefore(uses.front()->getOwner());
  }
}

struct BlkStageInShared
    : blockjit::impl::BlkStageInSharedBase<BlkStageInShared> {
  using BlkStageInSharedBase::BlkStageInSharedBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<blk::LoadOp> loads = oversizedLoads(module);
    if (auto warps = module->getAttrOfType<IntegerAttr>(kNumWarpsAttr))
      llvm::append_range(
          loads,
          hoistedLoadsToStage(module, loads,
                              warps.getInt() * 32 * programsPerCTAOf(module)));
    if (loads.empty())
      return;
    int64_t bytes = 0;
    for (blk::LoadOp load : loads)
      bytes += sharedBytesOf(load);
    // Programs sharing a CTA would each need the dynamic array: the blocks
    // stay in registers (the tuner shares CTAs only among small programs).
    if (int programs = programsPerCTAOf(module); programs > 1) {
      module->setAttr(
          blkgpu::BlkGPUDialect::kResidencyAttrName,
          StringAttr::get(&getContext(),
                          "registers: " + std::to_string(programs) +
                              " programs share each CTA (programs_per_cta); "
                              "shared memory keeps blocks of one program "
                              "per CTA only"));
      return;
    }
    if (bytes > sharedCapacity(smArch)) {
      module->setAttr(
          blkgpu::BlkGPUDialect::kResidencyAttrName,
          StringAttr::get(&getContext(),
                          "registers: the blocks too large for them need " +
                              std::to_string(bytes) +
                              " bytes of shared memory per CTA, more than " +
                              std::to_string(sharedCapacity(smArch)) +
                              " on sm_" + std::to_string(smArch)));
      return;
    }
    int64_t offset = 0;
    for (blk::LoadOp load : loads) {
      auto type = cast<RankedTensorType>(load.getType());
      OpBuilder builder(load);
      auto sharedType = RankedTensorType::get(
          type.getShape(), type.getElementType(), sharedLayoutFor(type));
      auto staged = blkgpu::AsyncLoadOp::create(
          builder, load.getLoc(), sharedType, load.getPtr(), load.getMask(),
          load.getOther(), builder.getI64IntegerAttr(offset));
      offset += sharedBytesOf(load);
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : load->getUses())
        uses.push_back(&use);
      for (OpOperand *use : uses) {
        OpBuilder atUse(use->getOwner());
        use->set(blkgpu::LocalLoadOp::create(atUse, load.getLoc(), type,
                                             staged.getResult()));
      }
      load.erase();
    }
    module->setAttr(blkgpu::BlkGPUDialect::kDynamicSharedBytesAttrName,
                    IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                     offset));
    module->setAttr(blkgpu::BlkGPUDialect::kResidencyAttrName,
                    StringAttr::get(&getContext(),
                                    std::to_string(loads.size()) +
                                        " block(s) kept in shared memory"));
    for (func::FuncOp func : module.getOps<func::FuncOp>())
      recomputePerUse(func);
  }
};

} // namespace
