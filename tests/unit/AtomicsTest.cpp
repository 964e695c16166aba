//===- AtomicsTest.cpp - tracing atomic_add/max/min/xchg/cas --------------===//
//
// What the atomics trace to (op, kind, converted and broadcast operands, the
// mask) and every trace-time error they report, with the user's line. Their
// results on both targets are in the differential suite
// (tests/differential/CasesAtomics.cpp).
//
//===----------------------------------------------------------------------===//
#include "tests/unit/TraceTestUtil.h"

#include "dialect/BlkDialect.h"

using namespace mlir;
using namespace blockjit;
using namespace blockjit::test;

namespace {

#define ARGS Ptr<float> x, Ptr<int32_t> y, Ptr<half> h, Ptr<int8_t> b, Int n
using Body =
    std::function<void(Ptr<float>, Ptr<int32_t>, Ptr<half>, Ptr<int8_t>, Int)>;

class AtomicsTest : public TraceFixture {
protected:
  std::shared_ptr<KernelDef> kernel(const std::string &name, Body body) {
    return jit(name,
               [body](Ptr<float> x, Ptr<int32_t> y, Ptr<half> h, Ptr<int8_t> b,
                      Int n) { body(x, y, h, b, n); },
               {"x", "y", "h", "b", "n"});
  }
  SpecializationKey key() {
    return makeKey({DType::F32, DType::I32, DType::F16, DType::I8, DType::I32});
  }
  /// The trace error of `body`, which must name `line` and say `message`.
  void expectError(const std::string &name, Body body,
                   std::string_view message) {
    std::string error = traceError(*kernel(name, body), key());
    EXPECT_TRUE(contains(error, "kernel '" + name + "'")) << error;
    EXPECT_TRUE(contains(error, "AtomicsTest.cpp:" + std::to_string(line) +
                                    ": " + std::string(message)))
        << error;
  }
  int line = 0;
};

TEST_F(AtomicsTest, TracesEachKindWithConvertedOperands) {
  auto k = kernel("atomics_ok", [](ARGS) {
    Tensor offsets = arange(0, 16);
    Tensor mask = offsets < n;
    atomic_add(x + offsets, 1, mask);          // 1 becomes f32, splat
    atomic_max(y + offsets, offsets);          // unmasked
    atomic_min(y, n);                          // scalar pointer
    atomic_xchg(x + offsets, 2.5, mask);       // f32
    atomic_cas(y + offsets, 0, offsets);       // cmp splat
    atomic_add(h + offsets, 1.0, offsets < 3); // f16 add
  });
  auto module = traceOk(*k, key());
  ASSERT_TRUE(module);
  auto rmws = opsOf<blk::AtomicRMWOp>(*module);
  ASSERT_EQ(rmws.size(), 5u);
  EXPECT_EQ(rmws[0].getKind(), blk::AtomicRMWKind::Add);
  EXPECT_EQ(str(rmws[0].getValue().getType()), "tensor<16xf32>");
  EXPECT_TRUE(rmws[0].getMask());
  EXPECT_EQ(rmws[1].getKind(), blk::AtomicRMWKind::Max);
  EXPECT_FALSE(rmws[1].getMask());
  EXPECT_EQ(rmws[2].getKind(), blk::AtomicRMWKind::Min);
  EXPECT_EQ(str(rmws[2].getType()), "i32");
  EXPECT_EQ(rmws[3].getKind(), blk::AtomicRMWKind::Xchg);
  EXPECT_EQ(str(rmws[4].getType()), "tensor<16xf16>");
  auto cas = opsOf<blk::AtomicCASOp>(*module);
  ASSERT_EQ(cas.size(), 1u);
  EXPECT_EQ(str(cas[0].getCmp().getType()), "tensor<16xi32>");
  EXPECT_EQ(str(cas[0].getType()), "tensor<16xi32>");
}

TEST_F(AtomicsTest, SemAndScope) {
  auto k = kernel("atomics_sem", [](ARGS) {
    Tensor offsets = arange(0, 16);
    Tensor mask = offsets < n;
    atomic_add(y + offsets, 1, mask, AtomicSem::Relaxed, AtomicScope::Cta);
    atomic_max(y + offsets, 1, mask, AtomicSem::Release);
    atomic_min(y + offsets, 1, mask, AtomicSem::Acquire, AtomicScope::Gpu);
    atomic_xchg(y + offsets, 1, mask, AtomicSem::AcqRel, AtomicScope::Cta);
    atomic_cas(y + offsets, 0, 1, mask, AtomicSem::Relaxed, AtomicScope::Cta);
    atomic_add(y, 1); // the defaults
  });
  auto module = traceOk(*k, key());
  ASSERT_TRUE(module);
  auto rmws = opsOf<blk::AtomicRMWOp>(*module);
  ASSERT_EQ(rmws.size(), 5u);
  EXPECT_EQ(rmws[0].getSem(), blk::MemSem::Relaxed);
  EXPECT_EQ(rmws[0].getScope(), blk::MemScope::Cta);
  EXPECT_EQ(rmws[1].getSem(), blk::MemSem::Release);
  EXPECT_EQ(rmws[1].getScope(), blk::MemScope::Gpu);
  EXPECT_EQ(rmws[2].getSem(), blk::MemSem::Acquire);
  EXPECT_EQ(rmws[3].getSem(), blk::MemSem::AcqRel);
  EXPECT_EQ(rmws[3].getScope(), blk::MemScope::Cta);
  EXPECT_EQ(rmws[4].getSem(), blk::MemSem::AcqRel);
  EXPECT_EQ(rmws[4].getScope(), blk::MemScope::Gpu);
  auto cas = opsOf<blk::AtomicCASOp>(*module);
  ASSERT_EQ(cas.size(), 1u);
  EXPECT_EQ(cas[0].getSem(), blk::MemSem::Relaxed);
  EXPECT_EQ(cas[0].getScope(), blk::MemScope::Cta);
}

TEST_F(AtomicsTest, ResultsAreUsableAndUnusedOnesStay) {
  // An unused result must not let the atomic be dropped as dead code.
  auto k = kernel("atomics_unused", [](ARGS) {
    atomic_add(y, 1);
    Tensor old = atomic_add(y + 1, 1);
    store(y + 2, old + 1);
  });
  auto module = traceOk(*k, key());
  ASSERT_TRUE(module);
  EXPECT_EQ(count(*module, "blk.atomic_rmw"), 2);
}

TEST_F(AtomicsTest, NeedsPointers) {
  expectError(
      "atomic_no_ptr",
      [&](ARGS) {
        line = __LINE__ + 1;
        atomic_add(n, 1);
      },
      "atomic_add needs pointers, got i32");
}

TEST_F(AtomicsTest, UnsupportedDtypes) {
  expectError(
      "atomic_i8",
      [&](ARGS) {
        line = __LINE__ + 1;
        atomic_add(b + arange(0, 4), 1);
      },
      "atomic_add of i8 is not supported (i32, i64, f32 and f64; "
      "f16 and bf16 for atomic_add only)");
  expectError(
      "atomic_max_f16",
      [&](ARGS) {
        line = __LINE__ + 1;
        atomic_max(h, 1.0);
      },
      "atomic_max of f16 is not supported");
  expectError(
      "atomic_cas_f16",
      [&](ARGS) {
        line = __LINE__ + 1;
        atomic_cas(h, 1.0, 2.0);
      },
      "atomic_cas of f16 is not supported");
}

TEST_F(AtomicsTest, MaskErrors) {
  expectError(
      "atomic_mask_type",
      [&](ARGS) {
        line = __LINE__ + 1;
        atomic_xchg(x + arange(0, 8), 1.0, arange(0, 8));
      },
      "atomic_xchg mask must be i1 (a comparison), got "
      "tensor<8xi32>");
  expectError(
      "atomic_mask_shape",
      [&](ARGS) {
        line = __LINE__ + 1;
        atomic_min(y + arange(0, 8), 1, arange(0, 4) < n);
      },
      "atomic_min mask of shape [4] does not broadcast to the "
      "pointers' shape [8]");
  expectError(
      "atomic_block_mask_scalar_ptr",
      [&](ARGS) {
        line = __LINE__ + 1;
        atomic_add(y, 1, arange(0, 4) < n);
      },
      "atomic_add mask of shape [4] does not broadcast to the "
      "pointers' shape []");
}

TEST_F(AtomicsTest, ValueErrors) {
  expectError(
      "atomic_value_shape",
      [&](ARGS) {
        line = __LINE__ + 1;
        atomic_add(y + arange(0, 8), arange(0, 4));
      },
      "atomic_add value of shape [4] does not broadcast to the "
      "pointers' shape [8]");
  expectError(
      "atomic_value_ptr",
      [&](ARGS) {
        line = __LINE__ + 1;
        atomic_xchg(y, y);
      },
      "atomic_xchg value must be numbers, not pointers");
  expectError(
      "atomic_value_range",
      [&](ARGS) {
        line = __LINE__ + 1;
        atomic_max(y, 1e12);
      },
      "atomic_max value 1e+12 is not representable as i32");
  expectError(
      "atomic_cas_cmp_shape",
      [&](ARGS) {
        line = __LINE__ + 1;
        atomic_cas(y + arange(0, 8), arange(0, 2), 1);
      },
      "atomic_cas cmp of shape [2] does not broadcast to the "
      "pointers' shape [8]");
  expectError(
      "atomic_empty",
      [&](ARGS) {
        Tensor never;
        line = __LINE__ + 1;
        atomic_add(y, never);
      },
      "use of an empty Tensor");
}

} // namespace
