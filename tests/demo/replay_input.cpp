// The replay viewer's keys and mouse, handed SDL events directly (no window needed).
#include <catch2/catch.hpp>

#include <SDL.h>

#include "demo/demo_replay.hpp"
#include "replay_input.hpp"

using namespace retcon;
using namespace retcon::demo;

namespace {

SDL_Event key(SDL_Keycode k) {
    SDL_Event e{};
    e.type = SDL_KEYDOWN;
    e.key.keysym.sym = k;
    return e;
}

SDL_Event mouse(Uint32 type, float x, float y) {
    SDL_Event e{};
    e.type = type;
    if (type == SDL_MOUSEMOTION) {
        e.motion.x = static_cast<Sint32>(x);
        e.motion.y = static_cast<Sint32>(y);
    } else {
        e.button.button = SDL_BUTTON_LEFT;
        e.button.x = static_cast<Sint32>(x);
        e.button.y = static_cast<Sint32>(y);
    }
    return e;
}

} // namespace

TEST_CASE("the viewer's keys pause, step, change speed, seek and leave", "[window][replay_input]") {
    auto opened = replay_player::open(retcon::demo::testing::short_replay());
    REQUIRE(opened.ok());
    replay_player &p = **opened;
    const replay_layout layout = layout_replay(1000, 640, 16);
    replay_input in;
    const auto ten_seconds = static_cast<frame_t>(p.tick_hz() * 10);
    const replay_status st = p.status();

    CHECK(in.handle(key(SDLK_SPACE), p, layout, 1));
    CHECK(p.paused());
    CHECK(in.handle(key(SDLK_PERIOD), p, layout, 1));
    CHECK(p.frame() == st.start + 1);
    CHECK(in.handle(key(SDLK_RIGHT), p, layout, 1));
    CHECK(p.frame() == st.start + 2);
    CHECK(in.handle(key(SDLK_p), p, layout, 1));
    CHECK_FALSE(p.paused());
    CHECK(in.handle(key(SDLK_PLUS), p, layout, 1));
    CHECK(p.speed() == 2);
    CHECK(in.handle(key(SDLK_MINUS), p, layout, 1));
    CHECK(in.handle(key(SDLK_MINUS), p, layout, 1));
    CHECK(p.speed() == 0.5);
    CHECK(in.handle(key(SDLK_RIGHTBRACKET), p, layout, 1));
    CHECK(p.frame() == st.start + 2 + ten_seconds);
    CHECK(in.handle(key(SDLK_PAGEUP), p, layout, 1));
    CHECK(p.frame() == st.start + 2);
    CHECK(in.handle(key(SDLK_END), p, layout, 1));
    CHECK(p.frame() == st.end);
    CHECK(in.handle(key(SDLK_HOME), p, layout, 1));
    CHECK(p.frame() == st.start);
    CHECK_FALSE(in.handle(key(SDLK_ESCAPE), p, layout, 1));
    CHECK_FALSE(in.handle(key(SDLK_q), p, layout, 1));
    SDL_Event quit{};
    quit.type = SDL_QUIT;
    CHECK_FALSE(in.handle(quit, p, layout, 1));
}

TEST_CASE("a click on the seek bar seeks there, a drag follows the mouse, a click elsewhere does not",
          "[window][replay_input]") {
    auto opened = replay_player::open(retcon::demo::testing::short_replay());
    REQUIRE(opened.ok());
    replay_player &p = **opened;
    const float scale = 2; // a HiDPI window: a point is two pixels
    const replay_layout layout = layout_replay(2000, 1280, 32, scale);
    const replay_status st = p.status();
    const float bar_y = (layout.bar_y + layout.bar_h / 2) / scale;
    replay_input in;

    CHECK(in.handle(mouse(SDL_MOUSEBUTTONDOWN, 500, (layout.arena_y + 100) / scale), p, layout, scale));
    CHECK_FALSE(in.dragging());
    CHECK(p.frame() == st.start);

    const float half = (layout.bar_x + layout.bar_w / 2) / scale;
    CHECK(in.handle(mouse(SDL_MOUSEBUTTONDOWN, half, bar_y), p, layout, scale));
    CHECK(in.dragging());
    CHECK(p.frame() == layout.frame_at(st, static_cast<float>(static_cast<int>(half)) * scale));
    CHECK(p.frame() == Approx((st.start + st.end) / 2).margin((st.end - st.start) / 500));
    CHECK(in.handle(mouse(SDL_MOUSEMOTION, half / 2, bar_y + 40), p, layout, scale)); // off the bar: still dragging
    CHECK(p.frame() == layout.frame_at(st, static_cast<float>(static_cast<int>(half / 2)) * scale));
    CHECK(in.handle(mouse(SDL_MOUSEBUTTONUP, half / 2, bar_y), p, layout, scale));
    CHECK_FALSE(in.dragging());
    const frame_t released = p.frame();
    CHECK(in.handle(mouse(SDL_MOUSEMOTION, half, bar_y), p, layout, scale));
    CHECK(p.frame() == released);
}
