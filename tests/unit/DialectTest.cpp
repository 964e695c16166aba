//===- DialectTest.cpp - the blk dialect through its C++ API -------------===//
#include "compiler/Registration.h"
#include "dialect/BlkDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace blockjit;

namespace {

class DialectTest : public ::testing::Test {
protected:
  DialectTest() {
    DialectRegistry registry;
    registerDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  MLIRContext context;
  OpBuilder builder{&context};
  Location loc = builder.getUnknownLoc();
};

// Compile-time diagnostics name the user's line as trace-time errors do
// ("file:line"), a kernel by its name, anything else in MLIR's form.
TEST_F(DialectTest, DescribeLocationReadsAsTheUsersLine) {
  Location file = FileLineColLoc::get(&context, "kernel.cpp", 12, 7);
  EXPECT_EQ(blk::describeLocation(file), "kernel.cpp:12");
  EXPECT_EQ(blk::describeLocation(NameLoc::get(
                StringAttr::get(&context, "softmax"))),
            "softmax");
  EXPECT_EQ(blk::describeLocation(
                NameLoc::get(StringAttr::get(&context, "softmax"), file)),
            "kernel.cpp:12");
  EXPECT_EQ(blk::describeLocation(CallSiteLoc::get(file, loc)),
            "kernel.cpp:12");
  EXPECT_EQ(blk::describeLocation(FusedLoc::get(&context, {loc, file})),
            "kernel.cpp:12");
  EXPECT_EQ(blk::describeLocation(loc), "loc(unknown)");
}

// The one form of stage errors and traced kernels' verifier errors: the
// user's line, the message, then each note on its own line.
TEST_F(DialectTest, DescribeDiagnosticListsItsNotes) {
  Location file = FileLineColLoc::get(&context, "kernel.cpp", 12, 7);
  Diagnostic diagnostic(file, DiagnosticSeverity::Error);
  diagnostic << "block too large";
  diagnostic.attachNote(loc) << "split it";
  EXPECT_EQ(blk::describeDiagnostic(diagnostic),
            "kernel.cpp:12: block too large\n  note: split it\n");
  Diagnostic bare(loc, DiagnosticSeverity::Warning);
  bare << "plain";
  EXPECT_EQ(blk::describeDiagnostic(bare), "loc(unknown): plain\n");
}

TEST_F(DialectTest, BuildersDeriveResultTypes) {
  auto module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module.getBody());
  auto ptrType = blk::PtrType::get(builder.getF32Type());
  auto func = func::FuncOp::create(builder, loc, "k",
                                   builder.getFunctionType({ptrType}, {}));
  builder.setInsertionPointToEnd(func.addEntryBlock());

  auto range = blk::MakeRangeOp::create(builder, loc, 0, 128);
  EXPECT_EQ(range.getType(),
            RankedTensorType::get({128}, builder.getI32Type()));
  auto ptrs = blk::SplatOp::create(
      builder, loc, RankedTensorType::get({128}, ptrType), func.getArgument(0));
  auto addr = blk::AddPtrOp::create(builder, loc, ptrs.getType(), ptrs, range);
  auto load = blk::LoadOp::create(builder, loc, addr);
  EXPECT_EQ(load.getType(), RankedTensorType::get({128}, builder.getF32Type()));
  auto max = blk::ReduceOp::create(builder, loc, blk::ReduceKind::Max, load, 0);
  EXPECT_EQ(max.getType(), builder.getF32Type());
  auto expanded = blk::ExpandDimsOp::create(builder, loc, load, 1);
  EXPECT_EQ(expanded.getType(),
            RankedTensorType::get({128, 1}, builder.getF32Type()));
  func::ReturnOp::create(builder, loc);
  EXPECT_TRUE(succeeded(verify(module)));
  module->destroy();
}

TEST_F(DialectTest, VerifierExplainsBadRange) {
  auto module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module.getBody());
  blk::MakeRangeOp::create(builder, loc, 0, 100);
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_TRUE(failed(verify(module)));
  EXPECT_NE(message.find("must be a power of two"), std::string::npos)
      << message;
  module->destroy();
}

TEST_F(DialectTest, PtrTypeRejectsNonScalarPointee) {
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  auto bad = blk::PtrType::getChecked(
      [&] { return emitError(loc); },
      RankedTensorType::get({4}, builder.getF32Type()));
  EXPECT_FALSE(bad);
  EXPECT_NE(message.find("integer or float"), std::string::npos) << message;
}

} // namespace
