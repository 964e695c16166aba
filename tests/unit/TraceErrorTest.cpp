//===- TraceErrorTest.cpp - user mistakes found while tracing -------------===//
//
// Every trace-time error of the DSL must come back from KernelDef::trace as an
// llvm::Error naming the kernel, the user's file and line, and the mistake;
// nothing may crash, however the failed values are used afterwards.
//
//===----------------------------------------------------------------------===//
#include "runtime/KernelCache.h"
#include "tests/unit/TraceTestUtil.h"

#include <climits>
#include <cmath>
#include <functional>

using namespace mlir;
using namespace blockjit;
using namespace blockjit::test;

namespace {

/// The parameters every kernel in this file takes.
#define ARGS Ptr<float> x, Ptr<int32_t> y, Int n, Float f
using Body = std::function<void(Ptr<float>, Ptr<int32_t>, Int, Float)>;

/// Checks that `error` is "kernel 'NAME': .../TraceErrorTest.cpp:LINE:
/// MESSAGE..."
::testing::AssertionResult reported(const std::string &error,
                                    const std::string &kernel, int line,
                                    std::string_view message) {
  if (error.rfind("kernel '" + kernel + "': ", 0) != 0)
    return ::testing::AssertionFailure()
           << "does not start with the kernel name '" << kernel
           << "': " << error;
  std::string where = "TraceErrorTest.cpp:" + std::to_string(line) + ": ";
  if (!contains(error, where))
    return ::testing::AssertionFailure()
           << "does not name " << where << ": " << error;
  if (!contains(error, where + std::string(message)))
    return ::testing::AssertionFailure()
           << "does not say '" << message << "' after the line: " << error;
  // One mistake, one message.
  if (error.find("TraceErrorTest.cpp:") != error.rfind("TraceErrorTest.cpp:"))
    return ::testing::AssertionFailure() << "more than one message: " << error;
  return ::testing::AssertionSuccess();
}

class TraceErrorTest : public TraceFixture {
protected:
  /// Traces `body` as a kernel `name`(x: f32*, y: i32*, n: i32, f: f32); the
  /// trace must fail: the error's text.
  std::string errorOf(const std::string &name, Body body) {
    auto kernel = jit(name,
                      [body](Ptr<float> x, Ptr<int32_t> y, Int n, Float f) {
                        body(x, y, n, f);
                      },
                      {"x", "y", "n", "f"});
    return traceError(
        *kernel, makeKey({DType::F32, DType::I32, DType::I32, DType::F32}));
  }
  int line = 0;
};

//===----------------------------------------------------------------------===//
// Program geometry, ranges, constants
//===----------------------------------------------------------------------===//

TEST_F(TraceErrorTest, ProgramIdAxis) {
  std::string error = errorOf("pid_axis", [&](ARGS) {
    line = __LINE__ + 1;
    program_id(3);
  });
  EXPECT_TRUE(reported(error, "pid_axis", line,
                       "program_id(axis): axis must be 0, 1 or 2, got 3"));
}

TEST_F(TraceErrorTest, NumProgramsAxis) {
  std::string error = errorOf("nprog_axis", [&](ARGS) {
    line = __LINE__ + 1;
    num_programs(-1);
  });
  EXPECT_TRUE(reported(error, "nprog_axis", line,
                       "num_programs(axis): axis must be 0, 1 or 2, got -1"));
}

TEST_F(TraceErrorTest, ArangeEmpty) {
  std::string error = errorOf("arange_empty", [&](ARGS) {
    line = __LINE__ + 1;
    arange(8, 8);
  });
  EXPECT_TRUE(reported(error, "arange_empty", line,
                       "arange(8, 8): end must be greater than start"));
}

TEST_F(TraceErrorTest, ArangeNotPowerOfTwo) {
  std::string error = errorOf("arange_pow2", [&](ARGS) {
    line = __LINE__ + 1;
    arange(0, 100);
  });
  EXPECT_TRUE(reported(error, "arange_pow2", line,
                       "arange(0, 100): the length 100 must be a power of "
                       "two (use next_power_of_2 and a mask)"));
}

TEST_F(TraceErrorTest, ArangeOutsideI32) {
  std::string error = errorOf("arange_i32", [&](ARGS) {
    line = __LINE__ + 1;
    arange(int64_t(INT32_MAX), int64_t(INT32_MAX) + 1);
  });
  EXPECT_TRUE(
      reported(error, "arange_i32", line, "arange bounds must fit in i32"));
  error = errorOf("arange_i32_low", [&](ARGS) {
    line = __LINE__ + 1;
    arange(int64_t(INT32_MIN) - 2, int64_t(INT32_MIN) + 2);
  });
  EXPECT_TRUE(
      reported(error, "arange_i32_low", line, "arange bounds must fit in i32"));
}

TEST_F(TraceErrorTest, FullShape) {
  std::string error = errorOf("full_shape", [&](ARGS) {
    line = __LINE__ + 1;
    full({4, 3}, 0.0, DType::F32);
  });
  EXPECT_TRUE(reported(error, "full_shape", line,
                       "full: block dimensions must be powers of two, got "
                       "[4, 3]"));
  error = errorOf("full_zero", [&](ARGS) {
    line = __LINE__ + 1;
    full({0}, 0.0, DType::F32);
  });
  EXPECT_TRUE(reported(error, "full_zero", line,
                       "full: block dimensions must be powers of two, got "
                       "[0]"));
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

TEST_F(TraceErrorTest, ExpandDimsOfScalar) {
  std::string error = errorOf("expand_scalar", [&](ARGS) {
    line = __LINE__ + 1;
    n.expand_dims(0);
  });
  EXPECT_TRUE(reported(error, "expand_scalar", line,
                       "expand_dims needs a block, got a scalar"));
}

TEST_F(TraceErrorTest, ExpandDimsAxis) {
  std::string error = errorOf("expand_axis", [&](ARGS) {
    Tensor r = arange(0, 16);
    line = __LINE__ + 1;
    r.expand_dims(2);
  });
  EXPECT_TRUE(reported(error, "expand_axis", line,
                       "expand_dims axis 2 is out of range for a rank-1 "
                       "block (-2..1)"));
}

TEST_F(TraceErrorTest, ExpandDimsNegativeAxisIsReportedAsWritten) {
  std::string error = errorOf("expand_negative", [&](ARGS) {
    Tensor r = arange(0, 16);
    line = __LINE__ + 1;
    r.expand_dims(-3);
  });
  EXPECT_TRUE(reported(error, "expand_negative", line,
                       "expand_dims axis -3 is out of range for a rank-1 "
                       "block (-2..1)"));
}

TEST_F(TraceErrorTest, BroadcastTo) {
  std::string error = errorOf("broadcast", [&](ARGS) {
    Tensor r = arange(0, 16);
    line = __LINE__ + 1;
    r.broadcast_to({8});
  });
  EXPECT_TRUE(reported(error, "broadcast", line,
                       "cannot broadcast a block of shape [16] to [8]"));
  error = errorOf("broadcast_rank", [&](ARGS) {
    Tensor r = arange(0, 16).expand_dims(0);
    line = __LINE__ + 1;
    r.broadcast_to({16});
  });
  EXPECT_TRUE(reported(error, "broadcast_rank", line,
                       "cannot broadcast a block of shape [1, 16] to [16]"));
}

TEST_F(TraceErrorTest, BroadcastToNonPowerOfTwo) {
  // Blocks have power-of-two shapes, however they are made.
  std::string error = errorOf("broadcast_pow2", [&](ARGS) {
    line = __LINE__ + 1;
    n.broadcast_to({3, 16});
  });
  EXPECT_TRUE(reported(error, "broadcast_pow2", line,
                       "broadcast_to: block dimensions must be powers of two, "
                       "got [3, 16]"));
}

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

TEST_F(TraceErrorTest, OnlyPlusAndMinusOnPointers) {
  std::string error = errorOf("ptr_mul", [&](ARGS) {
    line = __LINE__ + 1;
    x * 2;
  });
  EXPECT_TRUE(reported(error, "ptr_mul", line,
                       "operator * is not defined on pointers (only + and - "
                       "integer offsets)"));
  error = errorOf("ptr_cmp", [&](ARGS) {
    line = __LINE__ + 1;
    (x + arange(0, 16)) < n;
  });
  EXPECT_TRUE(reported(error, "ptr_cmp", line,
                       "operator < is not defined on pointers"));
  error = errorOf("ptr_max", [&](ARGS) {
    line = __LINE__ + 1;
    maximum(x, 1);
  });
  EXPECT_TRUE(reported(error, "ptr_max", line,
                       "operator maximum is not defined on pointers"));
}

TEST_F(TraceErrorTest, PointerOffsetsMustBeIntegers) {
  std::string error = errorOf("ptr_real", [&](ARGS) {
    line = __LINE__ + 1;
    x + 1.5;
  });
  EXPECT_TRUE(reported(error, "ptr_real", line,
                       "pointer offsets must be integers, got a C++ float"));
  error = errorOf("ptr_float", [&](ARGS) {
    line = __LINE__ + 1;
    x + f;
  });
  EXPECT_TRUE(reported(error, "ptr_float", line,
                       "pointer offsets must be integers, got f32"));
  error = errorOf("ptr_float_block", [&](ARGS) {
    Tensor offsets = arange(0, 16).to(DType::F16);
    line = __LINE__ + 1;
    offsets + x;
  });
  EXPECT_TRUE(reported(error, "ptr_float_block", line,
                       "pointer offsets must be integers, got f16"));
}

TEST_F(TraceErrorTest, PointerOffsetShape) {
  std::string error = errorOf("ptr_shape", [&](ARGS) {
    Tensor ptrs = x + arange(0, 16);
    line = __LINE__ + 1;
    ptrs + arange(0, 32);
  });
  EXPECT_TRUE(reported(error, "ptr_shape", line,
                       "cannot add offsets of shape [32] to pointers of "
                       "shape [16]"));
}

TEST_F(TraceErrorTest, TwoPointers) {
  std::string error = errorOf("ptr_ptr", [&](ARGS) {
    line = __LINE__ + 1;
    x + y;
  });
  EXPECT_TRUE(reported(error, "ptr_ptr", line,
                       "operator + between two pointers is not supported"));
  error = errorOf("ptr_diff", [&](ARGS) {
    line = __LINE__ + 1;
    x - x;
  });
  EXPECT_TRUE(reported(error, "ptr_diff", line,
                       "operator - between two pointers is not supported"));
}

TEST_F(TraceErrorTest, PointerOnTheRight) {
  std::string error = errorOf("number_minus_ptr", [&](ARGS) {
    line = __LINE__ + 1;
    2 - x;
  });
  EXPECT_TRUE(reported(error, "number_minus_ptr", line,
                       "only pointer + offset and offset + pointer are "
                       "defined on pointers"));
  error = errorOf("int_times_ptr", [&](ARGS) {
    line = __LINE__ + 1;
    n *x;
  });
  EXPECT_TRUE(reported(error, "int_times_ptr", line,
                       "only pointer + offset and offset + pointer are "
                       "defined on pointers"));
  error = errorOf("negate_ptr", [&](ARGS) {
    line = __LINE__ + 1;
    -x;
  });
  EXPECT_TRUE(reported(error, "negate_ptr", line,
                       "only pointer + offset and offset + pointer are "
                       "defined on pointers"));
}

TEST_F(TraceErrorTest, BitwiseOperatorsNeedIntegers) {
  std::string error = errorOf("and_float", [&](ARGS) {
    Tensor v = load(x + arange(0, 16));
    line = __LINE__ + 1;
    v & 1;
  });
  EXPECT_TRUE(reported(error, "and_float", line,
                       "operator & needs integer or i1 operands, got f32"));
  error = errorOf("or_float", [&](ARGS) {
    line = __LINE__ + 1;
    f | f;
  });
  EXPECT_TRUE(reported(error, "or_float", line,
                       "operator | needs integer or i1 operands, got f32"));
  error = errorOf("xor_real", [&](ARGS) {
    line = __LINE__ + 1;
    n ^ 1.5;
  });
  EXPECT_TRUE(reported(error, "xor_real", line,
                       "operator ^ needs integer or i1 operands, got f32"));
}

TEST_F(TraceErrorTest, BinaryShapeMismatch) {
  std::string error = errorOf("shape_mismatch", [&](ARGS) {
    line = __LINE__ + 1;
    arange(0, 16) + arange(0, 32);
  });
  EXPECT_TRUE(reported(error, "shape_mismatch", line,
                       "shape mismatch in '+': [16] and [32] cannot be "
                       "broadcast together"));
  error = errorOf("shape_mismatch_2d", [&](ARGS) {
    Tensor tile = arange(0, 8).expand_dims(1).broadcast_to({8, 4});
    line = __LINE__ + 1;
    tile < arange(0, 16);
  });
  EXPECT_TRUE(reported(error, "shape_mismatch_2d", line,
                       "shape mismatch in '<': [8, 4] and [16] cannot be "
                       "broadcast together"));
}

TEST_F(TraceErrorTest, LogicalNotNeedsI1) {
  std::string error = errorOf("not_int", [&](ARGS) {
    line = __LINE__ + 1;
    !arange(0, 16);
  });
  EXPECT_TRUE(reported(error, "not_int", line,
                       "operator ! needs an i1 (boolean) tensor, got "
                       "tensor<16xi32>"));
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

TEST_F(TraceErrorTest, LoadAndStoreNeedPointers) {
  std::string error = errorOf("load_int", [&](ARGS) {
    line = __LINE__ + 1;
    load(arange(0, 16));
  });
  EXPECT_TRUE(reported(error, "load_int", line,
                       "load needs pointers, got tensor<16xi32>"));
  error = errorOf("load_scalar", [&](ARGS) {
    line = __LINE__ + 1;
    load(n, n > 0, 0);
  });
  EXPECT_TRUE(
      reported(error, "load_scalar", line, "load needs pointers, got i32"));
  error = errorOf("store_int", [&](ARGS) {
    line = __LINE__ + 1;
    store(arange(0, 16), 1.0);
  });
  EXPECT_TRUE(reported(error, "store_int", line,
                       "store needs pointers, got tensor<16xi32>"));
}

TEST_F(TraceErrorTest, MaskMustBeI1) {
  std::string error = errorOf("load_mask_type", [&](ARGS) {
    Tensor offsets = arange(0, 16);
    line = __LINE__ + 1;
    load(x + offsets, offsets);
  });
  EXPECT_TRUE(reported(error, "load_mask_type", line,
                       "load mask must be i1 (a comparison), got "
                       "tensor<16xi32>"));
  error = errorOf("store_mask_type", [&](ARGS) {
    Tensor offsets = arange(0, 16);
    line = __LINE__ + 1;
    store(x + offsets, 1.0, load(x + offsets));
  });
  EXPECT_TRUE(reported(error, "store_mask_type", line,
                       "store mask must be i1 (a comparison), got "
                       "tensor<16xf32>"));
}

TEST_F(TraceErrorTest, MaskShape) {
  std::string error = errorOf("load_mask_shape", [&](ARGS) {
    Tensor offsets = arange(0, 16);
    line = __LINE__ + 1;
    load(x + offsets, arange(0, 32) < n);
  });
  EXPECT_TRUE(reported(error, "load_mask_shape", line,
                       "load mask of shape [32] does not broadcast to the "
                       "pointers' shape [16]"));
  error = errorOf("store_mask_shape", [&](ARGS) {
    Tensor offsets = arange(0, 16);
    line = __LINE__ + 1;
    store(x + offsets, 1.0, arange(0, 32) < n);
  });
  EXPECT_TRUE(reported(error, "store_mask_shape", line,
                       "store mask of shape [32] does not broadcast to the "
                       "pointers' shape [16]"));
  error = errorOf("scalar_ptr_block_mask", [&](ARGS) {
    line = __LINE__ + 1;
    load(x, arange(0, 16) < n);
  });
  EXPECT_TRUE(reported(error, "scalar_ptr_block_mask", line,
                       "load mask of shape [16] does not broadcast to the "
                       "pointers' shape []"));
}

TEST_F(TraceErrorTest, OtherAndStoredValueShape) {
  std::string error = errorOf("other_shape", [&](ARGS) {
    Tensor offsets = arange(0, 16);
    Tensor other = full({32}, 0.0, DType::F32);
    line = __LINE__ + 1;
    load(x + offsets, offsets < n, other);
  });
  EXPECT_TRUE(reported(error, "other_shape", line,
                       "load 'other' of shape [32] does not broadcast to "
                       "the pointers' shape [16]"));
  error = errorOf("value_shape", [&](ARGS) {
    Tensor offsets = arange(0, 16);
    Tensor value = full({32}, 0.0, DType::F32);
    line = __LINE__ + 1;
    store(x + offsets, value);
  });
  EXPECT_TRUE(reported(error, "value_shape", line,
                       "stored value of shape [32] does not broadcast to "
                       "the pointers' shape [16]"));
  error = errorOf("block_into_scalar", [&](ARGS) {
    line = __LINE__ + 1;
    store(x, arange(0, 16));
  });
  EXPECT_TRUE(reported(error, "block_into_scalar", line,
                       "stored value of shape [16] does not broadcast to "
                       "the pointers' shape []"));
}

TEST_F(TraceErrorTest, StoredValueMustNotBePointers) {
  std::string error = errorOf("store_ptrs", [&](ARGS) {
    Tensor offsets = arange(0, 16);
    line = __LINE__ + 1;
    store(y + offsets, x + offsets);
  });
  EXPECT_TRUE(reported(error, "store_ptrs", line,
                       "stored value must be numbers, not pointers (got "
                       "tensor<16x!blk.ptr<f32>>)"));
  error = errorOf("other_ptrs", [&](ARGS) {
    Tensor offsets = arange(0, 16);
    line = __LINE__ + 1;
    load(x + offsets, offsets < n, x);
  });
  EXPECT_TRUE(reported(error, "other_ptrs", line,
                       "load 'other' must be numbers, not pointers (got "
                       "!blk.ptr<f32>)"));
}

//===----------------------------------------------------------------------===//
// Reductions and maths
//===----------------------------------------------------------------------===//

TEST_F(TraceErrorTest, ReduceScalar) {
  std::string error = errorOf("max_scalar", [&](ARGS) {
    line = __LINE__ + 1;
    max(n, 0);
  });
  EXPECT_TRUE(reported(error, "max_scalar", line,
                       "max reduces a block, got a scalar of type i32"));
}

TEST_F(TraceErrorTest, ReducePointers) {
  std::string error = errorOf("sum_ptrs", [&](ARGS) {
    Tensor ptrs = x + arange(0, 16);
    line = __LINE__ + 1;
    sum(ptrs, 0);
  });
  EXPECT_TRUE(reported(error, "sum_ptrs", line, "sum cannot reduce pointers"));
}

TEST_F(TraceErrorTest, ReduceAxis) {
  std::string error = errorOf("min_axis", [&](ARGS) {
    Tensor r = arange(0, 16);
    line = __LINE__ + 1;
    min(r, 1);
  });
  EXPECT_TRUE(reported(error, "min_axis", line,
                       "min: axis 1 is out of range for a rank-1 block "
                       "(-1..0)"));
  error = errorOf("sum_axis_2d", [&](ARGS) {
    Tensor tile = arange(0, 16).expand_dims(0);
    line = __LINE__ + 1;
    sum(tile, 2);
  });
  EXPECT_TRUE(reported(error, "sum_axis_2d", line,
                       "sum: axis 2 is out of range for a rank-2 block "
                       "(-2..1)"));
}

TEST_F(TraceErrorTest, ReduceNegativeAxisIsReportedAsWritten) {
  std::string error = errorOf("sum_negative", [&](ARGS) {
    Tensor r = arange(0, 16);
    line = __LINE__ + 1;
    sum(r, -2);
  });
  EXPECT_TRUE(reported(error, "sum_negative", line,
                       "sum: axis -2 is out of range for a rank-1 block "
                       "(-1..0)"));
}

TEST_F(TraceErrorTest, MathOnPointers) {
  struct Case {
    const char *name;
    std::function<Tensor(Tensor)> apply;
  } cases[] = {
      {"exp", [](Tensor p) { return exp(p); }},
      {"exp2", [](Tensor p) { return exp2(p); }},
      {"log", [](Tensor p) { return log(p); }},
      {"sqrt", [](Tensor p) { return sqrt(p); }},
      {"rsqrt", [](Tensor p) { return rsqrt(p); }},
      {"abs", [](Tensor p) { return abs(p); }},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    // The location is that of the call in the table above.
    std::string error =
        errorOf(std::string("math_") + c.name, [&](ARGS) { c.apply(x); });
    EXPECT_TRUE(contains(error, "kernel 'math_" + std::string(c.name) + "'"))
        << error;
    EXPECT_TRUE(
        contains(error, std::string(c.name) + " is not defined on pointers"))
        << error;
  }
  // With the call written in the kernel, the kernel's line.
  std::string error = errorOf("exp_ptr", [&](ARGS) {
    line = __LINE__ + 1;
    exp(x);
  });
  EXPECT_TRUE(
      reported(error, "exp_ptr", line, "exp is not defined on pointers"));
  error = errorOf("abs_ptr", [&](ARGS) {
    line = __LINE__ + 1;
    abs(x + arange(0, 16));
  });
  EXPECT_TRUE(
      reported(error, "abs_ptr", line, "abs is not defined on pointers"));
}

TEST_F(TraceErrorTest, WhereCondition) {
  std::string error = errorOf("where_cond", [&](ARGS) {
    Tensor offsets = arange(0, 16);
    line = __LINE__ + 1;
    where(offsets, 1, 0);
  });
  EXPECT_TRUE(reported(error, "where_cond", line,
                       "where: the condition must be i1 (a comparison), got "
                       "tensor<16xi32>"));
}

TEST_F(TraceErrorTest, WhereShapes) {
  std::string error = errorOf("where_shape", [&](ARGS) {
    Tensor mask = arange(0, 16) < n;
    line = __LINE__ + 1;
    where(mask, arange(0, 32), 0);
  });
  EXPECT_TRUE(reported(error, "where_shape", line,
                       "where: condition [16] and values [32], [] cannot be "
                       "broadcast together"));
}

TEST_F(TraceErrorTest, WherePointerWithOtherType) {
  std::string error = errorOf("where_ptr_number", [&](ARGS) {
    Tensor offsets = arange(0, 16);
    line = __LINE__ + 1;
    where(offsets < n, x + offsets, 0);
  });
  EXPECT_TRUE(reported(error, "where_ptr_number", line,
                       "where: pointer values need pointers of one type on "
                       "both sides, got tensor<16x!blk.ptr<f32>> and a C++ "
                       "number"));
  error = errorOf("where_ptr_ptr", [&](ARGS) {
    Tensor offsets = arange(0, 16);
    line = __LINE__ + 1;
    where(offsets < n, x + offsets, y + offsets);
  });
  EXPECT_TRUE(reported(error, "where_ptr_ptr", line,
                       "where: pointer values need pointers of one type on "
                       "both sides, got tensor<16x!blk.ptr<f32>> and "
                       "tensor<16x!blk.ptr<i32>>"));
}

TEST_F(TraceErrorTest, CastPointers) {
  std::string error = errorOf("cast_ptr", [&](ARGS) {
    line = __LINE__ + 1;
    cast(x, DType::F16);
  });
  EXPECT_TRUE(
      reported(error, "cast_ptr", line, "cannot convert pointers to f16"));
  error = errorOf("to_ptr", [&](ARGS) {
    line = __LINE__ + 1;
    (y + arange(0, 16)).to(DType::I64);
  });
  EXPECT_TRUE(
      reported(error, "to_ptr", line, "cannot convert pointers to i64"));
}

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

TEST_F(TraceErrorTest, ForRangeBounds) {
  std::string error = errorOf("bound_real", [&](ARGS) {
    line = __LINE__ + 1;
    for_range(0, 1.5, 1, [&](Int i) {});
  });
  EXPECT_TRUE(reported(error, "bound_real", line,
                       "for_range bounds and step must be integer scalars"));
  error = errorOf("bound_float", [&](ARGS) {
    line = __LINE__ + 1;
    for_range(f, n, 1, [&](Int i) {});
  });
  EXPECT_TRUE(reported(error, "bound_float", line,
                       "for_range bounds and step must be integer scalars"));
  error = errorOf("bound_block", [&](ARGS) {
    Tensor offsets = arange(0, 16);
    line = __LINE__ + 1;
    for_range(0, n, offsets, [&](Int i) {});
  });
  EXPECT_TRUE(reported(error, "bound_block", line,
                       "for_range bounds and step must be integer scalars"));
  error = errorOf("bound_ptr", [&](ARGS) {
    line = __LINE__ + 1;
    for_range(0, x, 1, [&](Int i) {});
  });
  EXPECT_TRUE(reported(error, "bound_ptr", line,
                       "for_range bounds and step must be integer scalars"));
}

// A step known at trace time must be positive: a literal, or an argument
// the launch specialized as 0 (kIsZero), which at run time would loop
// forever.
TEST_F(TraceErrorTest, ForRangeStepNotPositive) {
  std::string error = errorOf("step_literal", [&](ARGS) {
    line = __LINE__ + 1;
    for_range(0, n, 0, [&](Int i) {});
  });
  EXPECT_TRUE(reported(error, "step_literal", line,
                       "for_range step must be positive, got 0"));
  auto kernel = jit("step_zero", [&](Ptr<float> x, Int n, Int step) {
    line = __LINE__ + 1;
    for_range(0, n, step, [&](Int i) { store(x + i, 1.0f); });
  });
  SpecializationKey key = makeKey({DType::F32, DType::I32, DType::I32});
  key.divisibility = {16, 16, kIsZero};
  error = traceError(*kernel, key);
  EXPECT_TRUE(reported(error, "step_zero", line,
                       "for_range step must be positive, got 0"));
  key.divisibility = {16, 16, 1};
  EXPECT_TRUE(bool(traceOk(*kernel, key)));
}

TEST_F(TraceErrorTest, ForRangeBadBoundKeepsResultCount) {
  size_t results = 99;
  std::string error = errorOf("bound_results", [&](ARGS) {
    Tensor acc = full({16}, 0, DType::F32);
    line = __LINE__ + 1;
    std::vector<Tensor> r = for_range(
        0, 2.5, 1, {acc, acc}, [&](Int i, std::vector<Tensor> c) { return c; });
    results = r.size();
    // Using the (failed) results must be harmless.
    store(x + arange(0, 16), r[0] + r[1]);
  });
  EXPECT_TRUE(reported(error, "bound_results", line,
                       "for_range bounds and step must be integer scalars"));
  EXPECT_EQ(results, 2u);
}

TEST_F(TraceErrorTest, ForRangeCarriedCount) {
  std::string error = errorOf("carried_count", [&](ARGS) {
    Tensor acc = full({16}, 0, DType::F32);
    line = __LINE__ + 1;
    for_range(0, n, 1, {acc},
              [&](Int i, std::vector<Tensor> c) -> std::vector<Tensor> {
                return {c[0], c[0]};
              });
  });
  EXPECT_TRUE(reported(error, "carried_count", line,
                       "for_range body returned 2 values but the loop "
                       "carries 1"));
}

TEST_F(TraceErrorTest, ForRangeCarriedType) {
  std::string error = errorOf("carried_type", [&](ARGS) {
    Tensor acc = full({16}, 0, DType::F32);
    line = __LINE__ + 1;
    for_range(0, n, 1, {n, acc},
              [&](Int i, std::vector<Tensor> c) -> std::vector<Tensor> {
                return {c[0], c[1].to(DType::F16)};
              });
  });
  EXPECT_TRUE(reported(error, "carried_type", line,
                       "for_range carried value #1 changes type from "
                       "tensor<16xf32> to tensor<16xf16>"));
  error = errorOf("carried_shape", [&](ARGS) {
    Tensor acc = full({16}, 0, DType::F32);
    line = __LINE__ + 1;
    for_range(0, n, 1, {acc},
              [&](Int i, std::vector<Tensor> c) -> std::vector<Tensor> {
                return {c[0].expand_dims(0)};
              });
  });
  EXPECT_TRUE(reported(error, "carried_shape", line,
                       "for_range carried value #0 changes type from "
                       "tensor<16xf32> to tensor<1x16xf32>"));
}

TEST_F(TraceErrorTest, ErrorInsideLoopBody) {
  int loopLine = 0;
  std::vector<Tensor> results;
  std::string error = errorOf("body_error", [&](ARGS) {
    Tensor acc = full({16}, 0, DType::F32);
    loopLine = __LINE__ + 1;
    results =
        for_range(0, n, 1, {acc},
                  [&](Int i, std::vector<Tensor> c) -> std::vector<Tensor> {
                    line = __LINE__ + 1;
                    Tensor bad = c[0] + arange(0, 32);
                    return {bad};
                  });
    store(x + arange(0, 16), results[0]);
  });
  EXPECT_TRUE(reported(error, "body_error", line,
                       "shape mismatch in '+': [16] and [32]"));
  EXPECT_NE(line, loopLine);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_FALSE(results[0].valid());
}

//===----------------------------------------------------------------------===//
// After an error
//===----------------------------------------------------------------------===//

TEST_F(TraceErrorTest, OnlyTheFirstErrorIsReported) {
  int second = 0;
  std::string error = errorOf("two_errors", [&](ARGS) {
    line = __LINE__ + 1;
    arange(0, 3);
    second = __LINE__ + 1;
    program_id(7);
  });
  EXPECT_TRUE(reported(error, "two_errors", line,
                       "arange(0, 3): the length 3 must be a power of two"));
  EXPECT_FALSE(contains(error, "program_id")) << error;
  EXPECT_FALSE(contains(error, ":" + std::to_string(second) + ":")) << error;
}

TEST_F(TraceErrorTest, FailedValuesAreHarmlessLater) {
  int valid = -1, bodyRuns = 0;
  size_t carried1 = 0, carried2 = 0, carried3 = 0;
  std::string error = errorOf("cascade", [&](ARGS) {
    line = __LINE__ + 1;
    Tensor bad = x * 2;
    Tensor offsets = arange(0, 16);
    Tensor mask = offsets < n;
    Tensor ptrs = x + offsets;
    std::vector<Tensor> out = {bad + 1,
                               1 + bad,
                               bad + bad,
                               offsets * bad,
                               -bad,
                               !bad,
                               bad < 1,
                               bad == offsets,
                               maximum(bad, 1),
                               minimum(offsets, bad),
                               bad.expand_dims(0),
                               bad.broadcast_to({16}),
                               bad.to(DType::F16),
                               cast(bad, DType::F32),
                               load(bad),
                               load(bad, mask),
                               load(ptrs, bad),
                               load(ptrs, mask, bad),
                               load(bad, mask, 0.0),
                               max(bad, 0),
                               min(bad, 0),
                               sum(bad, 0),
                               exp(bad),
                               exp2(bad),
                               log(bad),
                               sqrt(bad),
                               rsqrt(bad),
                               abs(bad),
                               where(bad, 1, 0),
                               where(mask, bad, 0),
                               where(mask, 0, bad),
                               x + bad,
                               bad + x,
                               bad.expand_dims(0).expand_dims(0) +
                                   bad.broadcast_to({4, 4})};
    store(bad, 1.0);
    store(ptrs, bad);
    store(ptrs, 1.0, bad);
    store(bad, bad, bad);
    for_range(0, bad, 1, [&](Int i) { ++bodyRuns; });
    for_range(bad, n, 1, [&](Int i) { ++bodyRuns; });
    for_range(0, n, bad, [&](Int i) { ++bodyRuns; });
    std::vector<Tensor> r1 =
        for_range(0, n, 1, {bad}, [&](Int i, std::vector<Tensor> c) {
          ++bodyRuns;
          return c;
        });
    std::vector<Tensor> r2 =
        for_range(0, n, 1, {offsets, mask},
                  [&](Int i, std::vector<Tensor> c) -> std::vector<Tensor> {
                    return {bad, c[1]};
                  });
    std::vector<Tensor> r3 =
        for_range(0, bad, 1, {offsets, offsets, offsets},
                  [&](Int i, std::vector<Tensor> c) { return c; });
    carried1 = r1.size();
    carried2 = r2.size();
    carried3 = r3.size();
    for (const std::vector<Tensor> *r : {&r1, &r2, &r3})
      for (const Tensor &t : *r)
        out.push_back(t + 1);
    valid = 0;
    for (const Tensor &t : out)
      valid += t.valid();
  });
  EXPECT_TRUE(reported(error, "cascade", line,
                       "operator * is not defined on pointers"));
  EXPECT_EQ(valid, 0);
  EXPECT_EQ(carried1, 1u);
  EXPECT_EQ(carried2, 2u);
  EXPECT_EQ(carried3, 3u);
}

TEST_F(TraceErrorTest, UsingAnEmptyTensorIsAnError) {
  std::string error = errorOf("empty_store", [&](ARGS) {
    Tensor never;
    line = __LINE__ + 1;
    store(x, never);
  });
  EXPECT_TRUE(reported(error, "empty_store", line,
                       "use of an empty Tensor (one that was never assigned "
                       "a value)"));
  error = errorOf("empty_operand", [&](ARGS) {
    Tensor never;
    line = __LINE__ + 1;
    Tensor twice = never * 2;
    store(x, twice);
  });
  EXPECT_TRUE(reported(error, "empty_operand", line, "use of an empty Tensor"));
  error = errorOf("empty_yield", [&](ARGS) {
    line = __LINE__ + 1;
    for_range(0, n, 1, {n}, [&](Int i, std::vector<Tensor> c) {
      return std::vector<Tensor>{Tensor()};
    });
  });
  EXPECT_TRUE(reported(error, "empty_yield", line, "use of an empty Tensor"));
}

TEST_F(TraceErrorTest, ValueEscapingItsLoopIsInvalidIR) {
  std::string error = errorOf("escape", [&](ARGS) {
    Tensor inner;
    for_range(0, n, 1, [&](Int i) { inner = i * 2; });
    line = __LINE__ + 1;
    store(y, inner);
  });
  EXPECT_TRUE(contains(error, "kernel 'escape' traced to invalid IR")) << error;
  EXPECT_TRUE(contains(error, "does not dominate")) << error;
  // The verifier's message, at the user's line, as trace-time errors name
  // it.
  EXPECT_TRUE(
      contains(error, "TraceErrorTest.cpp:" + std::to_string(line) + ": "))
      << error;
}

//===----------------------------------------------------------------------===//
// Specialization keys that do not fit the kernel
//===----------------------------------------------------------------------===//

class KeyCheckTest : public TraceFixture {
protected:
  KeyCheckTest() {
    kernel =
        jit("keyed",
            [this](Ptr<float> x, Ptr<> y, Int n, Constexpr BLOCK) { ++runs; },
            {"x", "y", "n", "BLOCK"});
  }
  SpecializationKey good() {
    return makeKey({DType::F32, DType::F16, DType::I32}, {128});
  }
  /// The error of tracing with `key`, which checkSpecialization reports
  /// too; the body must not have run.
  std::string error(const SpecializationKey &key) {
    int before = runs;
    std::string text = traceError(*kernel, key);
    EXPECT_EQ(runs, before) << "the body ran for a bad key";
    EXPECT_EQ(optionsError(key), text);
    return text;
  }
  /// The error of checkSpecialization for `key` (options are not the
  /// trace's business: it never sees them).
  std::string optionsError(const SpecializationKey &key) {
    llvm::Error direct = checkSpecialization(*kernel, key);
    EXPECT_TRUE(bool(direct)) << "checkSpecialization accepted the key";
    return direct ? llvm::toString(std::move(direct)) : "";
  }
  /// checkSpecialization rejects values of `field` that are not a power of
  /// two in 1..16, naming the option `name`.
  void expectPowerOfTwoUpTo16(int CompileOptions::*field,
                              const std::string &name) {
    for (int value : {0, -2, 3, 32}) {
      SCOPED_TRACE(value);
      SpecializationKey key = good();
      key.options.*field = value;
      EXPECT_EQ(optionsError(key), "kernel 'keyed': " + name +
                                       " must be a power of two in 1..16, "
                                       "got " +
                                       std::to_string(value));
    }
  }
  std::shared_ptr<KernelDef> kernel;
  int runs = 0;
};

TEST_F(KeyCheckTest, GoodKeyTraces) {
  llvm::Error ok = checkSpecialization(*kernel, good());
  EXPECT_FALSE(bool(ok)) << llvm::toString(std::move(ok));
  auto module = traceOk(*kernel, good());
  EXPECT_TRUE(module);
  EXPECT_EQ(runs, 1);
  // Ptr<> takes any element type.
  SpecializationKey key = good();
  key.argTypes[1] = DType::I8;
  EXPECT_TRUE(traceOk(*kernel, key));
}

TEST_F(KeyCheckTest, WrongArgumentCount) {
  SpecializationKey key = good();
  key.argTypes.pop_back();
  EXPECT_EQ(error(key), "kernel 'keyed': expects 3 runtime arguments, got 2");
  key = good();
  key.argTypes.push_back(DType::I32);
  EXPECT_EQ(error(key), "kernel 'keyed': expects 3 runtime arguments, got 4");
  key.argTypes.clear();
  EXPECT_EQ(error(key), "kernel 'keyed': expects 3 runtime arguments, got 0");
}

TEST_F(KeyCheckTest, WrongTypeForTypedParameter) {
  SpecializationKey key = good();
  key.argTypes[0] = DType::F16;
  EXPECT_EQ(error(key),
            "kernel 'keyed': argument 'x' expects a pointer to f32, got f16");
  key = good();
  key.argTypes[2] = DType::I64;
  EXPECT_EQ(error(key),
            "kernel 'keyed': argument 'n' expects a scalar i32, got i64");
}

TEST_F(KeyCheckTest, UnnamedParametersAreNumbered) {
  auto unnamed = jit("unnamed", [](Ptr<float> a, Int64 b) {});
  std::string text = traceError(*unnamed, makeKey({DType::F32, DType::I32}));
  EXPECT_EQ(text,
            "kernel 'unnamed': argument 'arg1' expects a scalar i64, got i32");
  auto float_ = jit("floaty", [](Float v) {});
  EXPECT_EQ(traceError(*float_, makeKey({DType::F64})),
            "kernel 'floaty': argument 'arg0' expects a scalar f32, got f64");
}

TEST_F(KeyCheckTest, NumWarps) {
  for (int warps : {0, -4, 3, 12, 64}) {
    SCOPED_TRACE(warps);
    SpecializationKey key = good();
    key.options.numWarps = warps;
    EXPECT_EQ(optionsError(key),
              "kernel 'keyed': num_warps must be a power of two "
              "in 1..32, got " +
                  std::to_string(warps));
  }
  for (int warps : {1, 2, 4, 8, 16, 32}) {
    SpecializationKey key = good();
    key.options.numWarps = warps;
    llvm::Error ok = checkSpecialization(*kernel, key);
    EXPECT_FALSE(bool(ok)) << warps << ": " << llvm::toString(std::move(ok));
  }
}

TEST_F(KeyCheckTest, NumStages) {
  for (int stages : {0, -1, 9}) {
    SCOPED_TRACE(stages);
    SpecializationKey key = good();
    key.options.numStages = stages;
    EXPECT_EQ(optionsError(key),
              "kernel 'keyed': num_stages must be in 1..8, got " +
                  std::to_string(stages));
  }
  for (int stages : {1, 3, 8}) {
    SpecializationKey key = good();
    key.options.numStages = stages;
    llvm::Error ok = checkSpecialization(*kernel, key);
    EXPECT_FALSE(bool(ok)) << stages << ": " << llvm::toString(std::move(ok));
  }
}

TEST_F(KeyCheckTest, NumCTAs) {
  expectPowerOfTwoUpTo16(&CompileOptions::numCTAs, "num_ctas");
  for (int cluster : {1, 2, 16}) {
    SpecializationKey key = good();
    key.options.numCTAs = cluster;
    llvm::Error ok = checkSpecialization(*kernel, key);
    EXPECT_FALSE(bool(ok)) << cluster << ": " << llvm::toString(std::move(ok));
  }
}

TEST_F(KeyCheckTest, ProgramsPerCTA) {
  expectPowerOfTwoUpTo16(&CompileOptions::programsPerCTA, "programs_per_cta");
  SpecializationKey key = good();
  key.options.numWarps = 8;
  key.options.programsPerCTA = 8;
  EXPECT_EQ(optionsError(key),
            "kernel 'keyed': programs_per_cta = 8 of num_warps = 8 make a CTA "
            "of 2048 threads; a CTA has at most 1024");
  key.options.numWarps = 1;
  key.options.numCTAs = 2;
  key.options.programsPerCTA = 2;
  EXPECT_EQ(optionsError(key),
            "kernel 'keyed': programs_per_cta = 2 and num_ctas = 2: a program "
            "spread over a cluster has its CTAs to itself (use one of the "
            "two)");
  for (auto [warps, programs] :
       {std::pair(1, 1), std::pair(1, 16), std::pair(4, 8), std::pair(32, 1)}) {
    SpecializationKey ok = good();
    ok.options.numWarps = warps;
    ok.options.programsPerCTA = programs;
    llvm::Error error = checkSpecialization(*kernel, ok);
    EXPECT_FALSE(bool(error))
        << warps << "x" << programs << ": " << llvm::toString(std::move(error));
  }
}

TEST_F(KeyCheckTest, TargetArch) {
  SpecializationKey key = good();
  key.options.target = Target::cuda(91);
  EXPECT_NE(optionsError(key).find("kernel 'keyed': sm_91"), std::string::npos)
      << optionsError(key);
  key.options.target = Target{TargetKind::CPU, 90};
  EXPECT_EQ(optionsError(key),
            "kernel 'keyed': the CPU target takes no sm arch, got sm_90");
  key.options.target = Target::cuda(90);
  llvm::Error ok = checkSpecialization(*kernel, key);
  EXPECT_FALSE(bool(ok)) << llvm::toString(std::move(ok));
}

TEST_F(KeyCheckTest, ConstexprCount) {
  SpecializationKey key = good();
  key.constexprs.clear();
  EXPECT_EQ(error(key), "kernel 'keyed': expects 1 constexpr values, got 0");
  key.constexprs = {1, 2};
  EXPECT_EQ(error(key), "kernel 'keyed': expects 1 constexpr values, got 2");
}

} // namespace

//===----------------------------------------------------------------------===//
// Values a block cannot hold (the reliability issue)
//===----------------------------------------------------------------------===//

// -INFINITY as the `other` of an i32 load once became 0 silently, changing
// what a max or sum over the masked lanes gives.
TEST_F(TraceErrorTest, LoadOtherNotRepresentableInIntegerPointee) {
  std::string error = errorOf("int_other_inf", [&](ARGS) {
    Tensor offs = arange(0, 8);
    line = __LINE__ + 1;
    load(y + offs, offs < n, -INFINITY);
  });
  EXPECT_TRUE(reported(error, "int_other_inf", line,
                       "load 'other' -inf is not representable as i32"));
}

TEST_F(TraceErrorTest, LoadOtherFractionIntoIntegerPointee) {
  std::string error = errorOf("int_other_frac", [&](ARGS) {
    Tensor offs = arange(0, 8);
    line = __LINE__ + 1;
    load(y + offs, offs < n, 2.5);
  });
  EXPECT_TRUE(reported(error, "int_other_frac", line,
                       "load 'other' 2.5 is not representable as i32"));
}

TEST_F(TraceErrorTest, StoredIntegerOutOfRange) {
  std::string error = errorOf("int_store_big", [&](ARGS) {
    Tensor offs = arange(0, 8);
    line = __LINE__ + 1;
    store(y + offs, int64_t(1) << 40);
  });
  EXPECT_TRUE(reported(error, "int_store_big", line,
                       "stored value 1099511627776 is not representable as "
                       "i32"));
}

TEST_F(TraceErrorTest, IntegerOtherThatFitsIsFine) {
  auto kernel = jit("int_other_ok", [](Ptr<int32_t> y, Int n) {
    Tensor offs = arange(0, 8);
    store(y + offs, load(y + offs, offs < n, INT32_MIN), offs < n);
  });
  auto module = kernel->trace(context, {DType::I32, DType::I32}, {}, 0);
  EXPECT_TRUE(bool(module)) << llvm::toString(module.takeError());
}

TEST_F(TraceErrorTest, ArangeLargerThanTheBlockLimit) {
  std::string error = errorOf("huge_arange", [&](ARGS) {
    line = __LINE__ + 1;
    arange(0, int64_t(1) << 25);
  });
  EXPECT_TRUE(reported(error, "huge_arange", line,
                       "arange(0, 33554432): a block holds at most 16777216 "
                       "(2^24) elements"));
}

TEST_F(TraceErrorTest, FullLargerThanTheBlockLimit) {
  std::string error = errorOf("huge_full", [&](ARGS) {
    line = __LINE__ + 1;
    full({int64_t(1) << 13, int64_t(1) << 12}, 0.0, DType::F32);
  });
  EXPECT_TRUE(reported(error, "huge_full", line,
                       "full: a block holds at most 16777216 (2^24) "
                       "elements, got [8192, 4096]"));
}

//===----------------------------------------------------------------------===//
// argmax, argmin
//===----------------------------------------------------------------------===//

TEST_F(TraceErrorTest, ArgReduceScalar) {
  std::string error = errorOf("argmax_scalar", [&](ARGS) {
    line = __LINE__ + 1;
    argmax(f, 0);
  });
  EXPECT_TRUE(reported(error, "argmax_scalar", line,
                       "argmax reduces a block, got a scalar of type f32"));
  // Without an axis as well.
  error = errorOf("argmin_scalar", [&](ARGS) {
    line = __LINE__ + 1;
    argmin(n);
  });
  EXPECT_TRUE(reported(error, "argmin_scalar", line,
                       "argmin reduces a block, got a scalar of type i32"));
}

TEST_F(TraceErrorTest, ArgReducePointersAndBooleans) {
  std::string error = errorOf("argmax_ptrs", [&](ARGS) {
    Tensor ptrs = x + arange(0, 16);
    line = __LINE__ + 1;
    argmax(ptrs, 0);
  });
  EXPECT_TRUE(
      reported(error, "argmax_ptrs", line, "argmax cannot reduce pointers"));
  error = errorOf("argmin_i1", [&](ARGS) {
    Tensor flags = arange(0, 16) < n;
    line = __LINE__ + 1;
    argmin(flags, 0, true);
  });
  EXPECT_TRUE(reported(error, "argmin_i1", line,
                       "argmin of an i1 block: convert it first "
                       "(x.to(DType::I32))"));
  error = errorOf("argmax_i1_2d", [&](ARGS) {
    Tensor flags = (arange(0, 16) < n).expand_dims(0);
    line = __LINE__ + 1;
    argmax(flags);
  });
  EXPECT_TRUE(reported(error, "argmax_i1_2d", line,
                       "argmax of an i1 block: convert it first"));
}

TEST_F(TraceErrorTest, ArgReduceAxis) {
  std::string error = errorOf("argmax_axis", [&](ARGS) {
    Tensor r = arange(0, 16);
    line = __LINE__ + 1;
    argmax(r, 1);
  });
  EXPECT_TRUE(reported(error, "argmax_axis", line,
                       "argmax: axis 1 is out of range for a rank-1 block "
                       "(-1..0)"));
  error = errorOf("argmin_axis_2d", [&](ARGS) {
    Tensor tile = arange(0, 16).expand_dims(0);
    line = __LINE__ + 1;
    argmin(tile, -3, true);
  });
  EXPECT_TRUE(reported(error, "argmin_axis_2d", line,
                       "argmin: axis -3 is out of range for a rank-2 block "
                       "(-2..1)"));
}

//===----------------------------------------------------------------------===//
// Scans
//===----------------------------------------------------------------------===//

TEST_F(TraceErrorTest, ScanScalar) {
  std::string error = errorOf("cumsum_scalar", [&](ARGS) {
    line = __LINE__ + 1;
    cumsum(n);
  });
  EXPECT_TRUE(reported(error, "cumsum_scalar", line,
                       "cumsum scans a block, got a scalar of type i32"));
}

TEST_F(TraceErrorTest, ScanPointers) {
  std::string error = errorOf("cumprod_ptrs", [&](ARGS) {
    Tensor ptrs = x + arange(0, 16);
    line = __LINE__ + 1;
    cumprod(ptrs);
  });
  EXPECT_TRUE(
      reported(error, "cumprod_ptrs", line, "cumprod cannot scan pointers"));
}

TEST_F(TraceErrorTest, ScanAxis) {
  std::string error = errorOf("cumsum_axis", [&](ARGS) {
    Tensor tile = arange(0, 16).expand_dims(0);
    line = __LINE__ + 1;
    cumsum(tile, -3);
  });
  EXPECT_TRUE(reported(error, "cumsum_axis", line,
                       "cumsum: axis -3 is out of range for a rank-2 block "
                       "(-2..1)"));
}

TEST_F(TraceErrorTest, ScanCombineReturnsAnotherType) {
  std::string error = errorOf("scan_type", [&](ARGS) {
    Tensor r = arange(0, 16);
    line = __LINE__ + 1;
    associative_scan(r, 0,
                     [](Tensor a, Tensor b) { return (a + b).to(DType::F32); });
  });
  EXPECT_TRUE(reported(error, "scan_type", line,
                       "associative_scan: the combine function must return "
                       "a i32 scalar (the type of its operands), got f32"));
}

TEST_F(TraceErrorTest, ScanCombineReturnsABlock) {
  std::string error = errorOf("scan_block", [&](ARGS) {
    Tensor r = arange(0, 16);
    line = __LINE__ + 1;
    associative_scan(r, 0, [&](Tensor a, Tensor) { return a + r; });
  });
  EXPECT_TRUE(reported(error, "scan_block", line,
                       "associative_scan: the combine function must return "
                       "a i32 scalar (the type of its operands), got "
                       "tensor<16xi32>"));
}

TEST_F(TraceErrorTest, ScanCombineUsesABlockOrALoad) {
  std::string error = errorOf("scan_uses_block", [&](ARGS) {
    Tensor r = arange(0, 16);
    line = __LINE__ + 1;
    associative_scan(r, 0,
                     [&](Tensor a, Tensor b) { return a + sum(r, 0) + b; });
  });
  EXPECT_TRUE(reported(error, "scan_uses_block", line,
                       "associative_scan: the combine function may only "
                       "compute on its two scalar operands"));
  error = errorOf("scan_loads", [&](ARGS) {
    Tensor r = arange(0, 16);
    line = __LINE__ + 1;
    associative_scan(r, 0, [&](Tensor a, Tensor b) { return a + load(y) + b; });
  });
  EXPECT_TRUE(reported(error, "scan_loads", line,
                       "associative_scan: the combine function may only "
                       "compute on its two scalar operands"));
}

TEST_F(TraceErrorTest, ScanCombineErrorNamesItsOwnLine) {
  std::string error = errorOf("scan_inner_error", [&](ARGS) {
    Tensor r = arange(0, 16);
    associative_scan(r, 0, [&](Tensor a, Tensor b) {
      line = __LINE__ + 1;
      return a + sum(arange(0, 100), 0) + b;
    });
  });
  // The first error is the combine's own, at its line.
  EXPECT_TRUE(reported(error, "scan_inner_error", line,
                       "arange(0, 100): the length 100 must be a power of "
                       "two"));
}

TEST_F(TraceErrorTest, ScanWithoutCombine) {
  std::string error = errorOf("scan_no_combine", [&](ARGS) {
    Tensor r = arange(0, 16);
    line = __LINE__ + 1;
    associative_scan(r, 0, nullptr);
  });
  EXPECT_TRUE(reported(error, "scan_no_combine", line,
                       "associative_scan: no combine function"));
}
