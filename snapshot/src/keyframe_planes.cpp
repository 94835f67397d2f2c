#include "keyframe_planes.hpp"

#include <retcon/ecs/entity.hpp>

#include <cstring>

#include "image_layout.hpp"

namespace retcon::internal {

namespace {
using image_layout::load_u32;

/// Byte b of element i goes to plane b: to[b·n + i] = in[i·w + b].
void transpose(const std::byte *in, std::byte *to, std::size_t n, std::size_t w) noexcept {
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t b = 0; b < w; ++b) to[b * n + i] = in[i * w + b];
}

void untranspose(const std::byte *in, std::byte *to, std::size_t n, std::size_t w) noexcept {
    for (std::size_t b = 0; b < w; ++b)
        for (std::size_t i = 0; i < n; ++i) to[i * w + b] = in[b * n + i];
}

/// An owner with its version bits XORed with those of its slot in @p table (@p slots words);
/// the same call undoes it, since the index bits are left alone. An index past the table (an
/// invalid image, which the reader rejects later) is left as it is.
std::uint32_t fold_version(std::uint32_t owner, const std::byte *table, std::size_t slots) noexcept {
    const std::uint32_t index = owner & entity_traits::index_mask;
    if (index >= slots) return owner;
    return owner ^ (load_u32(table + 4u * index) & ~entity_traits::index_mask);
}
} // namespace

bool keyframe_planes::strips_of(std::span<const std::byte> image, std::size_t total) {
    using namespace image_layout;
    strips_.clear();
    table_ = strip{};
    return walk_sections(image, total, [this](const section &s, std::uint64_t offset, const auto &shape) {
        strip st{static_cast<std::size_t>(offset), 0, 4, form::planes, s.pool};
        switch (s.kind) {
        case section_kind::entity_table:
        case section_kind::group_lengths: break;
        case section_kind::pool_owners: st.kind = form::owners; break;
        case section_kind::pool_payload:
            st.kind = form::choice;
            st.width = static_cast<std::size_t>(shape(s.pool).element_size);
            break;
        default: st.width = 0; break; // header, pool table, resources: left as they are
        }
        // Counts and sizes within the limits keep every length far below 2^64: no wrap.
        if (st.width != 0 && s.bytes != 0) {
            st.count = static_cast<std::size_t>(s.bytes / st.width);
            strips_.push_back(st);
            if (s.kind == section_kind::entity_table) table_ = st;
        }
        return true;
    });
}

bool keyframe_planes::encode(std::span<const std::byte> image, zstd_codec &codec, std::vector<std::byte> &out) {
    if (!strips_of(image, image.size())) return false;
    image_header h;
    std::memcpy(&h, image.data(), sizeof h);
    const std::size_t map = map_bytes(h.pool_count);
    out.assign(map, std::byte{0});
    out.insert(out.end(), image.begin(), image.end());
    std::byte *const body = out.data() + map;
    const std::byte *const slots = image.data() + table_.offset;
    for (const strip &s : strips_) {
        const std::byte *in = image.data() + s.offset;
        std::byte *to = body + s.offset;
        switch (s.kind) {
        case form::planes: transpose(in, to, s.count, s.width); break;
        case form::owners:
            for (std::size_t i = 0; i < s.count; ++i) {
                const std::uint32_t v = fold_version(load_u32(in + 4u * i), slots, table_.count);
                for (std::size_t b = 0; b < 4; ++b)
                    to[b * s.count + i] = std::byte(static_cast<std::uint8_t>(v >> (8 * b)));
            }
            break;
        case form::choice: {
            // Whichever form zstd (level 1, a trial) makes smaller; a tie keeps the bytes as they are.
            const std::size_t n = s.count * s.width;
            trial_.resize(n);
            transpose(in, trial_.data(), s.count, s.width);
            codec.compress({in, n}, 1, packed_);
            const std::size_t whole = packed_.size();
            codec.compress(trial_, 1, packed_);
            if (packed_.size() < whole) {
                std::memcpy(to, trial_.data(), n);
                out[s.pool] = std::byte{1};
            }
            break;
        }
        }
    }
    return true;
}

bool keyframe_planes::decode(std::span<const std::byte> payload, std::size_t pools, std::span<std::byte> out) {
    const std::size_t map = map_bytes(pools);
    if (payload.size() < map || out.size() != payload.size() - map) return false;
    const std::span<const std::byte> body = payload.subspan(map);
    if (!strips_of(body, body.size())) return false;
    image_header h;
    std::memcpy(&h, body.data(), sizeof h);
    if (h.pool_count != pools) return false;
    std::memcpy(out.data(), body.data(), body.size());
    for (const strip &s : strips_) { // in layout order: the entity table before every owner
        const std::byte *in = body.data() + s.offset;
        std::byte *to = out.data() + s.offset;
        switch (s.kind) {
        case form::planes: untranspose(in, to, s.count, s.width); break;
        case form::owners:
            for (std::size_t i = 0; i < s.count; ++i) {
                std::uint32_t v = 0;
                for (std::size_t b = 0; b < 4; ++b)
                    v |= std::uint32_t{static_cast<std::uint8_t>(in[b * s.count + i])} << (8 * b);
                v = fold_version(v, out.data() + table_.offset, table_.count);
                std::memcpy(to + 4u * i, &v, 4);
            }
            break;
        case form::choice: {
            const auto m = static_cast<std::uint8_t>(payload[s.pool]);
            if (m > 1) return false;
            if (m == 1) untranspose(in, to, s.count, s.width);
            break;
        }
        }
    }
    // A map byte for a pool without elements must still be 0 or 1.
    for (std::size_t i = 0; i < map; ++i)
        if (static_cast<std::uint8_t>(payload[i]) > 1) return false;
    return true;
}

} // namespace retcon::internal
