// rc_client_*: the client session through the C API (docs/c-api.md, "Sessions").
#include "game_trace.hpp"
#include "sessions.hpp"
#include "telemetry_out.hpp"

#include <cstring>

struct rc_client final : retcon::capi::session_handle {
    rc_client(rc_world &w, rc_transport &t, rc_step_fn step, void *user, retcon::session_config config,
              retcon::client_options options)
        : session_handle{w, t, step, user}, session{std::move(config), w.world,
                                                    retcon::capi::steps_only_through_requests(), *t.transport,
                                                    std::move(options)} {}
    ~rc_client() override { drop_requests(); }
    rc_client(const rc_client &) = delete;
    rc_client &operator=(const rc_client &) = delete;

    retcon::client_session session;
    std::vector<std::byte> input; ///< this update's input, used by every frame it runs
    /// @brief Where rc_client_telemetry reads the ring before converting it (sized once).
    std::vector<retcon::frame_telemetry> telemetry{session.telemetry_capacity()};
    retcon::capi::game_trace game_slices; ///< the game's own slices (rc_client_trace_begin)

private:
    bool due() override { return session.should_tick(now); }
    retcon::step_requests tick() override { return session.tick_requests(input); }
    bool pop_event(retcon::session_event &out) override { return session.next_event(out); }
};

using namespace retcon;
using namespace retcon::capi;

namespace {

/// The client_options of @p o, or the reason in @p err.
std::optional<client_options> options_from_c(std::string &err, const rc_client_options &o) {
    client_options out;
    if (o.name) {
        const std::size_t length = std::strlen(o.name);
        if (length > wire::limits::max_name) {
            fail(err, RC_ERR_ARGUMENT, "rc_client_create: name is %zu bytes, at most %zu", length,
                 wire::limits::max_name);
            return std::nullopt;
        }
        out.name = o.name;
    }
    out.spectator = o.spectator != 0;
    if (o.join_token_size > 0) {
        if (!o.join_token) {
            fail(err, RC_ERR_NULL, "rc_client_create: join_token is NULL but join_token_size is %zu",
                 o.join_token_size);
            return std::nullopt;
        }
        if (o.join_token_size > wire::limits::max_join_token) {
            fail(err, RC_ERR_ARGUMENT, "rc_client_create: the join token is %zu bytes, at most %zu", o.join_token_size,
                 wire::limits::max_join_token);
            return std::nullopt;
        }
        const auto *b = static_cast<const std::byte *>(o.join_token);
        out.join_token.assign(b, b + o.join_token_size);
    }
    if (o.reconnect_token_size != 0) {
        if (o.reconnect_token_size != reconnect_token::size || !o.reconnect_token) {
            fail(err, RC_ERR_ARGUMENT, "rc_client_create: a reconnect token is %zu bytes (got %zu%s)",
                 reconnect_token::size, o.reconnect_token_size, o.reconnect_token ? "" : ", NULL");
            return std::nullopt;
        }
        out.reconnect_token = reconnect_token{std::span<const std::byte, reconnect_token::size>{
            static_cast<const std::byte *>(o.reconnect_token), reconnect_token::size}};
    }
    out.connect_timeout_ms = o.connect_timeout_ms;
    if (o.struct_size >= RC_CLIENT_OPTIONS_SIZE_V2) { // a caller of the first version has neither
        out.reconnect.attempts = o.reconnect_attempts;
        out.reconnect.backoff_ms = o.reconnect_backoff_ms;
        out.reconnect.max_backoff_ms = o.reconnect_max_backoff_ms;
        out.telemetry.frames = o.telemetry_frames;
        out.telemetry.clock = {o.telemetry_clock, o.telemetry_clock_user};
    }
    if (o.struct_size >= sizeof(rc_client_options)) out.trace = trace_options_from_c(o); // a third-version caller
    return out;
}

} // namespace

extern "C" {

rc_status rc_client_options_default(rc_client_options *out) {
    auto &err = thread_error();
    if (!out) return fail(err, RC_ERR_NULL, "rc_client_options_default: out is NULL");
    if (auto s =
            check_struct_size(err, out->struct_size, RC_CLIENT_OPTIONS_SIZE_V1, "rc_client_options_default", "out");
        s != RC_OK)
        return s;
    const client_options d;
    out->name = nullptr; // "player"
    out->spectator = 0;
    out->join_token = nullptr;
    out->join_token_size = 0;
    out->reconnect_token = nullptr;
    out->reconnect_token_size = 0;
    out->connect_timeout_ms = d.connect_timeout_ms;
    if (out->struct_size >= RC_CLIENT_OPTIONS_SIZE_V2) {
        out->reconnect_attempts = d.reconnect.attempts;
        out->reconnect_backoff_ms = d.reconnect.backoff_ms;
        out->reconnect_max_backoff_ms = d.reconnect.max_backoff_ms;
        out->telemetry_frames = d.telemetry.frames;
        out->telemetry_clock = nullptr;
        out->telemetry_clock_user = nullptr;
    }
    if (out->struct_size >= sizeof(rc_client_options)) {
        out->trace_records = 0; // off
        out->trace_pid = 0;
        out->trace_process_name = nullptr;
        out->trace_clock = nullptr;
        out->trace_clock_user = nullptr;
    }
    return RC_OK;
}

rc_status rc_client_create(const rc_session_config *config, rc_world *world, rc_transport *transport, rc_step_fn step,
                           void *user, const rc_client_options *options, rc_client **out) {
    auto &err = thread_error();
    return guarded(err, [&] {
        if (!world || !transport || !out)
            return fail(err, RC_ERR_NULL, "rc_client_create: world, transport or out is NULL");
        *out = nullptr;
        session_config cfg;
        if (auto s = config_from_c(err, config, false, "rc_client_create", cfg); s != RC_OK) return s;
        rc_client_options defaults{};
        defaults.struct_size = sizeof defaults;
        (void)rc_client_options_default(&defaults);
        if (options) {
            if (auto s = check_struct_size(err, options->struct_size, RC_CLIENT_OPTIONS_SIZE_V1, "rc_client_create",
                                           "options");
                s != RC_OK)
                return s;
        }
        auto opt = options_from_c(err, options ? *options : defaults);
        if (!opt) return RC_ERR_ARGUMENT;
        auto *c = new rc_client{*world, *transport, step, user, cfg, std::move(*opt)};
        c->input.assign(cfg.input_size, std::byte{0});
        *out = c;
        return RC_OK;
    });
}

void rc_client_destroy(rc_client *client) {
    if (client && client->refuse_destroy("rc_client_destroy")) return;
    delete client;
}

const char *rc_client_last_error(const rc_client *client) { return client ? client->error.c_str() : "client is NULL"; }

rc_status rc_client_update(rc_client *c, uint64_t now_ms, const void *input, size_t size) {
    if (!c) return fail(thread_error(), RC_ERR_NULL, "rc_client_update: client is NULL");
    return guarded(c->error, [&] {
        if (auto r = c->refuse_inside_step("rc_client_update"); r != RC_OK) return r;
        if (input) {
            if (size != c->input.size())
                return fail(c->error, RC_ERR_SIZE, "rc_client_update: the input is %zu bytes, the config says %zu",
                            size, c->input.size());
            std::memcpy(c->input.data(), input, size);
        } else if (size != 0) {
            return fail(c->error, RC_ERR_NULL, "rc_client_update: input is NULL but size is %zu", size);
        } // NULL, 0: the previous input again (zeros at first; a spectator has none)
        c->now = now_ms;
        c->session.poll(now_ms);
        return c->run_due("rc_client_update");
    });
}

rc_status rc_client_next_request(rc_client *c, rc_request *out, int *has_request) {
    if (!c) return fail(thread_error(), RC_ERR_NULL, "rc_client_next_request: client is NULL");
    return guarded(c->error, [&] { return c->next_request(out, has_request, "rc_client_next_request"); });
}

rc_status rc_client_request_done(rc_client *c, rc_frame frame) {
    if (!c) return fail(thread_error(), RC_ERR_NULL, "rc_client_request_done: client is NULL");
    return guarded(c->error, [&] { return c->request_done(frame, "rc_client_request_done"); });
}

rc_status rc_client_request_failed(rc_client *c, const char *why) {
    if (!c) return fail(thread_error(), RC_ERR_NULL, "rc_client_request_failed: client is NULL");
    return guarded(c->error, [&] { return c->request_failed(why, "rc_client_request_failed"); });
}

rc_status rc_client_next_event(rc_client *c, rc_event *out, int *has_event) {
    if (!c) return fail(thread_error(), RC_ERR_NULL, "rc_client_next_event: client is NULL");
    return guarded(c->error, [&] { return c->next_event(out, has_event, "rc_client_next_event"); });
}

rc_status rc_client_leave(rc_client *c) {
    if (!c) return fail(thread_error(), RC_ERR_NULL, "rc_client_leave: client is NULL");
    return guarded(c->error, [&] {
        if (auto r = c->refuse_inside_step("rc_client_leave"); r != RC_OK) return r;
        c->session.leave();
        return RC_OK;
    });
}

rc_status rc_client_get_info(const rc_client *cc, rc_client_info *out) {
    if (!cc) return fail(thread_error(), RC_ERR_NULL, "rc_client_get_info: client is NULL");
    auto *c = const_cast<rc_client *>(cc);
    if (!out) return fail(c->error, RC_ERR_NULL, "rc_client_get_info: out is NULL");
    if (auto r = check_struct_size(c->error, out->struct_size, sizeof(rc_client_info), "rc_client_get_info", "out");
        r != RC_OK)
        return r;
    out->state = static_cast<std::uint32_t>(c->session.state());
    out->slot = c->session.slot();
    out->players = static_cast<std::uint32_t>(c->session.players());
    out->tick_hz = c->session.tick_hz();
    out->current_frame = c->session.current_frame();
    out->confirmed_frame = c->session.confirmed_frame();
    return RC_OK;
}

rc_status rc_client_stats(const rc_client *cc, rc_session_stats *out) {
    if (!cc) return fail(thread_error(), RC_ERR_NULL, "rc_client_stats: client is NULL");
    auto *c = const_cast<rc_client *>(cc);
    if (!out) return fail(c->error, RC_ERR_NULL, "rc_client_stats: out is NULL");
    if (auto r = check_struct_size(c->error, out->struct_size, sizeof(rc_session_stats), "rc_client_stats", "out");
        r != RC_OK)
        return r;
    stats_to_c(c->session.stats(), out);
    return RC_OK;
}

rc_status rc_client_is_predicted(const rc_client *cc, rc_frame frame, uint32_t slot, int *predicted) {
    if (!cc) return fail(thread_error(), RC_ERR_NULL, "rc_client_is_predicted: client is NULL");
    auto *c = const_cast<rc_client *>(cc);
    if (!predicted) return fail(c->error, RC_ERR_NULL, "rc_client_is_predicted: predicted is NULL");
    if (slot >= c->session.players())
        return fail(c->error, RC_ERR_ARGUMENT,
                    "rc_client_is_predicted: slot %u is outside the match's %zu player slots", slot,
                    c->session.players());
    const auto f = to_frame_c(frame);
    if (!f) return bad_frame(c->error, "rc_client_is_predicted", frame);
    return guarded(c->error, [&] {
        *predicted = c->session.is_predicted(*f, slot) ? 1 : 0;
        return RC_OK;
    });
}

rc_status rc_client_reconnect_token(const rc_client *cc, void *buffer, size_t capacity, size_t *needed) {
    if (!cc) return fail(thread_error(), RC_ERR_NULL, "rc_client_reconnect_token: client is NULL");
    auto *c = const_cast<rc_client *>(cc);
    const reconnect_token t = c->session.reconnect_token();
    return copy_out(c->error, t.bytes().data(), reconnect_token::size, buffer, capacity, needed,
                    "rc_client_reconnect_token");
}

rc_status rc_client_telemetry(const rc_client *cc, rc_frame_telemetry *out, size_t capacity, size_t *count) {
    if (!cc) return fail(thread_error(), RC_ERR_NULL, "rc_client_telemetry: client is NULL");
    auto *c = const_cast<rc_client *>(cc);
    return telemetry_out(
        c->error, c->telemetry, out, capacity, count, "rc_client_telemetry",
        [c](std::span<frame_telemetry> s) { return c->session.telemetry(s); },
        [](const frame_telemetry &e, rc_frame_telemetry &o) {
            o.rollback_depth = e.rollback_depth;
            o.frame = e.frame;
            o.resimulated = e.resimulated;
            o.resimulate_us = e.resimulate_us;
            o.step_us = e.step_us;
            o.stalls = e.stalls;
            o.bytes_in = e.bytes_in;
            o.bytes_out = e.bytes_out;
            o.frames_ahead = e.frames_ahead;
            o.rtt_ms = e.rtt_ms;
            o.jitter_ms = e.jitter_ms;
            o.input_delay = e.input_delay;
            o.input_replaced = e.input_replaced ? 1 : 0;
            o.confirmed = e.confirmed ? 1 : 0;
            o.hash_checked = e.hash_checked ? 1 : 0;
        });
}

rc_status rc_client_write_trace(rc_client *c, const char *path) {
    if (!c) return fail(thread_error(), RC_ERR_NULL, "rc_client_write_trace: client is NULL");
    return guarded(c->error, [&] {
        return game_trace::write(c->error, c->session.trace(), path, "rc_client_write_trace",
                                 "rc_client_options.trace_records");
    });
}

rc_status rc_client_trace_name(rc_client *c, const char *name, uint32_t *out_id) {
    if (!c) return fail(thread_error(), RC_ERR_NULL, "rc_client_trace_name: client is NULL");
    return guarded(c->error, [&] {
        return c->game_slices.name(c->error, c->session.trace(), name, out_id, "rc_client_trace_name");
    });
}

rc_status rc_client_trace_begin(rc_client *c, uint32_t id) {
    if (!c) return fail(thread_error(), RC_ERR_NULL, "rc_client_trace_begin: client is NULL");
    return c->game_slices.begin(c->error, c->session.trace(), id, "rc_client_trace_begin");
}

rc_status rc_client_trace_end(rc_client *c) {
    if (!c) return fail(thread_error(), RC_ERR_NULL, "rc_client_trace_end: client is NULL");
    return c->game_slices.end(c->error, c->session.trace(), "rc_client_trace_end");
}

} // extern "C"
