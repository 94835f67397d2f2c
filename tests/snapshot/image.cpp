// World images: save/restore fidelity, schema checks, structural validation of untrusted images
// and the bounds checks of parse_image.
#include <retcon/snapshot/hash.hpp>
#include <retcon/snapshot/image.hpp>

#include <catch2/catch.hpp>

#include <cstddef>
#include <cstring>
#include <functional>
#include <utility>
#include <vector>

#include "common/components.hpp"
#include "common/world_gen.hpp"

namespace retcon::test::image_tests {

struct switch_state {
    bool on;
    std::uint8_t level;
    std::uint16_t spare;
};
RETCON_COMPONENT(switch_state, on, level, spare);

/// grouped_schema() plus a component with a bool field.
schema bool_schema() {
    schema s = grouped_schema();
    s.component<switch_state>();
    return s;
}

/// Offset of @p p inside @p s's bytes.
std::size_t offset_in(const world_image &s, const void *p) {
    return static_cast<std::size_t>(static_cast<const std::byte *>(p) - s.bytes().data());
}

/// Overwrites sizeof(T) bytes of @p s at @p off.
template<class T>
void poke(world_image &s, std::size_t off, T value) {
    REQUIRE(off + sizeof(T) <= s.size());
    std::memcpy(s.prepare(s.size()) + off, &value, sizeof(T));
}

/// A small world with a known shape: 8 entities created, indices 5 and 6 destroyed (free list
/// 5 -> 6), positions+velocities on 0..4 (the group packs them), health on every live entity,
/// switches on 1 and 2.
struct fixture {
    schema s = bool_schema();
    world w{s};
    std::vector<entity> e;
    fixture() {
        for (int i = 0; i < 8; ++i) e.push_back(w.create());
        for (std::size_t i = 0; i < 5; ++i) {
            w.emplace<position>(e[i], static_cast<float>(i), 1.0f);
            w.emplace<velocity>(e[i], 0.5f, static_cast<float>(i));
        }
        for (std::size_t i = 0; i < 8; ++i)
            if (i != 5 && i != 6)
                w.emplace<health>(e[i], static_cast<std::int32_t>(10 * i), std::uint16_t{1}, std::uint8_t{2},
                                  std::uint8_t{0});
        w.emplace<switch_state>(e[1], true, std::uint8_t{3}, std::uint16_t{0});
        w.emplace<switch_state>(e[2], false, std::uint8_t{4}, std::uint16_t{0});
        w.destroy(e[5]);
        w.destroy(e[6]);
        w.set_resource<game_clock>(7u, 60u);
    }
    [[nodiscard]] image_view view(const world_image &img) const {
        auto v = parse_image(img.bytes());
        REQUIRE(v.ok());
        return *v;
    }
};

std::size_t pool_index(const schema &s, const char *name) {
    const auto id = s.find_component(name);
    REQUIRE(id != schema::npos);
    return id;
}

} // namespace retcon::test::image_tests

using namespace retcon;
using namespace retcon::test;
using namespace retcon::test::image_tests;
using Catch::Matchers::Contains;

TEST_CASE("save then restore gives back every region byte for byte", "[snapshot][image]") {
    const schema schemas[] = {standard_schema(), grouped_schema()};
    for (const schema &s : schemas) {
        for (std::uint64_t seed = 1; seed <= 4; ++seed) {
            CAPTURE(seed, s.groups().size());
            world w = make_random_world(s, seed, 60);
            const world_regions before = capture(w);
            const world_image snap = save(w, 17);

            CHECK(snap.size() == image_size(w));
            CHECK(snap.frame() == 17);
            CHECK(snap.header().magic == image_magic);
            CHECK(snap.header().version == image_version);
            CHECK(snap.header().schema_hash == w.schema_hash());
            CHECK(snap.header().alive == w.alive());
            CHECK(snap.header().entity_slots == w.entity_table().size());
            CHECK(snap.header().pool_count == w.pool_count());
            CHECK(snap.header().total_size == snap.size());
            REQUIRE(validate_image(w, snap.bytes()).ok());

            simulate(w, seed + 1000, 0, 40); // the future that restore discards
            REQUIRE(describe_difference(capture(w), before) != "none");
            REQUIRE(restore(w, snap).ok());
            CHECK(describe_difference(capture(w), before) == "none");
            CHECK(capture(w) == before);

            world fresh{s};
            REQUIRE(restore(fresh, snap).ok());
            CHECK(capture(fresh) == before);
            const world_image again = save(fresh, 17);
            REQUIRE(again.size() == snap.size());
            CHECK(std::memcmp(again.bytes().data(), snap.bytes().data(), snap.size()) == 0);
        }
    }
}

#if RETCON_ENTITY_64
TEST_CASE("64-bit handles: indices past 2^20 and versions past 2^12 save, restore and hash", "[snapshot][image]") {
    const schema s = grouped_schema();
    world w{s};
    constexpr std::uint32_t n = 1'100'000; // past the 32-bit layout's 1,048,575 indices
    w.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i) (void)w.create();
    // Churn one index past the 12-bit version range (the free list holds only it each time).
    entity far = entity_traits::construct(n - 2u, 0);
    for (int i = 0; i < 5000; ++i) {
        w.destroy(far);
        far = w.create();
    }
    REQUIRE(to_index(far) == n - 2u);
    REQUIRE(to_version(far) == 5000u);
    const entity last = entity_traits::construct(n - 1u, 0);
    w.emplace<position>(far, 1.5f, -2.0f);
    w.emplace<velocity>(far, 0.25f, 0.5f);
    w.emplace<target>(last, far); // a handle stored in a component keeps all 64 bits
    w.destroy(entity_traits::construct(3, 0));

    const world_image snap = save(w, 9);
    CHECK(snap.header().entity_slots == n);
    CHECK(hash(snap) == hash(w));
    REQUIRE(validate_image(w, snap.bytes()).ok());
    world fresh{s};
    REQUIRE(load_image(fresh, snap).ok());
    CHECK(hash(fresh) == hash(w));
    CHECK(fresh.valid(far));
    CHECK_FALSE(fresh.valid(entity_traits::construct(n - 2u, 4999)));
    CHECK(fresh.get<target>(last).who == far);
    CHECK(fresh.get<position>(far).x == 1.5f);
    CHECK(fresh.alive() == n - 1u);
    const world_image again = save(fresh, 9);
    REQUIRE(again.size() == snap.size());
    CHECK(std::memcmp(again.bytes().data(), snap.bytes().data(), snap.size()) == 0);
    // Versions 5000 and 5000 + 4096 agree in their low 12 bits: the hash tells them apart.
    world_image poked = snap;
    const auto v = parse_image(poked.bytes());
    REQUIRE(v.ok());
    poke(poked, offset_in(poked, &v->entities[n - 2u]), entity_traits::construct(n - 2u, 5000u + 4096u));
    CHECK(hash(poked) != hash(snap));
}
#endif

TEST_CASE("restore keeps the recycling order of the free list", "[snapshot][image]") {
    const schema s = standard_schema();
    world a = make_random_world(s, 99, 40);
    rng r{5};
    for (int i = 0; i < 6; ++i)
        if (const entity e = pick_live(a, r); e != null_entity) a.destroy(e);
    REQUIRE(a.free_list().head != entity_traits::index_mask);
    const world_image snap = save(a);

    // Creates and destroys after the snapshot; the handles returned are the recycling order.
    auto script = [](world &w) {
        std::vector<entity> made;
        for (int i = 0; i < 30; ++i) {
            made.push_back(w.create());
            if (i % 4 == 3) w.destroy(made[made.size() - 2]);
        }
        return made;
    };
    const auto original = script(a);
    REQUIRE(restore(a, snap).ok());
    CHECK(script(a) == original);
    world fresh{s};
    REQUIRE(restore(fresh, snap).ok());
    CHECK(script(fresh) == original);
}

TEST_CASE("restore keeps pool order and group state", "[snapshot][image]") {
    const schema s = grouped_schema();
    world a = make_random_world(s, 7, 80);
    a.sort<health>([](const health &x, const health &y) { return x.hp > y.hp; });
    const world_image snap = save(a);
    world b{s};
    REQUIRE(restore(b, snap).ok());

    auto group_order = [](world &w) {
        std::vector<entity> out;
        w.group<position, velocity>().each([&out](entity e, position &, velocity &) { out.push_back(e); });
        return out;
    };
    auto view_order = [](world &w) {
        std::vector<entity> out;
        w.view<health, const name_tag>().each([&out](entity e, health &, const name_tag &) { out.push_back(e); });
        return out;
    };
    CHECK(group_order(a) == group_order(b));
    CHECK(view_order(a) == view_order(b));
    CHECK(a.group_lengths()[0] == b.group_lengths()[0]);
    for (std::size_t id = 0; id < a.pool_count(); ++id) {
        CAPTURE(id);
        REQUIRE(a.pool_at(id).size() == b.pool_at(id).size());
        for (std::uint32_t k = 0; k < a.pool_at(id).size(); ++k) {
            const entity e = a.pool_at(id).owners().at(k);
            CHECK(b.pool_at(id).owners().at(k) == e);
            CHECK(b.pool_at(id).index(e) == k); // the derived sparse index was rebuilt
        }
    }
    // The same operations keep both worlds identical, groups included.
    simulate(a, 8, 0, 30);
    simulate(b, 8, 0, 30);
    CHECK(capture(a) == capture(b));
}

TEST_CASE("rolling back to an older frame and re-running reaches the same state", "[snapshot][image]") {
    const schema s = grouped_schema();
    for (std::uint64_t seed = 10; seed < 13; ++seed) {
        CAPTURE(seed);
        world straight{s};
        simulate(straight, seed, 0, 60);

        world rolled{s};
        simulate(rolled, seed, 0, 30);
        const world_image at30 = save(rolled, 30);
        simulate(rolled, seed, 30, 15); // frames 30..44, then roll back and redo them
        REQUIRE(restore(rolled, at30).ok());
        simulate(rolled, seed, 30, 30);

        CHECK(hash(rolled) == hash(straight));
        CHECK(capture(rolled) == capture(straight));
    }
}

TEST_CASE("restore into a world of another schema fails and leaves it untouched", "[snapshot][image]") {
    world src = make_random_world(standard_schema(), 3, 20);
    const world_image snap = save(src);

    schema small;
    small.component<position>().component<velocity>();
    world other{small};
    const entity e = other.create();
    other.emplace<position>(e, 1.0f, 2.0f);
    const world_regions before = capture(other);
    auto r = restore(other, snap);
    CHECK(r.code() == errc::schema_mismatch);
    CHECK_FALSE(r.message().empty());
    CHECK(capture(other) == before);
    CHECK(load_image(other, snap).code() == errc::schema_mismatch);
    CHECK(capture(other) == before);

    // Same pools and sizes, different schema (a group): the schema hash tells them apart.
    world grouped = make_random_world(grouped_schema(), 4, 10);
    const world_regions gbefore = capture(grouped);
    auto g = restore(grouped, snap);
    CHECK(g.code() == errc::schema_mismatch);
    CHECK_THAT(g.message(), Contains("schema"));
    CHECK(capture(grouped) == gbefore);
}

TEST_CASE("restore refuses an empty or foreign snapshot", "[snapshot][image]") {
    world w = make_random_world(standard_schema(), 5, 5);
    const world_regions before = capture(w);
    const world_image empty;
    CHECK(empty.empty());
    CHECK(empty.frame() == 0);
    CHECK(restore(w, empty).code() == errc::truncated);
    world_image garbage;
    std::memset(garbage.prepare(256), 0x5a, 256);
    CHECK(restore(w, garbage).code() == errc::bad_magic);
    CHECK(capture(w) == before);
}

TEST_CASE("snapshot copies are deep and saving reuses the buffer", "[snapshot][image]") {
    world w = make_random_world(standard_schema(), 6, 30);
    world_image a = save(w, 3);
    world_image b = a;
    REQUIRE(b.size() == a.size());
    CHECK(std::memcmp(a.bytes().data(), b.bytes().data(), a.size()) == 0);
    CHECK(b.bytes().data() != a.bytes().data());
    world_image c;
    c = b;
    CHECK(hash(c) == hash(w));
    rng pick{1};
    REQUIRE(w.alive() > 0);
    w.destroy(pick_live(w, pick));
    save(w, b, 4); // b changes, a does not
    CHECK(hash(a) == hash(c));
    CHECK(hash(b) == hash(w));
    CHECK(b.frame() == 4);
    const auto cap = b.capacity();
    save(w, b, 5);
    CHECK(b.capacity() == cap);
    world_image moved = std::move(b);
    CHECK(hash(moved) == hash(w));
    moved.clear();
    CHECK(moved.empty());
}

TEST_CASE("validate_image accepts a sound image and rejects each kind of damage", "[snapshot][image][hostile]") {
    fixture fx;
    world &w = fx.w;
    const world_image good = save(w, 9);
    REQUIRE(validate_image(w, good.bytes()).ok());
    REQUIRE(load_image(w, good).ok());
    const image_view v = fx.view(good);
    const auto slot = [&](std::size_t i) { return offset_in(good, &v.entities[i]); };
    const std::size_t health_id = pool_index(fx.s, "health");
    const std::size_t position_id = pool_index(fx.s, "position");
    const std::size_t switch_id = pool_index(fx.s, "switch_state");
    REQUIRE(v.header.free_head == 5);
    REQUIRE(v.header.free_tail == 6);

    struct damage {
        const char *what;
        std::function<void(world_image &)> apply;
        errc code;
        const char *message;
    };
    const std::vector<damage> cases = {
        {"free-list cycle",
         [&](world_image &s) { poke(s, slot(6), entity_traits::construct(5, to_version(v.entities[6]))); },
         errc::corrupt, "cycle"},
        {"free list into a live slot",
         [&](world_image &s) { poke(s, offsetof(image_header, free_head), std::uint32_t{0}); }, errc::corrupt,
         "free list"},
        {"free list ends elsewhere",
         [&](world_image &s) { poke(s, offsetof(image_header, free_tail), std::uint32_t{5}); }, errc::corrupt, "tail"},
        {"free slot not linked", [&](world_image &s) { poke(s, offsetof(image_header, free_head), std::uint32_t{6}); },
         errc::corrupt, "neither live, free nor retired"},
        {"alive count", [&](world_image &s) { poke(s, offsetof(image_header, alive), v.header.alive + 1u); },
         errc::corrupt, "live entities"},
        {"owner not live",
         [&](world_image &s) {
             const entity o = v.owners[health_id][0];
             poke(s, offset_in(good, &v.owners[health_id][0]),
                  entity_traits::construct(to_index(o), to_version(o) + 1u));
         },
         errc::corrupt, "not live"},
        {"owner out of range",
         [&](world_image &s) { poke(s, offset_in(good, &v.owners[health_id][1]), entity_traits::construct(4000, 0)); },
         errc::corrupt, "not live"},
        {"duplicate owner",
         [&](world_image &s) { poke(s, offset_in(good, &v.owners[health_id][1]), v.owners[health_id][0]); },
         errc::corrupt, "twice"},
        {"group too long",
         [&](world_image &s) {
             poke(s, offset_in(good, &v.group_lengths[0]),
                  static_cast<std::uint32_t>(v.owners[position_id].size() + 1));
         },
         errc::corrupt, "longer"},
        {"group not packed",
         [&](world_image &s) {
             poke(s, offset_in(good, &v.owners[position_id][0]), v.owners[position_id][1]);
             poke(s, offset_in(good, &v.owners[position_id][1]), v.owners[position_id][0]);
         },
         errc::corrupt, "packed"},
        {"bool holding 2",
         [&](world_image &s) { poke(s, offset_in(good, v.payloads[switch_id].data()), std::uint8_t{2}); },
         errc::corrupt, "switch_state.on"},
        {"total size too large",
         [&](world_image &s) { poke(s, offsetof(image_header, total_size), good.size() + 16u); }, errc::truncated,
         "declares"},
        {"total size too small",
         [&](world_image &s) { poke(s, offsetof(image_header, total_size), good.size() - 16u); }, errc::truncated,
         "declares"},
        {"bad magic", [&](world_image &s) { poke(s, 0, std::uint32_t{0x12345678}); }, errc::bad_magic, "magic"},
        {"bad version",
         [&](world_image &s) { poke(s, offsetof(image_header, version), std::uint16_t{image_version + 1}); },
         errc::bad_version, "version"},
        {"bad header size", [&](world_image &s) { poke(s, offsetof(image_header, header_size), std::uint16_t{32}); },
         errc::corrupt, "header size"},
        {"other schema hash",
         [&](world_image &s) { poke(s, offsetof(image_header, schema_hash), w.schema_hash() ^ 1u); },
         errc::schema_mismatch, "schema"},
        {"pool count", [&](world_image &s) { poke(s, offsetof(image_header, pool_count), v.header.pool_count + 1u); },
         errc::schema_mismatch, "pools"},
        {"element size",
         [&](world_image &s) { poke(s, offset_in(good, &v.element_sizes[health_id]), std::uint32_t{12}); },
         errc::schema_mismatch, "-byte elements"},
        {"absurd entity slots",
         [&](world_image &s) { poke(s, offsetof(image_header, entity_slots), ~std::uint32_t{0}); }, errc::corrupt,
         // past the 32-bit layout's indices; with 64-bit handles within them, but not in the bytes
         RETCON_ENTITY_64 ? "entity table" : "entity slots"},
        {"pool larger than the table",
         [&](world_image &s) { poke(s, offset_in(good, &v.pool_counts[health_id]), v.header.entity_slots + 1u); },
         errc::corrupt, "entity slots"},
        {"pool count shifts the layout",
         [&](world_image &s) { poke(s, offset_in(good, &v.pool_counts[health_id]), v.pool_counts[health_id] + 2u); },
         errc::corrupt, "runs past"},
        {"resource block size",
         [&](world_image &s) { poke(s, offsetof(image_header, resource_bytes), v.header.resource_bytes - 16u); },
         errc::corrupt, "sections end"},
        {"group count", [&](world_image &s) { poke(s, offsetof(image_header, group_count), std::uint32_t{5}); },
         errc::corrupt, "runs past"},
    };
    for (const damage &d : cases) {
        CAPTURE(d.what);
        world_image bad = good;
        d.apply(bad);
        auto r = validate_image(w, bad.bytes());
        CHECK(r.code() == d.code);
        CHECK_THAT(r.message(), Contains(d.message));
        CHECK_THAT(r.message(), Contains("image"));
        // load_image refuses it too and changes nothing.
        world target = make_random_world(fx.s, 2, 3);
        const world_regions before = capture(target);
        CHECK(load_image(target, bad).code() == d.code);
        CHECK(capture(target) == before);
    }
}

TEST_CASE("an image with a byte-swapped magic is refused as written by a big-endian host",
          "[snapshot][image][hostile]") {
    // A big-endian host's memcpy of the header holds every field byte-swapped, the magic first
    // (docs/file-format.md, "Conventions").
    fixture fx;
    const world_image good = save(fx.w, 3);
    world_image swapped = good;
    std::byte *b = swapped.prepare(swapped.size());
    std::swap(b[0], b[3]);
    std::swap(b[1], b[2]);
    auto r = validate_image(fx.w, swapped.bytes());
    CHECK(r.code() == errc::bad_magic);
    CHECK_THAT(r.message(), Contains("big-endian") && Contains("little-endian only"));
    world target = make_random_world(fx.s, 2, 3);
    const world_regions before = capture(target);
    CHECK_THAT(load_image(target, swapped).message(), Contains("big-endian"));
    CHECK(capture(target) == before);

    // Any other wrong magic, including another order of the same four bytes, is plain bad magic.
    for (const std::uint32_t magic :
         {std::uint32_t{0x12345678}, std::uint32_t{(image_magic << 8) | (image_magic >> 24)}}) {
        CAPTURE(magic);
        world_image bad = good;
        poke(bad, 0, magic);
        auto e = validate_image(fx.w, bad.bytes());
        CHECK(e.code() == errc::bad_magic);
        CHECK(e.message() == "image: bad magic (not a retcon world image)");
    }
}

TEST_CASE("validate_image rejects misaligned and short input", "[snapshot][image][hostile]") {
    fixture fx;
    const world_image good = save(fx.w);
    std::vector<std::byte> shifted(good.size() + 4);
    std::memcpy(shifted.data() + 1, good.bytes().data(), good.size());
    CHECK(validate_image(fx.w, std::span<const std::byte>(shifted).subspan(1, good.size())).code() ==
          errc::invalid_argument);
    CHECK(validate_image(fx.w, good.bytes().first(10)).code() == errc::truncated);
    CHECK(parse_image({}).code() == errc::truncated);
}

TEST_CASE("parse_image never reads past a truncated image", "[snapshot][image][hostile]") {
    fixture fx;
    const world_image good = save(fx.w);
    REQUIRE(parse_image(good.bytes()).ok());
    std::size_t rejected = 0;
    for (std::size_t n = 0; n < good.size(); ++n) {
        CAPTURE(n);
        // Exactly n bytes on the heap, so AddressSanitizer sees any read past them; the header
        // is patched to claim n bytes so the section bounds, not the size check, must catch it.
        std::vector<std::byte> cut(good.bytes().begin(), good.bytes().begin() + static_cast<std::ptrdiff_t>(n));
        if (n >= sizeof(image_header)) {
            const std::uint64_t total = n;
            std::memcpy(cut.data() + offsetof(image_header, total_size), &total, sizeof total);
        }
        auto p = parse_image(cut);
        CHECK_FALSE(p.ok());
        CHECK_FALSE(p.message().empty());
        CHECK_FALSE(validate_image(fx.w, cut).ok());
        rejected += p.ok() ? 0u : 1u;
    }
    CHECK(rejected == good.size());
}

TEST_CASE("parse_image survives arbitrary header and table values", "[snapshot][image][hostile]") {
    fixture fx;
    const world_image good = save(fx.w);
    const image_view v = fx.view(good);
    const std::size_t table_end = offset_in(good, v.entities.data()) + v.entities.size_bytes();
    rng r{77};
    std::size_t accepted = 0;
    for (std::size_t off = 0; off < table_end; ++off) {
        for (int trial = 0; trial < 4; ++trial) {
            std::vector<std::byte> bytes(good.bytes().begin(), good.bytes().end());
            const std::uint8_t values[4] = {0xff, 0x00, 0x80, static_cast<std::uint8_t>(r.next())};
            bytes[off] = std::byte{values[trial]};
            auto p = parse_image(bytes);
            if (p.ok()) {
                ++accepted;
                // Every region it hands out lies inside the input.
                const auto inside = [&](const void *ptr, std::size_t n) {
                    const auto *b = static_cast<const std::byte *>(ptr);
                    return n == 0 || (b >= bytes.data() && b + n <= bytes.data() + bytes.size());
                };
                CHECK(inside(p->entities.data(), p->entities.size_bytes()));
                for (std::size_t i = 0; i < p->owners.size(); ++i) {
                    CHECK(inside(p->owners[i].data(), p->owners[i].size_bytes()));
                    CHECK(inside(p->payloads[i].data(), p->payloads[i].size()));
                }
                CHECK(inside(p->resources.data(), p->resources.size()));
            }
            (void)validate_image(fx.w, bytes); // must not crash or read out of bounds
        }
    }
    CHECK(accepted > 0); // unused bytes (frame, reserved, padding) are legitimately ignored
}
