#include <retcon/net/client_session.hpp>

#include <retcon/snapshot/file.hpp>
#include <retcon/snapshot/hash.hpp>
#include <retcon/snapshot/image.hpp>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <optional>
#include <string>

#include "config_check.hpp"
#include "event_queue.hpp"
#include "forensics.hpp"
#include "input_queue.hpp"
#include "rate_meter.hpp"
#include "receive_slice.hpp"
#include "reconnection.hpp"
#include "rollback.hpp"
#include "snapshot_transfer.hpp"
#include "stage_trace.hpp"
#include "telemetry_ring.hpp"
#include "tick_guard.hpp"
#include "time_sync.hpp"

namespace retcon {

namespace {
/// The session runs on a session_config: @p c's fields, with the match settings left at their
/// defaults until the welcome replaces them. A problem is reported in @p c's own terms.
session_config as_session_config(client_config &c) {
    if (const std::string why = client_config_problem(c); !why.empty()) internal::misuse("%s", why.c_str());
    session_config s;
    s.input_size = c.input_size;
    s.input_layout_hash = c.input_layout_hash;
    s.content_version = c.content_version;
    s.prediction = std::move(c.prediction);
    s.prediction_window = c.prediction_window;
    s.checksum_interval = c.checksum_interval;
    s.interrupt_ms = c.interrupt_ms;
    s.disconnect_ms = c.disconnect_ms;
    return s;
}
} // namespace

struct client_session::impl final : transport_handler, internal::coroutine_memory {
    session_config cfg;
    world &w;
    step_function step;
    transport &net;
    client_options opt;
    internal::reconnection again{opt.reconnect}; // after a lost connection (docs/net.md, "Reconnecting")
    bool welcomed = false;                       // a welcome arrived on some connection: there is a slot to go back to
    disconnect_cause lost_cause = disconnect_cause::none; // why the connection or the last attempt ended
    std::string lost_text;

    client_state state = client_state::connecting;
    int slot = -1;
    retcon::reconnect_token token;
    bool report_checksums = true;              // the welcome says (spectators: only when the server verifies them)
    std::size_t players = 0, isz = 0, rec = 0; // players and rec: from the welcome
    std::uint32_t max_frames_per_packet = 1;

    // The parts this session orchestrates (docs/net.md, "Inside the sessions").
    internal::input_queue inputs;         // confirmed, predicted and local inputs
    internal::rollback rollback;          // the world at the start of recent frames
    internal::time_sync clock;            // when the next tick is due
    internal::round_trip rtt;             // to the server, with its jitter
    internal::input_delay delay;          // adapts when max_input_delay > input_delay
    internal::checksum_reports checksums; // hashes for the server, images for an upload
    std::optional<world> scratch;         // desync bisection's re-run, created at the first one
    bool bisecting = false;               // during that re-run (is_resimulating)
    internal::snapshot_receiver transfer{wire::limits::max_snapshot};
    internal::rate_meter meter;
    internal::telemetry_ring<frame_telemetry> telemetry;          // the last frames (docs/net.md, "Telemetry")
    std::uint64_t telemetry_in = 0, telemetry_out = 0;            // byte totals at the last tick's end
    std::unique_ptr<trace_recorder> tracer;                       // null: no trace (docs/net.md, "Reading a trace")
    internal::stage_trace stages;                                 // the step's stages, when traced
    double traced_rtt = -1, traced_ahead = -1, traced_delay = -1; // counters as last recorded
    double traced_in = -1, traced_out = -1;
    // The flight recorder (docs/net.md, "Reading a trace"): dumps of the trace on trouble.
    std::unique_ptr<trace_writer> own_flight; // the flight recorder's writer when none is given
    trace_writer *flight = nullptr;           // null: off
    std::string flight_dir, flight_path;      // flight_path: built in storage taken up front
    std::uint32_t flight_dumps = 0;
    std::uint64_t flight_stall_at = 0; // session time of the last stall dump
    bool flight_stalled = false;       // a stall has been dumped
    std::uint64_t flight_failures = 0; // failed dumps reported

    frame_t current = 0;
    bool ticking = false; // a tick's step requests are not all stepped
    bool stalled = false;
    std::uint32_t presence = 0; // present bit per slot in the last confirmed frame
    bool have_presence = false;

    internal::event_queue events;
    session_stats st;
    std::uint64_t bytes_in = 0, bytes_out = 0;

    std::uint64_t now = 0;
    std::uint64_t connect_start = 0; // first poll, or the reconnection attempt: the connect timeout counts from here
    bool connect_started = false;
    bool transport_up = false; // the transport reported on_connect
    std::uint64_t last_recv = 0;
    std::uint64_t last_ack_sent = 0;
    bool interrupted = false;
    std::uint64_t confirmed_packets = 0, confirmed_expected = 0;
    frame_t last_packet_server_frame = 0;

    std::function<void(frame_t, std::uint64_t)> hash_cb;
    std::function<void(world &)> corrupt;

    std::vector<std::byte> out;
    std::vector<std::byte> local;  // this tick's input, copied: step requests outlive the caller's span
    std::vector<std::byte> window; // local inputs being sent
    wire::confirmed_msg cmsg;
    wire::input_msg imsg;

    impl(session_config c, world &wr, step_function s, transport &t, client_options o)
        : cfg{std::move(c)}, w{wr}, step{std::move(s)}, net{t}, opt{std::move(o)}, rollback{std::size_t{
                                                                                                cfg.prediction_window} +
                                                                                            2u} {
        internal::check_config(cfg, internal::config_side::client);
        if (const std::string why = client_options_problem(opt); !why.empty()) internal::misuse("%s", why.c_str());
        checksums.reset(cfg.checksum_interval, forensic_images());
        delay.reset(cfg.input_delay, cfg.input_delay); // until the welcome says the match's
        st.input_delay = delay.frames();
        isz = cfg.input_size;
        // Keep every packet under the MTU-sized limit even if the coding doubles the bytes.
        max_frames_per_packet = static_cast<std::uint32_t>(std::clamp<std::size_t>(
            (wire::limits::max_packet - 64u) / (2u * isz), 1u, wire::limits::max_frames_per_packet));
        window.reserve(wire::limits::max_frames_per_packet * isz);
        local.reserve(isz);
        telemetry.reset(opt.telemetry.frames);
        if (opt.trace.records != 0 || !opt.flight_recorder_dir.empty()) {
            trace_options traced = opt.trace;
            if (traced.process_name.empty()) traced.process_name = "retcon client";
            if (traced.records == 0) traced.records = flight_recorder_records;
            tracer = std::make_unique<trace_recorder>(traced);
            stages.reset(tracer.get(), step);
        }
        if (!opt.flight_recorder_dir.empty()) {
            if (!opt.flight_writer) own_flight = std::make_unique<trace_writer>();
            flight = opt.flight_writer ? opt.flight_writer : own_flight.get();
            flight->reserve(*tracer);
            flight_dir = opt.flight_recorder_dir.string();
            flight_path.reserve(flight_dir.size() + 64);
        }
    }

    /// The flight recorder's answer to event @p k at @p frame: a dump of the trace for a
    /// desync, a resynchronization or a stall's start, within the session's limits. A copy
    /// queued to the writer: no formatting or file I/O here.
    void flight_record(session_event_kind k, frame_t frame) {
        const char *why = k == session_event_kind::desync_detected    ? "desync"
                          : k == session_event_kind::resynchronized   ? "resync"
                          : k == session_event_kind::wait_recommended ? "stall"
                                                                      : nullptr;
        if (!why || flight_dumps >= max_flight_dumps) return;
        if (k == session_event_kind::wait_recommended) {
            if (flight_stalled && now - flight_stall_at < flight_stall_spacing_ms) return;
            flight_stalled = true;
            flight_stall_at = now;
        }
        ++flight_dumps;
        char name[48];
        const int n = std::snprintf(name, sizeof name, "flight-%010u-%s.json", static_cast<unsigned>(frame), why);
        flight_path.assign(flight_dir);
        flight_path += '/';
        flight_path.append(name, static_cast<std::size_t>(std::max(n, 0)));
        (void)flight->submit(*tracer, flight_path); // a full queue counts the drop
    }

    /// Dumps the flight recorder could not write, reported once each (from poll).
    void report_flight_failures() {
        if (!own_flight || own_flight->failed() == flight_failures) return;
        flight_failures = own_flight->failed();
        for (const trace_write_failure &f : own_flight->take_failures())
            emit(session_event_kind::recording_failed, current, slot, f.path.string() + ": " + f.why).path =
                f.path.string();
    }

    /// Adopts the match settings of the server's welcome (the decoder has bounded them) and
    /// sizes every buffer for them: the only allocations after construction.
    void adopt(const wire::welcome_msg &m) {
        slot = m.slot == 0xff ? -1 : m.slot;
        cfg.max_players = m.max_players;
        cfg.tick_hz = m.tick_hz;
        cfg.input_delay = m.input_delay;
        cfg.max_input_delay = m.max_input_delay;
        players = cfg.max_players;
        rec = input_record_size(players, isz);
        clock.set_period(1000.0 / cfg.tick_hz);
        delay.reset(cfg.input_delay, std::max(cfg.input_delay, cfg.max_input_delay));
        st.input_delay = delay.frames();
        const std::size_t cap = std::size_t{cfg.prediction_window} + std::max(cfg.input_delay, cfg.max_input_delay) +
                                2u * wire::limits::max_frames_per_packet + 64u;
        inputs.reset(players, isz, cap, slot, cfg.prediction);
        checksums.reset(cfg.checksum_interval, forensic_images(), rec); // with room for each frame's inputs
        cmsg.frames.reserve(wire::limits::max_frames_per_packet * rec);
    }
    /// Images kept for desync forensics: `forensic_ms` of play at the tick rate (the server's,
    /// once welcomed).
    std::size_t forensic_images() const noexcept {
        return internal::forensic_images(opt.forensic_ms, cfg.tick_hz, cfg.checksum_interval);
    }

    /// "HOST:PORT" of the server where the transport knows it.
    std::string server_name() const {
        const std::string a = net.peer_address(0);
        return a.empty() ? std::string{"the server"} : a;
    }

    /// A connection (or a reconnection attempt) never got its welcome: it did not come up, or the
    /// server did not answer the handshake.
    void connect_failed() {
        lost(disconnect_cause::connect_failed,
             transport_up ? server_name() + " did not answer the handshake" : "could not connect to " + server_name());
    }

    /// The link failed for @p cause: another attempt if the reconnect policy has one left
    /// (started by poll), otherwise the session is over.
    void lost(disconnect_cause cause, std::string text) {
        if (welcomed && again.lost(now, cause)) {
            state = client_state::connecting;
            lost_cause = cause;
            lost_text = std::move(text);
            return;
        }
        disconnected(cause, std::move(text));
    }

    /// Starts the scheduled reconnection attempt on a new connection to the same server.
    void start_attempt() {
        if (!net.reconnect()) {
            again.cancel();
            disconnected(lost_cause, lost_text + " (this transport cannot reconnect)");
            return;
        }
        const std::uint32_t n = again.start();
        transport_up = false;
        connect_start = now;
        last_recv = now;
        transfer.reset();
        stalled = false;
        auto &e = emit(session_event_kind::reconnecting, current, slot,
                       "reconnecting, attempt " + std::to_string(n) + " of " + std::to_string(again.attempts()) + ": " +
                           lost_text);
        e.cause = lost_cause;
        e.count = n;
    }

    /// Queues an event; the caller fills the fields its kind carries (docs/net.md, "Events").
    session_event &emit(session_event_kind k, frame_t frame, int s = -1, std::string text = {}) {
        session_event &e = events.emit(k, frame, s, std::move(text));
        if (tracer) tracer->instant(trace_id(trace_name::event) + static_cast<trace_name_id>(k), e.text);
        if (flight) flight_record(k, frame);
        return e;
    }

    /// The session is over for @p cause: the state says so and the game gets the event (with
    /// the reconnection attempts made, if any).
    void disconnected(disconnect_cause cause, std::string text,
                      wire::reject_reason reject = wire::reject_reason::none) {
        state = client_state::disconnected;
        const std::uint32_t attempts = again.made();
        again.cancel();
        if (attempts > 0) text = "gave up reconnecting after " + std::to_string(attempts) + " attempt(s): " + text;
        auto &e = emit(session_event_kind::disconnected, current, slot, std::move(text));
        e.cause = cause;
        e.reject = reject;
        e.count = attempts;
    }

    void send(wire::channel ch, std::span<const std::byte> data) {
        bytes_out += data.size();
        net.send(0, ch, data);
    }

    // ---------------------------------------------------------------- transport events
    void on_connect(peer_id) override {
        transport_up = true;
        emit(session_event_kind::connected, 0);
        wire::hello_msg h;
        h.schema_hash = w.schema_hash();
        h.input_layout_hash = cfg.input_layout_hash;
        h.content_version = cfg.content_version;
        h.input_size = cfg.input_size;
        h.spectator = opt.spectator;
        h.reconnect_token = token.empty() ? opt.reconnect_token : token; // a reconnection takes its slot back
        h.name = opt.name;
        h.join_token = opt.join_token;
        wire::encode(h, out);
        send(wire::channel::control, out);
    }

    void on_disconnect(peer_id) override {
        if (again.waiting()) return; // the connection already counted as lost; the next attempt is due
        if (state == client_state::connecting && !transport_up) { // the attempt itself failed
            connect_failed();
        } else if (state != client_state::rejected && state != client_state::disconnected) {
            lost(disconnect_cause::closed, "connection closed");
        }
    }

    void on_receive(peer_id, wire::channel ch, std::span<const std::byte> data) override {
        const internal::receive_slice traced{tracer.get(), data};
        bytes_in += data.size();
        last_recv = now;
        if (interrupted) {
            interrupted = false;
            emit(session_event_kind::network_resumed, current, slot);
        }
        switch (static_cast<wire::message_kind>(wire::peek_kind(data))) {
        case wire::message_kind::welcome: {
            // One welcome per connection; another one (or one on the wrong channel) is ignored.
            if (ch != wire::channel::control || state != client_state::connecting) return;
            wire::welcome_msg m;
            if (auto r = wire::decode(data, m); !r) { // we cannot play what we cannot read: never wait silently
                disconnected(disconnect_cause::violation, "unreadable welcome from server: " + r.message());
                net.disconnect(0);
                return;
            }
            adopt(m);
            token = m.token;
            welcomed = true;
            report_checksums = m.report_checksums;
            state = client_state::loading;
            // Reliable channels are ordered each on its own: the snapshot may have beaten us.
            if (transfer.complete()) load_snapshot();
            return;
        }
        case wire::message_kind::reject: {
            // Also after a disconnect: the simulated network may report the close before the
            // reject that preceded it, and the reason is what the player needs to see.
            if (state == client_state::rejected) return;
            wire::reject_msg m;
            const auto r = wire::decode(data, m);
            state = client_state::rejected;
            // An unreadable reject still refuses us; its reason is then unknown (`none`).
            const auto reason = r ? m.reason : wire::reject_reason::none;
            std::string text = r ? m.text : "refused (unreadable reason: " + r.message() + ")";
            emit(session_event_kind::rejected, 0, -1, text).reject = reason;
            if (again.active()) { // a refused reconnection ends it: another would be refused too
                disconnected(disconnect_cause::rejected, "refused: " + text, reason);
                state = client_state::rejected;
            }
            return;
        }
        case wire::message_kind::snapshot_chunk: {
            // A transfer still arriving after the connection ended must not revive the session.
            if (state == client_state::disconnected || state == client_state::rejected) return;
            wire::snapshot_chunk_msg m;
            if (ch != wire::channel::snapshots || !wire::decode(data, m) || !transfer.add(m)) return;
            // Before the welcome we do not know our slot yet: keep the snapshot until it arrives.
            if (transfer.complete() && state != client_state::connecting) load_snapshot();
            return;
        }
        case wire::message_kind::confirmed: handle_confirmed(data); return;
        case wire::message_kind::desync: {
            // First notice (no names yet): upload our copy of that frame so the server can diff
            // it. Second notice: the names of what diverged, for the game.
            wire::desync_msg m;
            if (!wire::decode(data, m)) return;
            if (m.diverging.empty()) {
                ++st.desyncs;
                if (!upload_forensic(m.frame, m.server))
                    emit(session_event_kind::desync_detected, m.frame, slot,
                         "no local snapshot of that frame to compare");
            } else {
                session_event &e = emit(session_event_kind::desync_detected, m.frame, slot, m.diverging);
                e.diverging = internal::split_diverging(m.diverging);
                if (m.stage != wire::stage_none) { // the server's bisection named a stage
                    e.stage_count = m.stage_count;
                    e.stage_index = m.stage == wire::stage_start ? -1 : int{m.stage};
                    if (m.stage == wire::stage_start) e.stage = "start of frame";
                    else if (step && m.stage < step.stages())
                        e.stage = std::string{step.stage_name(m.stage)};
                }
            }
            return;
        }
        case wire::message_kind::bye: {
            // Acknowledge, so the server's end_match can finish without waiting for its
            // timeout; the server then closes the connection (docs/net.md).
            if (state == client_state::disconnected) return;
            wire::bye_msg m;
            if (wire::decode(data, m) && m.reason == static_cast<std::uint8_t>(wire::bye_reason::violation)) {
                // Kicked: a reconnection would be kicked again.
                disconnected(disconnect_cause::violation, "the server ended the connection for a violation");
                return;
            }
            wire::encode(wire::bye_msg{static_cast<std::uint8_t>(wire::bye_reason::acknowledged)}, out);
            send(wire::channel::control, out);
            net.flush();
            state = client_state::disconnected;
            again.cancel();
            emit(session_event_kind::match_ended, current, slot, "the server ended the match");
            return;
        }
        default: return; // unknown or misplaced: ignored
        }
    }

    void load_snapshot() {
        auto file = parse_snapshot_file(transfer.bytes(), "snapshot from server");
        transfer.reset();
        if (!file) {
            disconnected(disconnect_cause::bad_snapshot, "bad snapshot from server: " + file.message());
            net.disconnect(0);
            return;
        }
        if (auto s = check_simulation(file->schema); !s) {
            disconnected(disconnect_cause::bad_snapshot, "server snapshot " + s.message());
            net.disconnect(0);
            return;
        }
        if (file->schema.hash() != w.schema_hash()) {
            disconnected(disconnect_cause::bad_snapshot, "server snapshot has another schema");
            net.disconnect(0);
            return;
        }
        if (auto r = restore(w, file->image); !r) {
            disconnected(disconnect_cause::bad_snapshot, "cannot restore server snapshot: " + r.message());
            return;
        }
        const auto at = to_frame(file->frame);
        if (!at) {
            disconnected(disconnect_cause::bad_snapshot, "bad snapshot from server: " + at.message());
            net.disconnect(0);
            return;
        }
        const frame_t f = *at;
        const bool first = state == client_state::loading;
        const bool back = first && again.active();
        current = f;
        checksums.restart(f);
        inputs.restart(f, f + delay.frames());
        have_presence = false;
        rollback.clear();
        state = client_state::running;
        // Start ahead of the server by an estimate of half a round trip plus a margin; time
        // sync refines it.
        clock.start(now, (rtt.known() ? rtt.rtt_ms() / 2.0 : 50.0) + clock.period() * 2.0);
        if (back) {
            auto &e = emit(session_event_kind::reconnected, f, slot,
                           "reconnected after " + std::to_string(again.made()) + " attempt(s)");
            e.cause = lost_cause;
            e.count = again.made();
            again.cancel();
            return;
        }
        emit(first ? session_event_kind::synchronized : session_event_kind::resynchronized, f, slot);
    }

    void handle_confirmed(std::span<const std::byte> data) {
        if (state != client_state::running) return;
        if (!wire::decode_header(data, cmsg) || cmsg.players != players) return;
        const std::byte *base = nullptr;
        if (cmsg.base) {
            base = cmsg.first_frame > 0 ? inputs.confirmed(cmsg.first_frame - 1u) : nullptr;
            if (!base) return; // we no longer hold the base; a later packet will do
        }
        if (!wire::decode(data, isz, base ? std::span<const std::byte>(base, rec) : std::span<const std::byte>{}, cmsg))
            return;
        ++confirmed_packets;
        // Round trip and timing feedback.
        if (cmsg.echo_time_ms != 0) {
            const double sample =
                static_cast<double>(static_cast<std::uint32_t>(now) - cmsg.echo_time_ms) - cmsg.hold_ms;
            if (rtt.add(sample)) {
                st.rtt_ms = rtt.rtt_ms();
                st.jitter_ms = rtt.jitter_ms();
            }
        }
        st.margin_ms = cmsg.margin_ms;
        if (cmsg.server_frame > last_packet_server_frame) {
            confirmed_expected += cmsg.server_frame - last_packet_server_frame;
            last_packet_server_frame = cmsg.server_frame;
        }
        st.frames_ahead =
            static_cast<double>(current) - (static_cast<double>(cmsg.server_frame) + st.rtt_ms / 2.0 / clock.period());
        if (slot >= 0) {
            inputs.acknowledge(cmsg.ack_input);
            clock.on_margin(now, cmsg.margin_ms, st.rtt_ms, st.jitter_ms);
        }
        // Store new confirmed frames; the queue compares them with what we simulated.
        for (std::uint32_t k = 0; k < cmsg.count; ++k)
            if (inputs.confirm(cmsg.first_frame + k, cmsg.frames.data() + std::size_t{k} * rec, current) ==
                internal::input_queue::arrival::too_far)
                break; // too far ahead of what we can hold: a later packet repeats it
        inputs.advance_confirmed([this](frame_t f, const std::byte *record) {
            note_presence(f, record);
            note_confirmed(f, record);
        });
        st.confirmed_frame = inputs.confirmed_end();
    }

    /// Raises player_joined / player_left when a slot's presence changes in the confirmed stream
    /// (the first confirmed frame after a (re)synchronisation sets the baseline silently).
    void note_presence(frame_t f, const std::byte *record) {
        std::uint32_t present = 0;
        for (std::size_t p = 0; p < players; ++p)
            if ((static_cast<std::uint8_t>(record[p]) & static_cast<std::uint8_t>(slot_flags::present)) != 0)
                present |= std::uint32_t{1} << p;
        if (have_presence) {
            for (std::size_t p = 0; p < players; ++p) {
                const std::uint32_t bit = std::uint32_t{1} << p;
                if ((present & bit) != (presence & bit))
                    emit((present & bit) ? session_event_kind::player_joined : session_event_kind::player_left, f,
                         static_cast<int>(p));
            }
        }
        presence = present;
        have_presence = true;
    }

    // ---------------------------------------------------------------- telemetry (docs/net.md)
    [[nodiscard]] std::uint64_t telemetry_us() const noexcept {
        return internal::telemetry_now_us(opt.telemetry.clock);
    }

    /// The entry of the frame this tick is on (null with telemetry off); a frame confirmed
    /// before its first tick (a client behind the server) is marked at once.
    frame_telemetry *open_telemetry() {
        frame_telemetry *e = telemetry.open(current);
        if (e && current < inputs.confirmed_end()) {
            e->confirmed = true;
            if (const std::byte *record = inputs.confirmed(current)) e->input_replaced = replaced_in(record);
        }
        return e;
    }
    /// True if @p record says the server substituted this player's input.
    [[nodiscard]] bool replaced_in(const std::byte *record) const noexcept {
        return slot >= 0 && (static_cast<std::uint8_t>(record[slot]) & static_cast<std::uint8_t>(slot_flags::replaced));
    }
    /// Frame @p f was confirmed with @p record: its entry, if still kept, says so.
    void note_confirmed(frame_t f, const std::byte *record) {
        if (frame_telemetry *e = telemetry.find(f)) {
            e->confirmed = true;
            e->input_replaced = replaced_in(record);
        }
    }
    /// The figures "as of the tick", at the end of each tick on @p e's frame.
    void close_telemetry(frame_telemetry *e) {
        if (!e) return;
        e->frames_ahead = static_cast<float>(st.frames_ahead);
        e->rtt_ms = static_cast<float>(st.rtt_ms);
        e->jitter_ms = static_cast<float>(st.jitter_ms);
        e->input_delay = static_cast<std::uint8_t>(delay.frames());
        e->bytes_in += internal::telemetry_delta(bytes_in, telemetry_in);
        e->bytes_out += internal::telemetry_delta(bytes_out, telemetry_out);
    }

    /// The tick slice from @p start, and the counters that changed since the last tick (docs/net.md,
    /// "Reading a trace").
    void close_trace(std::uint64_t start, frame_t frame) {
        trace_recorder *const tr = tracer.get();
        if (!tr) return;
        tr->complete(trace_id(trace_name::tick), start, tr->now(), trace_track::tick, frame);
        const auto note = [tr](trace_name n, double v, double &last) {
            if (v != last) tr->counter(trace_id(n), v);
            last = v;
        };
        note(trace_name::rtt_ms, st.rtt_ms, traced_rtt);
        note(trace_name::frames_ahead, st.frames_ahead, traced_ahead);
        note(trace_name::input_delay, delay.frames(), traced_delay);
        note(trace_name::bytes_in_per_s, st.bytes_in_per_s, traced_in);
        note(trace_name::bytes_out_per_s, st.bytes_out_per_s, traced_out);
    }

    /// A player's input delay adapts to the round trip once it is known (docs/net.md, "Input delay").
    void adapt_delay() {
        if (slot >= 0 && rtt.known() && state == client_state::running) delay.adapt(now, rtt.rtt_ms(), clock.period());
        st.input_delay = delay.frames();
    }

    /// Desync bisection, the client's side (docs/net.md, "Desync forensics"): re-runs @p frame
    /// stage by stage from the kept world after the frame before, with its confirmed inputs, on
    /// a world of its own, comparing each point with the server's hashes @p server. Sends the
    /// stage report and returns true, with @p image the world at the first point that differs
    /// (or, if none does, left for the caller's image after the frame); false when the frame
    /// cannot be re-run (no report: the server verifies after the frame).
    bool bisect(frame_t frame, const wire::stage_hashes &server, std::optional<world_image> &image) {
        const world_image *start = frame == 0 ? nullptr : checksums.image_after(frame - 1u);
        const std::byte *record = checksums.record(frame);
        if (server.after.empty() || !internal::can_bisect(step) || !start || !record) return false;
        if (!scratch) scratch.emplace(w.get_schema());
        if (!restore(*scratch, *start)) return false;
        wire::stage_report_msg r;
        r.frame = frame;
        bisecting = true; // a game asking is_resimulating() skips presentation side effects
        try {
            internal::run_staged(*scratch, step, frame_inputs{frame, players, isz, record}, r.client,
                                 [&](std::uint8_t point, const world &sw) {
                                     if (r.upload_point != wire::stage_none || r.client.names != server.names ||
                                         server.after.size() != step.stages())
                                         return;
                                     const bool at_start = point == wire::stage_start;
                                     if ((at_start ? r.client.start : r.client.after[point]) !=
                                         (at_start ? server.start : server.after[point])) {
                                         r.upload_point = point;
                                         image = save(sw, frame); // mid-frame: it carries frame itself
                                     }
                                 });
        } catch (...) {
            bisecting = false;
            throw;
        }
        bisecting = false;
        if (r.upload_point == wire::stage_none && !checksums.image_after(frame)) return false;
        wire::encode(r, out);
        send(wire::channel::snapshots, out); // ahead of the chunks, on their ordered channel
        return true;
    }

    bool upload_forensic(frame_t frame, const wire::stage_hashes &server) {
        std::optional<world_image> staged;
        (void)bisect(frame, server, staged);
        const world_image *image = staged ? &*staged : checksums.image_after(frame);
        if (!image) return false;
        const auto file = encode_snapshot_file(*image, w.get_schema(), 1);
        internal::send_snapshot_chunks(frame, frame, file,
                                       [this](std::span<const std::byte> b) { send(wire::channel::snapshots, b); });
        return true;
    }

    // ---------------------------------------------------------------- simulation
    /// Frame @p f with its confirmed inputs where they are known, predictions elsewhere.
    step_request request(frame_t f) {
        return {&w, frame_inputs{f, players, isz, inputs.inputs_for(f)}, rollback.is_resimulating()};
    }

    void compute_checksums() {
        const std::uint64_t start = tracer ? tracer->now() : 0;
        checksums.advance(
            inputs.confirmed_end(), w, current, [this](frame_t f) { return rollback.find(f); },
            [this](frame_t f, std::uint64_t h) {
                if (report_checksums)
                    if (frame_telemetry *e = telemetry.find(f)) e->hash_checked = true;
                if (hash_cb) hash_cb(f, h);
            },
            [this](frame_t f) { return inputs.confirmed(f); });
        if (tracer) tracer->complete(trace_id(trace_name::checksum), start, tracer->now());
    }

    /// One tick as a coroutine that yields each frame to simulate (docs/net.md, "Poll mode"):
    /// `tick` steps them with the game's step, `tick_requests` hands them to the caller.
    step_requests tick_program(std::span<const std::byte> input) {
        co_await step_requests::promise_type::on_abandon{&impl::abandoned, this};
        const internal::tick_guard running{ticking, "client_session::tick"};
        if (state != client_state::running) co_return false;
        // Copied before the first request: the caller's span may be gone when the tick resumes.
        local.assign(input.begin(), input.end());
        clock.ticked();
        frame_telemetry *const tel = open_telemetry(); // null with telemetry off
        trace_recorder *const tr = tracer.get();       // null with the trace off
        const std::uint64_t tick_start = tr ? tr->now() : 0;
        const frame_t tick_frame = current;
        // Restore the first frame whose confirmed inputs differ from the ones it was simulated
        // with and re-simulate up to the present (docs/net.md, "The model").
        if (const frame_t from = inputs.take_first_wrong(); from != no_frame && from < current) {
            const std::uint64_t rollback_start = tr ? tr->now() : 0;
            if (auto r = rollback.begin(w, from); !r) {
                emit(session_event_kind::desync_detected, from, slot, "cannot roll back: " + r.message());
            } else {
                const std::uint64_t resim_start = tel ? telemetry_us() : 0;
                const internal::rollback::resimulation guard{rollback};
                for (frame_t f = from; f < current; ++f) {
                    const std::uint64_t resim_at = tr ? tr->now() : 0;
                    rollback.before(w, f);
                    const std::uint64_t resim_step = tr ? tr->now() : 0;
                    co_yield request(f);
                    if (tr) {
                        const std::uint64_t end = tr->now();
                        tr->complete(trace_id(trace_name::step), resim_step, end, trace_track::tick, f);
                        tr->complete(trace_id(trace_name::resimulate), resim_at, end, trace_track::tick, f);
                    }
                }
                if (tr)
                    tr->complete(trace_id(trace_name::rollback), rollback_start, tr->now(), trace_track::tick,
                                 current - from, from);
                ++st.rollbacks;
                st.resimulated += current - from;
                if (tel) {
                    tel->rollback_depth = std::max(tel->rollback_depth, current - from);
                    tel->resimulated += current - from;
                    tel->resimulate_us += internal::telemetry_span_us(resim_start, telemetry_us());
                }
            }
        }
        compute_checksums();
        if (slot < 0) { // spectator: confirmed frames only
            if (current >= inputs.confirmed_end()) {
                close_telemetry(tel);
                close_trace(tick_start, tick_frame);
                co_return false;
            }
            const step_request next = advance();
            const std::uint64_t step_start = tel ? telemetry_us() : 0;
            const std::uint64_t traced_step = tr ? tr->now() : 0;
            co_yield next;
            if (tr) tr->complete(trace_id(trace_name::step), traced_step, tr->now(), trace_track::tick, tick_frame);
            if (tel) tel->step_us += internal::telemetry_span_us(step_start, telemetry_us());
            advanced();
            close_telemetry(tel);
            close_trace(tick_start, tick_frame);
            co_return true;
        }
        // Signed on purpose: a client that is behind the confirmed frames (current <
        // confirmed_end) is not predicting at all and must never stall.
        const frame_t confirmed_end = inputs.confirmed_end();
        if (current >= confirmed_end && current - confirmed_end >= cfg.prediction_window) {
            ++st.stall_frames;
            // Frames to wait: how far past the window this frame is, at least one (GGRS's
            // WaitRecommendation::skip_frames is the same figure).
            if (!stalled)
                emit(session_event_kind::wait_recommended, current, slot).count =
                    current - confirmed_end - cfg.prediction_window + 1u;
            stalled = true;
            send_inputs();
            if (tel) ++tel->stalls;
            close_telemetry(tel);
            if (tr) tr->instant(trace_id(trace_name::stall));
            close_trace(tick_start, tick_frame);
            co_return false;
        }
        stalled = false;
        // A delay increase leaves a gap frame: it repeats this input. A decrease makes this
        // frame's input overlap one already recorded: it is dropped. The server confirms both.
        inputs.add_local(current + delay.frames(), local);
        const step_request next = advance();
        const std::uint64_t step_start = tel ? telemetry_us() : 0; // the step runs while suspended
        const std::uint64_t traced_step = tr ? tr->now() : 0;
        co_yield next;
        if (tr) tr->complete(trace_id(trace_name::step), traced_step, tr->now(), trace_track::tick, tick_frame);
        if (tel) tel->step_us += internal::telemetry_span_us(step_start, telemetry_us());
        advanced();
        send_inputs();
        close_telemetry(tel);
        close_trace(tick_start, tick_frame);
        co_return true;
    }

    /// The current frame, to simulate once its start is saved.
    step_request advance() {
        if (corrupt) {
            corrupt(w);
            corrupt = nullptr;
        }
        const std::uint64_t save_start = tracer ? tracer->now() : 0;
        rollback.save(w, current);
        if (tracer) tracer->complete(trace_id(trace_name::save), save_start, tracer->now(), trace_track::tick, current);
        return request(current);
    }
    void advanced() {
        ++current;
        st.current_frame = current;
        compute_checksums();
    }

    /// The caller dropped a tick's step requests with @p frame not stepped: the world is between
    /// two frames, so the session ends.
    static void abandoned(void *self, frame_t frame, const std::string &why) noexcept {
        auto &s = *static_cast<impl *>(self);
        try {
            s.fail(frame, why.empty() ? "frame " + std::to_string(frame) + " was not stepped" : why);
        } catch (...) { // no memory for the text: the state still says it ended
            s.state = client_state::disconnected;
        }
    }
    void fail(frame_t frame, std::string why) {
        if (state != client_state::disconnected && state != client_state::rejected) leave();
        state = client_state::disconnected;
        emit(session_event_kind::session_failed, frame, slot, std::move(why));
    }

    /// Says goodbye to the server and closes the connection.
    void leave() {
        again.cancel(); // the player's choice: never undone by a reconnection
        wire::encode(wire::bye_msg{static_cast<std::uint8_t>(wire::bye_reason::leaving)}, out);
        send(wire::channel::control, out);
        net.flush();
        net.disconnect(0);
        state = client_state::disconnected;
    }

    /// A spectator has no inputs but still acknowledges confirmed frames (so the server knows
    /// what to resend) and shows it is alive.
    void send_ack() {
        imsg.slot = 0xff;
        imsg.first_frame = inputs.confirmed_end();
        imsg.count = 0;
        stamp_feedback();
        imsg.inputs.clear();
        wire::encode(imsg, isz, {}, out);
        send(wire::channel::inputs, out);
        last_ack_sent = now;
    }

    /// Fields every input message carries: our acknowledgement of confirmed frames, our clock
    /// (never 0, which means "no echo"), and the pending checksum (sent three times) if the
    /// server asked for checksums in its welcome.
    void stamp_feedback() {
        frame_t frame = no_frame;
        std::uint64_t h = 0;
        const bool report = checksums.next_report(frame, h) && report_checksums;
        imsg.ack_confirmed = inputs.confirmed_end();
        imsg.client_time_ms = static_cast<std::uint32_t>(now) | 1u;
        imsg.checksum_frame = report ? frame : no_frame;
        imsg.checksum = report ? h : 0;
    }

    void send_inputs() {
        if (slot < 0) return send_ack();
        frame_t first = 0;
        const std::uint32_t count = inputs.unacknowledged(max_frames_per_packet, window, first);
        imsg.slot = static_cast<std::uint8_t>(slot);
        imsg.first_frame = first;
        imsg.count = static_cast<std::uint8_t>(count);
        stamp_feedback();
        imsg.inputs.assign(window.begin(), window.end());
        wire::encode(imsg, isz, {}, out);
        const std::uint64_t start = tracer ? tracer->now() : 0;
        send(wire::channel::inputs, out);
        if (tracer)
            tracer->complete(trace_id(trace_name::send), start, tracer->now(), trace_track::tick,
                             static_cast<std::int64_t>(out.size()));
    }

    void poll(std::uint64_t t) {
        internal::tick_guard::refuse_while(ticking, "client_session::poll");
        now = std::max(now, t); // a clock that steps back is time standing still, never a wrap
        if (last_recv == 0) last_recv = now;
        if (!connect_started) {
            connect_start = now;
            connect_started = true;
        }
        const std::uint64_t poll_start = tracer ? tracer->now() : 0, received_before = bytes_in;
        net.poll(now, *this);
        if (tracer && bytes_in != received_before)
            tracer->complete(trace_id(trace_name::poll), poll_start, tracer->now(), trace_track::network,
                             static_cast<std::int64_t>(bytes_in - received_before));
        report_flight_failures();
        if (again.due(now)) start_attempt();
        if (state == client_state::connecting && !again.waiting() && opt.connect_timeout_ms != 0 &&
            now - std::min(now, connect_start) >= opt.connect_timeout_ms) {
            connect_failed();
            net.disconnect(0); // abandon the attempt
        }
        if (state == client_state::running || state == client_state::loading) {
            const std::uint64_t silent = now - last_recv;
            if (!interrupted && silent >= cfg.interrupt_ms) {
                interrupted = true;
                emit(session_event_kind::network_interrupted, current, slot);
            }
            if (silent >= cfg.disconnect_ms) {
                net.disconnect(0);
                lost(disconnect_cause::timed_out, "server silent for " + std::to_string(silent) + " ms");
                if (again.due(now)) start_attempt(); // the first attempt starts at once
            }
        }
        if (state == client_state::running && slot < 0 && static_cast<double>(now - last_ack_sent) >= clock.period())
            send_ack();
        adapt_delay();
        meter.update(now, st, bytes_in, bytes_out);
        if (confirmed_expected > 0)
            st.loss =
                1.0 - std::min(1.0, static_cast<double>(confirmed_packets) / static_cast<double>(confirmed_expected));
        net.flush();
    }

    bool should_tick(std::uint64_t t) {
        now = std::max(now, t);
        if (state != client_state::running) return false;
        const frame_t confirmed_end = inputs.confirmed_end();
        if (slot < 0) return current < confirmed_end && (clock.due(t) || confirmed_end - current > 2u);
        return clock.due(t);
    }
};

std::string client_options_problem(const client_options &o) {
    if (o.forensic_ms == 0 || o.forensic_ms > 60000)
        return "client_options: forensic_ms " + std::to_string(o.forensic_ms) + " is outside 1..60000";
    return {};
}

client_session::client_session(client_config config, world &w, step_function step, transport &t, client_options options)
    : impl_{std::make_unique<impl>(as_session_config(config), w, std::move(step), t, std::move(options))} {}
client_session::client_session(session_config config, world &w, step_function step, transport &t,
                               client_options options)
    : impl_{std::make_unique<impl>(std::move(config), w, std::move(step), t, std::move(options))} {}
client_session::~client_session() = default;

void client_session::poll(std::uint64_t now_ms) { impl_->poll(now_ms); }
bool client_session::should_tick(std::uint64_t now_ms) { return impl_->should_tick(now_ms); }
bool client_session::tick(std::span<const std::byte> input) {
    step_requests requests = impl_->tick_program(input);
    return impl_->stages ? internal::run_traced(requests, impl_->step, impl_->stages) : requests.run(impl_->step);
}
step_requests client_session::tick_requests(std::span<const std::byte> input) { return impl_->tick_program(input); }
bool client_session::next_event(session_event &out) { return impl_->events.pop(out); }
void client_session::leave() { impl_->leave(); }
client_state client_session::state() const noexcept { return impl_->state; }
bool client_session::reconnecting() const noexcept { return impl_->again.active(); }
const session_stats &client_session::stats() const noexcept { return impl_->st; }
int client_session::slot() const noexcept { return impl_->slot; }
std::size_t client_session::players() const noexcept { return impl_->players; }
std::uint16_t client_session::tick_hz() const noexcept {
    return impl_->players == 0 ? std::uint16_t{0} : impl_->cfg.tick_hz;
}
frame_t client_session::current_frame() const noexcept { return impl_->current; }
frame_t client_session::confirmed_frame() const noexcept { return impl_->inputs.confirmed_end(); }
bool client_session::is_predicted(frame_t frame, std::size_t slot) const {
    if (slot >= impl_->players)
        internal::misuse("client_session::is_predicted: slot %zu is outside the match's %zu player slots", slot,
                         impl_->players);
    return frame >= impl_->inputs.confirmed_end() && !impl_->inputs.is_confirmed(frame);
}
bool client_session::is_resimulating() const noexcept { return impl_->rollback.is_resimulating() || impl_->bisecting; }
retcon::reconnect_token client_session::reconnect_token() const noexcept { return impl_->token; }
void client_session::on_confirmed_hash(std::function<void(frame_t, std::uint64_t)> fn) {
    impl_->hash_cb = std::move(fn);
}
void client_session::debug_corrupt(std::function<void(world &)> corrupt) { impl_->corrupt = std::move(corrupt); }
std::size_t client_session::telemetry(std::span<frame_telemetry> out) const noexcept {
    return impl_->telemetry.read(out);
}
std::size_t client_session::telemetry_capacity() const noexcept { return impl_->telemetry.capacity(); }

trace_recorder *client_session::trace() noexcept { return impl_->tracer.get(); }
trace_writer *client_session::flight_recorder() noexcept { return impl_->flight; }
result<void> client_session::write_trace(const std::filesystem::path &path) const {
    if (!impl_->tracer)
        return {errc::invalid_argument, "this session keeps no trace (client_options::trace.records is 0)"};
    return impl_->tracer->write_json(path);
}

} // namespace retcon
