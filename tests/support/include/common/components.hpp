#ifndef RETCON_TESTS_COMPONENTS_HPP
#define RETCON_TESTS_COMPONENTS_HPP

// Test components shared by the suites (and by the two-binary determinism programs).
#include <retcon/ecs.hpp>

#include <cstdint>

namespace retcon::test {

struct position {
    float x, y;
};
RETCON_COMPONENT(position, x, y);

struct velocity {
    float dx, dy;
};
RETCON_COMPONENT(velocity, dx, dy);

struct health {
    std::int32_t hp;
    std::uint16_t armor;
    std::uint8_t team;
    std::uint8_t pad;
};
RETCON_COMPONENT(health, hp, armor, team, pad);

struct name_tag {
    fixed_string<16> text;
};
RETCON_COMPONENT(name_tag, text);

struct target {
    entity who;
};
RETCON_COMPONENT(target, who);

struct inventory {
    inline_vector<std::uint16_t, 7> items;
};
RETCON_COMPONENT(inventory, items);

struct frozen {};
RETCON_TAG(frozen);

struct marked {};
RETCON_TAG(marked);

struct rng_state {
    std::uint64_t s;
};
RETCON_RESOURCE(rng_state, s);

struct game_clock {
    std::uint32_t frame;
    std::uint32_t tick_hz;
};
RETCON_RESOURCE(game_clock, frame, tick_hz);

/// @brief The schema most tests use: every test component, both resources, and an owning
/// group over position + velocity.
inline schema standard_schema() {
    schema s;
    s.component<position>()
        .component<velocity>()
        .component<health>()
        .component<name_tag>()
        .component<target>()
        .component<inventory>()
        .component<frozen>()
        .component<marked>()
        .resource<rng_state>()
        .resource<game_clock>();
    return s;
}

/// @brief standard_schema plus the owning group over position and velocity.
inline schema grouped_schema() {
    schema s = standard_schema();
    s.group<position, velocity>();
    return s;
}

} // namespace retcon::test

#endif
