#include "render.hpp"

#include <retcon_demo/game.hpp>

#include <vector>

namespace retcon::demo {

std::string render(const world &w, int cols, int rows, const std::string &status, int my_slot) {
    const int width = cols < 20 ? 20 : cols;
    const int height = (rows < 8 ? 8 : rows) - 3; // status line, borders
    const int inner_w = width - 2, inner_h = height - 2 > 1 ? height - 2 : 1;
    std::vector<char> cells(static_cast<std::size_t>(inner_w * inner_h), ' ');
    std::vector<unsigned char> colour(cells.size(), 0);
    const auto &arena = w.resource<arena_settings>();
    auto put = [&](const position &p, char c, unsigned char col) {
        const auto x = static_cast<int>(static_cast<std::int64_t>(p.x.raw) * inner_w / arena.width.raw);
        const auto y = static_cast<int>(static_cast<std::int64_t>(p.y.raw) * inner_h / arena.height.raw);
        if (x < 0 || y < 0 || x >= inner_w || y >= inner_h) return;
        const auto i = static_cast<std::size_t>(y) * static_cast<std::size_t>(inner_w) + static_cast<std::size_t>(x);
        cells[i] = c;
        colour[i] = col;
    };
    // Draw a sixth of the dust (by entity index, so the same specks stay visible): the
    // simulation keeps thousands of particles for realistic snapshot work, the eye needs fewer.
    w.view<const position, const particle>().each([&](entity e, const position &p, const particle &q) {
        if (q.kind == 0 && to_index(e) % 6 != 0) return;
        put(p, q.kind ? '*' : '.', q.kind ? 3 : 8);
    });
    w.view<const position, const asteroid>().each([&](const position &p, const asteroid &a) {
        put(p, a.size == 3 ? '@' : a.size == 2 ? 'O' : 'o', 7);
    });
    w.view<const position, const bullet>().each([&](const position &p, const bullet &) { put(p, '+', 1); });
    w.view<const position, const ship>().each([&](const position &p, const ship &s) {
        static constexpr char arrows[] = {'>', '\\', 'v', '/', '<', '\\', '^', '/'};
        const char c = s.invulnerable && (s.invulnerable / 6) % 2 ? static_cast<char>('0' + s.player)
                                                                  : arrows[((s.angle + 16) / 32) % 8];
        put(p, c, static_cast<unsigned char>(s.player == my_slot ? 2 : 4 + s.player % 3));
    });
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
    const auto &m = w.resource<match_state>();
    std::string scores = "scores:";
    for (std::size_t s = 0; s < max_players; ++s)
        if (m.present[s]) scores += " P" + std::to_string(s) + "=" + std::to_string(m.score[s]);
    scores += "   keys: a/d turn, w thrust, space fire, q quit";
    out += scores.substr(0, static_cast<std::size_t>(width)) + "\x1b[K";
    return out;
}

} // namespace retcon::demo
