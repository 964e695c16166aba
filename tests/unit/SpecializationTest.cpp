//===- SpecializationTest.cpp - keys, key strings, dtypes, fp16/bf16 -----===//
#include "compiler/Specialization.h"
#include "frontend/blockjit.h"
#include "runtime/KernelCache.h"
#include "runtime/Timing.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <functional>
#include <limits>
#include <unordered_set>

using namespace blockjit;

namespace {

//===----------------------------------------------------------------------===//
// SpecializationKey
//===----------------------------------------------------------------------===//

SpecializationKey softmaxKey() {
  SpecializationKey key;
  key.argTypes = {DType::F32, DType::F32, DType::I32,
                  DType::I32, DType::I32, DType::I32};
  key.constexprs = {1024};
  key.divisibility = {16, 16, 16, 16, 1, 1};
  key.options.numWarps = 8;
  key.options.numStages = 1;
  key.options.target = Target{TargetKind::CUDA, 90};
  return key;
}

struct KeyHash {
  size_t operator()(const SpecializationKey &key) const { return key.hash(); }
};

TEST(SpecializationKey, EqualKeysHashEqual) {
  SpecializationKey a = softmaxKey(), b = softmaxKey();
  EXPECT_TRUE(a == b);
  EXPECT_FALSE(a != b);
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_EQ(a.hash(), a.hash()); // stable
  SpecializationKey empty1, empty2;
  EXPECT_TRUE(empty1 == empty2);
  EXPECT_EQ(empty1.hash(), empty2.hash());
}

TEST(SpecializationKey, DefaultsAreCpuFourWarpsOneStage) {
  SpecializationKey key;
  EXPECT_TRUE(key.argTypes.empty());
  EXPECT_TRUE(key.constexprs.empty());
  EXPECT_TRUE(key.divisibility.empty());
  EXPECT_EQ(key.options.numWarps, 4);
  EXPECT_EQ(key.options.numStages, 1);
  EXPECT_EQ(key.options.target.kind, TargetKind::CPU);
  EXPECT_EQ(key.options.target.smArch, 0);
}

// The largest power of two dividing a value, capped at the widest vector
// access; 0 is divisible by anything.
TEST(SpecializationKey, DivisibilityIsTheLargestPowerOfTwoUpTo16) {
  const std::pair<uint64_t, uint8_t> cases[] = {
      {0, 16},  {1, 1},    {2, 2},           {3, 1},
      {4, 4},   {5000, 8}, {5004, 4},        {10000, 16},
      {48, 16}, {24, 8},   {1ull << 63, 16}, {uint64_t(-2), 2}};
  for (auto [value, want] : cases)
    EXPECT_EQ(divisibilityOf(value), want) << value;
}

// An integer's fact: kIsZero for 0 (traced as the constant), else its
// divisibility; pointers keep divisibilityOf (a null one is divisible).
TEST(SpecializationKey, IntegerZeroIsAFactOfItsOwn) {
  EXPECT_EQ(integerFactOf(0), kIsZero);
  EXPECT_EQ(integerFactOf(1), 1);
  EXPECT_EQ(integerFactOf(-16), 16);
  EXPECT_EQ(integerFactOf(781), 1);
  EXPECT_EQ(integerFactOf(12288), 16);
  EXPECT_EQ(divisibilityOf(0), 16);
}

// A mask bound's range: eight an octave, from its divisibility's first
// multiple; every value lies in its range, and every value of the range
// with the same divisibility gets the same range (so launches with n_cols
// 12000 and 12288 share one kernel, whose prepared launch checks the range).
TEST(SpecializationKey, MaskBoundRanges) {
  auto range = [](int64_t value) {
    return maskBoundRangeOf(value, integerFactOf(value), INT32_MAX);
  };
  EXPECT_EQ(range(12288), (IntRange{11280, 12288}));
  EXPECT_EQ(range(12000), (IntRange{11280, 12288}));
  EXPECT_EQ(range(11264), (IntRange{10256, 11264}));
  EXPECT_EQ(range(781), (IntRange{769, 832}));
  EXPECT_EQ(range(5000), (IntRange{4616, 5120}));
  EXPECT_EQ(range(50000), (IntRange{49168, 53248}));
  EXPECT_EQ(range(262144), (IntRange{245776, 262144}));
  EXPECT_EQ(range(16), (IntRange{16, 16}));
  EXPECT_EQ(range(1), (IntRange{1, 1}));
  EXPECT_FALSE(range(0).known());
  EXPECT_FALSE(range(-5).known());
  EXPECT_FALSE(IntRange{}.known());
  // No range whose clamp constant would not fit the argument's type: the
  // top eighth of i32's last octave, and of i64's.
  EXPECT_EQ(range(2013265920), (IntRange{1879048208, 2013265920}));
  EXPECT_FALSE(range(2013265921).known());
  EXPECT_FALSE(range(INT32_MAX).known());
  EXPECT_EQ(maskBoundRangeOf(2013265921, 1, INT64_MAX),
            (IntRange{2013265921, 2147483648}));
  EXPECT_FALSE(maskBoundRangeOf(INT64_MAX, 1, INT64_MAX).known());
  EXPECT_FALSE(maskBoundRangeOf(INT64_MAX - 5, 2, INT64_MAX).known());
  EXPECT_FALSE(maskBoundRangeOf(int64_t(1) << 40, 16, INT32_MAX).known());
  for (int64_t value = 1; value <= 70000; ++value) {
    IntRange r = range(value);
    ASSERT_TRUE(r.contains(value)) << value;
    uint8_t divisor = integerFactOf(value);
    ASSERT_EQ(r.low % divisor, 0) << value;
    // At most an eighth of the value wide (a little more for small values
    // of large divisibility, whose range is the value).
    ASSERT_LE(r.high - r.low, std::max<int64_t>(value / 8, 0)) << value;
    for (int64_t other = r.low; other <= r.high; other += divisor)
      if (integerFactOf(other) == divisor)
        ASSERT_EQ(range(other), r) << value << " and " << other;
  }
}

TEST(SpecializationKey, EveryFieldChangesEquality) {
  const std::vector<
      std::pair<const char *, std::function<void(SpecializationKey &)>>>
      changes = {
          {"argTypes element", [](auto &k) { k.argTypes[0] = DType::F16; }},
          {"argTypes last", [](auto &k) { k.argTypes[5] = DType::I64; }},
          {"argTypes length",
           [](auto &k) { k.argTypes.push_back(DType::I32); }},
          {"argTypes shorter", [](auto &k) { k.argTypes.pop_back(); }},
          {"constexpr value", [](auto &k) { k.constexprs[0] = 2048; }},
          {"constexpr count", [](auto &k) { k.constexprs.push_back(1024); }},
          {"constexprs empty", [](auto &k) { k.constexprs.clear(); }},
          {"divisibility 16 -> 1", [](auto &k) { k.divisibility[3] = 1; }},
          {"divisibility 1 -> 8", [](auto &k) { k.divisibility[5] = 8; }},
          {"divisibility 1 -> 2", [](auto &k) { k.divisibility[4] = 2; }},
          {"divisibility 16 -> zero",
           [](auto &k) { k.divisibility[3] = kIsZero; }},
          {"divisibility count", [](auto &k) { k.divisibility.push_back(1); }},
          {"range added",
           [](auto &k) {
             k.ranges.resize(6);
             k.ranges[5] = {11280, 12288};
           }},
          {"range low",
           [](auto &k) {
             k.ranges.resize(6);
             k.ranges[5] = {11264, 12288};
           }},
          {"range high",
           [](auto &k) {
             k.ranges.resize(6);
             k.ranges[5] = {11280, 13312};
           }},
          {"numWarps", [](auto &k) { k.options.numWarps = 4; }},
          {"numStages", [](auto &k) { k.options.numStages = 3; }},
          {"numCTAs", [](auto &k) { k.options.numCTAs = 2; }},
          {"programsPerCTA", [](auto &k) { k.options.programsPerCTA = 4; }},
          {"loadEviction",
           [](auto &k) { k.options.loadEviction = DefaultEviction::Last; }},
          {"storeEviction",
           [](auto &k) { k.options.storeEviction = DefaultEviction::First; }},
          {"maxRegisters", [](auto &k) { k.options.maxRegisters = 128; }},
          {"target kind",
           [](auto &k) { k.options.target.kind = TargetKind::CPU; }},
          {"target arch", [](auto &k) { k.options.target.smArch = 80; }},
          {"target", [](auto &k) { k.options.target = Target{}; }},
      };
  const SpecializationKey base = softmaxKey();
  std::unordered_set<SpecializationKey, KeyHash> all = {base};
  for (const auto &[name, change] : changes) {
    SCOPED_TRACE(name);
    SpecializationKey changed = base;
    change(changed);
    EXPECT_FALSE(changed == base);
    EXPECT_TRUE(changed != base);
    // Distinct keys get distinct hashes here (a collision would be a very
    // weak hash).
    EXPECT_NE(changed.hash(), base.hash());
    all.insert(changed);
  }
  EXPECT_EQ(all.size(), changes.size() + 1);
  // Looking a key up by an equal copy finds it.
  EXPECT_EQ(all.count(softmaxKey()), 1u);
}

TEST(SpecializationKey, ArgumentOrderMatters) {
  SpecializationKey a, b;
  a.argTypes = {DType::F32, DType::I32};
  b.argTypes = {DType::I32, DType::F32};
  EXPECT_FALSE(a == b);
  EXPECT_NE(a.hash(), b.hash());
  a.argTypes.clear();
  a.constexprs = {16, 32};
  b.argTypes.clear();
  b.constexprs = {32, 16};
  EXPECT_FALSE(a == b);
  EXPECT_NE(a.hash(), b.hash());
}

TEST(Target, Str) {
  EXPECT_EQ(Target{}.str(), "cpu");
  EXPECT_EQ((Target{TargetKind::CUDA, 90}).str(), "cuda:sm_90");
  EXPECT_EQ((Target{TargetKind::CUDA, 80}).str(), "cuda:sm_80");
  EXPECT_TRUE((Target{TargetKind::CUDA, 90}) == (Target{TargetKind::CUDA, 90}));
  EXPECT_FALSE((Target{TargetKind::CUDA, 90}) ==
               (Target{TargetKind::CUDA, 80}));
}

//===----------------------------------------------------------------------===//
// specializationName (SpecializationKey::str)
//===----------------------------------------------------------------------===//

std::shared_ptr<KernelDef> softmaxLike() {
  return jit("softmax",
             [](Ptr<> out, Ptr<> in, Int a, Int b, Int rows, Int cols,
                Constexpr BLOCK_SIZE) {},
             {"output_ptr", "input_ptr", "input_row_stride",
              "output_row_stride", "n_rows", "n_cols", "BLOCK_SIZE"});
}

TEST(KeyString, NamesEveryPart) {
  auto kernel = softmaxLike();
  std::string text = specializationName(*kernel, softmaxKey());
  EXPECT_EQ(text, "softmax[f32,f32,i32,i32,i32,i32|BLOCK_SIZE=1024|warps=8,"
                  "stages=1|div16=0,1,2,3|cuda:sm_90]");
  EXPECT_NE(text.find("BLOCK_SIZE=1024"), std::string::npos);
  EXPECT_NE(text.find("warps=8"), std::string::npos);
  EXPECT_NE(text.find("cuda:sm_90"), std::string::npos);
}

TEST(KeyString, IsStable) {
  auto kernel = softmaxLike();
  EXPECT_EQ(specializationName(*kernel, softmaxKey()),
            specializationName(*kernel, softmaxKey()));
  // A second definition with the same name and signature agrees.
  EXPECT_EQ(specializationName(*softmaxLike(), softmaxKey()),
            specializationName(*kernel, softmaxKey()));
}

TEST(KeyString, FollowsEveryField) {
  auto kernel = softmaxLike();
  SpecializationKey key = softmaxKey();
  key.argTypes[0] = key.argTypes[1] = DType::F16;
  key.constexprs = {128};
  key.divisibility = {1, 16, 1, 1, 1, 1};
  key.options.numWarps = 2;
  key.options.numStages = 3;
  key.options.target = Target{};
  EXPECT_EQ(specializationName(*kernel, key),
            "softmax[f16,f16,i32,i32,i32,i32|BLOCK_SIZE=128|warps=2,stages=3|"
            "div16=1|cpu]");
  key.divisibility = {16, 16, 8, 2, 1, 8};
  EXPECT_EQ(specializationName(*kernel, key),
            "softmax[f16,f16,i32,i32,i32,i32|BLOCK_SIZE=128|warps=2,stages=3|"
            "div16=0,1|div8=2,5|div2=3|cpu]");
  key.divisibility = {16, 16, kIsZero, 2, 1, kIsZero};
  EXPECT_EQ(specializationName(*kernel, key),
            "softmax[f16,f16,i32,i32,i32,i32|BLOCK_SIZE=128|warps=2,stages=3|"
            "div16=0,1|div2=3|zero=2,5|cpu]");
  key.ranges.resize(6);
  key.ranges[5] = {769, 832};
  EXPECT_EQ(specializationName(*kernel, key),
            "softmax[f16,f16,i32,i32,i32,i32|BLOCK_SIZE=128|warps=2,stages=3|"
            "div16=0,1|div2=3|zero=2,5|range5=769..832|cpu]");
  key.ranges.clear();
  key.divisibility.clear();
  EXPECT_EQ(specializationName(*kernel, key),
            "softmax[f16,f16,i32,i32,i32,i32|BLOCK_SIZE=128|warps=2,stages=3|"
            "div16=|cpu]");
  key.options.numCTAs = 2;
  EXPECT_EQ(specializationName(*kernel, key),
            "softmax[f16,f16,i32,i32,i32,i32|BLOCK_SIZE=128|warps=2,stages=3,"
            "ctas=2|div16=|cpu]");
  key.options.loadEviction = DefaultEviction::Last;
  key.options.storeEviction = DefaultEviction::First;
  EXPECT_EQ(specializationName(*kernel, key),
            "softmax[f16,f16,i32,i32,i32,i32|BLOCK_SIZE=128|warps=2,stages=3,"
            "ctas=2,loads=evict_last,stores=evict_first|div16=|cpu]");
  key.options.maxRegisters = 128;
  EXPECT_EQ(specializationName(*kernel, key),
            "softmax[f16,f16,i32,i32,i32,i32|BLOCK_SIZE=128|warps=2,stages=3,"
            "ctas=2,maxnreg=128,loads=evict_last,stores=evict_first|div16=|"
            "cpu]");
  EXPECT_EQ(key.options.str(), "warps=2,stages=3,ctas=2,maxnreg=128,loads="
                               "evict_last,stores=evict_first|cpu");
}

// The eviction option's names: each parses back to itself; anything else
// is an error that lists them.
TEST(DefaultEviction, NamesRoundTripAndUnknownNamesFail) {
  for (DefaultEviction eviction :
       {DefaultEviction::Normal, DefaultEviction::First,
        DefaultEviction::Last}) {
    auto parsed = parseDefaultEviction(defaultEvictionName(eviction));
    ASSERT_TRUE(bool(parsed));
    EXPECT_EQ(*parsed, eviction);
  }
  auto bad = parseDefaultEviction("evict_normal");
  ASSERT_FALSE(bool(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "an eviction priority is normal, evict_first or evict_last, got "
            "'evict_normal'");
  CompileOptions options;
  EXPECT_EQ(options.evictionSuffix(), "");
  options.storeEviction = DefaultEviction::First;
  EXPECT_EQ(options.str(), "warps=4,stages=1,stores=evict_first|cpu");
}

TEST(KeyString, SeveralOrNoConstexprs) {
  auto two = jit("two", [](Ptr<float> x, Constexpr M, Int n, Constexpr N) {},
                 {"x", "M", "n", "N"});
  SpecializationKey key;
  key.argTypes = {DType::F32, DType::I32};
  key.constexprs = {16, 64};
  EXPECT_EQ(specializationName(*two, key),
            "two[f32,i32|M=16,N=64|warps=4,stages=1|div16=|cpu]");
  auto none = jit("none", [](Ptr<float> x) {});
  key.argTypes = {DType::F32};
  key.constexprs = {};
  EXPECT_EQ(specializationName(*none, key),
            "none[f32||warps=4,stages=1|div16=|cpu]");
}

TEST(KeyString, FileNameIsSafe) {
  auto kernel = softmaxLike();
  std::string name =
      softmaxKey().fileName(kernel->name(), kernel->constexprNames());
  EXPECT_NE(name.find("BLOCK_SIZE=1024"), std::string::npos) << name;
  EXPECT_NE(name.find("warps=8"), std::string::npos) << name;
  for (char c : name)
    EXPECT_TRUE(isalnum(static_cast<unsigned char>(c)) || c == '_' ||
                c == '-' || c == '=' || c == ',' || c == '.')
        << "'" << c << "' in " << name;
  EXPECT_EQ(name.find('/'), std::string::npos);
  // Different keys, different names.
  SpecializationKey other = softmaxKey();
  other.options.target.smArch = 80;
  EXPECT_NE(other.fileName(kernel->name(), kernel->constexprNames()), name);
}

//===----------------------------------------------------------------------===//
// tuningKeyMaterial
//===----------------------------------------------------------------------===//

// Tuning results and operation choices on disk are keyed by the device
// they were timed on and by how they were timed: an entry timed under
// another protocol (before the flush reset persisting L2 lines) is not
// read back, so the configs it never offered are timed.
TEST(TuningKeyMaterial, TimingProtocolKeysLikeTheDevice) {
  std::string timed = timedDeviceMaterial("NVIDIA H200");
  EXPECT_NE(timed.find("NVIDIA H200"), std::string::npos) << timed;
  EXPECT_NE(timed.find(kTimingProtocol), std::string::npos) << timed;
  EXPECT_NE(timedDeviceMaterial("NVIDIA H100"), timed);
  EXPECT_NE(tuningKeyMaterial("kernel ir", timed, "cuda:sm_90|", {"warps=4"}),
            tuningKeyMaterial("kernel ir", "NVIDIA H200", "cuda:sm_90|",
                              {"warps=4"}));
}

// The config list enters a tuning entry's key as its count and digest: any
// change to the list (a config, its order, one more) keys a new entry, and
// the material stays the same size however many configs there are (the
// columns tuner's space in full made ~450 KB entries).
TEST(TuningKeyMaterial, ListChangesTheKeyWithoutGrowingIt) {
  auto material = [](std::vector<std::string> configs) {
    return tuningKeyMaterial("kernel ir", "NVIDIA H200", "cuda:sm_90|f32:16|",
                             configs);
  };
  std::string base = material({"warps=4", "warps=8"});
  EXPECT_EQ(material({"warps=4", "warps=8"}), base);
  EXPECT_NE(material({"warps=8", "warps=4"}), base);
  EXPECT_NE(material({"warps=4", "warps=16"}), base);
  EXPECT_NE(material({"warps=4", "warps=8", "warps=16"}), base);
  // Joined names must not collide: ["ab", "c"] vs ["a", "bc"].
  EXPECT_NE(material({"ab", "c"}), material({"a", "bc"}));
  EXPECT_NE(material({"warps=4"}), material({"warps=4", ""}));
  EXPECT_NE(tuningKeyMaterial("kernel ir", "NVIDIA H100", "cuda:sm_90|f32:16|",
                              {"warps=4", "warps=8"}),
            base);
  std::vector<std::string> many(20000,
                                "warps=32,stages=8,ctas=16,BLOCK_M=4096");
  EXPECT_EQ(material(many).size(),
            material({"w"}).size() + std::string("20000").size() - 1);
}

//===----------------------------------------------------------------------===//
// next_power_of_2
//===----------------------------------------------------------------------===//

static_assert(next_power_of_2(781) == 1024);
static_assert(next_power_of_2(1) == 1);

TEST(NextPowerOf2, Values) {
  EXPECT_EQ(next_power_of_2(0), 1);
  EXPECT_EQ(next_power_of_2(1), 1);
  EXPECT_EQ(next_power_of_2(2), 2);
  EXPECT_EQ(next_power_of_2(3), 4);
  EXPECT_EQ(next_power_of_2(781), 1024);
  EXPECT_EQ(next_power_of_2(1024), 1024);
  EXPECT_EQ(next_power_of_2(1025), 2048);
  EXPECT_EQ(next_power_of_2(-5), 1);
  EXPECT_EQ(next_power_of_2(int64_t(1) << 40), int64_t(1) << 40);
  EXPECT_EQ(next_power_of_2((int64_t(1) << 40) + 1), int64_t(1) << 41);
}

//===----------------------------------------------------------------------===//
// half
//===----------------------------------------------------------------------===//

uint16_t halfBits(float value) { return half(value).bits; }
float fromHalfBits(uint16_t bits) {
  half h;
  h.bits = bits;
  return float(h);
}

TEST(Half, ExactValuesRoundTrip) {
  const std::pair<float, uint16_t> cases[] = {
      {0.0f, 0x0000},
      {1.0f, 0x3c00},
      {-2.0f, 0xc000},
      {0.5f, 0x3800},
      {1.5f, 0x3e00},
      {-0.25f, 0xb400},
      {1.0f + 0x1p-10f, 0x3c01},
      {1024.0f, 0x6400},
      {2048.0f, 0x6800},
      {65504.0f, 0x7bff},
      {-65504.0f, 0xfbff},
      {0x1p-14f, 0x0400},
      {3.140625f, 0x4248},
  };
  for (auto [value, bits] : cases) {
    SCOPED_TRACE(value);
    EXPECT_EQ(halfBits(value), bits);
    EXPECT_EQ(fromHalfBits(bits), value);
  }
  // -0 keeps its sign.
  EXPECT_EQ(halfBits(-0.0f), 0x8000);
  EXPECT_TRUE(std::signbit(fromHalfBits(0x8000)));
  EXPECT_EQ(fromHalfBits(0x8000), 0.0f);
}

TEST(Half, EveryNonNaNBitPatternRoundTrips) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    float value = fromHalfBits(uint16_t(bits));
    bool nan = (bits & 0x7c00) == 0x7c00 && (bits & 0x3ff);
    if (nan) {
      ASSERT_TRUE(std::isnan(value)) << std::hex << bits;
      continue;
    }
    ASSERT_EQ(halfBits(value), bits) << std::hex << bits << " " << value;
  }
}

TEST(Half, RoundsToNearestEven) {
  // Halfway between 1 (even) and 1 + 2^-10 (odd): down to 1.
  EXPECT_EQ(halfBits(1.0f + 0x1p-11f), 0x3c00);
  // Halfway between 1 + 2^-10 (odd) and 1 + 2^-9 (even): up.
  EXPECT_EQ(halfBits(1.0f + 3 * 0x1p-11f), 0x3c02);
  // Just above and below halfway go to the nearer one.
  EXPECT_EQ(halfBits(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);
  EXPECT_EQ(halfBits(1.0f + 0x1p-11f - 0x1p-20f), 0x3c00);
  // The spacing at 2048 is 2: 2049 ties down to 2048, 2051 up to 2052.
  EXPECT_EQ(fromHalfBits(halfBits(2049.0f)), 2048.0f);
  EXPECT_EQ(fromHalfBits(halfBits(2051.0f)), 2052.0f);
  EXPECT_EQ(fromHalfBits(halfBits(-2051.0f)), -2052.0f);
  // Rounding can carry into the exponent.
  EXPECT_EQ(halfBits(2.0f - 0x1p-12f), 0x4000);
  // Inexact values land on the nearest half.
  EXPECT_EQ(fromHalfBits(halfBits(0.1f)), 0.0999755859375f);
  EXPECT_EQ(fromHalfBits(halfBits(1.0f / 3.0f)), 0.333251953125f);
}

TEST(Half, MaxAndOverflowToInfinity) {
  EXPECT_EQ(halfBits(65504.0f), 0x7bff);
  // Below the halfway point 65520 stays at the max; from it on, inf.
  EXPECT_EQ(halfBits(65519.0f), 0x7bff);
  EXPECT_EQ(halfBits(65520.0f), 0x7c00);
  EXPECT_EQ(halfBits(65536.0f), 0x7c00);
  EXPECT_EQ(halfBits(1e10f), 0x7c00);
  EXPECT_EQ(halfBits(FLT_MAX), 0x7c00);
  EXPECT_EQ(halfBits(-65520.0f), 0xfc00);
  EXPECT_EQ(halfBits(-1e10f), 0xfc00);
}

TEST(Half, Infinity) {
  EXPECT_EQ(halfBits(INFINITY), 0x7c00);
  EXPECT_EQ(halfBits(-INFINITY), 0xfc00);
  EXPECT_EQ(fromHalfBits(0x7c00), INFINITY);
  EXPECT_EQ(fromHalfBits(0xfc00), -INFINITY);
}

TEST(Half, NaN) {
  for (float nan :
       {NAN, -NAN, std::numeric_limits<float>::signaling_NaN(),
        std::bit_cast<float>(0x7f800001u), std::bit_cast<float>(0x7fffffffu)}) {
    uint16_t bits = halfBits(nan);
    EXPECT_EQ(bits & 0x7c00, 0x7c00) << std::hex << bits;
    EXPECT_NE(bits & 0x3ff, 0) << std::hex << bits; // not inf
    EXPECT_TRUE(std::isnan(fromHalfBits(bits)));
    EXPECT_EQ(bool(bits & 0x8000), std::signbit(nan));
  }
  EXPECT_TRUE(std::isnan(fromHalfBits(0x7e00)));
  EXPECT_TRUE(std::isnan(fromHalfBits(0x7c01)));
  EXPECT_TRUE(std::isnan(fromHalfBits(0xffff)));
}

TEST(Half, Subnormals) {
  // The smallest subnormal, 2^-24, and the largest, 1023 * 2^-24.
  EXPECT_EQ(halfBits(0x1p-24f), 0x0001);
  EXPECT_EQ(fromHalfBits(0x0001), 0x1p-24f);
  EXPECT_EQ(halfBits(1023 * 0x1p-24f), 0x03ff);
  EXPECT_EQ(fromHalfBits(0x03ff), 1023 * 0x1p-24f);
  EXPECT_EQ(halfBits(512 * 0x1p-24f), 0x0200);
  EXPECT_EQ(halfBits(-0x1p-24f), 0x8001);
  EXPECT_EQ(fromHalfBits(0x8001), -0x1p-24f);
  EXPECT_EQ(fromHalfBits(0x8200), -512 * 0x1p-24f);
  // Ties to even among subnormals, and underflow to (signed) zero.
  EXPECT_EQ(halfBits(0x1p-25f), 0x0000);
  EXPECT_EQ(halfBits(3 * 0x1p-25f), 0x0002);
  EXPECT_EQ(halfBits(5 * 0x1p-25f), 0x0002);
  EXPECT_EQ(halfBits(0x1p-25f + 0x1p-30f), 0x0001);
  EXPECT_EQ(halfBits(1e-10f), 0x0000);
  EXPECT_EQ(halfBits(-1e-10f), 0x8000);
  EXPECT_EQ(halfBits(std::bit_cast<float>(1u)), 0x0000); // fp32 subnormal
  // Rounding up from the largest subnormal gives the smallest normal.
  EXPECT_EQ(halfBits(0x1p-14f - 0x1p-26f), 0x0400);
}

//===----------------------------------------------------------------------===//
// bfloat16
//===----------------------------------------------------------------------===//

uint16_t bf16Bits(float value) { return bfloat16(value).bits; }
float fromBf16Bits(uint16_t bits) {
  bfloat16 b;
  b.bits = bits;
  return float(b);
}

TEST(BFloat16, ExactValuesRoundTrip) {
  const std::pair<float, uint16_t> cases[] = {
      {0.0f, 0x0000},      {1.0f, 0x3f80},     {-2.5f, 0xc020},
      {3.140625f, 0x4049}, {65536.0f, 0x4780}, {0x1p-126f, 0x0080},
      {0x1p-133f, 0x0001}, // an fp32 subnormal that bf16 holds exactly
  };
  for (auto [value, bits] : cases) {
    SCOPED_TRACE(value);
    EXPECT_EQ(bf16Bits(value), bits);
    EXPECT_EQ(fromBf16Bits(bits), value);
  }
  EXPECT_EQ(bf16Bits(-0.0f), 0x8000);
}

TEST(BFloat16, EveryNonNaNBitPatternRoundTrips) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    float value = fromBf16Bits(uint16_t(bits));
    if (std::isnan(value))
      continue;
    ASSERT_EQ(bf16Bits(value), bits) << std::hex << bits;
  }
}

TEST(BFloat16, RoundsToNearestEven) {
  EXPECT_EQ(bf16Bits(1.0f + 0x1p-8f), 0x3f80);            // tie, down
  EXPECT_EQ(bf16Bits(1.0f + 3 * 0x1p-8f), 0x3f82);        // tie, up
  EXPECT_EQ(bf16Bits(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81); // above the tie
  EXPECT_EQ(bf16Bits(1.0f + 0x1p-8f - 0x1p-20f), 0x3f80); // below the tie
  EXPECT_EQ(bf16Bits(2.0f - 0x1p-10f), 0x4000);           // carries
  EXPECT_EQ(fromBf16Bits(bf16Bits(0.1f)), 0.10009765625f);
}

TEST(BFloat16, InfinityOverflowAndNaN) {
  EXPECT_EQ(bf16Bits(INFINITY), 0x7f80);
  EXPECT_EQ(bf16Bits(-INFINITY), 0xff80);
  EXPECT_EQ(fromBf16Bits(0x7f80), INFINITY);
  // The largest bf16 is exact; FLT_MAX rounds up to inf.
  EXPECT_EQ(bf16Bits(fromBf16Bits(0x7f7f)), 0x7f7f);
  EXPECT_EQ(bf16Bits(FLT_MAX), 0x7f80);
  EXPECT_EQ(bf16Bits(-FLT_MAX), 0xff80);
  for (float nan : {NAN, -NAN, std::bit_cast<float>(0x7f800001u),
                    std::bit_cast<float>(0x7fffffffu)}) {
    uint16_t bits = bf16Bits(nan);
    EXPECT_TRUE(std::isnan(fromBf16Bits(bits))) << std::hex << bits;
    EXPECT_EQ(bool(bits & 0x8000), std::signbit(nan));
  }
}

//===----------------------------------------------------------------------===//
// DType names and MLIR types
//===----------------------------------------------------------------------===//

const DType allTypes[] = {DType::I1,   DType::I8,  DType::I16,
                          DType::I32,  DType::I64, DType::F16,
                          DType::BF16, DType::F32, DType::F64};

TEST(DTypeNames, NamesAndParseRoundTrip) {
  const char *names[] = {"i1",  "i8",   "i16", "i32", "i64",
                         "f16", "bf16", "f32", "f64"};
  for (size_t i = 0; i < std::size(allTypes); ++i) {
    SCOPED_TRACE(names[i]);
    EXPECT_EQ(dtypeName(allTypes[i]), names[i]);
    EXPECT_EQ(parseDType(names[i]), allTypes[i]);
    EXPECT_EQ(parseDType(dtypeName(allTypes[i])), allTypes[i]);
  }
}

TEST(DTypeNames, Aliases) {
  EXPECT_EQ(parseDType("fp32"), DType::F32);
  EXPECT_EQ(parseDType("float32"), DType::F32);
  EXPECT_EQ(parseDType("fp16"), DType::F16);
  EXPECT_EQ(parseDType("float16"), DType::F16);
  EXPECT_EQ(parseDType("bfloat16"), DType::BF16);
}

TEST(DTypeNames, UnknownNames) {
  for (const char *name : {"", "f8", "F32", "float", "i128", "f32 ", "bf"})
    EXPECT_FALSE(parseDType(name).has_value()) << "'" << name << "'";
}

TEST(DTypeNames, BytesAndKinds) {
  const unsigned bytes[] = {1, 1, 2, 4, 8, 2, 2, 4, 8};
  for (size_t i = 0; i < std::size(allTypes); ++i) {
    SCOPED_TRACE(dtypeName(allTypes[i]));
    EXPECT_EQ(dtypeBytes(allTypes[i]), bytes[i]);
    EXPECT_EQ(isFloat(allTypes[i]), i >= 5);
  }
  static_assert(dtype_v<float> == DType::F32);
  static_assert(dtype_v<half> == DType::F16);
  static_assert(dtype_v<bfloat16> == DType::BF16);
  static_assert(dtype_v<int32_t> == DType::I32);
  static_assert(dtype_v<int64_t> == DType::I64);
  static_assert(dtype_v<bool> == DType::I1);
  static_assert(dtype_v<double> == DType::F64);
  static_assert(sizeof(half) == 2 && sizeof(bfloat16) == 2);
}

TEST(DTypeNames, MLIRTypesRoundTrip) {
  mlir::MLIRContext context;
  mlir::Builder b(&context);
  for (DType t : allTypes) {
    SCOPED_TRACE(dtypeName(t));
    mlir::Type type = toMLIRType(&context, t);
    ASSERT_TRUE(type);
    EXPECT_EQ(fromMLIRType(type), t);
    std::string text;
    llvm::raw_string_ostream os(text);
    os << type;
    EXPECT_EQ(text, dtypeName(t));
  }
  EXPECT_FALSE(fromMLIRType(b.getIndexType()).has_value());
  EXPECT_FALSE(fromMLIRType(b.getIntegerType(7)).has_value());
  EXPECT_FALSE(fromMLIRType(mlir::RankedTensorType::get({4}, b.getF32Type()))
                   .has_value());
}

} // namespace
