#include "image_layout.hpp"

#include <retcon/internal/byte_io.hpp>

#include <string>

namespace retcon::internal::image_layout {

namespace {

std::string describe_bytes(std::uint64_t n) { return std::to_string(n) + " bytes"; }

const char *section_name(section_kind kind) noexcept {
    switch (kind) {
    case section_kind::header: return "header";
    case section_kind::pool_table: return "pool table";
    case section_kind::entity_table: return "entity table";
    case section_kind::pool_owners: return "pool owners";
    case section_kind::pool_payload: return "pool payload";
    case section_kind::group_lengths: return "group lengths";
    case section_kind::resources: return "resource block";
    }
    return "section";
}

} // namespace

result<void> read_header(std::span<const std::byte> image, bool check_pools, std::size_t expected_pools,
                         image_header &h) {
    if (image.size() < header_bytes)
        return {errc::truncated, "image: " + describe_bytes(image.size()) + " is shorter than its 64-byte header"};
    // u32 words, and handles read in place: 4 bytes, or 8 with 64-bit handles.
    constexpr std::size_t align = alignof(entity) > 4u ? alignof(entity) : 4u;
    if (reinterpret_cast<std::uintptr_t>(image.data()) % align != 0)
        return {errc::invalid_argument, "image: bytes are not " + std::to_string(align) + "-byte aligned"};
    std::memcpy(&h, image.data(), sizeof(image_header));
    if (h.magic == byte_swapped(image_magic))
        return {errc::bad_magic, "image: written by a big-endian host (magic byte-swapped); retcon images are "
                                 "little-endian only (docs/determinism.md)"};
    if (h.magic != image_magic) return {errc::bad_magic, "image: bad magic (not a retcon world image)"};
    if (h.version != image_version)
        return {errc::bad_version, "image: layout version " + std::to_string(h.version) + " (this build reads " +
                                       std::to_string(image_version) + ")"};
    if (h.header_size != header_bytes)
        return {errc::corrupt, "image: header size " + std::to_string(h.header_size) + ", expected 64"};
    if (h.total_size != image.size())
        return {errc::truncated,
                "image: header declares " + describe_bytes(h.total_size) + ", have " + describe_bytes(image.size())};
    if (check_pools && h.pool_count != expected_pools)
        return {errc::schema_mismatch,
                "image: " + std::to_string(h.pool_count) + " pools, schema declares " + std::to_string(expected_pools)};
    if (h.pool_count > max_pools)
        return {errc::corrupt, "image: " + std::to_string(h.pool_count) + " pools exceed the schema limit"};
    if (h.entity_slots > max_entity_slots)
        return {errc::corrupt, "image: " + std::to_string(h.entity_slots) + " entity slots exceed the handle layout"};
    return {};
}

error section_past_end(section_kind kind, std::uint64_t bytes, std::uint64_t offset, std::uint64_t total) {
    return error{errc::corrupt, std::string("image: ") + section_name(kind) + " (" + describe_bytes(bytes) +
                                    " at offset " + std::to_string(offset) + ") runs past the end (" +
                                    describe_bytes(total) + ")"};
}

error pool_over_slots(std::uint32_t pool, std::uint64_t count, std::uint64_t slots) {
    return error{errc::corrupt, "image: pool " + std::to_string(pool) + " holds " + std::to_string(count) +
                                    " elements but there are only " + std::to_string(slots) + " entity slots"};
}

error element_size_mismatch(std::uint64_t pool, std::uint64_t have, std::uint64_t want) {
    return error{errc::schema_mismatch, "image: pool " + std::to_string(pool) + " has " + std::to_string(have) +
                                            "-byte elements, schema says " + std::to_string(want)};
}

error element_size_too_large(std::uint64_t pool, std::uint64_t have) {
    return error{errc::corrupt,
                 "image: pool " + std::to_string(pool) + " declares " + std::to_string(have) + "-byte elements"};
}

error sections_end_early(std::uint64_t end, std::uint64_t total) {
    return error{errc::corrupt,
                 "image: sections end at byte " + std::to_string(end) + " but the image has " + describe_bytes(total)};
}

bool section_regions(std::span<const std::byte> image, std::vector<region> &out) {
    out.clear();
    return walk_sections(image, image.size(), [&out](const section &s, std::uint64_t offset, const auto &) {
        out.push_back(region{static_cast<std::size_t>(offset), static_cast<std::size_t>(padded(s.bytes))});
        return true;
    });
}

std::vector<std::uint32_t> element_sizes_of(const schema &s) {
    std::vector<std::uint32_t> out;
    out.reserve(s.components().size());
    for (const auto &t : s.components()) out.push_back(t.size);
    return out;
}

} // namespace retcon::internal::image_layout

namespace retcon {

result<image_view> parse_image(std::span<const std::byte> image, std::span<const std::uint32_t> element_sizes) {
    image_view v;
    if (auto r = internal::image_layout::parse_into(image, element_sizes, v); !r) return r.err();
    return v;
}

result<void> parse_image(std::span<const std::byte> image, std::span<const std::uint32_t> element_sizes,
                         image_view &out) {
    return internal::image_layout::parse_into(image, element_sizes, out);
}

} // namespace retcon
