//===- Lowering.h - what the blk-to-NVVM patterns share ---------*- C++ -*-===//
//
// convert-blk-to-nvvm is a 1:N dialect conversion: a laid-out block becomes
// the values its thread owns (BlockTypeConverter), one pattern per op or op
// family rewrites each block op into per-thread scalar code, and the SCF
// structural patterns carry the per-thread values through scf.for. This
// header holds what the patterns of one kernel share: its state
// (KernelState), the per-thread index helpers and the shared scratch array.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_COMPILER_GPU_TONVVM_LOWERING_H
#define BLOCKJIT_COMPILER_GPU_TONVVM_LOWERING_H

#include "compiler/gpu/AxisInfo.h"
#include "compiler/gpu/Layout.h"

#include "dialect/BlkDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseMap.h"

#include <string>

namespace blockjit::nvvm {

/// A laid-out block converts to the `layoutOf(type).perThread()` values of
/// its element type that its thread owns; every other type stays.
class BlockTypeConverter : public mlir::TypeConverter {
public:
  BlockTypeConverter();
};

/// The shared-memory scratch array of one kernel. Every exchange through it
/// (broadcasts, 2-D reductions) is fenced by barriers before and after the
/// reads, so all of them share one array sized for the largest; the pass
/// declares it once the kernel is converted. An array used in halves
/// (getHalf: 1-D reductions across warps) has two, each sized for the
/// largest use.
class ScratchArray {
public:
  ScratchArray() = default;
  explicit ScratchArray(mlir::func::FuncOp func,
                        llvm::StringRef prefix = "__blk_smem_");

  /// With several programs per CTA, each slot has an array of its own: the
  /// arrays follow one another, `slot` (an i32) picks this thread's. Builds
  /// the slot's address at `builder`'s point (the kernel's entry).
  void setProgramSlot(mlir::OpBuilder &builder, mlir::Location loc,
                      mlir::Value slot, int programsPerCTA);
  /// The array, seen as `count` elements of `element`.
  mlir::Value get(mlir::OpBuilder &builder, mlir::Location loc,
                  mlir::Type element, int64_t count);
  /// Half `half` (an i32, 0 or 1) of an array used only in halves, seen as
  /// `count` elements of `element`. Uses that take turns with the halves
  /// need no barrier between one's reads and the next one's writes: a thread
  /// writes a half again only after the barrier of the use in between, which
  /// every thread reaches after reading this one (combineAcrossWarps). The
  /// halves' distance is a constant at the function's entry, set by
  /// declare().
  mlir::Value getHalf(mlir::OpBuilder &builder, mlir::Location loc,
                      mlir::Type element, int64_t count, mlir::Value half);
  /// The bytes the largest exchange needs (0: the kernel needs no array).
  int64_t bytes() const { return size; }
  /// Bytes of the declared array: bytes() for each program of the CTA.
  int64_t declaredBytes() const;
  /// Declares the array (an i8 array in address space 3) at the start of
  /// `module`, and sets the slots' offsets; nothing when no exchange needs
  /// it.
  void declare(mlir::ModuleOp module, mlir::Location loc);

private:
  /// One program's array, rounded to keep the next one 16-byte aligned.
  int64_t slotBytes() const;

  std::string name;
  mlir::Block *entry = nullptr;
  int64_t size = 0;
  int programs = 1;
  /// In halves: the constant that holds a half's bytes once known.
  mlir::Operation *halfStride = nullptr;
  /// With several programs: this thread's array, and the constant that
  /// holds slotBytes() once it is known (declare()).
  mlir::Value slotAddress;
  mlir::Operation *slotStride = nullptr;
};

/// Elements per vector access of a block load or store: as wide as the
/// pointers' contiguity and alignment allow within a thread's chunk. When
/// the mask may change within a vector (`maskVaries`: a causal `col <= row`,
/// a bound of unknown alignment), a vector whose lanes are all on is one
/// access and the others go element by element; cp.async staging
/// (blkgpu.async_load) keeps vectors the mask cannot split.
struct AccessWidth {
  int64_t width = 1;
  bool maskVaries = false;
  /// A row of 2-byte elements known only element-aligned, on one warp's
  /// layout of pairs (elementAlignedRow): moved in 4-byte words, shifted by
  /// an element where the row starts mid-word (Memory.cpp).
  bool wordPairs = false;
};

/// A broadcast of a range, as blk-sink-broadcasts leaves it (BlkDialect.h).
using RangeBroadcast = blk::RangeBroadcast;

/// The broadcasts of ranges in `func` (Shape.cpp).
llvm::DenseMap<mlir::Operation *, RangeBroadcast>
rangeBroadcasts(mlir::func::FuncOp func);

/// What the patterns need to know of the kernel being converted. The pass
/// owns one, builds the patterns once with it, and sets it up before
/// converting each kernel.
struct KernelState {
  int numWarps = 1;
  /// The target's SM architecture (90 for sm_90a): what instructions exist.
  int smArch = 0;
  /// The thread's index within its program (%tid.x, or with several
  /// programs per CTA its part below the program's threads), computed once
  /// at the kernel's entry.
  mlir::Value threadId;
  /// Programs sharing the CTA (blkgpu.programs_per_cta), and with more than
  /// one: which of them this thread's is (its slot: the program's warps,
  /// shared memory and named barrier), the program's id along x and the
  /// grid's program count along x (the kernel's hidden last parameter).
  int programsPerCTA = 1;
  mlir::Value programSlot, programIdX, numProgramsX;
  ScratchArray scratch;
  /// The array of 1-D reductions across warps, used in halves by turns, and
  /// the count of those reductions so far (its low bit: the next one's
  /// half), a local variable (combineAcrossWarps).
  ScratchArray warpExchange;
  mlir::Value warpExchangeCount;
  /// CTAs per program (a thread-block cluster when > 1), and in a cluster
  /// this CTA's rank (%cluster_ctarank) and whether it is rank 0, read at
  /// the kernel's entry.
  int numCTAs = 1;
  mlir::Value ctaRank, isFirstCTA;
  /// Exchanges across the cluster (Cluster.cpp): their buffer, in every
  /// CTA's shared memory, the two mbarriers that count the bytes each half
  /// receives, and the count of exchanges so far (its low bit: which half
  /// the next one uses), a local variable.
  ScratchArray clusterBuffer;
  ScratchArray clusterBarriers;
  mlir::Value clusterPhase;
  /// How each block load and store accesses memory, from AxisAnalysis of
  /// the kernel before it is rewritten (accessWidths()).
  llvm::DenseMap<mlir::Operation *, AccessWidth> accessWidths;
  /// Each block comparison whose result is the same over runs of a thread's
  /// consecutive elements, and the runs' length (comparisonRuns()).
  llvm::DenseMap<mlir::Operation *, int64_t> comparisonRuns;
  /// The broadcasts of a make_range, by op (rangeBroadcasts()), found
  /// before the conversion rewrites their operands.
  llvm::DenseMap<mlir::Operation *, RangeBroadcast> rangeBroadcasts;
  /// Whether a block was kept in the dynamic shared memory (OnChip.cpp).
  bool usesDynamicShared = false;
  /// Whether a masked load reads the stand-in where it is off (Memory.cpp).
  bool usesMaskedLoadStandIn = false;
};

/// How many exchanges of one kind came before this one, which it then
/// counts: a local i32 variable, made with 0 at `where` (in the kernel's
/// entry block, so that LLVM keeps it in a register) on first use and kept
/// in `counter`. Every thread runs the same exchanges, so the count is the
/// same in all (the halves of the cluster buffer and of the warp exchange
/// array are taken by its low bit).
mlir::Value countExchange(mlir::OpBuilder &builder, mlir::Location loc,
                          mlir::Value &counter,
                          mlir::OpBuilder::InsertPoint where);

/// A barrier among the threads of this thread's program: the whole CTA
/// (bar.sync 0), or with several programs per CTA the program's own named
/// barrier (its slot) over its threads.
void programBarrier(mlir::OpBuilder &builder, mlir::Location loc,
                    const KernelState &kernel);

/// Base of the patterns that need the kernel's state: a conversion pattern
/// for `Op`.
template <typename Op>
class KernelOpLowering : public mlir::OpConversionPattern<Op> {
public:
  KernelOpLowering(const mlir::TypeConverter &converter,
                   mlir::MLIRContext *context, KernelState &kernel,
                   mlir::PatternBenefit benefit = 1)
      : mlir::OpConversionPattern<Op>(converter, context, benefit),
        kernel(kernel) {}

protected:
  KernelState &kernel;
};

//===----------------------------------------------------------------------===//
// Per-thread element indices and warp shuffles (ThreadIndex.cpp)
//===----------------------------------------------------------------------===//

mlir::Value i32Constant(mlir::OpBuilder &builder, mlir::Location loc,
                        int64_t value);

/// Raw (unwrapped) index of this thread's element k, as an i32 value; see
/// Layout1D::rawIndex.
mlir::Value rawElementIndex(mlir::OpBuilder &builder, mlir::Location loc,
                            mlir::Value threadId, const Layout1D &layout,
                            int64_t k);

/// `value` with the bits of `mask` (one contiguous run) taken out, the
/// bits above moved down: a thread index without one dimension's bits.
mlir::Value withoutBits(mlir::OpBuilder &builder, mlir::Location loc,
                        mlir::Value value, int64_t mask);

/// The linear index (wrapped into the block) of this thread's element k.
mlir::Value elementIndex(mlir::OpBuilder &builder, mlir::Location loc,
                         mlir::Value threadId, const Layout1D &layout,
                         int64_t k);

/// `value` (an integer or float scalar of up to 64 bits, moved in 32-bit
/// pieces) from the lane `offset` away in the direction of `kind`
/// (ThreadIndex.cpp).
mlir::Value warpShuffle(mlir::OpBuilder &builder, mlir::Location loc,
                        mlir::Value value, int64_t offset,
                        mlir::NVVM::ShflKind kind);

/// The linear index in the whole block of this thread's element k
/// (Layout1D::index): for a block split over a cluster, the CTA's turns
/// come in.
mlir::Value blockElementIndex(mlir::OpBuilder &builder, mlir::Location loc,
                              const KernelState &kernel, const Layout1D &layout,
                              int64_t k);
/// The same from `base`, the thread's part of every element's index
/// (threadElementBase).
mlir::Value blockElementIndex(mlir::OpBuilder &builder, mlir::Location loc,
                              mlir::Value base, const Layout1D &layout,
                              int64_t k);
/// The thread's part of the linear indices of its elements: the thread
/// index's, and the CTA rank's in a cluster; element k adds a constant.
mlir::Value threadElementBase(mlir::OpBuilder &builder, mlir::Location loc,
                              const KernelState &kernel,
                              const Layout1D &layout);
/// The same for the elements of `op`: when `op` is blkgpu.rematerialized,
/// through an opaque copy (a side-effect mov), so that LLVM neither hoists
/// what is computed from it out of a loop nor merges it with another op's.
mlir::Value threadElementBaseFor(mlir::OpBuilder &builder, mlir::Location loc,
                                 const KernelState &kernel,
                                 const Layout1D &layout, mlir::Operation *op);

/// `asmString` as inline PTX with `constraints` over `operands`, of type
/// `result` (none when null); side effects assumed.
mlir::Value inlinePtx(mlir::OpBuilder &builder, mlir::Location loc,
                      llvm::StringRef asmString, llvm::StringRef constraints,
                      mlir::ValueRange operands,
                      mlir::Type result = mlir::Type());

/// The multi-index of row-major linear index `linear` in `shape` (all sizes
/// are powers of two: masks and shifts).
llvm::SmallVector<mlir::Value> delinearize(mlir::OpBuilder &builder,
                                           mlir::Location loc,
                                           llvm::ArrayRef<int64_t> shape,
                                           mlir::Value linear);

/// The row-major linear index of `indices` in `shape`.
mlir::Value linearize(mlir::OpBuilder &builder, mlir::Location loc,
                      llvm::ArrayRef<int64_t> shape,
                      llvm::ArrayRef<mlir::Value> indices);

//===----------------------------------------------------------------------===//
// Exchanges through shared memory (SharedMemory.cpp)
//===----------------------------------------------------------------------===//

/// How a block's elements are kept in shared memory: pointers as global
/// LLVM pointers, everything else as itself.
mlir::Type sharedStorageType(mlir::Type element);

/// `ptr` (a !blk.ptr) as a global LLVM pointer; resolved by
/// convert-blk-to-llvm-gpu.
mlir::Value toLLVMPointer(mlir::OpBuilder &builder, mlir::Location loc,
                          mlir::Value ptr);

/// Publishes every element of a block of `type` in the scratch array,
/// indexed by linear index: each thread stores its own `elements`, each as
/// `convert(element)`. Returns the array; a barrier follows, so that any
/// thread may then read any element.
mlir::Value publish(mlir::OpBuilder &builder, mlir::Location loc,
                    KernelState &kernel, mlir::RankedTensorType type,
                    mlir::ValueRange elements, mlir::Type storage,
                    llvm::function_ref<mlir::Value(mlir::Value)> convert);

/// Element `linear` of a published array of `storage` elements.
mlir::Value readShared(mlir::OpBuilder &builder, mlir::Location loc,
                       mlir::Value smem, mlir::Type storage,
                       mlir::Value linear);

/// `values` (one type) stored at `pointer` (shared memory) and after it in
/// vectors of up to 16 bytes, the widest that divide their count: fewer
/// shared-memory instructions than one a value. `pointer` must be aligned
/// to a vector's bytes.
void storeSharedRun(mlir::OpBuilder &builder, mlir::Location loc,
                    mlir::Value pointer, mlir::ValueRange values);

/// `count` values of `type` loaded from `pointer` (shared memory) and after
/// it, as storeSharedRun stores them.
llvm::SmallVector<mlir::Value> loadSharedRun(mlir::OpBuilder &builder,
                                             mlir::Location loc,
                                             mlir::Value pointer,
                                             mlir::Type type, int64_t count);

/// The program-wide combination of per-warp partial results (`values`, a
/// tuple that is the same in every lane of a warp), which every thread gets:
/// through the scratch array, in warp order from `identity()` with
/// `combine(total, next)`, fenced by barriers (Reduce.cpp). Needs more than
/// one warp.
llvm::SmallVector<mlir::Value> combineAcrossWarps(
    mlir::OpBuilder &builder, mlir::Location loc, KernelState &kernel,
    mlir::ValueRange values,
    llvm::function_ref<llvm::SmallVector<mlir::Value>()> identity,
    llvm::function_ref<llvm::SmallVector<mlir::Value>(mlir::ValueRange,
                                                      mlir::ValueRange)>
        combine);

/// The cluster-wide combination of per-CTA results (`values`, the same in
/// every thread of a CTA), which every thread of every CTA gets: each CTA
/// writes its tuple into the cluster buffer of every CTA (distributed shared
/// memory), a cluster barrier, then each thread combines the CTAs' tuples in
/// rank order from `identity()`, so all CTAs hold the same result. The
/// buffer has two halves used in turn, so one barrier per exchange keeps a
/// fast CTA from overwriting a half that a slow one still reads
/// (Cluster.cpp). Needs kernel.numCTAs > 1.
llvm::SmallVector<mlir::Value> combineAcrossCTAs(
    mlir::OpBuilder &builder, mlir::Location loc, KernelState &kernel,
    mlir::ValueRange values,
    llvm::function_ref<llvm::SmallVector<mlir::Value>()> identity,
    llvm::function_ref<llvm::SmallVector<mlir::Value>(mlir::ValueRange,
                                                      mlir::ValueRange)>
        combine);

/// The per-line partials of a block split over a cluster and reduced along
/// an axis whose bits include CTA bits (`ctaMask`): every thread holds its
/// lines' partials (`partials`, one per register group, the same in every
/// thread that differs only in the axis's thread bits `threadMask`). Each
/// CTA's partials go to every CTA's cluster buffer, the stores spread over
/// those threads; after one cluster barrier each thread combines its lines'
/// partials from the CTAs that differ only in `ctaMask`, in rank order
/// (Cluster.cpp). Needs kernel.numCTAs > 1.
llvm::SmallVector<mlir::Value> combineLinesAcrossCTAs(
    mlir::OpBuilder &builder, mlir::Location loc, KernelState &kernel,
    mlir::ValueRange partials, int64_t threads, int64_t threadMask,
    int64_t ctaMask,
    llvm::function_ref<mlir::Value(mlir::Value, mlir::Value)> combine);

/// The exchange of combineLinesAcrossCTAs for tuples of `arity` values a line
/// (`partials` holds component c of line l at c * lines + l), each line's
/// tuples combined once a CTA: by one of the threads holding the line,
/// `combine` taking them in rank order, the result shared through the cluster
/// buffer after a CTA barrier. A thread then holds a few values, not every
/// CTA's tuples of every line it holds (f32 softmax over 16-CTA strips of 32
/// columns: 255 registers and spills otherwise).
llvm::SmallVector<mlir::Value>
combineLineTuplesAcrossCTAs(mlir::OpBuilder &builder, mlir::Location loc,
                            KernelState &kernel, mlir::ValueRange partials,
                            int64_t arity, int64_t threads, int64_t threadMask,
                            int64_t ctaMask,
                            llvm::function_ref<llvm::SmallVector<mlir::Value>(
                                llvm::ArrayRef<llvm::SmallVector<mlir::Value>>)>
                                combine);

/// In a kernel that exchanged values across its cluster: a cluster barrier
/// at entry (no CTA writes to another before all have started) and before
/// each return (none exits while another may still write to it).
void fenceClusterExchanges(mlir::func::FuncOp func, KernelState &kernel);

//===----------------------------------------------------------------------===//
// Patterns, by op family
//===----------------------------------------------------------------------===//

void populateGridPatterns(const BlockTypeConverter &converter,
                          mlir::RewritePatternSet &patterns,
                          KernelState &kernel);
void populateShapePatterns(const BlockTypeConverter &converter,
                           mlir::RewritePatternSet &patterns,
                           KernelState &kernel);
void populateElementwisePatterns(const BlockTypeConverter &converter,
                                 mlir::RewritePatternSet &patterns,
                                 KernelState &kernel, int smArch);
void populateMemoryPatterns(const BlockTypeConverter &converter,
                            mlir::RewritePatternSet &patterns,
                            KernelState &kernel);
/// blkgpu.cluster_softmax_stats: one exchange of (max, sum) pairs.
void populateClusterPatterns(const BlockTypeConverter &converter,
                             mlir::RewritePatternSet &patterns,
                             KernelState &kernel);
void populateReducePatterns(const BlockTypeConverter &converter,
                            mlir::RewritePatternSet &patterns,
                            KernelState &kernel);
/// blk.arg_reduce (argmax/argmin): (value, index) pairs (ArgReduce.cpp).
void populateArgReducePatterns(const BlockTypeConverter &converter,
                               mlir::RewritePatternSet &patterns,
                               KernelState &kernel);
/// blk.atomic_rmw and blk.atomic_cas, on blocks and on scalar pointers: each
/// element's atomic executed once, by its owner (Atomics.cpp).
void populateAtomicPatterns(const BlockTypeConverter &converter,
                            mlir::RewritePatternSet &patterns,
                            KernelState &kernel);
void populateScanPatterns(const BlockTypeConverter &converter,
                          mlir::RewritePatternSet &patterns,
                          KernelState &kernel);
/// blkgpu.async_load and blkgpu.local_load: blocks kept in the dynamic shared
/// memory (OnChip.cpp), which declareDynamicShared declares once.
void populateOnChipPatterns(const BlockTypeConverter &converter,
                            mlir::RewritePatternSet &patterns,
                            KernelState &kernel);
/// The dynamic shared memory starts right after the static arrays, at the
/// declared alignment: 128 bytes, whatever static arrays precede it. At 16
/// bytes, static arrays of 16 mod 32 bytes made cp.async read every 32-byte
/// L2 sector twice (ncu, bf16 262144 on 16 CTAs of 4 warps: 268M sectors
/// instead of 134M, 2.48 instead of 2.23 ms), and 32 mod 128 bytes still
/// cost up to 7.5 % (H200, fp32 200000 on 8 CTAs of 4 warps);
/// docs/softmax_h200_dynamic_shared_align.txt.
void declareDynamicShared(mlir::ModuleOp module, mlir::Location loc);

/// What a masked load reads where its mask is off, rather than branching
/// around the access: 16 bytes of global memory (a constant of zeros, as
/// wide and aligned as the widest vector access), valid for every kernel,
/// whatever its arguments. The load's value there is `other`.
inline constexpr char kMaskedLoadStandIn[] = "__blk_masked_load_stand_in";
inline constexpr int64_t kMaskedLoadStandInBytes = 16;
/// Declares the stand-in once in `module` (Memory.cpp).
void declareMaskedLoadStandIn(mlir::ModuleOp module, mlir::Location loc);

/// A masked load's value for its masked-off lanes k .. k + width - 1:
/// `other`'s elements (zeros when the load has no `other`), as one vector of
/// `width` elements, or a scalar when width is 1 (Memory.cpp).
mlir::Value otherChunk(mlir::OpBuilder &builder, mlir::Location loc,
                       mlir::ValueRange other, mlir::Type element, int64_t k,
                       int64_t width);

/// A vector of `width` elements loaded from (stored to, also a scalar)
/// memory at `ptr` with `alignment` bytes. i1 elements are bytes in memory,
/// while LLVM packs a vector of i1 into bits: such vectors move as i8
/// (Memory.cpp).
mlir::Value loadVector(mlir::OpBuilder &builder, mlir::Location loc,
                       mlir::Type element, int64_t width, mlir::Value ptr,
                       unsigned alignment);
void storeVector(mlir::OpBuilder &builder, mlir::Location loc,
                 mlir::Value vector, mlir::Value ptr, unsigned alignment);

/// Puts `eviction` (none: nothing) on the global accesses that the lowering
/// of `access` emitted before it, after `before` (its previous op then;
/// null: none): the LLVM loads and stores and the cp.async copies that
/// EvictionHints.h lowers with the hint (Memory.cpp).
void markEviction(mlir::Operation *before, mlir::Operation *access,
                  blk::EvictionAttr eviction);

/// How every block load and store of `func` accesses memory (Memory.cpp).
/// Taken before the conversion, from the values AxisAnalysis knows.
llvm::DenseMap<mlir::Operation *, AccessWidth>
accessWidths(mlir::func::FuncOp func, const AxisAnalysis &axis);
/// How one block load or store of `element`s through the laid-out block
/// pointer `ptr` under `mask` (null: none) accesses memory: as wide as the
/// pointers allow, the mask split per vector where its constancy is
/// narrower, or word pairs on an element-aligned row one warp holds.
AccessWidth blockAccessWidth(const AxisAnalysis &axis, mlir::Value ptr,
                             mlir::Value mask, mlir::Type element);

/// Whether a masked-off access of `element`s may read the stand-in
/// (kMaskedLoadStandIn) instead of branching around its load: numbers of at
/// most 16 bytes; i1 (bytes in memory) and pointers keep the branch.
bool readsStandInWhenOff(mlir::Type element);

/// The block comparisons (arith.cmpi) of `func` whose result AxisAnalysis
/// proves constant over aligned runs of 2 or more elements, each with the
/// runs it may compute once: the constancy, at most the layout's vector (a
/// thread's consecutive elements). Taken before the conversion
/// (Elementwise.cpp).
llvm::DenseMap<mlir::Operation *, int64_t>
comparisonRuns(mlir::func::FuncOp func, const AxisAnalysis &axis);

/// Puts each store to a scalar pointer of `func` under `threadId == 0` (and
/// its mask, and in a cluster the first CTA): every thread computes the
/// value, one stores it (Memory.cpp). Run before the conversion, whose
/// per-element stores are the block's.
void guardScalarStores(mlir::func::FuncOp func, const KernelState &kernel);

/// Whether every block op of `func` has a GPU lowering, checked before
/// anything is rewritten so that an error names the op and why
/// (Checks.cpp): kernel parameters are scalars or pointers, only scf.for
/// carries blocks through regions, block constants are splats, 1-D
/// reductions accumulate in at most 32 bits.
mlir::LogicalResult checkGPULowering(mlir::func::FuncOp func);

} // namespace blockjit::nvvm

#endif // BLOCKJIT_COMPILER_GPU_TONVVM_LOWERING_H
