// Snapshot benchmarks. Every retcon figure is quoted against a baseline measured in
// the same run (docs/benchmarks.md):
//   memcpy/baseline    one memcpy of image_size(world) bytes between two warm buffers
//                      (the baseline of save and restore: targets >= 0.8x its bandwidth, and
//                      restore <= 1.25x its time)
//   memcpy/cold        the same memcpy into a fresh anonymous mapping: the kernel's first-touch
//                      cost, the baseline of restore_fresh with pages:cold
//   xxh3/baseline      XXH3_64bits_dispatch one-shot over a buffer of as many bytes as the world
//                      hash reads (target >= 0.8x its throughput)
//   zstd/raw, unzstd/raw  ZSTD_compressCCtx / ZSTD_decompressDCtx of the image, for the
//                      snapshot-file figures
//   float_after/none   the float movement system alone (the vzeroupper hazard)
// World: bench/bench_world.hpp (Position + Velocity on every entity, a 32-byte Body on half,
// churned so the free list and pool orders are not trivial). Names read
// <workload>/<implementation>[/<param>:<value>]/<N>; bench/snapshot_report.py prints the tables
// of docs/benchmarks.md ("Snapshots").
#include <retcon/snapshot.hpp>

#include <benchmark/benchmark.h>

#define XXH_STATIC_LINKING_ONLY
#include <xxh_x86dispatch.h>
#include <xxhash.h>
#include <zstd.h>

#if defined(__x86_64__) || defined(__i386__)
#    include <immintrin.h>
#endif

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#if defined(__GLIBC__)
#    include <malloc.h>
#endif

#include "bench_common.hpp"
#include "bench_world.hpp"

namespace bench {

using namespace sw;

// ---------------------------------------------------------------- fixtures

/// Bytes retcon::hash(world) reads: entity table + free-list header, per pool the element count,
/// owners and payload, group lengths, resources, then the per-section hashes it combines.
std::size_t hashed_bytes(const retcon::world &w) {
    std::size_t n = 16 + 4 * w.entity_table().size();
    for (std::size_t i = 0; i < w.pool_count(); ++i) {
        const auto &p = w.pool_at(i);
        n += 4 + 4 * std::size_t{p.size()} + p.payload_bytes();
    }
    n += 4 * w.group_lengths().size() + w.resource_bytes().size();
    return n + 8 * (w.pool_count() + 3);
}

/// One world of N entities and its image, shared by the benchmarks of that size (built once,
/// untimed). Benchmarks that write to it leave it in the state of its image.
struct fixture {
    retcon::world w{world_schema()};
    retcon::world_image snap;
    std::size_t image = 0;
    std::size_t hashed = 0;
};

fixture &fixture_for(std::uint32_t n) {
    static std::map<std::uint32_t, std::unique_ptr<fixture>> cache;
    auto &f = cache[n];
    if (!f) {
        f = std::make_unique<fixture>();
        build_world(f->w, n);
        retcon::save(f->w, f->snap, 1);
        f->image = f->snap.size();
        f->hashed = hashed_bytes(f->w);
    }
    return *f;
}

/// A warm buffer of @p n bytes (every page touched).
std::vector<std::byte> warm_buffer(std::size_t n, std::uint8_t fill) {
    return std::vector<std::byte>(n, std::byte{fill});
}

void set_bytes(benchmark::State &state, std::size_t per_iteration) {
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(per_iteration));
    state.counters["bytes"] = static_cast<double>(per_iteration);
}

// ---------------------------------------------------------------- save / restore vs memcpy

void memcpy_baseline(benchmark::State &state) {
    const auto &f = fixture_for(n_of(state));
    auto src = warm_buffer(f.image, 1);
    auto dst = warm_buffer(f.image, 2);
    for (auto _ : state) {
        std::byte *d = dst.data();
        const std::byte *s = src.data();
        benchmark::DoNotOptimize(d);
        benchmark::DoNotOptimize(s);
        std::memcpy(d, s, f.image);
        benchmark::ClobberMemory();
    }
    set_bytes(state, f.image);
    set_items(state, n_of(state));
}

void retcon_save(benchmark::State &state) {
    auto &f = fixture_for(n_of(state));
    retcon::world_image out;
    retcon::save(f.w, out, 1); // buffer at its high-water mark: steady state
    for (auto _ : state) {
        retcon::save(f.w, out, 1);
        benchmark::DoNotOptimize(out.bytes().data());
        benchmark::ClobberMemory();
    }
    set_bytes(state, f.image);
    set_items(state, n_of(state));
}

/// Restores alternately two images of the same size class:
///   churn 0   : the image of the world itself (entity membership unchanged: the rollback of
///               frames in which nothing spawned or despawned),
///   churn 1   : an image taken after 1% of the entities were despawned and respawned,
///   churn 100 : an unrelated world of the same size (every sparse entry changes).
void retcon_restore(benchmark::State &state) {
    auto &f = fixture_for(n_of(state));
    const auto churn_percent = static_cast<std::uint32_t>(state.range(1));
    retcon::world_image other;
    if (churn_percent == 0) {
        other = f.snap;
    } else if (churn_percent == 100) {
        retcon::world w2{world_schema()};
        build_world(w2, n_of(state), 2);
        retcon::save(w2, other, 1);
    } else {
        rng r{7};
        churn(f.w, r, n_of(state) * churn_percent / 100u);
        retcon::save(f.w, other, 1);
    }
    const retcon::world_image *images[2] = {&f.snap, &other};
    for (const auto *img : images)
        if (!retcon::restore(f.w, *img)) state.SkipWithError("restore failed");
    std::size_t k = 0;
    for (auto _ : state) {
        auto r = retcon::restore(f.w, *images[k ^= 1u]);
        benchmark::DoNotOptimize(r);
        benchmark::ClobberMemory();
    }
    if (!retcon::restore(f.w, f.snap)) state.SkipWithError("restore failed"); // leave the fixture as built
    set_bytes(state, (f.image + other.size()) / 2);
    set_items(state, n_of(state));
}

// ---------------------------------------------------------------- fresh restore
// A restore into a world constructed just before (late join, resync, loading a file): every
// array is allocated and every sparse entry written. Construction and destruction of the world
// are not timed. pages:warm reuses the memory the previous iteration's world freed
// (keep_freed_memory); pages:cold returns it to the kernel first, so the restore pays the
// first-touch page faults, as memcpy/cold (a fresh mapping) pays them.

enum class pages { warm, cold };

/// pages:cold: hands the pages of freed chunks back to the kernel, so the next allocations
/// fault them in again (glibc's malloc_trim releases whole free pages anywhere in the heap).
void release_freed_pages(pages p) {
#if defined(__GLIBC__)
    if (p == pages::cold) malloc_trim(0);
#else
    (void)p;
#endif
}

void memcpy_cold(benchmark::State &state) {
    const auto &f = fixture_for(n_of(state));
    auto src = warm_buffer(f.image, 1);
    for (auto _ : state) {
        state.PauseTiming();
        void *map = ::mmap(nullptr, f.image, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (map == MAP_FAILED) {
            state.SkipWithError("mmap failed");
            break;
        }
        auto *d = static_cast<std::byte *>(map);
        const std::byte *s = src.data();
        benchmark::DoNotOptimize(d);
        benchmark::DoNotOptimize(s);
        state.ResumeTiming();
        std::memcpy(d, s, f.image);
        benchmark::ClobberMemory();
        state.PauseTiming();
        ::munmap(map, f.image);
        state.ResumeTiming();
    }
    set_bytes(state, f.image);
    set_items(state, n_of(state));
}

/// mode:trusted is restore(), mode:untrusted is load_image() (validate_image, then restore).
template<bool Untrusted, pages Pages>
void restore_fresh(benchmark::State &state) {
    const auto &f = fixture_for(n_of(state));
    const auto run = [&f](retcon::world &w) {
        return Untrusted ? retcon::load_image(w, f.snap) : retcon::restore(w, f.snap);
    };
    std::optional<retcon::world> w;
    w.emplace(world_schema());
    if (!run(*w)) state.SkipWithError("restore failed"); // grows the per-thread view once
    for (auto _ : state) {
        state.PauseTiming();
        w.reset();
        release_freed_pages(Pages);
        w.emplace(world_schema());
        state.ResumeTiming();
        auto r = run(*w);
        benchmark::DoNotOptimize(r);
        benchmark::ClobberMemory();
    }
    if (!w || retcon::hash(*w) != retcon::hash(f.w)) state.SkipWithError("restored world differs from the image's");
    set_bytes(state, f.image);
    set_items(state, n_of(state));
}

// ---------------------------------------------------------------- hash vs raw XXH3

void xxh3_baseline(benchmark::State &state) {
    const auto &f = fixture_for(n_of(state));
    auto buf = warm_buffer(f.hashed, 3);
    for (auto _ : state) {
        const std::byte *p = buf.data();
        benchmark::DoNotOptimize(p);
        benchmark::DoNotOptimize(XXH3_64bits_dispatch(p, f.hashed));
    }
    set_bytes(state, f.hashed);
    set_items(state, n_of(state));
}

void retcon_hash(benchmark::State &state) {
    const auto &f = fixture_for(n_of(state));
    for (auto _ : state) benchmark::DoNotOptimize(retcon::hash(f.w));
    set_bytes(state, f.hashed);
    set_items(state, n_of(state));
}

void retcon_section_hashes(benchmark::State &state) {
    const auto &f = fixture_for(n_of(state));
    retcon::world_hashes out;
    retcon::section_hashes(f.w, out);
    for (auto _ : state) {
        retcon::section_hashes(f.w, out);
        benchmark::DoNotOptimize(out.world);
    }
    set_bytes(state, f.hashed);
    set_items(state, n_of(state));
}

void retcon_hash_image(benchmark::State &state) {
    const auto &f = fixture_for(n_of(state));
    for (auto _ : state) benchmark::DoNotOptimize(retcon::hash(f.snap));
    set_bytes(state, f.hashed);
    set_items(state, n_of(state));
}

// ---------------------------------------------------------------- vzeroupper hazard
// The float movement system (SSE code: no -march) timed right after a hash call. XXH3's
// dispatched AVX2/AVX-512 kernel may return with the upper vector state dirty; retcon clears
// it (_mm256_zeroupper) after every dispatched call. Only the system is timed (manual time).

enum class before_kind { none, retcon_hash, raw_xxh3, raw_xxh3_zeroupper };

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx"))) void zero_upper() noexcept { _mm256_zeroupper(); }
#else
void zero_upper() noexcept {}
#endif

template<before_kind Before>
void float_after(benchmark::State &state) {
    const auto n = n_of(state);
    retcon::world w{world_schema()};
    build_world(w, n, 3);
    auto buf = warm_buffer(hashed_bytes(w), 4);
    move_system(w);
    for (auto _ : state) {
        if constexpr (Before == before_kind::retcon_hash) {
            benchmark::DoNotOptimize(retcon::hash(w));
        } else if constexpr (Before == before_kind::raw_xxh3 || Before == before_kind::raw_xxh3_zeroupper) {
            benchmark::DoNotOptimize(XXH3_64bits_dispatch(buf.data(), buf.size()));
            if constexpr (Before == before_kind::raw_xxh3_zeroupper) zero_upper();
        }
        const auto t0 = std::chrono::steady_clock::now();
        move_system(w);
        benchmark::ClobberMemory();
        const auto t1 = std::chrono::steady_clock::now();
        state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
    }
    set_items(state, n);
}

// ---------------------------------------------------------------- zstd files

void retcon_file_encode(benchmark::State &state) {
    const auto &f = fixture_for(n_of(state));
    const int level = static_cast<int>(state.range(1));
    std::size_t stored = 0;
    for (auto _ : state) {
        const auto bytes = retcon::encode_snapshot_file(f.snap, world_schema(), level);
        stored = bytes.size();
        benchmark::DoNotOptimize(bytes.data());
    }
    set_bytes(state, f.image);
    set_items(state, n_of(state));
    state.counters["stored"] = static_cast<double>(stored);
    state.counters["ratio"] = static_cast<double>(f.image) / static_cast<double>(stored);
}

void retcon_file_decode(benchmark::State &state) {
    const auto &f = fixture_for(n_of(state));
    const int level = static_cast<int>(state.range(1));
    const auto bytes = retcon::encode_snapshot_file(f.snap, world_schema(), level);
    for (auto _ : state) {
        auto file = retcon::parse_snapshot_file(bytes, "bench");
        if (!file) state.SkipWithError("parse_snapshot_file failed");
        benchmark::DoNotOptimize(file);
    }
    set_bytes(state, f.image);
    set_items(state, n_of(state));
    state.counters["stored"] = static_cast<double>(bytes.size());
}

struct zstd_contexts {
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_DCtx *d = ZSTD_createDCtx();
    zstd_contexts() = default;
    zstd_contexts(const zstd_contexts &) = delete;
    zstd_contexts &operator=(const zstd_contexts &) = delete;
    ~zstd_contexts() {
        ZSTD_freeCCtx(c);
        ZSTD_freeDCtx(d);
    }
};

void zstd_compress_raw(benchmark::State &state) {
    const auto &f = fixture_for(n_of(state));
    const int level = static_cast<int>(state.range(1));
    zstd_contexts z;
    auto out = warm_buffer(ZSTD_compressBound(f.image), 0);
    std::size_t stored = 0;
    for (auto _ : state) {
        stored = ZSTD_compressCCtx(z.c, out.data(), out.size(), f.snap.bytes().data(), f.image, level);
        benchmark::DoNotOptimize(out.data());
    }
    if (ZSTD_isError(stored)) state.SkipWithError("zstd failed");
    set_bytes(state, f.image);
    set_items(state, n_of(state));
    state.counters["stored"] = static_cast<double>(stored);
    state.counters["ratio"] = static_cast<double>(f.image) / static_cast<double>(stored);
}

void zstd_decompress_raw(benchmark::State &state) {
    const auto &f = fixture_for(n_of(state));
    const int level = static_cast<int>(state.range(1));
    zstd_contexts z;
    std::vector<std::byte> packed(ZSTD_compressBound(f.image));
    packed.resize(ZSTD_compressCCtx(z.c, packed.data(), packed.size(), f.snap.bytes().data(), f.image, level));
    auto out = warm_buffer(f.image, 0);
    for (auto _ : state) {
        const std::size_t n = ZSTD_decompressDCtx(z.d, out.data(), out.size(), packed.data(), packed.size());
        if (n != f.image) state.SkipWithError("zstd failed");
        benchmark::DoNotOptimize(out.data());
    }
    set_bytes(state, f.image);
    set_items(state, n_of(state));
}

// ---------------------------------------------------------------- replay keyframes
// A simulated moving world of N entities, run for 600 frames; keyframes every 60 frames, zstd
// level 3. Two replays of the same frames are written side by side: one where every keyframe
// after the first is a delta against the previous keyframe (full_keyframe_every = 1000), one
// where every keyframe is a full image (full_keyframe_every = 1). Reported: the mean stored
// (compressed) size of keyframes 1..10 in each, and full / delta. Variants: percentage of
// entities that move (velocity != 0) and spawn/despawn churn per frame (in per mille of N).

struct temp_dir {
    std::filesystem::path path;
    temp_dir() {
        path = std::filesystem::temp_directory_path() / ("retcon_bench_" + std::to_string(::getpid()));
        std::filesystem::create_directories(path);
    }
    temp_dir(const temp_dir &) = delete;
    temp_dir &operator=(const temp_dir &) = delete;
    ~temp_dir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
};

void replay_keyframes(benchmark::State &state) {
    const auto n = n_of(state);
    const auto moving_percent = static_cast<std::uint32_t>(state.range(1));
    const auto churn_permille = static_cast<std::uint32_t>(state.range(2));
    constexpr std::uint32_t frames = 600, spacing = 60;
    const temp_dir dir;
    double delta_mean = 0, full_mean = 0, image_mean = 0;
    for (auto _ : state) {
        retcon::world w{world_schema()};
        build_world(w, n, 5, moving_percent);
        retcon::replay_settings s;
        s.keyframe_interval = spacing;
        s.level = 3;
        s.full_keyframe_every = 1000;
        // A replay is never overwritten: each repetition removes the last one's files first.
        std::filesystem::remove(dir.path / "delta.rcr");
        std::filesystem::remove(dir.path / "full.rcr");
        auto delta = retcon::replay_writer::create(dir.path / "delta.rcr", w, 0, s);
        s.full_keyframe_every = 1;
        auto full = retcon::replay_writer::create(dir.path / "full.rcr", w, 0, s);
        if (!delta || !full) {
            state.SkipWithError("cannot create the replays");
            return;
        }
        rng r{11};
        retcon::frame_inputs_buffer input{1, 4};
        input.set_bytes(0, std::array<std::byte, 4>{});
        for (std::uint32_t f = 0; f < frames; ++f) {
            move_system(w);
            churn(w, r, n * churn_permille / 1000u, moving_percent);
            const auto h = retcon::hash(w);
            if (!delta->add_frame(input.view(f), w, h) || !full->add_frame(input.view(f), w, h)) {
                state.SkipWithError("add_frame failed");
                return;
            }
        }
        if (!delta->finish() || !full->finish()) {
            state.SkipWithError("finish failed");
            return;
        }
        auto rd = retcon::replay_reader::open(dir.path / "delta.rcr");
        auto rf = retcon::replay_reader::open(dir.path / "full.rcr");
        if (!rd || !rf || rd->keyframes().size() != rf->keyframes().size() || rd->keyframes().size() < 2) {
            state.SkipWithError("cannot read the replays back");
            return;
        }
        const auto kd = rd->keyframes();
        const auto kf = rf->keyframes();
        delta_mean = full_mean = image_mean = 0;
        for (std::size_t i = 1; i < kd.size(); ++i) {
            if (kd[i].full || !kf[i].full) state.SkipWithError("unexpected keyframe kinds");
            delta_mean += kd[i].stored_bytes;
            full_mean += kf[i].stored_bytes;
            image_mean += kf[i].image_bytes;
        }
        const auto k = static_cast<double>(kd.size() - 1);
        delta_mean /= k;
        full_mean /= k;
        image_mean /= k;
    }
    state.counters["delta_bytes"] = delta_mean;
    state.counters["full_bytes"] = full_mean;
    state.counters["image_bytes"] = image_mean;
    state.counters["full_over_delta"] = full_mean / delta_mean;
    set_items(state, n);
}

// ---------------------------------------------------------------- registration

constexpr std::int64_t sizes[] = {10'000, 100'000, 1'000'000};

benchmark::internal::Benchmark *stats(benchmark::internal::Benchmark *b, std::int64_t n) {
    return with_spread(b->Unit(benchmark::kMicrosecond), n >= 1'000'000 ? 3 : 5);
}

template<class Fn>
void reg(const std::string &name, Fn fn) {
    for (const auto n : sizes) stats(benchmark::RegisterBenchmark(name.c_str(), fn)->Arg(n), n);
}

void register_all() {
    reg("memcpy/baseline", memcpy_baseline);
    reg("save/retcon", retcon_save);
    for (const std::int64_t churn_percent : {0, 1, 100})
        for (const auto n : sizes)
            stats(benchmark::RegisterBenchmark("restore/retcon", retcon_restore)
                      ->Args({n, churn_percent})
                      ->ArgNames({"", "churn"}),
                  n);

    reg("memcpy/cold", memcpy_cold);
    reg("restore_fresh/retcon/mode:trusted/pages:warm", restore_fresh<false, pages::warm>);
    reg("restore_fresh/retcon/mode:untrusted/pages:warm", restore_fresh<true, pages::warm>);
    reg("restore_fresh/retcon/mode:trusted/pages:cold", restore_fresh<false, pages::cold>);
    reg("restore_fresh/retcon/mode:untrusted/pages:cold", restore_fresh<true, pages::cold>);

    reg("xxh3/baseline", xxh3_baseline);
    reg("hash/retcon", retcon_hash);
    reg("section_hashes/retcon", retcon_section_hashes);
    reg("hash_image/retcon", retcon_hash_image);

    const std::pair<const char *, void (*)(benchmark::State &)> hazard[] = {
        {"float_after/none", float_after<before_kind::none>},
        {"float_after/retcon_hash", float_after<before_kind::retcon_hash>},
        {"float_after/raw_xxh3", float_after<before_kind::raw_xxh3>},
        {"float_after/raw_xxh3_zeroupper", float_after<before_kind::raw_xxh3_zeroupper>},
    };
    for (const auto &[name, fn] : hazard)
        with_spread(benchmark::RegisterBenchmark(name, fn)->Arg(10'000)->UseManualTime()->Unit(benchmark::kMicrosecond),
                    5);

    const std::pair<const char *, void (*)(benchmark::State &)> codecs[] = {
        {"zstd_file/retcon", retcon_file_encode},
        {"zstd/raw", zstd_compress_raw},
        {"unzstd_file/retcon", retcon_file_decode},
        {"unzstd/raw", zstd_decompress_raw},
    };
    for (const std::int64_t level : {1, 3})
        for (const auto &[name, fn] : codecs)
            for (const auto n : sizes)
                stats(benchmark::RegisterBenchmark(name, fn)->Args({n, level})->ArgNames({"", "level"}), n);

    // moving %, churn per mille per frame
    const std::pair<std::int64_t, std::int64_t> worlds[] = {{100, 10}, {100, 1}, {100, 0}, {10, 10}, {10, 1}, {10, 0}};
    for (const auto &[moving, churn_permille] : worlds)
        benchmark::RegisterBenchmark("replay_keyframes/retcon", replay_keyframes)
            ->Args({10'000, moving, churn_permille})
            ->ArgNames({"", "moving", "churn_permille"})
            ->Iterations(1)
            ->Repetitions(1)
            ->Unit(benchmark::kMillisecond);
}

// ---------------------------------------------------------------- memory per entity

std::string image_bytes_report(std::uint32_t n) {
    const auto &f = fixture_for(n);
    char buf[256];
    std::snprintf(buf, sizeof buf, "image %.1f B, hashed %.1f B, derived sparse index %.1f B per entity (N=%u)",
                  static_cast<double>(f.image) / n, static_cast<double>(f.hashed) / n,
                  static_cast<double>(f.w.derived_bytes()) / n, n);
    return buf;
}

} // namespace bench

int main(int argc, char **argv) {
    bench::keep_freed_memory();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::AddCustomContext("bytes_per_entity", bench::image_bytes_report(100'000));
    benchmark::AddCustomContext("xxh3_kernel", [] {
        // XXH_featureTest is not exported; report what the CPU offers instead.
        if (__builtin_cpu_supports("avx512f")) return "avx512";
        if (__builtin_cpu_supports("avx2")) return "avx2";
        return "sse2";
    }());
    bench::register_all();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
