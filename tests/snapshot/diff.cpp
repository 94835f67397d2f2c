// Snapshot diffs: which pool, which entity, which field, formatted values; membership, order,
// resources, groups and schema differences; text and JSON reports.
#include <retcon/snapshot/diff.hpp>
#include <retcon/snapshot/inspect.hpp>

#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "common/components.hpp"
#include "common/world_gen.hpp"
#include "json_check.hpp"

using namespace retcon;
using namespace retcon::test;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

/// Six entities with known components; e[4] destroyed so the free list is not empty.
std::vector<entity> build(world &w) {
    std::vector<entity> e;
    const char *names[] = {"alpha", "beta", "gamma", "delta", "eps", "zeta"};
    for (int i = 0; i < 6; ++i) {
        const entity x = w.create();
        e.push_back(x);
        w.emplace<position>(x, static_cast<float>(i), -static_cast<float>(i));
        if (i % 2 == 0) w.emplace<velocity>(x, 0.25f, 0.5f);
        w.emplace<health>(x, 100 - i, static_cast<std::uint16_t>(i), std::uint8_t{1}, std::uint8_t{0});
        w.emplace<name_tag>(x, fixed_string<16>{names[i]});
    }
    w.emplace<target>(e[0], e[1]);
    w.destroy(e[4]);
    w.set_resource<game_clock>(1u, 60u);
    w.set_resource<rng_state>(std::uint64_t{99});
    return e;
}

snapshot_diff run(const world &a, const world &b, const diff_options &opt = {}) {
    auto d = diff(save(a, 1), a.get_schema(), save(b, 2), b.get_schema(), opt);
    REQUIRE(d.ok());
    std::string err;
    INFO(d->to_json());
    CHECK(json_checker::valid(d->to_json(), &err));
    INFO(err);
    return *d;
}

const schema::field &field_of(const schema &s, const char *type, const char *field) {
    const auto &t = s.components()[s.find_component(type)];
    for (const auto &f : t.fields)
        if (f.name == field) return f;
    FAIL("no field " << field);
    return t.fields[0];
}

template<class T>
std::string formatted(const schema &s, const char *type, const char *field, const T &value, std::size_t offset = 0) {
    return format_field(field_of(s, type, field), reinterpret_cast<const std::byte *>(&value) + offset);
}

} // namespace

TEST_CASE("identical worlds diff as identical whatever their frames", "[snapshot][diff]") {
    const schema s = grouped_schema();
    world a{s}, b{s};
    build(a);
    build(b);
    const auto d = run(a, b);
    CHECK(d.identical());
    CHECK(d.frame_a == 1);
    CHECK(d.frame_b == 2);
    CHECK_THAT(d.to_text(), StartsWith("identical"));
    CHECK_THAT(d.to_json(), Contains("\"identical\":true"));
}

TEST_CASE("a changed field is reported with pool, entity, field name and both values", "[snapshot][diff]") {
    const schema s = standard_schema();
    world a{s}, b{s};
    const auto e = build(a);
    build(b);
    b.get<position>(e[2]).x = 9.5f;
    b.get<name_tag>(e[3]).text.assign("renamed");
    b.get<target>(e[0]).who = e[3];

    const auto d = run(a, b);
    CHECK_FALSE(d.identical());
    CHECK(d.entity_table.empty());
    REQUIRE(d.pools.size() == 3);
    CHECK(d.pools[0].pool == "position");
    CHECK(d.pools[1].pool == "name_tag");
    CHECK(d.pools[2].pool == "target");

    const pool_difference &p = d.pools[0];
    CHECK(p.count_a == p.count_b);
    CHECK_FALSE(p.order_differs);
    REQUIRE(p.entities.size() == 1);
    CHECK(p.entities_total == 1);
    CHECK(p.entities[0].who == e[2]);
    CHECK(p.entities[0].what == entity_difference::kind::changed);
    REQUIRE(p.entities[0].fields.size() == 1);
    const field_difference &f = p.entities[0].fields[0];
    CHECK(f.field == "x");
    CHECK(f.offset == 0);
    CHECK(f.size == 4);
    CHECK(f.a == formatted(s, "position", "x", 2.0f));
    CHECK(f.b == formatted(s, "position", "x", 9.5f));
    CHECK(f.b == "9.5");

    const field_difference &n = d.pools[1].entities.at(0).fields.at(0);
    CHECK(n.field == "text");
    CHECK_THAT(n.a, Contains("delta"));
    CHECK_THAT(n.b, Contains("renamed"));

    const field_difference &t = d.pools[2].entities.at(0).fields.at(0);
    CHECK(t.field == "who");
    CHECK(t.a == formatted(s, "target", "who", e[1]));
    CHECK(t.b == formatted(s, "target", "who", e[3]));

    const std::string text = d.to_text();
    CHECK_THAT(text, Contains("pool position"));
    CHECK_THAT(text, Contains("x: 2 -> 9.5"));
    CHECK_THAT(text, Contains("frames: 1 vs 2"));
    const std::string json = d.to_json();
    CHECK_THAT(json, Contains("\"pool\":\"position\""));
    CHECK_THAT(json, Contains("\"field\":\"x\""));
    CHECK_THAT(json, Contains("\"kind\":\"changed\""));
}

TEST_CASE("entities present on one side only are listed as such", "[snapshot][diff]") {
    const schema s = standard_schema();
    world a{s}, b{s};
    const auto e = build(a);
    build(b);
    b.remove<velocity>(e[2]);
    b.emplace<velocity>(e[1], 1.0f, 1.0f);
    const auto d = run(a, b);
    REQUIRE(d.pools.size() == 1);
    const auto &p = d.pools[0];
    CHECK(p.pool == "velocity");
    CHECK(p.count_a == p.count_b);
    REQUIRE(p.entities.size() == 2);
    CHECK(p.entities[0].who == e[2]);
    CHECK(p.entities[0].what == entity_difference::kind::only_in_a);
    CHECK(p.entities[1].who == e[1]);
    CHECK(p.entities[1].what == entity_difference::kind::only_in_b);
    CHECK_THAT(d.to_text(), Contains("only in the first"));
    CHECK_THAT(d.to_text(), Contains("only in the second"));
    CHECK_THAT(d.to_json(), Contains("only_in_a"));
    CHECK_THAT(d.to_json(), Contains("only_in_b"));
}

TEST_CASE("a destroyed entity shows in the entity table and in every pool it left", "[snapshot][diff]") {
    const schema s = standard_schema();
    world a{s}, b{s};
    const auto e = build(a);
    build(b);
    b.destroy(e[3]);
    const auto d = run(a, b);
    CHECK_FALSE(d.entity_table.empty());
    std::string table;
    for (const auto &line : d.entity_table) table += line + "\n";
    CHECK_THAT(table, Contains("live entities: 5 vs 4"));
    CHECK_THAT(table, Contains("slot 3"));
    REQUIRE(d.pools.size() == 3); // position, health, name_tag
    for (const auto &p : d.pools) {
        CHECK(p.count_a == p.count_b + 1);
        bool found = false;
        for (const auto &x : p.entities)
            found = found || (x.who == e[3] && x.what == entity_difference::kind::only_in_a);
        CHECK(found);
    }
}

TEST_CASE("the same members in a different order are flagged as an order difference", "[snapshot][diff]") {
    const schema s = standard_schema();
    world a{s}, b{s};
    build(a);
    build(b);
    b.sort<health>([](const health &x, const health &y) { return x.hp < y.hp; });
    const auto d = run(a, b);
    REQUIRE(d.pools.size() == 1);
    CHECK(d.pools[0].pool == "health");
    CHECK(d.pools[0].order_differs);
    CHECK(d.pools[0].entities.empty());
    CHECK_THAT(d.to_text(), Contains("different order"));
    CHECK_THAT(d.to_json(), Contains("\"order_differs\":true"));
}

TEST_CASE("resource fields and presence are compared", "[snapshot][diff]") {
    const schema s = standard_schema();
    world a{s}, b{s};
    build(a);
    build(b);
    b.set_resource<game_clock>(2u, 60u);
    (void)b.remove_resource<rng_state>();
    const auto d = run(a, b);
    CHECK(d.pools.empty());
    REQUIRE(d.resources.size() == 2);
    CHECK(d.resources[0] == "rng_state: set vs unset");
    CHECK(d.resources[1] == "game_clock.frame: 1 -> 2");
    CHECK_THAT(d.to_text(), Contains("game_clock.frame: 1 -> 2"));
    CHECK_THAT(d.to_json(), Contains("game_clock.frame"));
}

TEST_CASE("group state differences are reported", "[snapshot][diff]") {
    const schema s = grouped_schema();
    world a{s}, b{s};
    const auto e = build(a);
    build(b);
    b.remove<velocity>(e[0]);
    const auto d = run(a, b);
    CHECK(d.groups_differ);
    CHECK_THAT(d.to_text(), Contains("group lengths differ"));
    CHECK_THAT(d.to_json(), Contains("\"groups_differ\":true"));
}

TEST_CASE("snapshots of different schemas report only the schema differences", "[snapshot][diff]") {
    world a{standard_schema()}, b{grouped_schema()};
    build(a);
    build(b);
    const auto d = run(a, b);
    CHECK_FALSE(d.identical());
    REQUIRE_FALSE(d.schema_differences.empty());
    CHECK(d.schema_differences[0] == "groups differ");
    CHECK(d.pools.empty());
    CHECK(d.entity_table.empty());
    CHECK_THAT(d.to_text(), StartsWith("schemas differ"));

    schema small;
    small.component<position>().component<health>();
    world c{small};
    const auto d2 = run(a, c);
    std::string all;
    for (const auto &x : d2.schema_differences) all += x + "\n";
    CHECK_THAT(all, Contains("velocity"));
}

TEST_CASE("the number of entities listed per pool is capped", "[snapshot][diff]") {
    const schema s = standard_schema();
    world a = make_random_world(s, 3, 40);
    world b = make_random_world(s, 3, 40);
    std::size_t changed = 0;
    b.view<position>().each([&changed](position &p) {
        p.y += 100.0f;
        ++changed;
    });
    REQUIRE(changed > 5);
    diff_options opt;
    opt.max_entities = 3;
    const auto d = run(a, b, opt);
    REQUIRE(d.pools.size() == 1);
    CHECK(d.pools[0].entities.size() == 3);
    CHECK(d.pools[0].entities_total == changed);
    CHECK_THAT(d.to_text(), Contains(std::to_string(changed - 3) + " more entities differ"));
}

TEST_CASE("diff of a malformed image is an error", "[snapshot][diff][hostile]") {
    const schema s = standard_schema();
    world a{s};
    build(a);
    world_image junk;
    std::memset(junk.prepare(200), 0x11, 200);
    auto d = diff(save(a), s, junk, s);
    CHECK(d.code() == errc::bad_magic);
    CHECK_THAT(d.message(), Contains("second image"));
    auto d2 = diff(junk, s, save(a), s);
    CHECK_THAT(d2.message(), Contains("first image"));
}

TEST_CASE("random worlds diff consistently with their hashes", "[snapshot][diff]") {
    const schema s = grouped_schema();
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        CAPTURE(seed);
        const world a = make_random_world(s, seed, 20);
        world b = make_random_world(s, seed, 20);
        CHECK(run(a, b).identical());
        rng r{seed};
        random_op(b, r);
        const auto d = run(a, b);
        CHECK(d.identical() == (capture(a) == capture(b)));
    }
}
