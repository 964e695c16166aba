//===- HostTarget.cpp - LLVM IR to host machine code ---------------------===//
#include "compiler/cpu/HostTarget.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <mutex>

namespace blockjit {

llvm::Expected<llvm::TargetMachine &> hostTargetMachine() {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  // One per thread: a TargetMachine caches subtargets as it is used, so
  // compilations on several threads (the autotuner's) cannot share one.
  static thread_local std::unique_ptr<llvm::TargetMachine> machine;
  static thread_local std::string error;
  static thread_local bool created = false;
  if (!created) {
    created = true;
    auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!builder) {
      error = llvm::toString(builder.takeError());
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "no target machine for this host: " +
                                         error);
    }
    // The AVX512-BF16 and AVX-NE-CONVERT f32 -> bf16 conversions flush
    // denormals to zero whatever MXCSR says, so bf16 results would differ
    // from the GPU's (cvt.rn.bf16.f32 keeps them); without them LLVM calls
    // __truncsfbf2, which rounds denormals correctly.
    builder->getFeatures().AddFeature("avx512bf16", false);
    builder->getFeatures().AddFeature("avxneconvert", false);
    builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
    builder->setRelocationModel(llvm::Reloc::PIC_);
    auto tm = builder->createTargetMachine();
    if (!tm)
      error = llvm::toString(tm.takeError());
    else
      machine = std::move(*tm);
  }
  if (!machine)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no target machine for this host: " + error);
  return *machine;
}

bool hostHasAVX512() {
  auto machine = hostTargetMachine();
  if (!machine) {
    llvm::consumeError(machine.takeError());
    return false;
  }
  return machine->getMCSubtargetInfo()->checkFeatures("+avx512f");
}

llvm::Expected<std::string> emitHostCode(llvm::Module &module,
                                         HostOutput output) {
  auto machine = hostTargetMachine();
  if (!machine)
    return machine.takeError();
  llvm::SmallString<0> code;
  llvm::raw_svector_ostream stream(code);
  llvm::legacy::PassManager pm;
  if (machine->addPassesToEmitFile(pm, stream, nullptr,
                                   output == HostOutput::Object
                                       ? llvm::CodeGenFileType::ObjectFile
                                       : llvm::CodeGenFileType::AssemblyFile))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the host target cannot emit this file type");
  pm.run(module);
  return std::string(code.str());
}

} // namespace blockjit
