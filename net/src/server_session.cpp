#include <retcon/net/server_session.hpp>

#include <retcon/snapshot/file.hpp>
#include <retcon/snapshot/hash.hpp>
#include <retcon/snapshot/image.hpp>

#include <algorithm>
#include <string>

#include "config_check.hpp"
#include "event_queue.hpp"
#include "confirmed_stream.hpp"
#include "desync_verifier.hpp"
#include "match_recording.hpp"
#include "receive_slice.hpp"
#include <retcon/internal/refusal_limiter.hpp>
#include "server_connections.hpp"
#include "server_hello.hpp"
#include "slot_inputs.hpp"
#include "slot_table.hpp"
#include "snapshot_transfer.hpp"
#include "stage_trace.hpp"
#include "telemetry_ring.hpp"
#include "tick_guard.hpp"
#include "time_sync.hpp"

namespace retcon {

namespace {
constexpr std::uint32_t far_future_frames = 1024; // inputs further ahead than this are hostile
} // namespace

struct server_session::impl final : transport_handler, internal::coroutine_memory {
    using conn = internal::server_connection;

    session_config cfg;
    world &w;
    step_function step;
    transport &net;
    server_options opt;

    std::size_t players, isz;
    double period;
    bool started = false;
    std::uint64_t t0 = 0;
    frame_t f0 = 0;
    frame_t next_frame = 0;
    std::uint64_t now = 0;

    // The parts this session orchestrates (docs/net.md, "Inside the sessions"); each connection
    // is a part of its own (server_connection).
    internal::server_connections conns; // by peer, and the totals that outlive them
    internal::connection_limits limits; // every connection's deadlines and flood limit
    internal::refusal_limiter refusals; // connection_refused events: at most one a second
    internal::slot_table slots;         // who holds each player slot
    internal::slot_inputs inputs;       // each slot's inputs, and the record confirmed for each frame
    internal::confirmed_stream stream;  // the confirmed record of each recent frame, as sent
    internal::desync_verifier verifier; // checksums, uploads, diffs, forensic files (docs/net.md)

    world_image outgoing; // the snapshot being sent (within one call)
    internal::event_queue events;
    confirmed_frame_fn recorder;
    internal::match_recording recording; // server_options::record_path (docs/net.md)
    std::uint32_t transfer_id = 1;

    std::vector<std::byte> out;
    wire::input_msg imsg;
    bool ended = false;   // end_match was called: no more ticks, goodbyes out
    bool ticking = false; // a tick's step request is not stepped yet
    std::uint64_t end_started = 0;

    // Telemetry (docs/net.md, "Telemetry"): the ticks, and each player slot's client.
    internal::telemetry_ring<server_frame_telemetry> telemetry;
    struct slot_telemetry {
        internal::telemetry_ring<server_client_telemetry> ring;
        peer_id peer = no_peer; // whose byte totals the last entry counted from
        std::uint64_t in = 0, out = 0;
    };
    std::vector<slot_telemetry> per_slot;
    std::uint64_t bytes_in = 0, bytes_out = 0;    // every connection's, since the start
    std::unique_ptr<trace_recorder> tracer;       // null: no trace (docs/net.md, "Reading a trace")
    internal::stage_trace stages;                 // the step's stages, when traced
    double traced_players = -1, traced_sent = -1; // the counters as last recorded
    std::unique_ptr<trace_writer> own_flight;     // the flight recorder's writer when none is given
    trace_writer *flight = nullptr;               // null: no dumps (docs/net.md, "Reading a trace")
    std::uint64_t flight_failures = 0;            // own_flight's failed dumps reported
    std::uint64_t telemetry_in = 0, telemetry_out = 0;

    impl(session_config c, world &wr, step_function s, transport &t, server_options o)
        : cfg{std::move(c)}, w{wr}, step{std::move(s)}, net{t}, opt{std::move(o)} {
        internal::check_config(cfg);
        players = cfg.max_players;
        isz = cfg.input_size;
        period = 1000.0 / cfg.tick_hz;
        slots.reset(players);
        if (const std::string why = server_options_problem(opt); !why.empty()) internal::misuse("%s", why.c_str());
        inputs.reset(players, isz, far_future_frames, cfg.prediction);
        stream.reset(players, isz, opt.history_frames);
        verifier.reset(opt);
        telemetry.reset(opt.telemetry.frames);
        per_slot.resize(telemetry.enabled() ? players : 0);
        for (auto &held : per_slot) held.ring.reset(opt.telemetry.frames);
        if (opt.trace.records != 0) {
            trace_options traced = opt.trace;
            if (traced.process_name.empty()) traced.process_name = "retcon server";
            tracer = std::make_unique<trace_recorder>(traced);
            stages.reset(tracer.get(), step);
            if (!opt.forensics_dir.empty()) {
                if (!opt.flight_writer) own_flight = std::make_unique<trace_writer>();
                flight = opt.flight_writer ? opt.flight_writer : own_flight.get();
                flight->reserve(*tracer);
            }
        }
        limits = {cfg.interrupt_ms,      cfg.disconnect_ms,      opt.hello_timeout_ms,      opt.load_timeout_ms,
                  opt.upload_timeout_ms, opt.resync_interval_ms, opt.max_packets_per_second};
    }

    /// Every event of the session leaves through here: the parts return facts, never events;
    /// the caller fills the fields its kind carries (docs/net.md, "Events").
    session_event &emit(session_event_kind k, frame_t frame, int s = -1, std::string text = {}) {
        session_event &e = events.emit(k, frame, s, std::move(text));
        if (tracer) tracer->instant(trace_id(trace_name::event) + static_cast<trace_name_id>(k), e.text);
        return e;
    }

    void send(conn &c, wire::channel ch, std::span<const std::byte> data) {
        c.count_sent(data.size());
        bytes_out += data.size();
        net.send(c.peer(), ch, data);
    }

    double deadline(frame_t f) const { return static_cast<double>(t0) + (static_cast<double>(f) - f0) * period; }

    // ---------------------------------------------------------------- connections
    void on_connect(peer_id peer) override {
        if (ended) return net.disconnect(peer); // the match is over: nobody new joins
        (void)conns.connect(peer, net.peer_address(peer), now);
    }

    /// The transport refused a connection before any handshake (its caps and deadlines).
    void on_refused(const std::string &address, const std::string &reason) override { refused(address, reason); }

    /// Reports a connection refused before its handshake, at most once a second: a flood of
    /// half-open connections must not become a flood of events (docs/net.md, "Security model").
    void refused(const std::string &address, const std::string &why) {
        if (auto report = refusals.refused(now, address, why)) {
            session_event &e = emit(session_event_kind::connection_refused, next_frame, -1, std::move(report->text));
            e.count = report->count;
            e.address = address;
        }
    }

    void on_disconnect(peer_id peer) override {
        // Before its hello a connection is nobody yet: its end (the transport culling pending
        // connections, or the remote giving up) is a rate-limited refusal, not an event each.
        if (const conn *c = conns.find(peer); c && !c->active()) {
            refused(c->address(), "connection closed before its hello");
            conns.remove(peer);
            return;
        }
        // Once the match has ended, closing the connection answers the goodbye as a bye would.
        if (ended) drop(peer, disconnect_cause::match_ended, "match ended", false);
        else
            drop(peer, disconnect_cause::closed, "connection closed", false);
    }

    /// The transport ended a connection for breaking its rules (a packet over its size limit):
    /// a violation like any other. The on_disconnect that follows finds it gone.
    void on_violation(peer_id peer, const std::string &text) override {
        if (conn *c = conns.find(peer)) hostile(*c, text);
    }

    /// Ends a connection for @p cause (@p reject: the reason of a rejection): player_left for a
    /// player, then disconnected, both with the facts (docs/net.md, "Events").
    void drop(peer_id peer, disconnect_cause cause, const std::string &why, bool kick,
              wire::reject_reason reject = wire::reject_reason::none) {
        conn *found = conns.find(peer);
        if (!found) return;
        conn &c = *found;
        const auto facts = [&](session_event &e) {
            e.cause = cause;
            e.reject = reject;
            e.name = c.name();
            e.address = c.address();
        };
        if (c.active() && c.slot() >= 0) {
            slots.leave(static_cast<std::size_t>(c.slot()), c.upload().used(), c.false_claims());
            facts(emit(session_event_kind::player_left, next_frame, c.slot(), why));
        }
        facts(emit(session_event_kind::disconnected, next_frame, c.active() ? c.slot() : -1, why));
        (void)verifier.abandon(c.upload());
        if (kick) net.disconnect(peer);
        conns.remove(peer); // its totals outlive it
    }

    void hostile(conn &c, const std::string &why) {
        // Said before the close (reliable, so it arrives first), so that a client that
        // reconnects by itself knows not to (docs/net.md, "Reconnecting").
        wire::encode(wire::bye_msg{static_cast<std::uint8_t>(wire::bye_reason::violation)}, out);
        send(c, wire::channel::control, out);
        drop(c.peer(), disconnect_cause::violation, "disconnected: " + why + " (" + c.describe() + ")", true);
    }

    void reject(conn &c, wire::reject_reason reason, const std::string &text) {
        wire::reject_msg m{reason, text};
        wire::encode(m, out);
        send(c, wire::channel::control, out);
        net.flush();
        drop(c.peer(), disconnect_cause::rejected, "rejected: " + text + " (" + c.describe() + ")", true, reason);
    }

    void send_snapshot(conn &c) {
        save(w, outgoing, next_frame);
        const auto file = encode_snapshot_file(outgoing, w.get_schema(), 1);
        internal::send_snapshot_chunks(transfer_id++, next_frame, file,
                                       [&](std::span<const std::byte> b) { send(c, wire::channel::snapshots, b); });
        c.snapshot_sent(next_frame, now);
    }

    /// Asks for a resynchronising snapshot: sent now, or once resync_interval_ms has passed
    /// since the last one (poll sends it). False when it had to wait.
    bool request_resync(conn &c) {
        if (!c.want_resync(now, limits)) return false;
        send_snapshot(c);
        return true;
    }

    void handle_hello(conn &c, std::span<const std::byte> data) {
        wire::hello_msg h;
        if (auto r = wire::decode(data, h); !r) {
            // Another version's hello has another layout: refuse it by name, never as hostile.
            if (r.code() == errc::bad_version && !c.active())
                return reject(c, wire::reject_reason::protocol, wire::version_refusal(wire::peek_hello_version(data)));
            return hostile(c, "malformed hello: " + r.message());
        }
        if (c.active()) return; // duplicate hello: ignored
        c.set_name(h.name);     // for the log, also if refused
        const internal::hello_verdict v =
            internal::judge_hello(c.peer(), h, w.schema_hash(), cfg, opt, conns.spectators(), slots);
        if (!v.admitted) return reject(c, v.reason, v.text);
        if (v.name) c.set_name(*v.name); // the admission's name (a join token's) over the hello's
        if (v.replaces != no_peer) drop(v.replaces, disconnect_cause::replaced, v.replace_reason, true);
        const int slot = v.slot;
        net.admit(c.peer()); // no longer pending: the transport's culling never touches it
        // Player slots, tick rate and input delays are the server's: the welcome tells the client.
        wire::welcome_msg m = internal::make_welcome(cfg, next_frame, slot, opt.verify_spectators);
        std::uint32_t uploads = 0, false_claims = 0;
        if (slot >= 0) {
            const auto s = static_cast<std::size_t>(slot);
            const auto &taken = slots.take(s, c.peer(), !h.reconnect_token.empty(), v.player_id);
            inputs.assign(s);
            uploads = taken.uploads;
            false_claims = taken.false_claims;
            m.slot = static_cast<std::uint8_t>(slot);
            m.token = taken.token;
        }
        c.activate(slot, next_frame, uploads, false_claims);
        wire::encode(m, out);
        send(c, wire::channel::control, out);
        send_snapshot(c);
        if (slot >= 0) {
            // The text is for logs, the name field the fact (docs/net.md, "Events").
            session_event &e = emit(session_event_kind::player_joined, next_frame, slot, internal::printable(c.name()));
            e.name = c.name();
            e.address = c.address();
        }
    }

    void handle_input(conn &c, std::span<const std::byte> data) {
        if (!c.active()) return hostile(c, "input before the handshake");
        if (auto r = wire::decode(data, isz, {}, imsg); !r) return hostile(c, "malformed input packet: " + r.message());
        if (c.slot() < 0) { // a spectator only acknowledges (and may report checksums)
            if (imsg.slot != 0xff || imsg.count != 0) return hostile(c, "a spectator sent inputs");
            return note_feedback(c);
        }
        if (imsg.slot != c.slot())
            return hostile(c, "input claimed for slot " + std::to_string(imsg.slot) + ", this client holds " +
                                  std::to_string(c.slot()));
        if (imsg.first_frame + imsg.count > next_frame + far_future_frames)
            return hostile(c, "input for frame " + std::to_string(imsg.first_frame) + ", far beyond server frame " +
                                  std::to_string(next_frame));
        const auto slot = static_cast<std::size_t>(c.slot());
        if (imsg.count > 0) inputs.note_inputs(slot, imsg.first_frame, next_frame);
        for (std::uint32_t k = 0; k < imsg.count; ++k) {
            const frame_t f = imsg.first_frame + k;
            c.note_arrival(f, [this](frame_t g) { return deadline(g) - static_cast<double>(now); });
            if (f >= next_frame) inputs.receive(slot, f, imsg.inputs.data() + std::size_t{k} * isz);
        }
        note_feedback(c);
    }

    /// What every input message carries besides inputs: the client's acknowledgement of
    /// confirmed frames, its clock for the round trip, and a checksum to compare.
    void note_feedback(conn &c) {
        c.note_feedback(imsg.ack_confirmed, next_frame, imsg.client_time_ms, now);
        if (imsg.checksum_frame != no_frame) check_hash(c, imsg.checksum_frame, imsg.checksum);
    }

    /// A mismatch no upload verified. @p false_claim: the client's own upload contradicted its
    /// claim (unreadable, or no difference) — the only reason the client answers for; past
    /// max_false_claims it is dropped and this returns false (@p c is then gone). Reasons that
    /// are the server's (quota, budget, its snapshot gone) or the link's (no upload in time)
    /// are counted, never held against the client.
    bool note_unverified(conn &c, frame_t frame, unverified_reason reason, const std::string &why,
                         bool false_claim = false, const std::filesystem::path &trace_file = {}) {
        ++c.stats().unverified_desyncs;
        emit(session_event_kind::desync_unverified, frame, c.slot(), "checksum mismatch not verified: " + why)
            .unverified = reason;
        // The flight recorder, after the event so the trace shows it: the file verify named with
        // the forensic files, or one of its own.
        if (flight) flight_dump(trace_file.empty() ? verifier.unverified_trace_file(frame, c.slot()) : trace_file);
        if (!false_claim) return true;
        const std::uint32_t claims = c.add_false_claim();
        if (claims <= opt.max_false_claims) return true;
        hostile(c, std::to_string(claims) + " checksum mismatches its own snapshot uploads contradicted");
        return false;
    }

    void check_hash(conn &c, frame_t frame, std::uint64_t h) {
        // Spectators report only when asked (welcome flags); a claim nobody asked for is ignored.
        if (!c.wants_claim(frame, opt.verify_spectators)) return;
        std::string unverified;
        unverified_reason reason = unverified_reason::none;
        const auto outcome = verifier.claim(frame, h, c.upload(), stream.history(), now, reason, unverified);
        if (outcome == internal::desync_verifier::claim_outcome::not_held) return;
        c.claim_compared(frame);
        if (outcome == internal::desync_verifier::claim_outcome::agrees) return;
        if (reason != unverified_reason::none && !note_unverified(c, frame, reason, unverified)) return;
        // An empty text asks the client for its snapshot; otherwise say why not (a client
        // uploads only when asked).
        const std::string text = unverified.empty() ? "" : "checksum mismatch (not diffed: " + unverified + ")";
        wire::desync_msg m{frame, text};
        // Desync bisection (docs/net.md, "Desync forensics"): the server's hashes of the frame
        // re-run stage by stage travel with the request, so the client can upload its image
        // where the two first differ.
        if (outcome == internal::desync_verifier::claim_outcome::upload_requested &&
            verifier.prepare_bisection(c.upload(), w.get_schema(), stream.history(), step, players, isz))
            m.server = c.upload().server_stages();
        wire::encode(m, out);
        send(c, wire::channel::control, out);
        request_resync(c); // at once, or when resync_interval_ms allows
    }

    void handle_upload(conn &c, std::span<const std::byte> data) {
        wire::snapshot_chunk_msg m;
        if (auto r = wire::decode(data, m); !r) return hostile(c, "malformed snapshot chunk: " + r.message());
        switch (c.upload().add(m)) {
        case internal::forensic_upload::chunk::late: return; // of a request that timed out or was answered
        case internal::forensic_upload::chunk::unrequested: return hostile(c, "unrequested snapshot upload");
        case internal::forensic_upload::chunk::inconsistent:
            return hostile(c, "inconsistent or oversized snapshot upload (cap " + std::to_string(c.upload().cap()) +
                                  " bytes)");
        case internal::forensic_upload::chunk::accepted: return;
        case internal::forensic_upload::chunk::complete: break;
        }
        const auto v =
            verifier.verify(c.upload(), c.describe(), c.slot(), w.get_schema(), stream.history(), step, players, isz);
        wire::desync_msg dm{v.frame, v.names};
        if (v.verified && v.stage != wire::stage_none) {
            dm.stage = v.stage;
            dm.stage_count = v.stage_count;
        }
        wire::encode(dm, out);
        send(c, wire::channel::control, out);
        for (const auto &f : v.files_failed) // the verdict stands; the operator learns the files are missing
            emit(session_event_kind::recording_failed, v.frame, c.slot(), f.path.string() + ": " + f.why).path =
                f.path.string();
        if (!v.verified) {
            (void)note_unverified(c, v.frame, v.reason, v.names, v.false_claim, v.trace_file);
            return;
        }
        ++c.stats().desyncs;
        session_event &e = emit(session_event_kind::desync_detected, v.frame, c.slot(), v.verdict);
        e.diverging = v.diverging;
        if (v.stage != wire::stage_none) {
            e.stage = v.stage_name;
            e.stage_index = v.stage == wire::stage_start ? -1 : int{v.stage};
            e.stage_count = v.stage_count;
        }
        if (flight) flight_dump(v.trace_file); // after the event, so the trace shows it
    }

    /// A client's stage hashes of a frame whose upload the server asked for, ahead of its
    /// chunks on the same channel (docs/net.md, "Desync forensics").
    void handle_stage_report(conn &c, std::span<const std::byte> data) {
        wire::stage_report_msg m;
        if (auto r = wire::decode(data, m); !r) return hostile(c, "malformed stage report: " + r.message());
        switch (c.upload().add(m)) {
        case internal::forensic_upload::chunk::late: return;
        case internal::forensic_upload::chunk::unrequested: return hostile(c, "unrequested stage report");
        case internal::forensic_upload::chunk::inconsistent:
            return hostile(c, "stage report out of turn (a second one, after the upload began, or none was asked for)");
        case internal::forensic_upload::chunk::accepted:
        case internal::forensic_upload::chunk::complete: return;
        }
    }

    void on_receive(peer_id peer, wire::channel ch, std::span<const std::byte> data) override {
        const internal::receive_slice traced{tracer.get(), data};
        conn *found = conns.find(peer);
        if (!found) return;
        conn &c = *found;
        bytes_in += data.size();
        if (c.heard(now, data.size())) emit(session_event_kind::network_resumed, next_frame, c.slot());
        // Chunks of an upload the server asked for are bounded by its cap and timeout instead:
        // an honest upload of half a megabyte is more than 600 packets a second on a fast link.
        const bool awaited_chunk = ch == wire::channel::snapshots && c.upload().awaiting();
        if (c.flooding(now, limits, awaited_chunk)) return hostile(c, "packet flood");
        if (ch == wire::channel::inputs && data.size() > wire::limits::max_packet)
            return hostile(c, "oversized packet (" + std::to_string(data.size()) + " bytes)");
        const auto kind = static_cast<wire::message_kind>(wire::peek_kind(data));
        switch (kind) {
        case wire::message_kind::hello:
            if (ch != wire::channel::control) return hostile(c, "hello on the wrong channel");
            return handle_hello(c, data);
        case wire::message_kind::input:
            if (ch != wire::channel::inputs) return hostile(c, "input on the wrong channel");
            return handle_input(c, data);
        case wire::message_kind::snapshot_chunk:
            if (ch != wire::channel::snapshots) return hostile(c, "snapshot chunk on the wrong channel");
            return handle_upload(c, data);
        case wire::message_kind::stage_report:
            if (ch != wire::channel::snapshots) return hostile(c, "stage report on the wrong channel");
            return handle_stage_report(c, data);
        case wire::message_kind::bye: // while ending: the client acknowledges our goodbye
            return ended ? drop(peer, disconnect_cause::match_ended, "match ended", true)
                         : drop(peer, disconnect_cause::left, "left the match", true);
        default: return hostile(c, "unexpected message kind " + std::to_string(static_cast<int>(kind)));
        }
    }

    // ---------------------------------------------------------------- recording
    void recording_failed(const result<void> &r) {
        if (!r)
            emit(session_event_kind::recording_failed, next_frame, -1, opt.record_path.string() + ": " + r.message())
                .path = opt.record_path.string();
    }

    /// Creates the replay at the first tick, with the world as it is before that frame.
    void start_recording() {
        replay_settings rs = opt.record_settings;
        rs.players = static_cast<std::uint32_t>(players);
        rs.input_size = static_cast<std::uint32_t>(isz);
        rs.tick_hz = cfg.tick_hz;
        recording_failed(recording.start(opt.record_path, w, next_frame, std::move(rs)));
    }

    // ---------------------------------------------------------------- tick
    /// One tick as a coroutine that yields the frame to simulate (docs/net.md, "Poll mode"):
    /// `tick` steps it with the game's step, `tick_requests` hands it to the caller.
    step_requests tick_program() {
        co_await step_requests::promise_type::on_abandon{&impl::abandoned, this};
        const internal::tick_guard running{ticking, "server_session::tick"};
        if (ended) co_return false;
        if (next_frame == max_frame) { // frame numbers never wrap (docs/frames.md)
            end_match();
            co_return false;
        }
        const bool timed = telemetry.enabled();
        const std::uint64_t tick_start = timed ? telemetry_us() : 0;
        trace_recorder *const tr = tracer.get(); // null with the trace off
        const std::uint64_t traced_tick = tr ? tr->now() : 0;
        if (!recording.started()) start_recording();
        const frame_t f = next_frame;
        std::byte *r = stream.put(f);
        std::uint32_t replaced = 0;
        inputs.confirm(
            f, frame_record{players, isz, r},
            [this](std::size_t s) -> conn * {
                return slots[s].owner == no_peer ? nullptr : conns.find(slots[s].owner);
            },
            [&replaced](conn *c) {
                ++c->stats().replaced_inputs;
                ++replaced;
            });
        const frame_inputs fi{f, players, isz, r};
        const std::uint64_t traced_step = tr ? tr->now() : 0;
        if (tr) tr->complete(trace_id(trace_name::confirm), traced_tick, traced_step, trace_track::tick, replaced);
        const std::uint64_t step_start = timed ? telemetry_us() : 0; // the step runs while suspended
        co_yield step_request{&w, fi, false};
        const std::uint64_t step_end = timed ? telemetry_us() : 0;
        std::uint64_t traced = tr ? tr->now() : 0;
        if (tr) tr->complete(trace_id(trace_name::step), traced_step, traced, trace_track::tick, f);
        const bool checksum = cfg.checksum_interval != 0 && f % cfg.checksum_interval == 0;
        std::uint64_t h = 0;
        if (checksum || recorder || recording.recording()) h = hash(w);
        if (checksum) verifier.note(w, f, f / cfg.checksum_interval, h);
        if (tr) traced = trace_span(trace_name::hash, traced, f);
        if (recording.recording()) recording_failed(recording.add(fi, w, h, tr));
        if (recorder) recorder(fi, w, h);
        if (tr) traced = trace_span(trace_name::record, traced, f);
        ++next_frame;
        const std::uint64_t sent_before = bytes_out;
        broadcast();
        if (tr) {
            trace_span(trace_name::send, traced, static_cast<std::int64_t>(bytes_out - sent_before));
            close_trace(traced_tick, f, bytes_out - sent_before);
        }
        if (timed) note_tick(fi, tick_start, step_start, step_end);
        co_return true;
    }

    // ---------------------------------------------------------------- trace (docs/net.md, "Reading a trace")
    /// A slice named @p n from @p start to now on the tick track; returns now.
    std::uint64_t trace_span(trace_name n, std::uint64_t start, std::int64_t arg) {
        const std::uint64_t end = tracer->now();
        tracer->complete(trace_id(n), start, end, trace_track::tick, arg);
        return end;
    }
    /// The tick slice from @p start, and the counters that changed: players, and @p sent bytes.
    void close_trace(std::uint64_t start, frame_t f, std::uint64_t sent) {
        tracer->complete(trace_id(trace_name::tick), start, tracer->now(), trace_track::tick, f);
        const auto note = [this](trace_name n, double v, double &last) {
            if (v != last) tracer->counter(trace_id(n), v);
            last = v;
        };
        note(trace_name::players, static_cast<double>(slots.occupied()), traced_players);
        note(trace_name::bytes_out, static_cast<double>(sent), traced_sent);
    }

    // ---------------------------------------------------------------- telemetry (docs/net.md)
    [[nodiscard]] std::uint64_t telemetry_us() const noexcept {
        return internal::telemetry_now_us(opt.telemetry.clock);
    }

    /// Keeps what the tick of @p fi cost and carried, and each slot's figures as of it.
    void note_tick(const frame_inputs &fi, std::uint64_t tick_start, std::uint64_t step_start, std::uint64_t step_end) {
        server_frame_telemetry &e = *telemetry.open(fi.frame());
        e.step_us = internal::telemetry_span_us(step_start, step_end);
        e.bytes_in = internal::telemetry_delta(bytes_in, telemetry_in);
        e.bytes_out = internal::telemetry_delta(bytes_out, telemetry_out);
        e.players = static_cast<std::uint8_t>(slots.occupied());
        for (std::size_t s = 0; s < players; ++s) {
            slot_telemetry &t = per_slot[s];
            server_client_telemetry &c = *t.ring.open(fi.frame());
            c.input_replaced = fi.present(s) && fi.replaced(s);
            e.replaced_inputs += c.input_replaced ? 1u : 0u;
            const peer_id owner = slots[s].owner;
            const conn *holder = owner == no_peer ? nullptr : conns.find(owner);
            if (!holder) {
                t.peer = no_peer;
                continue;
            }
            if (t.peer != owner) { // a new holder: its totals count from its connection
                t.peer = owner;
                t.in = t.out = 0;
            }
            c.present = true;
            c.margin_ms = holder->stats().margin_ms;
            c.rtt_ms = static_cast<float>(holder->stats().rtt_ms);
            c.bytes_in = internal::telemetry_delta(holder->bytes_in(), t.in);
            c.bytes_out = internal::telemetry_delta(holder->bytes_out(), t.out);
        }
        e.tick_us = internal::telemetry_span_us(tick_start, telemetry_us());
    }

    /// The caller dropped a tick's step request with @p frame not stepped: the world is between
    /// two frames, so the match ends.
    static void abandoned(void *self, frame_t frame, const std::string &why) noexcept {
        auto &s = *static_cast<impl *>(self);
        try {
            s.emit(session_event_kind::session_failed, frame, -1,
                   why.empty() ? "frame " + std::to_string(frame) + " was not stepped" : why);
            s.end_match();
        } catch (...) { // no memory for the text or the goodbyes: stop ticking at least
            s.ended = true;
        }
    }

    void broadcast() {
        for (auto &[peer, c] : conns) {
            if (!c.active()) continue;
            frame_t first = c.first_unacknowledged();
            if (stream.hopeless(first, next_frame)) { // start over from a snapshot
                // Never a second snapshot behind one not yet loaded: a slow loader would only
                // fall further behind (load_timeout_ms ends the wait).
                if (!c.loaded() || !request_resync(c)) continue;
                first = c.sync_frame();
            }
            if (c.throttled(first, next_frame, now, limits)) continue; // its acknowledgements stopped
            const frame_t ack_input =
                c.slot() >= 0 ? inputs.first_missing(static_cast<std::size_t>(c.slot()), next_frame) : next_frame;
            stream.encode(c, first, next_frame, ack_input, now, out);
            send(c, wire::channel::inputs, out);
        }
        net.flush();
    }

    /// The flight recorder: a copy of the trace queued to be written to @p path (empty: none due).
    void flight_dump(const std::filesystem::path &path) {
        if (!path.empty()) (void)flight->submit(*tracer, path.native()); // a full queue counts the drop
    }

    /// Dumps the session's own writer could not write, reported once each (from poll).
    void report_flight_failures() {
        if (!own_flight || own_flight->failed() == flight_failures) return;
        flight_failures = own_flight->failed();
        for (const trace_write_failure &f : own_flight->take_failures())
            emit(session_event_kind::recording_failed, next_frame, -1, f.path.string() + ": " + f.why).path =
                f.path.string();
    }

    void poll(std::uint64_t t) {
        internal::tick_guard::refuse_while(ticking, "server_session::poll");
        t = std::max(now, t); // a clock that steps back is time standing still, never a wrap
        now = t;
        if (!started) {
            started = true;
            t0 = t;
            f0 = next_frame;
        }
        const std::uint64_t poll_start = tracer ? tracer->now() : 0, received_before = bytes_in;
        net.poll(t, *this);
        if (tracer && bytes_in != received_before)
            tracer->complete(trace_id(trace_name::poll), poll_start, tracer->now(), trace_track::network,
                             static_cast<std::int64_t>(bytes_in - received_before));
        report_flight_failures();
        std::vector<peer_id> silent;
        for (auto &[peer, c] : conns) {
            const internal::connection_silence quiet = c.quiet(now, limits);
            if (quiet.interrupted) emit(session_event_kind::network_interrupted, next_frame, c.slot());
            if (quiet.silent) silent.push_back(peer);
            c.note_link(net.peer_stats(peer), now);
        }
        for (const auto p : silent)
            drop(p, disconnect_cause::timed_out, "silent for " + std::to_string(cfg.disconnect_ms) + " ms", true);
        enforce_deadlines();
        if (ended && !conns.empty() && now - end_started >= opt.end_timeout_ms) {
            std::vector<peer_id> left;
            for (const auto &[peer, c] : conns) left.push_back(peer);
            for (const auto p : left)
                drop(p, disconnect_cause::timed_out,
                     "match ended; goodbye not acknowledged within " + std::to_string(opt.end_timeout_ms) + " ms",
                     true);
        }
    }

    /// Half-open connections, stalled uploads and deferred resyncs (docs/net.md, "Security model").
    void enforce_deadlines() {
        std::vector<peer_id> half_open, stalled, not_loading;
        for (auto &[peer, c] : conns) {
            switch (c.passed_deadline(now, limits)) {
            case internal::connection_deadline::none: break;
            case internal::connection_deadline::hello: half_open.push_back(peer); break;
            case internal::connection_deadline::load: not_loading.push_back(peer); break;
            case internal::connection_deadline::upload: stalled.push_back(peer); break;
            case internal::connection_deadline::resync: send_snapshot(c); break;
            }
        }
        // Each list holds connections still there: dropping one drops no other.
        for (const auto p : not_loading)
            if (conn *c = conns.find(p))
                hostile(*c, "did not acknowledge its snapshot within " + std::to_string(opt.load_timeout_ms) + " ms");
        if (auto report = refusals.flush(now)) // a burst, then quiet: say how many
            emit(session_event_kind::connection_refused, next_frame, -1, std::move(report->text)).count = report->count;
        for (const auto p : half_open) {
            if (const conn *c = conns.find(p))
                refused(c->address(), "no hello within " + std::to_string(opt.hello_timeout_ms) + " ms of connecting");
            net.disconnect(p);
            conns.remove(p);
        }
        for (const auto p : stalled) {
            conn *c = conns.find(p);
            if (!c) continue;
            const frame_t frame = verifier.abandon(c->upload());
            (void)note_unverified(*c, frame, unverified_reason::upload_timed_out,
                                  "the client's snapshot did not arrive within " +
                                      std::to_string(opt.upload_timeout_ms) + " ms");
        }
    }

    // ---------------------------------------------------------------- ending (docs/net.md)
    /// Starts the ending: the recording is finished, every client gets a goodbye, and poll()
    /// drops each one as it acknowledges (a bye back, or a disconnect) or at the timeout.
    void end_match() {
        if (ended) return;
        ended = true;
        end_started = now;
        recording_failed(recording.finish());
        wire::encode(wire::bye_msg{static_cast<std::uint8_t>(wire::bye_reason::match_ended)}, out);
        std::vector<peer_id> joining;
        for (auto &[peer, c] : conns) {
            if (c.active()) send(c, wire::channel::control, out);
            else
                joining.push_back(peer); // mid-handshake: nothing to say goodbye to
        }
        net.flush();
        for (const auto p : joining) drop(p, disconnect_cause::match_ended, "match ended", true);
    }

    bool finished() const noexcept { return ended && conns.empty(); }
};

std::string server_options_problem(const server_options &o) {
    if (o.hello_timeout_ms == 0) return "server_options: hello_timeout_ms must be positive";
    if (o.upload_timeout_ms == 0) return "server_options: upload_timeout_ms must be positive";
    if (o.load_timeout_ms == 0) return "server_options: load_timeout_ms must be positive";
    if (o.forensic_interval == 0) return "server_options: forensic_interval must be positive";
    return {};
}

server_session::server_session(session_config config, world &w, step_function step, transport &t,
                               server_options options)
    : impl_{std::make_unique<impl>(std::move(config), w, std::move(step), t, std::move(options))} {}
server_session::~server_session() = default;

void server_session::poll(std::uint64_t now_ms) { impl_->poll(now_ms); }
bool server_session::ended() const noexcept { return impl_->ended; }
bool server_session::should_tick(std::uint64_t now_ms) const {
    return impl_->started && !impl_->ended && static_cast<double>(now_ms) >= impl_->deadline(impl_->next_frame);
}
void server_session::tick() {
    step_requests requests = impl_->tick_program();
    if (impl_->stages) (void)internal::run_traced(requests, impl_->step, impl_->stages);
    else
        (void)requests.run(impl_->step);
}
step_requests server_session::tick_requests() { return impl_->tick_program(); }
bool server_session::next_event(session_event &out) { return impl_->events.pop(out); }
void server_session::end_match() { impl_->end_match(); }
bool server_session::finished() const noexcept { return impl_->finished(); }
frame_t server_session::frame() const noexcept { return impl_->next_frame; }
int server_session::players() const noexcept { return static_cast<int>(impl_->slots.occupied()); }
session_stats server_session::client_stats(int slot) const {
    if (slot < 0 || static_cast<std::size_t>(slot) >= impl_->players) return {};
    const auto owner = impl_->slots[static_cast<std::size_t>(slot)].owner;
    const auto *c = impl_->conns.find(owner);
    return c ? c->stats() : session_stats{};
}
session_stats server_session::totals() const {
    session_stats t = impl_->conns.totals();
    t.current_frame = impl_->next_frame;
    return t;
}
void server_session::on_confirmed(confirmed_frame_fn fn) { impl_->recorder = std::move(fn); }

bool server_session::knows(const reconnect_token &token) const noexcept { return impl_->slots.knows(token); }

std::size_t server_session::telemetry(std::span<server_frame_telemetry> out) const noexcept {
    return impl_->telemetry.read(out);
}
std::size_t server_session::client_telemetry(int slot, std::span<server_client_telemetry> out) const noexcept {
    if (slot < 0 || static_cast<std::size_t>(slot) >= impl_->per_slot.size()) return 0;
    return impl_->per_slot[static_cast<std::size_t>(slot)].ring.read(out);
}
std::size_t server_session::telemetry_capacity() const noexcept { return impl_->telemetry.capacity(); }

std::uint64_t server_session::slot_player(int slot) const noexcept {
    return slot >= 0 && static_cast<std::size_t>(slot) < impl_->slots.size()
               ? impl_->slots[static_cast<std::size_t>(slot)].player
               : 0;
}

trace_recorder *server_session::trace() noexcept { return impl_->tracer.get(); }
trace_writer *server_session::flight_recorder() noexcept { return impl_->flight; }
result<void> server_session::write_trace(const std::filesystem::path &path) const {
    if (!impl_->tracer)
        return {errc::invalid_argument, "this session keeps no trace (server_options::trace.records is 0)"};
    return impl_->tracer->write_json(path);
}

} // namespace retcon
