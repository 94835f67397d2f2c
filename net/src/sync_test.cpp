#include <retcon/net/sync_test.hpp>

#include <retcon/snapshot/hash.hpp>
#include <retcon/snapshot/ring.hpp>

#include "session_common.hpp"

namespace retcon {

std::string sync_test_failure::describe() const {
    std::string s = "frame " + std::to_string(frame);
    if (!system.empty()) s += ", system '" + system + "'";
    s += ": ";
    for (std::size_t i = 0; i < sections.size(); ++i) s += (i ? ", " : "") + sections[i];
    if (sections.empty()) s += "hash differs";
    return s;
}

struct sync_test::impl {
    session_config cfg;
    world &w;
    step_function step;
    std::function<void(world &, const frame_inputs &)> apply;
    const schedule *systems = nullptr;
    std::uint32_t distance;
    std::size_t players, isz, rec;
    snapshot_ring ring;
    internal::frame_ring inputs;
    std::size_t cap;
    // First-run hashes: per frame, one world_hashes per system (or one for an opaque step).
    std::vector<world_hashes> first;
    std::size_t per_frame;
    world_hashes scratch;
    std::uint32_t current = 0;
    std::uint64_t resim = 0;
    bool resimulating = false;
    std::optional<sync_test_failure> fail;

    impl(session_config c, world &wr, std::uint32_t n)
        : cfg{std::move(c)}, w{wr}, distance{n == 0 ? 1 : n}, players{cfg.max_players}, isz{cfg.input_size},
          rec{players * (1u + isz)}, ring{std::size_t{distance} + 1u}, cap{std::size_t{distance} + 2u}, per_frame{1} {
        inputs.reset(cap, rec);
    }

    world_hashes &slot(std::uint32_t f, std::size_t s) { return first[(f % cap) * per_frame + s]; }

    /// Runs frame f; on the first run records hashes, on a re-run compares them.
    void run(std::uint32_t f, bool record) {
        const std::byte *r = inputs.get(f);
        const frame_inputs fi{f, players, isz, r};
        auto check = [&](std::size_t s, std::string_view name) {
            if (fail) return;
            if (record) {
                section_hashes(w, slot(f, s));
                return;
            }
            section_hashes(w, scratch);
            const world_hashes &want = slot(f, s);
            if (scratch.world == want.world) return;
            sync_test_failure x;
            x.frame = f;
            x.system = std::string(name);
            x.sections = scratch.diverging(want, w.get_schema());
            x.expected = want.world;
            x.actual = scratch.world;
            fail = std::move(x);
        };
        if (systems) {
            apply(w, fi);
            systems->run(w, [&](std::size_t i, std::string_view name) { check(i, name); });
        } else {
            step(w, fi);
            check(0, {});
        }
    }

    bool tick(std::span<const std::byte> in) {
        if (fail) return false;
        std::byte *r = inputs.put(current);
        for (std::size_t p = 0; p < players; ++p) r[p] = std::byte{static_cast<std::uint8_t>(slot_flags::present)};
        const std::size_t n = std::min(in.size(), players * isz);
        std::memcpy(r + players, in.data(), n);
        std::memset(r + players + n, 0, players * isz - n);
        ring.save(w, current);
        run(current, true);
        ++current;
        if (current < distance) return true;
        const std::uint32_t from = current - distance;
        if (auto res = ring.restore(w, from); !res) {
            fail = sync_test_failure{from, {}, {"cannot restore: " + res.message()}, 0, 0};
            return false;
        }
        resimulating = true;
        for (std::uint32_t f = from; f < current && !fail; ++f) {
            if (f != from) ring.save(w, f);
            run(f, false);
            ++resim;
        }
        resimulating = false;
        return !fail;
    }
};

sync_test::sync_test(session_config config, world &w, step_function step, std::uint32_t distance)
    : impl_{std::make_unique<impl>(std::move(config), w, distance)} {
    impl_->step = std::move(step);
    impl_->first.resize(impl_->cap);
}

sync_test::sync_test(session_config config, world &w, std::function<void(world &, const frame_inputs &)> apply_inputs,
                     const schedule &systems, std::uint32_t distance)
    : impl_{std::make_unique<impl>(std::move(config), w, distance)} {
    impl_->apply = std::move(apply_inputs);
    impl_->systems = &systems;
    impl_->per_frame = std::max<std::size_t>(systems.size(), 1u);
    impl_->first.resize(impl_->cap * impl_->per_frame);
}

sync_test::~sync_test() = default;
bool sync_test::tick(std::span<const std::byte> inputs) { return impl_->tick(inputs); }
const std::optional<sync_test_failure> &sync_test::failure() const noexcept { return impl_->fail; }
std::uint32_t sync_test::frame() const noexcept { return impl_->current; }
std::uint64_t sync_test::resimulated() const noexcept { return impl_->resim; }
bool sync_test::is_resimulating() const noexcept { return impl_->resimulating; }

} // namespace retcon
