//===- DiskCache.h - artifacts and tuning results kept across processes -===//
//
// Entries live in $BLOCKJIT_CACHE_DIR (default ~/.cache/blockjit), named by a
// SHA-256 of everything their content depends on: for a compiled artifact,
// artifactKeyMaterial() in compiler/Specialization.h (the traced IR, the
// compile options and the compiler's fingerprint); for a tuning result,
// runtime/Autotune.cpp's key. This file only stores and checks entries.
// Each file carries a checksum of its payload and the full key it was written
// for; an entry that fails either check, or whose artifact fails to load, is
// discarded with a one-line warning and rewritten. Writes go to a temporary
// file renamed into place, so readers never see a partial entry.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_RUNTIME_DISKCACHE_H
#define BLOCKJIT_RUNTIME_DISKCACHE_H

#include "compiler/Artifact.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace blockjit {

/// The cache directory, or "" when caching on disk is off
/// (BLOCKJIT_CACHE_DIR set to an empty string, or no HOME).
std::string diskCacheDirectory();

/// What names and identifies one entry.
struct DiskCacheKey {
  /// Everything the artifact depends on, in full (artifactKeyMaterial()).
  /// Each entry records it and a read checks it, so an entry that a hash
  /// collision, a bug or a hand put under this name is never used.
  std::string material;
  /// Hex SHA-256 of `material`: the entry's file name.
  std::string hash;
  /// The entry's path in diskCacheDirectory().
  std::string path() const;
};

/// The entry for `material` (see artifactKeyMaterial()).
DiskCacheKey diskCacheKey(std::string material);

/// The content stored under `key` as an entry of `kind` ("artifact",
/// "tuning"...), or nothing. An entry that exists but cannot be used
/// (truncated, corrupt, of another kind, recorded for another key) is removed
/// with a one-line warning on stderr naming the file.
std::optional<std::string> readDiskEntry(const DiskCacheKey &key,
                                         llvm::StringRef kind);

/// Stores `content` under `key` as an entry of `kind`, atomically; failures
/// are silent (the cache is an optimization).
void writeDiskEntry(const DiskCacheKey &key, llvm::StringRef kind,
                    llvm::StringRef content);

/// The artifact stored under `key`, or nothing. An entry that exists but
/// cannot be used (truncated, corrupt, recorded for another key, content
/// that is not an artifact of its format) is removed with a one-line
/// warning on stderr naming the file.
std::optional<CompiledArtifact> readDiskCache(const DiskCacheKey &key);

/// Stores `artifact` under `key` atomically; failures are silent (the cache
/// is an optimization).
void writeDiskCache(const DiskCacheKey &key, const CompiledArtifact &artifact);

/// Removes the entry under `key` with a one-line warning on stderr naming the
/// file and `why` (e.g. the artifact read from it failed to load).
void discardDiskCacheEntry(const DiskCacheKey &key, llvm::StringRef why);

} // namespace blockjit

#endif // BLOCKJIT_RUNTIME_DISKCACHE_H
