//===- blockjit-dump.cpp - print a registered kernel at any stage --------===//
//
//   blockjit-dump softmax --block-size 1024 --num-warps 8 --stage=blk
//   blockjit-dump --list
//
//===----------------------------------------------------------------------===//
#include "compiler/Backend.h"
#include "compiler/Compile.h"
#include "compiler/Environment.h"
#include "compiler/Registration.h"
#include "frontend/blockjit.h"
#include "runtime/KernelCache.h"
#include "runtime/Launch.h"
#include "runtime/Operation.h"
#include "runtime/Registry.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace blockjit;
namespace cl = llvm::cl;

// --help lists these only, not the options of every LLVM library linked in.
static cl::OptionCategory dumpCategory("blockjit-dump options");
static cl::opt<std::string> kernelName(cl::Positional, cl::desc("<kernel>"),
                                       cl::cat(dumpCategory));
static cl::opt<bool> list("list", cl::desc("List the kernels and stages"),
                          cl::cat(dumpCategory));
static cl::opt<std::string>
    stage("stage", cl::init("blk"),
          cl::desc("Stage to print: trace, a stage name, or 'all'"),
          cl::cat(dumpCategory));
static cl::opt<int64_t> blockSize("block-size", cl::init(1024),
                                  cl::desc("BLOCK_SIZE constexpr"),
                                  cl::cat(dumpCategory));
static cl::opt<int> numWarps("num-warps", cl::init(4), cl::desc("num_warps"),
                             cl::cat(dumpCategory));
static cl::opt<int> numStages("num-stages", cl::init(1), cl::desc("num_stages"),
                              cl::cat(dumpCategory));
static cl::opt<int> numCTAs("num-ctas", cl::init(1),
                            cl::desc("num_ctas: CTAs per program, a "
                                     "thread-block cluster (sm_90)"),
                            cl::cat(dumpCategory));
static cl::opt<int>
    programsPerCTA("programs-per-cta", cl::init(1),
                   cl::desc("programs sharing one CTA, each on its own warps"),
                   cl::cat(dumpCategory));
static cl::opt<std::string>
    loadEviction("load-eviction", cl::init("normal"),
                 cl::desc("eviction hint of loads without one: normal, "
                          "evict_first or evict_last (a config's loads=)"),
                 cl::cat(dumpCategory));
static cl::opt<std::string>
    storeEviction("store-eviction", cl::init("normal"),
                  cl::desc("eviction hint of stores without one (a config's "
                           "stores=)"),
                  cl::cat(dumpCategory));
static cl::opt<int> maxRegisters(
    "max-registers", cl::init(0),
    cl::desc("registers a thread may take at most, 24..255 (PTX's .maxnreg; "
             "a config's maxnreg=); 0: ptxas's choice"),
    cl::cat(dumpCategory));
static cl::opt<std::string> dtype("dtype", cl::init("f32"),
                                  cl::desc("Element type: f32, f16, bf16"),
                                  cl::cat(dumpCategory));
static cl::opt<std::string> target("target", cl::init("cuda"),
                                   cl::desc("cuda or cpu"),
                                   cl::cat(dumpCategory));
static cl::opt<int> smArch("sm", cl::init(90), cl::desc("CUDA arch, sm_XX"),
                           cl::cat(dumpCategory));

static cl::list<std::string>
    constexprOverrides("constexpr",
                       cl::desc("NAME=VALUE: set a constexpr of the kernel "
                                "(after --block-size's rule; repeatable)"),
                       cl::value_desc("NAME=VALUE"), cl::cat(dumpCategory));

static cl::list<std::string> argFacts(
    "arg-fact",
    cl::desc("INDEX=FACT: what the specialization knows of runtime argument "
             "INDEX: 1, 2, 4, 8 or 16 (divides it; pointers and integers) or "
             "zero (an integer traced as 0); repeatable"),
    cl::value_desc("INDEX=FACT"), cl::cat(dumpCategory));

static cl::list<std::string> argValues(
    "arg-value",
    cl::desc("INDEX=VALUE: compile as a launch with integer runtime argument "
             "INDEX equal to VALUE would: its divisibility (or zero) and, on "
             "the GPU, the range of a mask bound such as n_cols; repeatable"),
    cl::value_desc("INDEX=VALUE"), cl::cat(dumpCategory));

/// Sets the facts --arg-value's integers give in `key`, as a launch does.
static llvm::Error applyArgValues(const KernelDef &kernel,
                                  SpecializationKey &key) {
  if (argValues.empty())
    return llvm::Error::success();
  llvm::SmallVector<std::optional<int64_t>, 8> integers(key.argTypes.size());
  key.divisibility.resize(key.argTypes.size(), 1);
  for (const std::string &item : argValues) {
    auto [indexText, valueText] = llvm::StringRef(item).split('=');
    size_t index = 0;
    int64_t value = 0;
    if (indexText.getAsInteger(10, index) || index >= key.argTypes.size() ||
        valueText.getAsInteger(10, value))
      return llvm::createStringError(
          "--arg-value '" + item +
          "': takes INDEX=VALUE, an integer VALUE "
          "and INDEX a runtime argument, 0 to " +
          llvm::Twine(int64_t(key.argTypes.size()) - 1));
    DType type = key.argTypes[index];
    if (type != DType::I32 && type != DType::I64)
      return llvm::createStringError("--arg-value '" + item + "': argument " +
                                     indexText + " is not an integer");
    if (type == DType::I32 && (value < INT32_MIN || value > INT32_MAX))
      return llvm::createStringError("--arg-value '" + item + "': argument " +
                                     indexText + " is an i32");
    key.divisibility[index] = integerFactOf(value);
    integers[index] = value;
  }
  setMaskBoundRanges(kernel, integers, key);
  return llvm::Error::success();
}

/// Sets the argument facts named by --arg-fact in `key`.
static llvm::Error applyArgFacts(const KernelDef &kernel,
                                 SpecializationKey &key) {
  std::vector<ParamKind> kinds; // of the runtime arguments
  for (const ParamInfo &param : kernel.params())
    if (param.kind != ParamKind::Constexpr)
      kinds.push_back(param.kind);
  // Missing facts are 1 (none); checkSpecialization checks the types.
  if (!argFacts.empty() && key.divisibility.size() < kinds.size())
    key.divisibility.resize(kinds.size(), 1);
  size_t count =
      std::min({kinds.size(), key.divisibility.size(), key.argTypes.size()});
  for (const std::string &item : argFacts) {
    auto [indexText, factText] = llvm::StringRef(item).split('=');
    size_t index = 0;
    auto bad = [&](const llvm::Twine &why) {
      return llvm::createStringError("--arg-fact '" + item + "': " + why);
    };
    if (count == 0)
      return bad("the kernel has no runtime arguments");
    if (indexText.getAsInteger(10, index) || index >= count)
      return bad("INDEX must be a runtime argument, 0 to " +
                 llvm::Twine(count - 1));
    bool isScalar = kinds[index] == ParamKind::Scalar;
    bool isInteger = isScalar && (key.argTypes[index] == DType::I32 ||
                                  key.argTypes[index] == DType::I64);
    bool isFloat = isScalar && !isInteger;
    unsigned divisor = 0;
    if (factText == "zero") {
      if (!isInteger)
        return bad("only an integer argument can be zero");
      key.divisibility[index] = kIsZero;
    } else if (!factText.getAsInteger(10, divisor) &&
               llvm::isPowerOf2_32(divisor) && divisor <= kMaxDivisibility) {
      if (isFloat && divisor > 1)
        return bad("a float argument has no divisibility");
      key.divisibility[index] = uint8_t(divisor);
    } else {
      return bad("FACT must be 1, 2, 4, 8, 16 or zero");
    }
  }
  return llvm::Error::success();
}

/// Sets the constexprs named by --constexpr in `key`.
static llvm::Error applyConstexprOverrides(const KernelDef &kernel,
                                           SpecializationKey &key) {
  std::vector<std::string> names = kernel.constexprNames();
  for (const std::string &item : constexprOverrides) {
    auto [name, text] = llvm::StringRef(item).split('=');
    int64_t value = 0;
    if (text.getAsInteger(10, value))
      return llvm::createStringError(
          "--constexpr takes NAME=VALUE with an integer VALUE, got '" + item +
          "'");
    auto it = llvm::find(names, name);
    if (it == names.end() ||
        size_t(it - names.begin()) >= key.constexprs.size())
      return llvm::createStringError(
          "--constexpr: the kernel has no constexpr '" + name.str() +
          "'; it has: " + llvm::join(names, ", "));
    key.constexprs[it - names.begin()] = value;
  }
  return llvm::Error::success();
}

/// "softmax_columns: softmax_columns; softmax_columns_split:
/// softmax_columns_stats, ...": an operation's algorithms and the kernels
/// each launches (what blockjit-dump can show of it).
static std::string algorithmsOf(const RegisteredOperation &operation) {
  std::vector<std::string> algorithms;
  for (const Algorithm &a : operation.operation().spec().algorithms) {
    std::vector<std::string> kernels;
    for (const AlgorithmStep &step : a.steps)
      kernels.push_back(step.tuner->kernel().name());
    algorithms.push_back(a.name + ": " + llvm::join(kernels, ", "));
  }
  return llvm::join(algorithms, "; ");
}

static int listKernels() {
  llvm::outs() << "kernels:\n";
  for (const RegisteredKernel *k : registeredKernels())
    llvm::outs() << "  " << k->name << " - " << k->description << "\n";
  llvm::outs() << "operations (the faster of several algorithms; dump "
                  "their kernels by name):\n";
  for (const RegisteredOperation *o : registeredOperations())
    llvm::outs() << "  " << o->name << " - " << o->description << " ("
                 << algorithmsOf(*o) << ")\n";
  for (TargetKind kind : {TargetKind::CUDA, TargetKind::CPU}) {
    const Backend &backend = backendFor(kind);
    llvm::outs() << "stages (" << backend.name() << "): trace";
    for (const Stage &stage : backend.stages())
      llvm::outs() << " " << stage.name;
    llvm::outs() << "\n";
  }
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::Expected<bool> help = env::parseCommandLine(argc, argv);
  if (!help) {
    llvm::errs() << "blockjit-dump: " << llvm::toString(help.takeError())
                 << "\n";
    return 1;
  }
  if (*help)
    return 0;
  cl::HideUnrelatedOptions(dumpCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "blockjit kernel IR dumper (--blockjit-help: blockjit's own switches)\n");
  if (list)
    return listKernels();
  auto fail = [](const llvm::Twine &message) {
    llvm::errs() << "blockjit-dump: " << message << "\n";
    return 1;
  };
  if (kernelName.empty())
    return fail("name a kernel (see --list)");
  const RegisteredKernel *kernel = findKernel(kernelName);
  if (const RegisteredOperation *operation = findOperation(kernelName);
      !kernel && operation)
    return fail("'" + kernelName +
                "' is an operation of several kernels: dump them by name (" +
                algorithmsOf(*operation) + ")");
  if (!kernel)
    return fail("no kernel named '" + kernelName + "' (see --list)");
  auto type = parseDType(dtype);
  if (!type)
    return fail("unknown --dtype '" + dtype + "'");
  if (target != "cuda" && target != "cpu")
    return fail("--target must be cuda or cpu, got '" + target + "'");

  ExampleConfig config;
  config.blockSize = blockSize;
  config.options.numWarps = numWarps;
  config.options.numStages = numStages;
  config.options.numCTAs = numCTAs;
  config.options.programsPerCTA = programsPerCTA;
  auto loads = parseDefaultEviction(loadEviction);
  if (!loads)
    return fail("--load-eviction: " + llvm::toString(loads.takeError()));
  auto stores = parseDefaultEviction(storeEviction);
  if (!stores)
    return fail("--store-eviction: " + llvm::toString(stores.takeError()));
  config.options.loadEviction = *loads;
  config.options.storeEviction = *stores;
  config.options.maxRegisters = maxRegisters;
  config.dtype = *type;
  config.options.target =
      target == "cuda" ? Target::cuda(smArch) : Target::cpu();
  SpecializationKey key = kernel->exampleKey(config);
  if (llvm::Error error = applyConstexprOverrides(*kernel->kernel, key))
    return fail(llvm::toString(std::move(error)));
  if (llvm::Error error = applyArgFacts(*kernel->kernel, key))
    return fail(llvm::toString(std::move(error)));
  if (llvm::Error error = applyArgValues(*kernel->kernel, key))
    return fail(llvm::toString(std::move(error)));
  if (llvm::Error error = checkSpecialization(*kernel->kernel, key))
    return fail(llvm::toString(std::move(error)));

  std::vector<std::string> stages =
      stageNames(backendFor(key.options.target.kind));
  bool known = stage == "all" || stage == "trace" ||
               llvm::is_contained(stages, stage.getValue());
  if (!known)
    return fail("unknown stage '" + stage + "'; stages are: trace " +
                llvm::join(stages, " ") + " (or all)");

  mlir::DialectRegistry registry;
  registerDialects(registry);
  mlir::MLIRContext context(registry);
  auto module = kernel->kernel->trace(context, key.argTypes, key.constexprs,
                                      key.divisibility, key.ranges);
  if (!module)
    return fail(llvm::toString(module.takeError()));

  llvm::outs() << "// kernel " << specializationName(*kernel->kernel, key)
               << "\n";
  bool printed = false;
  auto print = [&](llvm::StringRef name, llvm::StringRef text) {
    if (stage != "all" && stage != name)
      return;
    if (stage == "all")
      llvm::outs() << "// ===== stage " << name << " =====\n";
    llvm::outs() << text;
    printed = true;
  };
  {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->get().print(os);
    print("trace", text);
  }
  if (stage != "trace") {
    if (llvm::Error error =
            compileModule(**module, key.options, print,
                          stage == "all" ? "" : stage.getValue())
                .takeError())
      return fail(llvm::toString(std::move(error)));
  }
  if (!printed)
    return fail("stage '" + stage + "' produced no output");
  return 0;
}
