#ifndef RETCON_NET_SRC_INPUT_QUEUE_HPP
#define RETCON_NET_SRC_INPUT_QUEUE_HPP

#include <retcon/ecs/frame.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

#include "frame_ring.hpp"

namespace retcon::internal {

/**
 * @brief A client's inputs, frame by frame (docs/net.md, "The model" and "Input delay"):
 *
 * - **confirmed**: the server's record of each frame (a flag byte per slot, then each slot's
 *   input), as the `confirmed` stream delivers it, in any order;
 * - **used**: the record each frame was last simulated with — confirmed where known, otherwise
 *   predicted slot by slot: the local player's own input, every other slot guessed from its last
 *   confirmed input by the `prediction_rule` (and its presence carried over);
 * - **local**: the local player's inputs, kept and resent on every input message until the
 *   server acknowledges them (redundancy covers lost packets).
 *
 * A confirmed record that differs from the used one marks the first wrong frame, where the
 * next rollback starts. Sized once per match (`reset`); no allocation after that.
 */
class input_queue {
public:
    /// @brief Sizes the queue for @p players slots of @p input_size bytes, holding @p capacity
    /// frames; @p slot is the local player's (-1: a spectator, no local inputs). @p rule must
    /// outlive the queue.
    void reset(std::size_t players, std::size_t input_size, std::size_t capacity, int slot,
               const prediction_rule &rule) {
        players_ = players;
        isz_ = input_size;
        rec_ = input_record_size(players, input_size);
        slot_ = slot;
        rule_ = &rule;
        confirmed_.reset(capacity, rec_);
        used_.reset(capacity, rec_);
        local_.reset(capacity, isz_);
        last_confirmed_.assign(rec_, std::byte{0});
    }

    /// @brief Starts over at @p frame (a snapshot was loaded): nothing confirmed, used or local
    /// is kept; the first local input is for @p first_local (the frame plus the input delay).
    void restart(frame_t frame, frame_t first_local) noexcept {
        confirmed_.clear();
        used_.clear();
        local_.clear();
        confirmed_end_ = frame;
        sync_frame_ = frame;
        local_next_ = first_local;
        acknowledged_ = 0;
        first_wrong_ = no_frame;
        // Until the first confirmed frame, predictions start from zero inputs, as in a new
        // match: the bytes before the snapshot belong to another moment of the game.
        std::fill(last_confirmed_.begin(), last_confirmed_.end(), std::byte{0});
        have_last_confirmed_ = false;
    }

    [[nodiscard]] std::size_t players() const noexcept { return players_; }
    [[nodiscard]] std::size_t input_size() const noexcept { return isz_; }
    /// @brief Bytes of one frame's record.
    [[nodiscard]] std::size_t record_size() const noexcept { return rec_; }

    // ------------------------------------------------------------------ local inputs
    /// @brief Records @p input (truncated or zero-padded to the input size) for every frame
    /// from the next unrecorded one through @p last. After an input delay increase this fills
    /// the gap with the same input; after a decrease it records nothing (the frame already has
    /// one).
    void add_local(frame_t last, std::span<const std::byte> input) noexcept {
        for (; local_next_ <= last; ++local_next_) {
            std::byte *dst = local_.put(local_next_);
            const std::size_t n = std::min(isz_, input.size());
            if (n != 0) std::memcpy(dst, input.data(), n); // an empty span's data() may be null
            std::memset(dst + n, 0, isz_ - n);
        }
    }
    /// @brief The local input recorded for @p frame, or null.
    [[nodiscard]] const std::byte *local(frame_t frame) const noexcept { return local_.get(frame); }
    /// @brief The first frame without a local input yet.
    [[nodiscard]] frame_t local_end() const noexcept { return local_next_; }

    /// @brief The server has every local input before @p frame.
    void acknowledge(frame_t frame) noexcept { acknowledged_ = std::max(acknowledged_, frame); }

    /**
     * @brief The local inputs the server has not acknowledged, oldest first, at most
     * @p max_frames of the newest: their bytes go to @p out, the first frame to @p first, and
     * the count is returned. A frame no longer held ends the window before it. Acknowledged
     * past the newest input, the window is that input alone (see below).
     */
    std::uint32_t unacknowledged(std::uint32_t max_frames, std::vector<std::byte> &out, frame_t &first) const {
        const frame_t end = local_next_;
        first = std::max(acknowledged_, sync_frame_);
        // The server acknowledges every frame already due, sent or not: an acknowledgement past
        // our newest input means we run behind it (a snapshot that loaded late). That input
        // still goes, late: only an input puts the slot in the game and gives the server the
        // arrival margin time sync catches up on (docs/net.md, "Time sync").
        if (acknowledged_ > end && end > sync_frame_) first = end - 1u;
        if (end > max_frames && first < end - max_frames) first = end - max_frames;
        out.clear();
        std::uint32_t count = 0;
        for (frame_t f = first; f < end; ++f) {
            const std::byte *in = local_.get(f);
            if (!in) { // not held any more: start after it
                out.clear();
                count = 0;
                first = f + 1u;
                continue;
            }
            out.insert(out.end(), in, in + isz_);
            ++count;
        }
        return count;
    }

    // ------------------------------------------------------------------ confirmed inputs
    /// @brief What `confirm` did with a record.
    enum class arrival : std::uint8_t { stored, known, too_far };

    /**
     * @brief Stores the server's @p record of @p frame (a record of `record_size()` bytes). A
     * frame already confirmed is `known`; one too far ahead of the confirmed end to hold is
     * `too_far` (a later packet repeats it). A frame before @p simulated_end (frames the client
     * already simulated) whose record differs from the one it used becomes the first wrong
     * frame, unless an earlier frame already is.
     */
    arrival confirm(frame_t frame, const std::byte *record, frame_t simulated_end) noexcept {
        if (frame < confirmed_end_ || confirmed_.has(frame)) return arrival::known;
        if (frame >= confirmed_end_ + confirmed_.capacity() - 8u) return arrival::too_far;
        std::byte *dst = confirmed_.put(frame);
        std::memcpy(dst, record, rec_);
        if (frame < simulated_end) {
            const std::byte *u = used_.get(frame);
            if (!u || std::memcmp(u, dst, rec_) != 0) first_wrong_ = std::min(first_wrong_, frame);
        }
        return arrival::stored;
    }

    /// @brief Moves the confirmed end over every frame now confirmed without a gap, calling
    /// `on_frame(frame, record)` for each in order, and remembers the newest record as the
    /// source of predictions.
    template<class OnFrame>
    void advance_confirmed(OnFrame &&on_frame) {
        for (; confirmed_.has(confirmed_end_); ++confirmed_end_)
            on_frame(confirmed_end_, confirmed_.get(confirmed_end_));
        if (confirmed_end_ > 0 && confirmed_.has(confirmed_end_ - 1u)) {
            std::memcpy(last_confirmed_.data(), confirmed_.get(confirmed_end_ - 1u), rec_);
            have_last_confirmed_ = true;
        }
    }

    /// @brief Every frame before this one is confirmed.
    [[nodiscard]] frame_t confirmed_end() const noexcept { return confirmed_end_; }
    /// @brief The confirmed record of @p frame, or null if not (or no longer) held.
    [[nodiscard]] const std::byte *confirmed(frame_t frame) const noexcept { return confirmed_.get(frame); }
    /// @brief True if @p frame's record is held as confirmed (possibly past a gap).
    [[nodiscard]] bool is_confirmed(frame_t frame) const noexcept { return confirmed_.has(frame); }

    /// @brief The earliest frame whose confirmed record differs from the one simulated, or
    /// `no_frame`; the queue forgets it (the caller rolls back to it).
    [[nodiscard]] frame_t take_first_wrong() noexcept { return std::exchange(first_wrong_, no_frame); }

    // ------------------------------------------------------------------ simulation
    /// @brief The record frame @p frame is simulated with, remembered as used: the confirmed
    /// one if known, otherwise a prediction. Valid until @p frame's slot is reused.
    const std::byte *inputs_for(frame_t frame) noexcept {
        std::byte *r = used_.put(frame);
        if (const std::byte *c = confirmed_.get(frame)) std::memcpy(r, c, rec_);
        else
            predict(frame, r);
        return r;
    }

private:
    void predict(frame_t frame, std::byte *record) const {
        const frame_record out{players_, isz_, record};
        const frame_inputs last{frame, players_, isz_, last_confirmed_.data()};
        for (std::size_t p = 0; p < players_; ++p) {
            const std::span<std::byte> in = out.input(p);
            if (static_cast<int>(p) == slot_) {
                out.set_flags(p, slot_flags::present);
                if (const std::byte *mine = local_.get(frame)) std::memcpy(in.data(), mine, isz_);
                else
                    rule_->predict(last.input(p), in);
            } else {
                // Presence carries over from the last confirmed frame; nothing else of its flags.
                out.set_flags(p, have_last_confirmed_ && last.present(p) ? slot_flags::present : slot_flags::none);
                rule_->predict(last.input(p), in);
            }
        }
    }

    std::size_t players_ = 0, isz_ = 0, rec_ = 0;
    int slot_ = -1;
    const prediction_rule *rule_ = nullptr;
    frame_ring confirmed_, used_, local_;
    std::vector<std::byte> last_confirmed_; // record of confirmed_end_ - 1: the prediction source
    bool have_last_confirmed_ = false;
    frame_t confirmed_end_ = 0;
    frame_t sync_frame_ = 0; // the frame of the last snapshot: nothing before it is sent
    frame_t local_next_ = 0;
    frame_t acknowledged_ = 0; // the server holds every local input before this
    frame_t first_wrong_ = no_frame;
};

} // namespace retcon::internal

#endif
