#include <retcon/net/replay_trace.hpp>

#include <retcon/net/events.hpp>
#include <retcon/net/trace.hpp>
#include <retcon/snapshot/replay.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

namespace retcon {

namespace {

/// The recorder's clock: the synthetic time the timeline is at (ns).
std::uint64_t synthetic_now(void *context) { return *static_cast<const std::uint64_t *>(context); }

/// Walks the replay's timeline; @p emit(true) records it, emit(false) only counts it.
class timeline {
public:
    timeline(const replay_reader &r, std::uint64_t tick_ns) : r_{r}, tick_ns_{tick_ns} {}

    /// Records or counts everything: the records needed, and the summary.
    template<class Sink>
    std::uint64_t walk(Sink &&sink) {
        std::uint64_t records = 0;
        const std::size_t players = r_.settings().players;
        std::vector<bool> present(players, false);
        std::size_t occupied = 0;
        bool first = true;
        char text[96];
        for (frame_t f = r_.start_frame(); f < r_.end_frame(); ++f) {
            const std::uint64_t start = std::uint64_t{f} * tick_ns_;
            const frame_inputs in = r_.inputs(f);
            keyframes_until(sink, f, start, records);
            std::size_t now_occupied = 0;
            for (std::size_t s = 0; s < players; ++s) {
                const bool here = in.present(s);
                now_occupied += here ? 1 : 0;
                if (here != present[s]) {
                    std::snprintf(text, sizeof text, "frame %u: slot %zu", f, s);
                    sink.instant(here ? sink.joined : sink.left, start, text);
                    ++(here ? sum.joins : sum.leaves), ++records;
                    present[s] = here;
                }
                if (here && in.replaced(s)) {
                    std::snprintf(text, sizeof text, "frame %u: slot %zu", f, s);
                    sink.instant(sink.replaced, start, text);
                    ++sum.replaced_inputs, ++records;
                }
            }
            if (first || now_occupied != occupied) {
                sink.counter(start, static_cast<double>(now_occupied));
                ++records;
                occupied = now_occupied;
                first = false;
            }
            sink.frame(start, start + tick_ns_, f, now_occupied);
            ++sum.frames, ++records;
        }
        // The last keyframe may hold the state after the last frame (at the end frame's start).
        keyframes_until(sink, r_.end_frame(), std::uint64_t{r_.end_frame()} * tick_ns_, records);
        return records;
    }

    replay_trace_summary sum{};

private:
    /// The keyframes at or before frame @p f not emitted yet, at @p at.
    template<class Sink>
    void keyframes_until(Sink &sink, frame_t f, std::uint64_t at, std::uint64_t &records) {
        const std::span<const replay_keyframe> keyframes = r_.keyframes();
        char text[96];
        for (; next_key_ < keyframes.size() && keyframes[next_key_].frame <= f; ++next_key_) {
            const replay_keyframe &k = keyframes[next_key_];
            std::snprintf(text, sizeof text, "frame %u: %s, %u bytes stored, %u image bytes", k.frame,
                          k.full ? "full" : "delta", k.stored_bytes, k.image_bytes);
            sink.instant(sink.keyframe, at, text);
            ++sum.keyframes, ++records;
        }
    }

    const replay_reader &r_;
    std::uint64_t tick_ns_;
    std::size_t next_key_ = 0; ///< the first keyframe not emitted yet
};

/// A sink that only counts.
struct counting_sink {
    trace_name_id keyframe = 0, joined = 0, left = 0, replaced = 0;
    void instant(trace_name_id, std::uint64_t, const char *) const noexcept {}
    void counter(std::uint64_t, double) const noexcept {}
    void frame(std::uint64_t, std::uint64_t, frame_t, std::size_t) const noexcept {}
};

/// A sink that records into a trace_recorder whose clock reads `now`.
struct recording_sink {
    trace_recorder &trace;
    std::uint64_t &now;
    trace_name_id frame_name, keyframe, joined, left, replaced;
    void instant(trace_name_id name, std::uint64_t at, const char *text) const {
        now = at;
        trace.instant(name, text);
    }
    void counter(std::uint64_t at, double value) const {
        now = at;
        trace.counter(trace_id(trace_name::players), value);
    }
    void frame(std::uint64_t start, std::uint64_t end, frame_t f, std::size_t players) const {
        trace.complete(frame_name, start, end, trace_track::tick, f, static_cast<std::int64_t>(players));
    }
};

} // namespace

result<replay_trace_summary> write_replay_trace(const replay_reader &reader, const std::filesystem::path &path) {
    if (auto checked = reader.check(); !checked) return checked.err();
    const std::uint32_t hz = reader.settings().tick_hz ? reader.settings().tick_hz : 60;
    const std::uint64_t tick_ns = 1'000'000'000ull / hz;

    timeline counting{reader, tick_ns};
    const std::uint64_t records = counting.walk(counting_sink{});

    std::uint64_t now = 0;
    trace_options options;
    options.records = static_cast<std::uint32_t>(std::min<std::uint64_t>(records, UINT32_MAX));
    options.clock = {&synthetic_now, &now};
    options.process_name = "retcon replay " + std::filesystem::path{reader.name()}.filename().string();
    options.pid = 1; // a synthetic timeline: the same replay gives the same file
    trace_recorder trace{options};
    const auto event = [](session_event_kind k) {
        return static_cast<trace_name_id>(trace_id(trace_name::event) + static_cast<trace_name_id>(k));
    };
    timeline recording{reader, tick_ns};
    recording.walk(recording_sink{trace, now, trace.intern("frame", "frame", "players"), trace.intern("keyframe"),
                                  event(session_event_kind::player_joined), event(session_event_kind::player_left),
                                  trace.intern("input_replaced")});
    if (auto written = trace.write_json(path); !written) return written.err();
    replay_trace_summary out = recording.sum;
    out.tick_ns = tick_ns;
    return out;
}

} // namespace retcon
