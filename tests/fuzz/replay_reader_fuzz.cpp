// libFuzzer target: replay_reader::parse over arbitrary bytes, then check(), the frame
// accessors, every keyframe, seeks and verify(). Any crash, sanitizer report or trap is a bug.
//
// The frames probed (seeks, accessors) are derived from the input: around the replay's start
// and end, and one picked by the header's tick rate, a field the reader does not interpret, so
// the fuzzer steers it freely (the resealed pass fixes the checksum). verify() runs with a step
// that does nothing: it stops at the first mismatch, so it stays cheap, and its report must
// agree with the reader (every frame checked, or a mismatch inside the replay).
//
// Each input is parsed twice: as it is, and with the header checksum and every chunk header's
// check value recomputed, so that mutations of settings, metadata, schema and chunk headers
// (frame numbers, counts, sizes, kinds) reach the chunk scanner instead of stopping at a
// checksum.
#include <retcon/snapshot.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace {

template<class T>
T load(const std::vector<std::byte> &b, std::size_t off) {
    T v;
    std::memcpy(&v, b.data() + off, sizeof v);
    return v;
}

void exercise(std::vector<std::byte> bytes) {
    retcon::read_limits limits;
    limits.max_file_bytes = std::uint64_t{64} << 20;
    limits.max_image_bytes = std::uint64_t{64} << 20;
    auto r = retcon::replay_reader::parse(std::move(bytes), "fuzz.rcr", limits);
    if (!r) {
        if (r.message().empty()) __builtin_trap();
        return;
    }
    const auto &s = r->settings();
    const std::uint64_t start = r->start_frame(), count = r->frame_count(), end = start + count;
    // The reader's range never wraps: end_frame() is at most no_frame (one past max_frame).
    if (end > std::uint64_t{retcon::max_frame} + 1u || r->end_frame() != end) __builtin_trap();
    const auto &ks = r->keyframes();
    if (ks.empty() || ks[0].frame != start) __builtin_trap();
    for (std::size_t i = 1; i < ks.size(); ++i)
        if (ks[i].frame != start + i * std::uint64_t{s.keyframe_interval} || ks[i].frame > end) __builtin_trap();

    const std::uint64_t pick = s.tick_hz;
    std::vector<std::uint64_t> probes{start, end, pick, start + pick % (count + 1u), end + 1u, retcon::max_frame};
    if (start > 0) probes.push_back(start - 1u);
    if (count > 0) probes.push_back(end - 1u);
    auto record = [&](retcon::frame_t f) {
        if (r->inputs(f).record().size() != std::size_t{s.players} * (1u + s.input_size)) __builtin_trap();
        (void)r->hash(f);
    };
    if (count <= 4096) {
        for (std::uint64_t f = start; f < end; ++f) record(static_cast<retcon::frame_t>(f));
    } else {
        for (const auto f : probes)
            if (f >= start && f < end) record(static_cast<retcon::frame_t>(f));
    }

    const bool checked = r->check().ok();
    retcon::world_image img;
    for (std::size_t i = 0; i < ks.size(); ++i) {
        const bool decoded = r->keyframe_image(i, img).ok();
        if (checked && !decoded) __builtin_trap(); // check() decoded every keyframe already
        if (decoded) (void)retcon::dump_json(img, r->schema());
    }
    retcon::world w{r->schema()};
    // A file of another simulation semantics reads and checks, but is refused for restoring
    // (docs/determinism.md, "Simulation semantics").
    const bool simulable = r->schema().semantics() == retcon::simulation_semantics;
    for (const auto probe : probes) {
        if (probe > retcon::no_frame) continue;
        const auto f = static_cast<retcon::frame_t>(probe);
        auto seek = r->restore_keyframe(w, f);
        if (!simulable) {
            if (seek || seek.code() != retcon::errc::bad_version) __builtin_trap();
            continue;
        }
        if (f < start) {
            if (seek.code() != retcon::errc::not_found) __builtin_trap();
            continue;
        }
        if (checked && !seek) __builtin_trap();
        if (!seek) continue;
        // The latest keyframe at or before the probe.
        std::size_t best = 0;
        while (best + 1 < ks.size() && ks[best + 1].frame <= f) ++best;
        if (*seek != ks[best].frame) __builtin_trap();
    }

    if (count > (1u << 16)) return;
    const retcon::step_function idle = [](retcon::world &, const retcon::frame_inputs &) {};
    auto v = retcon::verify(*r, w, idle);
    if (!v) {
        if (v.message().empty()) __builtin_trap();
        return;
    }
    if (!checked) __builtin_trap();                     // verify checks every keyframe first
    if (count == 0 && !r->complete()) __builtin_trap(); // nothing readable is not verified
    if (v->ok()) {
        if (v->frames_checked != count) __builtin_trap();
    } else if (*v->first_mismatch < start || *v->first_mismatch >= end ||
               v->frames_checked != *v->first_mismatch - start + 1u) {
        __builtin_trap();
    }
}

/// Recomputes the header checksum and the 28-byte check of every chunk header it can find.
bool reseal(std::vector<std::byte> &b) {
    if (b.size() < 64) return false;
    const auto schema_size = load<std::uint32_t>(b, 24);
    const auto meta_size = load<std::uint32_t>(b, 28);
    const std::uint64_t body = 64 + std::uint64_t{schema_size} + meta_size;
    if (body > b.size()) return false;
    std::vector<std::byte> covered(b.begin(), b.begin() + 56);
    covered.insert(covered.end(), b.begin() + 64, b.begin() + static_cast<std::ptrdiff_t>(body));
    const retcon::hash64 h = retcon::xxh3(covered);
    std::memcpy(b.data() + 56, &h, 8);
    for (std::uint64_t pos = body; pos + 40 <= b.size();) {
        const auto check = static_cast<std::uint32_t>(
            retcon::xxh3(std::span<const std::byte>(b).subspan(static_cast<std::size_t>(pos), 28)));
        std::memcpy(b.data() + pos + 28, &check, 4);
        pos += 40 + std::uint64_t{load<std::uint32_t>(b, static_cast<std::size_t>(pos) + 20)};
    }
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    std::vector<std::byte> bytes(size);
    if (size) std::memcpy(bytes.data(), data, size);
    exercise(bytes);
    if (reseal(bytes)) exercise(std::move(bytes));
    return 0;
}
