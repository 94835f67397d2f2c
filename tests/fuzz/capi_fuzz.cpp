// libFuzzer target: the C API (retcon.h) driven by a sequence of calls decoded from the input,
// on a small fixed schema. Ids, sizes, entity handles, frames and image bytes come from the
// input, wrong ones included. No call may crash, and these invariants must hold (a trap
// otherwise):
//   - a failed call leaves the world hash as it was, and leaves a message;
//   - a call that succeeds does what it says (an added component is there, a removed one is
//     not, a destroyed entity is not live, a restored frame hashes as it did when saved);
//   - a query visits exactly the live entities with every included and no excluded component,
//     each once, and its chunk addresses are those rc_component_get gives.
#include <retcon.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <vector>

#include "fuzz/fuzz_reader.hpp"
#include "capi/test_types.hpp"

namespace {

#define FUZZ_ASSERT(cond)                                                                                              \
    do {                                                                                                               \
        if (!(cond)) __builtin_trap();                                                                                 \
    } while (0)

using namespace retcon::capi_test;

constexpr std::uint32_t component_count = 4; // pos, counter, frozen (tag), vel
constexpr std::size_t component_size[component_count] = {sizeof(pos), sizeof(counter), 0, sizeof(vel)};
constexpr std::uint32_t resource_count = 1;

/// The schema, declared once: {pos, counter, frozen, vel}, group {pos, vel}, resource clock.
const rc_schema *fixed_schema() {
    static rc_schema *schema = [] {
        rc_schema *s = nullptr;
        FUZZ_ASSERT(rc_schema_create(&s) == RC_OK);
        const rc_type_desc types[] = {
            {sizeof(rc_type_desc), "pos", sizeof(pos), pos_fields, 2},
            {sizeof(rc_type_desc), "counter", sizeof(counter), counter_fields, 3},
            {sizeof(rc_type_desc), "frozen", 0, nullptr, 0},
            {sizeof(rc_type_desc), "vel", sizeof(vel), vel_fields, 2},
        };
        for (std::uint32_t i = 0; i < component_count; ++i) {
            std::uint32_t id = 0;
            FUZZ_ASSERT(rc_schema_component(s, &types[i], &id) == RC_OK && id == i);
        }
        const std::uint32_t grouped[] = {0, 3};
        FUZZ_ASSERT(rc_schema_group(s, grouped, 2) == RC_OK);
        const rc_type_desc clock{sizeof(rc_type_desc), "clock", sizeof(clock_res), clock_fields, 1};
        std::uint32_t id = 0;
        FUZZ_ASSERT(rc_schema_resource(s, &clock, &id) == RC_OK && id == 0);
        return s;
    }();
    return schema;
}

using retcon::fuzz::reader;

class session {
public:
    explicit session(reader &in) : in_{in} {
        FUZZ_ASSERT(rc_world_create(fixed_schema(), &world_) == RC_OK);
        FUZZ_ASSERT(rc_ring_create(4, &ring_) == RC_OK);
    }
    ~session() {
        rc_ring_destroy(ring_);
        rc_world_destroy(world_);
    }
    session(const session &) = delete;
    session &operator=(const session &) = delete;

    void run() {
        for (int ops = 0; ops < 256 && !in_.done(); ++ops) step(in_.u8());
    }

private:
    std::uint64_t hash() const {
        std::uint64_t h = 0;
        FUZZ_ASSERT(rc_world_hash(world_, &h) == RC_OK);
        return h;
    }

    /// After a world call: a failure changed nothing and left a message.
    void checked(rc_status status, std::uint64_t before) const {
        if (status == RC_OK) return;
        FUZZ_ASSERT(status != RC_ERR_INTERNAL);
        const char *message = rc_world_last_error(world_); // before hash(): a call clears it
        FUZZ_ASSERT(message != nullptr && message[0] != '\0');
        FUZZ_ASSERT(hash() == before);
    }

    /// An entity handle: mostly one this session created (live or not), sometimes a raw value.
    rc_entity entity() {
        const std::uint8_t b = in_.u8();
        if (b < 0xF0 && !handles_.empty()) return handles_[b % handles_.size()];
        switch (b & 3u) {
        case 0: return RC_NULL_ENTITY;
        case 1: return in_.u32();
        case 2: return (rc_entity{1} << 32) | in_.u32();
        default: return in_.u64();
        }
    }

    /// A component id: mostly declared ones, sometimes not.
    std::uint32_t component() {
        const std::uint8_t b = in_.u8();
        return b < 0xF0 ? b % component_count : b == 0xFF ? in_.u32() : b & 0x0Fu;
    }

    /// A size: mostly the declared one, sometimes another.
    std::size_t size_for(std::size_t declared) {
        const std::uint8_t b = in_.u8();
        if (b < 0xE0) return declared;
        return b == 0xFF ? std::size_t{in_.u32()} : std::size_t{b & 0x1Fu};
    }

    rc_frame frame() {
        const std::uint8_t b = in_.u8();
        if (b < 0xF0) return b % 16u;
        switch (b & 3u) {
        case 0: return 0xFFFFFFFEu;
        case 1: return 0xFFFFFFFFu;
        case 2: return rc_frame{1} << 32;
        default: return in_.u64();
        }
    }

    /// Fills value_ from the input; returns value_ or, rarely, NULL.
    const void *value() {
        std::size_t got = 0;
        const std::uint8_t *p = in_.take(in_.u8() % (sizeof value_ + 1), got);
        std::memset(value_, 0, sizeof value_);
        std::memcpy(value_, p, got);
        return in_.u8() == 0xAB ? nullptr : value_;
    }

    int has(rc_entity e, std::uint32_t c) const {
        int out = -1;
        FUZZ_ASSERT(rc_component_has(world_, e, c, &out) == RC_OK);
        return out;
    }

    void step(std::uint8_t op) {
        const std::uint64_t before = hash();
        switch (op % 14u) {
        case 0: { // create
            rc_entity e = RC_NULL_ENTITY;
            const rc_status st = rc_entity_create(world_, &e);
            checked(st, before);
            if (st == RC_OK) {
                FUZZ_ASSERT(rc_entity_valid(world_, e) == 1);
                if (handles_.size() < 64) handles_.push_back(e);
            }
            break;
        }
        case 1: { // destroy
            const rc_entity e = entity();
            const int was_valid = rc_entity_valid(world_, e);
            const rc_status st = rc_entity_destroy(world_, e);
            checked(st, before);
            FUZZ_ASSERT((st == RC_OK) == (was_valid == 1));
            if (st == RC_OK) FUZZ_ASSERT(rc_entity_valid(world_, e) == 0);
            break;
        }
        case 2: { // add: a value from the input, or one that lives in the world's own pool
            const rc_entity e = entity();
            const std::uint32_t c = component();
            const std::size_t size = size_for(c < component_count ? component_size[c] : 8);
            const void *v = value();
            unsigned char expected[sizeof value_] = {};
            if (v) std::memcpy(expected, v, sizeof expected);
            if (in_.u8() >= 0xF0 && c < component_count && component_size[c]) {
                void *p = nullptr;
                if (rc_component_get(world_, entity(), c, &p) == RC_OK) {
                    v = p;
                    std::memcpy(expected, p, component_size[c]);
                }
            }
            const rc_status st = rc_component_add(world_, e, c, v, size);
            checked(st, before);
            if (st == RC_OK) {
                FUZZ_ASSERT(c < component_count && size == component_size[c]);
                FUZZ_ASSERT(has(e, c) == 1);
                if (size) {
                    void *p = nullptr;
                    FUZZ_ASSERT(rc_component_get(world_, e, c, &p) == RC_OK);
                    FUZZ_ASSERT(std::memcmp(p, expected, size) == 0);
                }
            }
            break;
        }
        case 3: { // get, then write through the pointer
            const rc_entity e = entity();
            const std::uint32_t c = component();
            void *p = nullptr;
            const rc_status st = rc_component_get(world_, e, c, &p);
            checked(st, before);
            if (st == RC_OK) {
                FUZZ_ASSERT(p != nullptr && c < component_count && component_size[c] != 0);
                const void *v = value();
                if (v) std::memcpy(p, v, component_size[c]);
            } else {
                FUZZ_ASSERT(p == nullptr);
            }
            break;
        }
        case 4: { // remove
            const rc_entity e = entity();
            const std::uint32_t c = component();
            const rc_status st = rc_component_remove(world_, e, c);
            checked(st, before);
            if (st == RC_OK) FUZZ_ASSERT(has(e, c) == 0);
            break;
        }
        case 5: { // has
            const rc_entity e = entity();
            const std::uint32_t c = component();
            int out = -1;
            const rc_status st = rc_component_has(world_, e, c, &out);
            checked(st, before);
            FUZZ_ASSERT(hash() == before);
            if (st == RC_OK) FUZZ_ASSERT(out == 0 || out == 1);
            FUZZ_ASSERT((st == RC_OK) == (c < component_count && rc_entity_valid(world_, e) == 1));
            break;
        }
        case 6: { // resources
            const std::uint8_t b = in_.u8();
            const std::uint32_t r = b < 0xC0 ? 0u : b & 3u;
            void *p = nullptr;
            rc_status st = RC_OK;
            switch (in_.u8() % 3u) {
            case 0: {
                const std::size_t size = size_for(sizeof(clock_res));
                const void *v = value();
                st = rc_resource_set(world_, r, v, size);
                if (st == RC_OK) {
                    FUZZ_ASSERT(rc_resource_get(world_, r, &p) == RC_OK);
                    FUZZ_ASSERT(std::memcmp(p, v, sizeof(clock_res)) == 0);
                }
                break;
            }
            case 1:
                st = rc_resource_get(world_, r, &p);
                if (st == RC_OK) static_cast<clock_res *>(p)->ticks += 1;
                break;
            default:
                st = rc_resource_unset(world_, r);
                if (st == RC_OK) FUZZ_ASSERT(rc_resource_get(world_, r, &p) == RC_ERR_NO_COMPONENT);
                break;
            }
            checked(st, before);
            FUZZ_ASSERT((st == RC_ERR_ARGUMENT) == (r >= resource_count));
            break;
        }
        case 7: { // ring save
            const rc_frame f = frame();
            const rc_status st = rc_ring_save(ring_, world_, f);
            FUZZ_ASSERT(hash() == before);
            if (st == RC_OK) {
                FUZZ_ASSERT(f <= 0xFFFFFFFEu);
                saved_[f] = before;
            } else {
                FUZZ_ASSERT(rc_ring_last_error(ring_)[0] != '\0');
            }
            break;
        }
        case 8: { // ring restore
            const rc_frame f = frame();
            const rc_status st = rc_ring_restore(ring_, world_, f);
            if (st == RC_OK) {
                const auto it = saved_.find(f);
                FUZZ_ASSERT(it != saved_.end() && hash() == it->second);
                // restore discards every newer frame (docs/snapshot.md)
                saved_.erase(saved_.upper_bound(f), saved_.end());
            } else {
                FUZZ_ASSERT(hash() == before);
                FUZZ_ASSERT(rc_ring_last_error(ring_)[0] != '\0');
            }
            break;
        }
        case 9: { // load an image: fuzz bytes, or a real one with a byte changed or cut short
            std::vector<unsigned char> image;
            const std::uint8_t how = in_.u8();
            if (how < 0x80) {
                std::size_t got = 0;
                const std::uint8_t *p = in_.take(std::size_t{in_.u8()} * 4u, got);
                image.assign(p, p + got);
            } else {
                image = current_image();
                if (!image.empty()) {
                    const std::size_t at = in_.u32() % image.size();
                    if (how & 1u) image[at] = static_cast<unsigned char>(image[at] ^ (in_.u8() | 1u));
                    else
                        image.resize(at);
                }
            }
            rc_frame out = 12345;
            const rc_status st =
                rc_world_load_image(world_, image.empty() ? nullptr : image.data(), image.size(), &out);
            checked(st, before);
            if (st == RC_OK) {
                FUZZ_ASSERT(out <= 0xFFFFFFFEu);
                // What loaded saves back at the same size.
                FUZZ_ASSERT(current_image(out).size() == image.size());
            } else {
                FUZZ_ASSERT(out == 12345);
            }
            break;
        }
        case 10: query(); break;
        case 11: { // image into a buffer of some capacity
            std::vector<unsigned char> buffer(in_.u8() * 8u);
            std::size_t needed = 0;
            const rc_status st = rc_world_save_image(world_, frame(), buffer.data(), buffer.size(), &needed);
            FUZZ_ASSERT(hash() == before);
            FUZZ_ASSERT(st == RC_OK || st == RC_ERR_BUFFER_TOO_SMALL || st == RC_ERR_ARGUMENT);
            if (st != RC_ERR_ARGUMENT) FUZZ_ASSERT((st == RC_OK) == (needed <= buffer.size()));
            break;
        }
        case 12: { // section hashes into a buffer of some capacity
            std::uint64_t hashes[16];
            const std::size_t capacity = in_.u8() % 17u;
            std::size_t needed = 0;
            const rc_status st = rc_world_section_hashes(world_, hashes, capacity, &needed);
            FUZZ_ASSERT(needed == 2 + component_count + 1);
            FUZZ_ASSERT((st == RC_OK) == (capacity >= needed));
            FUZZ_ASSERT(hash() == before);
            break;
        }
        default: { // a handful of entities at once, so queries have something to chunk
            const std::uint32_t mask = in_.u8();
            for (int i = 0; i < 8 && handles_.size() < 64; ++i) {
                rc_entity e = RC_NULL_ENTITY;
                FUZZ_ASSERT(rc_entity_create(world_, &e) == RC_OK);
                handles_.push_back(e);
                for (std::uint32_t c = 0; c < component_count; ++c) {
                    if (!((mask >> ((c + static_cast<std::uint32_t>(i)) % 8u)) & 1u)) continue;
                    const unsigned char zero[16] = {};
                    FUZZ_ASSERT(rc_component_add(world_, e, c, component_size[c] ? zero : nullptr, component_size[c]) ==
                                RC_OK);
                }
            }
            break;
        }
        }
    }

    std::vector<unsigned char> current_image(rc_frame f = 7) const {
        std::size_t needed = 0;
        (void)rc_world_save_image(world_, f, nullptr, 0, &needed);
        std::vector<unsigned char> image(needed);
        FUZZ_ASSERT(rc_world_save_image(world_, f, image.data(), image.size(), &needed) == RC_OK);
        return image;
    }

    void query() {
        const std::uint8_t inc_mask = in_.u8();
        const std::uint8_t exc_mask = in_.u8();
        std::uint32_t include[8], exclude[8];
        std::uint32_t ni = 0, ne = 0;
        for (std::uint32_t c = 0; c < 8; ++c) {
            if ((inc_mask >> c) & 1u) include[ni++] = c; // ids 4..7 are not declared
            if ((exc_mask >> c) & 1u) exclude[ne++] = c;
        }
        const rc_query_desc desc{sizeof(rc_query_desc), include, ni, exclude, ne};
        rc_query *q = nullptr;
        const std::uint64_t before = hash();
        const rc_status st = rc_query_create(world_, &desc, &q);
        checked(st, before);
        if (st != RC_OK) {
            FUZZ_ASSERT(q == nullptr);
            return;
        }
        std::set<rc_entity> visited;
        for (int pass = 0; pass < 2; ++pass) { // a finished query starts again from the top
            visited.clear();
            for (;;) {
                rc_chunk chunk{};
                int more = 0;
                FUZZ_ASSERT(rc_query_next(q, &chunk, &more) == RC_OK);
                if (!more) break;
                FUZZ_ASSERT(chunk.count > 0 && chunk.entities != nullptr && chunk.columns != nullptr);
                for (std::uint32_t i = 0; i < chunk.count; ++i) {
                    const rc_entity e = chunk.entities[i];
                    FUZZ_ASSERT(visited.insert(e).second);
                    for (std::uint32_t c = 0; c < ni; ++c) {
                        const std::size_t size = component_size[include[c]];
                        if (size == 0) {
                            FUZZ_ASSERT(chunk.columns[c] == nullptr);
                            continue;
                        }
                        const std::uint32_t row = chunk.rows ? chunk.rows[c][i] : i;
                        const auto *p = static_cast<unsigned char *>(chunk.columns[c]) + std::size_t{row} * size;
                        void *got = nullptr;
                        FUZZ_ASSERT(rc_component_get(world_, e, include[c], &got) == RC_OK);
                        FUZZ_ASSERT(got == p);
                    }
                }
            }
        }
        rc_query_destroy(q);
        // Exactly the live entities that match.
        std::set<rc_entity> expected;
        for (const rc_entity e : handles_) {
            if (rc_entity_valid(world_, e) != 1) continue;
            bool match = true;
            for (std::uint32_t c = 0; c < ni && match; ++c) match = has(e, include[c]) == 1;
            for (std::uint32_t c = 0; c < ne && match; ++c) match = has(e, exclude[c]) == 0;
            if (match) expected.insert(e);
        }
        // Entities restored from a ring or an image may not be in handles_: only check inclusion.
        for (const rc_entity e : expected) FUZZ_ASSERT(visited.count(e) == 1);
        for (const rc_entity e : visited) {
            FUZZ_ASSERT(rc_entity_valid(world_, e) == 1);
            for (std::uint32_t c = 0; c < ni; ++c) FUZZ_ASSERT(has(e, include[c]) == 1);
            for (std::uint32_t c = 0; c < ne; ++c) FUZZ_ASSERT(has(e, exclude[c]) == 0);
        }
        FUZZ_ASSERT(hash() == before);
    }

    reader &in_;
    rc_world *world_ = nullptr;
    rc_ring *ring_ = nullptr;
    std::vector<rc_entity> handles_;
    std::map<rc_frame, std::uint64_t> saved_; ///< frame -> hash of the state saved as that frame
    unsigned char value_[48] = {};
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    reader in{data, size};
    session s{in};
    s.run();
    return 0;
}
