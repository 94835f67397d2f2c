#ifndef RETCON_TESTS_SNAPSHOT_REPLAY_GAME_HPP
#define RETCON_TESTS_SNAPSHOT_REPLAY_GAME_HPP

// A tiny deterministic game for the replay tests and the golden corpus: players spawn, despawn
// and push their entities through 4-byte inputs; every frame everything moves and the clock
// ticks. All arithmetic is on multiples of 1/16, exact in float.
#include <retcon/snapshot/hash.hpp>
#include <retcon/snapshot/replay.hpp>

#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "common/components.hpp"
#include "common/world_gen.hpp"

namespace retcon::test::game {

inline constexpr std::uint32_t input_size = 4;

/// @brief One player's input.
struct input {
    std::uint8_t action; ///< 0 idle, 1 spawn, 2 despawn, 3 push
    std::int8_t dx;
    std::int8_t dy;
    std::uint8_t arg;
};
static_assert(sizeof(input) == input_size);

/// @brief The game's step function (a replay_step_fn).
inline void step(world &w, std::uint64_t frame, std::span<const std::byte> inputs, std::span<const std::uint8_t> flags) {
    for (std::size_t p = 0; p < flags.size(); ++p) {
        if ((flags[p] & static_cast<std::uint8_t>(input_flags::present)) == 0) continue;
        input in{};
        std::memcpy(&in, inputs.data() + p * input_size, input_size);
        const auto team = static_cast<std::uint8_t>(p);
        switch (in.action % 4u) {
        case 1: {
            const entity e = w.create();
            w.emplace<position>(e, static_cast<float>(in.dx) / 16.0f, static_cast<float>(in.dy) / 16.0f);
            w.emplace<velocity>(e, static_cast<float>(in.dx % 5) / 16.0f, static_cast<float>(in.dy % 5) / 16.0f);
            w.emplace<health>(e, 100, std::uint16_t{in.arg}, team, std::uint8_t{0});
            if (in.arg % 3u == 0) w.emplace<name_tag>(e, fixed_string<16>{"p" + std::to_string(p)});
            break;
        }
        case 2: {
            entity victim = null_entity;
            w.view<const health>().each([&](entity e, const health &h) {
                if (h.team == team) victim = e;
            });
            if (victim != null_entity) w.destroy(victim);
            break;
        }
        case 3:
            w.view<const health, velocity>().each([&](const health &h, velocity &v) {
                if (h.team != team) return;
                v.dx += static_cast<float>(in.dx % 3) / 16.0f;
                v.dy += static_cast<float>(in.dy % 3) / 16.0f;
            });
            break;
        default: break;
        }
    }
    w.view<position, const velocity>().each([](position &p, const velocity &v) {
        p.x += v.dx;
        p.y += v.dy;
    });
    w.set_resource<game_clock>(static_cast<std::uint32_t>(frame + 1u), 60u);
}

/// @brief A step that goes wrong from @p from on: it also wears armour down (only the health
/// pool differs from `step`).
inline replay_step_fn wrong_step(std::uint64_t from) {
    return [from](world &w, std::uint64_t frame, std::span<const std::byte> inputs, std::span<const std::uint8_t> flags) {
        step(w, frame, inputs, flags);
        if (frame >= from)
            w.view<health>().each([](health &h) { h.armor = static_cast<std::uint16_t>(h.armor + 1u); });
    };
}

/// @brief Inputs and flags of one frame, drawn from @p r.
inline void make_inputs(rng &r, std::uint32_t players, std::vector<std::byte> &inputs, std::vector<std::uint8_t> &flags) {
    inputs.assign(std::size_t{players} * input_size, std::byte{0});
    flags.assign(players, 0);
    for (std::uint32_t p = 0; p < players; ++p) {
        input in{};
        const auto roll = r.below(10);
        in.action = static_cast<std::uint8_t>(roll < 4 ? 1 : roll < 6 ? 2 : roll < 8 ? 3 : 0);
        in.dx = static_cast<std::int8_t>(static_cast<int>(r.below(64)) - 32);
        in.dy = static_cast<std::int8_t>(static_cast<int>(r.below(64)) - 32);
        in.arg = static_cast<std::uint8_t>(r.below(256));
        std::memcpy(inputs.data() + std::size_t{p} * input_size, &in, input_size);
        flags[p] = static_cast<std::uint8_t>(r.chance(90) ? 1 : 0) | static_cast<std::uint8_t>(r.chance(5) ? 2 : 0);
    }
}

/// @brief The starting world of every recorded game: a few entities per team.
inline world start_world(const schema &s, std::uint32_t players) {
    world w{s};
    std::vector<std::byte> inputs(std::size_t{players} * input_size);
    std::vector<std::uint8_t> flags(players, 1);
    for (std::uint32_t k = 0; k < 4; ++k) {
        for (std::uint32_t p = 0; p < players; ++p) {
            const input in{1, static_cast<std::int8_t>(3 * k + p), static_cast<std::int8_t>(k), static_cast<std::uint8_t>(k + p)};
            std::memcpy(inputs.data() + std::size_t{p} * input_size, &in, input_size);
        }
        step(w, 0, inputs, flags);
    }
    return w;
}

/// @brief What a recording wrote, frame by frame, for comparison with what a reader reads.
struct recording {
    std::uint64_t start_frame = 0;
    hash64 start_hash = 0;
    std::vector<std::vector<std::byte>> inputs;
    std::vector<std::vector<std::uint8_t>> flags;
    std::vector<hash64> hashes; ///< after each frame
    std::uint64_t end_frame() const { return start_frame + hashes.size(); }
};

/// @brief Plays @p frames frames of the game from start_world and records them to @p path.
/// @p finish false leaves the writer unfinished (flushed, no index), like a crashed server.
inline recording record(const std::filesystem::path &path, const schema &s, const replay_settings &settings,
                        std::uint64_t seed, std::uint64_t start_frame, std::uint64_t frames, bool finish = true) {
    recording rec;
    rec.start_frame = start_frame;
    world w = start_world(s, settings.players);
    rec.start_hash = hash(w);
    auto writer = replay_writer::create(path, w, start_frame, settings);
    REQUIRE(writer.ok());
    rng r{seed};
    std::vector<std::byte> inputs;
    std::vector<std::uint8_t> flags;
    for (std::uint64_t f = start_frame; f < start_frame + frames; ++f) {
        make_inputs(r, settings.players, inputs, flags);
        step(w, f, inputs, flags);
        REQUIRE(writer->add_frame(inputs, flags, w).ok());
        rec.inputs.push_back(inputs);
        rec.flags.push_back(flags);
        rec.hashes.push_back(hash(w));
    }
    if (finish) REQUIRE(writer->finish().ok());
    else REQUIRE(writer->flush().ok());
    return rec;
}

} // namespace retcon::test::game

#endif
