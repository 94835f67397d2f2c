// save, restore and validation of world images. The layout itself (section order, padding,
// limits, bounds checks) belongs to image_layout.hpp; this file only says what goes into each
// section and what a restore does with it.
#include <retcon/snapshot/image.hpp>

#include <bit>
#include <cstdio>
#include <cstring>
#include <string>

#include "image_layout.hpp"

namespace retcon {

static_assert(std::endian::native == std::endian::little,
              "retcon images are little-endian memcpy images; big-endian hosts are not supported");

namespace {

namespace layout = internal::image_layout;

/// The view restore and validate_image parse into. They are free functions of the public API
/// whose arguments own nothing they could keep it in (the world belongs to ecs, the image is
/// const), so it is per thread: it grows to the pool count once, after which restoring does not
/// allocate (tests/snapshot/allocations.cpp).
thread_local image_view restore_view;

image_header header_of(const world &w, std::uint64_t frame, std::uint64_t total) noexcept {
    image_header h{};
    h.magic = image_magic;
    h.version = image_version;
    h.header_size = sizeof(image_header);
    h.schema_hash = w.schema_hash();
    h.frame = frame;
    h.entity_slots = static_cast<std::uint32_t>(w.entity_table().size());
    h.free_head = w.free_list().head;
    h.free_tail = w.free_list().tail;
    h.alive = w.free_list().alive;
    h.pool_count = static_cast<std::uint32_t>(w.pool_count());
    h.group_count = static_cast<std::uint32_t>(w.group_lengths().size());
    h.resource_bytes = static_cast<std::uint32_t>(w.resource_bytes().size());
    h.total_size = total;
    return h;
}

/// The pool table written in place: element counts, then element sizes.
std::byte *put_pool_table(std::byte *p, const world &w) noexcept {
    auto *table = reinterpret_cast<std::uint32_t *>(p);
    const std::size_t pools = w.pool_count();
    for (std::size_t i = 0; i < pools; ++i) {
        table[i] = w.pool_at(i).size();
        table[pools + i] = static_cast<std::uint32_t>(w.pool_at(i).element_size());
    }
    return layout::put_section(p, p, 8u * pools);
}

result<void> check_against(const world &w, const image_header &h) {
    if (h.schema_hash != w.schema_hash()) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "%016llx, the world's schema is %016llx",
                      static_cast<unsigned long long>(h.schema_hash), static_cast<unsigned long long>(w.schema_hash()));
        return {errc::schema_mismatch, std::string("image: saved with schema ") + buf};
    }
    if (h.group_count != w.group_lengths().size())
        return {errc::schema_mismatch, "image: group count differs from the world's schema"};
    if (h.resource_bytes != w.resource_bytes().size())
        return {errc::schema_mismatch, "image: resource block size differs from the world's schema"};
    return {};
}

/// A bool holding anything but 0 or 1 is undefined behaviour to read: refuse it.
result<void> check_bools(const world &w, const image_view &v) {
    for (std::size_t i = 0; i < w.pool_count(); ++i) {
        const type_info &info = w.pool_at(i).info();
        for (const field_info &f : info.fields) {
            if (f.kind != field_kind::boolean) continue;
            for (std::size_t e = 0; e < v.owners[i].size(); ++e)
                for (std::size_t k = 0; k < f.count; ++k) {
                    const auto b = static_cast<unsigned>(v.payloads[i][e * info.size + f.offset + k]);
                    if (b > 1u)
                        return {errc::corrupt, "image: " + std::string(info.name) + "." + std::string(f.name) +
                                                   " of element " + std::to_string(e) + " holds " + std::to_string(b) +
                                                   ", not a bool"};
                }
        }
    }
    return {};
}

} // namespace

std::size_t image_size(const world &w) noexcept { return static_cast<std::size_t>(layout::total_size(w)); }

void save(const world &w, world_image &out, std::uint64_t frame) {
    const std::size_t total = image_size(w);
    std::byte *p = out.prepare(total);
    layout::for_each_section(
        layout::counts_of(w), [&w](std::uint64_t i) { return layout::shape_of(w, static_cast<std::size_t>(i)); },
        [&](const layout::section &s) {
            const auto n = static_cast<std::size_t>(s.bytes);
            switch (s.kind) {
            case layout::section_kind::header: {
                const image_header h = header_of(w, frame, total);
                p = layout::put_section(p, &h, sizeof h);
                break;
            }
            case layout::section_kind::pool_table: p = put_pool_table(p, w); break;
            case layout::section_kind::entity_table: p = layout::put_section(p, w.entity_table().data(), n); break;
            case layout::section_kind::pool_owners:
                p = layout::put_section(p, w.pool_at(s.pool).owners().data(), n);
                break;
            case layout::section_kind::pool_payload: p = layout::put_section(p, w.pool_at(s.pool).payload(), n); break;
            case layout::section_kind::group_lengths: p = layout::put_section(p, w.group_lengths().data(), n); break;
            case layout::section_kind::resources: p = layout::put_section(p, w.resource_bytes().data(), n); break;
            }
            return true;
        });
    RETCON_ASSERT(p == out.bytes().data() + total, "image layout computed twice differently");
}

world_image save(const world &w, std::uint64_t frame) {
    world_image s;
    save(w, s, frame);
    return s;
}

result<void> validate_image(const world &w, std::span<const std::byte> image) {
    image_view &v = restore_view;
    if (auto r = layout::parse_into(image, layout::world_element_sizes{&w}, v); !r) return r;
    if (auto r = check_against(w, v.header); !r) return r;
    const world::free_list_state free{v.header.free_head, v.header.free_tail, v.header.alive, 0};
    if (auto r = w.validate_state(v.entities, free, v.owners, v.group_lengths, v.resources); !r)
        return {r.code(), "image: " + r.message()};
    return check_bools(w, v);
}

result<void> restore(world &w, const world_image &s) {
    image_view &v = restore_view;
    if (auto r = layout::parse_into(s.bytes(), layout::world_element_sizes{&w}, v); !r) return r;
    if (auto r = check_against(w, v.header); !r) return r;
    const world::free_list_state free{v.header.free_head, v.header.free_tail, v.header.alive, 0};
    w.assign_state(v.entities, free, v.owners, v.payloads, v.group_lengths, v.resources);
    return {};
}

result<void> load_image(world &w, const world_image &s) {
    if (auto r = validate_image(w, s.bytes()); !r) return r;
    return restore(w, s);
}

} // namespace retcon
