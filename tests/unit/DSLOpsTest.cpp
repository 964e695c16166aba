//===- DSLOpsTest.cpp - the DSL operations of issue 12 on the CPU --------===//
//
// The checks of tests/common/DSLOpsChecks.h with target = CPU (the same
// checks run on CUDA in tests/gpu/DSLOpsGPUTest.cpp).
//
//===----------------------------------------------------------------------===//
#include "tests/common/DSLOpsChecks.h"
#include "tests/unit/TraceTestUtil.h"

#include "compiler/Compile.h"
#include "compiler/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

using namespace blockjit;
using namespace blockjit::dslops;

namespace {

TEST(DSLOpsCPU, CompoundAssignment) { checkCompound(TargetKind::CPU); }
TEST(DSLOpsCPU, ReductionsWithoutAxisAndKeepDims) {
  checkReductions(TargetKind::CPU);
}

/// Traces `kernel` and compiles it for sm_90 up to PTX (no device needed):
/// "" on success, else the error.
std::string compileForCUDA(const KernelDef &kernel, std::vector<DType> argTypes,
                           std::vector<int64_t> constexprs) {
  mlir::DialectRegistry registry;
  registerDialects(registry);
  mlir::MLIRContext context(registry);
  auto module = kernel.trace(context, argTypes, constexprs, 0);
  if (!module)
    return llvm::toString(module.takeError());
  CompileOptions options;
  options.target = Target::cuda(90);
  auto artifact = compileModule(**module, options, {}, "ptx");
  if (!artifact)
    return llvm::toString(artifact.takeError());
  if (artifact->binary.find(".entry") == std::string::npos)
    return "no kernel entry in the PTX";
  return "";
}

// The GPU tests need a device; without one, this at least checks that every
// kernel of the checks compiles to PTX (NVPTX selects everything).
TEST(DSLOpsCPU, EveryKernelCompilesForCUDA) {
  using D = DType;
  EXPECT_EQ(
      compileForCUDA(compoundKernel(),
                     {D::F32, D::F32, D::I32, D::F32, D::I32, D::F32, D::I32},
                     {256}),
      "");
  EXPECT_EQ(compileForCUDA(reduceAllKernel(),
                           {D::F32, D::F32, D::F32, D::F32, D::F32, D::I32,
                            D::F32, D::I32, D::I32},
                           {32, 64}),
            "");
  EXPECT_EQ(compileForCUDA(intDivKernel(),
                           {D::I32, D::I32, D::I32, D::I32, D::I32, D::I32,
                            D::I32, D::I32},
                           {128}),
            "");
  for (int64_t op = 0; op < NumMathOps; ++op) {
    EXPECT_EQ(compileForCUDA(mathBlockKernel(),
                             {D::F32, D::F32, D::F32, D::F32, D::I32},
                             {op, 128}),
              "")
        << mathOpName(op);
    for (DType half : {D::F16, D::BF16})
      EXPECT_EQ(compileForCUDA(mathBlockAnyKernel(),
                               {half, half, half, half, D::I32}, {op, 128}),
                "")
          << mathOpName(op) << " " << dtypeName(half);
    EXPECT_EQ(compileForCUDA(mathScalarKernel(),
                             {D::F32, D::F32, D::F32, D::F32}, {op}),
              "")
        << mathOpName(op);
  }
}

TEST(DSLOpsCPU, MathOnBlocks) { checkMath(TargetKind::CPU, false); }
TEST(DSLOpsCPU, MathOnScalars) { checkMath(TargetKind::CPU, true); }

TEST(DSLOpsCPU, MathOnF16AndBF16Blocks) {
  checkMathHalf<half>(TargetKind::CPU);
  checkMathHalf<bfloat16>(TargetKind::CPU);
}

TEST(DSLOpsCPU, IntegerDivisionRemainderCdiv) {
  checkIntegerDivision(TargetKind::CPU);
}

//===----------------------------------------------------------------------===//
// Trace-time errors: wrong dtypes and shapes, with the user's line
//===----------------------------------------------------------------------===//

class DSLOpsTraceError : public test::TraceFixture {
protected:
  using Body = std::function<void(Ptr<float>, Ptr<int32_t>, Int, Float)>;
  /// Traces `body` as kernel `name`(x: f32*, y: i32*, n: i32, f: f32), which
  /// must fail; checks the error names the file, `line` and `message`.
  void expectError(const std::string &name, const Body &body,
                   const std::string &message) {
    auto kernel = jit(name,
                      [body](Ptr<float> x, Ptr<int32_t> y, Int n, Float f) {
                        body(x, y, n, f);
                      },
                      {"x", "y", "n", "f"});
    std::string error = traceError(
        *kernel,
        test::makeKey({DType::F32, DType::I32, DType::I32, DType::F32}));
    std::string where = "DSLOpsTest.cpp:" + std::to_string(line) + ": ";
    EXPECT_NE(error.find("kernel '" + name + "'"), std::string::npos) << error;
    EXPECT_NE(error.find(where + message), std::string::npos)
        << "expected '" << where << message << "' in: " << error;
  }
  int line = 0;
};

TEST_F(DSLOpsTraceError, FloordivOfFloats) {
  expectError(
      "floordiv_float",
      [&](Ptr<float> x, Ptr<int32_t>, Int n, Float) {
        Tensor v = load(x + arange(0, 16));
        line = __LINE__ + 1;
        floordiv(v, n);
      },
      "floordiv needs integer operands, got tensor<16xf32>");
}

TEST_F(DSLOpsTraceError, CdivOfACxxFloat) {
  expectError(
      "cdiv_float",
      [&](Ptr<float>, Ptr<int32_t>, Int n, Float) {
        line = __LINE__ + 1;
        cdiv(n, 1.5);
      },
      "cdiv needs integer operands, got a C++ float");
}

TEST_F(DSLOpsTraceError, CdivOfBooleans) {
  expectError(
      "cdiv_bool",
      [&](Ptr<float>, Ptr<int32_t>, Int n, Float) {
        line = __LINE__ + 1;
        cdiv(n < 3, 2);
      },
      "cdiv needs integer operands, got i1");
}

TEST_F(DSLOpsTraceError, SumWithoutAxisOfAScalar) {
  expectError(
      "sum_scalar",
      [&](Ptr<float>, Ptr<int32_t>, Int n, Float) {
        line = __LINE__ + 1;
        sum(n);
      },
      "sum reduces a block, got a scalar of type i32");
}

TEST_F(DSLOpsTraceError, KeepDimsAxisOutOfRange) {
  expectError(
      "keep_dims_axis",
      [&](Ptr<float> x, Ptr<int32_t>, Int, Float) {
        Tensor v = load(x + arange(0, 16));
        line = __LINE__ + 1;
        max(v, 1, true);
      },
      "max: axis 1 is out of range for a rank-1 block (-1..0)");
}

TEST_F(DSLOpsTraceError, MathOnPointers) {
  expectError(
      "sin_pointer",
      [&](Ptr<float> x, Ptr<int32_t>, Int, Float) {
        line = __LINE__ + 1;
        sin(x);
      },
      "sin is not defined on pointers");
  expectError(
      "pow_pointer",
      [&](Ptr<float> x, Ptr<int32_t>, Int, Float f) {
        line = __LINE__ + 1;
        pow(f, x);
      },
      "pow is not defined on pointers");
}

TEST_F(DSLOpsTraceError, FmaShapeMismatch) {
  expectError(
      "fma_shapes",
      [&](Ptr<float> x, Ptr<int32_t>, Int, Float f) {
        Tensor a = load(x + arange(0, 16)), b = load(x + arange(0, 32));
        line = __LINE__ + 1;
        fma(a, b, f);
      },
      "shape mismatch in fma: [16] and [32] cannot be broadcast together");
}

TEST_F(DSLOpsTraceError, CompoundAssignmentOnPointers) {
  expectError(
      "times_equal_pointer",
      [&](Ptr<float> x, Ptr<int32_t>, Int, Float) {
        Tensor p = x;
        line = __LINE__ + 1;
        p *= 2;
      },
      "operator * is not defined on pointers");
}

TEST_F(DSLOpsTraceError, CompoundAssignmentOnAnEmptyTensor) {
  expectError(
      "plus_equal_empty",
      [&](Ptr<float>, Ptr<int32_t>, Int, Float) {
        Tensor t;
        line = __LINE__ + 1;
        t += 1;
      },
      "use of an empty Tensor");
}

/// Integer division is traced with its guard: a zero divisor or -1 never
/// reaches arith.divsi / arith.remsi.
TEST_F(DSLOpsTraceError, IntegerDivisionIsGuarded) {
  auto kernel =
      jit("guarded_div",
          [](Ptr<int32_t> y, Int n) { store(y, n / load(y) + n % load(y)); },
          {"y", "n"});
  auto module = traceOk(*kernel, test::makeKey({DType::I32, DType::I32}));
  ASSERT_TRUE(module);
  int divs = 0, selects = 0;
  module->walk([&](mlir::Operation *op) {
    if (mlir::isa<mlir::arith::DivSIOp, mlir::arith::RemSIOp>(op)) {
      ++divs;
      // The divisor is select(b == 0 or b == -1, 1, b).
      EXPECT_TRUE(op->getOperand(1).getDefiningOp<mlir::arith::SelectOp>());
    }
    selects += mlir::isa<mlir::arith::SelectOp>(op);
  });
  EXPECT_EQ(divs, 2);
  EXPECT_EQ(selects, 4); // divisor twice, quotient and remainder results
}

} // namespace
