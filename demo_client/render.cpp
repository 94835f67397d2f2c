#include "render.hpp"

#include <cmath>
#include <numbers>
#include <vector>

namespace retcon::demo {

std::string render(const scene &sc, int cols, int rows, const std::string &status, int my_slot) {
    const int width = cols < 20 ? 20 : cols;
    const int height = (rows < 8 ? 8 : rows) - 3; // status line, borders
    const int inner_w = width - 2, inner_h = height - 2 > 1 ? height - 2 : 1;
    std::vector<char> cells(static_cast<std::size_t>(inner_w * inner_h), ' ');
    std::vector<unsigned char> colour(cells.size(), 0);
    auto put = [&](float px, float py, char c, unsigned char col) {
        if (sc.width <= 0 || sc.height <= 0) return;
        const auto x = static_cast<int>(px * static_cast<float>(inner_w) / sc.width);
        const auto y = static_cast<int>(py * static_cast<float>(inner_h) / sc.height);
        if (x < 0 || y < 0 || x >= inner_w || y >= inner_h) return;
        const auto i = static_cast<std::size_t>(y) * static_cast<std::size_t>(inner_w) + static_cast<std::size_t>(x);
        cells[i] = c;
        colour[i] = col;
    };
    // Draw a sixth of the dust (by entity index, so the same specks stay visible): the
    // simulation keeps thousands of particles for realistic snapshot work, the eye needs fewer.
    for (const auto &q : sc.particles) {
        if (q.kind == 0 && to_index(entity{static_cast<entity_traits::value_type>(q.id)}) % 6 != 0) continue;
        put(q.x, q.y, q.kind ? '*' : '.', q.kind ? 3 : 8);
    }
    for (const auto &a : sc.asteroids) put(a.x, a.y, a.size == 3 ? '@' : a.size == 2 ? 'O' : 'o', 7);
    for (const auto &b : sc.bullets) put(b.x, b.y, '+', 1);
    for (const auto &s : sc.ships) {
        static constexpr char arrows[] = {'>', '\\', 'v', '/', '<', '\\', '^', '/'};
        constexpr float eighth = 2.0f * std::numbers::pi_v<float> / 8.0f;
        const auto octant = static_cast<int>(std::lround(s.angle / eighth)) % 8;
        const char c = s.blinking ? static_cast<char>('0' + s.player) : arrows[octant];
        put(s.x, s.y, c, static_cast<unsigned char>(s.player == my_slot ? 2 : 4 + s.player % 3));
    }
    std::string out = "\x1b[H\x1b[0m";
    out += status.substr(0, static_cast<std::size_t>(width));
    out += "\x1b[K\r\n+" + std::string(static_cast<std::size_t>(inner_w), '-') + "+\r\n";
    for (int y = 0; y < inner_h; ++y) {
        out += '|';
        unsigned char current = 0;
        for (int x = 0; x < inner_w; ++x) {
            const auto i =
                static_cast<std::size_t>(y) * static_cast<std::size_t>(inner_w) + static_cast<std::size_t>(x);
            if (colour[i] != current) {
                current = colour[i];
                out += current == 0 ? "\x1b[0m" : current == 8 ? "\x1b[2m" : "\x1b[0;3" + std::to_string(current) + "m";
            }
            out += cells[i];
        }
        out += "\x1b[0m|\r\n";
    }
    out += "+" + std::string(static_cast<std::size_t>(inner_w), '-') + "+\r\n";
    std::string scores = "scores:";
    for (std::size_t s = 0; s < max_players; ++s)
        if (sc.players[s].present) scores += " P" + std::to_string(s) + "=" + std::to_string(sc.players[s].score);
    scores += "   keys: a/d turn, w thrust, space fire, q quit";
    out += scores.substr(0, static_cast<std::size_t>(width)) + "\x1b[K";
    return out;
}

} // namespace retcon::demo
