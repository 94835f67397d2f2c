#include "scene.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace retcon::demo {

namespace {

float to_float(fixed f) noexcept { return static_cast<float>(f.raw) / 65536.0f; }

template<class T>
void sort_by_id(std::vector<T> &v) {
    std::sort(v.begin(), v.end(), [](const T &a, const T &b) { return a.id < b.id; });
}

/// Whether a step from @p a to @p b (one axis) is a wrap around an arena edge rather than motion.
bool wrapped(float a, float b, float extent) noexcept { return std::fabs(b - a) > extent * 0.5f; }

/// Pairs each item of @p to with the item of @p from that has its id (both sorted by id) and
/// writes the blend: @p blend(from_item, to_item, out_item) for pairs, @p to's item alone otherwise.
template<class T, class Blend>
void pair_up(const std::vector<T> &from, const std::vector<T> &to, std::vector<T> &out, Blend blend) {
    out.resize(to.size());
    std::size_t i = 0;
    for (std::size_t j = 0; j < to.size(); ++j) {
        while (i < from.size() && from[i].id < to[j].id) ++i;
        out[j] = to[j];
        if (i < from.size() && from[i].id == to[j].id) blend(from[i], to[j], out[j]);
    }
}

} // namespace

void capture(const world &w, scene &out) {
    const auto &arena = w.resource<arena_settings>();
    const auto &m = w.resource<match_state>();
    out.frame = m.frame;
    out.width = to_float(arena.width);
    out.height = to_float(arena.height);
    out.asteroids_destroyed = m.asteroids_destroyed;
    for (std::size_t s = 0; s < max_players; ++s) out.players[s] = {m.present[s] != 0, m.score[s]};
    out.ships.clear();
    out.asteroids.clear();
    out.bullets.clear();
    out.particles.clear();
    constexpr float turn = 2.0f * std::numbers::pi_v<float> / 256.0f;
    w.view<const position, const ship>().each([&](entity e, const position &p, const ship &s) {
        const bool blinking = s.invulnerable != 0 && (s.invulnerable / 6) % 2 != 0;
        out.ships.push_back({to_integral(e), to_float(p.x), to_float(p.y), static_cast<float>(s.angle) * turn, s.player,
                             blinking, false});
    });
    w.view<const position, const asteroid>().each([&](entity e, const position &p, const asteroid &a) {
        out.asteroids.push_back({to_integral(e), to_float(p.x), to_float(p.y), to_float(a.radius), a.size});
    });
    w.view<const position, const bullet>().each([&](entity e, const position &p, const bullet &b) {
        out.bullets.push_back({to_integral(e), to_float(p.x), to_float(p.y), b.owner});
    });
    w.view<const position, const particle>().each([&](entity e, const position &p, const particle &q) {
        out.particles.push_back({to_integral(e), to_float(p.x), to_float(p.y), q.kind});
    });
    sort_by_id(out.ships);
    sort_by_id(out.asteroids);
    sort_by_id(out.bullets);
    sort_by_id(out.particles);
}

void interpolate(const scene &from, const scene &to, float t, scene &out) {
    t = std::clamp(t, 0.0f, 1.0f);
    out.frame = to.frame;
    out.width = to.width;
    out.height = to.height;
    out.players = to.players;
    out.asteroids_destroyed = to.asteroids_destroyed;
    const float width = to.width, height = to.height;
    auto move = [&](const auto &a, const auto &b, auto &o) {
        if (wrapped(a.x, b.x, width) || wrapped(a.y, b.y, height)) return; // stays at b's place
        o.x = a.x + (b.x - a.x) * t;
        o.y = a.y + (b.y - a.y) * t;
    };
    pair_up(from.ships, to.ships, out.ships, [&](const scene_ship &a, const scene_ship &b, scene_ship &o) {
        move(a, b, o);
        // The short way round: 255/256 of a turn to 0 is a small step, not a spin.
        constexpr float pi = std::numbers::pi_v<float>;
        float d = b.angle - a.angle;
        if (d > pi) d -= 2 * pi;
        if (d < -pi) d += 2 * pi;
        o.angle = a.angle + d * t;
    });
    pair_up(from.asteroids, to.asteroids, out.asteroids, move);
    pair_up(from.bullets, to.bullets, out.bullets, move);
    pair_up(from.particles, to.particles, out.particles, move);
}

} // namespace retcon::demo
