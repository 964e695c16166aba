//===- DifferentialTest.cpp - every DSL operation on every target ---------===//
//
// Registers one googletest test per case (Cases.cpp) and target: CPU/<case>
// compares the CPU run with the C++ reference; CUDA/<case> (skipped without
// a device) compares the CUDA run with the reference and with the CPU run.
// Coverage.EveryDslOperationIsInTheSuite fails when frontend/Tensor.h
// declares an operation, operator, BinaryOp or DType that no case covers, or
// frontend/Tensor.cpp can emit an op that no traced case contains.
//
//===----------------------------------------------------------------------===//
#include "tests/differential/Harness.h"

#include "runtime/Executor.h"
#include "runtime/KernelCache.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <sstream>

using namespace blockjit;
using namespace blockjit::difftest;

namespace {

/// Cases known to fail on a target ("<case>@cpu" or "<case>@cuda"), each
/// with the reason. A listed case that fails is reported, not counted; one
/// that passes fails (remove it from the list).
const std::map<std::string, std::string> &knownFailures() {
  // The failures the suite found and fixed: bf16 denormals flushed and f64
  // -> bf16 not linking on the CPU, log of f32 denormals, an f64 exp ending
  // the process on CUDA, f64 exp/log with no CUDA lowering, f32 % on CUDA
  // inexact (NVPTX's frem). Entries are "<case>@cpu" or "<case>@cuda".
  static const std::map<std::string, std::string> list = [] {
    std::map<std::string, std::string> list;
    return list;
  }();
  return list;
}

bool haveGpu() { return executorFor(TargetKind::CUDA).deviceCount() > 0; }

/// The failure text of running `c` on `target`, "" if it passed.
std::string check(const Case &c, TargetKind target) {
  Buffers initial = initialBuffers(c);
  Buffers want = initial;
  c.reference(want);
  for (size_t b = 0; b < want.size(); ++b)
    for (double &v : want[b])
      v = roundTo(c.buffers[b].type, v);
  const char *name = target == TargetKind::CPU ? "cpu" : "cuda";
  auto got = runOn(target, c);
  if (!got)
    return std::string(name) +
           " run failed: " + llvm::toString(got.takeError());
  std::string text = compare(c, initial, *got, want, name, "reference");
  if (!text.empty() || target == TargetKind::CPU)
    return text;
  auto cpu = runOn(TargetKind::CPU, c);
  if (!cpu)
    return "cpu run failed: " + llvm::toString(cpu.takeError());
  // Both within the tolerance of the reference: within twice of each other.
  return compare(c, initial, *got, *cpu, "cuda", "cpu", 2);
}

void runCase(const Case &c, TargetKind target) {
  std::string key = c.name + (target == TargetKind::CPU ? "@cpu" : "@cuda");
  std::string failure = check(c, target);
  auto known = knownFailures().find(key);
  if (known == knownFailures().end()) {
    EXPECT_EQ(failure, "");
    return;
  }
  if (failure.empty())
    ADD_FAILURE() << key << " is in the known-failure list (" << known->second
                  << ") but passes: remove it";
  else
    std::printf("KNOWN FAILURE %s (%s): %s\n", key.c_str(),
                known->second.c_str(), failure.c_str());
}

class CaseTest : public testing::Test {
public:
  CaseTest(const Case &c, TargetKind target) : c(c), target(target) {}
  void TestBody() override {
    if (target == TargetKind::CUDA && !haveGpu())
      GTEST_SKIP() << "no CUDA device";
    runCase(c, target);
  }

private:
  const Case &c;
  TargetKind target;
};

std::string readSource(const char *relative) {
  std::ifstream in(std::string(BLOCKJIT_SOURCE_DIR) + "/" + relative);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The names frontend/Tensor.h makes part of the DSL, as cases spell them
/// in `covers`: free functions, Tensor methods ("Tensor::to"), operators
/// ("operator+", "unary-", "unary!"), BinaryOp members ("BinaryOp::Max")
/// and casts to each DType ("cast:f16").
std::set<std::string> declaredOperations() {
  std::string header = readSource("frontend/Tensor.h");
  std::set<std::string> names;
  auto collect = [&](const char *pattern, const std::string &prefix) {
    std::regex re(pattern);
    for (auto it = std::sregex_iterator(header.begin(), header.end(), re);
         it != std::sregex_iterator(); ++it)
      names.insert(prefix + (*it)[1].str());
  };
  collect(R"(\n(?:Tensor|Int|void|std::vector<Tensor>)\s+([a-z_0-9]+)\()", "");
  collect(R"(\nstd::pair<Tensor, Tensor>\s+([a-z_0-9]+)\()", "");
  collect(R"(\n  Tensor ([a-z_0-9]+)\()", "Tensor::");
  collect(R"(\nBLOCKJIT_BINARY_OPERATOR\(([^,]+),)", "operator");
  collect(R"(\nTensor operator(.)\(TensorOperand x\))", "unary");
  std::smatch binaryEnum;
  if (std::regex_search(header, binaryEnum,
                        std::regex(R"(enum class BinaryOp \{([^}]*)\})")))
    for (std::string member : {binaryEnum[1].str()}) {
      std::regex re(R"(([A-Z][a-z]+))");
      for (auto it = std::sregex_iterator(member.begin(), member.end(), re);
           it != std::sregex_iterator(); ++it)
        names.insert("BinaryOp::" + (*it)[1].str());
    }
  for (DType type : {DType::I1, DType::I8, DType::I16, DType::I32, DType::I64,
                     DType::F16, DType::BF16, DType::F32, DType::F64})
    names.insert("cast:" + std::string(dtypeName(type)));
  return names;
}

TEST(Harness, ReportsTheFirstMismatch) {
  // A wrong reference (one element off by one ulp, one NaN where a number
  // is due) must fail, with index, inputs, got and want in the message.
  Case c = allCases().front();
  Buffers initial = initialBuffers(c);
  auto got = runOn(TargetKind::CPU, c);
  ASSERT_TRUE(bool(got)) << llvm::toString(got.takeError());
  Buffers want = *got;
  size_t out = want.size() - 1;
  want[out][0] = want[out][0] == 1 ? 2 : 1;
  std::string text = compare(c, initial, *got, want, "cpu", "reference");
  EXPECT_NE(text.find("index 0: cpu"), std::string::npos) << text;
  EXPECT_NE(text.find("inputs at index 0: b0="), std::string::npos) << text;
  want = *got;
  if (want[out].size() > 1) {
    want[out][1] = std::numeric_limits<double>::quiet_NaN();
    EXPECT_NE(compare(c, initial, *got, want, "cpu", "reference"), "");
  }
  EXPECT_EQ(compare(c, initial, *got, *got, "cpu", "cpu"), "");
}

TEST(Coverage, HeaderParsingFindsTheDsl) {
  // Guards the coverage test against a parser that finds nothing.
  std::set<std::string> names = declaredOperations();
  for (const char *name :
       {"load", "store", "for_range", "Tensor::to", "operator+", "unary-",
        "BinaryOp::Max", "program_id", "where", "cast:bf16"})
    EXPECT_TRUE(names.count(name)) << name;
}

TEST(Coverage, EveryDslOperationIsInTheSuite) {
  std::set<std::string> covered;
  for (const Case &c : allCases())
    covered.insert(c.covers.begin(), c.covers.end());
  for (const std::string &name : declaredOperations())
    EXPECT_TRUE(covered.count(name))
        << "frontend/Tensor.h declares '" << name
        << "' but no case of tests/differential/Cases.cpp covers it: add one";
}

TEST(Coverage, EveryDslOperationIsDocumented) {
  // docs/LANGUAGE.md is the DSL's reference: every function and method of
  // frontend/Tensor.h must appear in one of its `code` spans.
  std::string doc = readSource("docs/LANGUAGE.md");
  ASSERT_FALSE(doc.empty()) << "docs/LANGUAGE.md not found";
  std::set<std::string> documented;
  std::regex span("`([^`]*)`"), identifier("[A-Za-z_][A-Za-z_0-9]*");
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), span);
       it != std::sregex_iterator(); ++it) {
    std::string code = (*it)[1].str();
    for (auto id = std::sregex_iterator(code.begin(), code.end(), identifier);
         id != std::sregex_iterator(); ++id)
      documented.insert(id->str());
  }
  for (std::string name : declaredOperations()) {
    if (name.rfind("operator", 0) == 0 || name.rfind("unary", 0) == 0 ||
        name.rfind("BinaryOp::", 0) == 0 || name.rfind("cast:", 0) == 0)
      continue; // the operators' symbols are in the table as written
    if (name.rfind("Tensor::", 0) == 0)
      name = name.substr(std::strlen("Tensor::"));
    EXPECT_TRUE(documented.count(name))
        << "frontend/Tensor.h declares '" << name
        << "' but docs/LANGUAGE.md does not mention it: add it to the table";
  }
}

TEST(Coverage, EveryEmittedOpIsTraced) {
  // The ops frontend/Tensor.cpp can create, named as in the IR
  // (arith::MaxSIOp is arith.maxsi, blk::MakeRangeOp is blk.make_range).
  std::string source = readSource("frontend/Tensor.cpp");
  std::set<std::pair<std::string, std::string>> creatable;
  std::regex re(R"(\b(arith|math|blk|scf)::([A-Z][A-Za-z0-9]*)Op\b)");
  for (auto it = std::sregex_iterator(source.begin(), source.end(), re);
       it != std::sregex_iterator(); ++it) {
    std::string dialect = (*it)[1], cls = (*it)[2], lower, snake;
    for (size_t i = 0; i < cls.size(); ++i) {
      char ch = cls[i];
      lower += char(std::tolower(ch));
      if (std::isupper(ch) && i && std::islower(cls[i - 1]))
        snake += '_';
      snake += char(std::tolower(ch));
    }
    creatable.insert({dialect + "." + lower, dialect + "." + snake});
  }
  ASSERT_GT(creatable.size(), 20u);

  std::set<std::string> traced;
  mlir::MLIRContext context;
  for (const Case &c : allCases()) {
    std::vector<DType> types;
    std::vector<int64_t> constexprs;
    for (const ArgSpec &a : c.args) {
      if (a.kind == ArgSpec::Kind::Buffer)
        types.push_back(c.buffers[a.buffer].type);
      else if (a.kind == ArgSpec::Kind::I32)
        types.push_back(DType::I32);
      else if (a.kind == ArgSpec::Kind::I64)
        types.push_back(DType::I64);
      else if (a.kind == ArgSpec::Kind::F32)
        types.push_back(DType::F32);
      else
        constexprs.push_back(a.integer);
    }
    auto module = c.kernel->trace(context, types, constexprs, 0);
    ASSERT_TRUE(bool(module))
        << c.name << ": " << llvm::toString(module.takeError());
    (*module)->walk([&](mlir::Operation *op) {
      traced.insert(op->getName().getStringRef().str());
    });
  }
  for (const auto &[lower, snake] : creatable)
    EXPECT_TRUE(traced.count(lower) || traced.count(snake))
        << "frontend/Tensor.cpp can emit " << lower << " (" << snake
        << ") but no case of tests/differential/Cases.cpp traces to it";
}

/// The specialization a launch of `c` on `target` asks for (divisibility as
/// launch() derives it: pointers by their leading bytes, integers by value).
SpecializationKey keyFor(const Case &c, Target target) {
  SpecializationKey key;
  for (const ArgSpec &a : c.args) {
    uint8_t divisibility = 1;
    switch (a.kind) {
    case ArgSpec::Kind::Buffer:
      key.argTypes.push_back(c.buffers[a.buffer].type);
      divisibility = divisibilityOf(c.buffers[a.buffer].leadBytes);
      break;
    case ArgSpec::Kind::I32:
    case ArgSpec::Kind::I64:
      key.argTypes.push_back(a.kind == ArgSpec::Kind::I32 ? DType::I32
                                                          : DType::I64);
      divisibility = integerFactOf(a.integer);
      break;
    case ArgSpec::Kind::F32:
      key.argTypes.push_back(DType::F32);
      break;
    case ArgSpec::Kind::Constexpr:
      key.constexprs.push_back(a.integer);
      continue;
    }
    key.divisibility.push_back(divisibility);
  }
  key.options.target = target;
  key.options.numWarps = c.numWarps;
  key.options.numStages = c.numStages;
  key.options.numCTAs = c.numCTAs;
  key.options.programsPerCTA = c.programsPerCTA;
  key.options.loadEviction = c.loadEviction;
  key.options.storeEviction = c.storeEviction;
  key.options.maxRegisters = c.maxRegisters;
  return key;
}

TEST(CUDACompile, EveryCaseCompilesForSm90) {
  // Without a device the CUDA runs skip; the compiler still runs here, so a
  // case the CUDA target cannot compile fails on every machine. Cases whose
  // "@cuda" entry is a known failure are only reported.
  if (haveGpu())
    GTEST_SKIP() << "the CUDA tests compile and run every case";
  std::set<std::pair<const KernelDef *, std::string>> seen;
  for (const Case &c : allCases()) {
    SpecializationKey key = keyFor(c, Target::cuda(90));
    if (!seen.insert({c.kernel.get(),
                      key.str(c.kernel->name(), c.kernel->constexprNames())})
             .second)
      continue;
    auto compiled = compileSpecialization(*c.kernel, key);
    std::string failure = compiled ? "" : llvm::toString(compiled.takeError());
    auto known = knownFailures().find(c.name + "@cuda");
    if (known == knownFailures().end())
      EXPECT_EQ(failure, "") << c.name;
    else if (!failure.empty())
      std::printf("KNOWN FAILURE %s@cuda (%s): %s\n", c.name.c_str(),
                  known->second.c_str(), failure.c_str());
  }
}

TEST(Coverage, KnownFailuresArePrinted) {
  for (const auto &[key, why] : knownFailures())
    std::printf("known failure: %s: %s\n", key.c_str(), why.c_str());
  std::set<std::string> names;
  for (const Case &c : allCases()) {
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate case " << c.name;
  }
  for (const auto &[key, why] : knownFailures()) {
    std::string name = key.substr(0, key.rfind('@'));
    EXPECT_TRUE(names.count(name)) << "known failure of no case: " << key;
  }
}

} // namespace

int main(int argc, char **argv) {
  testing::InitGoogleTest(&argc, argv);
  // Without a device one CUDA test says so (skipped), rather than one
  // skipped test per case.
  bool gpu = haveGpu();
  if (!gpu)
    testing::RegisterTest("CUDA", "AllCases", nullptr, nullptr, __FILE__,
                          __LINE__, []() -> testing::Test * {
                            return new CaseTest(allCases().front(),
                                                TargetKind::CUDA);
                          });
  for (const Case &c : allCases())
    for (TargetKind target : {TargetKind::CPU, TargetKind::CUDA})
      if (target == TargetKind::CPU || gpu)
        testing::RegisterTest(target == TargetKind::CPU ? "CPU" : "CUDA",
                              c.name.c_str(), nullptr, nullptr, __FILE__,
                              __LINE__, [&c, target]() -> testing::Test * {
                                return new CaseTest(c, target);
                              });
  return RUN_ALL_TESTS();
}
