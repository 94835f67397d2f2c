#ifndef RETCON_NET_SRC_TICK_GUARD_HPP
#define RETCON_NET_SRC_TICK_GUARD_HPP

#include <retcon/config.hpp>

namespace retcon::internal {

/// @brief Marks a session's tick as running, from the start of its step program to its end
/// (also when its requests are abandoned). A tick's requests must all be stepped before the
/// session polls or ticks again (docs/net.md, "Poll mode"): another tick would save a world that
/// is between two frames, a poll could restore it under the caller.
class tick_guard {
public:
    /// @brief Starts a tick; misuse when one is running (@p what names the call).
    tick_guard(bool &running, const char *what) : running_{running} {
        refuse_while(running, what);
        running_ = true;
    }
    tick_guard(const tick_guard &) = delete;
    tick_guard &operator=(const tick_guard &) = delete;
    ~tick_guard() { running_ = false; }

    /// @brief Misuse if a tick is running (@p what names the call).
    static void refuse_while(bool running, const char *what) {
        if (running)
            misuse("%s: the previous tick's step requests are not all stepped (docs/net.md, \"Poll mode\")", what);
    }

private:
    bool &running_;
};

} // namespace retcon::internal

#endif
