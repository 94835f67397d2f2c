// libFuzzer target: parse_snapshot_file over arbitrary bytes, then everything a tool does with
// an accepted file (hash, restore, diff, dump). Any crash, sanitizer report or trap is a bug.
//
// Each input is parsed twice: as it is, and with its header checksum recomputed, so that
// mutations of the header fields and the schema block get past the checksum and reach the
// size limits, the schema parser and the decompressor.
#include <retcon/snapshot.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace {

void exercise(std::span<const std::byte> bytes) {
    retcon::read_limits limits;
    limits.max_file_bytes = std::uint64_t{64} << 20;
    limits.max_image_bytes = std::uint64_t{64} << 20;
    auto file = retcon::parse_snapshot_file(bytes, "fuzz.rcs", limits);
    if (!file) {
        if (file.message().empty()) __builtin_trap(); // every error says what was wrong
        return;
    }
    // An accepted file is fully validated: every consumer must cope with it.
    const retcon::hash64 h = retcon::hash(file->image);
    retcon::world w{file->schema};
    if (!retcon::restore(w, file->image)) __builtin_trap();
    if (retcon::hash(w) != h) __builtin_trap();
    if (retcon::save(w, file->frame).size() != file->image.size()) __builtin_trap();
    auto d = retcon::diff(file->image, file->schema, file->image, file->schema);
    if (!d || !d->identical()) __builtin_trap();
    (void)d->to_text();
    (void)d->to_json();
    (void)retcon::dump_json(file->image, file->schema);
    (void)retcon::describe_schema(file->schema);
}

/// A copy of @p bytes with the header checksum (first 56 bytes + schema block) recomputed.
bool resealed(std::span<const std::byte> bytes, std::vector<std::byte> &out) {
    if (bytes.size() < 64) return false;
    std::uint32_t schema_size = 0;
    std::memcpy(&schema_size, bytes.data() + 24, 4);
    if (schema_size > bytes.size() - 64) return false;
    out.assign(bytes.begin(), bytes.end());
    std::vector<std::byte> covered(bytes.begin(), bytes.begin() + 56);
    covered.insert(covered.end(), bytes.begin() + 64, bytes.begin() + 64 + schema_size);
    const retcon::hash64 h = retcon::xxh3(covered);
    std::memcpy(out.data() + 56, &h, 8);
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte *>(data), size);
    exercise(bytes);
    std::vector<std::byte> copy;
    if (resealed(bytes, copy)) exercise(copy);
    return 0;
}
