//===- Fingerprint.cpp - what a compiled artifact depends on -------------===//
#include "compiler/Fingerprint.h"
#include "compiler/HostTarget.h"
#include "compiler/NVPTXTarget.h"

#include "compiler/SourceFingerprint.inc"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Target/TargetMachine.h"

#include <map>
#include <mutex>

namespace blockjit {

namespace {
/// `ptxas --version`, asked once per ptxas per process ("" if it fails).
std::string ptxasVersion(const std::string &ptxas) {
  static std::mutex mutex;
  static std::map<std::string, std::string> known;
  std::lock_guard lock(mutex);
  auto [it, inserted] = known.try_emplace(ptxas);
  if (!inserted)
    return it->second;
  llvm::SmallString<128> output;
  if (llvm::sys::fs::createTemporaryFile("blockjit-ptxas", "txt", output))
    return "";
  std::optional<llvm::StringRef> redirects[] = {
      std::nullopt, llvm::StringRef(output), llvm::StringRef(output)};
  llvm::StringRef args[] = {ptxas, "--version"};
  if (llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects) == 0)
    if (auto text = llvm::MemoryBuffer::getFile(output))
      it->second = (*text)->getBuffer().trim().str();
  llvm::sys::fs::remove(output);
  return it->second;
}
} // namespace

const char *sourceFingerprint() { return BLOCKJIT_SOURCE_FINGERPRINT; }

std::string compilerFingerprint(const PipelineOptions &options) {
  std::string text = std::string("blockjit sources ") + sourceFingerprint() +
                     "\nllvm " LLVM_VERSION_STRING "\n";
  if (options.backend == Backend::CPU) {
    // Host objects depend on the CPU they were compiled for.
    if (auto machine = hostTargetMachine())
      text += ("host " + machine->getTargetCPU() + " " +
               machine->getTargetFeatureString() + "\n")
                  .str();
    else
      llvm::consumeError(machine.takeError());
    return text;
  }
  // GPU artifacts are cubins when a ptxas is found, else PTX.
  std::string ptxas = findPtxas();
  text += ptxas.empty() ? std::string("ptx (no ptxas)\n")
                        : "ptxas " + ptxas + ": " + ptxasVersion(ptxas) + "\n";
  return text;
}

} // namespace blockjit
