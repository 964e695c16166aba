//===- DSLOpsGPUTest.cpp - the DSL operations of issue 12 on CUDA --------===//
//
// The checks of tests/common/DSLOpsChecks.h with target = CUDA; they skip
// without a device (the same checks run on the CPU in
// tests/unit/DSLOpsTest.cpp).
//
//===----------------------------------------------------------------------===//
#include "tests/common/DSLOpsChecks.h"
#include "tests/common/RequireGPU.h"

using namespace blockjit;
using namespace blockjit::dslops;

namespace {

TEST(DSLOpsGPU, CompoundAssignment) {
  REQUIRE_GPU();
  checkCompound(TargetKind::CUDA);
}
TEST(DSLOpsGPU, ReductionsWithoutAxisAndKeepDims) {
  REQUIRE_GPU();
  checkReductions(TargetKind::CUDA);
}

TEST(DSLOpsGPU, MathOnBlocks) {
  REQUIRE_GPU();
  checkMath(TargetKind::CUDA, false);
}
TEST(DSLOpsGPU, MathOnScalars) {
  REQUIRE_GPU();
  checkMath(TargetKind::CUDA, true);
}

TEST(DSLOpsGPU, MathOnF16AndBF16Blocks) {
  REQUIRE_GPU();
  checkMathHalf<half>(TargetKind::CUDA);
  checkMathHalf<bfloat16>(TargetKind::CUDA);
}

TEST(DSLOpsGPU, IntegerDivisionRemainderCdiv) {
  REQUIRE_GPU();
  checkIntegerDivision(TargetKind::CUDA);
}

} // namespace
