// The only translation unit that includes xxHash.
#include <retcon/snapshot/hash.hpp>

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

// On x86-64, Debian's libxxhash carries a run-time dispatcher (SSE2/AVX2/AVX-512 kernels);
// elsewhere (aarch64, i686: docs/determinism.md#the-cross-architecture-matrix) the plain entry
// points pick their kernel at compile time. Every kernel gives the same hash.
#if defined(__x86_64__) && !defined(RETCON_XXH3_NO_DISPATCH)
#    define RETCON_XXH3_DISPATCH 1
#    include <immintrin.h>
#    include <xxh_x86dispatch.h>
#endif

#include <cstring>

#include "image_layout.hpp"
#include "xxh3.hpp"

namespace retcon {

namespace {

#ifdef RETCON_XXH3_DISPATCH
XXH64_hash_t xxh3_64(const void *p, std::size_t n) noexcept { return XXH3_64bits_dispatch(p, n); }
void xxh3_update(XXH3_state_t *s, const void *p, std::size_t n) noexcept { XXH3_64bits_update_dispatch(s, p, n); }
#else
XXH64_hash_t xxh3_64(const void *p, std::size_t n) noexcept { return XXH3_64bits(p, n); }
void xxh3_update(XXH3_state_t *s, const void *p, std::size_t n) noexcept { XXH3_64bits_update(s, p, n); }
#endif

#ifdef RETCON_XXH3_DISPATCH
// XXH3_64bits_dispatch may run an AVX2/AVX-512 kernel and return without vzeroupper; until the
// upper halves are cleared, ordinary SSE code (a game's float maths) runs several times slower.
__attribute__((target("avx"))) void zero_upper_avx() noexcept { _mm256_zeroupper(); }
const bool cpu_has_avx = __builtin_cpu_supports("avx");
inline void clear_upper_state() noexcept {
    if (cpu_has_avx) zero_upper_avx();
}
#else
inline void clear_upper_state() noexcept {}
#endif

/// Streams several regions through one XXH3-64 state (the same value as one-shot XXH3 over the
/// regions joined).
class xxh3_stream {
public:
    xxh3_stream() noexcept { XXH3_64bits_reset(&state_); }
    void add(const void *p, std::size_t n) noexcept {
        if (n) xxh3_update(&state_, p, n);
    }
    void add(hash64 h) noexcept { add(&h, sizeof h); } // little-endian u64 (image.cpp refuses other hosts)
    hash64 finish() noexcept {
        const hash64 h = XXH3_64bits_digest(&state_);
        clear_upper_state();
        return h;
    }

private:
    XXH3_state_t state_;
};

namespace layout = internal::image_layout;
using layout::section_kind;

hash64 hash_entities(std::uint32_t slots, std::uint32_t head, std::uint32_t tail, std::uint32_t alive,
                     const void *table) noexcept {
    const std::uint32_t meta[4] = {slots, head, tail, alive};
    xxh3_stream s;
    s.add(meta, sizeof meta);
    s.add(table, std::size_t{slots} * sizeof(entity));
    return s.finish();
}

hash64 hash_pool(std::uint32_t count, const void *owners, const void *payload, std::size_t payload_bytes) noexcept {
    xxh3_stream s;
    s.add(&count, sizeof count);
    s.add(owners, std::size_t{count} * sizeof(entity));
    s.add(payload, payload_bytes);
    return s.finish();
}

// The section hashes of a world or an image, handed to sink(kind, hash) in the order the world
// hash combines them: entity table, each pool (kind pool_payload), group lengths, resources
// (docs/file-format.md, "Hashes"). Neither keeps the hashes, so hash() needs no storage.

template<class Sink>
void world_section_hashes(const world &w, Sink &&sink) {
    const auto table = w.entity_table();
    const auto &free = w.free_list();
    sink(section_kind::entity_table,
         hash_entities(static_cast<std::uint32_t>(table.size()), free.head, free.tail, free.alive, table.data()));
    for (std::size_t i = 0; i < w.pool_count(); ++i) {
        const pool &p = w.pool_at(i);
        sink(section_kind::pool_payload, hash_pool(p.size(), p.owners().data(), p.payload(), p.payload_bytes()));
    }
    sink(section_kind::group_lengths, xxh3(std::as_bytes(w.group_lengths())));
    sink(section_kind::resources, xxh3(w.resource_bytes()));
}

/// False (after some calls to @p sink, perhaps) if @p image is not a well-formed image.
template<class Sink>
bool image_section_hashes(std::span<const std::byte> image, Sink &&sink) {
    image_header h{};
    std::span<const std::byte> owners;
    const auto walked = layout::walk_image(
        image, std::span<const std::uint32_t>{}, [&](const layout::section &s, std::span<const std::byte> b) {
            switch (s.kind) {
            case section_kind::header: std::memcpy(&h, b.data(), sizeof h); break;
            case section_kind::pool_table: break;
            case section_kind::entity_table:
                sink(s.kind, hash_entities(h.entity_slots, h.free_head, h.free_tail, h.alive, b.data()));
                break;
            case section_kind::pool_owners: owners = b; break;
            case section_kind::pool_payload:
                sink(s.kind, hash_pool(static_cast<std::uint32_t>(owners.size() / sizeof(entity)), owners.data(),
                                       b.data(), b.size()));
                break;
            case section_kind::group_lengths:
            case section_kind::resources: sink(s.kind, xxh3(b)); break;
            }
        });
    return walked.ok();
}

/// A sink that stores each section hash in @p out (its pool vector keeps its capacity) and
/// combines them into out.world.
struct store_and_combine {
    world_hashes &out;
    xxh3_stream world;
    void operator()(section_kind kind, hash64 h) noexcept {
        switch (kind) {
        case section_kind::entity_table: out.entities = h; break;
        case section_kind::pool_payload: out.pools.push_back(h); break;
        case section_kind::group_lengths: out.groups = h; break;
        default: out.resources = h; break;
        }
        world.add(h);
    }
};

} // namespace

hash64 xxh3(std::span<const std::byte> bytes) noexcept {
    const hash64 h = xxh3_64(bytes.data(), bytes.size());
    clear_upper_state();
    return h;
}

hash64 internal::xxh3_concat(std::initializer_list<std::span<const std::byte>> parts) noexcept {
    xxh3_stream s;
    for (const auto part : parts) s.add(part.data(), part.size());
    return s.finish();
}

void section_hashes(const world &w, world_hashes &out) {
    out.pools.clear(); // keeps its capacity
    store_and_combine sink{out, {}};
    world_section_hashes(w, sink);
    out.world = sink.world.finish();
}

world_hashes section_hashes(const world &w) {
    world_hashes h;
    section_hashes(w, h);
    return h;
}

hash64 hash(const world &w) {
    xxh3_stream world; // the section hashes stream straight into the world hash: nothing kept
    world_section_hashes(w, [&world](section_kind, hash64 h) { world.add(h); });
    return world.finish();
}

void section_hashes(const world_image &s, world_hashes &out) {
    out.pools.clear(); // keeps its capacity
    store_and_combine sink{out, {}};
    if (image_section_hashes(s.bytes(), sink)) {
        out.world = sink.world.finish();
        return;
    }
    (void)sink.world.finish(); // clears the vector state a partial walk may have left dirty
    out.world = out.entities = out.groups = out.resources = 0; // not a well-formed image: all zero
    out.pools.clear();
}

world_hashes section_hashes(const world_image &s) {
    world_hashes out;
    section_hashes(s, out);
    return out;
}

hash64 hash(const world_image &s) {
    xxh3_stream world;
    const bool ok = image_section_hashes(s.bytes(), [&world](section_kind, hash64 h) { world.add(h); });
    const hash64 h = world.finish();
    return ok ? h : 0; // not a well-formed image: 0
}
std::vector<hash64> world_hashes::sections() const {
    std::vector<hash64> v;
    v.reserve(pools.size() + 3u);
    v.push_back(entities);
    v.insert(v.end(), pools.begin(), pools.end());
    v.push_back(groups);
    v.push_back(resources);
    return v;
}

std::vector<std::string> world_hashes::diverging(const world_hashes &other, const schema &s) const {
    std::vector<std::string> out;
    if (entities != other.entities) out.emplace_back("entities");
    const std::size_t n = std::min(pools.size(), other.pools.size());
    for (std::size_t i = 0; i < n; ++i)
        if (pools[i] != other.pools[i])
            out.emplace_back(i < s.components().size() ? s.components()[i].name : "pool " + std::to_string(i));
    if (groups != other.groups) out.emplace_back("groups");
    if (resources != other.resources) out.emplace_back("resources");
    return out;
}

} // namespace retcon
