//===- EvictionHints.h - blk's eviction hints down to PTX ------*- C++ -*-===//
//
// A blk.load or blk.store with an eviction hint (Triton's eviction_policy)
// reaches PTX in three steps, each in one place:
//   1. the GPU lowering puts kEvictionAttrName on the LLVM dialect loads and
//      stores of global memory it emits for the access, and on the cp.async
//      copies of a block it keeps in shared memory (blkgpu.async_load);
//   2. translation to LLVM IR turns that attribute into kEvictionMetadata on
//      the instructions (registerEvictionHintTranslation);
//   3. before LLVM's O3, LowerEvictionHints rewrites each marked load and
//      store as inline PTX with the L1 eviction priority and an L2 cache
//      policy, and each marked cp.async with the L2 policy
//      (`.L2::cache_hint`; NVPTX, PTX 7.4 and later; LLVM 22 has no other
//      way to say either).
// On the CPU the hint changes nothing: its block accesses are never marked,
// and the metadata of a marked scalar access has no effect on x86.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_COMPILER_EVICTIONHINTS_H
#define BLOCKJIT_COMPILER_EVICTIONHINTS_H

#include "llvm/IR/PassManager.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace blockjit {

/// The discardable attribute on LLVM dialect loads and stores (a
/// blk::EvictionAttr).
inline constexpr char kEvictionAttrName[] = "blk.eviction";
/// The LLVM IR metadata kind it becomes: an MDString, "evict_first" or
/// "evict_last".
inline constexpr char kEvictionMetadata[] = "blockjit.eviction";

/// Lets translation to LLVM IR turn kEvictionAttrName into kEvictionMetadata.
void registerEvictionHintTranslation(mlir::DialectRegistry &registry);

/// Rewrites loads, stores and cp.async copies marked with kEvictionMetadata
/// as inline PTX with the hint; drops the mark where the access cannot carry
/// it (a pointer value, a width other than 1, 2, 4, 8 or 16 bytes, an
/// alignment below the width, an address not in global memory, or a target
/// without eviction priorities: hasEvictionPriorities, NVPTXTarget.h).
struct LowerEvictionHints : llvm::PassInfoMixin<LowerEvictionHints> {
  LowerEvictionHints(unsigned smVersion, unsigned ptxVersion)
      : smVersion(smVersion), ptxVersion(ptxVersion) {}
  llvm::PreservedAnalyses run(llvm::Function &function,
                              llvm::FunctionAnalysisManager &);
  /// The target's sm_XX and PTX ISA version times ten (81 for 8.1):
  /// smArchOf and ptxVersionFor (NVPTXTarget.h).
  unsigned smVersion, ptxVersion;
};

} // namespace blockjit

#endif // BLOCKJIT_COMPILER_EVICTIONHINTS_H
