// The scene both demo renderers draw: a copy of the world, and the frames between two of them.
#include <catch2/catch.hpp>

#include <retcon/snapshot/hash.hpp>

#include <algorithm>
#include <numbers>

#include "scene.hpp"

using namespace retcon;
using namespace retcon::demo;

namespace {

struct demo_world {
    world w{make_schema()};
    game g;
    demo_world() { init_world(w); }
    void step(std::size_t frames) {
        frame_inputs_buffer in{2, sizeof(player_input)};
        in.set(0, player_input{1, 1, 1, 0}); // turning, thrusting and firing: bullets and debris too
        in.set(1, player_input{});
        for (std::size_t i = 0; i < frames; ++i) g.step(w, in.view(w.resource<match_state>().frame));
    }
};

scene_ship ship_at(std::uint64_t id, float x, float y, float angle = 0) {
    scene_ship s;
    s.id = id;
    s.x = x;
    s.y = y;
    s.angle = angle;
    return s;
}

scene two_ships(float x0, float y0, float x1, float y1) {
    scene s;
    s.width = 200;
    s.height = 100;
    s.ships = {ship_at(1, x0, y0), ship_at(2, x1, y1)};
    return s;
}

} // namespace

TEST_CASE("capture copies every drawn entity of the world, sorted by id, and changes nothing", "[scene]") {
    demo_world d;
    d.step(30);
    const auto before = hash(d.w);
    scene s;
    capture(d.w, s);
    CHECK(hash(d.w) == before);
    CHECK(s.frame == d.w.resource<match_state>().frame);
    CHECK(s.width == 200.0f);
    CHECK(s.height == 100.0f);
    CHECK(s.asteroids.size() == d.w.view<const position, const asteroid>().size_hint());
    CHECK(s.particles.size() == d.w.view<const position, const particle>().size_hint());
    CHECK(!s.particles.empty());
    auto by_id = [](const auto &a, const auto &b) { return a.id < b.id; };
    CHECK(std::is_sorted(s.particles.begin(), s.particles.end(), by_id));
    CHECK(std::is_sorted(s.asteroids.begin(), s.asteroids.end(), by_id));
    // Positions are the world's, in arena units.
    const auto &a = s.asteroids.front();
    const auto &p = d.w.get<const position>(entity{static_cast<entity_traits::value_type>(a.id)});
    CHECK(a.x == Approx(static_cast<float>(p.x.raw) / 65536.0f));
    CHECK(a.y == Approx(static_cast<float>(p.y.raw) / 65536.0f));
}

TEST_CASE("interpolate moves each entity part of the way between its two places", "[scene]") {
    const scene from = two_ships(10, 10, 50, 50), to = two_ships(20, 30, 50, 40);
    scene mid;
    interpolate(from, to, 0.25f, mid);
    REQUIRE(mid.ships.size() == 2);
    CHECK(mid.ships[0].x == Approx(12.5f));
    CHECK(mid.ships[0].y == Approx(15.0f));
    CHECK(mid.ships[1].y == Approx(47.5f));
    interpolate(from, to, 1.0f, mid);
    CHECK(mid.ships[0].x == Approx(20.0f));
    interpolate(from, to, 0.0f, mid);
    CHECK(mid.ships[0].x == Approx(10.0f));
}

TEST_CASE("interpolate never draws a ship across the arena when it wrapped around an edge", "[scene]") {
    // Ship 1 leaves by the right edge and comes back on the left; ship 2 by the top.
    const scene from = two_ships(199, 50, 100, 1), to = two_ships(1, 50, 100, 99);
    scene mid;
    interpolate(from, to, 0.5f, mid);
    REQUIRE(mid.ships.size() == 2);
    CHECK(mid.ships[0].x == Approx(1.0f)); // at its new place, not halfway across the screen (x = 100)
    CHECK(mid.ships[1].y == Approx(99.0f));
}

TEST_CASE("interpolate shows new entities at their place and drops the ones that are gone", "[scene]") {
    scene from = two_ships(10, 10, 50, 50), to = two_ships(20, 10, 50, 50);
    from.ships.erase(from.ships.begin() + 1); // ship 2 is new in `to`
    to.ships.front().id = 7;                  // ship 1 is gone, ship 7 is new
    std::sort(to.ships.begin(), to.ships.end(), [](auto &a, auto &b) { return a.id < b.id; });
    scene mid;
    interpolate(from, to, 0.5f, mid);
    REQUIRE(mid.ships.size() == 2);
    CHECK(mid.ships[0].id == 2);
    CHECK(mid.ships[1].id == 7);
    CHECK(mid.ships[1].x == Approx(20.0f));
}

TEST_CASE("interpolate turns a ship the short way round", "[scene]") {
    constexpr float pi = std::numbers::pi_v<float>;
    scene from = two_ships(10, 10, 50, 50), to = from;
    from.ships[0].angle = 2 * pi - 0.1f;
    to.ships[0].angle = 0.1f;
    scene mid;
    interpolate(from, to, 0.5f, mid);
    const float a = mid.ships[0].angle;
    CHECK((a == Approx(0.0f).margin(1e-4) || a == Approx(2 * pi).margin(1e-4))); // not pi: no spin
}
