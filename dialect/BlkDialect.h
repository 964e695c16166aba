//===- BlkDialect.h - the blk dialect: types, enums and ops -----*- C++ -*-===//
#ifndef BLOCKJIT_DIALECT_BLKDIALECT_H
#define BLOCKJIT_DIALECT_BLKDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

#include "dialect/BlkDialect.h.inc"
#include "dialect/BlkEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/BlkAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialect/BlkTypes.h.inc"

#define GET_OP_CLASSES
#include "dialect/BlkOps.h.inc"

namespace blockjit::blk {

/// The most elements one block may hold (every target). Larger blocks are
/// rejected when a kernel is traced or compiled, with a clear error, instead
/// of exhausting the compiler's time and memory.
inline constexpr int64_t kMaxBlockElements = int64_t(1) << 24;

/// Where a diagnostic points, as a user reads it: "file:line" of the DSL
/// call that built the op (the form of trace-time errors), a kernel's name,
/// or MLIR's own form for other locations.
std::string describeLocation(mlir::Location loc);

/// A diagnostic as users read it: "where: message" (describeLocation), then
/// "  note: message" for each of its notes, each line ending in a newline.
/// The one form of the compiler's stage errors and of a traced kernel's
/// verifier errors.
std::string describeDiagnostic(const mlir::Diagnostic &diagnostic);

/// The shape of a block, or {} for a scalar.
llvm::ArrayRef<int64_t> shapeOf(mlir::Type type);

/// `elementType` with the shape of `like`: a tensor if `like` is one, else
/// `elementType` itself (a scalar).
mlir::Type withShapeOf(mlir::Type like, mlir::Type elementType);

/// The element type of a block, or the type itself for a scalar.
mlir::Type elementTypeOf(mlir::Type type);

/// Bytes one element of scalar type `type` takes in memory: a pointer 8, an
/// integer or float its width rounded up to whole bytes (i1 takes one). The
/// one rule every lowering sizes buffers, vectors and strides by.
int64_t elementBytes(mlir::Type type);

/// Whether `type` is a block (a ranked tensor), and whether `op` takes or
/// produces one: what the backend lowerings rewrite.
bool isBlock(mlir::Type type);
bool hasBlocks(mlir::Operation *op);

/// The make_range that `value` is, seen through expand_dims (null if it is
/// anything else): a broadcast of it is a range alone, which the GPU
/// lowering computes from each element's coordinates.
MakeRangeOp rangeThroughExpandDims(mlir::Value value);

/// A blk.broadcast of a make_range (seen through expand_dims): result
/// element i holds start + its coordinate along dimension `dim` of `size`
/// elements, which a backend computes in place, moving nothing.
struct RangeBroadcast {
  int64_t dim = 0, size = 1, start = 0;
};
std::optional<RangeBroadcast> rangeBroadcastOf(BroadcastOp broadcast);

/// What every reduction along an axis checks of its operand (blk.reduce,
/// blkgpu.all_reduce): integer or float elements, `axis` one of `src`'s
/// dimensions. Errors are emitted on `op`.
mlir::LogicalResult verifyReduceOperand(mlir::Operation *op,
                                        mlir::RankedTensorType src,
                                        int64_t axis);

} // namespace blockjit::blk

#endif // BLOCKJIT_DIALECT_BLKDIALECT_H
