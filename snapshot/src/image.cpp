#include <retcon/snapshot/image.hpp>
#include <retcon/internal/byte_io.hpp>

#include <bit>
#include <cstdio>
#include <cstring>
#include <string>

namespace retcon {

static_assert(std::endian::native == std::endian::little,
              "retcon images are little-endian memcpy images; big-endian hosts are not supported");

namespace {

constexpr std::size_t align16(std::size_t n) noexcept { return (n + 15u) & ~std::size_t{15}; }

/// Copies @p n bytes to @p dst and zeroes the padding up to the next 16-byte boundary.
std::byte *put(std::byte *dst, const void *src, std::size_t n) noexcept {
    if (n) std::memcpy(dst, src, n);
    const std::size_t padded = align16(n);
    if (padded != n) std::memset(dst + n, 0, padded - n);
    return dst + padded;
}

std::string describe_bytes(std::uint64_t n) { return std::to_string(n) + " bytes"; }

thread_local image_view restore_scratch; // grows to the pool count once per thread

std::vector<std::uint32_t> &element_sizes_of(const world &w) {
    thread_local std::vector<std::uint32_t> sizes;
    sizes.resize(w.pool_count());
    for (std::size_t i = 0; i < w.pool_count(); ++i) sizes[i] = static_cast<std::uint32_t>(w.pool_at(i).element_size());
    return sizes;
}

constexpr std::uint32_t max_element_size = 1u << 20;

result<void> parse_into(std::span<const std::byte> image, std::span<const std::uint32_t> element_sizes, image_view &v) {
    if (image.size() < sizeof(image_header))
        return {errc::truncated, "image: " + describe_bytes(image.size()) + " is shorter than its 64-byte header"};
    if (reinterpret_cast<std::uintptr_t>(image.data()) % 4u != 0)
        return {errc::invalid_argument, "image: bytes are not 4-byte aligned"};
    std::memcpy(&v.header, image.data(), sizeof(image_header));
    const image_header &h = v.header;
    if (h.magic == internal::byte_swapped(image_magic))
        return {errc::bad_magic, "image: written by a big-endian host (magic byte-swapped); retcon images are "
                                 "little-endian only (docs/determinism.md)"};
    if (h.magic != image_magic) return {errc::bad_magic, "image: bad magic (not a retcon world image)"};
    if (h.version != image_version)
        return {errc::bad_version, "image: layout version " + std::to_string(h.version) + " (this build reads " +
                                       std::to_string(image_version) + ")"};
    if (h.header_size != sizeof(image_header))
        return {errc::corrupt, "image: header size " + std::to_string(h.header_size) + ", expected 64"};
    if (h.total_size != image.size())
        return {errc::truncated, "image: header declares " + describe_bytes(h.total_size) + ", have " +
                                     describe_bytes(image.size())};
    if (!element_sizes.empty() && h.pool_count != element_sizes.size())
        return {errc::schema_mismatch, "image: " + std::to_string(h.pool_count) + " pools, schema declares " +
                                           std::to_string(element_sizes.size())};
    if (h.pool_count > schema::max_types)
        return {errc::corrupt, "image: " + std::to_string(h.pool_count) + " pools exceed the schema limit"};
    if (h.entity_slots > std::uint64_t{entity_traits::max_index} + 1u)
        return {errc::corrupt, "image: " + std::to_string(h.entity_slots) + " entity slots exceed the handle layout"};

    const std::byte *base = image.data();
    const std::uint64_t total = h.total_size;
    std::uint64_t off = sizeof(image_header);
    auto take = [&](std::uint64_t n, const char *what) -> result<const std::byte *> {
        if (n > total || off > total - n)
            return error{errc::corrupt, std::string("image: ") + what + " (" + describe_bytes(n) + " at offset " +
                                            std::to_string(off) + ") runs past the end (" + describe_bytes(total) + ")"};
        const std::byte *p = base + off;
        off += (n + 15u) & ~std::uint64_t{15};
        return p;
    };
    auto table_bytes = take(std::uint64_t{8} * h.pool_count, "pool table");
    if (!table_bytes) return table_bytes.err();
    v.pool_counts = {reinterpret_cast<const std::uint32_t *>(*table_bytes), h.pool_count};
    v.element_sizes = {reinterpret_cast<const std::uint32_t *>(*table_bytes) + h.pool_count, h.pool_count};
    for (std::size_t i = 0; i < h.pool_count; ++i) {
        if (!element_sizes.empty() && v.element_sizes[i] != element_sizes[i])
            return {errc::schema_mismatch, "image: pool " + std::to_string(i) + " has " + std::to_string(v.element_sizes[i]) +
                                               "-byte elements, schema says " + std::to_string(element_sizes[i])};
        if (v.element_sizes[i] > max_element_size)
            return {errc::corrupt, "image: pool " + std::to_string(i) + " declares " +
                                       std::to_string(v.element_sizes[i]) + "-byte elements"};
    }
    auto table = take(std::uint64_t{4} * h.entity_slots, "entity table");
    if (!table) return table.err();
    v.entities = {reinterpret_cast<const entity *>(*table), h.entity_slots};
    v.owners.resize(h.pool_count);
    v.payloads.resize(h.pool_count);
    for (std::size_t i = 0; i < h.pool_count; ++i) {
        const std::uint64_t count = v.pool_counts[i];
        if (count > h.entity_slots)
            return {errc::corrupt, "image: pool " + std::to_string(i) + " holds " + std::to_string(count) +
                                       " elements but there are only " + std::to_string(h.entity_slots) + " entity slots"};
        auto owners = take(4u * count, "pool owners");
        if (!owners) return owners.err();
        v.owners[i] = {reinterpret_cast<const entity *>(*owners), static_cast<std::size_t>(count)};
        const std::uint64_t payload_bytes = count * v.element_sizes[i];
        auto payload = take(payload_bytes, "pool payload");
        if (!payload) return payload.err();
        v.payloads[i] = {*payload, static_cast<std::size_t>(payload_bytes)};
    }
    auto groups = take(std::uint64_t{4} * h.group_count, "group lengths");
    if (!groups) return groups.err();
    v.group_lengths = {reinterpret_cast<const std::uint32_t *>(*groups), h.group_count};
    auto res = take(h.resource_bytes, "resource block");
    if (!res) return res.err();
    v.resources = {*res, h.resource_bytes};
    if (off != total)
        return {errc::corrupt, "image: sections end at byte " + std::to_string(off) + " but the image has " +
                                   describe_bytes(total)};
    return {};
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

} // namespace

std::size_t image_size(const world &w) noexcept {
    std::size_t n = sizeof(image_header) + align16(8u * w.pool_count()) + align16(4u * w.entity_table().size());
    for (std::size_t i = 0; i < w.pool_count(); ++i) {
        const pool &p = w.pool_at(i);
        n += align16(4u * std::size_t{p.size()}) + align16(p.payload_bytes());
    }
    return n + align16(4u * w.group_lengths().size()) + align16(w.resource_bytes().size());
}

void save(const world &w, world_image &out, std::uint64_t frame) {
    const std::size_t total = image_size(w);
    std::byte *p = out.prepare(total);
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
    std::memcpy(p, &h, sizeof h);
    p += sizeof h;
    auto *table = reinterpret_cast<std::uint32_t *>(p);
    const std::size_t pools = w.pool_count();
    for (std::size_t i = 0; i < pools; ++i) {
        table[i] = w.pool_at(i).size();
        table[pools + i] = static_cast<std::uint32_t>(w.pool_at(i).element_size());
    }
    p = put(p, table, 8u * pools);
    p = put(p, w.entity_table().data(), 4u * w.entity_table().size());
    for (std::size_t i = 0; i < w.pool_count(); ++i) {
        const pool &pl = w.pool_at(i);
        p = put(p, pl.owners().data(), 4u * std::size_t{pl.size()});
        p = put(p, pl.payload(), pl.payload_bytes());
    }
    p = put(p, w.group_lengths().data(), 4u * w.group_lengths().size());
    p = put(p, w.resource_bytes().data(), w.resource_bytes().size());
    RETCON_ASSERT(p == out.bytes().data() + total, "image layout computed twice differently");
}

world_image save(const world &w, std::uint64_t frame) {
    world_image s;
    save(w, s, frame);
    return s;
}

result<image_view> parse_image(std::span<const std::byte> image, std::span<const std::uint32_t> element_sizes) {
    image_view v;
    if (auto r = parse_into(image, element_sizes, v); !r) return r.err();
    return v;
}

result<void> parse_image(std::span<const std::byte> image, std::span<const std::uint32_t> element_sizes, image_view &out) {
    return parse_into(image, element_sizes, out);
}

result<void> validate_image(const world &w, std::span<const std::byte> image) {
    image_view &v = restore_scratch;
    if (auto r = parse_into(image, element_sizes_of(w), v); !r) return r;
    if (auto r = check_against(w, v.header); !r) return r;
    const world::free_list_state free{v.header.free_head, v.header.free_tail, v.header.alive, 0};
    if (auto r = w.validate_state(v.entities, free, v.owners, v.group_lengths, v.resources); !r)
        return {r.code(), "image: " + r.message()};
    // A bool holding anything but 0 or 1 is undefined behaviour to read: refuse it here.
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

result<void> restore(world &w, const world_image &s) {
    image_view &v = restore_scratch;
    if (auto r = parse_into(s.bytes(), element_sizes_of(w), v); !r) return r;
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
