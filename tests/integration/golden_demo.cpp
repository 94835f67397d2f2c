// Writes the golden demo replay: a deterministic two-player match (bots, no network) recorded
// with the replay writer. tests/data/golden_demo.rcr was produced by this program; every build
// (g++ and clang++) must re-simulate it to the same per-frame hashes. Regenerate it only when
// the demo game's rules change on purpose:
//   demo_golden tests/data/golden_demo.rcr
#include <retcon/snapshot.hpp>
#include <retcon_demo/game.hpp>

#include <cstdio>

int main(int argc, char **argv) {
    using namespace retcon;
    using namespace retcon::demo;
    if (argc != 2) {
        std::fprintf(stderr, "usage: demo_golden OUTPUT.rcr\n");
        return 2;
    }
    world w{make_schema()};
    world_options wo;
    wo.seed = 2026;
    wo.dust = 400;
    wo.asteroids = 12;
    init_world(w, wo);
    game g;
    replay_settings rs;
    rs.players = 2;
    rs.input_size = sizeof(player_input);
    rs.keyframe_interval = 100;
    rs.full_keyframe_every = 3;
    rs.metadata = {{"game", "retcon demo arena"}, {"purpose", "golden replay for cross-compiler determinism"}};
    auto writer = replay_writer::create(argv[1], w, 0, rs);
    if (!writer) {
        std::fprintf(stderr, "demo_golden: %s\n", writer.message().c_str());
        return 2;
    }
    bot bots[2] = {bot{11}, bot{22}};
    frame_inputs_buffer in{2, sizeof(player_input)};
    for (frame_t f = 0; f < 400; ++f) {
        const player_input decided[2] = {bots[0].decide(w, 0), bots[1].decide(w, 1)};
        in.set(0, decided[0]);
        if (f >= 30) in.set(1, decided[1]); // player 1 joins late
        else in.clear(1);
        g.step(w, in.view(f));
        if (auto r = writer->add_frame(in.view(f), w); !r) {
            std::fprintf(stderr, "demo_golden: %s\n", r.message().c_str());
            return 2;
        }
    }
    if (auto r = writer->finish(); !r) return 2;
    std::printf("demo_golden: wrote %s (%llu bytes, 400 frames)\n", argv[1],
                static_cast<unsigned long long>(writer->bytes_written()));
    return 0;
}
