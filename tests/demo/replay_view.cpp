// The replay viewer's picture: after a seek, the arena shows that frame's world (as a world
// re-simulated independently draws it), the seek bar's handle stands at the frame, and the status
// line says what was verified, in red when something mismatched.
#include <catch2/catch.hpp>

#include <retcon/snapshot.hpp>
#include <retcon_demo/game.hpp>

#include <cmath>
#include <cstdlib>
#include <string>

#include "demo/display.hpp"
#include "demo/demo_replay.hpp"
#include "replay_player.hpp"
#include "replay_view.hpp"

using namespace retcon;
using namespace retcon::demo;
using Catch::Matchers::Contains;

namespace {

/// The recording under test (demo_replay.hpp): short, so the sanitizer builds run it quickly too.
std::string recording() { return retcon::demo::testing::short_replay().string(); }
constexpr int width = 800, height = 520;

/// The recording's scene at @p frame, re-simulated from its first frame without a player.
scene independent_scene(frame_t frame) {
    auto r = replay_reader::open(recording());
    REQUIRE(r.ok());
    world w{make_schema()};
    auto k = r->restore_keyframe(w, r->start_frame());
    REQUIRE(k.ok());
    game g;
    for (frame_t f = *k; f < frame; ++f) g.step(w, r->inputs(f));
    scene s;
    capture(w, s);
    return s;
}

/// How many pixels of @p colour lie in the rows [@p top, @p top + @p rows) of @p p.
std::size_t count_in_rows(const picture &p, float top, float rows, rgba colour) {
    std::size_t n = 0;
    for (int y = static_cast<int>(top); y < static_cast<int>(top + rows); ++y)
        for (int x = 0; x < p.width; ++x) n += p.at(x, y) == colour;
    return n;
}

/// How many pixels differ between @p a and @p b inside @p v's arena (its border included).
std::size_t arena_differences(const picture &a, const picture &b, const arena_view &v) {
    std::size_t n = 0;
    for (int y = static_cast<int>(v.top) - 1; y <= static_cast<int>(v.top + v.height); ++y)
        for (int x = static_cast<int>(v.left) - 1; x <= static_cast<int>(v.left + v.width); ++x)
            n += !(a.at(x, y) == b.at(x, y));
    return n;
}

} // namespace

TEST_CASE("after a seek the viewer shows that frame's world, its handle there, and says verified",
          "[window][replay_view]") {
    auto opened = replay_player::open(recording());
    REQUIRE(opened.ok());
    replay_player &player = **opened;
    constexpr frame_t target = 800; // a frame with ships in play (the recording is the same every run)
    REQUIRE(player.seek(target).ok());
    const replay_status st = player.status();
    REQUIRE(st.frame == target);

    auto c = testing::test_canvas(width, height);
    const replay_layout layout = layout_replay(width, height, c->line_height(), c->pixel_scale());
    scene shown;
    capture(player.current(), shown);
    draw_replay(*c, shown, st, player.keyframes(), layout);
    const picture viewer = c->read_pixels();
    if (const char *keep = std::getenv("RETCON_KEEP_PICTURES"))
        (void)viewer.save_bmp(std::string(keep) + "/replay_view.bmp");

    // The arena, pixel for pixel, as the painter draws a world re-simulated to the frame alone.
    const scene truth = independent_scene(target);
    REQUIRE(truth.frame == shown.frame);
    const arena_view view = arena_of(layout, truth);
    REQUIRE(view.width > 100);
    c->clear(palette::background);
    paint(*c, truth, view);
    const picture expected = c->read_pixels();
    CHECK(arena_differences(viewer, expected, view) == 0);
    // ...which a neighbouring frame's world would fail.
    c->clear(palette::background);
    paint(*c, independent_scene(target + 30), view);
    CHECK(arena_differences(viewer, c->read_pixels(), view) > 0);
    // Each visible ship in its player's colour where the world puts it.
    std::size_t ships = 0;
    for (const auto &sh : truth.ships) {
        if (sh.blinking) continue;
        ++ships;
        INFO("ship of player " << int{sh.player} << " at " << sh.x << "," << sh.y);
        CHECK(testing::colour_near(viewer, view.to_pixels(sh.x, sh.y), palette::player(sh.player)));
    }
    CHECK(ships > 0);

    // The handle at the frame's place on the bar; played to its left, unplayed to its right.
    const float here = layout.bar_x_of(st, target);
    const int mid = static_cast<int>(layout.bar_y + layout.bar_h / 2);
    CHECK(here == Approx(layout.bar_x + layout.bar_w * float(target - st.start) / float(st.end - st.start)));
    CHECK(viewer.at(static_cast<int>(here), mid) == replay_palette::handle);
    CHECK(viewer.at(static_cast<int>(here) - 12, static_cast<int>(layout.bar_y) + 1) == replay_palette::played);
    CHECK(viewer.at(static_cast<int>(here) + 12, static_cast<int>(layout.bar_y) + 1) == replay_palette::bar);
    CHECK(layout.frame_at(st, here) == target);

    // The status: the frame, and verified (the frames the seek re-simulated) in green, no red.
    const replay_status_text words = describe(st);
    CHECK_THAT(words.position, Contains("frame 800 / " + std::to_string(st.end)));
    CHECK(words.verdict == "verified " + std::to_string(st.verified) + " frames");
    CHECK(st.verified > 0);
    CHECK_FALSE(words.mismatch);
    CHECK(words.incomplete.empty());
    const float line = c->line_height();
    CHECK(count_in_rows(viewer, layout.status_y, line, replay_palette::verified) > 0);
    CHECK(count_in_rows(viewer, layout.status_y, line, replay_palette::mismatch) == 0);
    CHECK(count_in_rows(viewer, layout.notice_y, line, replay_palette::incomplete) == 0);
}

TEST_CASE("a mismatch is drawn in red and named by its frame, and a cut file says so", "[window][replay_view]") {
    replay_status st;
    st.start = 0;
    st.end = 600;
    st.frame = 200;
    st.verified = 76;
    st.mismatched = 124;
    st.first_mismatch = 76;
    st.complete = false;
    st.truncation_note = "cut at byte 4096";
    const replay_status_text words = describe(st);
    CHECK(words.mismatch);
    CHECK_THAT(words.verdict, Contains("MISMATCH at frame 76"));
    CHECK(words.incomplete == "file incomplete: cut at byte 4096");

    auto c = testing::test_canvas(width, height);
    const replay_layout layout = layout_replay(width, height, c->line_height(), c->pixel_scale());
    scene empty;
    empty.width = 100;
    empty.height = 60;
    draw_replay(*c, empty, st, {}, layout);
    const picture p = c->read_pixels();
    if (const char *keep = std::getenv("RETCON_KEEP_PICTURES"))
        (void)p.save_bmp(std::string(keep) + "/replay_mismatch.bmp");
    const float line = c->line_height();
    CHECK(count_in_rows(p, layout.status_y, line, replay_palette::mismatch) > 0);
    CHECK(count_in_rows(p, layout.status_y, line, replay_palette::verified) == 0);
    CHECK(count_in_rows(p, layout.notice_y, line, replay_palette::incomplete) > 0);
    // The first mismatch marked on the bar too.
    CHECK(p.at(static_cast<int>(layout.bar_x_of(st, 76)), static_cast<int>(layout.bar_y) + 1) ==
          replay_palette::mismatch);
}

TEST_CASE("the seek bar maps frames to pixels and back, and takes clicks near it", "[window][replay_view]") {
    const replay_layout l = layout_replay(1000, 640, 16, 1);
    replay_status st;
    st.start = 120;
    st.end = 10920;
    CHECK(l.bar_x_of(st, 120) == Approx(l.bar_x));
    CHECK(l.bar_x_of(st, 10920) == Approx(l.bar_x + l.bar_w));
    CHECK(l.frame_at(st, l.bar_x - 50) == 120);
    CHECK(l.frame_at(st, l.bar_x + l.bar_w + 50) == 10920);
    CHECK(l.frame_at(st, l.bar_x_of(st, 5000)) == Approx(5000).margin(11)); // a pixel is ~11 frames
    CHECK(l.on_bar(l.bar_x + 10, l.bar_y + l.bar_h / 2));
    CHECK_FALSE(l.on_bar(l.bar_x + 10, l.arena_y + l.arena_h / 2));
    CHECK(l.arena_y + l.arena_h < l.notice_y);
    CHECK(l.notice_y + 16 <= l.bar_y);
    CHECK(l.bar_y + l.bar_h < l.status_y);
    CHECK(l.status_y < l.help_y);
    CHECK(l.help_y + 16 <= 640);
}
