#include "demo_replay.hpp"

#include <catch2/catch.hpp>

#include <common/temp_dir.hpp>
#include <retcon/snapshot.hpp>
#include <retcon_demo/game.hpp>

namespace retcon::demo::testing {

void record_bot_match(const std::filesystem::path &path, std::uint64_t world_seed, std::uint64_t first_bot,
                      std::uint32_t keyframe_interval) {
    world w{make_schema()};
    world_options wo;
    wo.seed = world_seed;
    wo.dust = 300; // a tenth of the demo's field: the same systems, a tenth of the work
    init_world(w, wo);
    replay_settings rs;
    rs.players = 2;
    rs.input_size = sizeof(player_input);
    rs.keyframe_interval = keyframe_interval;
    auto writer = replay_writer::create(path, w, 0, rs);
    REQUIRE(writer.ok());
    game g;
    bot bots[2] = {bot{first_bot}, bot{first_bot + 1}};
    frame_inputs_buffer in{2, sizeof(player_input)};
    for (frame_t f = 0; f < short_replay_frames; ++f) {
        for (std::size_t s = 0; s < 2; ++s) in.set(s, bots[s].decide(w, static_cast<int>(s)));
        g.step(w, in.view(f));
        REQUIRE(writer->add_frame(in.view(f), w).ok());
    }
    REQUIRE(writer->finish().ok());
}

const std::filesystem::path &short_replay() {
    static test::temp_dir dir;
    static const std::filesystem::path path = [] {
        const auto p = dir / "short.rcr";
        record_bot_match(p, 7, 1, 120);
        return p;
    }();
    return path;
}

} // namespace retcon::demo::testing
