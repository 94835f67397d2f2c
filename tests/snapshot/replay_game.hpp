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

/// @brief The game's step (a step_function).
inline void step(world &w, const frame_inputs &inputs) {
    for (std::size_t p = 0; p < inputs.players(); ++p) {
        if (!inputs.present(p)) continue;
        const auto in = inputs.get<input>(p);
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
    w.set_resource<game_clock>(inputs.frame() + 1u, 60u);
}

/// @brief A step that goes wrong from @p from on: it also wears armour down (only the health
/// pool differs from `step`).
inline step_function wrong_step(frame_t from) {
    return [from](world &w, const frame_inputs &inputs) {
        step(w, inputs);
        if (inputs.frame() >= from)
            w.view<health>().each([](health &h) { h.armor = static_cast<std::uint16_t>(h.armor + 1u); });
    };
}

/// @brief One frame's inputs and flags for every slot of @p out, drawn from @p r.
inline void make_inputs(rng &r, frame_inputs_buffer &out) {
    for (std::size_t p = 0; p < out.players(); ++p) {
        input in{};
        const auto roll = r.below(10);
        in.action = static_cast<std::uint8_t>(roll < 4 ? 1 : roll < 6 ? 2 : roll < 8 ? 3 : 0);
        in.dx = static_cast<std::int8_t>(static_cast<int>(r.below(64)) - 32);
        in.dy = static_cast<std::int8_t>(static_cast<int>(r.below(64)) - 32);
        in.arg = static_cast<std::uint8_t>(r.below(256));
        const bool present = r.chance(90); // one draw per statement: the order is fixed
        const bool replaced = r.chance(5);
        out.set(p, in,
                (present ? slot_flags::present : slot_flags::none) |
                    (replaced ? slot_flags::replaced : slot_flags::none));
    }
}

/// @brief The replay tests' settings for @p players: a keyframe every 10 frames, every third one
/// full, so that a few dozen frames hold both kinds; chunks of @p frames_per_chunk frames.
inline replay_settings replay_settings_for(std::uint32_t players, std::uint32_t frames_per_chunk) {
    replay_settings s;
    s.players = players;
    s.input_size = input_size;
    s.keyframe_interval = 10;
    s.full_keyframe_every = 3;
    s.frames_per_chunk = frames_per_chunk;
    s.metadata = {{"game", "retcon-tests"}};
    return s;
}

/// @brief The starting world of every recorded game: a few entities per team.
inline world start_world(const schema &s, std::uint32_t players) {
    world w{s};
    frame_inputs_buffer inputs{players, input_size};
    for (std::uint32_t k = 0; k < 4; ++k) {
        for (std::uint32_t p = 0; p < players; ++p)
            inputs.set(p, input{1, static_cast<std::int8_t>(3 * k + p), static_cast<std::int8_t>(k),
                                static_cast<std::uint8_t>(k + p)});
        step(w, inputs.view(0));
    }
    return w;
}

/// @brief What a recording wrote, frame by frame, for comparison with what a reader reads.
struct recording {
    frame_t start_frame = 0;
    hash64 start_hash = 0;
    std::vector<std::vector<std::byte>> records; ///< each frame's record: flags, then inputs
    std::vector<hash64> hashes;                  ///< after each frame
    frame_t end_frame() const { return start_frame + static_cast<frame_t>(hashes.size()); }
};

/// @brief Plays @p frames frames of the game from start_world and records them to @p path.
/// @p finish false leaves the writer unfinished (flushed, no index), like a crashed server.
inline recording record(const std::filesystem::path &path, const schema &s, const replay_settings &settings,
                        std::uint64_t seed, frame_t start_frame, std::uint32_t frames, bool finish = true) {
    recording rec;
    rec.start_frame = start_frame;
    world w = start_world(s, settings.players);
    rec.start_hash = hash(w);
    auto writer = replay_writer::create(path, w, start_frame, settings);
    REQUIRE(writer.ok());
    rng r{seed};
    frame_inputs_buffer inputs{settings.players, settings.input_size};
    for (frame_t f = start_frame; f < start_frame + frames; ++f) {
        make_inputs(r, inputs);
        step(w, inputs.view(f));
        REQUIRE(writer->add_frame(inputs.view(f), w).ok());
        const auto record = inputs.view(f).record();
        rec.records.emplace_back(record.begin(), record.end());
        rec.hashes.push_back(hash(w));
    }
    if (finish) REQUIRE(writer->finish().ok());
    else
        REQUIRE(writer->flush().ok());
    return rec;
}

} // namespace retcon::test::game

#endif
