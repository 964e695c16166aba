//===- NVPTXTarget.cpp - LLVM IR to PTX ----------------------------------===//
#include "compiler/gpu/NVPTXTarget.h"
#include "compiler/Environment.h"
#include "compiler/LLVMDiagnostics.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

#include "llvm/ADT/ScopeExit.h"

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

extern "C" {
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

namespace blockjit {

namespace {
/// Every arch blockjit generates code for, with the lowest PTX ISA version
/// that supports it (PTX ISA docs, "Target ISA notes"), so older drivers
/// still load the PTX; sm_90 takes 8.1 (CUDA 12.1), whose st.async the
/// cluster exchanges use. The NVPTX backend of LLVM 22 knows each of them.
constexpr std::pair<int, int> kCudaArchs[] = {
    {70, 60},  {72, 61},  {75, 63},  {80, 70},  {86, 71},
    {87, 74},  {88, 90},  {89, 78},  {90, 81},  {100, 86},
    {101, 86}, {103, 88}, {110, 90}, {120, 87}, {121, 88}};
} // namespace

std::string supportedCudaArchs() {
  std::string list;
  for (auto [arch, ptx] : kCudaArchs)
    list += (list.empty() ? "sm_" : ", sm_") + std::to_string(arch);
  return list;
}

llvm::Error checkCudaArch(int smArch) {
  for (auto [arch, ptx] : kCudaArchs)
    if (arch == smArch)
      return llvm::Error::success();
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "sm_" + std::to_string(smArch) +
          " is not a CUDA arch blockjit can compile for; supported: " +
          supportedCudaArchs());
}

int ptxVersionFor(int smArch) {
  for (auto [arch, ptx] : kCudaArchs)
    if (arch == smArch)
      return ptx;
  return 0;
}

bool hasEvictionPriorities(int smArch, int ptxVersion) {
  return smArch >= 80 && ptxVersion >= 74;
}

std::string ptxFeatureFor(int smArch) {
  int ptx = ptxVersionFor(smArch);
  return ptx ? "+ptx" + std::to_string(ptx) : "";
}

llvm::Expected<llvm::TargetMachine &> nvptxTargetMachine(int smArch) {
  static std::once_flag once;
  std::call_once(once, [] {
    // LLVM's straight-line strength reduction, part of the NVPTX codegen
    // pipeline, is quadratic in the size of a basic block (a block of 2^18
    // elements spent 8 of its 9 s there); on blockjit's kernels it changes
    // only a few prologue instructions. LLVM has no per-target switch for
    // it, so it is turned off through the pass gate, process-wide.
    if (llvm::cl::Option *disable =
            llvm::cl::getRegisteredOptions().lookup("opt-disable"))
      (void)disable->addOccurrence(0, "opt-disable", "slsr");
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  if (llvm::Error error = checkCudaArch(smArch))
    return std::move(error);
  // One per thread and arch: compilations on several threads (the
  // autotuner's) each use their own, with no lock around code generation.
  static thread_local std::map<int, std::unique_ptr<llvm::TargetMachine>>
      machines;
  auto &machine = machines[smArch];
  if (!machine) {
    llvm::Triple triple("nvptx64-nvidia-cuda");
    std::string error;
    const llvm::Target *target =
        llvm::TargetRegistry::lookupTarget(triple, error);
    if (!target)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "NVPTX target unavailable: " + error);
    llvm::TargetOptions options;
    machine.reset(target->createTargetMachine(
        triple, "sm_" + std::to_string(smArch), ptxFeatureFor(smArch), options,
        std::nullopt, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
    if (!machine)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "cannot create an NVPTX target machine "
                                     "for sm_" +
                                         std::to_string(smArch));
  }
  return *machine;
}

int smArchOf(const llvm::TargetMachine &machine) {
  llvm::StringRef cpu = machine.getTargetCPU();
  int smArch = 0;
  if (!machine.getTargetTriple().isNVPTX() || !cpu.consume_front("sm_") ||
      cpu.consumeInteger(10, smArch))
    return 0;
  return smArch;
}

llvm::Expected<std::string> emitPTX(llvm::Module &module, int smArch) {
  auto machine = nvptxTargetMachine(smArch);
  if (!machine)
    return machine.takeError();
  llvm::SmallString<0> ptx;
  llvm::raw_svector_ostream stream(ptx);
  llvm::legacy::PassManager pm;
  if (machine->addPassesToEmitFile(pm, stream, nullptr,
                                   llvm::CodeGenFileType::AssemblyFile))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "NVPTX cannot emit assembly");
  // Code generation reports some failures (e.g. "no libcall available")
  // as error diagnostics, which by default end the process.
  LLVMDiagnosticsCollector diagnostics(module.getContext());
  pm.run(module);
  if (!diagnostics.errors().empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "NVPTX code generation failed: " +
                                       diagnostics.errors());
  return std::string(ptx.str());
}

std::string findPtxas() {
  if (auto chosen = env::ptxas())
    return *chosen == "none" ? "" : *chosen;
  if (auto onPath = llvm::sys::findProgramByName("ptxas"))
    return *onPath;
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda/bin/ptxas";
  return "";
}

llvm::Expected<std::string> assembleCubin(llvm::StringRef ptxas,
                                          llvm::StringRef ptx, int smArch) {
  llvm::SmallString<128> input, output;
  int fd;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("blockjit", "ptx", fd, input))
    return llvm::createStringError(ec, "cannot create a temporary PTX file");
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  auto removeInput =
      llvm::make_scope_exit([&] { llvm::sys::fs::remove(input); });
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("blockjit", "cubin", output))
    return llvm::createStringError(ec, "cannot create a temporary cubin file");
  auto removeOutput =
      llvm::make_scope_exit([&] { llvm::sys::fs::remove(output); });
  std::string arch = "-arch=sm_" + std::to_string(smArch);
  llvm::StringRef args[] = {ptxas, arch, input, "-o", output};
  std::string message;
  int rc =
      llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, {}, 0, 0, &message);
  if (rc != 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "ptxas failed (exit " + std::to_string(rc) +
                                       ") " + message);
  auto cubin = llvm::MemoryBuffer::getFile(output);
  if (!cubin)
    return llvm::createStringError(cubin.getError(), "ptxas wrote no cubin");
  return (*cubin)->getBuffer().str();
}

} // namespace blockjit
