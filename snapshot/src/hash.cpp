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

/// Streams several regions through one XXH3-64 state.
class stream {
public:
    stream() noexcept { XXH3_64bits_reset(&state_); }
    void add(const void *p, std::size_t n) noexcept {
        if (n) xxh3_update(&state_, p, n);
    }
    hash64 finish() noexcept {
        const hash64 h = XXH3_64bits_digest(&state_);
        clear_upper_state();
        return h;
    }

private:
    XXH3_state_t state_;
};

hash64 hash_entities(std::uint32_t slots, std::uint32_t head, std::uint32_t tail, std::uint32_t alive,
                     const void *table) noexcept {
    const std::uint32_t meta[4] = {slots, head, tail, alive};
    stream s;
    s.add(meta, sizeof meta);
    s.add(table, std::size_t{slots} * 4u);
    return s.finish();
}

hash64 hash_pool(std::uint32_t count, const void *owners, const void *payload, std::size_t payload_bytes) noexcept {
    stream s;
    s.add(&count, sizeof count);
    s.add(owners, std::size_t{count} * 4u);
    s.add(payload, payload_bytes);
    return s.finish();
}

void combine(world_hashes &h) {
    // world = XXH3 over [entities, pools..., groups, resources] as little-endian u64s.
    stream s;
    s.add(&h.entities, 8);
    if (!h.pools.empty()) s.add(h.pools.data(), h.pools.size() * 8u);
    s.add(&h.groups, 8);
    s.add(&h.resources, 8);
    h.world = s.finish();
}

} // namespace

hash64 xxh3(std::span<const std::byte> bytes) noexcept {
    const hash64 h = xxh3_64(bytes.data(), bytes.size());
    clear_upper_state();
    return h;
}

void section_hashes(const world &w, world_hashes &out) {
    const auto table = w.entity_table();
    const auto &free = w.free_list();
    out.entities = hash_entities(static_cast<std::uint32_t>(table.size()), free.head, free.tail, free.alive, table.data());
    out.pools.resize(w.pool_count());
    for (std::size_t i = 0; i < w.pool_count(); ++i) {
        const pool &p = w.pool_at(i);
        out.pools[i] = hash_pool(p.size(), p.owners().data(), p.payload(), p.payload_bytes());
    }
    out.groups = xxh3(std::as_bytes(w.group_lengths()));
    out.resources = xxh3(w.resource_bytes());
    combine(out);
}

world_hashes section_hashes(const world &w) {
    world_hashes h;
    section_hashes(w, h);
    return h;
}

hash64 hash(const world &w) {
    thread_local world_hashes scratch; // keeps its pool vector: no allocation in steady state
    section_hashes(w, scratch);
    return scratch.world;
}

void section_hashes(const world_image &s, world_hashes &out) {
    thread_local image_view v; // reused: hashing a snapshot does not allocate in steady state
    out.world = out.entities = out.groups = out.resources = 0;
    out.pools.clear(); // keeps its capacity
    if (!parse_image(s.bytes(), {}, v)) return; // not a well-formed image: all zero
    const image_header &h = v.header;
    out.entities = hash_entities(h.entity_slots, h.free_head, h.free_tail, h.alive, v.entities.data());
    out.pools.resize(h.pool_count);
    for (std::size_t i = 0; i < h.pool_count; ++i)
        out.pools[i] = hash_pool(v.pool_counts[i], v.owners[i].data(), v.payloads[i].data(), v.payloads[i].size());
    out.groups = xxh3(std::as_bytes(v.group_lengths));
    out.resources = xxh3(v.resources);
    combine(out);
}

world_hashes section_hashes(const world_image &s) {
    world_hashes out;
    section_hashes(s, out);
    return out;
}

hash64 hash(const world_image &s) {
    thread_local world_hashes scratch;
    section_hashes(s, scratch);
    return scratch.world;
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
        if (pools[i] != other.pools[i]) out.emplace_back(i < s.components().size() ? s.components()[i].name : "pool " + std::to_string(i));
    if (groups != other.groups) out.emplace_back("groups");
    if (resources != other.resources) out.emplace_back("resources");
    return out;
}

} // namespace retcon
