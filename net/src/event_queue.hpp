#ifndef RETCON_NET_SRC_EVENT_QUEUE_HPP
#define RETCON_NET_SRC_EVENT_QUEUE_HPP

#include <retcon/net/events.hpp>
#include <retcon/internal/printable.hpp>

#include <deque>
#include <string>
#include <utility>

namespace retcon::internal {

/// @brief The events a session has for the game, oldest first (docs/net.md, "Events"): the
/// one way both sessions queue an event and hand it out with `next_event`.
class event_queue {
public:
    /// @brief Queues an event; the caller fills the fields its kind carries. Its text is made
    /// one printable line: texts carry what peers sent (a server's reasons, names in an uploaded
    /// snapshot), and games and hosts log them (docs/net.md, "Events").
    session_event &emit(session_event_kind k, frame_t frame, int slot, std::string text) {
        session_event &e = events_.emplace_back();
        e.kind = k;
        e.frame = frame;
        e.slot = slot;
        e.text = is_printable(text, printable_for::line) ? std::move(text) : printable(text, printable_for::line);
        return e;
    }

    /// @brief Moves the oldest event into @p out; false when there is none.
    bool pop(session_event &out) {
        if (events_.empty()) return false;
        out = std::move(events_.front());
        events_.pop_front();
        return true;
    }

private:
    std::deque<session_event> events_;
};

} // namespace retcon::internal

#endif
