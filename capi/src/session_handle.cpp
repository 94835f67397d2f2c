// What server and client handles share: step requests in both modes, configs, events and
// statistics (docs/c-api.md, "Sessions").
#include "sessions.hpp"

#include <stdexcept>

namespace retcon::capi {

session_handle::session_handle(rc_world &w, rc_transport &t, rc_step_fn step, void *user) noexcept
    : world{w}, transport_{t}, step_{step}, user_{user} {
    ++world.sessions;
    ++transport_.sessions;
}

session_handle::~session_handle() {
    --world.sessions;
    --transport_.sessions;
}

void session_handle::abandon(std::string why) {
    current_ = nullptr;
    requests_.abandon(std::move(why)); // the C++ session raises session_failed and ends
    ++world.epoch;
}

bool session_handle::refuse_destroy(const char *what) noexcept {
    if (!in_callback_) return false;
    try {
        (void)refuse_inside_step(what);
    } catch (...) { // no memory for the message: the session still ends when the step returns
        misuse_ = "misused";
    }
    fail(thread_error(), RC_ERR_ARGUMENT, "%s: called inside the step of frame %u: the session was kept and ends", what,
         current_->inputs.frame());
    return true;
}

rc_status session_handle::refuse_inside_step(const char *what) {
    if (!outstanding()) return RC_OK;
    const frame_t frame = current_->inputs.frame();
    const std::string why =
        std::string{what} +
        (in_callback_ ? " was called inside the step of frame " + std::to_string(frame)
                      : " was called before the request for frame " + std::to_string(frame) + " was done") +
        ": the session has ended";
    if (in_callback_) misuse_ = why; // abandoned when the callback returns: its frame is on the stack
    else
        abandon(why);
    return fail(error, RC_ERR_ARGUMENT, "%s", why.c_str());
}

rc_status session_handle::run_due(const char *what) {
    ++world.epoch; // the session may have restored the world (a snapshot from the server)
    fresh_ = true;
    return pump(what);
}

rc_status session_handle::pump(const char *what) {
    for (;;) {
        if (!current_) {
            current_ = requests_.next();
            if (!current_) { // this tick is complete: the next, if one is due
                // A tick that simulated nothing (stalled, not running) ends the update: nothing
                // changes before the next poll, so another would stall too.
                const bool nothing = !requests_.result() && !fresh_;
                fresh_ = true;
                if (nothing || !due()) {
                    requests_ = {};
                    return RC_OK;
                }
                requests_ = tick();
                fresh_ = false;
                ++world.epoch; // a rollback restores the world before its first request
                continue;
            }
        }
        if (!step_) return RC_OK; // poll mode: the caller steps it
        const rc_frame_inputs inputs = to_c(current_->inputs);
        in_callback_ = true;
        int result = 0;
        try {
            result = step_(&world, &inputs, user_);
        } catch (...) { // a C step cannot throw; a binding's or a C++ one can: end the session, not the process
            in_callback_ = false;
            misuse_.clear();
            abandon("the step of frame " + std::to_string(inputs.frame) + " threw an exception");
            throw;
        }
        in_callback_ = false;
        if (!misuse_.empty()) {
            abandon(std::exchange(misuse_, {}));
            return fail(error, RC_ERR_ARGUMENT, "%s: the step misused the session, which has ended", what);
        }
        if (result != 0) {
            abandon("the step of frame " + std::to_string(inputs.frame) + " returned " + std::to_string(result));
            return RC_OK; // the step's failure is the session's event, not this call's error
        }
        current_ = nullptr;
        ++world.epoch;
    }
}

rc_status session_handle::next_request(rc_request *out, int *has_request, const char *what) {
    if (!out || !has_request) return fail(error, RC_ERR_NULL, "%s: out or has_request is NULL", what);
    if (auto s = check_struct_size(error, out->struct_size, sizeof(rc_request), what, "rc_request"); s != RC_OK)
        return s;
    if (step_) return fail(error, RC_ERR_ARGUMENT, "%s: the session was created with a step (callback mode)", what);
    *has_request = current_ ? 1 : 0;
    if (current_) {
        out->world = &world;
        out->inputs = to_c(current_->inputs);
        out->resimulating = current_->resimulating ? 1 : 0;
    }
    return RC_OK;
}

rc_status session_handle::request_done(rc_frame frame, const char *what) {
    if (step_) return fail(error, RC_ERR_ARGUMENT, "%s: the session was created with a step (callback mode)", what);
    if (!current_) return fail(error, RC_ERR_ARGUMENT, "%s: no request is outstanding", what);
    if (frame != current_->inputs.frame())
        return fail(error, RC_ERR_ARGUMENT, "%s: the outstanding request is for frame %u, not %llu", what,
                    current_->inputs.frame(), static_cast<unsigned long long>(frame));
    current_ = nullptr;
    ++world.epoch;
    return pump(what);
}

rc_status session_handle::request_failed(const char *why, const char *what) {
    if (step_) return fail(error, RC_ERR_ARGUMENT, "%s: the session was created with a step (callback mode)", what);
    if (!current_) return fail(error, RC_ERR_ARGUMENT, "%s: no request is outstanding", what);
    abandon("the step of frame " + std::to_string(current_->inputs.frame()) + " failed" +
            (why && *why ? std::string{": "} + why : std::string{}));
    return RC_OK;
}

rc_status session_handle::next_event(rc_event *out, int *has_event, const char *what) {
    if (!out || !has_event) return fail(error, RC_ERR_NULL, "%s: out or has_event is NULL", what);
    if (auto r = check_struct_size(error, out->struct_size, RC_EVENT_SIZE_V1, what, "rc_event"); r != RC_OK) return r;
    *has_event = pop_event(event) ? 1 : 0;
    if (!*has_event) return RC_OK;
    out->kind = static_cast<std::uint32_t>(event.kind);
    out->frame = event.frame;
    out->slot = event.slot;
    out->text = event.text.c_str();
    if (out->struct_size < RC_EVENT_SIZE_V2) return RC_OK; // a caller of the first version
    event_diverging.clear();
    for (const auto &n : event.diverging) event_diverging += (event_diverging.empty() ? "" : "\n") + n;
    out->cause = static_cast<std::uint32_t>(event.cause);
    out->reject = static_cast<std::uint32_t>(event.reject);
    out->unverified = static_cast<std::uint32_t>(event.unverified);
    out->reserved = 0;
    out->count = event.count;
    out->address = event.address.c_str();
    out->name = event.name.c_str();
    out->path = event.path.c_str();
    out->diverging = event_diverging.c_str();
    out->diverging_count = static_cast<std::uint32_t>(event.diverging.size());
    if (out->struct_size < sizeof(rc_event)) return RC_OK; // a caller of the second version
    out->stage = event.stage.c_str();
    out->stage_index = event.stage_index;
    out->stage_count = event.stage_count;
    return RC_OK;
}

rc_status config_from_c(std::string &where, const rc_session_config *c, bool server_side, const char *what,
                        session_config &out) {
    if (!c) return fail(where, RC_ERR_NULL, "%s: config is NULL", what);
    if (auto s = check_struct_size(where, c->struct_size, sizeof(rc_session_config), what, "config"); s != RC_OK)
        return s;
    const struct {
        const char *field;
        std::uint64_t value, max;
    } bounds[] = {{"tick_hz", c->tick_hz, 0xFFFF},
                  {"max_players", c->max_players, 0xFF},
                  {"input_size", c->input_size, 0xFFFF},
                  {"input_delay", c->input_delay, 0xFF},
                  {"max_input_delay", c->max_input_delay, 0xFF},
                  {"no_repeat_size", c->no_repeat_size, c->input_size}};
    for (const auto &b : bounds)
        if (b.value > b.max)
            return fail(where, RC_ERR_ARGUMENT, "%s: config %s %llu exceeds %llu", what, b.field,
                        static_cast<unsigned long long>(b.value), static_cast<unsigned long long>(b.max));
    if (c->no_repeat_size > 0 && !c->no_repeat)
        return fail(where, RC_ERR_NULL, "%s: config no_repeat is NULL but no_repeat_size is %u", what,
                    c->no_repeat_size);
    out = session_config{};
    out.tick_hz = static_cast<std::uint16_t>(c->tick_hz);
    out.max_players = static_cast<std::uint8_t>(c->max_players);
    out.input_size = static_cast<std::uint16_t>(c->input_size);
    out.input_layout_hash = c->input_layout_hash;
    out.content_version = c->content_version;
    out.input_delay = static_cast<std::uint8_t>(c->input_delay);
    out.max_input_delay = static_cast<std::uint8_t>(c->max_input_delay);
    out.prediction_window = c->prediction_window;
    out.checksum_interval = c->checksum_interval;
    out.interrupt_ms = c->interrupt_ms;
    out.disconnect_ms = c->disconnect_ms;
    for (std::uint32_t i = 0; i < c->no_repeat_size; ++i)
        if (c->no_repeat[i] != 0) out.prediction.no_repeat_bytes(i, 1);
    if (const std::string why = session_config_problem(out, server_side); !why.empty())
        return fail(where, RC_ERR_ARGUMENT, "%s: %s", what, why.c_str());
    return RC_OK;
}

void stats_to_c(const session_stats &in, rc_session_stats *out) noexcept {
    out->rtt_ms = in.rtt_ms;
    out->jitter_ms = in.jitter_ms;
    out->loss = in.loss;
    out->frames_ahead = in.frames_ahead;
    out->rollbacks_per_s = in.rollbacks_per_s;
    out->resimulated_per_s = in.resimulated_per_s;
    out->bytes_in_per_s = in.bytes_in_per_s;
    out->bytes_out_per_s = in.bytes_out_per_s;
    out->rollbacks = in.rollbacks;
    out->resimulated = in.resimulated;
    out->stall_frames = in.stall_frames;
    out->replaced_inputs = in.replaced_inputs;
    out->confirmed_frames = in.confirmed_frames;
    out->desyncs = in.desyncs;
    out->unverified_desyncs = in.unverified_desyncs;
    out->margin_ms = in.margin_ms;
    out->input_delay = in.input_delay;
    out->current_frame = in.current_frame;
    out->confirmed_frame = in.confirmed_frame;
}

// A client steps only in its tick; a server also in poll, to rebuild a frame for desync
// forensics, which forensic_interval 1 (set by rc_server_create) rules out. A new use of the
// step outside a tick would surface here as RC_ERR_INTERNAL.
step_function steps_only_through_requests() {
    // requests_only: desync bisection never re-runs it (docs/net.md, "Desync forensics").
    return step_function::requests_only([](world &, const frame_inputs &) {
        throw std::logic_error{"the session stepped outside a request (a bug in retcon's C API: report it)"};
    });
}

} // namespace retcon::capi

using namespace retcon;
using namespace retcon::capi;

extern "C" {

rc_status rc_session_config_default(rc_session_config *out) {
    auto &err = thread_error();
    if (!out) return fail(err, RC_ERR_NULL, "rc_session_config_default: out is NULL");
    if (auto s =
            check_struct_size(err, out->struct_size, sizeof(rc_session_config), "rc_session_config_default", "out");
        s != RC_OK)
        return s;
    const session_config d;
    out->tick_hz = d.tick_hz;
    out->max_players = d.max_players;
    out->input_size = d.input_size;
    out->input_layout_hash = d.input_layout_hash;
    out->content_version = d.content_version;
    out->input_delay = d.input_delay;
    out->max_input_delay = d.max_input_delay;
    out->prediction_window = d.prediction_window;
    out->checksum_interval = d.checksum_interval;
    out->interrupt_ms = d.interrupt_ms;
    out->disconnect_ms = d.disconnect_ms;
    out->no_repeat = nullptr;
    out->no_repeat_size = 0;
    return RC_OK;
}

rc_status rc_input_layout_hash(const rc_type_desc *input, uint64_t *out_hash) {
    auto &err = thread_error();
    if (!input || !out_hash) return fail(err, RC_ERR_NULL, "rc_input_layout_hash: input or out_hash is NULL");
    // The C++ side hashes a schema whose only declaration is the input type as a resource
    // (make_session_config<Input>): the same declaration made through the C schema gives it.
    rc_schema *layout = nullptr;
    if (auto s = rc_schema_create(&layout); s != RC_OK) return s;
    std::uint32_t id = 0;
    rc_status s = rc_schema_resource(layout, input, &id);
    if (s == RC_OK) s = rc_schema_hash(layout, out_hash);
    if (s != RC_OK) fail(err, s, "rc_input_layout_hash: %s", rc_schema_last_error(layout));
    rc_schema_destroy(layout);
    return s;
}

const char *rc_event_kind_name(uint32_t kind) {
    if (kind > static_cast<std::uint32_t>(last_session_event_kind)) return "unknown";
    return to_string(static_cast<session_event_kind>(kind));
}

const char *rc_disconnect_cause_name(uint32_t cause) {
    return cause > 0xffu ? "unknown" : to_string(static_cast<disconnect_cause>(cause));
}

const char *rc_reject_reason_name(uint32_t reason) {
    return reason > 0xffu ? "unknown" : to_string(static_cast<wire::reject_reason>(reason));
}

const char *rc_unverified_reason_name(uint32_t reason) {
    return reason > 0xffu ? "unknown" : to_string(static_cast<unverified_reason>(reason));
}

} // extern "C"
