//===- DSLOpsTest.cpp - the DSL operations of issue 12 on the CPU --------===//
//
// The checks of tests/common/DSLOpsChecks.h with target = CPU (the same
// checks run on CUDA in tests/gpu/DSLOpsGPUTest.cpp).
//
//===----------------------------------------------------------------------===//
#include "tests/common/DSLOpsChecks.h"

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
  static auto compound =
      jit("dslops_compound", compound_kernel,
          {"x", "y", "k", "out", "outInt", "outPromoted", "n", "BLOCK"});
  EXPECT_EQ(
      compileForCUDA(*compound,
                     {D::F32, D::F32, D::I32, D::F32, D::I32, D::F32, D::I32},
                     {256}),
      "");
  static auto reduceAll = jit("dslops_reduce_all", reduce_all_kernel,
                              {"x", "finite", "sums", "maxes", "mins", "counts",
                               "centered", "rows", "cols", "BR", "BC"});
  EXPECT_EQ(compileForCUDA(*reduceAll,
                           {D::F32, D::F32, D::F32, D::F32, D::F32, D::I32,
                            D::F32, D::I32, D::I32},
                           {32, 64}),
            "");
  for (int64_t op = 0; op < NumMathOps; ++op) {
    EXPECT_EQ(compileForCUDA(mathBlockKernel(),
                             {D::F32, D::F32, D::F32, D::F32, D::I32},
                             {op, 128}),
              "")
        << mathOpName(op);
    EXPECT_EQ(compileForCUDA(mathScalarKernel(),
                             {D::F32, D::F32, D::F32, D::F32}, {op}),
              "")
        << mathOpName(op);
  }
}

TEST(DSLOpsCPU, MathOnBlocks) { checkMath(TargetKind::CPU, false); }
TEST(DSLOpsCPU, MathOnScalars) { checkMath(TargetKind::CPU, true); }

} // namespace
