// schedule: an ordered list of named systems.
#include "common/components.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace retcon;
using namespace retcon::test;

TEST_CASE("systems run in the order they were added", "[schedule]") {
    world w{standard_schema()};
    std::vector<std::string> log;
    schedule s;
    CHECK(s.size() == 0);
    s.add("first", [&](world &) { log.push_back("first"); })
        .add("second", [&](world &) { log.push_back("second"); })
        .add("third", [&](world &) { log.push_back("third"); });
    CHECK(s.size() == 3);
    s.run(w);
    s.run(w);
    CHECK(log == std::vector<std::string>{"first", "second", "third", "first", "second", "third"});
    CHECK(s.name(1) == "second");
    CHECK(s.query(1).empty());
}

TEST_CASE("per-entity systems iterate their query", "[schedule]") {
    world w{standard_schema()};
    for (int i = 0; i < 10; ++i) {
        const entity e = w.create();
        w.emplace<position>(e, 0.f, 0.f);
        w.emplace<velocity>(e, float(i), 1.f);
        if (i % 2) w.emplace<frozen>(e);
    }
    w.set_resource<game_clock>(0u, 60u);
    schedule s;
    int with_entity = 0;
    s.add<position, const velocity>("movement",
                                    [](position &p, const velocity &v) {
                                        p.x += v.dx;
                                        p.y += v.dy;
                                    })
        .add<const position, frozen>("frozen_count",
                                     [&](entity e, const position &) {
                                         CHECK(w.has<frozen>(e));
                                         ++with_entity;
                                     })
        .add("clock", [](world &ww) { ++ww.resource<game_clock>().frame; });
    for (int frame = 0; frame < 3; ++frame) s.run(w);
    CHECK(with_entity == 15);
    CHECK(w.resource<game_clock>().frame == 3u);
    w.view<const position, const velocity>().each([](const position &p, const velocity &v) {
        CHECK(p.x == 3.f * v.dx);
        CHECK(p.y == 3.f);
    });
    CHECK(s.query(0) == "position, const velocity");
    CHECK(s.query(1) == "const position, frozen");
    CHECK(s.query(2).empty());
    CHECK(s.name(0) == "movement");
}

TEST_CASE("run with after_each sees every system, in order, after it ran", "[schedule]") {
    world w{standard_schema()};
    w.set_resource<game_clock>(0u, 60u);
    schedule s;
    s.add("a", [](world &ww) { ww.resource<game_clock>().frame += 1u; })
        .add("b", [](world &ww) { ww.resource<game_clock>().frame *= 10u; })
        .add<position>("c", [](position &) {});
    std::vector<std::string> names;
    std::vector<std::size_t> indices;
    std::vector<std::uint32_t> frames;
    s.run(w, [&](std::size_t i, std::string_view name) {
        indices.push_back(i);
        names.emplace_back(name);
        frames.push_back(w.resource<game_clock>().frame);
    });
    CHECK(names == std::vector<std::string>{"a", "b", "c"});
    CHECK(indices == std::vector<std::size_t>{0, 1, 2});
    CHECK(frames == std::vector<std::uint32_t>{1, 10, 10});
}

TEST_CASE("a per-entity system keeps its own state between runs", "[schedule]") {
    world w{standard_schema()};
    w.emplace<position>(w.create(), 0.f, 0.f);
    schedule s;
    s.add<position>("counter", [n = 0](position &p) mutable { p.x = float(++n); });
    s.run(w);
    s.run(w);
    const world &cw = w;
    cw.view<const position>().each([](const position &p) { CHECK(p.x == 2.f); });
}

TEST_CASE("a per-entity system may take the world: it reads resources and writes components", "[schedule]") {
    world w{standard_schema()};
    w.set_resource<game_clock>(0u, 60u);
    std::vector<entity> made;
    for (int i = 0; i < 5; ++i) {
        const entity e = w.create();
        w.emplace<position>(e, 0.f, float(i));
        if (i % 2) w.emplace<frozen>(e);
        made.push_back(e);
    }
    schedule s;
    std::vector<entity> seen_with_entity;
    s.add("clock", [](world &ww) { ++ww.resource<game_clock>().frame; })
        .add<position>("drift", [](world &ww, position &p) { p.x += float(ww.resource<game_clock>().tick_hz); })
        .add<const position, frozen>("frozen",
                                     [&](world &ww, entity e, const position &p) {
                                         CHECK(&ww == &w);
                                         CHECK(ww.get<position>(e).y == p.y);
                                         seen_with_entity.push_back(e);
                                     })
        .add<position>("stamp", [](world &ww, entity e, position &p) {
            p.y = float(ww.resource<game_clock>().frame * 100u + to_index(e));
        });
    CHECK(s.query(1) == "position");
    CHECK(s.query(2) == "const position, frozen");
    s.run(w);
    w.resource<game_clock>().tick_hz = 30u;
    s.run(w);
    for (const entity e : made) {
        CHECK(w.get<position>(e).x == 90.f);
        CHECK(w.get<position>(e).y == float(200u + to_index(e)));
    }
    // Two runs over the two frozen entities (the tag filters; it is not passed).
    CHECK(seen_with_entity.size() == 4);
}

TEST_CASE("a per-entity system may destroy the entity it visits, or record commands", "[schedule]") {
    world w{standard_schema()};
    for (int i = 0; i < 200; ++i) {
        const entity e = w.create();
        w.emplace<health>(e, i % 3 == 0 ? 0 : 10, std::uint16_t{0}, std::uint8_t{0}, std::uint8_t{0});
        w.emplace<position>(e, float(i), 0.f);
    }
    command_buffer cmd{w};
    schedule s;
    s.add<const health, position>("reaper",
                                  [](world &ww, entity e, const health &h, position &) {
                                      if (h.hp <= 0) ww.destroy(e); // the visited entity: allowed (view.hpp)
                                  })
        .add<const position>("marker",
                             [&cmd](world &, entity e, const position &p) {
                                 if (int(p.x) % 2 == 0) cmd.emplace<marked>(e); // adding: recorded
                             })
        .add("apply", [&cmd](world &) { cmd.apply(); });
    s.run(w);
    CHECK(cmd.empty());
    std::size_t alive = 0, marked_count = 0;
    w.view<const health, const position>().each([&](entity e, const health &h, const position &p) {
        ++alive;
        CHECK(h.hp == 10);
        CHECK(w.has<marked>(e) == (int(p.x) % 2 == 0));
        marked_count += w.has<marked>(e) ? 1u : 0u;
    });
    CHECK(alive == 200 - 67);
    CHECK(marked_count == 66);
    CHECK(w.size<marked>() == 66);
}

TEST_CASE("a generic per-entity system keeps the form without the world", "[schedule]") {
    world w{standard_schema()};
    w.emplace<position>(w.create(), 1.f, 2.f);
    schedule s;
    int calls = 0;
    s.add<position>("generic", [&calls](auto &p) {
        STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(p)>, position>);
        ++calls;
    });
    s.run(w);
    CHECK(calls == 1);
}
