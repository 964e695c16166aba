//===- NVPTXTarget.cpp - LLVM IR to PTX ----------------------------------===//
#include "compiler/NVPTXTarget.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

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

std::string ptxFeatureFor(int smArch) {
  // Minimum PTX ISA for each arch (PTX ISA docs, "Target ISA notes").
  static const std::pair<int, int> table[] = {
      {120, 87}, {100, 86}, {90, 80}, {89, 78}, {87, 74}, {86, 71},
      {80, 70},  {75, 63},  {72, 61}, {70, 60}};
  for (auto [arch, ptx] : table)
    if (smArch >= arch)
      return "+ptx" + std::to_string(ptx);
  return "+ptx60";
}

static std::mutex machinesMutex;

llvm::Expected<llvm::TargetMachine &> nvptxTargetMachine(int smArch) {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  static std::map<int, std::unique_ptr<llvm::TargetMachine>> machines;
  std::lock_guard lock(machinesMutex);
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
                                     "for sm_" + std::to_string(smArch));
  }
  return *machine;
}

llvm::Expected<std::string> emitPTX(llvm::Module &module, int smArch) {
  auto machine = nvptxTargetMachine(smArch);
  if (!machine)
    return machine.takeError();
  std::lock_guard lock(machinesMutex);
  llvm::SmallString<0> ptx;
  llvm::raw_svector_ostream stream(ptx);
  llvm::legacy::PassManager pm;
  if (machine->addPassesToEmitFile(pm, stream, nullptr,
                                   llvm::CodeGenFileType::AssemblyFile))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "NVPTX cannot emit assembly");
  pm.run(module);
  return std::string(ptx.str());
}

} // namespace blockjit
