#ifndef RETCON_DEMO_TERMINAL_HPP
#define RETCON_DEMO_TERMINAL_HPP

#include <cstdint>
#include <string>

namespace retcon::demo {

/// @brief Keys the demo understands, decoded from the terminal's byte stream.
enum class key : std::uint8_t {
    none,
    left,
    right,
    up,
    down,
    fire,
    quit,
    pause,
    step,
    faster,
    slower,
    seek_back,
    seek_fwd
};

/**
 * @brief Raw-mode terminal for the demo: alternate screen, hidden cursor, non-blocking keys.
 * The previous terminal state is restored by the destructor, at exit and on SIGINT/SIGTERM/
 * SIGHUP (the handlers restore, then let the signal end the loop through `interrupted()`).
 */
class terminal {
public:
    terminal();
    ~terminal();
    terminal(const terminal &) = delete;
    terminal &operator=(const terminal &) = delete;

    /// @brief False if stdin/stdout is not a terminal (raw mode could not be entered).
    [[nodiscard]] bool ok() const noexcept { return ok_; }
    /// @brief Next key pressed, or key::none.
    key poll_key();
    /// @brief Columns and rows of the terminal.
    void size(int &cols, int &rows) const;
    /// @brief Writes a whole frame at once (less flicker).
    void draw(const std::string &frame);
    /// @brief True once a termination signal arrived.
    static bool interrupted() noexcept;

private:
    bool ok_ = false;
};

} // namespace retcon::demo

#endif
