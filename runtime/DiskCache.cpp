//===- DiskCache.cpp - compiled artifacts kept across processes ----------===//
#include "runtime/DiskCache.h"

#include "compiler/HostTarget.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <cstdlib>
#include <cstring>

#ifndef BLOCKJIT_VERSION
#define BLOCKJIT_VERSION "unknown"
#endif

namespace blockjit {

namespace {

constexpr char kMagic[8] = {'B', 'J', 'I', 'T', 'C', 'A', 'C', '2'};

void appendU64(std::string &out, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    out.push_back(char(v >> (8 * i)));
}
bool readU64(llvm::StringRef &in, uint64_t &v) {
  if (in.size() < 8)
    return false;
  v = 0;
  for (int i = 0; i < 8; ++i)
    v |= uint64_t(uint8_t(in[i])) << (8 * i);
  in = in.drop_front(8);
  return true;
}
void appendString(std::string &out, llvm::StringRef s) {
  appendU64(out, s.size());
  out.append(s.begin(), s.end());
}
bool readString(llvm::StringRef &in, std::string &s) {
  uint64_t size;
  if (!readU64(in, size) || in.size() < size)
    return false;
  s = in.take_front(size).str();
  in = in.drop_front(size);
  return true;
}

std::string entryPath(llvm::StringRef key) {
  llvm::SmallString<256> path(diskCacheDirectory());
  llvm::sys::path::append(path, key + ".bjc");
  return std::string(path);
}

} // namespace

std::string diskCacheDirectory() {
  if (const char *dir = std::getenv("BLOCKJIT_CACHE_DIR"))
    return dir;
  const char *home = std::getenv("HOME");
  if (!home || !*home)
    return "";
  llvm::SmallString<256> path(home);
  llvm::sys::path::append(path, ".cache", "blockjit");
  return std::string(path);
}

std::string diskCacheKey(llvm::StringRef ir, const PipelineOptions &options) {
  llvm::SHA256 hash;
  hash.update("blockjit " BLOCKJIT_VERSION "\n");
  hash.update(ir);
  std::string opts = llvm::formatv("backend={0} sm={1} warps={2} stages={3}",
                                   int(options.backend), options.smArch,
                                   options.numWarps, options.numStages)
                         .str();
  hash.update(opts);
  // Host objects depend on the CPU they were compiled for.
  if (options.backend == Backend::CPU)
    if (auto machine = hostTargetMachine()) {
      hash.update(machine->getTargetCPU());
      hash.update(machine->getTargetFeatureString());
    } else {
      llvm::consumeError(machine.takeError());
    }
  return llvm::toHex(hash.final(), /*LowerCase=*/true);
}

std::optional<CompiledArtifact> readDiskCache(llvm::StringRef key) {
  if (diskCacheDirectory().empty())
    return std::nullopt;
  auto file = llvm::MemoryBuffer::getFile(entryPath(key));
  if (!file)
    return std::nullopt;
  llvm::StringRef in = (*file)->getBuffer();
  if (!in.consume_front(llvm::StringRef(kMagic, sizeof(kMagic))))
    return std::nullopt;
  uint64_t size;
  if (!readU64(in, size) || in.size() < 32 || in.size() - 32 != size)
    return std::nullopt; // truncated or padded
  llvm::StringRef checksum = in.take_front(32), payload = in.drop_front(32);
  auto actual = llvm::SHA256::hash(llvm::arrayRefFromStringRef(payload));
  if (checksum != llvm::StringRef(reinterpret_cast<const char *>(actual.data()),
                                  actual.size()))
    return std::nullopt; // corrupt
  CompiledArtifact artifact;
  uint64_t backend, cubin, threads, shared;
  if (!readU64(payload, backend) || !readU64(payload, cubin) ||
      !readU64(payload, threads) || !readU64(payload, shared) ||
      !readString(payload, artifact.entryName) ||
      !readString(payload, artifact.binary) || !payload.empty())
    return std::nullopt;
  artifact.backend = backend ? Backend::GPU : Backend::CPU;
  artifact.isCubin = cubin != 0;
  artifact.threadsPerProgram = int(threads);
  artifact.sharedMemoryBytes = int(shared);
  return artifact;
}

void writeDiskCache(llvm::StringRef key, const CompiledArtifact &artifact) {
  std::string directory = diskCacheDirectory();
  if (directory.empty() || llvm::sys::fs::create_directories(directory))
    return;
  std::string payload;
  appendU64(payload, artifact.backend == Backend::GPU);
  appendU64(payload, artifact.isCubin);
  appendU64(payload, artifact.threadsPerProgram);
  appendU64(payload, artifact.sharedMemoryBytes);
  appendString(payload, artifact.entryName);
  appendString(payload, artifact.binary);
  auto checksum = llvm::SHA256::hash(llvm::arrayRefFromStringRef(payload));

  llvm::SmallString<256> temp;
  int fd;
  if (llvm::sys::fs::createUniqueFile(
          llvm::Twine(directory) + "/" + key + ".tmp-%%%%%%%%", fd, temp))
    return;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(kMagic, sizeof(kMagic));
    std::string size;
    appendU64(size, payload.size());
    os << size;
    os.write(reinterpret_cast<const char *>(checksum.data()), checksum.size());
    os << payload;
    os.close();
    if (os.has_error()) {
      os.clear_error();
      llvm::sys::fs::remove(temp);
      return;
    }
  }
  if (llvm::sys::fs::rename(temp, entryPath(key)))
    llvm::sys::fs::remove(temp);
}

} // namespace blockjit
