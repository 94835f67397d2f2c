// verify: re-simulates a replay with the game's own step and compares every frame's hash with
// the recorded one (docs/snapshot.md, "Replays (`.rcr`)").
#include <retcon/snapshot/replay.hpp>

#include <string>

namespace retcon {

result<verify_report> verify(const replay_reader &reader, world &w, const step_function &step) {
    // Another simulation semantics would only show as a hash mismatch at some frame: say why.
    if (auto s = check_simulation(reader.schema()); !s) return error{s.code(), reader.name() + ": " + s.message()};
    if (w.schema_hash() != reader.schema().hash())
        return error{errc::schema_mismatch, reader.name() + ": the world's schema differs from the replay's"};
    // An incomplete file with no readable frame may have held any number of them: nothing
    // would be verified, and that is not a success (a complete file of zero frames is).
    if (reader.frame_count() == 0 && !reader.complete())
        return error{errc::truncated,
                     reader.name() + ": no frame is readable, nothing was verified; " + reader.truncation_note()};
    // Every keyframe, with the checksums and hashes `check` verifies: a damaged keyframe fails
    // verification even though re-simulation does not restore it.
    if (auto c = reader.check(); !c) return c.err();
    auto start = reader.restore_keyframe(w, reader.start_frame());
    if (!start) return start.err();
    verify_report rep;
    const auto &ks = reader.keyframes();
    for (frame_t f = reader.start_frame(); f < reader.end_frame(); ++f) {
        step(w, reader.inputs(f));
        ++rep.frames_checked;
        const hash64 h = hash(w);
        if (h == reader.hash(f)) continue;
        rep.first_mismatch = f;
        rep.expected = reader.hash(f);
        rep.actual = h;
        // Name the diverging sections at the next keyframe, if the replay has one.
        for (std::size_t i = 0; i < ks.size(); ++i) {
            if (ks[i].frame <= f) continue;
            for (frame_t g = f + 1; g < ks[i].frame; ++g) step(w, reader.inputs(g));
            world_image img;
            if (reader.keyframe_image(i, img))
                rep.diverging = section_hashes(w).diverging(section_hashes(img), reader.schema());
            break;
        }
        break;
    }
    // Every frame the reader holds was re-simulated, unless a mismatch stopped the walk early.
    if (!rep.first_mismatch && rep.frames_checked != reader.frame_count())
        return error{errc::corrupt, reader.name() + ": re-simulated " + std::to_string(rep.frames_checked) +
                                        " of the replay's " + std::to_string(reader.frame_count()) + " frames"};
    return rep;
}

} // namespace retcon
