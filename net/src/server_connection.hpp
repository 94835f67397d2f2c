#ifndef RETCON_NET_SRC_SERVER_CONNECTION_HPP
#define RETCON_NET_SRC_SERVER_CONNECTION_HPP

#include <retcon/ecs/frame.hpp>
#include <retcon/net/stats.hpp>
#include <retcon/net/transport.hpp>
#include <retcon/internal/printable.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "forensic_upload.hpp"
#include "rate_meter.hpp"
#include "time_sync.hpp"

namespace retcon::internal {

/// @brief The limits every connection of one server is held to (from its session_config and
/// server_options; docs/net.md, "Security model").
struct connection_limits {
    std::uint32_t interrupt_ms = 0;           ///< silence that interrupts the connection
    std::uint32_t disconnect_ms = 0;          ///< silence that ends it
    std::uint32_t hello_timeout_ms = 0;       ///< connect to a valid hello
    std::uint32_t load_timeout_ms = 0;        ///< a snapshot sent to its acknowledgement
    std::uint32_t upload_timeout_ms = 0;      ///< a forensic upload asked for to its last chunk
    std::uint32_t resync_interval_ms = 0;     ///< at most one resynchronising snapshot per this long
    std::uint32_t max_packets_per_second = 0; ///< flood limit
};

/// @brief Which of a connection's deadlines has passed (`server_connection::passed_deadline`).
enum class connection_deadline : std::uint8_t {
    none,   ///< nothing is due
    hello,  ///< connected, no valid hello within hello_timeout_ms: a half-open connection
    load,   ///< a snapshot sent to it not acknowledged within load_timeout_ms
    upload, ///< the forensic upload asked for not complete within upload_timeout_ms
    resync, ///< a deferred resynchronising snapshot may go out now (resync_interval_ms passed)
};

/// @brief What a connection's silence means at one moment (`server_connection::quiet`).
struct connection_silence {
    bool interrupted = false; ///< it just became interrupted (nothing heard for interrupt_ms)
    bool silent = false;      ///< nothing heard for disconnect_ms: it is dropped
};

/**
 * @brief One client's connection as the server sees it (docs/net.md, "Inside the sessions"):
 * who it is (slot, name, address), what it has acknowledged and when, how early its inputs
 * arrive, its clock echo, statistics and traffic, its flood counter, the resynchronising
 * snapshot it is loading or owed, its checksum claims and forensic upload, and which of its
 * deadlines has passed. Pure logic: the session sends and receives, this decides.
 */
class server_connection {
public:
    /// @brief A connection from @p peer, not yet connected (`connected` starts its clocks).
    explicit server_connection(peer_id peer) noexcept : peer_{peer} {}

    /// @brief The transport connected it at @p now_ms, from @p address ("HOST:PORT", or empty):
    /// its hello deadline, silence and flood counter count from here.
    void connected(std::string address, std::uint64_t now_ms) {
        address_ = std::move(address);
        connected_at_ = now_ms;
        last_recv_ = now_ms;
        second_start_ = now_ms;
    }

    /// @name Who it is
    /// @{
    [[nodiscard]] peer_id peer() const noexcept { return peer_; }
    /// @brief True once its handshake is done (a player or a spectator).
    [[nodiscard]] bool active() const noexcept { return active_; }
    /// @brief Its player slot; -1: a spectator (or not active yet).
    [[nodiscard]] int slot() const noexcept { return slot_; }
    [[nodiscard]] const std::string &name() const noexcept { return name_; }
    [[nodiscard]] const std::string &address() const noexcept { return address_; }
    /// @brief The name its hello gave (kept for the log, also if it is refused).
    void set_name(std::string name) { name_ = std::move(name); }

    /// @brief Its handshake is done at server frame @p next_frame: it holds @p slot (-1: a
    /// spectator) and carries that slot's upload quota used (@p uploads) and @p false_claims,
    /// which outlive a connection. Its inputs count as arriving from @p next_frame on.
    void activate(int slot, frame_t next_frame, std::uint32_t uploads, std::uint32_t false_claims) noexcept {
        active_ = true;
        slot_ = slot;
        upload_.set_used(uploads);
        false_claims_ = false_claims;
        recv_high_ = next_frame;
    }

    /// @brief "slot 1 'ann' from 127.0.0.1:5000": who an offender is, for the server's log.
    [[nodiscard]] std::string describe() const {
        std::string s = !active_ ? "connection" : slot_ >= 0 ? "slot " + std::to_string(slot_) : "spectator";
        // The name is the client's own choice and the address the transport's: escaped, so
        // neither can end the log line or its quotes (docs/hosting.md, "Logs").
        if (!name_.empty()) s += " '" + printable(name_) + "'";
        if (!address_.empty()) s += " from " + printable(address_);
        return s;
    }
    /// @}

    /// @name Traffic, silence and floods
    /// @{
    /// @brief @p bytes arrived at @p now_ms. True if that ends an interruption.
    bool heard(std::uint64_t now_ms, std::size_t bytes) noexcept {
        bytes_in_ += bytes;
        last_recv_ = now_ms;
        const bool resumed = interrupted_;
        interrupted_ = false;
        return resumed;
    }

    /// @brief Counts a packet arriving at @p now_ms against max_packets_per_second, in windows
    /// of a second from its connection; an @p exempt packet (a chunk of an upload the server
    /// asked for, bounded by its cap and timeout instead) is not counted. True: a flood.
    bool flooding(std::uint64_t now_ms, const connection_limits &limits, bool exempt) noexcept {
        if (now_ms - second_start_ >= 1000) {
            second_start_ = now_ms;
            packets_in_second_ = 0;
        }
        return !exempt && ++packets_in_second_ > limits.max_packets_per_second;
    }

    /// @brief @p bytes were sent to it.
    void count_sent(std::size_t bytes) noexcept { bytes_out_ += bytes; }

    /// @brief What its silence means at @p now_ms; an interruption is reported once, until
    /// `heard` ends it.
    connection_silence quiet(std::uint64_t now_ms, const connection_limits &limits) noexcept {
        const std::uint64_t quiet = now_ms - last_recv_;
        connection_silence s;
        if (!interrupted_ && quiet >= limits.interrupt_ms) s.interrupted = interrupted_ = true;
        s.silent = quiet >= limits.disconnect_ms;
        return s;
    }

    /// @brief Takes the transport's round trip, jitter and loss when it measured any, and
    /// updates the per-second rates at @p now_ms.
    void note_link(const transport_peer_stats &ts, std::uint64_t now_ms) {
        if (ts.rtt_ms) {
            st_.rtt_ms = ts.rtt_ms;
            st_.jitter_ms = ts.rtt_variance_ms;
            st_.loss = ts.packet_loss;
        }
        meter_.update(now_ms, st_, bytes_in_, bytes_out_);
    }
    /// @}

    /// @name Inputs and acknowledgements
    /// @{
    /// @brief Its input for @p frame arrived; the first arrival of a frame's input records
    /// `margin_of(frame)`, how early it came (time sync).
    template<class MarginOf>
    void note_arrival(frame_t frame, MarginOf &&margin_of) {
        if (frame < recv_high_) return;
        margins_.add(margin_of(frame));
        recv_high_ = frame + 1u;
    }

    /**
     * @brief What every input message carries besides inputs: @p ack (every confirmed frame
     * below it received), echoed @p client_time_ms, at server frame @p next_frame. The
     * acknowledgement moves when it advances, or reaches the frame of the last snapshot (the
     * client loaded it: it acknowledges from that frame on); it never goes back or past
     * @p next_frame.
     */
    void note_feedback(frame_t ack, frame_t next_frame, std::uint32_t client_time_ms, std::uint64_t now_ms) noexcept {
        if (ack <= next_frame && (ack > ack_confirmed_ || (!loaded_ && ack >= sync_frame_))) {
            ack_moved_at_ = now_ms;
            if (ack >= sync_frame_) loaded_ = true;
        }
        ack_confirmed_ = std::clamp(ack, ack_confirmed_, next_frame);
        echo_time_ = client_time_ms;
        echo_at_ = now_ms;
    }

    /// @brief Every confirmed frame below this is acknowledged.
    [[nodiscard]] frame_t ack_confirmed() const noexcept { return ack_confirmed_; }
    /// @brief The frame of the last snapshot sent to it.
    [[nodiscard]] frame_t sync_frame() const noexcept { return sync_frame_; }
    /// @brief True once it acknowledged the last snapshot sent to it.
    [[nodiscard]] bool loaded() const noexcept { return loaded_; }
    /// @brief The first confirmed frame it may lack: the stream to it starts here.
    [[nodiscard]] frame_t first_unacknowledged() const noexcept { return std::max(ack_confirmed_, sync_frame_); }

    /// @brief True when the stream from @p first to @p next_frame skips this tick: a client
    /// whose acknowledgements stopped for interrupt_ms gets it at a quarter of the rate, so one
    /// that never acknowledges cannot turn every tick into a full packet of resent frames
    /// (docs/net.md, "Security model").
    [[nodiscard]] bool throttled(frame_t first, frame_t next_frame, std::uint64_t now_ms,
                                 const connection_limits &limits) const noexcept {
        return first + 1u < next_frame && now_ms - ack_moved_at_ >= limits.interrupt_ms && next_frame % 4u != 0u;
    }

    /// @brief Its last clock reading, to echo.
    [[nodiscard]] std::uint32_t echo_time() const noexcept { return echo_time_; }
    /// @brief How long the server has held that reading at @p now_ms (capped for the wire).
    [[nodiscard]] std::uint16_t hold_ms(std::uint64_t now_ms) const noexcept {
        return static_cast<std::uint16_t>(std::min<std::uint64_t>(now_ms - echo_at_, 65535u));
    }

    /// @brief The confirmed stream up to @p next_frame is going out to it: its statistics say
    /// so. Returns the arrival margin the message tells it (a low percentile).
    std::int16_t note_broadcast(frame_t next_frame) {
        const std::int16_t margin = margins_.low_percentile();
        st_.margin_ms = margin;
        st_.current_frame = next_frame;
        st_.confirmed_frame = ack_confirmed_;
        ++st_.confirmed_frames;
        return margin;
    }
    /// @}

    /// @name Snapshots (join and resync)
    /// @{
    /// @brief A snapshot of @p frame went out at @p now_ms: the stream restarts there, and it
    /// owes the acknowledgement (load_timeout_ms).
    void snapshot_sent(frame_t frame, std::uint64_t now_ms) noexcept {
        sync_frame_ = frame;
        ack_confirmed_ = frame;
        last_resync_ = now_ms;
        ack_moved_at_ = now_ms;
        resync_due_ = false;
        loaded_ = false;
    }
    /// @brief A mismatch or a hopeless lag wants a resynchronising snapshot: true if it may go
    /// out at @p now_ms, false if it waits for resync_interval_ms (`passed_deadline` says when).
    bool want_resync(std::uint64_t now_ms, const connection_limits &limits) noexcept {
        resync_due_ = true;
        return now_ms - last_resync_ >= limits.resync_interval_ms;
    }
    /// @brief True while a resynchronising snapshot is owed.
    [[nodiscard]] bool resync_due() const noexcept { return resync_due_; }
    /// @}

    /// @name Checksum claims (docs/net.md, "Desync forensics")
    /// @{
    /// @brief True if its claim about @p frame is to be compared: it reports checksums (a
    /// player, or a spectator when @p verify_spectators), no resynchronising snapshot is owed
    /// (claims until it lands stem from the same divergence), @p frame is newer than the last
    /// claim compared and not before its last snapshot.
    [[nodiscard]] bool wants_claim(frame_t frame, bool verify_spectators) const noexcept {
        if (slot_ < 0 && !verify_spectators) return false;
        if (resync_due_) return false;
        if (last_checksum_frame_ != no_frame && frame <= last_checksum_frame_) return false;
        return frame >= sync_frame_;
    }
    /// @brief Its claim about @p frame was compared (older ones are ignored from now on).
    void claim_compared(frame_t frame) noexcept { last_checksum_frame_ = frame; }
    /// @brief Counts a claim its own upload contradicted; returns how many it has made.
    std::uint32_t add_false_claim() noexcept { return ++false_claims_; }
    [[nodiscard]] std::uint32_t false_claims() const noexcept { return false_claims_; }
    /// @brief The snapshot the server asked it for, if any.
    [[nodiscard]] forensic_upload &upload() noexcept { return upload_; }
    [[nodiscard]] const forensic_upload &upload() const noexcept { return upload_; }
    /// @}

    /// @brief Which deadline has passed at @p now_ms, the first of: its hello (not active),
    /// its snapshot's acknowledgement, its forensic upload, the wait for a resynchronising
    /// snapshot owed. Silence is `quiet`'s.
    [[nodiscard]] connection_deadline passed_deadline(std::uint64_t now_ms,
                                                      const connection_limits &limits) const noexcept {
        if (!active_)
            return now_ms - connected_at_ >= limits.hello_timeout_ms ? connection_deadline::hello
                                                                     : connection_deadline::none;
        if (!loaded_ && now_ms - last_resync_ >= limits.load_timeout_ms) return connection_deadline::load;
        if (upload_.overdue(now_ms, limits.upload_timeout_ms)) return connection_deadline::upload;
        if (resync_due_ && now_ms - last_resync_ >= limits.resync_interval_ms) return connection_deadline::resync;
        return connection_deadline::none;
    }

    /// @brief Payload bytes received from it and sent to it since it connected.
    [[nodiscard]] std::uint64_t bytes_in() const noexcept { return bytes_in_; }
    [[nodiscard]] std::uint64_t bytes_out() const noexcept { return bytes_out_; }

    /// @brief Its statistics (the session's `client_stats`).
    [[nodiscard]] session_stats &stats() noexcept { return st_; }
    [[nodiscard]] const session_stats &stats() const noexcept { return st_; }

private:
    peer_id peer_;
    bool active_ = false;
    int slot_ = -1;
    std::string name_;
    std::string address_; // "HOST:PORT" for messages (empty on the simulated network)
    std::uint64_t connected_at_ = 0;
    std::uint64_t last_recv_ = 0;
    bool interrupted_ = false;
    frame_t ack_confirmed_ = 0;
    frame_t sync_frame_ = 0;
    frame_t recv_high_ = 0; // inputs of frames below it arrived before
    arrival_margins margins_;
    std::uint32_t echo_time_ = 0;
    std::uint64_t echo_at_ = 0;
    session_stats st_;
    rate_meter meter_;
    std::uint64_t bytes_in_ = 0, bytes_out_ = 0;
    std::uint32_t packets_in_second_ = 0;
    std::uint64_t second_start_ = 0;
    // Claims its own upload contradicted: kept per slot across reconnects, like its uploads.
    std::uint32_t false_claims_ = 0;
    frame_t last_checksum_frame_ = no_frame;
    forensic_upload upload_;
    std::uint64_t last_resync_ = 0;  // when the last snapshot went out (the join's counts)
    bool resync_due_ = false;        // a mismatch or a hopeless lag wants a snapshot
    std::uint64_t ack_moved_at_ = 0; // when ack_confirmed_ last advanced (or a snapshot went out)
    bool loaded_ = false;            // acknowledged the last snapshot (an ack at or past its frame)
};

} // namespace retcon::internal

#endif
