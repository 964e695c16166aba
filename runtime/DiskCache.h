//===- DiskCache.h - compiled artifacts kept across processes --*- C++ -*-===//
//
// Entries live in $BLOCKJIT_CACHE_DIR (default ~/.cache/blockjit), named by a
// SHA-256 of everything the artifact depends on: the traced IR, the pipeline
// options, the target and blockjit's version. Each file carries a checksum of
// its payload; a truncated or corrupt entry reads as a miss and is rewritten.
// Writes go to a temporary file renamed into place, so readers never see a
// partial entry.
//
//===----------------------------------------------------------------------===//
#ifndef BLOCKJIT_RUNTIME_DISKCACHE_H
#define BLOCKJIT_RUNTIME_DISKCACHE_H

#include "compiler/Compile.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace blockjit {

/// The cache directory, or "" when caching on disk is off
/// (BLOCKJIT_CACHE_DIR set to an empty string, or no HOME).
std::string diskCacheDirectory();

/// The hex SHA-256 naming the entry for `ir` compiled with `options`.
std::string diskCacheKey(llvm::StringRef ir, const PipelineOptions &options);

/// The artifact stored under `key`, or nothing (missing, truncated, corrupt).
std::optional<CompiledArtifact> readDiskCache(llvm::StringRef key);

/// Stores `artifact` under `key` atomically; failures are silent (the cache
/// is an optimization).
void writeDiskCache(llvm::StringRef key, const CompiledArtifact &artifact);

} // namespace blockjit

#endif // BLOCKJIT_RUNTIME_DISKCACHE_H
