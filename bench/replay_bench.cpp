// retcon_replay_bench: the demo's replay, its size and its seek time, per keyframe spacing
// (docs/benchmarks.md, "Replays: size and seek").
//
// For each keyframe interval K it records the same deterministic match in process (the demo's
// full field, two bots, 60 seconds at 60 Hz, no network), then opens the file with the replay
// viewer's own player (demo_client/replay_player.hpp) and seeks to 200 seeded random frames,
// timing each seek. Sizes are exact and repeat; seek times are wall time on this machine.
//
//   retcon_replay_bench [--intervals 120,300,480,600] [--seeks 200] [--level 3] [--full-every M]
//                       [--codec planes|zstd] [--seek index|hash-every-frame] [--seconds 60]
//                       [--dir DIR] [--dump IMAGE]
//
// Seek times are given twice: the seeking thread's CPU time (what a seek costs; on a shared
// machine the wall time also counts the time other processes held the core) and wall time.
// `--seek hash-every-frame` seeks as the viewer did before (restore the keyframe, then simulate
// and hash every frame up to the target), for a before/after in one run. The player's seeks are
// measured cold (no checkpoints, standing at the start: as a freshly opened player) and warm
// (after one playback of the whole match has left a checkpoint every 120 frames).
#include <retcon/snapshot.hpp>
#include <retcon_demo/game.hpp>

#include <replay_player.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <ctime>
#include <unistd.h>

using namespace retcon;
using namespace retcon::demo;

namespace {

struct options {
    std::vector<std::uint32_t> intervals{120, 300, 480, 600};
    std::uint32_t seeks = 200;
    int level = 3;
    std::uint32_t full_every = 10;
    keyframe_codec codec = keyframe_codec::planes;
    std::uint32_t seconds = 60;
    std::filesystem::path dir{};
    bool old_seek = false;        ///< seek as the viewer did before the seek index: hash every frame
    std::filesystem::path dump{}; ///< write the raw image of the middle keyframe here (to study it)
};

std::uint64_t thread_cpu_ns() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(t.tv_nsec);
}

struct recorded {
    std::uint64_t file_bytes = 0;
    std::size_t keyframes = 0;
    std::uint64_t keyframe_bytes = 0; ///< stored bytes of every keyframe chunk (headers excluded)
    double keyframe_encode_ms = 0;    ///< CPU per keyframe on the writer's thread (add_frame when one is due)
    double step_us = 0;               ///< the demo's step, mean per frame
};

/// The match: 2 bots in the full field, seed 2026, @p frames frames; written to @p path.
recorded record(const std::filesystem::path &path, std::uint32_t interval, const options &o, frame_t frames) {
    world w{make_schema()};
    world_options wo;
    wo.seed = 2026;
    init_world(w, wo);
    game g;
    replay_settings rs;
    rs.players = 2;
    rs.input_size = sizeof(player_input);
    rs.keyframe_interval = interval;
    rs.full_keyframe_every = o.full_every;
    rs.level = o.level;
    rs.keyframe_codec = o.codec;
    auto writer = replay_writer::create(path, w, 0, rs);
    if (!writer) {
        std::fprintf(stderr, "replay_bench: %s\n", writer.message().c_str());
        std::exit(2);
    }
    bot bots[2] = {bot{11}, bot{22}};
    frame_inputs_buffer in{2, sizeof(player_input)};
    recorded out;
    std::uint64_t step_ns = 0, keyframe_ns = 0;
    for (frame_t f = 0; f < frames; ++f) {
        for (std::size_t s = 0; s < 2; ++s) in.set(s, bots[s].decide(w, static_cast<int>(s)));
        const auto t0 = thread_cpu_ns();
        g.step(w, in.view(f));
        const auto t1 = thread_cpu_ns();
        if (auto r = writer->add_frame(in.view(f), w); !r) {
            std::fprintf(stderr, "replay_bench: %s\n", r.message().c_str());
            std::exit(2);
        }
        step_ns += t1 - t0;
        if ((f + 1) % interval == 0) keyframe_ns += thread_cpu_ns() - t1;
    }
    if (auto r = writer->finish(); !r) {
        std::fprintf(stderr, "replay_bench: %s\n", r.message().c_str());
        std::exit(2);
    }
    out.file_bytes = writer->bytes_written();
    out.step_us = static_cast<double>(step_ns) / 1e3 / frames;
    const auto keyframes_after_start = frames / interval;
    out.keyframe_encode_ms =
        keyframes_after_start ? static_cast<double>(keyframe_ns) / 1e6 / static_cast<double>(keyframes_after_start) : 0;
    return out;
}

std::vector<std::uint32_t> parse_list(const char *s) {
    std::vector<std::uint32_t> v;
    for (const char *p = s; *p;) {
        v.push_back(static_cast<std::uint32_t>(std::strtoul(p, nullptr, 10)));
        p = std::strchr(p, ',');
        if (!p) break;
        ++p;
    }
    return v;
}

double percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    const auto i = static_cast<std::size_t>(std::lround(p * static_cast<double>(v.size() - 1)));
    return v[std::min(i, v.size() - 1)];
}

} // namespace

int main(int argc, char **argv) {
    options o;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--intervals") o.intervals = parse_list(argv[i + 1]);
        else if (a == "--seeks")
            o.seeks = static_cast<std::uint32_t>(std::atoi(argv[i + 1]));
        else if (a == "--level")
            o.level = std::atoi(argv[i + 1]);
        else if (a == "--full-every")
            o.full_every = static_cast<std::uint32_t>(std::atoi(argv[i + 1]));
        else if (a == "--codec")
            o.codec = std::string(argv[i + 1]) == "zstd" ? keyframe_codec::zstd : keyframe_codec::planes;
        else if (a == "--seconds")
            o.seconds = static_cast<std::uint32_t>(std::atoi(argv[i + 1]));
        else if (a == "--seek")
            o.old_seek = std::string(argv[i + 1]) == "hash-every-frame";
        else if (a == "--dump")
            o.dump = argv[i + 1];
        else if (a == "--dir")
            o.dir = argv[i + 1];
        else {
            std::fprintf(stderr, "replay_bench: unknown option %s\n", a.c_str());
            return 2;
        }
    }
    const bool own_dir = o.dir.empty();
    if (own_dir) o.dir = std::filesystem::temp_directory_path() / ("retcon_replay_bench." + std::to_string(::getpid()));
    std::filesystem::create_directories(o.dir);
    const frame_t frames = o.seconds * 60u;

    std::printf("demo replay: 2 bot players, full field (3,000 dust), seed 2026, %u frames; keyframe codec %s, zstd "
                "level %d, full keyframe every %u\n",
                frames, o.codec == keyframe_codec::zstd ? "zstd" : "planes", o.level, o.full_every);
    std::printf(
        "| K | file bytes | keyframes | mean keyframe stored | encode ms/keyframe | seek CPU ms p50 / p99 / max "
        "| seek wall ms p50 / p99 / max | step us |\n|---|---|---|---|---|---|---|---|\n");
    for (const auto k : o.intervals) {
        const auto path = o.dir / ("demo_k" + std::to_string(k) + ".rcr");
        std::filesystem::remove(path);
        auto rec = record(path, k, o, frames);
        auto player = replay_player::open(path);
        if (!player) {
            std::fprintf(stderr, "replay_bench: %s\n", player.message().c_str());
            return 2;
        }
        replay_player &p = **player;
        for (const auto &kf : p.reader().keyframes()) rec.keyframe_bytes += kf.stored_bytes;
        rec.keyframes = p.reader().keyframes().size();
        if (!o.dump.empty()) {
            world_image img;
            if (auto r = p.reader().keyframe_image(rec.keyframes / 2, img); !r) return 2;
            std::FILE *f = std::fopen(o.dump.c_str(), "wb");
            if (f == nullptr) return 2;
            std::fwrite(img.bytes().data(), 1, img.bytes().size(), f);
            std::fclose(f);
        }
        // Seeded random targets over the whole recording; the same for every K.
        std::vector<frame_t> targets;
        std::uint64_t s = 0x9E3779B97F4A7C15ull;
        for (std::uint32_t i = 0; i < o.seeks; ++i) {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            targets.push_back(static_cast<frame_t>((s * 0x2545F4914F6CDD1Dull >> 11) % (frames + 1u)));
        }
        world old_world{make_schema()};
        game old_game;
        std::uint64_t old_ok = 0;
        // One pass of seeks; @p warm: with the checkpoints a full playback leaves (else each seek
        // starts on a player standing at the start with none, as a fresh one does).
        const auto seek_pass = [&](bool warm, std::vector<double> &cpu, std::vector<double> &ms) -> bool {
            if (warm) {
                if (!p.seek(p.reader().start_frame())) return false;
                while (p.advance()) {}
            }
            for (const frame_t target : targets) {
                if (!warm) {
                    p.drop_checkpoints();
                    if (!p.seek(p.reader().start_frame())) return false;
                }
                const auto t0 = std::chrono::steady_clock::now();
                const auto c0 = thread_cpu_ns();
                if (o.old_seek) {
                    auto from = p.reader().restore_keyframe(old_world, target);
                    if (!from) return false;
                    for (frame_t f = *from; f < target; ++f) {
                        old_game.step(old_world, p.reader().inputs(f));
                        old_ok += hash(old_world) == p.reader().hash(f) ? 1u : 0u;
                    }
                } else if (auto r = p.seek(target); !r) {
                    std::fprintf(stderr, "replay_bench: seek to %u: %s\n", target, r.message().c_str());
                    return false;
                }
                cpu.push_back(static_cast<double>(thread_cpu_ns() - c0) / 1e6);
                ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
                if (!o.old_seek && p.frame() != target) {
                    std::fprintf(stderr, "replay_bench: seek to %u stood at %u\n", target, p.frame());
                    return false;
                }
            }
            return true;
        };
        std::vector<double> ms, cpu, warm_ms, warm_cpu;
        if (!seek_pass(false, cpu, ms) || (!o.old_seek && !seek_pass(true, warm_cpu, warm_ms))) return 2;
        if (o.old_seek && old_ok == 0 && !targets.empty() && targets.front() > p.reader().start_frame()) return 2;
        std::printf("| %u | %llu | %zu | %llu | %.2f | %.2f / %.2f / %.2f | %.2f / %.2f / %.2f | %.1f |\n", k,
                    static_cast<unsigned long long>(rec.file_bytes), rec.keyframes,
                    static_cast<unsigned long long>(rec.keyframe_bytes / std::max<std::size_t>(rec.keyframes, 1)),
                    rec.keyframe_encode_ms, percentile(cpu, 0.5), percentile(cpu, 0.99),
                    *std::max_element(cpu.begin(), cpu.end()), percentile(ms, 0.5), percentile(ms, 0.99),
                    *std::max_element(ms.begin(), ms.end()), rec.step_us);
        if (!warm_cpu.empty())
            std::printf("|   | warm (checkpoints every %u frames, %zu KB) | | | | %.2f / %.2f / %.2f | %.2f / %.2f / "
                        "%.2f | |\n",
                        replay_player::checkpoint_every, p.checkpoint_bytes() / 1024, percentile(warm_cpu, 0.5),
                        percentile(warm_cpu, 0.99), *std::max_element(warm_cpu.begin(), warm_cpu.end()),
                        percentile(warm_ms, 0.5), percentile(warm_ms, 0.99),
                        *std::max_element(warm_ms.begin(), warm_ms.end()));
        if (own_dir) std::filesystem::remove(path);
    }
    if (own_dir) std::filesystem::remove_all(o.dir);
    return 0;
}
