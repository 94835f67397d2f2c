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
        .add<const position, frozen>("frozen_count", [&](entity e, const position &) {
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
