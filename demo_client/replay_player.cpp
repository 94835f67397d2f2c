#include "replay_player.hpp"

#include <algorithm>

namespace retcon::demo {

result<std::unique_ptr<replay_player>> replay_player::open(const std::filesystem::path &path) {
    auto reader = replay_reader::open(path);
    if (!reader) return reader.err();
    return open(std::move(*reader));
}

result<std::unique_ptr<replay_player>> replay_player::open(replay_reader reader) {
    // Every keyframe is decoded and compared now, as the headless verifier does: a damaged file
    // is refused before anything is shown, and a seek never meets a keyframe it cannot restore.
    if (auto checked = reader.check(); !checked) return checked.err();
    std::unique_ptr<replay_player> p{new replay_player{std::move(reader)}};
    if (auto s = check_simulation(p->reader_.schema()); !s)
        return error{s.code(), p->reader_.name() + ": " + s.message()};
    if (p->world_.schema_hash() != p->reader_.schema().hash())
        return {errc::schema_mismatch, p->reader_.name() + " was recorded by another game build (schema differs)"};
    auto k = p->reader_.restore_keyframe(p->world_, p->reader_.start_frame());
    if (!k) return k.err();
    p->frame_ = *k;
    return p;
}

replay_player::replay_player(replay_reader reader)
    : reader_{std::move(reader)}, world_{make_schema()}, marks_(reader_.frame_count(), mark_t::unknown),
      checkpoints_(reader_.frame_count() / checkpoint_every + 1) {
    keyframes_.reserve(reader_.keyframes().size());
    for (const auto &k : reader_.keyframes()) keyframes_.push_back(k.frame);
}

void replay_player::mark(frame_t f, bool ok) noexcept {
    auto &m = marks_[f - reader_.start_frame()];
    const mark_t now = ok ? mark_t::verified : mark_t::mismatched;
    if (m == now) return;
    if (m == mark_t::verified) --verified_;
    if (m == mark_t::mismatched) --mismatched_;
    m = now;
    ++(ok ? verified_ : mismatched_);
}

bool replay_player::advance() {
    if (frame_ >= reader_.end_frame()) return false;
    game_.step(world_, reader_.inputs(frame_));
    mark(frame_, hash(world_) == reader_.hash(frame_));
    ++frame_;
    keep_checkpoint();
    return true;
}

void replay_player::simulate_unchecked() {
    game_.step(world_, reader_.inputs(frame_));
    ++frame_;
    keep_checkpoint();
}

void replay_player::drop_checkpoints() noexcept {
    for (auto &c : checkpoints_) c = world_image{};
    checkpoint_bytes_ = 0;
}

void replay_player::keep_checkpoint() {
    const frame_t since = frame_ - reader_.start_frame();
    if (since % checkpoint_every != 0) return;
    world_image &slot = checkpoints_[since / checkpoint_every];
    if (!slot.empty() || checkpoint_bytes_ >= max_checkpoint_bytes) return;
    save(world_, slot, frame_);
    checkpoint_bytes_ += slot.size();
}

result<void> replay_player::seek(frame_t target) {
    target = std::clamp(target, reader_.start_frame(), reader_.end_frame());
    owed_ = 0;
    // The nearest state at or before the target: the file's keyframe (the one seek index,
    // replay_reader::keyframe_at_or_before), a checkpoint after it, or where the player stands.
    const auto &ks = reader_.keyframes();
    const frame_t keyframe = ks[std::min(reader_.keyframe_at_or_before(target), ks.size() - 1)].frame;
    std::size_t j = (target - reader_.start_frame()) / checkpoint_every;
    while (j > 0 && checkpoints_[j].empty()) --j;
    const frame_t checkpoint = checkpoints_[j].empty() ? 0 : static_cast<frame_t>(checkpoints_[j].frame());
    if (frame_ <= target && frame_ >= keyframe && frame_ >= checkpoint) {
        // Where it stands is nearest: go on from here.
    } else if (!checkpoints_[j].empty() && checkpoint > keyframe) {
        if (auto r = restore(world_, checkpoints_[j]); !r) return r.err();
        frame_ = checkpoint;
    } else {
        auto k = reader_.restore_keyframe(world_, target);
        if (!k) return k.err();
        frame_ = *k;
    }
    // The frames in between are simulated without hashing: only the frame the seek lands after
    // is checked. Each hash costs a fifth of a step, and a seek re-simulates up to K - 1 frames.
    while (frame_ + 1 < target) simulate_unchecked();
    if (frame_ < target) advance();
    return {};
}

result<void> replay_player::seek_by(std::int64_t delta) {
    const auto lo = static_cast<std::int64_t>(reader_.start_frame());
    const auto hi = static_cast<std::int64_t>(reader_.end_frame());
    return seek(static_cast<frame_t>(std::clamp(static_cast<std::int64_t>(frame_) + delta, lo, hi)));
}

std::uint32_t replay_player::tick_hz() const noexcept {
    // The header's rate is informational (docs/file-format.md); a file that says 0 plays at 60.
    return reader_.settings().tick_hz == 0 ? 60 : reader_.settings().tick_hz;
}

std::uint32_t replay_player::play(double seconds) {
    if (paused_ || frame_ >= reader_.end_frame()) {
        owed_ = 0;
        return 0;
    }
    const double rate = tick_hz() * speed_;
    owed_ = std::min(owed_ + std::max(seconds, 0.0) * rate, rate / 4 + 1);
    std::uint32_t n = 0;
    while (owed_ >= 1 && advance()) {
        owed_ -= 1;
        ++n;
    }
    if (frame_ >= reader_.end_frame()) owed_ = 0;
    return n;
}

bool replay_player::step() { return paused_ && advance(); }

void replay_player::set_paused(bool paused) noexcept {
    paused_ = paused;
    owed_ = 0;
}

void replay_player::set_speed(double speed) noexcept { speed_ = std::clamp(speed, min_speed, max_speed); }

float replay_player::between() const noexcept { return static_cast<float>(std::clamp(owed_, 0.0, 1.0)); }

replay_status replay_player::status() const {
    replay_status s;
    s.frame = frame_;
    s.start = reader_.start_frame();
    s.end = reader_.end_frame();
    s.speed = speed_;
    s.paused = paused_;
    s.verified = verified_;
    s.mismatched = mismatched_;
    if (mismatched_ != 0) {
        const auto first = std::find(marks_.begin(), marks_.end(), mark_t::mismatched);
        s.first_mismatch = s.start + static_cast<frame_t>(first - marks_.begin());
    }
    s.complete = reader_.complete();
    s.truncation_note = reader_.truncation_note();
    return s;
}

} // namespace retcon::demo
