// The match host as an orchestrator of parts (docs/hosting.md, "Inside the host"): admission
// routes and admits connections, the lifecycle opens, ends and finishes matches, the scheduler
// owns each match's one frame clock, the metrics publisher counts; this file runs the loop that
// asks each of them in turn, and restores what run() changed however it leaves.
#include <retcon/host/match_host.hpp>

#include <retcon/config.hpp>
#include <retcon/net/enet_transport.hpp>
#include <retcon/net/transport_mux.hpp>
#include <retcon/snapshot/replay_encoder.hpp>
#include <retcon/internal/printable.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "admission.hpp"
#include "drain.hpp"
#include "ended_matches.hpp"
#include "host_time.hpp"
#include "match_lifecycle.hpp"
#include "metrics_publisher.hpp"
#include "metrics_server.hpp"
#include "replay_dir.hpp"
#include "result_writer.hpp"
#include "scheduler.hpp"

namespace retcon {

namespace {

using host_time::now_ns;
using host_time::now_us;

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

/// The host records through one replay encoder (docs/hosting.md, "Threads"): keyframes are
/// compressed and replay files written off the ticking thread, with one zstd context for every
/// match. A game that set its own encoder keeps it.
host_options with_encoder(host_options o) {
    auto &rs = o.session.record_settings;
    if (!rs.encoder && (!o.replay_dir.empty() || !o.single_replay_path.empty()))
        rs.encoder = std::make_shared<replay_encoder>();
    return o;
}

constexpr std::uint64_t housekeeping_us = 100'000; // timeouts, drain, metrics: ten times a second
constexpr std::uint64_t ending_poll_us = 20'000;   // an ending match's goodbyes: fifty times a second

} // namespace

struct match_host::impl final : admission_host {
    host_options opt;
    transport_mux mux;
    std::mutex log_mutex;
    std::function<void(std::string_view)> log_fn;
    metrics_publisher metrics;
    result_writer results;
    frame_scheduler scheduler;
    drain_control drain;
    match_lifecycle life;
    admission gate;

    std::atomic<std::uint64_t> heartbeat{0}; // one a loop pass (match_host::heartbeat)
    std::atomic<bool> admitting{true};       // match_host::admitting
    int exit_status = 0;
    std::uint64_t now = 0; // µs, this loop iteration
    std::uint64_t next_housekeeping = 0;
    std::optional<metrics_server> metrics_page;
    std::uint16_t metrics_port_bound = 0;

    impl(host_options o, game_factory f, std::unique_ptr<transport> base, ended_matches ended)
        : opt(with_encoder(std::move(o))), mux(std::move(base), mux_options{opt.session.hello_timeout_ms}),
          metrics(opt.max_matches), results(logger()),
          life(opt, std::move(f), mux, scheduler, metrics.live(), results, logger()),
          gate(opt, mux, *this, logger(), std::move(ended)) {
        life.session_admission = [this](std::size_t i) { return gate.session_hook(i); };
        if (const auto &ledger = gate.ended().ledger(); !ledger.empty()) {
            // The ledger's appends are file I/O: the results thread makes them (docs/hosting.md, "Threads").
            gate.persist_ended = [this](const std::string &id, std::uint64_t until) { results.push_ended(id, until); };
            results.on_ended([this, ledger](const std::string &id, std::uint64_t until) {
                if (auto r = ended_matches::append(ledger, id, until); !r)
                    log("match=" + id + " could not be added to the ended-matches ledger: " + r.message());
            });
        }
        life.finished = [this](std::size_t i, const std::string &id) { gate.match_ended(i, id); };
    }

    /// The parts log through the host's log (match_host::on_log).
    std::function<void(std::string_view)> logger() {
        return [this](std::string_view line) { log(line); };
    }

    void log(std::string_view text) {
        // Every line, whoever composed it, is one printable line: a control byte or a byte that
        // is not UTF-8 (a game's exception text, a file name) cannot start a forged line. The
        // parts also escape each untrusted value they put in a line (docs/hosting.md, "Logs").
        std::string escaped;
        if (!internal::is_printable(text, internal::printable_for::line))
            escaped = internal::printable(text, internal::printable_for::line);
        const std::string_view line = escaped.empty() ? text : std::string_view{escaped};
        std::lock_guard lock{log_mutex};
        if (log_fn) log_fn(line);
        else {
            std::fwrite(line.data(), 1, line.size(), stdout);
            std::fputc('\n', stdout);
            std::fflush(stdout);
        }
    }

    // ------------------------------------------------------------------ what admission asks

    [[nodiscard]] std::size_t places() const override { return life.matches().size(); }
    [[nodiscard]] bool running(std::size_t i) const override {
        const auto &m = life.matches()[i];
        return m && !m->ending;
    }
    [[nodiscard]] int players(std::size_t i) const override { return life.matches()[i]->session->players(); }
    [[nodiscard]] std::uint32_t player_slots(std::size_t i) const override { return life.matches()[i]->params.players; }
    [[nodiscard]] bool knows(std::size_t i, const reconnect_token &token) const override {
        return life.matches()[i]->session->knows(token);
    }
    [[nodiscard]] std::optional<std::size_t> find(const std::string &id) const override { return life.find(id); }
    [[nodiscard]] bool ending(std::size_t i) const override { return life.matches()[i]->ending; }
    [[nodiscard]] const match_params &params(std::size_t i) const override { return life.matches()[i]->params; }
    [[nodiscard]] std::size_t route_of(std::size_t i) const override { return life.matches()[i]->route; }
    [[nodiscard]] bool draining() const override { return drain.draining(); }
    [[nodiscard]] bool limit_reached() const override { return life.limit_reached(); }
    [[nodiscard]] result<std::size_t> open(const std::string &id, const match_params &params) override {
        auto r = life.open(id, params, now);
        if (life.limit_reached()) admitting.store(false);
        return r;
    }

    // ------------------------------------------------------------------ a match's work

    void poll_match(hosted_match &m) {
        if (!m.session) return;
        const auto a = now_ns();
        life.guarded(m, now, [&] { m.session->poll(m.clock.session_time_ms(now)); });
        metrics.live().costs.receive_ns += now_ns() - a;
        m.last_poll_us = now;
        life.handle_events(m);
    }

    void tick_match(hosted_match &m) {
        const frame_t f = m.session->frame();
        // Not the loop's `now`: matches ticked before this one took time.
        frame_scheduler::record_tick(m.clock, f, now_us(), m.m, metrics.live().lateness);
        m.step_end_ns = m.confirmed_ns = 0;
        const auto a = now_ns();
        life.guarded(m, now, [&] { m.session->tick(); });
        metrics_publisher::account_tick(metrics.live().costs, m.step_end_ns, m.confirmed_ns, a, now_ns());
        life.handle_events(m);
    }

    /// Late frames are ticked back to back, so the schedule never drifts, but at most
    /// max_catch_up a pass: an overloaded host still services its socket (else ENet times
    /// every player out) and the other matches.
    void serve_match(std::size_t i) {
        hosted_match &m = *life.matches()[i];
        // Before its clock's origin the session is not polled: its first poll starts its clock.
        const bool pollable = m.clock.running(now) || m.ending;
        if (pollable && (mux.pending(m.route) || (m.ending && now - m.last_poll_us >= ending_poll_us))) poll_match(m);
        if (!m.ending && m.session) {
            bool polled = false;
            for (int caught = 0; caught < frame_scheduler::max_catch_up && !m.ending &&
                                 frame_scheduler::due(m.clock, m.session->frame(), now);
                 ++caught) {
                if (!polled) {
                    poll_match(m);
                    polled = true;
                }
                if (m.ending) break;
                tick_match(m);
            }
        }
        if (m.ending && (!m.session || m.session->finished())) life.finish(i, now);
    }

    // ------------------------------------------------------------------ the loop

    void request_drain() noexcept { drain.request(); }

    void housekeeping() {
        gate.set_now(now);
        gate.housekeeping();
        if (const auto c = drain.take_requests(now); c.started || c.forced) {
            if (c.started) {
                admitting.store(false);
                log("draining: admitting nobody new; running matches may finish within " +
                    std::to_string(opt.drain_grace_ms) + " ms");
            }
            if (c.forced) log("drain forced: ending every match now");
        }
        for (auto &mp : life.matches()) {
            if (!mp || mp->ending) continue;
            if (auto why = end_reason_now(*mp, mp->session->players(), now, opt, drain, gate.open_mode()))
                life.end(*mp, std::move(*why), now);
        }
        if (gate.open_mode() && !drain.draining()) open_missing();
        // Its matches served and ended: the host drains itself (run returns).
        if (life.limit_reached() && drain.requests() == 0 && life.empty()) request_drain();
        if (metrics.due(now)) publish();
    }

    void open_missing() {
        if (!life.open_missing(now)) {
            exit_status = 1;
            request_drain();
        }
        if (life.limit_reached()) admitting.store(false);
    }

    void publish() {
        if (const auto &enc = opt.session.record_settings.encoder) {
            const auto st = enc->stats();
            auto &live = metrics.live();
            live.encoder_jobs = st.jobs;
            live.encoder_ns = st.encode_ns;
            live.encoder_overflows = st.overflows;
        }
        metrics.publish(
            now,
            {drain.draining(), gate.admissions(), gate.refusals(), gate.refusals_by_reason(), mux.base().counters()},
            life.matches(), mux);
    }

    /// When the loop must wake: housekeeping, the next open, a deadline, an ending match's poll.
    [[nodiscard]] std::uint64_t wake_at() const {
        std::uint64_t wake = next_housekeeping;
        if (gate.open_mode() && !drain.draining() && life.next_open_us() > now)
            wake = std::min(wake, life.next_open_us());
        for (const auto &mp : life.matches()) {
            if (!mp) continue;
            if (mp->ending) wake = std::min(wake, mp->last_poll_us + ending_poll_us);
            else if (mp->session)
                wake = std::min(wake, mp->clock.deadline_us(mp->session->frame()));
        }
        return wake;
    }

    int run() {
        const misuse_handler_scope misuse_scope;
        now = now_us();
        scheduler = frame_scheduler{now};
        metrics.start(now);
        log(std::string{"host: serving on UDP port "} + std::to_string(mux.local_port()) + ", " +
            (gate.open_mode() ? "open (no join tokens)" : "join tokens required, fleet '" + opt.fleet + "'") +
            ", up to " + std::to_string(opt.max_matches) + " matches");
        for (;;) {
            heartbeat.fetch_add(1, std::memory_order_relaxed);
            now = now_us();
            gate.set_now(now);
            if (now >= next_housekeeping) {
                housekeeping();
                next_housekeeping = now + housekeeping_us;
            }
            if (gate.open_mode() && !drain.draining() && now >= life.next_open_us()) open_missing(); // on time
            const auto n0 = now_ns();
            mux.poll(now / 1000, gate);
            metrics.live().costs.network_ns += now_ns() - n0;
            bool any = false;
            for (std::size_t i = 0; i < life.matches().size(); ++i) {
                if (!life.matches()[i]) continue;
                any = true;
                serve_match(i);
            }
            const auto n1 = now_ns();
            mux.flush();
            metrics.live().costs.network_ns += now_ns() - n1;
            if (drain.draining() && !any) break;
            if (gate.open_mode() && !opt.reopen_matches && !any && life.opened_all()) break;
            const auto wake = wake_at(); // the next deadline, housekeeping, or a packet
            const auto t = now_us();
            if (wake > t) mux.wait(std::chrono::microseconds(wake - t));
        }
        now = now_us();
        publish();
        mux.flush();
        // Every match has finished its replay (finish writes what its writer queued); what
        // writers that stopped early queued is written now, before run returns.
        if (const auto &enc = opt.session.record_settings.encoder) enc->flush();
        results.close();           // every result written before run returns
        (void)life.flush_traces(); // every trace written (trace_dir) or logged as not
        // A replay asked for and not written is data lost: the status says so (docs/hosting.md,
        // "Exit status"), as each such match's result and the recordings_failed counter do.
        const auto lost = metrics.live().recordings_failed;
        if (lost != 0) exit_status = 1;
        log("stopped: " + std::to_string(metrics.live().matches_ended) + " matches ended" +
            (lost == 0 ? "" : ", " + std::to_string(lost) + " of their replays could not be written") +
            (exit_status == 0 ? "" : " (exit status " + std::to_string(exit_status) + ")"));
        return exit_status;
    }
};

// ---------------------------------------------------------------------- match_host

result<std::unique_ptr<match_host>> match_host::create(host_options options, game_factory factory) {
    if (!factory) return result<std::unique_ptr<match_host>>{errc::invalid_argument, "match_host: no game factory"};
    if (options.max_matches == 0 || options.max_matches > max_host_matches)
        return result<std::unique_ptr<match_host>>{errc::invalid_argument,
                                                   "match_host: max_matches is " + std::to_string(options.max_matches) +
                                                       ", not 1.." + std::to_string(max_host_matches)};
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
    // A replay is never overwritten (docs/hosting.md, "Ended matches").
    if (std::error_code ec;
        !options.single_replay_path.empty() &&
        std::filesystem::symlink_status(options.single_replay_path, ec).type() != std::filesystem::file_type::not_found)
        return result<std::unique_ptr<match_host>>{
            errc::invalid_argument, "match_host: " + options.single_replay_path.string() +
                                        " exists; a replay is never overwritten (move it away or choose another path)"};
    // Replays have somewhere to go before any match opens, in both modes (docs/hosting.md,
    // "Replay directory"): a directory that is missing is made, one that cannot be is refused here.
    if (!options.trace_dir.empty() && !options.single_trace_path.empty())
        return result<std::unique_ptr<match_host>>{errc::invalid_argument,
                                                   "match_host: trace_dir and single_trace_path: choose one"};
    for (const auto &dir : {options.replay_dir, options.single_replay_path.parent_path(), options.trace_dir}) {
        if (dir.empty()) continue;
        if (auto ready = prepare_replay_dir(dir); !ready)
            return result<std::unique_ptr<match_host>>{ready.code(), "match_host: " + ready.message()};
    }
    // Token mode with replays: ended match ids survive a restart in the ledger beside them.
    ended_matches ended;
    if (!options.token_keys.empty() && !options.replay_dir.empty()) {
        auto loaded = ended_matches::load(options.replay_dir / ended_matches::ledger_name, host_time::unix_seconds());
        if (!loaded) return loaded.err();
        ended = std::move(*loaded);
    }
    auto base = make_enet_server(options.port, eo, options.bind_host);
    if (!base) return base.err();
    auto p = std::make_unique<impl>(std::move(options), std::move(factory), std::move(*base), std::move(ended));
    if (p->opt.serve_metrics) {
        auto page = metrics_server::start(p->opt.metrics_bind, p->opt.metrics_port,
                                          [raw = p.get()] { return to_prometheus(raw->metrics.published()); });
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
host_metrics match_host::metrics() const { return impl_->metrics.published(); }

} // namespace retcon
