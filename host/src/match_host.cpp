#include <retcon/host/match_host.hpp>

#include <retcon/config.hpp>
#include <retcon/net/protocol.hpp>
#include <retcon/net/enet_transport.hpp>
#include <retcon/net/transport_mux.hpp>
#include <retcon/snapshot/hash.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "metrics_server.hpp"
#include "result_writer.hpp"

namespace retcon {

namespace {

std::uint64_t now_us() {
    using namespace std::chrono;
    return static_cast<std::uint64_t>(duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count());
}

std::uint64_t now_ns() {
    using namespace std::chrono;
    return static_cast<std::uint64_t>(duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count());
}

std::uint64_t unix_seconds() {
    using namespace std::chrono;
    return static_cast<std::uint64_t>(duration_cast<seconds>(system_clock::now().time_since_epoch()).count());
}

/// In host mode a misuse report ends only the match whose code made it (docs/hosting.md,
/// "Isolation"): the handler throws, the host catches around each match's work.
struct misuse_in_match : std::runtime_error {
    using std::runtime_error::runtime_error;
};
[[noreturn]] void throw_misuse(const char *message) { throw misuse_in_match(message); }

/// Installs the host's misuse handler for run(), and puts the previous one back however run
/// leaves (an exception from a game's step that is not a std::exception escapes run).
class misuse_handler_scope {
public:
    misuse_handler_scope() noexcept : previous_{set_misuse_handler(&throw_misuse)} {}
    ~misuse_handler_scope() { set_misuse_handler(previous_); }
    misuse_handler_scope(const misuse_handler_scope &) = delete;
    misuse_handler_scope &operator=(const misuse_handler_scope &) = delete;

private:
    misuse_handler previous_;
};

constexpr std::uint64_t housekeeping_us = 100'000; // timeouts, drain, metrics: ten times a second
constexpr std::uint64_t ending_poll_us = 20'000;   // an ending match's goodbyes: fifty times a second
constexpr std::uint64_t late_us = 2'000;           // a tick this late counts in match_metrics::late_ticks
constexpr std::size_t phase_buckets = 16;          // frame phases spread over the tick period
constexpr std::size_t max_remembered_ended = 4096; // ended match ids refused as "has ended"
constexpr int max_catch_up = 4;                    // late frames of one match ticked in one loop pass

} // namespace

struct match_host::impl final : transport_router {
    /// What routing decided for a connection, until its session asks (session admission).
    struct admission_note {
        std::size_t match = 0;
        int slot = -1;
        std::uint64_t player_id = 0;
        std::uint64_t at_us = 0;
    };

    struct match {
        std::string id;
        match_params params;
        hosted_game game;
        std::unique_ptr<server_session> session;
        std::size_t route = no_route;
        std::uint64_t opened_us = 0;
        std::uint64_t start_us = 0; // deadline of frame 0 (its phase)
        double period_us = 0;
        frame_t first_frame = 0; // the session's frame at start_us
        bool ending = false;
        std::string end_reason;
        std::uint64_t ending_since_us = 0;
        std::uint64_t last_poll_us = 0;
        bool had_player = false;
        std::uint64_t empty_since_us = 0;
        std::uint64_t joins = 0;
        std::filesystem::path replay;
        bool recording_failed = false;
        std::vector<slot_result> slots;
        std::vector<std::pair<peer_id, std::uint64_t>> routed_players; // routed, not yet joined (open mode)
        match_metrics m;
        std::size_t phase = 0;
        // Tick timing, written by the wrapped step and the confirmed-frame callback.
        std::uint64_t step_end_ns = 0, confirmed_ns = 0;
        // The hash of the world after the last confirmed frame (the session computes it anyway).
        std::optional<std::uint64_t> last_hash;

        [[nodiscard]] std::uint64_t deadline_us(frame_t f) const {
            return start_us +
                   static_cast<std::uint64_t>(std::llround(static_cast<double>(f - first_frame) * period_us));
        }
    };

    host_options opt;
    game_factory factory;
    transport_mux mux;
    std::optional<token_verifier> verifier;
    std::vector<std::unique_ptr<match>> matches; // index: match number; null: free
    std::unordered_map<std::string, std::size_t> by_id;
    std::deque<std::string> ended_ids;
    std::unordered_map<peer_id, admission_note> notes;
    std::array<std::uint32_t, phase_buckets> phase_load{};

    std::atomic<int> drain_requests{0};
    std::atomic<std::uint64_t> heartbeat{0}; // one a loop pass (match_host::heartbeat)
    std::atomic<bool> admitting{true};       // match_host::admitting
    int drain_seen = 0;
    bool draining = false;
    std::uint64_t drain_started_us = 0;
    std::uint64_t open_sequence = 0;
    std::uint64_t next_open_us = 0; // open mode: when the next missing match may open (staggered)
    bool single_replay_used = false;
    int exit_status = 0;

    std::uint64_t t_start_us = 0;
    std::uint64_t now = 0; // µs, this loop iteration
    std::uint64_t next_housekeeping = 0;
    std::uint64_t last_publish = 0;
    std::uint64_t refused_logged_at = 0, refused_unlogged = 0;
    /// Token checks each source address may make: a bucket of `hello_burst` refilled at
    /// `hellos_per_second` (a signature check costs ~33 µs: docs/join-tokens.md).
    struct hello_bucket {
        double tokens = 0;
        std::uint64_t at_us = 0;
    };
    std::unordered_map<std::string, hello_bucket> hello_budget;

    host_metrics live; // the ticking thread's counters
    mutable std::mutex published_mutex;
    host_metrics published; // copied from `live` once a second

    std::mutex log_mutex;
    std::function<void(std::string_view)> log_fn;
    result_writer results;
    std::optional<metrics_server> metrics_page;
    std::uint16_t metrics_port_bound = 0;

    impl(host_options o, game_factory f, std::unique_ptr<transport> base)
        : opt{std::move(o)}, factory{std::move(f)}, mux{std::move(base), mux_options{opt.session.hello_timeout_ms}},
          results{[this](std::string_view line) { log(line); }} {
        if (!opt.token_keys.empty()) {
            token_verifier_options vo;
            vo.fleet = opt.fleet;
            vo.clock_skew_s = opt.clock_skew_s;
            verifier.emplace(opt.token_keys, vo);
        }
        matches.resize(opt.max_matches);
        live.per_match.reserve(opt.max_matches);
        published.per_match.reserve(opt.max_matches);
    }

    [[nodiscard]] bool open_mode() const noexcept { return !verifier.has_value(); }
    /// The host has opened as many matches as it serves in its life (host_options::match_limit).
    [[nodiscard]] bool limit_reached() const noexcept {
        return opt.match_limit != 0 && live.matches_opened >= opt.match_limit;
    }

    void log(std::string_view line) {
        std::lock_guard lock{log_mutex};
        if (log_fn) log_fn(line);
        else {
            std::fwrite(line.data(), 1, line.size(), stdout);
            std::fputc('\n', stdout);
            std::fflush(stdout);
        }
    }
    void log_match(const match &m, const std::string &text) { log("match=" + m.id + " " + text); }

    // ------------------------------------------------------------------ admission (routing)

    /// Refusals are logged at most once a second, counting the rest: a flood of bad tokens
    /// must not become a flood of log lines.
    void note_refusal(const std::string &text) {
        ++live.refusals;
        if (now - refused_logged_at < 1'000'000 && refused_logged_at != 0) {
            ++refused_unlogged;
            return;
        }
        std::string line = "refused: " + text;
        if (refused_unlogged != 0) line += " (and " + std::to_string(refused_unlogged) + " more refused since)";
        log(line);
        refused_logged_at = now;
        refused_unlogged = 0;
    }

    std::size_t refuse(peer_id peer, wire::reject_reason reason, const std::string &text) {
        std::vector<std::byte> out;
        wire::encode(wire::reject_msg{reason, text}, out);
        mux.send_unrouted(peer, wire::channel::control, out);
        mux.refuse(peer);
        const auto address = mux.base().peer_address(peer);
        note_refusal((address.empty() ? std::string{} : address + ": ") + text);
        return no_route;
    }

    std::size_t route(peer_id peer, wire::channel ch, std::span<const std::byte> data) override {
        wire::hello_msg h;
        if (ch != wire::channel::control) {
            mux.refuse(peer);
            note_refusal("a packet before the hello");
            return no_route;
        }
        if (auto r = wire::decode(data, h); !r) {
            if (r.code() == errc::bad_version)
                return refuse(peer, wire::reject_reason::protocol,
                              "protocol version " + std::to_string(wire::peek_hello_version(data)) +
                                  ", server speaks " + std::to_string(wire::protocol_version));
            mux.refuse(peer);
            note_refusal("malformed hello: " + r.message());
            return no_route;
        }
        const bool reconnecting = !h.reconnect_token.empty();
        if (draining && !reconnecting)
            return refuse(peer, wire::reject_reason::draining, "the server is shutting down; it admits nobody new");
        return open_mode() ? route_open(peer, h) : route_token(peer, h);
    }

    std::size_t route_open(peer_id peer, const wire::hello_msg &h) {
        // A returning player goes back to the match that knows its reconnect token.
        if (!h.reconnect_token.empty()) {
            std::optional<std::size_t> any;
            for (std::size_t i = 0; i < matches.size(); ++i) {
                if (!matches[i] || matches[i]->ending) continue;
                if (matches[i]->session->knows(h.reconnect_token)) return admit_to(i, peer, -1, 0, false);
                any = any.value_or(i);
            }
            // No match knows it: a running session refuses it with the reason (token unknown).
            if (any) return admit_to(*any, peer, -1, 0, false);
        }
        std::optional<std::size_t> best;
        for (std::size_t i = 0; i < matches.size(); ++i) {
            auto &m = matches[i];
            if (!m || m->ending) continue;
            if (h.spectator) { // the first match with a player in it, else any
                if (!best || (m->session->players() > 0 && matches[*best]->session->players() == 0)) best = i;
                continue;
            }
            std::erase_if(m->routed_players,
                          [&](const auto &p) { return now - p.second > opt.session.hello_timeout_ms * 1000ull; });
            const auto taken = static_cast<std::size_t>(m->session->players()) + m->routed_players.size();
            if (taken < m->params.players) {
                best = i;
                break;
            }
        }
        if (!best) {
            if (draining) return refuse(peer, wire::reject_reason::draining, "the server is shutting down");
            return refuse(peer, wire::reject_reason::match,
                          h.spectator ? "no match to watch"
                                      : "every match is full (" + std::to_string(opt.open_matches) + " running)");
        }
        if (!h.spectator) matches[*best]->routed_players.emplace_back(peer, now);
        return admit_to(*best, peer, -1, 0, false);
    }

    /// False when @p peer's address has used its token checks for now.
    bool hello_allowed(peer_id peer) {
        auto address = mux.base().peer_address(peer);
        if (const auto colon = address.rfind(':'); colon != std::string::npos) address.resize(colon);
        auto [it, fresh] = hello_budget.try_emplace(std::move(address));
        hello_bucket &b = it->second;
        if (fresh) b.tokens = opt.hello_burst;
        else
            b.tokens = std::min<double>(opt.hello_burst,
                                        b.tokens + static_cast<double>(now - b.at_us) * opt.hellos_per_second / 1e6);
        b.at_us = now;
        if (b.tokens < 1.0) return false;
        b.tokens -= 1.0;
        return true;
    }

    std::size_t route_token(peer_id peer, const wire::hello_msg &h) {
        if (opt.hellos_per_second != 0 && !hello_allowed(peer)) {
            mux.refuse(peer); // no reply: a flood gets nothing back
            note_refusal(mux.base().peer_address(peer) + ": too many hellos from this address (" +
                         std::to_string(opt.hellos_per_second) + " a second allowed)");
            return no_route;
        }
        auto v = verifier->verify(h.join_token, unix_seconds());
        if (!v.ok) return refuse(peer, wire::reject_reason::join_token, v.message);
        const join_token &t = v.ok->token;
        // A refusal that is not the token's fault gives its first use back: the player may retry.
        const auto refuse_token = [&](wire::reject_reason reason, const std::string &text) {
            if (v.ok->first_use) verifier->release(t);
            return refuse(peer, reason, text);
        };
        const bool spectator_token = t.role == token_role::spectator;
        if (spectator_token != h.spectator)
            return refuse_token(wire::reject_reason::join_token,
                                spectator_token ? "this join token is for a spectator; the client asked to play"
                                                : "this join token is for a player; the client asked to watch");
        if (!v.ok->first_use && h.reconnect_token.empty())
            return refuse(peer, wire::reject_reason::join_token,
                          "join token already used (a reconnection presents it with the slot's reconnect token)");
        std::size_t index = 0;
        if (const auto it = by_id.find(t.match_id); it != by_id.end()) {
            index = it->second;
            const match &m = *matches[index];
            if (m.ending) return refuse_token(wire::reject_reason::match, "match '" + t.match_id + "' has ended");
            if (!(m.params == t.params))
                return refuse_token(wire::reject_reason::match,
                                    "join token's match settings differ from running match '" + t.match_id + "'");
        } else {
            if (std::find(ended_ids.begin(), ended_ids.end(), t.match_id) != ended_ids.end())
                return refuse_token(wire::reject_reason::match, "match '" + t.match_id + "' has ended");
            if (spectator_token)
                return refuse_token(wire::reject_reason::match, "match '" + t.match_id + "' is not running");
            if (draining) return refuse_token(wire::reject_reason::draining, "the server is shutting down");
            if (limit_reached())
                return refuse_token(wire::reject_reason::draining, "this server opens no new match (it serves " +
                                                                       std::to_string(opt.match_limit) + ")");
            auto opened = open_match(t.match_id, t.params);
            if (!opened) return refuse_token(wire::reject_reason::match, opened.message());
            index = *opened;
        }
        // The token's slot is below its player count (decode_token checks), which is the match's.
        return admit_to(index, peer, spectator_token ? -1 : t.slot, t.player_id, true);
    }

    std::size_t admit_to(std::size_t index, peer_id peer, int slot, std::uint64_t player_id, bool noted) {
        match &m = *matches[index];
        if (noted) notes[peer] = admission_note{index, slot, player_id, now};
        ++live.admissions;
        return m.route;
    }

    /// The session's admission check (token mode): the slot and identity routing read from the
    /// connection's join token.
    server_admission admission_of(std::size_t index, peer_id peer, const wire::hello_msg &) {
        const auto it = notes.find(peer);
        if (it == notes.end() || it->second.match != index)
            return server_admission::refuse(wire::reject_reason::join_token,
                                            "no verified join token for this connection");
        server_admission a;
        a.slot = it->second.slot;
        a.player_id = it->second.player_id;
        notes.erase(it);
        return a;
    }

    // ------------------------------------------------------------------ matches

    result<std::size_t> open_match(const std::string &id, const match_params &params) {
        const auto free = std::find(matches.begin(), matches.end(), nullptr);
        if (free == matches.end())
            return result<std::size_t>{errc::invalid_argument,
                                       "the server is full (" + std::to_string(opt.max_matches) + " matches running)"};
        const std::size_t index = static_cast<std::size_t>(free - matches.begin());
        try {
            return open_match_at(index, id, params);
        } catch (const std::exception &e) { // the factory's, or a misuse report (invalid settings)
            return result<std::size_t>{errc::invalid_argument, std::string{"could not open the match: "} + e.what()};
        }
    }

    result<std::size_t> open_match_at(std::size_t index, const std::string &id, const match_params &params) {
        auto made = factory(params);
        if (!made)
            return result<std::size_t>{errc::invalid_argument,
                                       "the game refused the match settings: " + made.message()};
        auto m = std::make_unique<match>();
        m->id = id;
        m->params = params;
        m->game = std::move(*made);
        if (!m->game.state) return result<std::size_t>{errc::invalid_argument, "the game made no world"};
        m->game.config.max_players = params.players;
        m->game.config.tick_hz = params.tick_hz;
        m->route = mux.add_route();

        server_options so = opt.session;
        if (!opt.single_replay_path.empty() && !single_replay_used) {
            m->replay = opt.single_replay_path;
            single_replay_used = true;
        } else if (!opt.replay_dir.empty()) {
            m->replay = opt.replay_dir / (id + ".rcr");
        }
        so.record_path = m->replay;
        so.record_settings.metadata = m->game.metadata;
        so.record_settings.metadata.emplace_back("match", id);
        if (!open_mode())
            so.admission = [this, index](peer_id p, const wire::hello_msg &h) { return admission_of(index, p, h); };
        // The step and the confirmed-frame callback time the parts of a tick (tick_costs).
        match *raw = m.get();
        step_function step = [raw, inner = std::move(m->game.step), this](world &w, const frame_inputs &in) {
            const auto a = now_ns();
            inner(w, in);
            raw->step_end_ns = now_ns();
            live.costs.simulate_ns += raw->step_end_ns - a;
        };
        try {
            m->session = std::make_unique<server_session>(m->game.config, *m->game.state, std::move(step),
                                                          mux.route(m->route), so);
        } catch (...) {
            mux.remove_route(m->route);
            throw;
        }
        m->session->on_confirmed([raw](const frame_inputs &, const world &, std::uint64_t h) {
            raw->confirmed_ns = now_ns();
            raw->last_hash = h;
        });
        m->slots.resize(params.players);
        for (std::size_t s = 0; s < m->slots.size(); ++s) m->slots[s].slot = static_cast<int>(s);

        // Its own frame phase: the least used of phase_buckets slices of the tick period, so
        // matches opened together do not tick on the same instant (docs/hosting.md, "Scheduling").
        m->period_us = 1e6 / params.tick_hz;
        m->phase =
            static_cast<std::size_t>(std::min_element(phase_load.begin(), phase_load.end()) - phase_load.begin());
        ++phase_load[m->phase];
        const auto slice = m->period_us / phase_buckets;
        const auto in_period = std::fmod(static_cast<double>(now - t_start_us), m->period_us);
        auto wait = static_cast<double>(m->phase) * slice - in_period;
        if (wait < 0) wait += m->period_us;
        m->opened_us = now;
        m->start_us = now + static_cast<std::uint64_t>(wait);
        m->first_frame = m->session->frame();
        m->m.match_id = id;
        m->session->poll(now / 1000); // the session's clock starts now
        by_id[id] = index;
        matches[index] = std::move(m);
        ++live.matches_opened;
        results.push_opened(id, params);
        if (limit_reached()) admitting.store(false);
        if (opt.match_limit != 0 && live.matches_opened >= opt.match_limit)
            log("match limit reached: " + std::to_string(opt.match_limit) +
                " matches opened; the host drains once they have ended");
        log_match(*matches[index],
                  "opened: " + std::to_string(params.players) + " players at " + std::to_string(params.tick_hz) +
                      " Hz, seed " + std::to_string(params.seed) +
                      (matches[index]->replay.empty() ? "" : ", recording " + matches[index]->replay.string()));
        return index;
    }

    /// Runs @p fn on match @p m; an exception (the game's, or a misuse report) ends the match.
    template<class F>
    void guarded(match &m, F &&fn) {
        try {
            fn();
        } catch (const std::exception &e) {
            fail(m, e.what());
        }
    }

    void fail(match &m, const std::string &what) {
        ++live.matches_failed;
        log_match(m, std::string{"failed: "} + what);
        begin_end(m, "error: " + what);
        if (!m.session) return;
        try {
            m.session->end_match();
        } catch (const std::exception &e) {
            // Nothing more can be trusted of it: the replay stays readable up to its last chunk.
            log_match(m, std::string{"could not end cleanly: "} + e.what());
            m.session.reset();
        }
    }

    void begin_end(match &m, std::string reason) {
        if (m.ending) return;
        m.ending = true;
        m.end_reason = std::move(reason);
        m.ending_since_us = now;
        --phase_load[m.phase];
    }

    void end(match &m, std::string reason) {
        if (m.ending) return;
        begin_end(m, std::move(reason));
        guarded(m, [&] { m.session->end_match(); });
    }

    void handle_events(match &m) {
        if (!m.session) return;
        for (session_event ev; m.session->next_event(ev);) {
            switch (ev.kind) {
            case session_event_kind::player_joined:
                ++m.joins;
                m.had_player = true;
                if (ev.slot >= 0 && static_cast<std::size_t>(ev.slot) < m.slots.size()) {
                    m.slots[static_cast<std::size_t>(ev.slot)].name = ev.text;
                    m.slots[static_cast<std::size_t>(ev.slot)].present_at_end = true;
                }
                if (!m.routed_players.empty()) m.routed_players.erase(m.routed_players.begin());
                break;
            case session_event_kind::player_left:
                // Once the match is ending its players leave because of it: they were present at the end.
                if (!m.ending && ev.slot >= 0 && static_cast<std::size_t>(ev.slot) < m.slots.size())
                    m.slots[static_cast<std::size_t>(ev.slot)].present_at_end = false;
                break;
            case session_event_kind::recording_failed:
                m.recording_failed = true;
                exit_status = 1;
                break;
            default: break;
            }
            log_match(m, "[frame " + std::to_string(ev.frame) + "] " + to_string(ev.kind) + " slot " +
                             std::to_string(ev.slot) + " " + ev.text);
        }
    }

    void poll_match(match &m) {
        if (!m.session) return;
        const auto a = now_ns();
        guarded(m, [&] { m.session->poll(now / 1000); });
        live.costs.receive_ns += now_ns() - a;
        m.last_poll_us = now;
        handle_events(m);
    }

    void tick_match(match &m) {
        const frame_t f = m.session->frame();
        const auto deadline = m.deadline_us(f);
        const auto started = now_us(); // not the loop's `now`: matches ticked before this one took time
        const std::uint64_t late = started > deadline ? started - deadline : 0;
        live.lateness.record(late);
        ++m.m.ticks;
        if (late >= late_us) ++m.m.late_ticks;
        m.m.max_lateness_us = std::max(m.m.max_lateness_us, late);
        m.step_end_ns = m.confirmed_ns = 0;
        const auto a = now_ns();
        guarded(m, [&] { m.session->tick(); });
        const auto b = now_ns();
        if (m.step_end_ns != 0 && m.confirmed_ns >= m.step_end_ns) {
            live.costs.hash_record_ns += m.confirmed_ns - m.step_end_ns;
            live.costs.broadcast_ns += b - m.confirmed_ns;
        } else {
            live.costs.broadcast_ns += b - a;
        }
        ++live.costs.frames;
        handle_events(m);
    }

    void finish(std::size_t index) {
        match &m = *matches[index];
        match_result r;
        r.match_id = m.id;
        r.end_reason = m.end_reason;
        r.duration_s = static_cast<double>(now - m.opened_us) / 1e6;
        r.joins = m.joins;
        r.final_frame = m.session ? m.session->frame() : 0;
        // A step that threw left the world between frames: the last confirmed one is the verdict.
        r.final_hash = m.last_hash ? *m.last_hash : hash(*m.game.state);
        r.slots = m.slots;
        if (m.session) {
            const auto t = m.session->totals();
            r.desyncs_verified = t.desyncs;
            r.desyncs_unverified = t.unverified_desyncs;
            r.replaced_inputs = t.replaced_inputs;
            for (std::size_t s = 0; s < r.slots.size(); ++s) {
                const auto st = m.session->client_stats(static_cast<int>(s));
                r.slots[s].replaced_inputs = st.replaced_inputs;
            }
            for (auto &s : r.slots) s.player_id = m.session->slot_player(s.slot);
        }
        r.bytes_in = mux.bytes_in(m.route);
        r.bytes_out = mux.bytes_out(m.route);
        if (m.game.report) {
            try {
                m.game.report(*m.game.state, r.slots);
            } catch (const std::exception &e) {
                log_match(m, std::string{"the game's report failed: "} + e.what());
            }
        }
        if (!m.replay.empty() && !m.recording_failed) r.replay_path = m.replay.string();
        live.desyncs_verified += r.desyncs_verified;
        live.replaced_inputs += r.replaced_inputs;
        live.bytes_in += r.bytes_in;
        live.bytes_out += r.bytes_out;
        ++live.matches_ended;
        log_match(m, "ended (" + m.end_reason + ") after " + std::to_string(r.final_frame) + " frames");
        results.push(std::move(r));
        mux.remove_route(m.route);
        by_id.erase(m.id);
        ended_ids.push_back(m.id);
        if (ended_ids.size() > max_remembered_ended) ended_ids.pop_front();
        std::erase_if(notes, [&](const auto &kv) { return kv.second.match == index; });
        matches[index].reset();
    }

    // ------------------------------------------------------------------ the loop

    void housekeeping() {
        // Refusals held back by note_refusal are counted in the log once a quiet second has passed,
        // even if no later refusal comes to carry the count.
        if (refused_unlogged != 0 && now - refused_logged_at >= 1'000'000) {
            log("refused: " + std::to_string(refused_unlogged) + " more connections since the last refusal logged");
            refused_logged_at = now;
            refused_unlogged = 0;
        }
        const int requests = drain_requests.load();
        if (requests > drain_seen) {
            if (drain_seen == 0) {
                draining = true;
                admitting.store(false);
                drain_started_us = now;
                log("draining: admitting nobody new; running matches may finish within " +
                    std::to_string(opt.drain_grace_ms) + " ms");
            }
            if (requests >= 2 && drain_seen < 2) log("drain forced: ending every match now");
            drain_seen = requests;
        }
        const bool forced = drain_seen >= 2;
        const bool grace_over = draining && now - drain_started_us >= opt.drain_grace_ms * 1000ull;
        for (auto &mp : matches) {
            if (!mp || mp->ending) continue;
            match &m = *mp;
            const int players = m.session->players();
            if (players > 0) m.empty_since_us = 0;
            else if (m.empty_since_us == 0)
                m.empty_since_us = now;
            if (forced) end(m, "drain forced");
            else if (grace_over)
                end(m, "drain");
            else if (draining && players == 0)
                end(m, "drain");
            else if (opt.match_duration_ms != 0 && now >= m.opened_us + opt.match_duration_ms * 1000ull)
                end(m, "duration");
            else if (players == 0 && (m.had_player || !open_mode()) &&
                     now - m.empty_since_us >= opt.empty_timeout_ms * 1000ull)
                end(m, m.had_player ? "players left" : "nobody joined");
        }
        if (open_mode() && !draining) open_missing();
        // Its matches served and ended: the host drains itself (run returns).
        if (limit_reached() && drain_requests.load() == 0 &&
            std::all_of(matches.begin(), matches.end(), [](const auto &m) { return !m; }))
            request_drain();
        // Addresses whose bucket has refilled are forgotten (the map holds recent senders only).
        std::erase_if(hello_budget, [&](const auto &kv) {
            return opt.hellos_per_second == 0 ||
                   now - kv.second.at_us > 1'000'000ull * opt.hello_burst / opt.hellos_per_second;
        });
        // Admission notes of connections that never sent their hello on to a session.
        std::erase_if(notes, [&](const auto &kv) {
            return now - kv.second.at_us > 2'000'000ull + opt.session.hello_timeout_ms * 1000ull;
        });
        if (now - last_publish >= 1'000'000) publish();
    }

    /// Open mode: keeps `open_matches` running, opening them one stagger apart so their
    /// keyframes and chunk writes fall on different frames (docs/hosting.md, "Scheduling").
    void open_missing() {
        if (now < next_open_us) return;
        std::size_t running = 0;
        for (const auto &m : matches) running += (m && !m->ending) ? 1u : 0u;
        if (running >= opt.open_matches) return;
        // An ended match holds its place until its goodbyes are done: open the next one then.
        if (std::find(matches.begin(), matches.end(), nullptr) == matches.end()) return;
        if (!opt.reopen_matches && open_sequence >= opt.open_matches) return;
        if (limit_reached()) return;
        match_params p = opt.open_params;
        p.seed = opt.open_params.seed + open_sequence;
        const auto id = "open-" + std::to_string(++open_sequence);
        if (auto r = open_match(id, p); !r) {
            log("could not open match " + id + ": " + r.message());
            exit_status = 1;
            request_drain();
            return;
        }
        const double keyframe_cycle_us = 1e6 * opt.session.record_settings.keyframe_interval / p.tick_hz;
        next_open_us =
            now + static_cast<std::uint64_t>(keyframe_cycle_us / std::max<std::uint32_t>(opt.open_matches, 1));
    }

    void publish() {
        last_publish = now;
        live.uptime_ms = (now - t_start_us) / 1000;
        live.draining = draining;
        live.matches = 0;
        live.players = 0;
        live.per_match.clear();
        for (const auto &mp : matches) {
            if (!mp) continue;
            match &m = *mp;
            ++live.matches;
            m.m.players = m.session ? static_cast<std::uint32_t>(m.session->players()) : 0;
            live.players += m.m.players;
            m.m.frame = m.session ? m.session->frame() : 0;
            if (m.session) {
                const auto t = m.session->totals();
                m.m.desyncs_verified = t.desyncs;
                m.m.replaced_inputs = t.replaced_inputs;
            }
            m.m.bytes_in = mux.bytes_in(m.route);
            m.m.bytes_out = mux.bytes_out(m.route);
            live.per_match.push_back(m.m);
        }
        std::lock_guard lock{published_mutex};
        published = live;
        for (const auto &x : live.per_match) { // totals: ended matches plus running ones
            published.desyncs_verified += x.desyncs_verified;
            published.replaced_inputs += x.replaced_inputs;
            published.bytes_in += x.bytes_in;
            published.bytes_out += x.bytes_out;
        }
    }

    int run() {
        const misuse_handler_scope misuse_scope;
        t_start_us = now = now_us();
        last_publish = now;
        log(std::string{"host: serving on UDP port "} + std::to_string(mux.local_port()) + ", " +
            (open_mode() ? "open (no join tokens)" : "join tokens required, fleet '" + opt.fleet + "'") + ", up to " +
            std::to_string(opt.max_matches) + " matches");
        for (;;) {
            heartbeat.fetch_add(1, std::memory_order_relaxed);
            now = now_us();
            if (now >= next_housekeeping) {
                housekeeping();
                next_housekeeping = now + housekeeping_us;
            }
            if (open_mode() && !draining && now >= next_open_us) open_missing(); // staggered, on time
            const auto n0 = now_ns();
            mux.poll(now / 1000, *this);
            live.costs.network_ns += now_ns() - n0;
            bool any = false;
            for (std::size_t i = 0; i < matches.size(); ++i) {
                if (!matches[i]) continue;
                any = true;
                match &m = *matches[i];
                if (mux.pending(m.route) || (m.ending && now - m.last_poll_us >= ending_poll_us)) poll_match(m);
                if (!m.ending && m.session) {
                    // Late frames are ticked back to back, so the schedule never drifts, but at
                    // most max_catch_up a pass: an overloaded host still services its socket
                    // (else ENet times every player out) and the other matches.
                    bool polled = false;
                    for (int caught = 0; caught < max_catch_up && !m.ending && m.deadline_us(m.session->frame()) <= now;
                         ++caught) {
                        if (!polled) {
                            poll_match(m);
                            polled = true;
                        }
                        if (m.ending) break;
                        tick_match(m);
                    }
                }
                if (m.ending && (!m.session || m.session->finished())) finish(i);
            }
            const auto n1 = now_ns();
            mux.flush();
            live.costs.network_ns += now_ns() - n1;
            if (draining && !any) break;
            if (open_mode() && !opt.reopen_matches && !any && open_sequence >= opt.open_matches) break;
            // Sleep until the next deadline, housekeeping, or a packet.
            std::uint64_t wake = next_housekeeping;
            if (open_mode() && !draining && next_open_us > now) wake = std::min(wake, next_open_us);
            for (const auto &mp : matches) {
                if (!mp) continue;
                if (mp->ending) wake = std::min(wake, mp->last_poll_us + ending_poll_us);
                else if (mp->session)
                    wake = std::min(wake, mp->deadline_us(mp->session->frame()));
            }
            const auto t = now_us();
            if (wake > t) mux.wait(std::chrono::microseconds(wake - t));
        }
        now = now_us();
        publish();
        mux.flush();
        results.close(); // every result written before run returns
        log("stopped: " + std::to_string(live.matches_ended) + " matches ended");
        return exit_status;
    }

    void request_drain() noexcept { drain_requests.fetch_add(1, std::memory_order_relaxed); }
};

// ---------------------------------------------------------------------- match_host

result<std::unique_ptr<match_host>> match_host::create(host_options options, game_factory factory) {
    if (!factory) return result<std::unique_ptr<match_host>>{errc::invalid_argument, "match_host: no game factory"};
    if (options.max_matches == 0)
        return result<std::unique_ptr<match_host>>{errc::invalid_argument, "match_host: max_matches is 0"};
    if (options.token_keys.empty() && (options.open_matches == 0 || options.open_matches > options.max_matches))
        return result<std::unique_ptr<match_host>>{errc::invalid_argument, "match_host: open_matches must be 1.." +
                                                                               std::to_string(options.max_matches)};
    if (options.hellos_per_second != 0 && options.hello_burst == 0)
        return result<std::unique_ptr<match_host>>{errc::invalid_argument,
                                                   "match_host: hello_burst is 0 (no hello could pass)"};
    const std::size_t per_match = options.open_params.players + options.session.max_spectators;
    auto eo = enet_options_for_match(0, 0);
    eo.max_peers = std::min<std::size_t>(4095, options.max_matches * std::max<std::size_t>(per_match, 8) +
                                                   eo.max_pending + eo.free_slot_reserve);
    eo.max_peers_per_address = options.max_peers_per_address;
    auto base = make_enet_server(options.port, eo, options.bind_host);
    if (!base) return base.err();
    auto p = std::make_unique<impl>(std::move(options), std::move(factory), std::move(*base));
    if (p->opt.serve_metrics) {
        auto page = metrics_server::start(p->opt.metrics_bind, p->opt.metrics_port, [raw = p.get()] {
            host_metrics copy;
            {
                std::lock_guard lock{raw->published_mutex}; // the ticking thread publishes under it
                copy = raw->published;
            }
            return to_prometheus(copy);
        });
        if (!page) return page.err();
        p->metrics_port_bound = page->port();
        p->metrics_page.emplace(std::move(*page));
    }
    return std::unique_ptr<match_host>(new match_host(std::move(p)));
}

match_host::match_host(std::unique_ptr<impl> p) : impl_{std::move(p)} {}
match_host::~match_host() = default;

int match_host::run() { return impl_->run(); }
void match_host::request_drain() noexcept { impl_->request_drain(); }
void match_host::on_result(std::function<void(const match_result &)> fn) { impl_->results.on_result(std::move(fn)); }
void match_host::on_match_opened(std::function<void(const std::string &, const match_params &)> fn) {
    impl_->results.on_opened(std::move(fn));
}
void match_host::on_log(std::function<void(std::string_view)> fn) {
    std::lock_guard lock{impl_->log_mutex};
    impl_->log_fn = std::move(fn);
}
void match_host::log(std::string_view line) { impl_->log(line); }
std::uint16_t match_host::port() const noexcept { return impl_->mux.local_port(); }
std::uint16_t match_host::metrics_port() const noexcept { return impl_->metrics_port_bound; }
std::uint64_t match_host::heartbeat() const noexcept { return impl_->heartbeat.load(std::memory_order_relaxed); }
const host_options &match_host::options() const noexcept { return impl_->opt; }
bool match_host::admitting() const noexcept { return impl_->admitting.load(); }
host_metrics match_host::metrics() const {
    std::lock_guard lock{impl_->published_mutex};
    return impl_->published;
}

} // namespace retcon
