//===- Specialization.cpp - what one compiled kernel depends on ----------===//
#include "compiler/Specialization.h"
#include "compiler/Backend.h"
#include "compiler/Fingerprint.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

namespace blockjit {

namespace {
llvm::Error optionError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

bool isPowerOfTwoIn(int value, int max) {
  return value >= 1 && value <= max && (value & (value - 1)) == 0;
}
} // namespace

std::string Target::str() const {
  if (kind == TargetKind::CPU)
    return "cpu";
  return "cuda:sm_" + std::to_string(smArch);
}

llvm::StringRef defaultEvictionName(DefaultEviction eviction) {
  switch (eviction) {
  case DefaultEviction::Normal:
    return "normal";
  case DefaultEviction::First:
    return "evict_first";
  case DefaultEviction::Last:
    return "evict_last";
  }
  return "normal";
}

llvm::Expected<DefaultEviction> parseDefaultEviction(llvm::StringRef name) {
  for (DefaultEviction eviction :
       {DefaultEviction::Normal, DefaultEviction::First, DefaultEviction::Last})
    if (name == defaultEvictionName(eviction))
      return eviction;
  return optionError(llvm::formatv(
      "an eviction priority is normal, evict_first or evict_last, got '{0}'",
      name));
}

std::string CompileOptions::evictionSuffix() const {
  std::string text;
  if (loadEviction != DefaultEviction::Normal)
    text += ",loads=" + defaultEvictionName(loadEviction).str();
  if (storeEviction != DefaultEviction::Normal)
    text += ",stores=" + defaultEvictionName(storeEviction).str();
  return text;
}

std::string CompileOptions::str() const {
  std::string text = llvm::formatv("warps={0},stages={1}", numWarps, numStages);
  if (numCTAs > 1)
    text += ",ctas=" + std::to_string(numCTAs);
  if (programsPerCTA > 1)
    text += ",programs=" + std::to_string(programsPerCTA);
  if (maxRegisters)
    text += ",maxnreg=" + std::to_string(maxRegisters);
  return text + evictionSuffix() + "|" + target.str();
}

llvm::Error checkNumWarps(int numWarps) {
  if (!isPowerOfTwoIn(numWarps, kMaxNumWarps))
    return optionError(
        llvm::formatv("num_warps must be a power of two in 1..{0}, got {1}",
                      kMaxNumWarps, numWarps));
  return llvm::Error::success();
}

llvm::Error checkNumStages(int numStages) {
  if (numStages < 1 || numStages > kMaxNumStages)
    return optionError(llvm::formatv("num_stages must be in 1..{0}, got {1}",
                                     kMaxNumStages, numStages));
  return llvm::Error::success();
}

llvm::Error checkNumCTAs(int numCTAs) {
  if (!isPowerOfTwoIn(numCTAs, kMaxNumCTAs))
    return optionError(
        llvm::formatv("num_ctas must be a power of two in 1..{0}, got {1}",
                      kMaxNumCTAs, numCTAs));
  return llvm::Error::success();
}

llvm::Error checkProgramsPerCTA(int programsPerCTA, int numWarps, int numCTAs) {
  if (!isPowerOfTwoIn(programsPerCTA, kMaxProgramsPerCTA))
    return optionError(llvm::formatv(
        "programs_per_cta must be a power of two in 1..{0}, got {1}",
        kMaxProgramsPerCTA, programsPerCTA));
  if (programsPerCTA == 1)
    return llvm::Error::success();
  if (int64_t(programsPerCTA) * numWarps * 32 > kMaxThreadsPerCTA)
    return optionError(llvm::formatv(
        "programs_per_cta = {0} of num_warps = {1} make a CTA of {2} "
        "threads; a CTA has at most {3}",
        programsPerCTA, numWarps, programsPerCTA * numWarps * 32,
        kMaxThreadsPerCTA));
  if (numCTAs > 1)
    return optionError(llvm::formatv(
        "programs_per_cta = {0} and num_ctas = {1}: a program spread over a "
        "cluster has its CTAs to itself (use one of the two)",
        programsPerCTA, numCTAs));
  return llvm::Error::success();
}

llvm::Error checkMaxRegisters(int maxRegisters) {
  if (maxRegisters != 0 &&
      (maxRegisters < kMinRegisterCap || maxRegisters > kMaxRegisterCap))
    return optionError(llvm::formatv(
        "max_registers must be 0 (no cap) or in {0}..{1}, got {2}",
        kMinRegisterCap, kMaxRegisterCap, maxRegisters));
  return llvm::Error::success();
}

llvm::Error validate(const CompileOptions &options) {
  if (llvm::Error error = checkNumWarps(options.numWarps))
    return error;
  if (llvm::Error error = checkNumStages(options.numStages))
    return error;
  if (llvm::Error error = checkNumCTAs(options.numCTAs))
    return error;
  if (llvm::Error error = checkProgramsPerCTA(
          options.programsPerCTA, options.numWarps, options.numCTAs))
    return error;
  if (llvm::Error error = checkMaxRegisters(options.maxRegisters))
    return error;
  return backendFor(options.target.kind).checkOptions(options);
}

static llvm::hash_code hash_value(const IntRange &range) {
  return llvm::hash_combine(range.low, range.high);
}

size_t SpecializationKey::hash() const {
  return llvm::hash_combine(
      llvm::hash_combine_range(argTypes.begin(), argTypes.end()),
      llvm::hash_combine_range(constexprs.begin(), constexprs.end()),
      llvm::hash_combine_range(divisibility.begin(), divisibility.end()),
      llvm::hash_combine_range(ranges.begin(), ranges.end()), options.numWarps,
      options.numStages, options.numCTAs, options.programsPerCTA,
      options.loadEviction, options.storeEviction, options.maxRegisters,
      options.target.kind, options.target.smArch);
}

std::string
SpecializationKey::str(llvm::StringRef kernelName,
                       llvm::ArrayRef<std::string> constexprNames) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << kernelName << "[";
  llvm::interleave(
      argTypes, os, [&](DType type) { os << dtypeName(type); }, ",");
  os << "|";
  for (size_t i = 0; i < constexprs.size(); ++i)
    os << (i ? "," : "")
       << (i < constexprNames.size() ? constexprNames[i]
                                     : "c" + std::to_string(i))
       << "=" << constexprs[i];
  os << "|warps=" << options.numWarps << ",stages=" << options.numStages;
  if (options.numCTAs > 1)
    os << ",ctas=" << options.numCTAs;
  if (options.programsPerCTA > 1)
    os << ",programs=" << options.programsPerCTA;
  if (options.maxRegisters)
    os << ",maxnreg=" << options.maxRegisters;
  os << options.evictionSuffix();
  // "div16=" always (the common case reads as Triton's), the smaller
  // divisors only where an argument has one.
  auto argsWith = [&](unsigned fact) {
    llvm::SmallVector<size_t> args;
    for (size_t i = 0; i < divisibility.size(); ++i)
      if (divisibility[i] == fact)
        args.push_back(i);
    return args;
  };
  for (unsigned divisor = kMaxDivisibility; divisor > 1; divisor /= 2) {
    llvm::SmallVector<size_t> args = argsWith(divisor);
    if (args.empty() && divisor != kMaxDivisibility)
      continue;
    os << "|div" << divisor << "=";
    llvm::interleave(args, os, ",");
  }
  // Integers specialized as 0 (kIsZero), where there are any.
  if (llvm::SmallVector<size_t> zeros = argsWith(kIsZero); !zeros.empty()) {
    os << "|zero=";
    llvm::interleave(zeros, os, ",");
  }
  // Mask bounds specialized on a range of values, where there are any.
  for (size_t i = 0; i < ranges.size(); ++i)
    if (ranges[i].known())
      os << "|range" << i << "=" << ranges[i].low << ".." << ranges[i].high;
  os << "|" << options.target.str() << "]";
  return text;
}

std::string
SpecializationKey::fileName(llvm::StringRef kernelName,
                            llvm::ArrayRef<std::string> constexprNames) const {
  std::string name = str(kernelName, constexprNames);
  for (char &ch : name)
    if (!isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '-' &&
        ch != '=' && ch != ',' && ch != '.')
      ch = '_';
  return name;
}

std::string artifactKeyMaterial(llvm::StringRef tracedIR,
                                const CompileOptions &options) {
  return std::string("blockjit sources ") + sourceFingerprint() + "\nllvm " +
         llvmVersion() + "\n" +
         backendFor(options.target.kind).fingerprint(options) + "options " +
         options.str() + "\n" + tracedIR.str();
}

std::string tuningKeyMaterial(llvm::StringRef firstConfigMaterial,
                              llvm::StringRef deviceName,
                              llvm::StringRef tuningKey,
                              llvm::ArrayRef<std::string> configs) {
  return "blockjit tuning result\ndevice " + deviceName.str() + "\nkey " +
         tuningKey.str() + "\nconfigs " + configListDigest(configs) +
         "\nkernel\n" + firstConfigMaterial.str();
}

std::string configListDigest(llvm::ArrayRef<std::string> configs) {
  // The list as its count and SHA-256: softmax_columns' space named in
  // full made every tuned shape's entry ~450 KB.
  llvm::SHA256 digest;
  for (const std::string &config : configs) {
    digest.update(config);
    digest.update(llvm::StringRef("\n"));
  }
  return std::to_string(configs.size()) +
         " sha256:" + llvm::toHex(digest.final(), /*LowerCase=*/true);
}

std::string operationKeyMaterial(
    llvm::StringRef deviceName, llvm::StringRef choiceKey,
    llvm::ArrayRef<std::pair<std::string, std::vector<std::string>>>
        algorithms) {
  std::string material = "blockjit operation choice\ndevice " +
                         deviceName.str() + "\nkey " + choiceKey.str() + "\n";
  for (const auto &[name, kernels] : algorithms) {
    material += "algorithm " + name + " (" + std::to_string(kernels.size()) +
                " kernels)\n";
    for (const std::string &kernel : kernels)
      material += "kernel\n" + kernel + "\n";
  }
  return material;
}

int64_t sharedMemoryForBlocks(int smArch) {
  int64_t optIn = smArch >= 90                   ? 227 * 1024
                  : smArch == 80                 ? 163 * 1024
                  : smArch == 86 || smArch == 89 ? 99 * 1024
                  : smArch >= 75                 ? 64 * 1024
                  : smArch >= 70                 ? 96 * 1024
                                                 : 48 * 1024;
  return optIn - 4 * 1024;
}

int64_t liveRegisterWords(int64_t threads) {
  return std::min<int64_t>(255, 65536 / std::max<int64_t>(1, threads)) * 5 / 8;
}

} // namespace blockjit
