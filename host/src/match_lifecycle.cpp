#include "match_lifecycle.hpp"

#include <retcon/snapshot/hash.hpp>

#include <algorithm>
#include <memory>

#include "host_time.hpp"

namespace retcon {

namespace {
/// True when @p path names anything, a dangling link included (what an exclusive create refuses).
bool names_anything(const std::filesystem::path &path) {
    std::error_code ec;
    return std::filesystem::symlink_status(path, ec).type() != std::filesystem::file_type::not_found;
}
} // namespace

event_effect apply_event(hosted_match &m, const session_event &ev) {
    const bool in_range = ev.slot >= 0 && static_cast<std::size_t>(ev.slot) < m.slots.size();
    switch (ev.kind) {
    case session_event_kind::player_joined:
        ++m.joins;
        m.had_player = true;
        if (in_range) {
            m.slots[static_cast<std::size_t>(ev.slot)].name = ev.name;
            m.slots[static_cast<std::size_t>(ev.slot)].present_at_end = true;
        }
        return event_effect::joined;
    case session_event_kind::player_left:
        // Once the match is ending its players leave because of it: they were present at the end.
        if (!m.ending && in_range) m.slots[static_cast<std::size_t>(ev.slot)].present_at_end = false;
        return event_effect::left;
    case session_event_kind::recording_failed:
        // A forensic desync file that could not be written is not the replay.
        if (ev.path != m.replay.string()) return event_effect::none;
        // The first failure stopped the recording: it is the reason, and the one counted.
        if (m.recording_failed) return event_effect::none;
        m.recording_failed = true;
        m.recording_error = ev.text;
        return event_effect::recording_failed;
    default: return event_effect::none;
    }
}

std::optional<std::string> end_reason_now(hosted_match &m, int players, std::uint64_t now_us, const host_options &o,
                                          const drain_control &drain, bool open_mode) {
    if (players > 0) m.empty_since_us = 0;
    else if (m.empty_since_us == 0)
        m.empty_since_us = now_us;
    if (drain.forced()) return "drain forced";
    if (drain.grace_over(now_us, o.drain_grace_ms)) return "drain";
    if (drain.draining() && players == 0) return "drain";
    if (o.match_duration_ms != 0 && now_us >= m.opened_us + o.match_duration_ms * 1000ull) return "duration";
    if (players == 0 && (m.had_player || !open_mode) && now_us - m.empty_since_us >= o.empty_timeout_ms * 1000ull)
        return m.had_player ? "players left" : "nobody joined";
    return std::nullopt;
}

match_result result_of(const hosted_match &m, std::uint64_t now_us) {
    match_result r;
    r.match_id = m.id;
    r.end_reason = m.end_reason;
    r.duration_s = static_cast<double>(now_us - m.opened_us) / 1e6;
    r.joins = m.joins;
    r.final_frame = m.session ? m.session->frame() : 0;
    // A step that threw left the world between frames: the last confirmed one is the verdict.
    r.final_hash = m.last_hash ? *m.last_hash : (m.game.state ? hash(*m.game.state) : 0);
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
    if (!m.replay.empty() && !m.recording_failed) r.replay_path = m.replay.string();
    r.recording_failed = m.recording_failed;
    r.recording_error = m.recording_error;
    return r;
}

// ---------------------------------------------------------------------- match_lifecycle

match_lifecycle::match_lifecycle(const host_options &options, game_factory factory, transport_mux &mux,
                                 frame_scheduler &scheduler, host_metrics &live, result_writer &results,
                                 std::function<void(std::string_view)> log)
    : opt_{options}, factory_{std::move(factory)}, mux_{mux},
      scheduler_{scheduler}, live_{live}, results_{results}, log_{std::move(log)} {
    matches_.resize(opt_.max_matches);
    if (!opt_.trace_dir.empty()) traces_ = std::make_unique<trace_writer>(trace_writer_options{.queue = 4});
}

bool match_lifecycle::report_trace_failures() {
    if (!traces_) return true;
    bool ok = true;
    if (const std::uint64_t dropped = traces_->dropped(); dropped != trace_drops_) {
        log_("traces not written: " + std::to_string(dropped - trace_drops_) +
             " (the trace writer's queue was full; docs/hosting.md, \"Traces\")");
        trace_drops_ = dropped;
        ok = false;
    }
    if (traces_->failed() == trace_failures_) return ok;
    trace_failures_ = traces_->failed();
    for (const trace_write_failure &f : traces_->take_failures()) log_("could not write the trace " + f.why);
    return false;
}

bool match_lifecycle::flush_traces() {
    if (traces_) traces_->flush();
    return report_trace_failures();
}

std::optional<std::size_t> match_lifecycle::find(const std::string &id) const {
    const auto it = by_id_.find(id);
    if (it == by_id_.end()) return std::nullopt;
    return it->second;
}

std::size_t match_lifecycle::running() const noexcept {
    std::size_t n = 0;
    for (const auto &m : matches_) n += (m && !m->ending) ? 1u : 0u;
    return n;
}

bool match_lifecycle::empty() const noexcept {
    return std::all_of(matches_.begin(), matches_.end(), [](const auto &m) { return !m; });
}

result<std::size_t> match_lifecycle::open(const std::string &id, const match_params &params, std::uint64_t now_us) {
    const auto free = std::find(matches_.begin(), matches_.end(), nullptr);
    if (free == matches_.end())
        return result<std::size_t>{errc::invalid_argument,
                                   "the server is full (" + std::to_string(opt_.max_matches) + " matches running)"};
    const auto place = static_cast<std::size_t>(free - matches_.begin());
    try {
        return open_at(place, id, params, now_us);
    } catch (const std::exception &e) { // the factory's, or a misuse report (invalid settings)
        return result<std::size_t>{errc::invalid_argument, std::string{"could not open the match: "} + e.what()};
    }
}

std::filesystem::path match_lifecycle::replay_path_of(const std::string &id) const {
    if (!opt_.single_replay_path.empty() && !single_replay_used_) return opt_.single_replay_path;
    if (!opt_.replay_dir.empty()) return opt_.replay_dir / (id + ".rcr");
    return {};
}

result<std::size_t> match_lifecycle::open_at(std::size_t place, const std::string &id, const match_params &params,
                                             std::uint64_t now_us) {
    // A replay is never overwritten (docs/hosting.md, "Ended matches"): a match whose replay
    // exists has been played. Checked before the game is made; the writer's exclusive create
    // is what guarantees it.
    const auto replay = replay_path_of(id);
    if (!replay.empty() && names_anything(replay))
        return result<std::size_t>{errc::invalid_argument, "match '" + id + "' has ended: its replay " +
                                                               replay.string() +
                                                               " exists (a replay is never overwritten)"};
    auto made = factory_(params);
    if (!made)
        return result<std::size_t>{errc::invalid_argument, "the game refused the match settings: " + made.message()};
    auto m = std::make_unique<hosted_match>();
    m->id = id;
    m->place = place;
    m->params = params;
    m->game = std::move(*made);
    if (!m->game.state) return result<std::size_t>{errc::invalid_argument, "the game made no world"};
    m->game.config.max_players = params.players;
    m->game.config.tick_hz = params.tick_hz;
    m->route = mux_.add_route();

    server_options so = opt_.session;
    m->replay = replay;
    if (!opt_.single_replay_path.empty()) single_replay_used_ = true;
    so.record_path = m->replay;
    so.record_settings.metadata = m->game.metadata;
    so.record_settings.metadata.emplace_back("match", id);
    if (!opt_.single_trace_path.empty()) { // the first match alone keeps a trace
        so.trace.records = 0;
        if (!single_trace_used_) {
            single_trace_used_ = true;
            m->trace = opt_.single_trace_path;
            so.trace.records = opt_.session.trace.records != 0 ? opt_.session.trace.records : 1u << 19;
            if (so.trace.process_name.empty()) so.trace.process_name = "retcon server, match " + id;
        }
    } else if (traces_) { // every match keeps a trace, written through the writer thread
        m->trace = opt_.trace_dir / (id + ".trace.json");
        m->trace_queued = true;
        if (so.trace.records == 0) so.trace.records = 1u << 17;
        if (so.trace.process_name.empty()) so.trace.process_name = "retcon server, match " + id;
    }
    so.flight_writer = traces_.get(); // the matches' flight recorders share the host's thread
    if (session_admission) so.admission = session_admission(place);
    // The step and the confirmed-frame callback time the parts of a tick (tick_costs). Observed,
    // not wrapped in a lambda: the step keeps its systems for desync bisection (docs/net.md,
    // "Desync forensics").
    hosted_match *raw = m.get();
    auto started = std::make_shared<std::uint64_t>(0);
    step_function step = m->game.step.observed([started] { *started = host_time::now_ns(); },
                                               [raw, started, this] {
                                                   raw->step_end_ns = host_time::now_ns();
                                                   live_.costs.simulate_ns += raw->step_end_ns - *started;
                                               });
    try {
        m->session =
            std::make_unique<server_session>(m->game.config, *m->game.state, std::move(step), mux_.route(m->route), so);
    } catch (...) {
        mux_.remove_route(m->route);
        throw;
    }
    m->session->on_confirmed([raw](const frame_inputs &, const world &, std::uint64_t h) {
        raw->confirmed_ns = host_time::now_ns();
        raw->last_hash = h;
    });
    m->slots.resize(params.players);
    for (std::size_t s = 0; s < m->slots.size(); ++s) m->slots[s].slot = static_cast<int>(s);
    // The match's one clock: the scheduler picks its phase; its session is first polled at
    // the clock's origin, which starts the session's clock there too (scheduler.hpp).
    m->clock = scheduler_.assign(now_us, params.tick_hz, m->session->frame());
    m->opened_us = now_us;
    m->m.match_id = id;
    by_id_[id] = place;
    matches_[place] = std::move(m);
    ++live_.matches_opened;
    results_.push_opened(id, params);
    if (opt_.match_limit != 0 && live_.matches_opened >= opt_.match_limit)
        log_("match limit reached: " + std::to_string(opt_.match_limit) +
             " matches opened; the host drains once they have ended");
    const hosted_match &opened = *matches_[place];
    log_match(opened, "opened: " + std::to_string(params.players) + " players at " + std::to_string(params.tick_hz) +
                          " Hz, seed " + std::to_string(params.seed) +
                          (opened.replay.empty() ? "" : ", recording " + opened.replay.string()));
    return place;
}

bool match_lifecycle::open_missing(std::uint64_t now_us) {
    if (now_us < next_open_us_) return true;
    if (running() >= opt_.open_matches) return true;
    // An ended match holds its place until its goodbyes are done: open the next one then.
    if (std::find(matches_.begin(), matches_.end(), nullptr) == matches_.end()) return true;
    if (!opt_.reopen_matches && open_sequence_ >= opt_.open_matches) return true;
    if (limit_reached()) return true;
    match_params p = opt_.open_params;
    p.seed = opt_.open_params.seed + open_sequence_;
    ++open_sequence_;
    // Open matches are numbered from 1 in every run: past a number whose replay is in the
    // directory from an earlier run (a replay is never overwritten).
    const auto id_at = [&] { return "open-" + std::to_string(open_sequence_ + skipped_ids_); };
    std::string id = id_at();
    for (; !opt_.replay_dir.empty() && replay_path_of(id) != opt_.single_replay_path &&
           names_anything(replay_path_of(id));
         id = id_at())
        ++skipped_ids_;
    if (auto r = open(id, p, now_us); !r) {
        log_("could not open match " + id + ": " + r.message());
        return false;
    }
    const double keyframe_cycle_us = 1e6 * opt_.session.record_settings.keyframe_interval / p.tick_hz;
    next_open_us_ =
        now_us + static_cast<std::uint64_t>(keyframe_cycle_us / std::max<std::uint32_t>(opt_.open_matches, 1));
    return true;
}

void match_lifecycle::begin_end(hosted_match &m, std::string reason, std::uint64_t now_us) {
    if (m.ending) return;
    m.ending = true;
    m.end_reason = std::move(reason);
    m.ending_since_us = now_us;
    scheduler_.release(m.clock);
}

void match_lifecycle::end(hosted_match &m, std::string reason, std::uint64_t now_us) {
    if (m.ending) return;
    begin_end(m, std::move(reason), now_us);
    guarded(m, now_us, [&] { m.session->end_match(); });
}

void match_lifecycle::fail(hosted_match &m, const std::string &what, std::uint64_t now_us) {
    ++live_.matches_failed;
    log_match(m, std::string{"failed: "} + what);
    begin_end(m, "error: " + what, now_us);
    if (!m.session) return;
    try {
        m.session->end_match();
    } catch (const std::exception &e) {
        // Nothing more can be trusted of it: the replay stays readable up to its last chunk.
        log_match(m, std::string{"could not end cleanly: "} + e.what());
        m.session.reset();
    }
}

void match_lifecycle::handle_events(hosted_match &m) {
    if (!m.session) return;
    for (session_event ev; m.session->next_event(ev);) {
        if (apply_event(m, ev) == event_effect::recording_failed) ++live_.recordings_failed;
        log_match(m, "[frame " + std::to_string(ev.frame) + "] " + to_string(ev.kind) + " slot " +
                         std::to_string(ev.slot) + " " + ev.text);
    }
}

void match_lifecycle::finish(std::size_t i, std::uint64_t now_us) {
    hosted_match &m = *matches_[i];
    // What ending the session raised (a replay that could not be finished) belongs in its result.
    handle_events(m);
    match_result r = result_of(m, now_us);
    r.bytes_in = mux_.bytes_in(m.route);
    r.bytes_out = mux_.bytes_out(m.route);
    if (m.game.report) {
        try {
            m.game.report(*m.game.state, r.slots);
        } catch (const std::exception &e) {
            log_match(m, std::string{"the game's report failed: "} + e.what());
        }
    }
    live_.desyncs_verified += r.desyncs_verified;
    live_.replaced_inputs += r.replaced_inputs;
    live_.bytes_in += r.bytes_in;
    live_.bytes_out += r.bytes_out;
    ++live_.matches_ended;
    log_match(m, "ended (" + m.end_reason + ") after " + std::to_string(r.final_frame) + " frames");
    results_.push(std::move(r));
    if (m.trace_queued && m.session && m.session->trace()) {
        // A copy of the ring on this thread; the writer thread formats and writes it.
        if (traces_->submit(*m.session->trace(), m.trace.native()))
            log_match(m, "trace queued for " + m.trace.string() + " (" + std::to_string(m.session->trace()->size()) +
                             " records)");
        (void)report_trace_failures();
    } else if (!m.trace.empty() && m.session) {
        if (auto written = m.session->write_trace(m.trace); written)
            log_match(m, "trace written to " + m.trace.string() + " (" + std::to_string(m.session->trace()->size()) +
                             " records)");
        else
            log_match(m, "could not write the trace: " + written.message());
    }
    mux_.remove_route(m.route);
    by_id_.erase(m.id);
    const std::string id = m.id;
    matches_[i].reset();
    if (finished) finished(i, id);
}

} // namespace retcon
