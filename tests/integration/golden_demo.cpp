// Owns the golden demo match: tests/data/golden_demo.rcr, a deterministic 4-player match (bots,
// no network, the full dust field) that every build and every target of the cross-architecture
// matrix must re-simulate to the same per-frame hashes (docs/determinism.md).
//
//   demo_golden record OUT.rcr              record the match (regenerate on purpose only:
//                                            scripts/regenerate-goldens.sh says how and why)
//   demo_golden trace IN.rcr OUT.rct [K]    verify IN with this build, then write it uncompressed
//                                            with section hashes every K frames (tests/cross)
//   demo_golden image IN.rcr FRAME OUT.rcs  this build's world at the start of FRAME
//   demo_golden wrap IMAGE OUT.rcs          a raw image written by a target, as a snapshot file
//                                            (so `retcon diff` can name pools and fields)
#include <retcon/snapshot.hpp>
#include <retcon_demo/game.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../cross/golden_trace.hpp"

using namespace retcon;
using namespace retcon::demo;

namespace {

constexpr std::uint32_t golden_players = 4;
constexpr frame_t golden_frames = 10'800; // three minutes at 60 Hz

int fail(const std::string &what) {
    std::fprintf(stderr, "demo_golden: %s\n", what.c_str());
    return 2;
}

/// Slot 3 joins at frame 600; slot 2 leaves at frame 7,200 and is back at 9,000.
bool occupied(std::size_t slot, frame_t f) {
    if (slot == 3) return f >= 600;
    if (slot == 2) return f < 7'200 || f >= 9'000;
    return true;
}

int record(const char *out) {
    world w{make_schema()};
    world_options wo; // the full field: 24 asteroids, 3,000 dust particles
    wo.seed = 2026;
    init_world(w, wo);
    game g;
    replay_settings rs;
    rs.players = golden_players;
    rs.input_size = sizeof(player_input);
    rs.keyframe_interval = 3'600;
    rs.full_keyframe_every = 2;
    rs.metadata = {{"game", "retcon demo arena"},
                   {"purpose", "golden match for cross-compiler and cross-architecture determinism"}};
    auto writer = replay_writer::create(out, w, 0, rs);
    if (!writer) return fail(writer.message());
    bot bots[golden_players] = {bot{11}, bot{22}, bot{33}, bot{44}};
    frame_inputs_buffer in{golden_players, sizeof(player_input)};
    for (frame_t f = 0; f < golden_frames; ++f) {
        for (std::size_t s = 0; s < golden_players; ++s) {
            if (occupied(s, f)) in.set(s, bots[s].decide(w, static_cast<int>(s)));
            else
                in.clear(s);
        }
        g.step(w, in.view(f));
        if (auto r = writer->add_frame(in.view(f), w); !r) return fail(r.message());
    }
    if (auto r = writer->finish(); !r) return fail(r.message());
    std::printf("demo_golden: wrote %s (%llu bytes, %u frames, %u entities at the end)\n", out,
                static_cast<unsigned long long>(writer->bytes_written()), golden_frames,
                static_cast<unsigned>(w.alive()));
    return 0;
}

int trace(const char *in, const char *out, std::uint32_t every) {
    if (every == 0) return fail("the checkpoint interval must be at least 1 frame");
    auto reader = replay_reader::open(in);
    if (!reader) return fail(reader.message());
    const replay_reader &r = *reader;
    world w{make_schema()};
    if (auto s = check_simulation(r.schema()); !s) return fail(std::string(in) + ": " + s.message());
    if (w.schema_hash() != r.schema().hash()) return fail(std::string(in) + " was recorded with another schema");
    if (r.keyframes().empty() || r.keyframes()[0].frame != r.start_frame())
        return fail("no keyframe at the start frame");
    world_image start;
    if (auto k = r.keyframe_image(0, start); !k) return fail(k.message());
    if (auto k = load_image(w, start); !k) return fail(k.message());

    cross::golden_trace t;
    t.players = r.settings().players;
    t.input_size = r.settings().input_size;
    t.start_frame = r.start_frame();
    t.frames = r.frame_count();
    t.checkpoint_every = every;
    t.schema_block = r.schema().serialize();
    t.start_image.assign(start.bytes().begin(), start.bytes().end());
    game g;
    for (frame_t f = r.start_frame(); f < r.end_frame(); ++f) {
        if (f != r.start_frame() && (f - r.start_frame()) % every == 0)
            t.checkpoints.push_back({f, section_hashes(w).sections()});
        const frame_inputs inputs = r.inputs(f);
        g.step(w, inputs);
        const hash64 h = hash(w);
        if (h != r.hash(f)) // the host must agree with the golden before it speaks for it
            return fail("this build does not re-simulate " + std::string(in) + " (first mismatch at frame " +
                        std::to_string(f) + "); run demo_client --replay " + in + " --headless for details");
        t.records.insert(t.records.end(), inputs.record().begin(), inputs.record().end());
        t.hashes.push_back(h);
    }
    t.checkpoints.push_back({r.end_frame(), section_hashes(w).sections()});
    const auto bytes = t.encode();
    std::ofstream f(out, std::ios::binary);
    f.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!f) return fail(std::string("cannot write ") + out);
    std::printf("demo_golden: %s verified by this build; trace %s: %u frames, %zu checkpoints, %zu bytes\n", in, out,
                t.frames, t.checkpoints.size(), bytes.size());
    return 0;
}

int image(const char *in, const char *frame_text, const char *out) {
    auto reader = replay_reader::open(in);
    if (!reader) return fail(reader.message());
    const replay_reader &r = *reader;
    const auto frame = static_cast<frame_t>(std::strtoul(frame_text, nullptr, 10));
    if (frame < r.start_frame() || frame > r.end_frame()) return fail("frame outside the replay");
    world w{make_schema()};
    auto at = r.restore_keyframe(w, frame);
    if (!at) return fail(at.message());
    game g;
    for (frame_t f = *at; f < frame; ++f) g.step(w, r.inputs(f));
    if (auto k = write_snapshot_file(out, w, frame); !k) return fail(k.message());
    std::printf("demo_golden: this build's world at the start of frame %u written to %s\n", frame, out);
    return 0;
}

int wrap(const char *in, const char *out) {
    std::ifstream f(in, std::ios::binary);
    const std::vector<char> raw{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
    if (raw.empty()) return fail(std::string("cannot read ") + in);
    world_image s;
    std::memcpy(s.prepare(raw.size()), raw.data(), raw.size());
    world w{make_schema()};
    if (auto k = load_image(w, s); !k) return fail(std::string(in) + ": " + k.message());
    if (auto k = write_snapshot_file(out, w, s.frame()); !k) return fail(k.message());
    std::printf("demo_golden: %s (frame %llu) written to %s\n", in, static_cast<unsigned long long>(s.frame()), out);
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    const std::string cmd = argc > 1 ? argv[1] : "";
    if (cmd == "record" && argc == 3) return record(argv[2]);
    if (cmd == "trace" && (argc == 4 || argc == 5))
        return trace(argv[2], argv[3],
                     argc == 5 ? static_cast<std::uint32_t>(std::strtoul(argv[4], nullptr, 10)) : 600u);
    if (cmd == "image" && argc == 5) return image(argv[2], argv[3], argv[4]);
    if (cmd == "wrap" && argc == 4) return wrap(argv[2], argv[3]);
    std::fprintf(stderr, "usage: demo_golden record OUT.rcr | trace IN.rcr OUT.rct [K] | image IN.rcr FRAME OUT.rcs | "
                         "wrap IMAGE OUT.rcs\n");
    return 2;
}
