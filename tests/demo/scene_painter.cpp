// A known picture: a frame of the demo's golden replay drawn by the window's painter with SDL's
// software renderer, read back, and checked against where the world says things are.
#include <catch2/catch.hpp>

#include <retcon/snapshot.hpp>
#include <retcon_demo/game.hpp>

#include <cmath>
#include <cstdlib>
#include <string>

#include "demo/display.hpp"
#include "scene_painter.hpp"

using namespace retcon;
using namespace retcon::demo;

namespace {

constexpr frame_t known_frame = 240;

/// The demo's world at @p frame of the golden replay, re-simulated from the keyframe before it.
void golden_world_at(world &w, frame_t frame) {
    auto r = replay_reader::open(RETCON_TEST_DATA_DIR "/golden_demo.rcr");
    REQUIRE(r);
    REQUIRE(frame < r->end_frame());
    auto k = r->restore_keyframe(w, frame);
    REQUIRE(k);
    game g;
    for (frame_t f = *k; f < frame; ++f) g.step(w, r->inputs(f));
    REQUIRE(hash(w) == r->hash(frame - 1));
}

/// Arena points at least @p clearance units from everything drawn (and from the border), on a grid.
std::vector<std::pair<float, float>> empty_places(const scene &s, float clearance) {
    std::vector<std::pair<float, float>> out;
    for (float y = clearance; y < s.height - clearance; y += 3.0f)
        for (float x = clearance; x < s.width - clearance; x += 3.0f) {
            auto near = [&](float ex, float ey, float r) { return std::hypot(ex - x, ey - y) < r + clearance; };
            bool clear = true;
            for (const auto &a : s.asteroids) clear = clear && !near(a.x, a.y, a.radius);
            for (const auto &sh : s.ships) clear = clear && !near(sh.x, sh.y, 4);
            for (const auto &b : s.bullets) clear = clear && !near(b.x, b.y, 1);
            for (const auto &q : s.particles)
                clear = clear && ((q.kind == 0 && !draws_dust(q.id)) || !near(q.x, q.y, 1));
            if (clear) out.emplace_back(x, y);
        }
    return out;
}

} // namespace

TEST_CASE("a frame of the golden replay draws each ship in its colour where the world puts it", "[window]") {
    world w{make_schema()};
    golden_world_at(w, known_frame);
    const auto before = hash(w);
    scene s;
    capture(w, s);
    REQUIRE(!s.ships.empty());

    auto c = testing::test_canvas(640, 360);
    const arena_view view = fit(s.width, s.height, 8, 8, 624, 344);
    c->clear(palette::background);
    paint(*c, s, view);
    const picture p = c->read_pixels();
    if (const char *keep = std::getenv("RETCON_KEEP_PICTURES"))
        (void)p.save_bmp(std::string(keep) + "/known_frame.bmp");
    REQUIRE(p.width == 640);
    REQUIRE(p.height == 360);
    CHECK(hash(w) == before); // drawing never touches the world

    // Every visible ship: its player's colour at its projected place.
    for (const auto &sh : s.ships) {
        if (sh.blinking) continue;
        INFO("ship of player " << int{sh.player} << " at " << sh.x << "," << sh.y);
        CHECK(testing::colour_near(p, view.to_pixels(sh.x, sh.y), palette::player(sh.player)));
    }
    // The border where the arena ends: its four corners and the middle of each side.
    const float l = view.left - 1, t = view.top - 1, r = view.left + view.width, b = view.top + view.height;
    for (const point at : {point{l, t}, point{r, t}, point{l, b}, point{r, b}, point{(l + r) / 2, t},
                           point{(l + r) / 2, b}, point{l, (t + b) / 2}, point{r, (t + b) / 2}}) {
        INFO("border at " << at.x << "," << at.y);
        CHECK(testing::colour_near(p, at, palette::border, 0));
    }
    // Empty space where nothing is.
    const auto empty = empty_places(s, 1.5f);
    REQUIRE(empty.size() > 10);
    for (const auto &[x, y] : empty) {
        const point at = view.to_pixels(x, y);
        INFO("empty at arena " << x << "," << y);
        CHECK(p.at(static_cast<int>(at.x), static_cast<int>(at.y)) == palette::background);
    }
}

TEST_CASE("a blank or border-only picture fails the known-picture checks", "[window]") {
    world w{make_schema()};
    golden_world_at(w, known_frame);
    scene s;
    capture(w, s);
    auto c = testing::test_canvas(640, 360);
    const arena_view view = fit(s.width, s.height, 8, 8, 624, 344);
    // The border alone: the arena drawn with nothing in it.
    scene bare = s;
    bare.ships.clear();
    bare.asteroids.clear();
    bare.bullets.clear();
    bare.particles.clear();
    c->clear(palette::background);
    paint(*c, bare, view);
    const picture p = c->read_pixels();
    std::size_t ships_found = 0;
    for (const auto &sh : s.ships)
        ships_found += testing::colour_near(p, view.to_pixels(sh.x, sh.y), palette::player(sh.player));
    CHECK(ships_found == 0);
}

TEST_CASE("the painter keeps the arena's shape in any window and centres it", "[window]") {
    const arena_view wide = fit(200, 100, 0, 0, 1000, 300);
    CHECK(wide.scale == Approx(3.0f));
    CHECK(wide.width == Approx(600.0f));
    CHECK(wide.left == Approx(200.0f));
    const arena_view tall = fit(200, 100, 10, 20, 400, 800);
    CHECK(tall.scale == Approx(2.0f));
    CHECK(tall.top == Approx(20.0f + 300.0f));
}
