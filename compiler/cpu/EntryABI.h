//===- EntryABI.h - how the CPU runtime calls a compiled kernel -*- C++ -*-===//
//
// Every CPU kernel `@k` gets an entry point
//
//   void k_blockjit_entry(void **args, const int32_t *grid, void *scratch,
//                         int64_t begin, int64_t end)
//
//   args     args[i] points to the value of runtime argument i (parameter
//            order, constexprs skipped);
//   grid     three i32: the program counts x, y, z;
//   scratch  a 64-byte aligned arena of CompiledArtifact::cpuScratchBytes
//            (null when 0), owned by the calling thread and reused by every
//            program it runs: large block temporaries live there instead of
//            on the stack;
//   begin, end  the programs to run, one after another, by linear index
//            (x fastest: index = x + gx * (y + gy * z)).
//
// One call runs a whole chunk of programs: the arguments are loaded once
// and the program ids advance without divisions, so a grid of one program
// per row costs no more per program than a loop iteration.
//
// The lowering (compiler/cpu) and the executor (runtime/CPUExecutor) both
// follow this header.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_COMPILER_CPU_ENTRYABI_H
#define BLOCKJIT_COMPILER_CPU_ENTRYABI_H

#include <cstdint>

namespace blockjit::cpu {

using EntryFunction = void (*)(void **args, const int32_t *grid, void *scratch,
                               int64_t begin, int64_t end);

/// Suffix of the entry point's symbol.
inline constexpr const char *kEntrySuffix = "_blockjit_entry";
/// Number of i32 grid values a kernel takes: program ids x, y, z, then
/// program counts x, y, z.
inline constexpr unsigned kGridValues = 6;
/// Number of i32 values the entry point reads from `grid` (the counts).
inline constexpr unsigned kGridCounts = 3;
/// Alignment of the scratch arena and of every buffer in it.
inline constexpr int64_t kScratchAlignment = 64;
/// Block temporaries up to this size stay on the stack (where LLVM can keep
/// them in registers); larger ones go to the scratch arena.
inline constexpr int64_t kMaxStackBufferBytes = 16 * 1024;
/// Function attribute (i64) the loops stage puts on a kernel that uses the
/// arena: its size. Such a kernel has one extra trailing memref<?xi8>
/// parameter, the arena.
inline constexpr const char *kScratchBytesAttr = "blockjit.cpu_scratch_bytes";

} // namespace blockjit::cpu

#endif // BLOCKJIT_COMPILER_CPU_ENTRYABI_H
