// rc_server_*: the server session through the C API (docs/c-api.md, "Sessions").
#include "game_trace.hpp"
#include "sessions.hpp"
#include "telemetry_out.hpp"

#include <filesystem>

struct rc_server final : retcon::capi::session_handle {
    rc_server(rc_world &w, rc_transport &t, rc_step_fn step, void *user, retcon::session_config config,
              retcon::server_options options)
        : session_handle{w, t, step, user}, session{std::move(config), w.world,
                                                    retcon::capi::steps_only_through_requests(), *t.transport,
                                                    std::move(options)} {}
    ~rc_server() override { drop_requests(); }
    rc_server(const rc_server &) = delete;
    rc_server &operator=(const rc_server &) = delete;

    retcon::server_session session;
    /// @brief Where rc_server_telemetry and rc_server_client_telemetry read the rings before
    /// converting them (sized once).
    std::vector<retcon::server_frame_telemetry> telemetry{session.telemetry_capacity()};
    std::vector<retcon::server_client_telemetry> client_telemetry{session.telemetry_capacity()};
    retcon::capi::game_trace game_slices; ///< the game's own slices (rc_server_trace_begin)

private:
    bool due() override { return session.should_tick(now); }
    retcon::step_requests tick() override { return session.tick_requests(); }
    bool pop_event(retcon::session_event &out) override { return session.next_event(out); }
};

using namespace retcon;
using namespace retcon::capi;

namespace {

server_options options_from_c(const rc_server_options &o) {
    server_options out;
    if (o.record_path) out.record_path = o.record_path;
    if (o.forensics_dir) out.forensics_dir = o.forensics_dir;
    out.max_spectators = o.max_spectators;
    out.hello_timeout_ms = o.hello_timeout_ms;
    out.load_timeout_ms = o.load_timeout_ms;
    out.max_packets_per_second = o.max_packets_per_second;
    out.max_uploads_per_client = o.max_uploads_per_client;
    out.upload_size_factor = o.upload_size_factor;
    out.max_upload_bytes = o.max_upload_bytes;
    out.upload_budget_bytes = o.upload_budget_bytes;
    out.upload_timeout_ms = o.upload_timeout_ms;
    out.resync_interval_ms = o.resync_interval_ms;
    out.max_false_claims = o.max_false_claims;
    out.max_forensic_files = o.max_forensic_files;
    out.verify_spectators = o.verify_spectators != 0;
    out.history_frames = o.history_frames;
    out.forensic_frames = o.forensic_frames;
    out.end_timeout_ms = o.end_timeout_ms;
    out.telemetry.frames = o.telemetry_frames;
    out.telemetry.clock = {o.telemetry_clock, o.telemetry_clock_user};
    if (o.struct_size >= sizeof(rc_server_options)) out.trace = trace_options_from_c(o); // a third-version caller
    // An image of every checksum frame: verifying a desync never re-simulates, so the server
    // steps only through requests (docs/c-api.md, "Sessions").
    out.forensic_interval = 1;
    return out;
}

} // namespace

extern "C" {

rc_status rc_server_options_default(rc_server_options *out) {
    auto &err = thread_error();
    if (!out) return fail(err, RC_ERR_NULL, "rc_server_options_default: out is NULL");
    if (auto s =
            check_struct_size(err, out->struct_size, RC_SERVER_OPTIONS_SIZE_V2, "rc_server_options_default", "out");
        s != RC_OK)
        return s;
    const server_options d;
    out->record_path = nullptr;
    out->forensics_dir = nullptr;
    out->max_spectators = d.max_spectators;
    out->hello_timeout_ms = d.hello_timeout_ms;
    out->load_timeout_ms = d.load_timeout_ms;
    out->max_packets_per_second = d.max_packets_per_second;
    out->max_uploads_per_client = d.max_uploads_per_client;
    out->upload_size_factor = d.upload_size_factor;
    out->max_upload_bytes = d.max_upload_bytes;
    out->upload_budget_bytes = d.upload_budget_bytes;
    out->upload_timeout_ms = d.upload_timeout_ms;
    out->resync_interval_ms = d.resync_interval_ms;
    out->max_false_claims = d.max_false_claims;
    out->max_forensic_files = d.max_forensic_files;
    out->verify_spectators = d.verify_spectators ? 1 : 0;
    out->history_frames = d.history_frames;
    out->forensic_frames = d.forensic_frames;
    out->end_timeout_ms = d.end_timeout_ms;
    out->telemetry_frames = d.telemetry.frames;
    out->telemetry_clock = nullptr;
    out->telemetry_clock_user = nullptr;
    if (out->struct_size >= sizeof(rc_server_options)) {
        out->trace_records = 0; // off
        out->trace_pid = 0;
        out->trace_process_name = nullptr;
        out->trace_clock = nullptr;
        out->trace_clock_user = nullptr;
    }
    return RC_OK;
}

rc_status rc_server_create(const rc_session_config *config, rc_world *world, rc_transport *transport, rc_step_fn step,
                           void *user, const rc_server_options *options, rc_server **out) {
    auto &err = thread_error();
    return guarded(err, [&] {
        if (!world || !transport || !out)
            return fail(err, RC_ERR_NULL, "rc_server_create: world, transport or out is NULL");
        *out = nullptr;
        session_config cfg;
        if (auto s = config_from_c(err, config, true, "rc_server_create", cfg); s != RC_OK) return s;
        rc_server_options defaults{};
        defaults.struct_size = sizeof defaults;
        (void)rc_server_options_default(&defaults);
        if (options) {
            if (auto s = check_struct_size(err, options->struct_size, RC_SERVER_OPTIONS_SIZE_V2, "rc_server_create",
                                           "options");
                s != RC_OK)
                return s;
        }
        server_options opt = options_from_c(options ? *options : defaults);
        if (const std::string why = server_options_problem(opt); !why.empty())
            return fail(err, RC_ERR_ARGUMENT, "rc_server_create: %s", why.c_str());
        *out = new rc_server{*world, *transport, step, user, cfg, std::move(opt)};
        return RC_OK;
    });
}

void rc_server_destroy(rc_server *server) {
    if (server && server->refuse_destroy("rc_server_destroy")) return;
    delete server;
}

const char *rc_server_last_error(const rc_server *server) { return server ? server->error.c_str() : "server is NULL"; }

rc_status rc_server_update(rc_server *s, uint64_t now_ms) {
    if (!s) return fail(thread_error(), RC_ERR_NULL, "rc_server_update: server is NULL");
    return guarded(s->error, [&] {
        if (auto r = s->refuse_inside_step("rc_server_update"); r != RC_OK) return r;
        s->now = now_ms;
        s->session.poll(now_ms);
        return s->run_due("rc_server_update");
    });
}

rc_status rc_server_next_request(rc_server *s, rc_request *out, int *has_request) {
    if (!s) return fail(thread_error(), RC_ERR_NULL, "rc_server_next_request: server is NULL");
    return guarded(s->error, [&] { return s->next_request(out, has_request, "rc_server_next_request"); });
}

rc_status rc_server_request_done(rc_server *s, rc_frame frame) {
    if (!s) return fail(thread_error(), RC_ERR_NULL, "rc_server_request_done: server is NULL");
    return guarded(s->error, [&] { return s->request_done(frame, "rc_server_request_done"); });
}

rc_status rc_server_request_failed(rc_server *s, const char *why) {
    if (!s) return fail(thread_error(), RC_ERR_NULL, "rc_server_request_failed: server is NULL");
    return guarded(s->error, [&] { return s->request_failed(why, "rc_server_request_failed"); });
}

rc_status rc_server_next_event(rc_server *s, rc_event *out, int *has_event) {
    if (!s) return fail(thread_error(), RC_ERR_NULL, "rc_server_next_event: server is NULL");
    return guarded(s->error, [&] { return s->next_event(out, has_event, "rc_server_next_event"); });
}

rc_status rc_server_end_match(rc_server *s) {
    if (!s) return fail(thread_error(), RC_ERR_NULL, "rc_server_end_match: server is NULL");
    return guarded(s->error, [&] {
        if (auto r = s->refuse_inside_step("rc_server_end_match"); r != RC_OK) return r;
        s->session.end_match();
        return RC_OK;
    });
}

rc_status rc_server_get_info(const rc_server *s, rc_server_info *out) {
    if (!s) return fail(thread_error(), RC_ERR_NULL, "rc_server_get_info: server is NULL");
    auto &err = const_cast<rc_server *>(s)->error;
    if (!out) return fail(err, RC_ERR_NULL, "rc_server_get_info: out is NULL");
    if (auto r = check_struct_size(err, out->struct_size, sizeof(rc_server_info), "rc_server_get_info", "out");
        r != RC_OK)
        return r;
    out->frame = s->session.frame();
    out->players = static_cast<std::uint32_t>(s->session.players());
    out->finished = s->session.finished() ? 1 : 0;
    out->ended = s->session.ended() ? 1 : 0;
    return RC_OK;
}

rc_status rc_server_client_stats(const rc_server *s, uint32_t slot, rc_session_stats *out) {
    if (!s) return fail(thread_error(), RC_ERR_NULL, "rc_server_client_stats: server is NULL");
    auto &err = const_cast<rc_server *>(s)->error;
    if (!out) return fail(err, RC_ERR_NULL, "rc_server_client_stats: out is NULL");
    if (auto r = check_struct_size(err, out->struct_size, sizeof(rc_session_stats), "rc_server_client_stats", "out");
        r != RC_OK)
        return r;
    if (slot > 0xFF) return fail(err, RC_ERR_ARGUMENT, "rc_server_client_stats: slot %u is not a player slot", slot);
    return guarded(err, [&] {
        stats_to_c(s->session.client_stats(static_cast<int>(slot)), out);
        return RC_OK;
    });
}

rc_status rc_server_totals(const rc_server *s, rc_session_stats *out) {
    if (!s) return fail(thread_error(), RC_ERR_NULL, "rc_server_totals: server is NULL");
    auto &err = const_cast<rc_server *>(s)->error;
    if (!out) return fail(err, RC_ERR_NULL, "rc_server_totals: out is NULL");
    if (auto r = check_struct_size(err, out->struct_size, sizeof(rc_session_stats), "rc_server_totals", "out");
        r != RC_OK)
        return r;
    return guarded(err, [&] {
        stats_to_c(s->session.totals(), out);
        return RC_OK;
    });
}

rc_status rc_server_slot_player(const rc_server *s, uint32_t slot, uint64_t *player) {
    if (!s) return fail(thread_error(), RC_ERR_NULL, "rc_server_slot_player: server is NULL");
    auto &err = const_cast<rc_server *>(s)->error;
    if (!player) return fail(err, RC_ERR_NULL, "rc_server_slot_player: player is NULL");
    if (slot > 0xFF) return fail(err, RC_ERR_ARGUMENT, "rc_server_slot_player: slot %u is not a player slot", slot);
    *player = s->session.slot_player(static_cast<int>(slot));
    return RC_OK;
}

rc_status rc_server_knows_token(const rc_server *s, const void *token, size_t size, int *known) {
    if (!s) return fail(thread_error(), RC_ERR_NULL, "rc_server_knows_token: server is NULL");
    auto &err = const_cast<rc_server *>(s)->error;
    if (!token || !known) return fail(err, RC_ERR_NULL, "rc_server_knows_token: token or known is NULL");
    if (size != reconnect_token::size)
        return fail(err, RC_ERR_SIZE, "rc_server_knows_token: a reconnect token is %zu bytes, not %zu",
                    reconnect_token::size, size);
    const reconnect_token t{std::span<const std::byte, reconnect_token::size>{static_cast<const std::byte *>(token),
                                                                              reconnect_token::size}};
    *known = s->session.knows(t) ? 1 : 0;
    return RC_OK;
}

rc_status rc_server_telemetry(const rc_server *s, rc_server_frame_telemetry *out, size_t capacity, size_t *count) {
    if (!s) return fail(thread_error(), RC_ERR_NULL, "rc_server_telemetry: server is NULL");
    auto *h = const_cast<rc_server *>(s);
    return telemetry_out(
        h->error, h->telemetry, out, capacity, count, "rc_server_telemetry",
        [h](std::span<server_frame_telemetry> span) { return h->session.telemetry(span); },
        [](const server_frame_telemetry &e, rc_server_frame_telemetry &o) {
            o.players = e.players;
            o.frame = e.frame;
            o.tick_us = e.tick_us;
            o.step_us = e.step_us;
            o.replaced_inputs = e.replaced_inputs;
            o.bytes_in = e.bytes_in;
            o.bytes_out = e.bytes_out;
        });
}

rc_status rc_server_slot_telemetry(const rc_server *s, uint32_t slot, rc_server_client_telemetry *out, size_t capacity,
                                   size_t *count) {
    if (!s) return fail(thread_error(), RC_ERR_NULL, "rc_server_slot_telemetry: server is NULL");
    auto *h = const_cast<rc_server *>(s);
    if (slot > 0xFF)
        return fail(h->error, RC_ERR_ARGUMENT, "rc_server_slot_telemetry: slot %u is not a player slot", slot);
    return telemetry_out(
        h->error, h->client_telemetry, out, capacity, count, "rc_server_slot_telemetry",
        [h, slot](std::span<server_client_telemetry> span) {
            return h->session.client_telemetry(static_cast<int>(slot), span);
        },
        [](const server_client_telemetry &e, rc_server_client_telemetry &o) {
            o.margin_ms = e.margin_ms;
            o.frame = e.frame;
            o.rtt_ms = e.rtt_ms;
            o.bytes_in = e.bytes_in;
            o.bytes_out = e.bytes_out;
            o.present = e.present ? 1 : 0;
            o.input_replaced = e.input_replaced ? 1 : 0;
        });
}

rc_status rc_server_write_trace(rc_server *s, const char *path) {
    if (!s) return fail(thread_error(), RC_ERR_NULL, "rc_server_write_trace: server is NULL");
    return guarded(s->error, [&] {
        return game_trace::write(s->error, s->session.trace(), path, "rc_server_write_trace",
                                 "rc_server_options.trace_records");
    });
}

rc_status rc_server_trace_name(rc_server *s, const char *name, uint32_t *out_id) {
    if (!s) return fail(thread_error(), RC_ERR_NULL, "rc_server_trace_name: server is NULL");
    return guarded(s->error, [&] {
        return s->game_slices.name(s->error, s->session.trace(), name, out_id, "rc_server_trace_name");
    });
}

rc_status rc_server_trace_begin(rc_server *s, uint32_t id) {
    if (!s) return fail(thread_error(), RC_ERR_NULL, "rc_server_trace_begin: server is NULL");
    return s->game_slices.begin(s->error, s->session.trace(), id, "rc_server_trace_begin");
}

rc_status rc_server_trace_end(rc_server *s) {
    if (!s) return fail(thread_error(), RC_ERR_NULL, "rc_server_trace_end: server is NULL");
    return s->game_slices.end(s->error, s->session.trace(), "rc_server_trace_end");
}

} // extern "C"
