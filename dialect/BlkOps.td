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
  }];
  let arguments = (ins Blk_PtrLike:$ptr, Optional<Blk_MaskLike>:$mask,
                       Optional<AnyType>:$other);
  let results = (outs AnyType:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::mlir::Value":$ptr,
      CArg<"::mlir::Value", "{}">:$mask, CArg<"::mlir::Value", "{}">:$other)>];
}

def Blk_StoreOp : Blk_Op<"store", [MemoryEffects<[MemWrite]>]> {
  let summary = "store to global memory, optionally masked";
  let description = [{
    Lanes whose mask bit is false do not touch memory.
    Example: `blk.store %ptrs, %value, %mask : tensor<128x!blk.ptr<f32>>`
  }];
  let arguments = (ins Blk_PtrLike:$ptr, AnyType:$value, Optional<Blk_MaskLike>:$mask);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
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
