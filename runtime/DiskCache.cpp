//===- DiskCache.cpp - compiled artifacts kept across processes ----------===//
#include "runtime/DiskCache.h"
#include "compiler/Environment.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>

namespace blockjit {

namespace {

// Version 8: entries name their kind (artifact, tuning result).
constexpr char kMagic[8] = {'B', 'J', 'I', 'T', 'C', 'A', 'C', '9'};
constexpr llvm::StringLiteral kArtifactKind = "artifact";

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

} // namespace

std::string diskCacheDirectory() {
  if (auto dir = env::cacheDir())
    return *dir;
  auto home = env::home();
  if (!home || home->empty())
    return "";
  llvm::SmallString<256> path(*home);
  llvm::sys::path::append(path, ".cache", "blockjit");
  return std::string(path);
}

std::string DiskCacheKey::path() const {
  llvm::SmallString<256> path(diskCacheDirectory());
  llvm::sys::path::append(path, hash + ".bjc");
  return std::string(path);
}

DiskCacheKey diskCacheKey(std::string material) {
  DiskCacheKey key;
  key.material = std::move(material);
  key.hash = llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(
                             llvm::StringRef(key.material))),
                         /*LowerCase=*/true);
  return key;
}

std::optional<std::string> readDiskEntry(const DiskCacheKey &key,
                                         llvm::StringRef kind) {
  if (diskCacheDirectory().empty())
    return std::nullopt;
  auto file = llvm::MemoryBuffer::getFile(key.path());
  if (!file)
    return std::nullopt; // a miss
  auto reject = [&](llvm::StringRef why) -> std::optional<std::string> {
    discardDiskCacheEntry(key, why);
    return std::nullopt;
  };
  llvm::StringRef in = (*file)->getBuffer();
  if (!in.consume_front(llvm::StringRef(kMagic, sizeof(kMagic))))
    return reject("not a blockjit cache entry of this version");
  std::string storedKind;
  if (!readString(in, storedKind) || storedKind != kind)
    return reject("not a " + kind.str() + " entry");
  uint64_t size;
  if (!readU64(in, size) || in.size() < 32 || in.size() - 32 != size)
    return reject("truncated or padded");
  llvm::StringRef checksum = in.take_front(32), payload = in.drop_front(32);
  auto actual = llvm::SHA256::hash(llvm::arrayRefFromStringRef(payload));
  if (checksum != llvm::StringRef(reinterpret_cast<const char *>(actual.data()),
                                  actual.size()))
    return reject("checksum mismatch");
  std::string material;
  if (!readString(payload, material))
    return reject("malformed payload");
  if (material != key.material)
    return reject("written for another specialization or compiler");
  return payload.str();
}

void writeDiskEntry(const DiskCacheKey &key, llvm::StringRef kind,
                    llvm::StringRef content) {
  std::string directory = diskCacheDirectory();
  if (directory.empty() || llvm::sys::fs::create_directories(directory))
    return;
  std::string payload;
  appendString(payload, key.material);
  payload += content;
  auto checksum = llvm::SHA256::hash(llvm::arrayRefFromStringRef(payload));

  llvm::SmallString<256> temp;
  int fd;
  if (llvm::sys::fs::createUniqueFile(
          llvm::Twine(directory) + "/" + key.hash + ".tmp-%%%%%%%%", fd, temp))
    return;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(kMagic, sizeof(kMagic));
    std::string header;
    appendString(header, kind);
    appendU64(header, payload.size());
    os << header;
    os.write(reinterpret_cast<const char *>(checksum.data()), checksum.size());
    os << payload;
    os.close();
    if (os.has_error()) {
      os.clear_error();
      llvm::sys::fs::remove(temp);
      return;
    }
  }
  if (llvm::sys::fs::rename(temp, key.path()))
    llvm::sys::fs::remove(temp);
}

std::optional<CompiledArtifact> readDiskCache(const DiskCacheKey &key) {
  std::optional<std::string> content = readDiskEntry(key, kArtifactKind);
  if (!content)
    return std::nullopt;
  llvm::StringRef payload = *content;
  CompiledArtifact artifact;
  uint64_t format, threads, ctas, programs, shared, dynamicShared, scratch;
  if (!readU64(payload, format) || !readU64(payload, threads) ||
      !readU64(payload, ctas) || !readU64(payload, programs) ||
      !readU64(payload, shared) || !readU64(payload, dynamicShared) ||
      !readU64(payload, scratch) || !readString(payload, artifact.entryName) ||
      !readString(payload, artifact.binary) || !payload.empty()) {
    discardDiskCacheEntry(key, "malformed payload");
    return std::nullopt;
  }
  if (format > uint64_t(ArtifactFormat::Cubin)) {
    discardDiskCacheEntry(key, "unknown artifact format");
    return std::nullopt;
  }
  artifact.format = ArtifactFormat(format);
  artifact.threadsPerProgram = int(threads);
  artifact.ctasPerProgram = int(ctas);
  artifact.programsPerCTA = int(programs);
  artifact.sharedMemoryBytes = int(shared);
  artifact.dynamicSharedMemoryBytes = int(dynamicShared);
  artifact.cpuScratchBytes = int64_t(scratch);
  if (!looksLoadable(artifact)) {
    discardDiskCacheEntry(key, "its content is not a loadable artifact");
    return std::nullopt;
  }
  return artifact;
}

void discardDiskCacheEntry(const DiskCacheKey &key, llvm::StringRef why) {
  std::string path = key.path();
  llvm::errs() << "blockjit: warning: discarding cache entry " << path << ": "
               << why << "; recompiling\n";
  llvm::sys::fs::remove(path);
}

void writeDiskCache(const DiskCacheKey &key, const CompiledArtifact &artifact) {
  std::string content;
  appendU64(content, uint64_t(artifact.format));
  appendU64(content, artifact.threadsPerProgram);
  appendU64(content, artifact.ctasPerProgram);
  appendU64(content, artifact.programsPerCTA);
  appendU64(content, artifact.sharedMemoryBytes);
  appendU64(content, artifact.dynamicSharedMemoryBytes);
  appendU64(content, artifact.cpuScratchBytes);
  appendString(content, artifact.entryName);
  appendString(content, artifact.binary);
  writeDiskEntry(key, kArtifactKind, content);
}

} // namespace blockjit
