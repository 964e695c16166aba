//===- BlkOps.td - operations of the blk dialect -------------------------===//
#ifndef BLOCKJIT_DIALECT_BLKOPS_TD
#define BLOCKJIT_DIALECT_BLKOPS_TD

include "dialect/BlkBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Blk_Op<string mnemonic, list<Trait> traits = []>
    : Op<Blk_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Program geometry
//===----------------------------------------------------------------------===//

class Blk_GridQueryOp<string mnemonic, string what> : Blk_Op<mnemonic, [Pure]> {
  let summary = what # " along a grid axis (0, 1 or 2)";
  let arguments = (ins I32Attr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "int32_t":$axis), [{
    build($_builder, $_state, $_builder.getI32Type(), axis);
  }]>];
}

def Blk_ProgramIdOp : Blk_GridQueryOp<"program_id", "index of this program">;
def Blk_NumProgramsOp : Blk_GridQueryOp<"num_programs", "number of programs">;

def Blk_MakeRangeOp : Blk_Op<"make_range", [Pure]> {
  let summary = "the block [start, start+1, ..., end-1] of i32";
  let description = [{
    `end - start` is the block's length and must be a power of two.
    Example: `%r = blk.make_range 0 to 128 : tensor<128xi32>`
  }];
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat = "$start `to` $end attr-dict `:` type($result)";
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "int32_t":$start, "int32_t":$end)>];
}

//===----------------------------------------------------------------------===//
// Shape changes
//===----------------------------------------------------------------------===//

def Blk_SplatOp : Blk_Op<"splat", [Pure]> {
  let summary = "a block with every element equal to one scalar";
  let arguments = (ins AnyType:$src);
  let results = (outs Blk_Block:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Blk_BroadcastOp : Blk_Op<"broadcast", [Pure]> {
  let summary = "stretch size-1 dimensions of a block to a larger shape";
  let arguments = (ins Blk_Block:$src);
  let results = (outs Blk_Block:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Blk_ExpandDimsOp : Blk_Op<"expand_dims", [Pure]> {
  let summary = "insert a size-1 dimension at `axis` (x[:, None] in Triton)";
  let arguments = (ins Blk_Block:$src, I32Attr:$axis);
  let results = (outs Blk_Block:$result);
  let assemblyFormat = "$src `axis` `=` $axis attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  let builders = [OpBuilder<(ins "::mlir::Value":$src, "int32_t":$axis)>];
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

def Blk_AddPtrOp : Blk_Op<"addptr", [Pure, AllTypesMatch<["ptr", "result"]>]> {
  let summary = "advance pointers by element offsets";
  let description = [{
    `result[i] = ptr[i] + offset[i] * sizeof(pointee)`; a scalar pointer takes a
    scalar offset, a block of pointers a block of offsets of the same shape.
  }];
  let arguments = (ins Blk_PtrLike:$ptr, Blk_IntLike:$offset);
  let results = (outs Blk_PtrLike:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($ptr) `,` type($offset)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Blk_LoadOp : Blk_Op<"load", [AttrSizedOperandSegments,
                                 MemoryEffects<[MemRead]>]> {
  let summary = "load from global memory, optionally masked";
  let description = [{
    Lanes whose mask bit is false do not touch memory and yield `other`
    (undefined when `other` is absent). The mask has the pointers' shape with
    i1 elements; `other` and the result have it with the pointee type.
    Example: `%x = blk.load %ptrs, %mask, %ninf : tensor<128x!blk.ptr<f32>>`
    An eviction hint follows the operands (`blk.load %ptrs evict_first :
    ...`): on the GPU the access asks L1 and L2 to evict its lines first (or
    last); it changes no result.
  }];
  let arguments = (ins Blk_PtrLike:$ptr, Optional<Blk_MaskLike>:$mask,
                       Optional<AnyType>:$other,
                       OptionalAttr<Blk_EvictionAttr>:$eviction);
  let results = (outs AnyType:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::mlir::Value":$ptr,
      CArg<"::mlir::Value", "{}">:$mask, CArg<"::mlir::Value", "{}">:$other,
      CArg<"::blockjit::blk::EvictionAttr", "{}">:$eviction)>];
}

def Blk_StoreOp : Blk_Op<"store", [MemoryEffects<[MemWrite]>]> {
  let summary = "store to global memory, optionally masked";
  let description = [{
    Lanes whose mask bit is false do not touch memory.
    Example: `blk.store %ptrs, %value, %mask : tensor<128x!blk.ptr<f32>>`
    An eviction hint follows the operands, as blk.load's.
  }];
  let arguments = (ins Blk_PtrLike:$ptr, AnyType:$value, Optional<Blk_MaskLike>:$mask,
                       OptionalAttr<Blk_EvictionAttr>:$eviction);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::mlir::Value":$ptr, "::mlir::Value":$value,
      CArg<"::mlir::Value", "{}">:$mask), [{
    build($_builder, $_state, ptr, value, mask, ::blockjit::blk::EvictionAttr());
  }]>];
}

def Blk_PrefetchOp : Blk_Op<"prefetch"> {
  let summary = "hint: bring the memory at a pointer into the cache";
  let description = [{
    No effect on results: the CPU loops stage emits it for the memory the
    next program or loop iteration will load (convert-blk-to-loops). It
    takes one scalar pointer, which may point anywhere (a prefetch never
    faults). It declares no memory effects, so it is never erased as dead.
    `write` fetches the line for writing (the stores that follow).
    Example: `blk.prefetch %p write : !blk.ptr<f32>`
  }];
  let arguments = (ins Blk_PtrType:$ptr, UnitAttr:$write);
  let assemblyFormat = "$ptr (`write` $write^)? attr-dict `:` qualified(type($ptr))";
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

def Blk_ReduceOp : Blk_Op<"reduce", [Pure]> {
  let summary = "reduce a block along one axis with max, min or sum";
  let description = [{
    The result drops dimension `axis`; reducing a 1-D block gives a scalar.
    Example: `%m = blk.reduce max %x axis = 0 : tensor<128xf32> -> f32`
  }];
  let arguments = (ins Blk_ReduceKindAttr:$kind, Blk_Block:$src, I32Attr:$axis);
  let results = (outs AnyType:$result);
  let assemblyFormat = "`` $kind $src `axis` `=` $axis attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "ReduceKind":$kind, "::mlir::Value":$src, "int32_t":$axis)>];
  let extraClassDeclaration = [{
    /// The type of reducing `src` along `axis`, or null if `axis` is out of range.
    static ::mlir::Type inferResultType(::mlir::RankedTensorType src, int64_t axis);
  }];
}

//===----------------------------------------------------------------------===//
// Index reductions (argmax, argmin)
//===----------------------------------------------------------------------===//

def Blk_ArgReduceOp : Blk_Op<"arg_reduce", [Pure]> {
  let summary = "the index of the largest (max) or smallest (min) element along an axis";
  let description = [{
    Triton's argmax/argmin. Reduces `src` along `axis` to the i32 index, along
    that axis, of its largest (`max`) or smallest (`min`) element; reducing a
    1-D block gives a scalar. Ties give the first index; a NaN counts as the
    extreme for both kinds (the first NaN wins, as in numpy and torch);
    -0.0 == 0.0. A separate op rather than a kind of blk.reduce: its result
    type (i32 indices) differs from its operand's, and its lowerings carry
    (value, index) pairs. `sum` is not an index reduction.
    Example: `%i = blk.arg_reduce max %x axis = 0 : tensor<128xf32> -> i32`
  }];
  let arguments = (ins Blk_ReduceKindAttr:$kind, Blk_Block:$src, I32Attr:$axis);
  let results = (outs AnyType:$result);
  let assemblyFormat = "`` $kind $src `axis` `=` $axis attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "ReduceKind":$kind, "::mlir::Value":$src, "int32_t":$axis)>];
}

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

def Blk_AtomicRMWKind : I32EnumAttr<"AtomicRMWKind",
    "how an atomic read-modify-write combines memory with a value", [
    I32EnumAttrCase<"Add", 0, "add">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">,
    I32EnumAttrCase<"Xchg", 3, "xchg">]> {
  let cppNamespace = "::blockjit::blk";
  let genSpecializedAttr = 0;
}
def Blk_AtomicRMWKindAttr
    : EnumAttr<Blk_Dialect, Blk_AtomicRMWKind, "atomic_rmw_kind">;

def Blk_MemSem : I32EnumAttr<"MemSem", "memory ordering of an atomic (Triton's sem)", [
    I32EnumAttrCase<"Relaxed", 0, "relaxed">,
    I32EnumAttrCase<"Acquire", 1, "acquire">,
    I32EnumAttrCase<"Release", 2, "release">,
    I32EnumAttrCase<"AcqRel", 3, "acq_rel">]> {
  let cppNamespace = "::blockjit::blk";
  let genSpecializedAttr = 0;
}
def Blk_MemSemAttr : EnumAttr<Blk_Dialect, Blk_MemSem, "mem_sem">;

def Blk_MemScope : I32EnumAttr<"MemScope",
    "which threads an atomic's ordering is relative to (Triton's scope)", [
    I32EnumAttrCase<"Cta", 0, "cta">,
    I32EnumAttrCase<"Gpu", 1, "gpu">]> {
  let cppNamespace = "::blockjit::blk";
  let genSpecializedAttr = 0;
}
def Blk_MemScopeAttr : EnumAttr<Blk_Dialect, Blk_MemScope, "mem_scope">;

def Blk_AtomicRMWOp : Blk_Op<"atomic_rmw", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "atomic read-modify-write of global memory, optionally masked";
  let description = [{
    For every lane, atomically `old = *ptr; *ptr = kind(old, value)` and the
    result is `old`; lanes whose mask bit is false touch no memory and give
    0. Each lane's operation happens exactly once per program, however a
    target spreads the block over threads. `add` on integers wraps; `max`
    and `min` compare integers as signed and floats as llvm.maxnum/minnum
    (a NaN operand is ignored: NaN only results when both are NaN);
    `xchg` stores the value. `sem` orders the atomic with the thread's other
    memory accesses (default acq_rel), `scope` says relative to which
    threads (default gpu: the whole device; cta: the program's threads; the
    CPU always orders for the whole system), as Triton's sem and scope.
    Example: `%old = blk.atomic_rmw add %ptrs, %v, %mask : tensor<16x!blk.ptr<f32>>, tensor<16xf32>, tensor<16xi1> -> tensor<16xf32>`
  }];
  let arguments = (ins Blk_AtomicRMWKindAttr:$kind, Blk_PtrLike:$ptr,
                       AnyType:$value, Optional<Blk_MaskLike>:$mask,
                       DefaultValuedAttr<Blk_MemSemAttr,
                                         "::blockjit::blk::MemSem::AcqRel">:$sem,
                       DefaultValuedAttr<Blk_MemScopeAttr,
                                         "::blockjit::blk::MemScope::Gpu">:$scope);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    `` $kind $ptr `,` $value (`,` $mask^)? attr-dict `:` type($ptr) `,`
    type($value) (`,` type($mask)^)? `->` type($result)
  }];
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "AtomicRMWKind":$kind, "::mlir::Value":$ptr,
      "::mlir::Value":$value, CArg<"::mlir::Value", "{}">:$mask,
      CArg<"MemSem", "MemSem::AcqRel">:$sem,
      CArg<"MemScope", "MemScope::Gpu">:$scope)>];
}

def Blk_AtomicCASOp : Blk_Op<"atomic_cas", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "atomic compare-and-swap of global memory, optionally masked";
  let description = [{
    For every lane, atomically `old = *ptr; if (old == cmp) *ptr = value`
    and the result is `old`; lanes whose mask bit is false touch no memory
    and give 0. Floats compare by their bits (a NaN matches the same NaN,
    -0 does not match +0). Exactly once per lane; `sem` and `scope` as for
    blk.atomic_rmw (a failed compare orders as acquire for acquire and
    acq_rel, else relaxed).
    Example: `%old = blk.atomic_cas %ptrs, %cmp, %v : tensor<16x!blk.ptr<i32>>, tensor<16xi32>, tensor<16xi32> -> tensor<16xi32>`
  }];
  let arguments = (ins Blk_PtrLike:$ptr, AnyType:$cmp, AnyType:$value,
                       Optional<Blk_MaskLike>:$mask,
                       DefaultValuedAttr<Blk_MemSemAttr,
                                         "::blockjit::blk::MemSem::AcqRel">:$sem,
                       DefaultValuedAttr<Blk_MemScopeAttr,
                                         "::blockjit::blk::MemScope::Gpu">:$scope);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $ptr `,` $cmp `,` $value (`,` $mask^)? attr-dict `:` type($ptr) `,`
    type($cmp) `,` type($value) (`,` type($mask)^)? `->` type($result)
  }];
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::mlir::Value":$ptr, "::mlir::Value":$cmp,
      "::mlir::Value":$value, CArg<"::mlir::Value", "{}">:$mask,
      CArg<"MemSem", "MemSem::AcqRel">:$sem,
      CArg<"MemScope", "MemScope::Gpu">:$scope)>];
}

//===----------------------------------------------------------------------===//
// Scans
//===----------------------------------------------------------------------===//

def Blk_ScanOp : Blk_Op<"scan", [RecursiveMemoryEffects, SingleBlock,
                                 AllTypesMatch<["src", "result"]>]> {
  let summary = "inclusive scan of a block along one axis with a combine region";
  let description = [{
    `result[..., i, ...]` combines the elements `0..i` along `axis` in order,
    left to right: `combine(combine(x0, x1), x2)...` (`reverse`: the elements
    `n-1..i`, from the end: `combine(combine(x[n-1], x[n-2]), ...)`). The
    region takes two scalars of the element type (the running value, then the
    next element) and returns their combination with `blk.scan_return`; it
    must be associative (the targets may regroup it) and free of side
    effects. Triton's tt.scan with one operand.
    Example:
    ```mlir
    %s = blk.scan %x axis = 0 : tensor<128xf32> {
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      blk.scan_return %c : f32
    }
    ```
  }];
  let arguments = (ins Blk_Block:$src, I32Attr:$axis, UnitAttr:$reverse);
  let results = (outs Blk_Block:$result);
  let regions = (region SizedRegion<1>:$combine);
  let assemblyFormat = [{
    $src `axis` `=` $axis (`reverse` $reverse^)? attr-dict `:` type($src)
    $combine
  }];
  let hasVerifier = 1;
}

def Blk_ScanReturnOp : Blk_Op<"scan_return", [Pure, Terminator,
                                              HasParent<"ScanOp">]> {
  let summary = "the combined value of a blk.scan region";
  let arguments = (ins AnyType:$result);
  let assemblyFormat = "$result attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Block shape ops: reshape, permute, join, split
//===----------------------------------------------------------------------===//

def Blk_ReshapeOp : Blk_Op<"reshape", [Pure]> {
  let summary = "the same elements in row-major order, in another shape";
  let description = [{
    Element i of the source in row-major order is element i of the result;
    the element type and count stay (Triton's tl.reshape without reordering).
    Example: `%r = blk.reshape %x : tensor<128xf32> -> tensor<8x16xf32>`
  }];
  let arguments = (ins Blk_Block:$src);
  let results = (outs Blk_Block:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Blk_PermuteOp : Blk_Op<"permute", [Pure]> {
  let summary = "reorder the dimensions of a block (a transpose)";
  let description = [{
    Dimension i of the result is dimension `order[i]` of the source:
    `result[i_0, ..., i_n] = src[j]` with `j[order[d]] = i_d` (Triton's
    tl.permute; tl.trans of a 2-D block is `order = [1, 0]`).
    Example: `%t = blk.permute %x order = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>`
  }];
  let arguments = (ins Blk_Block:$src, DenseI32ArrayAttr:$order);
  let results = (outs Blk_Block:$result);
  let assemblyFormat = "$src `order` `=` $order attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  let builders = [OpBuilder<(ins "::mlir::Value":$src, "::llvm::ArrayRef<int32_t>":$order)>];
}

def Blk_JoinOp : Blk_Op<"join", [Pure, AllTypesMatch<["lhs", "rhs"]>]> {
  let summary = "stack two blocks of one type along a new last dimension of 2";
  let description = [{
    `result[i..., 0] = lhs[i...]` and `result[i..., 1] = rhs[i...]` (Triton's
    tl.join). Example:
    `%j = blk.join %a, %b : tensor<16xf32> -> tensor<16x2xf32>`
  }];
  let arguments = (ins Blk_Block:$lhs, Blk_Block:$rhs);
  let results = (outs Blk_Block:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::mlir::Value":$lhs, "::mlir::Value":$rhs)>];
}

def Blk_SplitOp : Blk_Op<"split", [Pure, AllTypesMatch<["lhs", "rhs"]>]> {
  let summary = "the two halves of a block along its last dimension of 2";
  let description = [{
    The inverse of blk.join: `lhs[i...] = src[i..., 0]` and
    `rhs[i...] = src[i..., 1]` (Triton's tl.split); the source has rank 2 or
    more. Example:
    `%a, %b = blk.split %j : tensor<16x2xf32> -> tensor<16xf32>`
  }];
  let arguments = (ins Blk_Block:$src);
  let results = (outs Blk_Block:$lhs, Blk_Block:$rhs);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($lhs)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let builders = [OpBuilder<(ins "::mlir::Value":$src)>];
}

#endif // BLOCKJIT_DIALECT_BLKOPS_TD
