#include "replay_input.hpp"

#include <SDL.h>

namespace retcon::demo {

namespace {

bool on_key(SDL_Keycode k, replay_player &p) {
    const auto ten_seconds = static_cast<std::int64_t>(p.tick_hz()) * 10;
    switch (k) {
    case SDLK_ESCAPE:
    case SDLK_q: return false;
    case SDLK_SPACE:
    case SDLK_p: p.toggle_paused(); break;
    case SDLK_PERIOD:
    case SDLK_RIGHT: (void)p.step(); break;
    case SDLK_PLUS:
    case SDLK_EQUALS:
    case SDLK_KP_PLUS: p.faster(); break;
    case SDLK_MINUS:
    case SDLK_KP_MINUS: p.slower(); break;
    case SDLK_LEFTBRACKET:
    case SDLK_PAGEUP: (void)p.seek_by(-ten_seconds); break;
    case SDLK_RIGHTBRACKET:
    case SDLK_PAGEDOWN: (void)p.seek_by(ten_seconds); break;
    case SDLK_HOME: (void)p.seek(p.status().start); break;
    case SDLK_END: (void)p.seek(p.status().end); break;
    default: break;
    }
    return true;
}

} // namespace

bool replay_input::handle(const SDL_Event &e, replay_player &player, const replay_layout &layout, float scale) {
    switch (e.type) {
    case SDL_QUIT: return false;
    case SDL_KEYDOWN: return on_key(e.key.keysym.sym, player);
    case SDL_MOUSEBUTTONDOWN: {
        const float x = static_cast<float>(e.button.x) * scale, y = static_cast<float>(e.button.y) * scale;
        if (e.button.button == SDL_BUTTON_LEFT && layout.on_bar(x, y)) {
            dragging_ = true;
            (void)player.seek(layout.frame_at(player.status(), x));
        }
        break;
    }
    case SDL_MOUSEMOTION:
        if (dragging_) (void)player.seek(layout.frame_at(player.status(), static_cast<float>(e.motion.x) * scale));
        break;
    case SDL_MOUSEBUTTONUP:
        if (e.button.button == SDL_BUTTON_LEFT) dragging_ = false;
        break;
    default: break;
    }
    return true;
}

} // namespace retcon::demo
