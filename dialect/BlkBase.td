//===- BlkBase.td - the blk dialect, its enums and type constraints -------===//
#ifndef BLOCKJIT_DIALECT_BLKBASE_TD
#define BLOCKJIT_DIALECT_BLKBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

def Blk_Dialect : Dialect {
  let name = "blk";
  let cppNamespace = "::blockjit::blk";
  let summary = "Block-level, target-neutral kernel IR";
  let description = [{
    One program instance of a blk kernel works on whole blocks of elements:
    ranked tensors with static, power-of-two shapes. Pointers into global
    memory are `!blk.ptr<T>`; a block of addresses is a tensor of them.
    Elementwise arithmetic on blocks uses `arith` and `math`, loops `scf.for`.
    How a block is spread over threads is decided later, per target (on a
    GPU: the layouts of the blkgpu dialect, dialect/gpu/).
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def Blk_ReduceKind : I32EnumAttr<"ReduceKind", "how a reduction combines elements", [
    I32EnumAttrCase<"Max", 0, "max">,
    I32EnumAttrCase<"Min", 1, "min">,
    I32EnumAttrCase<"Sum", 2, "sum">]> {
  let cppNamespace = "::blockjit::blk";
  let genSpecializedAttr = 0;
}
def Blk_ReduceKindAttr : EnumAttr<Blk_Dialect, Blk_ReduceKind, "reduce_kind">;

// Triton's eviction_policy: where a load's or store's lines go in the caches
// (absent: the default). A hint only: it changes no result, and the CPU
// target ignores it.
def Blk_Eviction : I32EnumAttr<"Eviction", "cache eviction priority of a memory access", [
    I32EnumAttrCase<"First", 1, "evict_first">,
    I32EnumAttrCase<"Last", 2, "evict_last">]> {
  let cppNamespace = "::blockjit::blk";
  let genSpecializedAttr = 0;
}
def Blk_EvictionAttr : EnumAttr<Blk_Dialect, Blk_Eviction, "eviction">;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def Blk_PtrType : TypeDef<Blk_Dialect, "Ptr", [MemRefElementTypeInterface]> {
  let mnemonic = "ptr";
  let summary = "pointer to elements of one type in global memory";
  let parameters = (ins "::mlir::Type":$pointeeType);
  let assemblyFormat = "`<` $pointeeType `>`";
  let genVerifyDecl = 1;
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::Type":$pointeeType), [{
      return $_get(pointeeType.getContext(), pointeeType);
    }]>
  ];
}

// Blocks have static shapes: a program's block size is a compile-time constant.
class Blk_StaticTensorOf<list<Type> allowed>
    : Type<And<[RankedTensorOf<allowed>.predicate, HasStaticShapePred]>,
           "statically shaped " # RankedTensorOf<allowed>.summary,
           "::mlir::RankedTensorType">;
def Blk_PtrTensor : Blk_StaticTensorOf<[Blk_PtrType]>;
def Blk_PtrLike : AnyTypeOf<[Blk_PtrType, Blk_PtrTensor], "pointer or tensor of pointers">;
def Blk_IntLike : AnyTypeOf<[AnySignlessInteger, Blk_StaticTensorOf<[AnySignlessInteger]>],
                            "integer or tensor of integers">;
def Blk_MaskLike : AnyTypeOf<[I1, Blk_StaticTensorOf<[I1]>], "i1 or tensor of i1">;
def Blk_Block : Blk_StaticTensorOf<[AnyType]>;

#endif // BLOCKJIT_DIALECT_BLKBASE_TD
