#ifndef RETCON_ECS_FRAME_HPP
#define RETCON_ECS_FRAME_HPP

// One frame of every player's input: the vocabulary that sessions, the sync test, replay files
// and verification share (docs/frames.md).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include <retcon/config.hpp>

#include "error.hpp"
#include "type_info.hpp"

namespace retcon {

/**
 * @brief A frame number: the index of a fixed simulation step, counted from 0 at the start of
 * a match.
 *
 * 32 bits: 2^32 − 1 frames last 828 days at 60 Hz (207 days at 240 Hz), far beyond any match,
 * while keeping input records, rings and wire messages compact. Nothing wraps: a session
 * refuses to run past `max_frame` and replay files, which store 64-bit frame numbers, are
 * converted with `to_frame` (a stored number above `max_frame` is corruption). The wire
 * carries the same 32 bits.
 */
using frame_t = std::uint32_t;
/// @brief "No frame" (an empty ring slot, nothing confirmed yet).
inline constexpr frame_t no_frame = ~frame_t{0};
/// @brief The last frame a match can simulate.
inline constexpr frame_t max_frame = no_frame - 1u;

/// @brief Converts a stored (64-bit) frame number, refusing one no match can reach.
[[nodiscard]] inline result<frame_t> to_frame(std::uint64_t stored) noexcept {
    if (stored > max_frame) return error{errc::corrupt, "frame number beyond the 32-bit frame range"};
    return static_cast<frame_t>(stored);
}

/// @brief What the confirmed stream says about one player's slot in one frame. The server sets
/// them; every peer, the sync test and replay files see the same bits.
enum class slot_flags : std::uint8_t {
    none = 0,
    present = 1,  ///< the slot is occupied this frame (joins and leaves are confirmed inputs)
    replaced = 2, ///< the server substituted this input (it came late or not at all)
};
/// @brief Union of two flag sets.
[[nodiscard]] constexpr slot_flags operator|(slot_flags a, slot_flags b) noexcept {
    return static_cast<slot_flags>(static_cast<std::uint8_t>(a) | static_cast<std::uint8_t>(b));
}
/// @brief True if every bit of @p bit is set in @p flags.
[[nodiscard]] constexpr bool has(slot_flags flags, slot_flags bit) noexcept {
    return (static_cast<std::uint8_t>(flags) & static_cast<std::uint8_t>(bit)) == static_cast<std::uint8_t>(bit);
}
/// @brief The flag bits a valid record may carry (anything else is corruption).
inline constexpr std::uint8_t slot_flags_mask = 3u;
/// @brief True if @p flags carries no bits beyond present and replaced.
[[nodiscard]] constexpr bool known_flags(slot_flags flags) noexcept {
    return (static_cast<std::uint8_t>(flags) & ~slot_flags_mask) == 0;
}

/**
 * @brief Bytes of one frame's input *record*: a flag byte per player slot, then each slot's
 * input of @p input_size bytes (docs/frames.md). The one place this size is spelled: sessions,
 * the wire, replay files and the C API all size records with it.
 */
[[nodiscard]] constexpr std::size_t input_record_size(std::size_t players, std::size_t input_size) noexcept {
    return players * (1u + input_size);
}

/**
 * @brief Every player's input for one frame, as handed to the game's step: a read-only view
 * over one *record* — `players` flag bytes followed by `players × input_size` input bytes.
 *
 * This is exactly the confirmed stream's bits: the same on the server, every client, in the
 * sync test and in replay files. Whether a frame is being predicted is session metadata
 * (`is_resimulating()`, `confirmed_frame()`, `is_predicted(frame, slot)`), never part of it.
 */
class frame_inputs {
public:
    /// @brief Bytes of one record (input_record_size).
    [[nodiscard]] static constexpr std::size_t record_size(std::size_t players, std::size_t input_size) noexcept {
        return input_record_size(players, input_size);
    }

    /// @brief A view of @p record (record_size(players, input_size) bytes) for frame @p frame.
    frame_inputs(frame_t frame, std::size_t players, std::size_t input_size, const std::byte *record) noexcept
        : frame_{frame}, players_{players}, input_size_{input_size}, record_{record} {}

    /// @brief The frame being simulated.
    [[nodiscard]] frame_t frame() const noexcept { return frame_; }
    /// @brief Number of player slots.
    [[nodiscard]] std::size_t players() const noexcept { return players_; }
    /// @brief Bytes of one player's input.
    [[nodiscard]] std::size_t input_size() const noexcept { return input_size_; }
    /// @brief The flags of @p slot.
    [[nodiscard]] slot_flags flags(std::size_t slot) const {
        check_slot(slot);
        return static_cast<slot_flags>(record_[slot]);
    }
    /// @brief True if @p slot is occupied this frame.
    [[nodiscard]] bool present(std::size_t slot) const { return has(flags(slot), slot_flags::present); }
    /// @brief True if the server substituted this input (it came late or not at all).
    [[nodiscard]] bool replaced(std::size_t slot) const { return has(flags(slot), slot_flags::replaced); }
    /// @brief The raw input bytes of @p slot.
    [[nodiscard]] std::span<const std::byte> input(std::size_t slot) const {
        check_slot(slot);
        return {record_ + players_ + slot * input_size_, input_size_};
    }
    /// @brief The input of @p slot as the game's type. `sizeof(T)` must equal the input size:
    /// a mismatch is misuse (reported, never a silent partial read).
    template<class T>
    [[nodiscard]] T get(std::size_t slot) const {
        static_assert(std::is_trivially_copyable_v<T>,
                      "retcon: frame_inputs::get<T> needs a trivially copyable input type");
        if (sizeof(T) != input_size_)
            internal::misuse("frame_inputs::get<T>: sizeof(T) is %zu but the session's input size is %zu bytes",
                             sizeof(T), input_size_);
        T v;
        std::memcpy(&v, input(slot).data(), sizeof(T));
        return v;
    }
    /// @brief The first slot whose flags carry bits beyond present and replaced, or players() if
    /// every slot's flags are known (readers of files and callers that fill records check this).
    [[nodiscard]] std::size_t first_unknown_flags() const noexcept {
        std::size_t slot = 0;
        while (slot < players_ && known_flags(static_cast<slot_flags>(record_[slot]))) ++slot;
        return slot;
    }
    /// @brief The whole record (flags then inputs): what is recorded, compared and hashed.
    [[nodiscard]] std::span<const std::byte> record() const noexcept {
        return {record_, record_size(players_, input_size_)};
    }

private:
    void check_slot(std::size_t slot) const {
        if (slot >= players_) internal::misuse("frame_inputs: slot %zu is out of range (%zu slots)", slot, players_);
    }

    frame_t frame_;
    std::size_t players_;
    std::size_t input_size_;
    const std::byte *record_;
};

/**
 * @brief A writable view over one frame's record (input_record_size(players, input_size)
 * bytes), for code that fills records: a session's prediction, the server's substitution,
 * frame_inputs_buffer. The layout is frame_inputs's; this view only adds writing.
 *
 * Flags are written as given (callers copy flags that came from a checked record, or set
 * slot_flags values); a slot out of range is misuse, reported in every build.
 */
class frame_record {
public:
    /// @brief A view of @p record: @p players flag bytes, then @p players inputs of @p input_size bytes.
    frame_record(std::size_t players, std::size_t input_size, std::byte *record) noexcept
        : players_{players}, input_size_{input_size}, record_{record} {}

    /// @brief Number of player slots.
    [[nodiscard]] std::size_t players() const noexcept { return players_; }
    /// @brief Bytes of one player's input.
    [[nodiscard]] std::size_t input_size() const noexcept { return input_size_; }
    /// @brief The flags of @p slot.
    [[nodiscard]] slot_flags flags(std::size_t slot) const {
        check_slot(slot);
        return static_cast<slot_flags>(record_[slot]);
    }
    /// @brief Sets the flags of @p slot.
    void set_flags(std::size_t slot, slot_flags flags) const {
        check_slot(slot);
        record_[slot] = static_cast<std::byte>(flags);
    }
    /// @brief The input bytes of @p slot, writable.
    [[nodiscard]] std::span<std::byte> input(std::size_t slot) const {
        check_slot(slot);
        return {record_ + players_ + slot * input_size_, input_size_};
    }
    /// @brief Marks @p slot absent, its input zero.
    void clear(std::size_t slot) const {
        check_slot(slot);
        record_[slot] = std::byte{0};
        std::memset(record_ + players_ + slot * input_size_, 0, input_size_);
    }
    /// @brief The whole record (flags then inputs).
    [[nodiscard]] std::span<std::byte> record() const noexcept {
        return {record_, input_record_size(players_, input_size_)};
    }
    /// @brief The record read-only, as the step sees it for frame @p frame.
    [[nodiscard]] frame_inputs view(frame_t frame) const noexcept { return {frame, players_, input_size_, record_}; }

private:
    void check_slot(std::size_t slot) const {
        if (slot >= players_) internal::misuse("frame_record: slot %zu is out of range (%zu slots)", slot, players_);
    }

    std::size_t players_;
    std::size_t input_size_;
    std::byte *record_;
};

/**
 * @brief Owns one frame's record, for code that builds inputs itself (the sync test, tools,
 * tests). Allocates once, at construction.
 *
 * @code
 * retcon::frame_inputs_buffer in{2, sizeof(Input)};
 * in.set(0, Input{.turn = 1});        // slot 0 present with this input
 * in.clear(1);                        // slot 1 absent
 * step(world, in.view(frame));
 * @endcode
 */
class frame_inputs_buffer {
public:
    /// @brief A record for @p players slots of @p input_size bytes each, every slot absent and zero.
    frame_inputs_buffer(std::size_t players, std::size_t input_size)
        : players_{players}, input_size_{input_size}, bytes_(input_record_size(players, input_size)) {}

    /// @brief Number of player slots.
    [[nodiscard]] std::size_t players() const noexcept { return players_; }
    /// @brief Bytes of one player's input.
    [[nodiscard]] std::size_t input_size() const noexcept { return input_size_; }

    /// @brief Sets @p slot's input (sizeof(T) must equal the input size) and flags.
    template<class T>
    void set(std::size_t slot, const T &input, slot_flags flags = slot_flags::present) {
        static_assert(std::is_trivially_copyable_v<T>, "retcon: inputs must be trivially copyable");
        if (sizeof(T) != input_size_)
            internal::misuse("frame_inputs_buffer::set: sizeof(T) is %zu but the input size is %zu bytes", sizeof(T),
                             input_size_);
        set_bytes(slot, {reinterpret_cast<const std::byte *>(&input), sizeof(T)}, flags);
    }
    /// @brief Sets @p slot's raw input (exactly input_size bytes) and flags (only the bits of
    /// slot_flags_mask; others are misuse).
    void set_bytes(std::size_t slot, std::span<const std::byte> input, slot_flags flags = slot_flags::present) {
        check_slot(slot);
        if (input.size() != input_size_)
            internal::misuse("frame_inputs_buffer::set_bytes: %zu bytes given, the input size is %zu", input.size(),
                             input_size_);
        if (!known_flags(flags))
            internal::misuse("frame_inputs_buffer::set_bytes: flags 0x%x carry bits outside slot_flags",
                             static_cast<unsigned>(flags));
        const frame_record r = writable();
        r.set_flags(slot, flags);
        std::memcpy(r.input(slot).data(), input.data(), input_size_);
    }
    /// @brief Marks @p slot absent, its input zero.
    void clear(std::size_t slot) {
        check_slot(slot);
        writable().clear(slot);
    }
    /// @brief The record as a writable view (valid while this buffer lives).
    [[nodiscard]] frame_record writable() noexcept { return {players_, input_size_, bytes_.data()}; }
    /// @brief A view for frame @p frame (valid while this buffer lives and is not changed).
    [[nodiscard]] frame_inputs view(frame_t frame) const noexcept {
        return {frame, players_, input_size_, bytes_.data()};
    }
    /// @brief The record bytes.
    [[nodiscard]] std::span<std::byte> record() noexcept { return bytes_; }
    /// @copydoc record
    [[nodiscard]] std::span<const std::byte> record() const noexcept { return bytes_; }

private:
    void check_slot(std::size_t slot) const {
        if (slot >= players_)
            internal::misuse("frame_inputs_buffer: slot %zu is out of range (%zu slots)", slot, players_);
    }

    std::size_t players_;
    std::size_t input_size_;
    std::vector<std::byte> bytes_;
};

/**
 * @brief How a missing input is filled in: the server's substitution of a late input and a
 * client's prediction of a remote one use the same rule, so both guess the same bytes.
 *
 * The rule repeats the player's last input, except the bytes marked "do not repeat"
 * (edge-triggered actions such as fire), which become 0.
 *
 * @code
 * config.prediction.no_repeat<Input>("fire");   // or: prediction_rule::repeat_last().no_repeat<Input>("fire")
 * @endcode
 */
class prediction_rule {
public:
    /// @brief Repeat the last input, every byte.
    [[nodiscard]] static prediction_rule repeat_last() { return {}; }

    /// @brief Also clear the bytes of field @p field of Input (a name from its
    /// RETCON_COMPONENT declaration); an unknown name is misuse.
    template<class Input>
    prediction_rule &no_repeat(std::string_view field) {
        for (const field_info &f : type_info_of<Input>().fields)
            if (f.name == field) return no_repeat_bytes(f.offset, f.size);
        internal::misuse("prediction_rule::no_repeat: %.*s has no field '%.*s'",
                         static_cast<int>(type_info_of<Input>().name.size()), type_info_of<Input>().name.data(),
                         static_cast<int>(field.size()), field.data());
    }
    /// @brief Also clear @p count bytes at @p offset.
    prediction_rule &no_repeat_bytes(std::size_t offset, std::size_t count) {
        if (mask_.size() < offset + count) mask_.resize(offset + count, 0);
        for (std::size_t i = 0; i < count; ++i) mask_[offset + i] = 1;
        return *this;
    }
    /// @brief Per input byte, non-zero where the byte is not repeated.
    [[nodiscard]] std::span<const std::uint8_t> mask() const noexcept { return mask_; }

    /// @brief Fills @p out with the guess that follows @p last.
    void predict(std::span<const std::byte> last, std::span<std::byte> out) const noexcept {
        for (std::size_t i = 0; i < out.size(); ++i)
            out[i] = (i < mask_.size() && mask_[i] != 0) ? std::byte{0} : (i < last.size() ? last[i] : std::byte{0});
    }

private:
    std::vector<std::uint8_t> mask_;
};

} // namespace retcon

#endif
