#ifndef RETCON_TESTS_TEST_GAME_HPP
#define RETCON_TESTS_TEST_GAME_HPP

// A tiny deterministic game for netcode tests: each present player steers a ship; firing
// spawns bullets that expire; players who leave lose their ship. Integer maths only.
#include <retcon/net.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace retcon::test {

struct game_input {
    std::int8_t dx;
    std::int8_t dy;
    std::uint8_t fire;
    std::uint8_t pad;
};
RETCON_COMPONENT(game_input, dx, dy, fire, pad);

struct ship_pos {
    std::int32_t x, y;
};
RETCON_COMPONENT(ship_pos, x, y);

struct bullet {
    std::int32_t vx, vy;
    std::uint32_t ttl;
    std::uint32_t owner;
};
RETCON_COMPONENT(bullet, vx, vy, ttl, owner);

struct ships {
    entity of[8];
    std::uint32_t score[8];
};
RETCON_RESOURCE(ships, of, score);

/// @brief A tag only some tests add to the schema (to make it differ).
struct marker_for_schema_test {};
RETCON_TAG(marker_for_schema_test);

inline schema game_schema() {
    schema s;
    s.component<ship_pos>().component<bullet>().resource<ships>();
    return s;
}

inline session_config game_config(std::uint8_t players) {
    auto c = make_session_config<game_input>(players);
    c.prediction = prediction_rule::repeat_last().no_repeat<game_input>("fire"); // edge-triggered: never repeated
    return c;
}

inline void init_game(world &w) {
    ships s{};
    for (auto &e : s.of) e = null_entity;
    w.set_resource<ships>(s);
}

/// @brief The players' part of a frame: each present player's ship moves and fires, an absent
/// player's ship is gone (`step_game` and the structured step's "apply inputs").
inline void apply_game_inputs(world &w, const frame_inputs &in) {
    auto &s = w.resource<ships>();
    for (std::size_t p = 0; p < in.players() && p < 8; ++p) {
        entity &ship = s.of[p];
        if (!in.present(p)) {
            if (ship != null_entity && w.valid(ship)) w.destroy(ship);
            ship = null_entity;
            continue;
        }
        if (ship == null_entity) {
            ship = w.create();
            w.emplace<ship_pos>(ship, static_cast<std::int32_t>(p) * 100, 0);
        }
        const auto i = in.get<game_input>(p);
        auto &pos = w.get<ship_pos>(ship);
        pos.x += i.dx;
        pos.y += i.dy;
        if (i.fire) {
            const auto b = w.create();
            w.emplace<ship_pos>(b, pos.x, pos.y);
            w.emplace<bullet>(b, static_cast<std::int32_t>(i.dx) * 3, static_cast<std::int32_t>(i.dy) * 3 + 1, 30u,
                              static_cast<std::uint32_t>(p));
        }
    }
}

inline void step_game(world &w, const frame_inputs &in) {
    apply_game_inputs(w, in);
    auto &s = w.resource<ships>();
    // Destroying the visited entity inside each() is allowed (the walk goes backwards).
    w.view<ship_pos, bullet>().each([&](entity e, ship_pos &p, bullet &b) {
        p.x += b.vx;
        p.y += b.vy;
        if (--b.ttl == 0) {
            ++s.score[b.owner % 8];
            w.destroy(e);
        }
    });
}

/// @brief A deliberate non-determinism for desync bisection tests: at @p frame, the stage
/// named @p stage ("apply inputs", "bullets" or "ttl") also adds @p delta to the x of player
/// 0's ship. Each step holds its own, like a value one process reads and another does not.
struct game_fault {
    std::string stage{};
    frame_t frame = no_frame;
    std::int32_t delta = 0;
};

/// @brief `step_game` as a structured step (docs/net.md, "Desync forensics"): "apply inputs"
/// (the players' ships, moves and shots), then the systems "bullets" (move) and "ttl" (expire,
/// score). It makes the same worlds byte for byte; @p fault is this step's own.
inline step_function structured_game_step(game_fault fault = {}) {
    auto frame = std::make_shared<frame_t>(no_frame); // the frame being simulated, for the systems
    const auto faulty = [fault, frame](world &w, std::string_view stage) {
        if (fault.stage != stage || *frame != fault.frame) return;
        const entity ship = w.resource<ships>().of[0];
        if (ship != null_entity && w.valid(ship)) w.get<ship_pos>(ship).x += fault.delta;
    };
    auto apply = [frame, faulty](world &w, const frame_inputs &in) {
        *frame = in.frame();
        apply_game_inputs(w, in);
        faulty(w, "apply inputs");
    };
    schedule systems;
    systems
        .add("bullets",
             [faulty](world &w) {
                 w.view<ship_pos, bullet>().each([](ship_pos &p, const bullet &b) {
                     p.x += b.vx;
                     p.y += b.vy;
                 });
                 faulty(w, "bullets");
             })
        .add("ttl", [faulty](world &w) {
            auto &s = w.resource<ships>();
            w.view<bullet>().each([&](entity e, bullet &b) {
                if (--b.ttl == 0) {
                    ++s.score[b.owner % 8];
                    w.destroy(e);
                }
            });
            faulty(w, "ttl");
        });
    return step_function{std::move(apply), std::move(systems)};
}

/// @brief A seeded bot: changes direction now and then, fires sometimes.
struct bot {
    std::uint64_t state;
    game_input current{};
    game_input next() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        if (state % 16 == 0) {
            current.dx = static_cast<std::int8_t>(static_cast<int>(state >> 8 & 3u) - 1);
            current.dy = static_cast<std::int8_t>(static_cast<int>(state >> 16 & 3u) - 1);
        }
        current.fire = (state >> 24) % 20 == 0 ? 1 : 0;
        return current;
    }
};

} // namespace retcon::test

#endif
