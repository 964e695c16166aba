//===- TraceTest.cpp - DSL kernels traced into blk IR ---------------------===//
//
// Each test traces a small kernel with jit(...) and KernelDef::trace and checks
// the IR it produced: which ops, their types and shapes and attributes.
//
//===----------------------------------------------------------------------===//
#include "tests/unit/TraceTestUtil.h"

#include <cmath>
#include <functional>
#include <map>
#include <set>

using namespace mlir;
using namespace blockjit;
using namespace blockjit::test;

namespace {

using TraceTest = TraceFixture;

/// The printed values of the arith.constant ops ("2.000000e+00 : f16").
std::vector<std::string> constants(ModuleOp module) {
  std::vector<std::string> values;
  for (auto op : opsOf<arith::ConstantOp>(module)) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << op.getValue();
    values.push_back(text);
  }
  return values;
}

bool hasConstant(ModuleOp module, std::string_view value) {
  for (const std::string &c : constants(module))
    if (c == value)
      return true;
  return false;
}

std::string dumpConstants(ModuleOp module) {
  std::string all;
  for (const std::string &c : constants(module))
    all += "[" + c + "] ";
  return all;
}

//===----------------------------------------------------------------------===//
// Kernel signature, specialization and module structure
//===----------------------------------------------------------------------===//

TEST_F(TraceTest, ModuleHoldsOneFuncNamedAfterTheKernel) {
  auto kernel = jit("empty_kernel", [](Ptr<float> x) {});
  auto module = traceOk(*kernel, makeKey({DType::F32}));
  ASSERT_TRUE(module);
  auto funcs = opsOf<func::FuncOp>(*module);
  ASSERT_EQ(funcs.size(), 1u);
  EXPECT_EQ(funcs[0].getSymName(), "empty_kernel");
  EXPECT_EQ(str(funcs[0].getFunctionType()), "(!blk.ptr<f32>) -> ()");
  // The body is just the return.
  auto &ops = funcs[0].getBody().front().getOperations();
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_TRUE(isa<func::ReturnOp>(ops.front()));
}

TEST_F(TraceTest, ParameterKindsAndTypes) {
  std::map<std::string, std::string> seen;
  int64_t blockSeen = 0, otherSeen = 0;
  auto kernel = jit("params",
                    [&](Ptr<float> a, Ptr<half> b, Ptr<bfloat16> c,
                        Ptr<int32_t> d, Ptr<> e, Int n, Constexpr BLOCK,
                        Int64 m, Float f, Constexpr OTHER) {
                      seen["a"] = str(a.type());
                      seen["b"] = str(b.type());
                      seen["c"] = str(c.type());
                      seen["d"] = str(d.type());
                      seen["e"] = str(e.type());
                      seen["n"] = str(n.type());
                      seen["m"] = str(m.type());
                      seen["f"] = str(f.type());
                      seen["a.pointer"] = a.isPointer() ? "yes" : "no";
                      seen["n.pointer"] = n.isPointer() ? "yes" : "no";
                      seen["a.block"] = a.isBlock() ? "yes" : "no";
                      seen["a.element"] = str(a.elementType());
                      blockSeen = BLOCK;
                      otherSeen = OTHER;
                    },
                    {"a", "b", "c", "d", "e", "n", "BLOCK", "m", "f", "OTHER"});

  ASSERT_EQ(kernel->params().size(), 10u);
  EXPECT_EQ(kernel->numRuntimeParams(), 8u);
  EXPECT_EQ(kernel->params()[0].kind, ParamKind::Pointer);
  EXPECT_EQ(kernel->params()[0].dtype, DType::F32);
  EXPECT_EQ(kernel->params()[1].dtype, DType::F16);
  EXPECT_EQ(kernel->params()[2].dtype, DType::BF16);
  EXPECT_EQ(kernel->params()[3].dtype, DType::I32);
  EXPECT_EQ(kernel->params()[4].kind, ParamKind::Pointer);
  EXPECT_FALSE(kernel->params()[4].dtype.has_value()); // Ptr<AnyType>
  EXPECT_EQ(kernel->params()[5].kind, ParamKind::Scalar);
  EXPECT_EQ(kernel->params()[5].dtype, DType::I32);
  EXPECT_EQ(kernel->params()[6].kind, ParamKind::Constexpr);
  EXPECT_EQ(kernel->params()[6].name, "BLOCK");
  EXPECT_EQ(kernel->params()[7].dtype, DType::I64);
  EXPECT_EQ(kernel->params()[8].dtype, DType::F32);
  EXPECT_EQ(kernel->params()[9].kind, ParamKind::Constexpr);

  auto module =
      traceOk(*kernel, makeKey({DType::F32, DType::F16, DType::BF16, DType::I32,
                                DType::F64, DType::I32, DType::I64, DType::F32},
                               {256, 7}));
  ASSERT_TRUE(module);
  EXPECT_EQ(seen["a"], "!blk.ptr<f32>");
  EXPECT_EQ(seen["b"], "!blk.ptr<f16>");
  EXPECT_EQ(seen["c"], "!blk.ptr<bf16>");
  EXPECT_EQ(seen["d"], "!blk.ptr<i32>");
  EXPECT_EQ(seen["e"], "!blk.ptr<f64>"); // from the key
  EXPECT_EQ(seen["n"], "i32");
  EXPECT_EQ(seen["m"], "i64");
  EXPECT_EQ(seen["f"], "f32");
  EXPECT_EQ(seen["a.pointer"], "yes");
  EXPECT_EQ(seen["n.pointer"], "no");
  EXPECT_EQ(seen["a.block"], "no");
  EXPECT_EQ(seen["a.element"], "!blk.ptr<f32>");
  // Constexprs are handed over in parameter order and are not arguments.
  EXPECT_EQ(blockSeen, 256);
  EXPECT_EQ(otherSeen, 7);
  auto func = opsOf<func::FuncOp>(*module)[0];
  EXPECT_EQ(str(func.getFunctionType()),
            "(!blk.ptr<f32>, !blk.ptr<f16>, !blk.ptr<bf16>, !blk.ptr<i32>, "
            "!blk.ptr<f64>, i32, i64, f32) -> ()");
}

TEST_F(TraceTest, AnyTypePointerFollowsTheKey) {
  std::string loaded;
  auto kernel = jit(
      "any", [&](Ptr<> x) { loaded = str(load(x + arange(0, 16)).type()); });
  for (auto [dtype, expected] : {std::pair{DType::F32, "tensor<16xf32>"},
                                 std::pair{DType::F16, "tensor<16xf16>"},
                                 std::pair{DType::BF16, "tensor<16xbf16>"},
                                 std::pair{DType::I8, "tensor<16xi8>"},
                                 std::pair{DType::I64, "tensor<16xi64>"}}) {
    SCOPED_TRACE(std::string(dtypeName(dtype)));
    auto module = traceOk(*kernel, makeKey({dtype}));
    ASSERT_TRUE(module);
    EXPECT_EQ(loaded, expected);
  }
}

TEST_F(TraceTest, ConstexprValuesSpecializeTheTrace) {
  auto kernel = jit("cx", [](Ptr<float> x, Constexpr BLOCK) {
    store(x + arange(0, BLOCK), 1.0);
  });
  for (int64_t block : {16, 1024}) {
    auto module = traceOk(*kernel, makeKey({DType::F32}, {block}));
    ASSERT_TRUE(module);
    auto ranges = opsOf<blk::MakeRangeOp>(*module);
    ASSERT_EQ(ranges.size(), 1u);
    EXPECT_EQ(ranges[0].getStart(), 0u);
    EXPECT_EQ(int64_t(ranges[0].getEnd()), block);
    EXPECT_EQ(str(ranges[0].getType()),
              "tensor<" + std::to_string(block) + "xi32>");
  }
}

TEST_F(TraceTest, DivisibilityAttributesFollowTheKey) {
  auto kernel = jit("div", [](Ptr<float> x, Ptr<float> y, Int n, Int m) {});
  SpecializationKey key =
      makeKey({DType::F32, DType::F32, DType::I32, DType::I32});
  key.divisibility = {16, 1, 8, 2}; // x by 16, n by 8, m by 2
  auto module = traceOk(*kernel, key);
  ASSERT_TRUE(module);
  auto func = opsOf<func::FuncOp>(*module)[0];
  for (unsigned i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    Attribute attr = func.getArgAttr(i, "blk.divisibility");
    if (i == 1) {
      EXPECT_FALSE(attr);
      continue;
    }
    ASSERT_TRUE(attr);
    auto value = dyn_cast<IntegerAttr>(attr);
    ASSERT_TRUE(value);
    EXPECT_EQ(value.getInt(), key.divisibility[i]);
    EXPECT_TRUE(value.getType().isInteger(32));
  }

  key.divisibility.clear();
  module = traceOk(*kernel, key);
  ASSERT_TRUE(module);
  func = opsOf<func::FuncOp>(*module)[0];
  for (unsigned i = 0; i < 4; ++i)
    EXPECT_FALSE(func.getArgAttr(i, "blk.divisibility"));
}

// An integer specialized as 0 is traced as the constant: the parameter
// stays in the signature, unused, and what it multiplied folds away (a
// broadcast stride of 0 leaves a load the row loop does not change).
TEST_F(TraceTest, IntegersSpecializedAsZeroAreTheConstant) {
  auto kernel = jit("zero", [](Ptr<float> x, Int stride, Int n) {
    for_range(program_id(0), n, num_programs(0),
              [&](Int row) { store(x + row * stride + arange(0, 16), 1.0f); });
  });
  SpecializationKey key = makeKey({DType::F32, DType::I32, DType::I32});
  key.divisibility = {16, kIsZero, 16};
  auto module = traceOk(*kernel, key);
  ASSERT_TRUE(module);
  auto func = opsOf<func::FuncOp>(*module)[0];
  EXPECT_EQ(func.getNumArguments(), 3u);
  EXPECT_TRUE(func.getArgument(1).use_empty());
  EXPECT_FALSE(func.getArgument(2).use_empty());
  EXPECT_FALSE(func.getArgAttr(1, "blk.divisibility"));
  bool zero = false;
  for (auto constant : opsOf<arith::ConstantIntOp>(*module))
    zero |= constant.value() == 0 && constant.getType().isInteger(32);
  EXPECT_TRUE(zero) << str(*module);

  key.divisibility = {16, 16, 16};
  module = traceOk(*kernel, key);
  ASSERT_TRUE(module);
  EXPECT_FALSE(opsOf<func::FuncOp>(*module)[0].getArgument(1).use_empty());
}

// The mask bounds of a signature: the integers compared with a block,
// directly or through a cast (n, and m as i64), not loop bounds or strides.
// Found once per signature; a kernel that fails to trace says why.
TEST_F(TraceTest, MaskBoundsAreTheIntegersComparedWithABlock) {
  auto kernel = jit("bounds", [](Ptr<float> x, Int stride, Int rows, Int n,
                                 Int m, Constexpr BLOCK) {
    for_range(program_id(0), rows, num_programs(0), [&](Int row) {
      Tensor cols = arange(0, int64_t(BLOCK));
      Tensor wide = cols.to(DType::I64);
      store(x + row * stride + cols, 1.0f,
            (cols < n) & (wide < m.to(DType::I64)));
    });
  });
  std::vector<DType> types = {DType::F32, DType::I32, DType::I32, DType::I32,
                              DType::I32};
  auto bounds = kernel->maskBounds(types, {64});
  ASSERT_TRUE(bool(bounds)) << llvm::toString(bounds.takeError());
  EXPECT_EQ(std::vector<bool>(bounds->begin(), bounds->end()),
            (std::vector<bool>{false, false, false, true, true}));
  // Again from the kernel's cache; another signature traces anew.
  auto again = kernel->maskBounds(types, {64});
  ASSERT_TRUE(bool(again));
  EXPECT_EQ(*again, *bounds);
  auto bad = kernel->maskBounds(types, {48});
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("power of two"),
            std::string::npos);
}

// A mask bound known to lie in a range is traced clamped to it (the
// compiler then knows the range); a range of one value is the constant.
TEST_F(TraceTest, MaskBoundsInARangeAreClamped) {
  auto kernel = jit("clamp", [](Ptr<float> x, Int n) {
    Tensor cols = arange(0, 64);
    store(x + cols, 1.0f, cols < n);
  });
  SpecializationKey key = makeKey({DType::F32, DType::I32});
  key.ranges = {IntRange{}, IntRange{40, 48}};
  auto module = traceOk(*kernel, key);
  ASSERT_TRUE(module);
  auto maxes = opsOf<arith::MaxSIOp>(*module);
  auto mins = opsOf<arith::MinSIOp>(*module);
  ASSERT_EQ(maxes.size(), 1u) << str(*module);
  ASSERT_EQ(mins.size(), 1u);
  EXPECT_EQ(maxes[0].getLhs(), opsOf<func::FuncOp>(*module)[0].getArgument(1));
  EXPECT_EQ(mins[0].getLhs(), maxes[0].getResult());

  key.ranges = {IntRange{}, IntRange{48, 48}};
  module = traceOk(*kernel, key);
  ASSERT_TRUE(module);
  EXPECT_TRUE(opsOf<arith::MaxSIOp>(*module).empty());
  EXPECT_TRUE(opsOf<func::FuncOp>(*module)[0].getArgument(1).use_empty());
}

TEST_F(TraceTest, OpsCarryTheUsersSourceLocation) {
  int line = 0;
  auto kernel = jit("loc", [&](Ptr<float> x) {
    line = __LINE__ + 1;
    Tensor offsets = arange(0, 16);
    store(x + offsets, 0.0);
  });
  auto module = traceOk(*kernel, makeKey({DType::F32}));
  ASSERT_TRUE(module);
  auto ranges = opsOf<blk::MakeRangeOp>(*module);
  ASSERT_EQ(ranges.size(), 1u);
  auto loc = dyn_cast<FileLineColLoc>(ranges[0].getLoc());
  ASSERT_TRUE(loc) << str(ranges[0].getLoc());
  EXPECT_TRUE(contains(loc.getFilename().str(), "TraceTest.cpp"))
      << loc.getFilename().str();
  EXPECT_EQ(int(loc.getLine()), line);
}

//===----------------------------------------------------------------------===//
// Program geometry, ranges, constants
//===----------------------------------------------------------------------===//

TEST_F(TraceTest, ProgramIdAndNumPrograms) {
  std::string pidType;
  auto kernel = jit("geometry", [&](Ptr<int32_t> out) {
    // One statement each: C++ leaves the order in which the operands of one
    // expression are evaluated (and so traced) unspecified.
    Int pid = program_id(0);
    pidType = str(pid.type());
    Int z = program_id(2);
    Int ny = num_programs(1);
    Int nx = num_programs(0);
    store(out, pid + z + ny + nx);
  });
  auto module = traceOk(*kernel, makeKey({DType::I32}));
  ASSERT_TRUE(module);
  EXPECT_EQ(pidType, "i32");
  auto pids = opsOf<blk::ProgramIdOp>(*module);
  ASSERT_EQ(pids.size(), 2u);
  EXPECT_EQ(pids[0].getAxis(), 0u);
  EXPECT_EQ(pids[1].getAxis(), 2u);
  auto nums = opsOf<blk::NumProgramsOp>(*module);
  ASSERT_EQ(nums.size(), 2u);
  EXPECT_EQ(nums[0].getAxis(), 1u);
  EXPECT_EQ(nums[1].getAxis(), 0u);
  EXPECT_EQ(count(*module, "arith.addi"), 3);
  EXPECT_EQ(count(*module, "blk.store"), 1);
}

TEST_F(TraceTest, Arange) {
  std::vector<std::vector<int64_t>> shapes;
  auto kernel = jit("arange", [&](Ptr<int32_t> out) {
    Tensor a = arange(0, 128);
    Tensor b = arange(16, 32);
    Tensor c = arange(0, 1);
    shapes = {a.shape(), b.shape(), c.shape()};
  });
  auto module = traceOk(*kernel, makeKey({DType::I32}));
  ASSERT_TRUE(module);
  auto ranges = opsOf<blk::MakeRangeOp>(*module);
  ASSERT_EQ(ranges.size(), 3u);
  EXPECT_EQ(ranges[0].getStart(), 0u);
  EXPECT_EQ(ranges[0].getEnd(), 128u);
  EXPECT_EQ(str(ranges[0].getType()), "tensor<128xi32>");
  EXPECT_EQ(ranges[1].getStart(), 16u);
  EXPECT_EQ(ranges[1].getEnd(), 32u);
  EXPECT_EQ(str(ranges[1].getType()), "tensor<16xi32>");
  EXPECT_EQ(str(ranges[2].getType()), "tensor<1xi32>");
  EXPECT_EQ(shapes, (std::vector<std::vector<int64_t>>{{128}, {16}, {1}}));
}

TEST_F(TraceTest, Full) {
  std::map<std::string, std::string> types;
  auto kernel = jit("full", [&](Ptr<float> out) {
    types["f16"] = str(full({4, 8}, 1.5, DType::F16).type());
    types["i32"] = str(full({16}, 7, DType::I32).type());
    types["scalar"] = str(full({}, 3, DType::I64).type());
    types["f32"] = str(full({2}, -INFINITY, DType::F32).type());
  });
  auto module = traceOk(*kernel, makeKey({DType::F32}));
  ASSERT_TRUE(module);
  EXPECT_EQ(types["f16"], "tensor<4x8xf16>");
  EXPECT_EQ(types["i32"], "tensor<16xi32>");
  EXPECT_EQ(types["scalar"], "i64");
  EXPECT_EQ(types["f32"], "tensor<2xf32>");
  EXPECT_TRUE(hasConstant(*module, "1.500000e+00 : f16"))
      << dumpConstants(*module);
  EXPECT_TRUE(hasConstant(*module, "7 : i32")) << dumpConstants(*module);
  EXPECT_TRUE(hasConstant(*module, "3 : i64")) << dumpConstants(*module);
  EXPECT_TRUE(hasConstant(*module, "0xFF800000 : f32"))
      << dumpConstants(*module);
  // Blocks are splats of a scalar constant; the scalar needs none.
  EXPECT_EQ(count(*module, "blk.splat"), 3);
}

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

struct BinaryCase {
  const char *symbol;
  std::function<Tensor(Tensor, Tensor)> apply;
  const char *floatOp; // null: rejected on floats
  const char *intOp;
  const char *floatPredicate = nullptr; // comparisons only
  const char *intPredicate = nullptr;
};

const std::vector<BinaryCase> &binaryCases() {
  static const std::vector<BinaryCase> cases = {
      {"+", [](Tensor a, Tensor b) { return a + b; }, "arith.addf",
       "arith.addi"},
      {"-", [](Tensor a, Tensor b) { return a - b; }, "arith.subf",
       "arith.subi"},
      {"*", [](Tensor a, Tensor b) { return a * b; }, "arith.mulf",
       "arith.muli"},
      {"/", [](Tensor a, Tensor b) { return a / b; }, "arith.divf",
       "arith.divsi"},
      {"%", [](Tensor a, Tensor b) { return a % b; }, "arith.remf",
       "arith.remsi"},
      {"&", [](Tensor a, Tensor b) { return a & b; }, nullptr, "arith.andi"},
      {"|", [](Tensor a, Tensor b) { return a | b; }, nullptr, "arith.ori"},
      {"^", [](Tensor a, Tensor b) { return a ^ b; }, nullptr, "arith.xori"},
      {"<", [](Tensor a, Tensor b) { return a < b; }, "arith.cmpf",
       "arith.cmpi", "olt", "slt"},
      {"<=", [](Tensor a, Tensor b) { return a <= b; }, "arith.cmpf",
       "arith.cmpi", "ole", "sle"},
      {">", [](Tensor a, Tensor b) { return a > b; }, "arith.cmpf",
       "arith.cmpi", "ogt", "sgt"},
      {">=", [](Tensor a, Tensor b) { return a >= b; }, "arith.cmpf",
       "arith.cmpi", "oge", "sge"},
      {"==", [](Tensor a, Tensor b) { return a == b; }, "arith.cmpf",
       "arith.cmpi", "oeq", "eq"},
      {"!=", [](Tensor a, Tensor b) { return a != b; }, "arith.cmpf",
       "arith.cmpi", "une", "ne"},
  };
  return cases;
}

/// Traces `a OP b` on two loaded 16-element blocks of `dtype`.
void checkBinary(MLIRContext &context, const BinaryCase &c, DType dtype,
                 const char *expectedOp, const char *predicate) {
  std::string resultType;
  auto kernel = jit("binary", [&](Ptr<> x, Ptr<> y) {
    Tensor offsets = arange(0, 16);
    resultType = str(c.apply(load(x + offsets), load(y + offsets)).type());
  });
  auto result = kernel->trace(context, {dtype, dtype}, {}, 0);
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  ModuleOp module = **result;
  std::string element = std::string(dtypeName(dtype));
  EXPECT_EQ(resultType,
            predicate ? "tensor<16xi1>" : "tensor<16x" + element + ">");
  auto ops = opsNamed(module, expectedOp);
  ASSERT_EQ(ops.size(), 1u) << str(module.getOperation());
  EXPECT_EQ(str(ops[0]->getOperand(0).getType()), "tensor<16x" + element + ">");
  EXPECT_EQ(str(ops[0]->getResult(0).getType()), resultType);
  if (predicate) {
    std::string actual = isa<arith::CmpFOp>(ops[0])
                             ? arith::stringifyCmpFPredicate(
                                   cast<arith::CmpFOp>(ops[0]).getPredicate())
                                   .str()
                             : arith::stringifyCmpIPredicate(
                                   cast<arith::CmpIOp>(ops[0]).getPredicate())
                                   .str();
    EXPECT_EQ(actual, predicate);
  }
  // Nothing else computes: no conversions for operands of one type.
  for (const char *other : {"arith.sitofp", "arith.extf", "arith.extsi"})
    EXPECT_EQ(count(module, other), 0) << other;
}

TEST_F(TraceTest, BinaryOperatorsOnFloats) {
  for (const BinaryCase &c : binaryCases()) {
    if (!c.floatOp)
      continue;
    SCOPED_TRACE(std::string("operator ") + c.symbol);
    checkBinary(context, c, DType::F32, c.floatOp, c.floatPredicate);
  }
}

TEST_F(TraceTest, BinaryOperatorsOnIntegers) {
  for (const BinaryCase &c : binaryCases()) {
    SCOPED_TRACE(std::string("operator ") + c.symbol);
    checkBinary(context, c, DType::I32, c.intOp, c.intPredicate);
  }
}

TEST_F(TraceTest, BinaryOperatorsOnScalars) {
  std::string sum, cmp;
  auto kernel = jit("scalars", [&](Int n, Int m, Float f) {
    sum = str((n + m).type());
    cmp = str((f < f).type());
  });
  auto module = traceOk(*kernel, makeKey({DType::I32, DType::I32, DType::F32}));
  ASSERT_TRUE(module);
  EXPECT_EQ(sum, "i32");
  EXPECT_EQ(cmp, "i1");
  EXPECT_EQ(onlyResultType(*module, "arith.addi"), "i32");
  EXPECT_EQ(onlyResultType(*module, "arith.cmpf"), "i1");
  EXPECT_EQ(count(*module, "blk.splat"), 0);
}

TEST_F(TraceTest, LogicalOperatorsOnMasks) {
  std::string type;
  auto kernel = jit("masks", [&](Int n) {
    Tensor offsets = arange(0, 16);
    Tensor low = offsets<n, high = offsets> 4;
    type = str(((low & high) | (low ^ high)).type());
  });
  auto module = traceOk(*kernel, makeKey({DType::I32}));
  ASSERT_TRUE(module);
  EXPECT_EQ(type, "tensor<16xi1>");
  EXPECT_EQ(onlyResultType(*module, "arith.andi"), "tensor<16xi1>");
  EXPECT_EQ(onlyResultType(*module, "arith.ori"), "tensor<16xi1>");
  EXPECT_EQ(onlyResultType(*module, "arith.xori"), "tensor<16xi1>");
}

TEST_F(TraceTest, UnaryMinus) {
  std::string floatType, intType, scalarType;
  auto kernel = jit("neg", [&](Ptr<float> x, Ptr<int32_t> y, Int n) {
    Tensor offsets = arange(0, 16);
    floatType = str((-load(x + offsets)).type());
    intType = str((-load(y + offsets)).type());
    scalarType = str((-n).type());
  });
  auto module = traceOk(*kernel, makeKey({DType::F32, DType::I32, DType::I32}));
  ASSERT_TRUE(module);
  EXPECT_EQ(floatType, "tensor<16xf32>");
  EXPECT_EQ(intType, "tensor<16xi32>");
  EXPECT_EQ(scalarType, "i32");
  // -x is 0 - x (as in Triton).
  EXPECT_EQ(onlyResultType(*module, "arith.subf"), "tensor<16xf32>");
  EXPECT_EQ(count(*module, "arith.subi"), 2);
  EXPECT_TRUE(hasConstant(*module, "0.000000e+00 : f32"))
      << dumpConstants(*module);
  EXPECT_TRUE(hasConstant(*module, "0 : i32")) << dumpConstants(*module);
  // The zero is the left operand.
  auto subf = opsNamed(*module, "arith.subf")[0];
  auto splat = subf->getOperand(0).getDefiningOp<blk::SplatOp>();
  ASSERT_TRUE(splat);
  EXPECT_TRUE(splat.getSrc().getDefiningOp<arith::ConstantOp>());
}

TEST_F(TraceTest, LogicalNot) {
  std::string type;
  auto kernel = jit("not", [&](Int n) {
    Tensor mask = arange(0, 16) < n;
    type = str((!mask).type());
  });
  auto module = traceOk(*kernel, makeKey({DType::I32}));
  ASSERT_TRUE(module);
  EXPECT_EQ(type, "tensor<16xi1>");
  EXPECT_EQ(onlyResultType(*module, "arith.xori"), "tensor<16xi1>");
  EXPECT_TRUE(hasConstant(*module, "true")) << dumpConstants(*module);
}

//===----------------------------------------------------------------------===//
// Broadcasting
//===----------------------------------------------------------------------===//

TEST_F(TraceTest, ScalarsSplatToBlocks) {
  std::map<std::string, std::string> types;
  auto kernel = jit("splat", [&](Ptr<float> x, Int n, Float s) {
    Tensor offsets = arange(0, 16);
    types["mask"] = str((offsets < n).type());             // splat n
    types["scaled"] = str((load(x + offsets) * s).type()); // splat x, s
    types["left"] = str((2 * offsets).type());             // splat 2
    types["scalar"] = str((n + 1).type());                 // no splat
  });
  auto module = traceOk(*kernel, makeKey({DType::F32, DType::I32, DType::F32}));
  ASSERT_TRUE(module);
  EXPECT_EQ(types["mask"], "tensor<16xi1>");
  EXPECT_EQ(types["scaled"], "tensor<16xf32>");
  EXPECT_EQ(types["left"], "tensor<16xi32>");
  EXPECT_EQ(types["scalar"], "i32");
  auto splats = opsOf<blk::SplatOp>(*module);
  ASSERT_EQ(splats.size(), 4u);
  std::vector<std::string> sources;
  for (auto s : splats)
    sources.push_back(str(s.getSrc().getType()) + "->" + str(s.getType()));
  EXPECT_EQ(sources, (std::vector<std::string>{
                         "i32->tensor<16xi32>",
                         "!blk.ptr<f32>->tensor<16x!blk.ptr<f32>>",
                         "f32->tensor<16xf32>",
                         "i32->tensor<16xi32>",
                     }));
  // The literal 2 is the left operand of the multiplication.
  auto mul = opsNamed(*module, "arith.muli");
  ASSERT_EQ(mul.size(), 1u);
  EXPECT_TRUE(mul[0]->getOperand(0).getDefiningOp<blk::SplatOp>());
  EXPECT_TRUE(mul[0]->getOperand(1).getDefiningOp<blk::MakeRangeOp>());
  EXPECT_EQ(count(*module, "blk.broadcast"), 0);
}

TEST_F(TraceTest, ColumnTimesRowBroadcastsTo2D) {
  std::map<std::string, std::string> types;
  auto kernel = jit("outer", [&](Ptr<int32_t> out) {
    Tensor rows = arange(0, 8).expand_dims(1);  // (8, 1)
    Tensor cols = arange(0, 16).expand_dims(0); // (1, 16)
    types["rows"] = str(rows.type());
    types["cols"] = str(cols.type());
    types["grid"] = str((rows + cols).type());
  });
  auto module = traceOk(*kernel, makeKey({DType::I32}));
  ASSERT_TRUE(module);
  EXPECT_EQ(types["rows"], "tensor<8x1xi32>");
  EXPECT_EQ(types["cols"], "tensor<1x16xi32>");
  EXPECT_EQ(types["grid"], "tensor<8x16xi32>");
  auto expands = opsOf<blk::ExpandDimsOp>(*module);
  ASSERT_EQ(expands.size(), 2u);
  EXPECT_EQ(expands[0].getAxis(), 1u);
  EXPECT_EQ(expands[1].getAxis(), 0u);
  auto broadcasts = opsOf<blk::BroadcastOp>(*module);
  ASSERT_EQ(broadcasts.size(), 2u);
  EXPECT_EQ(str(broadcasts[0].getSrc().getType()), "tensor<8x1xi32>");
  EXPECT_EQ(str(broadcasts[0].getType()), "tensor<8x16xi32>");
  EXPECT_EQ(str(broadcasts[1].getSrc().getType()), "tensor<1x16xi32>");
  EXPECT_EQ(str(broadcasts[1].getType()), "tensor<8x16xi32>");
  EXPECT_EQ(onlyResultType(*module, "arith.addi"), "tensor<8x16xi32>");
}

TEST_F(TraceTest, LowerRankOperandGetsLeadingDimensions) {
  std::string type;
  auto kernel = jit("rank", [&](Ptr<int32_t> out) {
    Tensor rows = arange(0, 8).expand_dims(1); // (8, 1)
    type = str((arange(0, 16) * rows).type()); // (16) -> (1, 16) -> (8, 16)
  });
  auto module = traceOk(*kernel, makeKey({DType::I32}));
  ASSERT_TRUE(module);
  EXPECT_EQ(type, "tensor<8x16xi32>");
  auto expands = opsOf<blk::ExpandDimsOp>(*module);
  ASSERT_EQ(expands.size(), 2u);
  EXPECT_EQ(expands[1].getAxis(), 0u); // the implicit one
  EXPECT_EQ(str(expands[1].getType()), "tensor<1x16xi32>");
  EXPECT_EQ(count(*module, "blk.broadcast"), 2);
  EXPECT_EQ(onlyResultType(*module, "arith.muli"), "tensor<8x16xi32>");
}

TEST_F(TraceTest, ExpandDimsAndBroadcastTo) {
  std::map<std::string, std::string> types;
  auto kernel = jit("shapes", [&](Int n) {
    Tensor r = arange(0, 16);
    types["last"] = str(r.expand_dims(-1).type());  // axis 1
    types["first"] = str(r.expand_dims(-2).type()); // axis 0
    types["2d"] = str(r.expand_dims(0).expand_dims(2).type());
    types["scalar"] = str(n.broadcast_to({4, 4}).type());
    types["rows"] = str(r.broadcast_to({8, 16}).type());
    types["same"] = str(r.broadcast_to({16}).type());
  });
  auto module = traceOk(*kernel, makeKey({DType::I32}));
  ASSERT_TRUE(module);
  EXPECT_EQ(types["last"], "tensor<16x1xi32>");
  EXPECT_EQ(types["first"], "tensor<1x16xi32>");
  EXPECT_EQ(types["2d"], "tensor<1x16x1xi32>");
  EXPECT_EQ(types["scalar"], "tensor<4x4xi32>");
  EXPECT_EQ(types["rows"], "tensor<8x16xi32>");
  EXPECT_EQ(types["same"], "tensor<16xi32>");
  std::vector<uint32_t> axes;
  for (auto e : opsOf<blk::ExpandDimsOp>(*module))
    axes.push_back(e.getAxis());
  // -1, -2, 0, 2, then the leading dimension broadcast_to adds.
  EXPECT_EQ(axes, (std::vector<uint32_t>{1, 0, 0, 2, 0}));
  EXPECT_EQ(count(*module, "blk.broadcast"), 1);
  EXPECT_EQ(count(*module, "blk.splat"), 1);
}

//===----------------------------------------------------------------------===//
// Type promotion
//===----------------------------------------------------------------------===//

struct PromotionCase {
  const char *name;
  DType a, b;
  std::function<Tensor(Tensor a, Tensor b)> apply;
  const char *resultType;
  std::map<std::string, int> ops; // op name -> count
  const char *constant = nullptr; // an arith.constant that must exist
};

TEST_F(TraceTest, TypePromotion) {
  const PromotionCase cases[] = {
      {"i32 + f32",
       DType::I32,
       DType::F32,
       [](Tensor a, Tensor b) { return a + b; },
       "tensor<16xf32>",
       {{"arith.sitofp", 1}, {"arith.addf", 1}, {"arith.addi", 0}}},
      {"f32 * i32",
       DType::F32,
       DType::I32,
       [](Tensor a, Tensor b) { return a * b; },
       "tensor<16xf32>",
       {{"arith.sitofp", 1}, {"arith.mulf", 1}}},
      {"f16 + f32",
       DType::F16,
       DType::F32,
       [](Tensor a, Tensor b) { return a + b; },
       "tensor<16xf32>",
       {{"arith.extf", 1}, {"arith.addf", 1}, {"arith.truncf", 0}}},
      {"f32 - f16",
       DType::F32,
       DType::F16,
       [](Tensor a, Tensor b) { return a - b; },
       "tensor<16xf32>",
       {{"arith.extf", 1}, {"arith.subf", 1}}},
      {"f16 + bf16",
       DType::F16,
       DType::BF16,
       [](Tensor a, Tensor b) { return a + b; },
       "tensor<16xf32>",
       {{"arith.extf", 2}, {"arith.addf", 1}}},
      {"i32 + i64",
       DType::I32,
       DType::I64,
       [](Tensor a, Tensor b) { return a + b; },
       "tensor<16xi64>",
       {{"arith.extsi", 1}, {"arith.addi", 1}}},
      {"i32 < f16",
       DType::I32,
       DType::F16,
       [](Tensor a, Tensor b) { return a < b; },
       "tensor<16xi1>",
       {{"arith.sitofp", 1}, {"arith.cmpf", 1}}},
      {"f16 + 2",
       DType::F16,
       DType::F16,
       [](Tensor a, Tensor b) { return a + 2; },
       "tensor<16xf16>",
       {{"arith.addf", 1}, {"arith.extf", 0}, {"arith.sitofp", 0}},
       "2.000000e+00 : f16"},
      {"i64 + 2",
       DType::I64,
       DType::I64,
       [](Tensor a, Tensor b) { return a + 2; },
       "tensor<16xi64>",
       {{"arith.addi", 1}, {"arith.extsi", 0}},
       "2 : i64"},
      {"3 - i32",
       DType::I32,
       DType::I32,
       [](Tensor a, Tensor b) { return 3 - a; },
       "tensor<16xi32>",
       {{"arith.subi", 1}},
       "3 : i32"},
      {"i32 * 2.5",
       DType::I32,
       DType::I32,
       [](Tensor a, Tensor b) { return a * 2.5; },
       "tensor<16xf32>",
       {{"arith.sitofp", 1}, {"arith.mulf", 1}, {"arith.muli", 0}},
       "2.500000e+00 : f32"},
      {"0.5 + i32",
       DType::I32,
       DType::I32,
       [](Tensor a, Tensor b) { return 0.5 + a; },
       "tensor<16xf32>",
       {{"arith.sitofp", 1}, {"arith.addf", 1}},
       "5.000000e-01 : f32"},
      {"i32 + 1.5f",
       DType::I32,
       DType::I32,
       [](Tensor a, Tensor b) { return a + 1.5f; },
       "tensor<16xf32>",
       {{"arith.sitofp", 1}, {"arith.addf", 1}},
       "1.500000e+00 : f32"},
      {"bf16 * 0.5",
       DType::BF16,
       DType::BF16,
       [](Tensor a, Tensor b) { return a * 0.5; },
       "tensor<16xbf16>",
       {{"arith.mulf", 1}, {"arith.extf", 0}},
       "5.000000e-01 : bf16"},
      {"f16 * 1.5f",
       DType::F16,
       DType::F16,
       [](Tensor a, Tensor b) { return a * 1.5f; },
       "tensor<16xf16>",
       {{"arith.mulf", 1}},
       "1.500000e+00 : f16"},
      {"mask + i32",
       DType::I32,
       DType::I32,
       [](Tensor a, Tensor b) { return (a < b) + a; },
       "tensor<16xi32>",
       {{"arith.extui", 1}, {"arith.addi", 1}}},
      {"i64 + Constexpr",
       DType::I64,
       DType::I64,
       [](Tensor a, Tensor b) { return a + Constexpr(64); },
       "tensor<16xi64>",
       {{"arith.addi", 1}},
       "64 : i64"},
  };
  for (const PromotionCase &c : cases) {
    SCOPED_TRACE(c.name);
    std::string type;
    auto kernel = jit("promote", [&](Ptr<> x, Ptr<> y) {
      Tensor offsets = arange(0, 16);
      type = str(c.apply(load(x + offsets), load(y + offsets)).type());
    });
    auto module = traceOk(*kernel, makeKey({c.a, c.b}));
    ASSERT_TRUE(module);
    EXPECT_EQ(type, c.resultType);
    for (auto &[op, n] : c.ops)
      EXPECT_EQ(count(*module, op), n) << op << " in\n"
                                       << str(module->getOperation());
    if (c.constant) {
      EXPECT_TRUE(hasConstant(*module, c.constant)) << dumpConstants(*module);
    }
  }
}

TEST_F(TraceTest, ScalarParamPromotesWithBlock) {
  std::string type;
  auto kernel = jit("scalar_promote", [&](Ptr<float> x, Int n, Int64 m) {
    Tensor offsets = arange(0, 16);
    type = str((load(x + offsets) * n).type());
    // i32 block + i64 scalar: the block widens.
    Tensor wide = offsets + m;
    type += " " + str(wide.type());
  });
  auto module = traceOk(*kernel, makeKey({DType::F32, DType::I32, DType::I64}));
  ASSERT_TRUE(module);
  EXPECT_EQ(type, "tensor<16xf32> tensor<16xi64>");
  // n converts before it is splat.
  auto sitofp = opsNamed(*module, "arith.sitofp");
  ASSERT_EQ(sitofp.size(), 1u);
  EXPECT_EQ(str(sitofp[0]->getResult(0).getType()), "f32");
  EXPECT_EQ(onlyResultType(*module, "arith.extsi"), "tensor<16xi64>");
}

//===----------------------------------------------------------------------===//
// Pointers, loads and stores
//===----------------------------------------------------------------------===//

TEST_F(TraceTest, PointerArithmetic) {
  std::map<std::string, std::string> types;
  auto kernel = jit("ptrs", [&](Ptr<float> x, Int n, Int64 m) {
    Tensor offsets = arange(0, 16);
    types["x+3"] = str((x + 3).type());
    types["x+n"] = str((x + n).type());
    types["x+offsets"] = str((x + offsets).type());
    types["offsets+x"] = str((offsets + x).type());
    types["x-n"] = str((x - n).type());
    types["x+m"] = str((x + m).type());
    types["block+1"] = str(((x + offsets) + 1).type());
  });
  auto module = traceOk(*kernel, makeKey({DType::F32, DType::I32, DType::I64}));
  ASSERT_TRUE(module);
  EXPECT_EQ(types["x+3"], "!blk.ptr<f32>");
  EXPECT_EQ(types["x+n"], "!blk.ptr<f32>");
  EXPECT_EQ(types["x+offsets"], "tensor<16x!blk.ptr<f32>>");
  EXPECT_EQ(types["offsets+x"], "tensor<16x!blk.ptr<f32>>");
  EXPECT_EQ(types["x-n"], "!blk.ptr<f32>");
  EXPECT_EQ(types["x+m"], "!blk.ptr<f32>");
  EXPECT_EQ(types["block+1"], "tensor<16x!blk.ptr<f32>>");

  auto addptrs = opsOf<blk::AddPtrOp>(*module);
  // The last line adds twice: x + offsets, then + 1.
  ASSERT_EQ(addptrs.size(), 8u);
  std::vector<std::string> offsetTypes;
  for (auto a : addptrs)
    offsetTypes.push_back(str(a.getOffset().getType()));
  EXPECT_EQ(offsetTypes,
            (std::vector<std::string>{"i32", "i32", "tensor<16xi32>",
                                      "tensor<16xi32>", "i32", "i64",
                                      "tensor<16xi32>", "tensor<16xi32>"}));
  // The literal offset is a constant; x - n adds 0 - n.
  EXPECT_TRUE(addptrs[0].getOffset().getDefiningOp<arith::ConstantOp>());
  auto negated = addptrs[4].getOffset().getDefiningOp<arith::SubIOp>();
  ASSERT_TRUE(negated);
  EXPECT_TRUE(negated.getLhs().getDefiningOp<arith::ConstantOp>());
  EXPECT_EQ(negated.getRhs(), addptrs[1].getOffset());
  // Scalar pointers splat to blocks (three times); the scalar offset 1 too.
  EXPECT_EQ(count(*module, "blk.splat"), 4);
  EXPECT_TRUE(addptrs[7].getOffset().getDefiningOp<blk::SplatOp>());
}

TEST_F(TraceTest, BlockPointerMinusBlockOffsets) {
  auto kernel = jit("ptr_sub", [](Ptr<float> x) {
    Tensor offsets = arange(0, 16);
    store((x + 32) - offsets, 0.0);
  });
  auto module = traceOk(*kernel, makeKey({DType::F32}));
  ASSERT_TRUE(module);
  // 0 - offsets, as a block.
  EXPECT_EQ(onlyResultType(*module, "arith.subi"), "tensor<16xi32>");
  EXPECT_EQ(count(*module, "blk.addptr"), 2);
}

TEST_F(TraceTest, LoadVariants) {
  std::map<std::string, std::string> types;
  auto kernel = jit("loads", [&](Ptr<float> x, Ptr<half> h, Int n) {
    Tensor offsets = arange(0, 16);
    Tensor mask = offsets < n;
    types["plain"] = str(load(x + offsets).type());
    types["masked"] = str(load(x + offsets, mask).type());
    types["other"] = str(load(x + offsets, mask, 0.0).type());
    types["ninf"] = str(load(h + offsets, mask, -INFINITY).type());
    types["scalar"] = str(load(x).type());
    types["scalar-mask"] = str(load(x + offsets, n > 0, 1).type());
  });
  auto module = traceOk(*kernel, makeKey({DType::F32, DType::F16, DType::I32}));
  ASSERT_TRUE(module);
  EXPECT_EQ(types["plain"], "tensor<16xf32>");
  EXPECT_EQ(types["masked"], "tensor<16xf32>");
  EXPECT_EQ(types["other"], "tensor<16xf32>");
  EXPECT_EQ(types["ninf"], "tensor<16xf16>");
  EXPECT_EQ(types["scalar"], "f32");
  EXPECT_EQ(types["scalar-mask"], "tensor<16xf32>");

  auto loads = opsOf<blk::LoadOp>(*module);
  ASSERT_EQ(loads.size(), 6u);
  EXPECT_FALSE(loads[0].getMask());
  EXPECT_FALSE(loads[0].getOther());
  ASSERT_TRUE(loads[1].getMask());
  EXPECT_EQ(str(loads[1].getMask().getType()), "tensor<16xi1>");
  EXPECT_FALSE(loads[1].getOther());
  ASSERT_TRUE(loads[2].getMask());
  ASSERT_TRUE(loads[2].getOther());
  EXPECT_EQ(str(loads[2].getOther().getType()), "tensor<16xf32>");
  ASSERT_TRUE(loads[3].getOther());
  EXPECT_EQ(str(loads[3].getOther().getType()), "tensor<16xf16>");
  EXPECT_FALSE(loads[4].getMask());
  EXPECT_EQ(str(loads[4].getPtr().getType()), "!blk.ptr<f32>");
  // A scalar mask and a number `other` are splat to the pointers' shape.
  ASSERT_TRUE(loads[5].getMask());
  EXPECT_EQ(str(loads[5].getMask().getType()), "tensor<16xi1>");
  EXPECT_TRUE(loads[5].getMask().getDefiningOp<blk::SplatOp>());
  EXPECT_TRUE(loads[5].getOther().getDefiningOp<blk::SplatOp>());
  // `other` takes the pointee type.
  EXPECT_TRUE(hasConstant(*module, "0.000000e+00 : f32"))
      << dumpConstants(*module);
  EXPECT_TRUE(hasConstant(*module, "0xFC00 : f16")) << dumpConstants(*module);
  EXPECT_TRUE(hasConstant(*module, "1.000000e+00 : f32"))
      << dumpConstants(*module);
}

TEST_F(TraceTest, StoreVariants) {
  auto kernel = jit("stores", [](Ptr<float> x, Ptr<half> h, Int n) {
    Tensor offsets = arange(0, 16);
    Tensor mask = offsets < n;
    Tensor v = load(x + offsets);
    store(x + offsets, v);          // plain
    store(x + offsets, v, mask);    // masked
    store(h + offsets, v);          // f32 into f16: truncf
    store(h + offsets, v, mask);    // the same, masked
    store(x + offsets, 1);          // a number, splat
    store(x, 2.5);                  // scalar
    store(x + offsets, 0.0, n > 0); // scalar mask
  });
  auto module = traceOk(*kernel, makeKey({DType::F32, DType::F16, DType::I32}));
  ASSERT_TRUE(module);
  auto stores = opsOf<blk::StoreOp>(*module);
  ASSERT_EQ(stores.size(), 7u);
  std::vector<bool> masked;
  std::vector<std::string> valueTypes;
  for (auto s : stores) {
    masked.push_back(bool(s.getMask()));
    valueTypes.push_back(str(s.getValue().getType()));
  }
  EXPECT_EQ(masked,
            (std::vector<bool>{false, true, false, true, false, false, true}));
  EXPECT_EQ(valueTypes,
            (std::vector<std::string>{
                "tensor<16xf32>", "tensor<16xf32>", "tensor<16xf16>",
                "tensor<16xf16>", "tensor<16xf32>", "f32", "tensor<16xf32>"}));
  auto truncs = opsNamed(*module, "arith.truncf");
  ASSERT_EQ(truncs.size(), 2u);
  EXPECT_EQ(stores[2].getValue().getDefiningOp(), truncs[0]);
  EXPECT_EQ(str(stores[6].getMask().getType()), "tensor<16xi1>");
  EXPECT_TRUE(hasConstant(*module, "1.000000e+00 : f32"))
      << dumpConstants(*module);
  EXPECT_TRUE(hasConstant(*module, "2.500000e+00 : f32"))
      << dumpConstants(*module);
}

TEST_F(TraceTest, StoreConvertsToIntegerPointee) {
  auto kernel =
      jit("store_int", [](Ptr<int32_t> out, Ptr<float> x, Ptr<int64_t> wide) {
        Tensor offsets = arange(0, 16);
        store(out + offsets, load(x + offsets)); // fptosi
        store(wide + offsets, offsets);          // extsi
      });
  auto module = traceOk(*kernel, makeKey({DType::I32, DType::F32, DType::I64}));
  ASSERT_TRUE(module);
  EXPECT_EQ(onlyResultType(*module, "arith.fptosi"), "tensor<16xi32>");
  EXPECT_EQ(onlyResultType(*module, "arith.extsi"), "tensor<16xi64>");
}

//===----------------------------------------------------------------------===//
// Reductions and elementwise maths
//===----------------------------------------------------------------------===//

TEST_F(TraceTest, Reductions) {
  std::map<std::string, std::string> types;
  auto kernel = jit("reduce", [&](Ptr<float> x, Ptr<int32_t> y) {
    Tensor row = load(x + arange(0, 16));
    types["max1d"] = str(max(row, 0).type());
    types["min1d"] = str(min(row, -1).type());
    types["sumInt"] = str(sum(load(y + arange(0, 16)), 0).type());
    Tensor grid =
        arange(0, 8).expand_dims(1) * 16 + arange(0, 16).expand_dims(0);
    Tensor tile = load(x + grid); // (8, 16)
    types["tile"] = str(tile.type());
    types["sum0"] = str(sum(tile, 0).type());
    types["sum1"] = str(sum(tile, 1).type());
    types["max-1"] = str(max(tile, -1).type());
    types["min-2"] = str(min(tile, -2).type());
  });
  auto module = traceOk(*kernel, makeKey({DType::F32, DType::I32}));
  ASSERT_TRUE(module);
  EXPECT_EQ(types["max1d"], "f32");
  EXPECT_EQ(types["min1d"], "f32");
  EXPECT_EQ(types["sumInt"], "i32");
  EXPECT_EQ(types["tile"], "tensor<8x16xf32>");
  EXPECT_EQ(types["sum0"], "tensor<16xf32>");
  EXPECT_EQ(types["sum1"], "tensor<8xf32>");
  EXPECT_EQ(types["max-1"], "tensor<8xf32>");
  EXPECT_EQ(types["min-2"], "tensor<16xf32>");
  std::vector<std::string> kinds;
  for (auto r : opsOf<blk::ReduceOp>(*module))
    kinds.push_back(blk::stringifyReduceKind(r.getKind()).str() + " " +
                    std::to_string(r.getAxis()));
  EXPECT_EQ(kinds, (std::vector<std::string>{"max 0", "min 0", "sum 0", "sum 0",
                                             "sum 1", "max 1", "min 0"}));
}

TEST_F(TraceTest, SumOfMaskCountsInI32) {
  std::string type;
  auto kernel = jit("count", [&](Int n) {
    Tensor mask = arange(0, 16) < n;
    type = str(sum(mask, 0).type());
  });
  auto module = traceOk(*kernel, makeKey({DType::I32}));
  ASSERT_TRUE(module);
  EXPECT_EQ(type, "i32");
  auto reduces = opsOf<blk::ReduceOp>(*module);
  ASSERT_EQ(reduces.size(), 1u);
  EXPECT_EQ(str(reduces[0].getSrc().getType()), "tensor<16xi32>");
  EXPECT_TRUE(reduces[0].getSrc().getDefiningOp<arith::ExtUIOp>());
}

TEST_F(TraceTest, NegativeLiterals) {
  auto kernel = jit("negative", [](Ptr<int32_t> y, Ptr<half> h, Int n) {
    Tensor offsets = arange(0, 16);
    Tensor mask = offsets < n;
    store(y + offsets, load(y + offsets, mask, -1) + (-7));
    store(h + offsets, load(h + offsets) * -2);
    store(y + n - 1, 0);
  });
  auto module = traceOk(*kernel, makeKey({DType::I32, DType::F16, DType::I32}));
  ASSERT_TRUE(module);
  EXPECT_TRUE(hasConstant(*module, "-1 : i32")) << dumpConstants(*module);
  EXPECT_TRUE(hasConstant(*module, "-7 : i32")) << dumpConstants(*module);
  EXPECT_TRUE(hasConstant(*module, "-2.000000e+00 : f16"))
      << dumpConstants(*module);
  // Two per load-and-store line, and y + n - 1 is (y + n) + (0 - 1).
  EXPECT_EQ(count(*module, "blk.addptr"), 6);
  auto subs = opsOf<arith::SubIOp>(*module);
  ASSERT_EQ(subs.size(), 1u);
  EXPECT_EQ(str(subs[0].getType()), "i32");
}

TEST_F(TraceTest, ElementwiseMathOnFloats) {
  struct Case {
    const char *name;
    std::function<Tensor(Tensor)> apply;
    const char *op;
  } cases[] = {
      {"exp", [](Tensor x) { return exp(x); }, "math.exp"},
      {"exp2", [](Tensor x) { return exp2(x); }, "math.exp2"},
      {"log", [](Tensor x) { return log(x); }, "math.log"},
      {"sqrt", [](Tensor x) { return sqrt(x); }, "math.sqrt"},
      {"rsqrt", [](Tensor x) { return rsqrt(x); }, "math.rsqrt"},
      {"abs", [](Tensor x) { return abs(x); }, "math.absf"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    for (auto [dtype, type] : {std::pair{DType::F32, "tensor<16xf32>"},
                               std::pair{DType::F16, "tensor<16xf16>"}}) {
      std::string result;
      auto kernel = jit("math", [&](Ptr<> x) {
        result = str(c.apply(load(x + arange(0, 16))).type());
      });
      auto module = traceOk(*kernel, makeKey({dtype}));
      ASSERT_TRUE(module);
      EXPECT_EQ(result, type);
      EXPECT_EQ(onlyResultType(*module, c.op), type);
      EXPECT_EQ(count(*module, "arith.extf"), 0);
    }
  }
}

TEST_F(TraceTest, ElementwiseMathOnIntegers) {
  std::map<std::string, std::string> types;
  auto kernel = jit("int_math", [&](Ptr<int32_t> x, Int n) {
    Tensor v = load(x + arange(0, 16));
    types["exp"] = str(exp(v).type()); // converted to f32 first
    types["abs"] = str(abs(v).type()); // stays integer
    types["sqrt-scalar"] = str(sqrt(n).type());
  });
  auto module = traceOk(*kernel, makeKey({DType::I32, DType::I32}));
  ASSERT_TRUE(module);
  EXPECT_EQ(types["exp"], "tensor<16xf32>");
  EXPECT_EQ(types["abs"], "tensor<16xi32>");
  EXPECT_EQ(types["sqrt-scalar"], "f32");
  EXPECT_EQ(count(*module, "arith.sitofp"), 2);
  EXPECT_EQ(onlyResultType(*module, "math.exp"), "tensor<16xf32>");
  EXPECT_EQ(onlyResultType(*module, "math.absi"), "tensor<16xi32>");
  EXPECT_EQ(onlyResultType(*module, "math.sqrt"), "f32");
  EXPECT_EQ(count(*module, "math.absf"), 0);
}

TEST_F(TraceTest, MaximumAndMinimum) {
  std::map<std::string, std::string> types;
  auto kernel = jit("minmax", [&](Ptr<float> x, Ptr<int32_t> y) {
    Tensor offsets = arange(0, 16);
    Tensor a = load(x + offsets), i = load(y + offsets);
    types["maxf"] = str(maximum(a, 0.0).type());
    types["minf"] = str(minimum(a, a).type());
    types["maxi"] = str(maximum(i, 3).type());
    types["mini"] = str(minimum(i, i).type());
    types["mixed"] = str(maximum(i, a).type());
  });
  auto module = traceOk(*kernel, makeKey({DType::F32, DType::I32}));
  ASSERT_TRUE(module);
  EXPECT_EQ(types["maxf"], "tensor<16xf32>");
  EXPECT_EQ(types["minf"], "tensor<16xf32>");
  EXPECT_EQ(types["maxi"], "tensor<16xi32>");
  EXPECT_EQ(types["mini"], "tensor<16xi32>");
  EXPECT_EQ(types["mixed"], "tensor<16xf32>");
  EXPECT_EQ(count(*module, "arith.maximumf"), 2);
  EXPECT_EQ(count(*module, "arith.minimumf"), 1);
  EXPECT_EQ(count(*module, "arith.maxsi"), 1);
  EXPECT_EQ(count(*module, "arith.minsi"), 1);
  EXPECT_EQ(count(*module, "arith.sitofp"), 1);
  EXPECT_TRUE(hasConstant(*module, "3 : i32")) << dumpConstants(*module);
}

TEST_F(TraceTest, Where) {
  std::map<std::string, std::string> types;
  auto kernel = jit("where", [&](Ptr<float> x, Ptr<int32_t> y, Int n) {
    Tensor offsets = arange(0, 16);
    Tensor a = load(x + offsets), i = load(y + offsets);
    Tensor mask = offsets < n;
    types["relu"] = str(where(a > 0, a, 0.0).type());
    types["mixed"] = str(where(mask, i, a).type());
    types["ints"] = str(where(mask, 1, 0).type());
    types["floats"] = str(where(mask, 1.0, 0).type());
    types["scalar-cond"] = str(where(n > 0, a, i).type());
    types["scalar"] = str(where(n > 0, n, 5).type());
    types["intTensor-real"] = str(where(mask, i, 1.5).type());
  });
  auto module = traceOk(*kernel, makeKey({DType::F32, DType::I32, DType::I32}));
  ASSERT_TRUE(module);
  EXPECT_EQ(types["relu"], "tensor<16xf32>");
  EXPECT_EQ(types["mixed"], "tensor<16xf32>");
  EXPECT_EQ(types["ints"], "tensor<16xi32>");
  EXPECT_EQ(types["floats"], "tensor<16xf32>");
  EXPECT_EQ(types["scalar-cond"], "tensor<16xf32>");
  EXPECT_EQ(types["scalar"], "i32");
  // A C++ floating-point number with an integer tensor gives f32, as for
  // the binary operators (not a 1.5 silently truncated to 1).
  EXPECT_EQ(types["intTensor-real"], "tensor<16xf32>");
  EXPECT_TRUE(hasConstant(*module, "1.500000e+00 : f32"))
      << dumpConstants(*module);
  auto selects = opsOf<arith::SelectOp>(*module);
  ASSERT_EQ(selects.size(), 7u);
  // Every select has operands of one shape: the scalar condition is splat.
  EXPECT_EQ(str(selects[4].getCondition().getType()), "tensor<16xi1>");
  EXPECT_EQ(str(selects[5].getCondition().getType()), "i1");
}

TEST_F(TraceTest, WhereOnPointersOfOneType) {
  std::string type;
  auto kernel = jit("where_ptr", [&](Ptr<float> x, Ptr<float> y, Int n) {
    Tensor offsets = arange(0, 16);
    Tensor p = where(offsets < n, x + offsets, y + offsets);
    type = str(p.type());
    store(p, 0.0);
  });
  auto module = traceOk(*kernel, makeKey({DType::F32, DType::F32, DType::I32}));
  ASSERT_TRUE(module);
  EXPECT_EQ(type, "tensor<16x!blk.ptr<f32>>");
  EXPECT_EQ(onlyResultType(*module, "arith.select"),
            "tensor<16x!blk.ptr<f32>>");
}

struct CastCase {
  DType from, to;
  std::vector<std::string> ops; // conversion ops, in order
};

TEST_F(TraceTest, CastsAndTo) {
  const CastCase cases[] = {
      {DType::F32, DType::F16, {"arith.truncf"}},
      {DType::F16, DType::F32, {"arith.extf"}},
      {DType::F32, DType::BF16, {"arith.truncf"}},
      {DType::F32, DType::F64, {"arith.extf"}},
      {DType::F32, DType::F32, {}},
      {DType::I32, DType::F32, {"arith.sitofp"}},
      {DType::I32, DType::F16, {"arith.sitofp"}},
      {DType::F32, DType::I32, {"arith.fptosi"}},
      {DType::F16, DType::I64, {"arith.fptosi"}},
      {DType::I32, DType::I64, {"arith.extsi"}},
      {DType::I8, DType::I32, {"arith.extsi"}},
      {DType::I64, DType::I32, {"arith.trunci"}},
      {DType::I32, DType::I8, {"arith.trunci"}},
      {DType::I1, DType::I32, {"arith.extui"}},
      {DType::I1, DType::F32, {"arith.uitofp"}},
      {DType::F16, DType::BF16, {"arith.extf", "arith.truncf"}},
      {DType::BF16, DType::F16, {"arith.extf", "arith.truncf"}},
      // To i1 is "!= 0" (as in Triton), not the low bit or fptosi.
      {DType::I32, DType::I1, {"arith.cmpi"}},
      {DType::F32, DType::I1, {"arith.cmpf"}},
  };
  const std::set<std::string> conversions = {
      "arith.truncf", "arith.extf",   "arith.sitofp", "arith.fptosi",
      "arith.extsi",  "arith.trunci", "arith.extui",  "arith.uitofp",
      "arith.cmpi",   "arith.cmpf",   "arith.fptoui", "arith.extui"};
  for (const CastCase &c : cases) {
    for (bool method : {false, true}) {
      SCOPED_TRACE(std::string(dtypeName(c.from)) + " -> " +
                   std::string(dtypeName(c.to)) +
                   (method ? " with .to()" : " with cast()"));
      std::string type;
      auto kernel = jit("cast", [&](Ptr<> x) {
        Tensor v = load(x + arange(0, 16));
        type = str((method ? v.to(c.to) : cast(v, c.to)).type());
      });
      auto module = traceOk(*kernel, makeKey({c.from}));
      ASSERT_TRUE(module);
      EXPECT_EQ(type, "tensor<16x" + std::string(dtypeName(c.to)) + ">");
      std::vector<std::string> ops;
      module->walk([&](Operation *op) {
        std::string name = op->getName().getStringRef().str();
        if (conversions.count(name))
          ops.push_back(name);
      });
      EXPECT_EQ(ops, c.ops);
      if (c.to == DType::I1 && !ops.empty()) {
        Operation *cmp = opsNamed(*module, ops[0])[0];
        if (auto f = dyn_cast<arith::CmpFOp>(cmp)) {
          EXPECT_EQ(f.getPredicate(), arith::CmpFPredicate::UNE);
        }
        if (auto i = dyn_cast<arith::CmpIOp>(cmp)) {
          EXPECT_EQ(i.getPredicate(), arith::CmpIPredicate::ne);
        }
      }
    }
  }
}

TEST_F(TraceTest, CastScalar) {
  std::string type;
  auto kernel = jit("cast_scalar", [&](Int n, Float f) {
    type = str(n.to(DType::F32).type()) + " " + str(cast(f, DType::I64).type());
  });
  auto module = traceOk(*kernel, makeKey({DType::I32, DType::F32}));
  ASSERT_TRUE(module);
  EXPECT_EQ(type, "f32 i64");
}

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

TEST_F(TraceTest, ForRangeWithoutCarriedValues) {
  std::string inductionType;
  auto kernel = jit("loop", [&](Ptr<float> x, Int n, Constexpr STEP) {
    for_range(0, n, STEP, [&](Int i) {
      inductionType = str(i.type());
      store(x + i, 1.0);
    });
    store(x, 2.0); // after the loop
  });
  auto module = traceOk(*kernel, makeKey({DType::F32, DType::I32}, {4}));
  ASSERT_TRUE(module);
  EXPECT_EQ(inductionType, "i32");
  auto loops = opsOf<scf::ForOp>(*module);
  ASSERT_EQ(loops.size(), 1u);
  scf::ForOp loop = loops[0];
  EXPECT_EQ(loop.getNumResults(), 0u);
  EXPECT_EQ(loop.getInitArgs().size(), 0u);
  EXPECT_EQ(str(loop.getInductionVar().getType()), "i32");
  // Bounds: the literal 0, the argument n, the constexpr 4.
  auto lb = loop.getLowerBound().getDefiningOp<arith::ConstantOp>();
  ASSERT_TRUE(lb);
  EXPECT_EQ(cast<IntegerAttr>(lb.getValue()).getInt(), 0);
  EXPECT_TRUE(isa<BlockArgument>(loop.getUpperBound()));
  auto step = loop.getStep().getDefiningOp<arith::ConstantOp>();
  ASSERT_TRUE(step);
  EXPECT_EQ(cast<IntegerAttr>(step.getValue()).getInt(), 4);
  // One store inside, one after.
  auto stores = opsOf<blk::StoreOp>(*module);
  ASSERT_EQ(stores.size(), 2u);
  EXPECT_EQ(stores[0]->getParentOp(), loop.getOperation());
  EXPECT_TRUE(isa<func::FuncOp>(stores[1]->getParentOp()));
  // The body uses the induction variable and ends in an empty yield.
  auto addptr = opsOf<blk::AddPtrOp>(*module);
  ASSERT_EQ(addptr.size(), 1u);
  EXPECT_EQ(addptr[0].getOffset(), loop.getInductionVar());
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  EXPECT_EQ(yield.getNumOperands(), 0u);
  EXPECT_EQ(count(*module, "scf.yield"), 1);
}

TEST_F(TraceTest, ForRangeWithCarriedValues) {
  std::vector<std::string> resultTypes;
  size_t carriedCount = 0;
  auto kernel = jit("acc", [&](Ptr<float> x, Ptr<float> out, Int n) {
    Tensor offsets = arange(0, 16);
    std::vector<Tensor> results = for_range(
        0, n, 1, {full({16}, 0, DType::F32), Tensor(n) * 0},
        [&](Int i, std::vector<Tensor> carried) -> std::vector<Tensor> {
          carriedCount = carried.size();
          Tensor acc = carried[0] + load(x + i * 16 + offsets);
          return {acc, carried[1] + 1};
        });
    for (const Tensor &r : results)
      resultTypes.push_back(str(r.type()));
    store(out + offsets, results[0] / results[1]);
  });
  auto module = traceOk(*kernel, makeKey({DType::F32, DType::F32, DType::I32}));
  ASSERT_TRUE(module);
  EXPECT_EQ(carriedCount, 2u);
  EXPECT_EQ(resultTypes, (std::vector<std::string>{"tensor<16xf32>", "i32"}));
  auto loops = opsOf<scf::ForOp>(*module);
  ASSERT_EQ(loops.size(), 1u);
  scf::ForOp loop = loops[0];
  ASSERT_EQ(loop.getInitArgs().size(), 2u);
  EXPECT_EQ(str(loop.getRegionIterArgs()[0].getType()), "tensor<16xf32>");
  EXPECT_EQ(str(loop.getRegionIterArgs()[1].getType()), "i32");
  // The initial accumulator is the splat of 0.0.
  EXPECT_TRUE(loop.getInitArgs()[0].getDefiningOp<blk::SplatOp>());
  // The yield passes the new values on.
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  ASSERT_EQ(yield.getNumOperands(), 2u);
  EXPECT_TRUE(yield.getOperand(0).getDefiningOp<arith::AddFOp>());
  EXPECT_TRUE(yield.getOperand(1).getDefiningOp<arith::AddIOp>());
  // The store after the loop uses its results.
  auto stores = opsOf<blk::StoreOp>(*module);
  ASSERT_EQ(stores.size(), 1u);
  EXPECT_TRUE(isa<func::FuncOp>(stores[0]->getParentOp()));
  auto div = stores[0].getValue().getDefiningOp<arith::DivFOp>();
  ASSERT_TRUE(div);
  EXPECT_EQ(div.getLhs(), loop.getResult(0));
  EXPECT_EQ(count(*module, "scf.yield"), 1);
}

TEST_F(TraceTest, ForRangeWithInt64BoundsUsesI64) {
  std::string inductionType;
  auto kernel = jit("loop64", [&](Ptr<float> x, Int64 n, Int start) {
    for_range(start, n, 2, [&](Int i) {
      inductionType = str(i.type());
      store(x + i, 0.0);
    });
  });
  auto module = traceOk(*kernel, makeKey({DType::F32, DType::I64, DType::I32}));
  ASSERT_TRUE(module);
  EXPECT_EQ(inductionType, "i64");
  auto loop = opsOf<scf::ForOp>(*module)[0];
  EXPECT_EQ(str(loop.getLowerBound().getType()), "i64");
  EXPECT_TRUE(loop.getLowerBound().getDefiningOp<arith::ExtSIOp>());
  EXPECT_EQ(str(loop.getStep().getType()), "i64");
}

TEST_F(TraceTest, NestedForRange) {
  auto kernel = jit("nested", [](Ptr<float> x, Int n, Int m) {
    for_range(0, n, 1, [&](Int i) {
      for_range(0, m, 1, [&](Int j) { store(x + i * m + j, 0.0); });
      store(x + i, 1.0);
    });
  });
  auto module = traceOk(*kernel, makeKey({DType::F32, DType::I32, DType::I32}));
  ASSERT_TRUE(module);
  auto loops = opsOf<scf::ForOp>(*module);
  ASSERT_EQ(loops.size(), 2u);
  // walk() is post-order: the inner loop comes first.
  EXPECT_EQ(loops[0]->getParentOp(), loops[1].getOperation());
  auto stores = opsOf<blk::StoreOp>(*module);
  ASSERT_EQ(stores.size(), 2u);
  EXPECT_EQ(stores[0]->getParentOp(), loops[0].getOperation());
  EXPECT_EQ(stores[1]->getParentOp(), loops[1].getOperation());
}

//===----------------------------------------------------------------------===//
// Whole kernels
//===----------------------------------------------------------------------===//

TEST_F(TraceTest, VectorAddKernel) {
  auto kernel =
      jit("vector_add",
          [](Ptr<> x, Ptr<> y, Ptr<> out, Int n, Constexpr BLOCK) {
            Int pid = program_id(0);
            Tensor offsets = pid * BLOCK + arange(0, BLOCK);
            Tensor mask = offsets < n;
            store(out + offsets,
                  load(x + offsets, mask) + load(y + offsets, mask), mask);
          },
          {"x", "y", "out", "n", "BLOCK"});
  auto module =
      traceOk(*kernel,
              makeKey({DType::F16, DType::F16, DType::F16, DType::I32}, {256}));
  ASSERT_TRUE(module);
  EXPECT_EQ(count(*module, "blk.program_id"), 1);
  EXPECT_EQ(count(*module, "blk.make_range"), 1);
  EXPECT_EQ(count(*module, "blk.load"), 2);
  EXPECT_EQ(count(*module, "blk.store"), 1);
  EXPECT_EQ(onlyResultType(*module, "arith.addf"), "tensor<256xf16>");
  EXPECT_EQ(onlyResultType(*module, "arith.cmpi"), "tensor<256xi1>");
  EXPECT_TRUE(hasConstant(*module, "256 : i32")) << dumpConstants(*module);
  // Printing and re-reading the text works too.
  std::string text = str(module->getOperation());
  EXPECT_TRUE(contains(text, "func.func @vector_add(%arg0: !blk.ptr<f16>"))
      << text;
  EXPECT_TRUE(contains(text, "blk.make_range 0 to 256 : tensor<256xi32>"))
      << text;
}

TEST_F(TraceTest, OneKernelTracesIntoManyContexts) {
  auto kernel = jit("reuse", [](Ptr<float> x) { store(x, 1.0); });
  MLIRContext other;
  auto a = kernel->trace(context, {DType::F32}, {}, 0);
  auto b = kernel->trace(other, {DType::F32}, {}, 0);
  ASSERT_TRUE(bool(a)) << llvm::toString(a.takeError());
  ASSERT_TRUE(bool(b)) << llvm::toString(b.takeError());
  EXPECT_EQ(str(a->get().getOperation()), str(b->get().getOperation()));
}

TEST(TraceOutsideKernel, DSLCallsOutsideATraceAreHarmless) {
  ::testing::internal::CaptureStderr();
  Tensor r = arange(0, 16);
  Int pid = program_id(0);
  Tensor s = r + 1;
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(r.valid());
  EXPECT_FALSE(pid.valid());
  EXPECT_FALSE(s.valid());
  EXPECT_TRUE(contains(err, "DSL operation used outside of a kernel being "
                            "traced"))
      << err;
  EXPECT_TRUE(contains(err, "TraceTest.cpp")) << err;
}

} // namespace
