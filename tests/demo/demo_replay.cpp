#include "demo_replay.hpp"

#include <catch2/catch.hpp>

#include <common/temp_dir.hpp>
#include <retcon/snapshot.hpp>
#include <retcon_demo/game.hpp>

namespace retcon::demo::testing {

const std::filesystem::path &short_replay() {
    static test::temp_dir dir;
    static const std::filesystem::path path = [] {
        const auto p = dir / "short.rcr";
        world w{make_schema()};
        world_options wo;
        wo.seed = 7;
        wo.dust = 300; // a tenth of the demo's field: the same systems, a tenth of the work
        init_world(w, wo);
        replay_settings rs;
        rs.players = 2;
        rs.input_size = sizeof(player_input);
        rs.keyframe_interval = 120;
        auto writer = replay_writer::create(p, w, 0, rs);
        REQUIRE(writer.ok());
        game g;
        bot bots[2] = {bot{1}, bot{2}};
        frame_inputs_buffer in{2, sizeof(player_input)};
        for (frame_t f = 0; f < short_replay_frames; ++f) {
            for (std::size_t s = 0; s < 2; ++s) in.set(s, bots[s].decide(w, static_cast<int>(s)));
            g.step(w, in.view(f));
            REQUIRE(writer->add_frame(in.view(f), w).ok());
        }
        REQUIRE(writer->finish().ok());
        return p;
    }();
    return path;
}

} // namespace retcon::demo::testing
