#!/usr/bin/env bash
# A 64-bit hash in a public API is spelled retcon::hash64 (snapshot/include/retcon/snapshot/hash.hpp),
# so a reader tells a world, section or file hash from a count or a time at a glance. Fails on a
# public header of snapshot, net or host that declares a std::uint64_t whose name ends in "hash"
# or "checksum" or whose comment starts with "hash", or a std::function taking one beside a
# frame. schema_hash and input_layout_hash
# are identities that retcon::ecs computes, below the layer that defines hash64.
#   check_hash64_spelling.sh REPO_DIR
set -euo pipefail
cd "$1"
found=$(grep -rnE --include='*.hpp' \
  -e 'std::uint64_t[[:space:]]+[A-Za-z0-9_]*(hash|checksum)[[:space:]]*[=;,)]' \
  -e 'std::function<[^>]*frame_t,[[:space:]]*std::uint64_t' \
  -e 'std::uint64_t[[:space:]]+[A-Za-z0-9_]+[^;]*;[[:space:]]*///<[[:space:]]*hash([^a-z]|$)' \
  snapshot/include net/include host/include | grep -vE '\b(schema_hash|input_layout_hash)\b' || true)
if [ -n "$found" ]; then
  echo "$found"
  echo "FAIL: the hashes above are spelled std::uint64_t; public APIs spell a 64-bit hash retcon::hash64"
  exit 1
fi
echo "every hash in the public headers of snapshot, net and host is a retcon::hash64"
