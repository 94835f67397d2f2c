#ifndef RETCON_NET_SESSION_CONFIG_HPP
#define RETCON_NET_SESSION_CONFIG_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <type_traits>
#include <vector>

#include <retcon/ecs/schema.hpp>
#include <retcon/ecs/world.hpp>

namespace retcon {

/**
 * @brief The settings a server and its clients must agree on (checked in the handshake) plus
 * each side's local tuning. Build one with `make_session_config<Input>()`.
 */
struct session_config {
    std::uint16_t tick_hz = 60;         ///< fixed simulation rate (must match)
    std::uint8_t max_players = 2;       ///< player slots (must match)
    std::uint16_t input_size = 4;       ///< bytes of one player's input (must match)
    std::uint64_t input_layout_hash = 0;///< layout of the input type (must match)
    std::uint64_t content_version = 0;  ///< the game's own content/version number (must match)
    /// @brief Per byte of input: non-zero means "do not repeat" (edge-triggered actions such as
    /// fire): when a late input is substituted or a remote input predicted, those bytes are 0.
    std::vector<std::uint8_t> no_repeat_mask;
    std::uint8_t input_delay = 2;          ///< frames between sampling a local input and its frame (the minimum when adaptive)
    /// @brief If above input_delay, the client's delay adapts to half the measured round trip,
    /// between the two, one frame per second at most (local; the server needs no change).
    std::uint8_t max_input_delay = 0;
    std::uint32_t prediction_window = 16;  ///< frames a client may run ahead of confirmed inputs
    std::uint32_t checksum_interval = 1;   ///< compare world hashes every Nth confirmed frame (0: never)
    std::uint32_t interrupt_ms = 500;      ///< silence before "network interrupted"
    std::uint32_t disconnect_ms = 5000;    ///< silence before "disconnected"
};

/// @brief A config for input type Input (trivially copyable; declared with RETCON_COMPONENT so
/// its field table defines the layout hash).
template<class Input>
session_config make_session_config(std::uint8_t max_players, std::uint16_t tick_hz = 60) {
    static_assert(std::is_trivially_copyable_v<Input>, "retcon: the input type must be trivially copyable");
    session_config c;
    c.tick_hz = tick_hz;
    c.max_players = max_players;
    c.input_size = static_cast<std::uint16_t>(sizeof(Input));
    schema layout;
    layout.resource<Input>();
    c.input_layout_hash = layout.hash();
    return c;
}

/// @brief Per-player flags in the confirmed stream.
enum class slot_flags : std::uint8_t { none = 0, present = 1, replaced = 2 };

/**
 * @brief Every player's input for one frame, as handed to the game's step function.
 */
class frame_inputs {
public:
    frame_inputs(std::uint32_t frame, std::size_t players, std::size_t input_size, const std::byte *flags,
                 const std::byte *inputs) noexcept
        : frame_{frame}, players_{players}, input_size_{input_size}, flags_{flags}, inputs_{inputs} {}

    /// @brief The frame being simulated.
    [[nodiscard]] std::uint32_t frame() const noexcept { return frame_; }
    /// @brief Number of player slots.
    [[nodiscard]] std::size_t players() const noexcept { return players_; }
    /// @brief True if slot @p slot is occupied this frame (part of the confirmed input, so
    /// every peer agrees on joins and leaves).
    [[nodiscard]] bool present(std::size_t slot) const noexcept {
        return (static_cast<std::uint8_t>(flags_[slot]) & static_cast<std::uint8_t>(slot_flags::present)) != 0;
    }
    /// @brief True if the server substituted this input (it came late or not at all).
    [[nodiscard]] bool replaced(std::size_t slot) const noexcept {
        return (static_cast<std::uint8_t>(flags_[slot]) & static_cast<std::uint8_t>(slot_flags::replaced)) != 0;
    }
    /// @brief The raw input bytes of @p slot.
    [[nodiscard]] std::span<const std::byte> input(std::size_t slot) const noexcept {
        return {inputs_ + slot * input_size_, input_size_};
    }
    /// @brief The input of @p slot as the game's type (sizeof(T) must equal the input size).
    template<class T>
    [[nodiscard]] T get(std::size_t slot) const noexcept {
        T v{};
        std::memcpy(&v, inputs_ + slot * input_size_, sizeof(T) < input_size_ ? sizeof(T) : input_size_);
        return v;
    }

private:
    std::uint32_t frame_;
    std::size_t players_;
    std::size_t input_size_;
    const std::byte *flags_;
    const std::byte *inputs_;
};

/// @brief The game's deterministic step: simulate one frame. It may only change @p w.
using step_function = std::function<void(world &w, const frame_inputs &inputs)>;

namespace internal {
/// @brief The prediction / substitution rule shared by server and client: repeat @p last with
/// the do-not-repeat bytes cleared.
inline void predict_input(std::span<const std::byte> last, std::span<const std::uint8_t> mask, std::span<std::byte> out) {
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = (i < mask.size() && mask[i] != 0) ? std::byte{0} : (i < last.size() ? last[i] : std::byte{0});
}
} // namespace internal

} // namespace retcon

#endif
