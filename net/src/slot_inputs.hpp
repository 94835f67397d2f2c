#ifndef RETCON_NET_SRC_SLOT_INPUTS_HPP
#define RETCON_NET_SRC_SLOT_INPUTS_HPP

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
 * @brief The server's side of the input queue: each player slot's inputs as they arrive, and the
 * record the server confirms for each frame (docs/net.md, "The model" and "Prediction window
 * and substitution").
 *
 * A slot is in the game from the first frame its player sent an input for (a player still
 * loading its snapshot is not, so its missing inputs are not "replaced"). For a frame that is
 * due, a slot in the game gets the input that arrived, or a substitute predicted from its last
 * one by the `prediction_rule` and flagged `replaced`; a slot not in the game gets flags 0 and
 * zero input. Inputs are accepted up to `horizon` frames ahead of the next frame due. Sized once
 * (`reset`); no allocation after that.
 */
class slot_inputs {
public:
    /// @brief @p players slots of @p input_size bytes, accepting inputs up to @p horizon frames
    /// ahead; @p rule must outlive this object.
    void reset(std::size_t players, std::size_t input_size, std::size_t horizon, const prediction_rule &rule) {
        isz_ = input_size;
        rule_ = &rule;
        received_.resize(players);
        for (auto &r : received_) r.reset(horizon, input_size);
        last_.assign(players * input_size, std::byte{0});
        joined_.assign(players, no_frame);
    }

    /// @brief Slot @p slot has a new player: what the last one sent is forgotten, its last input
    /// is zero and it is not in the game until its first input.
    void assign(std::size_t slot) noexcept {
        received_[slot].clear();
        std::fill_n(last_.begin() + static_cast<std::ptrdiff_t>(slot * isz_), isz_, std::byte{0});
        joined_[slot] = no_frame;
    }

    /// @brief The player of @p slot sent inputs for frames from @p first on while the server is
    /// at frame @p next: the slot is in the game from the later of the two, unless it already is.
    void note_inputs(std::size_t slot, frame_t first, frame_t next) noexcept {
        if (joined_[slot] == no_frame) joined_[slot] = std::max(next, first);
    }

    /// @brief Keeps @p input for @p frame of @p slot unless one already arrived (the first copy
    /// wins: later copies are the client's redundancy). The caller accepts only frames that are
    /// not yet due and within the horizon.
    void receive(std::size_t slot, frame_t frame, const std::byte *input) noexcept {
        if (received_[slot].has(frame)) return;
        std::memcpy(received_[slot].put(frame), input, isz_);
    }

    /// @brief The first frame from @p from on for which @p slot has no input yet: what the
    /// server acknowledges.
    [[nodiscard]] frame_t first_missing(std::size_t slot, frame_t from) const noexcept {
        while (received_[slot].has(from)) ++from;
        return from;
    }

    /**
     * @brief Fills @p record for @p frame. `holder(slot)` gives the player holding the slot
     * (anything that tests false: nobody), asked only for slots in the game; `replaced(player)`
     * is called with it for each slot whose input is a substitute.
     */
    template<class Holder, class Replaced>
    void confirm(frame_t frame, const frame_record &record, Holder &&holder, Replaced &&replaced) {
        for (std::size_t s = 0; s < record.players(); ++s) {
            const std::span<std::byte> in = record.input(s);
            const std::span<std::byte> last{last_.data() + s * isz_, isz_};
            const auto player = joined_[s] == no_frame || frame < joined_[s] ? decltype(holder(s)){} : holder(s);
            if (!player) {
                record.clear(s);
                continue;
            }
            if (const std::byte *got = received_[s].get(frame)) {
                std::memcpy(in.data(), got, isz_);
                record.set_flags(s, slot_flags::present);
            } else {
                rule_->predict(last, in);
                record.set_flags(s, slot_flags::present | slot_flags::replaced);
                replaced(player);
            }
            std::memcpy(last.data(), in.data(), isz_);
        }
    }

private:
    std::size_t isz_ = 0;
    const prediction_rule *rule_ = nullptr;
    std::vector<frame_ring> received_; // per slot, keyed by frame
    std::vector<std::byte> last_;      // per slot: the input of its last confirmed frame
    std::vector<frame_t> joined_;      // per slot: first frame in the game (no_frame: not yet)
};

} // namespace retcon::internal

#endif
