#ifndef RETCON_DEMO_GAME_HPP
#define RETCON_DEMO_GAME_HPP

// The demo game: an arena for 1-8 players. Ships turn, thrust and fire; asteroids drift and
// split when hit; bullets and debris expire; dust particles churn every frame so snapshots and
// rollbacks have thousands of entities to move. All maths is fixed-point, RNG state lives in the
// world: the simulation is identical on every compiler and platform.
#include <retcon/ecs.hpp>
#include <retcon/net/client_config.hpp>
#include <retcon/net/session_config.hpp>

#include <cstdint>
#include <memory>
#include <vector>

#include "fixed.hpp"

namespace retcon::demo {

RETCON_COMPONENT(fixed, raw);

/// @brief One player's input for one frame.
struct player_input {
    std::uint8_t turn;   ///< 0 none, 1 left, 2 right
    std::uint8_t thrust; ///< 0 or 1
    std::uint8_t fire;   ///< 0 or 1 (edge-triggered: never repeated by prediction)
    std::uint8_t pad;
};
RETCON_COMPONENT(player_input, turn, thrust, fire, pad);

struct position {
    fixed x, y;
};
RETCON_COMPONENT(position, x, y);

struct velocity {
    fixed vx, vy;
};
RETCON_COMPONENT(velocity, vx, vy);

struct ship {
    std::uint8_t player;
    std::uint8_t angle; ///< 1/256 turns
    std::uint16_t cooldown;
    std::uint16_t invulnerable;
    std::uint16_t pad;
};
RETCON_COMPONENT(ship, player, angle, cooldown, invulnerable, pad);

struct asteroid {
    fixed radius;
    std::uint8_t size; ///< 3 big, 2 medium, 1 small
    std::uint8_t pad[3];
};
RETCON_COMPONENT(asteroid, radius, size, pad);

struct bullet {
    std::uint16_t ttl;
    std::uint8_t owner;
    std::uint8_t pad;
};
RETCON_COMPONENT(bullet, ttl, owner, pad);

struct particle {
    std::uint16_t ttl;
    std::uint8_t kind; ///< 0 dust, 1 debris
    std::uint8_t pad;
};
RETCON_COMPONENT(particle, ttl, kind, pad);

inline constexpr std::size_t max_players = 8;

/// @brief The match: frame counter, each slot's ship, score, respawn timer and this frame's input.
struct match_state {
    std::uint32_t frame;
    std::uint32_t asteroids_destroyed;
    entity ship_of[max_players];
    std::uint32_t score[max_players];
    std::uint16_t respawn[max_players];
    std::uint8_t present[max_players];
    player_input input[max_players];
};
RETCON_RESOURCE(match_state, frame, asteroids_destroyed, ship_of, score, respawn, present, input);

/// @brief The simulation's random number generator (xorshift64*), part of the world.
struct rng_state {
    std::uint64_t s;
};
RETCON_RESOURCE(rng_state, s);

/// @brief Arena size and population targets (set once at start).
struct arena_settings {
    fixed width, height;
    std::uint32_t asteroids; ///< big asteroids kept in play
    std::uint32_t dust;      ///< dust particles kept alive (entity churn)
};
RETCON_RESOURCE(arena_settings, width, height, asteroids, dust);

/// @brief Next random number from the world's RNG.
std::uint64_t next_random(world &w);

/// @brief The demo's schema (components, resources, group).
schema make_schema();
/// @brief The server's session settings for the demo's input type.
session_config make_config(std::uint8_t players, std::uint16_t tick_hz = 60);
/// @brief A client's settings: make_config's without the match settings the welcome brings.
client_config make_client_config();

/// @brief Options for a new world.
struct world_options {
    std::uint64_t seed = 1;
    std::int32_t width = 200;
    std::int32_t height = 100;
    std::uint32_t asteroids = 24;
    std::uint32_t dust = 3000;
};

/// @brief Sets resources and the starting field of a new world.
void init_world(world &w, const world_options &options = {});

/**
 * @brief The deterministic step, as a schedule of named systems (so the sync test can name
 * the first non-deterministic one). Holds only scratch buffers, never state: two instances
 * produce identical worlds (unless a desync drill is armed with `debug_fault`).
 */
class game {
public:
    game();
    /// @brief The structured step of @p g — apply_inputs, then its systems — which holds @p g
    /// (its "collisions" system uses @p g's buffers). Desync bisection and the sync test name
    /// its systems (docs/net.md, "Desync forensics").
    [[nodiscard]] static step_function structured(std::shared_ptr<game> g);
    /// @brief A desync drill: when this instance's "movement" system runs frame @p frame
    /// (match_state::frame), it also moves every asteroid one unit: a value this process reads
    /// and the others do not, as a build on another machine might. -1: off.
    void debug_fault(std::int64_t frame) noexcept { fault_frame_ = frame; }
    /// @brief Stores the frame's inputs in the world (match_state), then runs every system.
    void step(world &w, const frame_inputs &in);
    /// @brief Stores the frame's inputs in the world only.
    static void apply_inputs(world &w, const frame_inputs &in);
    /// @brief The systems, in order.
    [[nodiscard]] const schedule &systems() const noexcept { return systems_; }

private:
    struct target {
        entity who;
        position at;
        fixed radius;
        std::uint8_t size;
        bool alive;
    };
    struct hit {
        std::size_t target;
        std::uint8_t owner;
    };
    void collide(world &w);
    void movement(world &w) const;
    schedule systems_;
    std::int64_t fault_frame_ = -1; // debug_fault
    std::vector<target> targets_;   // scratch, rebuilt every frame
    std::vector<hit> hits_;
};

/// @brief A seeded bot: steers toward the nearest asteroid and fires when roughly aligned.
class bot {
public:
    explicit bot(std::uint64_t seed) noexcept : state_{seed | 1u} {}
    /// @brief The input for @p slot in @p w (reads the world; changes nothing).
    player_input decide(const world &w, int slot);

private:
    std::uint64_t state_;
    std::uint32_t hold_ = 0;
    player_input current_{};
};

} // namespace retcon::demo

#endif
