#include "scene_painter.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace retcon::demo {

namespace {

constexpr float ship_length = 4.0f; // arena units from tail to nose

/// A fixed jagged outline per asteroid, from its id: the same rock looks the same every frame.
float jag(std::uint64_t id, int corner) noexcept {
    std::uint32_t h =
        static_cast<std::uint32_t>(id ^ (id >> 32)) * 2654435761u + static_cast<std::uint32_t>(corner) * 40503u;
    h ^= h >> 15;
    return 0.8f + static_cast<float>(h % 41u) / 200.0f; // 0.8 .. 1.0 of the radius
}

} // namespace

rgba palette::player(int slot) noexcept {
    static constexpr rgba colours[] = {{80, 200, 255},  {255, 110, 110}, {120, 230, 120}, {255, 210, 80},
                                       {210, 130, 255}, {255, 160, 210}, {100, 240, 220}, {240, 240, 150}};
    return colours[static_cast<unsigned>(slot) % std::size(colours)];
}

arena_view fit(float arena_w, float arena_h, float x, float y, float w, float h) noexcept {
    arena_view v;
    if (arena_w <= 0 || arena_h <= 0 || w <= 0 || h <= 0) return v;
    v.scale = std::min(w / arena_w, h / arena_h);
    v.width = arena_w * v.scale;
    v.height = arena_h * v.scale;
    v.left = std::floor(x + (w - v.width) / 2);
    v.top = std::floor(y + (h - v.height) / 2);
    return v;
}

bool draws_dust(std::uint64_t id) noexcept {
    return to_index(entity{static_cast<entity_traits::value_type>(id)}) % 3 == 0;
}

std::array<point, 4> ship_outline(const scene_ship &s, const arena_view &view) noexcept {
    const float c = std::cos(s.angle), n = std::sin(s.angle);
    const float len = ship_length * view.scale;
    const point at = view.to_pixels(s.x, s.y);
    auto rel = [&](float along, float across) {
        return point{at.x + c * along - n * across, at.y + n * along + c * across};
    };
    return {rel(0.6f * len, 0), rel(-0.4f * len, 0.35f * len), rel(-0.2f * len, 0), rel(-0.4f * len, -0.35f * len)};
}

void paint(canvas &c, const scene &s, const arena_view &view, const paint_options &o) {
    c.clip(view.left, view.top, view.width, view.height);
    const float dot = std::max(1.0f, view.scale * 0.35f);
    for (const auto &p : s.particles) {
        const point at = view.to_pixels(p.x, p.y);
        if (p.kind == 0) {
            if (!draws_dust(p.id)) continue;
            c.fill_rect(at.x, at.y, 1, 1, palette::dust);
        } else {
            c.fill_rect(at.x - dot / 2, at.y - dot / 2, dot, dot, palette::debris);
        }
    }
    std::array<point, 10> rock{};
    for (const auto &a : s.asteroids) {
        for (std::size_t k = 0; k < rock.size(); ++k) {
            const float t = 2.0f * std::numbers::pi_v<float> * static_cast<float>(k) / static_cast<float>(rock.size());
            const float r = a.radius * jag(a.id, static_cast<int>(k));
            rock[k] = view.to_pixels(a.x + r * std::cos(t), a.y + r * std::sin(t));
        }
        c.polyline(rock, palette::asteroid, true);
    }
    for (const auto &b : s.bullets) {
        const point at = view.to_pixels(b.x, b.y);
        const float r = std::max(1.0f, view.scale * 0.4f);
        c.fill_rect(at.x - r, at.y - r, 2 * r, 2 * r, palette::player(b.kind));
    }
    for (const auto &sh : s.ships) {
        if (sh.blinking) continue; // the off half of a respawn blink
        const auto o4 = ship_outline(sh, view);
        const rgba colour = o.show_predicted && sh.predicted ? palette::predicted : palette::player(sh.player);
        c.triangle(o4[0], o4[1], o4[2], colour);
        c.triangle(o4[0], o4[2], o4[3], colour);
        if (sh.player == o.my_slot) c.polyline(o4, palette::text, true);
    }
    c.clip_off();
    c.rect(view.left - 1, view.top - 1, view.width + 2, view.height + 2, palette::border);
}

} // namespace retcon::demo
