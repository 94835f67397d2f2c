// libFuzzer target: replay_reader::parse over arbitrary bytes, then check(), every frame
// accessor, every keyframe and a seek. Any crash, sanitizer report or trap is a bug.
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
    for (retcon::frame_t f = r->start_frame(); f < r->end_frame(); ++f) {
        if (r->inputs(f).record().size() != std::size_t{s.players} * (1u + s.input_size)) __builtin_trap();
        (void)r->hash(f);
    }
    const bool checked = r->check().ok();
    retcon::snapshot img;
    for (std::size_t i = 0; i < r->keyframes().size(); ++i) {
        const bool decoded = r->keyframe_image(i, img).ok();
        if (checked && !decoded) __builtin_trap(); // check() decoded every keyframe already
        if (decoded) (void)retcon::dump_json(img, r->schema());
    }
    retcon::world w{r->schema()};
    auto seek = r->restore_keyframe(w, r->end_frame());
    if (checked && !seek) __builtin_trap();
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
