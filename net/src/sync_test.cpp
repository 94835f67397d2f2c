#include <retcon/net/sync_test.hpp>

#include <retcon/ecs/entity.hpp>
#include <retcon/snapshot/diff.hpp>
#include <retcon/snapshot/hash.hpp>
#include <retcon/snapshot/image.hpp>

#include "config_check.hpp"
#include "forensics.hpp"
#include "frame_ring.hpp"
#include "rollback.hpp"

namespace retcon {

namespace {

std::string join(const std::vector<std::string> &v, const char *sep) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
    return s;
}

} // namespace

std::string sync_test_failure::describe() const {
    std::string s = "frame " + std::to_string(frame);
    if (!stage.empty()) s += ", stage '" + stage + "'";
    s += ": ";
    if (!fields.empty()) {
        s += join(fields, "; ");
        if (!sections.empty()) s += " (sections " + join(sections, ", ") + ")";
    } else if (!sections.empty()) {
        s += "sections " + join(sections, ", ");
    } else {
        s += "world hash differs";
    }
    return s;
}

struct sync_test::impl {
    session_config cfg;
    world &w;
    step_function step;
    frame_t distance;
    std::size_t players, isz, rec, stages;
    internal::rollback rollback;
    internal::frame_ring inputs;
    std::size_t cap;
    // First-run hashes: per frame (slot f % cap), one world_hashes per stage.
    std::vector<world_hashes> first;
    world_hashes scratch;
    frame_t current = 0;
    std::uint64_t resim = 0;
    std::optional<sync_test_failure> fail;
    std::optional<world_image> resimulated_world; // at the failing stage (failure path only)

    impl(session_config c, world &wr, step_function s, frame_t n)
        : cfg{std::move(c)}, w{wr}, step{std::move(s)}, distance{n == 0 ? frame_t{1} : n}, players{cfg.max_players},
          isz{cfg.input_size}, rec{input_record_size(players, isz)}, stages{step.stages()},
          rollback{std::size_t{distance} + 1u}, cap{std::size_t{distance} + 2u} {
        internal::check_config(cfg);
        if (!step) internal::misuse("sync_test: the step_function is empty (default-constructed)");
        inputs.reset(cap, rec);
        first.resize(cap * stages);
    }

    world_hashes &slot(frame_t f, std::size_t s) { return first[(f % cap) * stages + s]; }

    /// Runs frame f; on the first run records every stage's hashes, on a re-run compares them
    /// and, at the first mismatch, records the failure and saves the re-simulated world.
    void run(frame_t f, bool record) {
        const frame_inputs fi{f, players, isz, inputs.get(f)};
        step.run(w, fi, [&](std::size_t s, std::string_view name) {
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
            x.stage_index = s;
            x.stage = std::string(name);
            x.sections = scratch.diverging(want, w.get_schema());
            x.expected = want.world;
            x.actual = scratch.world;
            fail = std::move(x);
            resimulated_world = save(w, f);
        });
    }

    /// Failure path: replays frame f's stages [0, k] as a first run and names the entities and
    /// fields that differ from the re-simulation (docs/net.md, "Sync test").
    void forensics() {
        sync_test_failure &x = *fail;
        if (auto r = rollback.restore(w, x.frame); !r) {
            x.fields.push_back("not replayed: " + r.message());
            return;
        }
        const frame_inputs fi{x.frame, players, isz, inputs.get(x.frame)};
        step.run_stages(w, fi, x.stage_index + 1u); // a first run again: not re-simulating
        const world_image replay = save(w, x.frame);
        auto d = diff(replay, w.get_schema(), *resimulated_world, w.get_schema());
        if (!d) x.fields.push_back("not compared: " + d.message());
        else
            x.fields = internal::name_divergence(*d, "the first run", "the re-simulation").lines;
        resimulated_world.reset();
    }

    bool advance() {
        if (current == no_frame)
            internal::misuse("sync_test::tick: frame %u is the last a match can simulate", max_frame);
        rollback.save(w, current);
        run(current, true);
        ++current;
        if (current < distance) return true;
        // The client's rollback, every tick: restore `distance` frames back, re-simulate.
        const frame_t from = current - distance;
        const auto done = rollback.resimulate(w, from, current, [this](frame_t f) {
            run(f, false);
            return !fail;
        });
        if (!done) {
            fail = sync_test_failure{from, 0, {}, {}, {"not restored from the snapshot ring: " + done.message()}, 0, 0};
            return false;
        }
        resim += *done;
        if (fail) forensics();
        return !fail;
    }
};

sync_test::sync_test(session_config config, world &w, step_function step, frame_t distance)
    : impl_{std::make_unique<impl>(std::move(config), w, std::move(step), distance)} {}

sync_test::~sync_test() = default;

bool sync_test::tick(const frame_inputs_buffer &in) {
    impl &m = *impl_;
    if (in.players() != m.players || in.input_size() != m.isz)
        internal::misuse(
            "sync_test::tick: inputs for %zu players of %zu bytes, the config has %zu players of %zu bytes",
            in.players(), in.input_size(), m.players, m.isz);
    const frame_inputs view = in.view(m.current);
    const auto record = view.record();
    if (const std::size_t p = view.first_unknown_flags(); p != m.players)
        internal::misuse("sync_test::tick: slot %zu has flag bits 0x%02x beyond present and replaced", p,
                         static_cast<unsigned>(record[p]));
    if (m.fail) return false;
    std::memcpy(m.inputs.put(m.current), record.data(), m.rec);
    return m.advance();
}

bool sync_test::tick_all_present(const std::byte *in, std::size_t count, std::size_t input_size) {
    impl &m = *impl_;
    if (input_size != m.isz)
        internal::misuse("sync_test::tick: sizeof(Input) is %zu but the config's input size is %zu bytes", input_size,
                         m.isz);
    if (count != m.players)
        internal::misuse("sync_test::tick: %zu inputs given, the config has %zu players", count, m.players);
    if (m.fail) return false;
    const frame_record r{m.players, m.isz, m.inputs.put(m.current)};
    for (std::size_t p = 0; p < m.players; ++p) {
        r.set_flags(p, slot_flags::present);
        std::memcpy(r.input(p).data(), in + p * m.isz, m.isz); // the inputs are contiguous, as in a record
    }
    return m.advance();
}

const std::optional<sync_test_failure> &sync_test::failure() const noexcept { return impl_->fail; }
frame_t sync_test::frame() const noexcept { return impl_->current; }
std::uint64_t sync_test::resimulated() const noexcept { return impl_->resim; }
bool sync_test::is_resimulating() const noexcept { return impl_->rollback.is_resimulating(); }

} // namespace retcon
