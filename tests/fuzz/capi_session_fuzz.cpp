// libFuzzer target: the C API's sessions (retcon.h, docs/c-api.md "Sessions") driven by a sequence
// of calls decoded from the input. Each input builds a small match on rc_sim_network — link
// conditions, config and each session's mode (callback or poll) from its first bytes; one server
// and one or two clients on a tiny fixed schema — then runs calls on it: updates with `now`
// advancing, repeated or going backwards, requests stepped, finished for the wrong frame or
// failed, inputs of wrong sizes and NULL, events, info, stats, tokens, end_match and leave,
// destroying the world, transport or network under a live session, clients destroyed mid-match
// (and back with their reconnect token), and in callback mode steps that return non-zero or call
// back into a session, their own included, even to destroy it (docs/c-api.md, "Misuse inside a step").
// No call may crash, and these invariants must hold (a trap otherwise):
//   - a failed call leaves its own message on its handle (or in rc_last_error), never
//     RC_ERR_INTERNAL; the status is the one docs/c-api.md gives for the misuse;
//   - a refused destroy keeps the handle, which still works and has not changed;
//   - after RC_EVENT_SESSION_FAILED (or anything else that ends a session: request_failed,
//     misuse inside a step, leave, end_match, match_ended) the session hands out no request
//     and calls no step; a session ended by misuse does raise RC_EVENT_SESSION_FAILED;
//   - poll mode: next_request returns the same request until request_done; request_done for
//     another frame changes nothing; a request's world is the session's and its record is
//     players * (1 + input_size) bytes (flags, then inputs), as in every step callback;
//   - the frames each session steps that are not re-simulations go up by exactly one (a
//     snapshot from the server, RC_EVENT_(RE)SYNCHRONIZED, starts a new run); re-simulated
//     frames are never past the last new one; the server never re-simulates.
#include <retcon.h>

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz/fuzz_reader.hpp"

namespace {

#define FUZZ_ASSERT(cond)                                                                                              \
    do {                                                                                                               \
        if (!(cond)) __builtin_trap();                                                                                 \
    } while (0)

/// With RETCON_FUZZ_TRACE set, the calls an input decodes to go to stderr (to read a reproducer).
void trace(const char *format, ...) __attribute__((format(printf, 1, 2)));
void trace(const char *format, ...) {
    static const bool on = std::getenv("RETCON_FUZZ_TRACE") != nullptr;
    if (!on) return;
    va_list args;
    va_start(args, format);
    std::vfprintf(stderr, format, args);
    va_end(args);
}

/// The world's one resource: what every step folds its inputs into, so worlds that stepped
/// differently hash differently.
struct tally {
    std::uint64_t sum;
    std::uint32_t frames;
    std::uint32_t entities;
};
/// A component the step adds now and then, so rollbacks restore structural changes too.
struct mark {
    std::uint64_t frame;
};
const rc_field tally_fields[] = {RC_FIELD(tally, sum, RC_U64), RC_FIELD(tally, frames, RC_U32),
                                 RC_FIELD(tally, entities, RC_U32)};
const rc_field mark_fields[] = {RC_FIELD(mark, frame, RC_U64)};
constexpr std::uint32_t mark_id = 0;
constexpr std::uint32_t tally_id = 0;

/// The schema, declared once: component mark, resource tally.
const rc_schema *fixed_schema() {
    static rc_schema *schema = [] {
        rc_schema *s = nullptr;
        FUZZ_ASSERT(rc_schema_create(&s) == RC_OK);
        const rc_type_desc m{sizeof(rc_type_desc), "mark", sizeof(mark), mark_fields, 1};
        const rc_type_desc t{sizeof(rc_type_desc), "tally", sizeof(tally), tally_fields, 3};
        std::uint32_t id = 99;
        FUZZ_ASSERT(rc_schema_component(s, &m, &id) == RC_OK && id == mark_id);
        FUZZ_ASSERT(rc_schema_resource(s, &t, &id) == RC_OK && id == tally_id);
        return s;
    }();
    return schema;
}

/// The game's step: deterministic in the world and the inputs alone (docs/determinism.md).
void game_step(rc_world *w, const rc_frame_inputs &in) {
    void *p = nullptr;
    FUZZ_ASSERT(rc_resource_get(w, tally_id, &p) == RC_OK);
    auto *t = static_cast<tally *>(p);
    for (std::uint32_t s = 0; s < in.players; ++s) {
        if (!(in.flags[s] & 1u)) continue;
        for (std::uint32_t i = 0; i < in.input_size; ++i)
            t->sum = t->sum * 1099511628211u + in.inputs[std::size_t{s} * in.input_size + i] + s;
    }
    t->frames += 1;
    if (in.players > 0 && (in.flags[0] & 1u) && (in.inputs[0] & 0x80u) && t->entities < 16) {
        t->entities += 1;
        rc_entity e = RC_NULL_ENTITY;
        FUZZ_ASSERT(rc_entity_create(w, &e) == RC_OK);
        const mark m{in.frame};
        FUZZ_ASSERT(rc_component_add(w, e, mark_id, &m, sizeof m) == RC_OK);
    }
}

using retcon::fuzz::reader;

class match;

/// One session of the match, and what the fuzzer knows about it.
struct peer {
    match *owner = nullptr;
    bool is_server = false;
    bool poll = false;
    rc_world *world = nullptr;
    rc_transport *end = nullptr;
    rc_server *server = nullptr;
    rc_client *client = nullptr;
    std::uint32_t input_size = 0; ///< this client's config says (another than the server's: rejected)

    // Poll mode: the outstanding request, as next_request last gave it.
    bool outstanding = false;
    rc_request request{};
    std::vector<std::uint8_t> record;

    bool ended = false;                ///< nothing may be stepped any more
    bool expect_failure_event = false; ///< ended by misuse or a failed step: RC_EVENT_SESSION_FAILED is due
    bool failure_event_seen = false;
    bool in_callback = false;     ///< its step callback is running
    bool misused_in_step = false; ///< a call from inside its step was refused: the update fails

    // The run of new (not re-simulated) frames stepped since the last (re)synchronisation.
    bool chain = false;
    rc_frame last = 0;
    std::uint32_t chain_epoch = 0;
    std::uint32_t sync_epoch = 0; ///< RC_EVENT_(RE)SYNCHRONIZED seen

    // Callback mode: what the step does when plan_countdown reaches 0.
    std::uint32_t plan_countdown = 0;
    std::uint8_t plan_action = 0;
    std::uint8_t plan_arg = 0;

    std::uint8_t token[RC_RECONNECT_TOKEN_SIZE] = {};
    bool have_token = false;

    const peer *client_zero = nullptr; ///< for name()

    [[nodiscard]] bool alive() const { return server != nullptr || client != nullptr; }
    [[nodiscard]] const char *name() const {
        return is_server ? "server" : this == client_zero ? "client 0" : "client 1";
    }
    [[nodiscard]] const char *last_error() const {
        return is_server ? rc_server_last_error(server) : rc_client_last_error(client);
    }
};

int step_trampoline(rc_world *w, const rc_frame_inputs *in, void *user);

/// Makes rc_last_error a known message, so a later check can tell a new one from it.
std::string prime_last_error() {
    FUZZ_ASSERT(rc_sim_network_create(0, nullptr) == RC_ERR_NULL);
    return rc_last_error();
}

/// The message of a handle-less call that failed: there, and not the primed one.
void check_last_error_changed(const std::string &primed) {
    const char *m = rc_last_error();
    FUZZ_ASSERT(m != nullptr && m[0] != '\0' && primed != m);
}

class match {
public:
    explicit match(reader &in) : in_{in} { build(); }
    ~match() { teardown(); }
    match(const match &) = delete;
    match &operator=(const match &) = delete;

    void run() {
        if (!built_) return;
        for (int ops = 0; ops < 192 && !in_.done(); ++ops) op(in_.u8());
    }

    int on_step(peer &p, rc_world *w, const rc_frame_inputs *in) {
        FUZZ_ASSERT(in != nullptr && w == p.world);
        FUZZ_ASSERT(!p.ended && !p.in_callback && !p.poll);
        check_inputs(*in);
        trace("  %s step frame %llu\n", p.name(), static_cast<unsigned long long>(in->frame));
        p.in_callback = true;
        note_step(p, in->frame, -1);
        game_step(w, *in);
        int result = 0;
        if (p.plan_countdown != 0 && --p.plan_countdown == 0) result = act(p, in->frame);
        p.in_callback = false;
        return result;
    }

private:
    // ------------------------------------------------------------ building and tearing down

    static rc_link link_from(std::uint8_t latency, std::uint8_t impair) {
        rc_link l{};
        l.struct_size = sizeof l;
        l.latency_ms = latency % 64u;
        l.jitter_ms = impair & 0x0Fu;
        const double losses[4] = {0.0, 0.05, 0.2, 0.5};
        l.loss = losses[(impair >> 4) & 3u];
        l.duplicate = (impair & 0x40u) ? 0.1 : 0.0;
        l.reorder = (impair & 0x80u) ? 0.1 : 0.0;
        return l;
    }

    void build() {
        const std::uint8_t shape = in_.u8();
        const std::size_t clients = (shape & 1u) ? 2 : 1;
        rc_session_config cfg{};
        cfg.struct_size = sizeof cfg;
        FUZZ_ASSERT(rc_session_config_default(&cfg) == RC_OK);
        cfg.max_players = (shape & 0x20u) ? 1u : 2u;
        cfg.input_size = 1u + in_.u8() % 8u;
        const std::uint8_t delays = in_.u8();
        cfg.input_delay = delays % 4u;
        cfg.max_input_delay = (delays >> 2) % 8u;
        cfg.prediction_window = 1u + in_.u8() % 24u;
        const std::uint8_t timing = in_.u8();
        cfg.checksum_interval = timing % 4u;
        const std::uint32_t hz[4] = {60, 30, 20, 120};
        cfg.tick_hz = hz[(timing >> 2) & 3u];
        const std::uint32_t disconnect[4] = {5000, 300, 1000, 2000};
        cfg.disconnect_ms = disconnect[(timing >> 4) & 3u];
        cfg.interrupt_ms = (timing & 0x40u) ? 100u : 500u;
        static const std::uint8_t no_repeat[8] = {0, 1, 0, 0, 1, 0, 0, 0};
        if (timing & 0x80u) {
            cfg.no_repeat = no_repeat;
            cfg.no_repeat_size = cfg.input_size;
        }
        server_config_ = cfg;
        trace("match: %zu client(s), server %s, max_players %u, input_size %u, input_delay %u..%u, window %u, "
              "checksum every %u, %u Hz, disconnect %u ms, interrupt %u ms%s\n",
              clients, (shape & 2u) ? "poll" : "callback", cfg.max_players, cfg.input_size, cfg.input_delay,
              cfg.max_input_delay, cfg.prediction_window, cfg.checksum_interval, cfg.tick_hz, cfg.disconnect_ms,
              cfg.interrupt_ms, (timing & 0x80u) ? ", no_repeat mask" : "");
        now_ = (shape & 0x40u) ? std::uint64_t{1} << 40 : 0;

        FUZZ_ASSERT(rc_sim_network_create(in_.u8(), &net_) == RC_OK);
        const std::uint8_t mismatch = in_.u8();

        peer &s = peers_[0];
        s.owner = this;
        s.is_server = true;
        s.poll = (shape & 2u) != 0;
        s.input_size = cfg.input_size;
        FUZZ_ASSERT(rc_world_create(fixed_schema(), &s.world) == RC_OK);
        const tally zero{0, 0, 0};
        FUZZ_ASSERT(rc_resource_set(s.world, tally_id, &zero, sizeof zero) == RC_OK);
        FUZZ_ASSERT(rc_sim_network_server(net_, &s.end) == RC_OK);
        FUZZ_ASSERT(rc_server_create(&cfg, s.world, s.end, s.poll ? nullptr : &step_trampoline, &s, nullptr,
                                     &s.server) == RC_OK);

        for (std::size_t i = 0; i < clients; ++i) {
            peer &c = peers_[1 + i];
            c.owner = this;
            c.client_zero = &peers_[1];
            c.poll = (shape & (4u << i)) != 0;
            const std::uint8_t up_latency = in_.u8(), up_impair = in_.u8();
            const std::uint8_t down_latency = in_.u8(), down_impair = in_.u8();
            const rc_link up = link_from(up_latency, up_impair), down = link_from(down_latency, down_impair);
            const bool perfect = up_latency == 0xFF;
            FUZZ_ASSERT(rc_sim_network_connect(net_, perfect ? nullptr : &up, perfect ? nullptr : &down, &c.end) ==
                        RC_OK);
            FUZZ_ASSERT(rc_world_create(fixed_schema(), &c.world) == RC_OK);
            client_config_[i] = cfg;
            if (i == 1 && mismatch == 0xF1) client_config_[i].input_size = cfg.input_size % 8u + 1u; // rejected
            if (i == 1 && mismatch == 0xF2) client_config_[i].content_version = 7;                   // rejected
            if (client_config_[i].no_repeat_size > client_config_[i].input_size)
                client_config_[i].no_repeat_size = client_config_[i].input_size;
            c.input_size = client_config_[i].input_size;
            spectator_[i] = (shape & (0x10u << (i * 3u))) != 0; // bit 4: client 0, bit 7: client 1
            trace("%s: %s%s, input_size %u, content_version %llu, ", c.name(), c.poll ? "poll" : "callback",
                  spectator_[i] ? " spectator" : "", c.input_size,
                  static_cast<unsigned long long>(client_config_[i].content_version));
            if (perfect) trace("perfect link\n");
            else
                trace("link up %u+%u ms loss %g dup %g reorder %g, down %u+%u ms loss %g dup %g reorder %g\n",
                      up.latency_ms, up.jitter_ms, up.loss, up.duplicate, up.reorder, down.latency_ms, down.jitter_ms,
                      down.loss, down.duplicate, down.reorder);
            create_client(i, false);
        }
        built_ = true;
    }

    void create_client(std::size_t i, bool with_token) {
        peer &c = peers_[1 + i];
        rc_client_options o{};
        o.struct_size = sizeof o;
        FUZZ_ASSERT(rc_client_options_default(&o) == RC_OK);
        o.spectator = spectator_[i] ? 1 : 0;
        o.connect_timeout_ms = 2000;
        if (with_token && c.have_token) {
            o.reconnect_token = c.token;
            o.reconnect_token_size = sizeof c.token;
        }
        FUZZ_ASSERT(rc_client_create(&client_config_[i], c.world, c.end, c.poll ? nullptr : &step_trampoline, &c, &o,
                                     &c.client) == RC_OK);
    }

    /// Teardown in the order docs/c-api.md gives: sessions, then transports and the network, then worlds.
    void teardown() {
        for (peer &p : peers_) {
            if (!p.alive()) continue;
            drain_events(p);
            if (p.expect_failure_event) FUZZ_ASSERT(p.failure_event_seen);
        }
        for (std::size_t i = 1; i < 3; ++i) rc_client_destroy(peers_[i].client);
        rc_server_destroy(peers_[0].server);
        const std::string primed = prime_last_error();
        for (peer &p : peers_) rc_transport_destroy(p.end);
        rc_sim_network_destroy(net_);
        for (peer &p : peers_) rc_world_destroy(p.world);
        FUZZ_ASSERT(primed == rc_last_error()); // nothing was refused
    }

    // ------------------------------------------------------------ checks

    /// The C view of a frame's inputs: players * (1 + input_size) bytes, flags then inputs.
    void check_inputs(const rc_frame_inputs &in) const {
        FUZZ_ASSERT(in.players == server_config_.max_players && in.input_size == server_config_.input_size);
        FUZZ_ASSERT(in.record_size == std::size_t{in.players} * (1u + in.input_size));
        FUZZ_ASSERT(in.record == in.flags && in.inputs == in.flags + in.players);
        for (std::uint32_t s = 0; s < in.players; ++s)
            FUZZ_ASSERT(in.flags[s] == 0 || in.flags[s] == 1 || in.flags[s] == 3);
        FUZZ_ASSERT(in.frame <= 0xFFFFFFFEu);
    }

    /// A call on @p p's handle returned @p st; @p expected is what docs/c-api.md says it must.
    void expect(const peer &p, rc_status st, rc_status expected, const std::string &primed) const {
        FUZZ_ASSERT(st == expected);
        if (st == RC_OK) return;
        const char *m = p.last_error();
        FUZZ_ASSERT(m != nullptr && m[0] != '\0' && primed != m);
    }

    /// A known message on @p p's handle (what a failing read leaves), so the next failure's own can be told apart.
    static std::string prime(const peer &p) {
        if (p.is_server) FUZZ_ASSERT(rc_server_get_info(p.server, nullptr) == RC_ERR_NULL);
        else
            FUZZ_ASSERT(rc_client_get_info(p.client, nullptr) == RC_ERR_NULL);
        return p.last_error();
    }

    /// A frame @p p stepped (resimulating: 1, 0, or -1 when a step callback cannot tell).
    void note_step(peer &p, rc_frame frame, int resimulating) {
        const bool same_run = p.chain && p.chain_epoch == p.sync_epoch;
        if (resimulating < 0) resimulating = same_run && frame <= p.last ? 1 : 0; // callback mode: by its number
        if (resimulating) {
            FUZZ_ASSERT(!p.is_server);
            if (same_run) FUZZ_ASSERT(frame <= p.last);
            return;
        }
        if (p.chain && frame != p.last + 1) {
            drain_events(p); // a snapshot from the server moves the frame; its event says so
            FUZZ_ASSERT(p.sync_epoch != p.chain_epoch);
        }
        p.chain = true;
        p.last = frame;
        p.chain_epoch = p.sync_epoch;
    }

    void observe(peer &p, const rc_event &e) {
        FUZZ_ASSERT(e.kind <= RC_EVENT_SESSION_FAILED && e.text != nullptr);
        trace("  %s event %s frame %llu slot %d: %s\n", p.name(), rc_event_kind_name(e.kind),
              static_cast<unsigned long long>(e.frame), e.slot, e.text);
        FUZZ_ASSERT(std::strlen(e.text) < 4096);
        FUZZ_ASSERT(std::strcmp(rc_event_kind_name(e.kind), "unknown") != 0);
        switch (e.kind) {
        case RC_EVENT_SYNCHRONIZED:
        case RC_EVENT_RESYNCHRONIZED: ++p.sync_epoch; break;
        case RC_EVENT_SESSION_FAILED:
            p.failure_event_seen = true;
            end_session(p);
            break;
        case RC_EVENT_MATCH_ENDED:
        case RC_EVENT_REJECTED:
            FUZZ_ASSERT(!p.is_server);
            end_session(p);
            break;
        case RC_EVENT_DISCONNECTED:
            if (!p.is_server) end_session(p);
            break;
        default: break;
        }
    }

    /// @p p has ended: it must hold no request now, and hand out none later.
    void end_session(peer &p) {
        p.ended = true;
        if (p.poll) refresh(p);
    }

    void drain_events(peer &p) {
        rc_event e{};
        e.struct_size = sizeof e;
        int has = 1;
        for (int k = 0; k < 1000000 && has; ++k) {
            const rc_status st =
                p.is_server ? rc_server_next_event(p.server, &e, &has) : rc_client_next_event(p.client, &e, &has);
            FUZZ_ASSERT(st == RC_OK);
            if (has) observe(p, e);
        }
        FUZZ_ASSERT(!has);
    }

    // ------------------------------------------------------------ poll mode

    rc_status next_request(const peer &p, rc_request *out, int *has) const {
        return p.is_server ? rc_server_next_request(p.server, out, has) : rc_client_next_request(p.client, out, has);
    }
    rc_status request_done(const peer &p, rc_frame f) const {
        return p.is_server ? rc_server_request_done(p.server, f) : rc_client_request_done(p.client, f);
    }
    rc_status request_failed(const peer &p, const char *why) const {
        return p.is_server ? rc_server_request_failed(p.server, why) : rc_client_request_failed(p.client, why);
    }

    /// Asks a poll-mode session for its request and remembers it.
    void refresh(peer &p) {
        rc_request r{};
        r.struct_size = sizeof r;
        int has = -1;
        FUZZ_ASSERT(next_request(p, &r, &has) == RC_OK);
        FUZZ_ASSERT(has == 0 || has == 1);
        p.outstanding = has == 1;
        if (!has) return;
        trace("  %s request frame %llu%s\n", p.name(), static_cast<unsigned long long>(r.inputs.frame),
              r.resimulating ? " (resimulating)" : "");
        FUZZ_ASSERT(!p.ended);
        FUZZ_ASSERT(r.world == p.world);
        FUZZ_ASSERT(r.resimulating == 0 || r.resimulating == 1);
        if (p.is_server) FUZZ_ASSERT(r.resimulating == 0);
        check_inputs(r.inputs);
        p.request = r;
        const auto *bytes = static_cast<const std::uint8_t *>(r.inputs.record);
        p.record.assign(bytes, bytes + r.inputs.record_size);
    }

    /// next_request gives the request @p p holds, unchanged.
    void check_same_request(const peer &p, const rc_request &r, int has) const {
        FUZZ_ASSERT(has == (p.outstanding ? 1 : 0));
        if (!has) return;
        FUZZ_ASSERT(r.world == p.request.world && r.resimulating == p.request.resimulating);
        FUZZ_ASSERT(r.inputs.frame == p.request.inputs.frame && r.inputs.record_size == p.record.size());
        FUZZ_ASSERT(std::memcmp(r.inputs.record, p.record.data(), p.record.size()) == 0);
    }

    /// Steps @p p's outstanding request as the poll contract says, and reports it done.
    void complete(peer &p) {
        const rc_frame f = p.request.inputs.frame;
        trace("  %s step frame %llu, request_done\n", p.name(), static_cast<unsigned long long>(f));
        note_step(p, f, p.request.resimulating);
        game_step(p.world, p.request.inputs);
        const std::string primed = prime(p);
        expect(p, request_done(p, f), RC_OK, primed);
        refresh(p);
    }

    void complete_all(peer &p) {
        if (!p.poll || !p.alive()) return;
        for (int k = 0; k < 100000 && p.outstanding; ++k) complete(p);
        FUZZ_ASSERT(!p.outstanding);
    }

    // ------------------------------------------------------------ calls that change a session

    /// One input for rc_client_update, of the right size or not, or NULL.
    struct input_arg {
        const void *data = nullptr;
        std::size_t size = 0;
    };

    /// rc_*_update on @p p; refused (ending the session) inside its step or with a request outstanding.
    void do_update(peer &p, std::uint64_t now, input_arg input) {
        if (!p.alive()) return;
        const bool refused = p.in_callback || (p.poll && p.outstanding);
        rc_status bad_input = RC_OK;
        if (!p.is_server) {
            if (input.data && input.size != p.input_size) bad_input = RC_ERR_SIZE;
            else if (!input.data && input.size != 0)
                bad_input = RC_ERR_NULL;
        }
        if (!refused) p.misused_in_step = false; // an update from outside p's step: its steps start clean
        const std::string primed = prime(p);
        const rc_status st =
            p.is_server ? rc_server_update(p.server, now) : rc_client_update(p.client, now, input.data, input.size);
        trace("  %s update now %llu input %s%zu -> %s\n", p.name(), static_cast<unsigned long long>(now),
              input.data ? "" : "NULL ", input.size, rc_status_name(st));
        if (refused) {
            expect(p, st, RC_ERR_ARGUMENT, primed);
            ended_by_misuse(p);
            return;
        }
        if (bad_input != RC_OK) {
            expect(p, st, bad_input, primed);
            return;
        }
        expect(p, st, p.misused_in_step ? RC_ERR_ARGUMENT : RC_OK, primed);
        if (p.poll) refresh(p);
    }

    /// rc_server_end_match / rc_client_leave on @p p: ends it either way.
    void do_end(peer &p) {
        if (!p.alive()) return;
        const bool refused = p.in_callback || (p.poll && p.outstanding);
        const std::string primed = prime(p);
        const rc_status st = p.is_server ? rc_server_end_match(p.server) : rc_client_leave(p.client);
        trace("  %s %s -> %s\n", p.name(), p.is_server ? "end_match" : "leave", rc_status_name(st));
        if (refused) {
            expect(p, st, RC_ERR_ARGUMENT, primed);
            ended_by_misuse(p);
            return;
        }
        expect(p, st, RC_OK, primed);
        end_session(p);
    }

    /// A call refused as misuse inside a step ends @p p with RC_EVENT_SESSION_FAILED.
    void ended_by_misuse(peer &p) {
        p.expect_failure_event = true;
        if (p.in_callback) {
            p.misused_in_step = true; // the session ends when its step returns
            p.ended = true;
        } else {
            end_session(p);
        }
    }

    /// What a step callback does when its plan comes due (docs/c-api.md, "Misuse inside a step").
    int act(peer &p, rc_frame frame) {
        const std::uint8_t arg = p.plan_arg;
        trace("  %s step frame %llu: action %u arg %u\n", p.name(), static_cast<unsigned long long>(frame),
              p.plan_action % 12u, arg);
        switch (p.plan_action % 12u) {
        case 0: // the step failed
            p.ended = true;
            p.expect_failure_event = true;
            return (arg & 0x7F) | 1;
        case 1: do_update(p, now_, {}); break;
        case 2: do_end(p); break;
        case 3: { // poll-mode calls in callback mode: refused, and nothing ends
            rc_request r{};
            r.struct_size = sizeof r;
            int has = 0;
            const std::string primed = prime(p);
            expect(p, next_request(p, &r, &has), RC_ERR_ARGUMENT, primed);
            break;
        }
        case 4: {
            const std::string primed = prime(p);
            expect(p, request_done(p, frame), RC_ERR_ARGUMENT, primed);
            break;
        }
        case 5: {
            const std::string primed = prime(p);
            expect(p, request_failed(p, "from inside"), RC_ERR_ARGUMENT, primed);
            break;
        }
        case 6: // reads are fine inside a step
            read_info(p, 0);
            read_stats(p, arg);
            if (!p.is_server) predicted(p, frame, arg % 3u);
            drain_events(p);
            break;
        case 7: destroy_refused(p, arg); break;
        case 8: do_update(other(p, arg), now_, {}); break;
        case 9: do_end(other(p, arg)); break;
        case 10: destroy_session(p); break; // refused: its frame is on the stack
        default: {                          // another client goes (refused if its step is below this one)
            peer &q = other(p, arg);
            if (!q.is_server && q.alive() && destroyed_ < 4) destroy_session(q);
            break;
        }
        }
        return 0;
    }

    peer &other(const peer &p, std::uint8_t arg) {
        for (std::size_t k = 0; k < 3; ++k) {
            peer &q = peers_[(arg + k) % 3u];
            if (&q != &p && q.alive()) return q;
        }
        return peers_[(arg + 1u) % 3u]; // none alive: do_* skip a dead peer
    }

    // ------------------------------------------------------------ reads

    void read_info(const peer &p, std::uint8_t how) const {
        const std::string primed = prime(p);
        if (p.is_server) {
            rc_server_info info{};
            info.struct_size = how == 1 ? 4u : sizeof info;
            const rc_status st = rc_server_get_info(p.server, how == 2 ? nullptr : &info);
            expect(p, st, how == 2 ? RC_ERR_NULL : how == 1 ? RC_ERR_ARGUMENT : RC_OK, how == 2 ? "" : primed);
            if (st != RC_OK) return;
            FUZZ_ASSERT(info.players <= server_config_.max_players);
            FUZZ_ASSERT((info.ended == 0 || info.ended == 1) && (info.finished == 0 || info.finished == 1));
            FUZZ_ASSERT(!info.finished || info.ended);
            FUZZ_ASSERT(info.frame <= 0xFFFFFFFEu);
        } else {
            rc_client_info info{};
            info.struct_size = how == 1 ? 4u : sizeof info;
            const rc_status st = rc_client_get_info(p.client, how == 2 ? nullptr : &info);
            expect(p, st, how == 2 ? RC_ERR_NULL : how == 1 ? RC_ERR_ARGUMENT : RC_OK, how == 2 ? "" : primed);
            if (st != RC_OK) return;
            FUZZ_ASSERT(info.state <= RC_CLIENT_DISCONNECTED);
            FUZZ_ASSERT(info.slot >= -1 && info.slot < 32 && info.players <= 32);
            FUZZ_ASSERT(info.confirmed_frame <= 0xFFFFFFFFu && info.current_frame <= 0xFFFFFFFFu);
        }
    }

    void read_stats(const peer &p, std::uint8_t how) const {
        rc_session_stats s{};
        s.struct_size = (how & 0xF0u) == 0xF0u ? 8u : sizeof s;
        const bool small = s.struct_size != sizeof s;
        const bool null = (how & 0xF0u) == 0xE0u;
        const std::string primed = prime(p);
        const std::uint32_t slot = (how & 2u) ? 0x100u + how : how % 20u;
        if (p.is_server && (how & 5u) == 4u) {
            std::uint64_t player = 1;
            const rc_status st = rc_server_slot_player(p.server, slot, null ? nullptr : &player);
            expect(p, st, null ? RC_ERR_NULL : slot > 0xFFu ? RC_ERR_ARGUMENT : RC_OK, primed);
            if (st == RC_OK) FUZZ_ASSERT(player == 0); // the simulated network admits no identities
        } else if (p.is_server && (how & 1u)) {
            const rc_status st = rc_server_client_stats(p.server, slot, null ? nullptr : &s);
            expect(p, st,
                   null           ? RC_ERR_NULL
                   : small        ? RC_ERR_ARGUMENT
                   : slot > 0xFFu ? RC_ERR_ARGUMENT
                                  : RC_OK,
                   primed);
        } else if (p.is_server) {
            expect(p, rc_server_totals(p.server, null ? nullptr : &s),
                   null    ? RC_ERR_NULL
                   : small ? RC_ERR_ARGUMENT
                           : RC_OK,
                   primed);
        } else {
            expect(p, rc_client_stats(p.client, null ? nullptr : &s),
                   null    ? RC_ERR_NULL
                   : small ? RC_ERR_ARGUMENT
                           : RC_OK,
                   primed);
        }
    }

    void predicted(const peer &p, rc_frame frame, std::uint32_t slot) const {
        rc_client_info info{};
        info.struct_size = sizeof info;
        FUZZ_ASSERT(rc_client_get_info(p.client, &info) == RC_OK);
        int out = -1;
        const std::string primed = prime(p);
        const rc_status st = rc_client_is_predicted(p.client, frame, slot, &out);
        if (slot >= info.players || frame > 0xFFFFFFFEu) expect(p, st, RC_ERR_ARGUMENT, primed);
        else
            expect(p, st, RC_OK, primed);
        if (st == RC_OK) FUZZ_ASSERT(out == 0 || out == 1);
    }

    // ------------------------------------------------------------ destroying what a session uses

    /// Destroying @p p's world or transport, or the network, is refused: the handle is kept and works.
    void destroy_refused(const peer &p, std::uint8_t what) {
        if (!p.alive()) return;
        const std::string primed = prime_last_error();
        trace("  destroy %s of %s\n", what % 3u == 0 ? "world" : what % 3u == 1 ? "transport" : "network", p.name());
        switch (what % 3u) {
        case 0: {
            std::uint64_t before = 0, after = 1;
            FUZZ_ASSERT(rc_world_hash(p.world, &before) == RC_OK);
            rc_world_destroy(p.world);
            check_last_error_changed(primed);
            FUZZ_ASSERT(rc_world_hash(p.world, &after) == RC_OK && after == before);
            break;
        }
        case 1: {
            rc_transport_destroy(p.end);
            check_last_error_changed(primed);
            std::uint16_t port = 1;
            FUZZ_ASSERT(rc_transport_local_port(p.end, &port) == RC_OK);
            break;
        }
        default: {
            rc_sim_network_destroy(net_);
            check_last_error_changed(primed);
            if (extra_ends_ >= 8) break;
            ++extra_ends_;
            rc_transport *t = nullptr; // the network still makes ends; one no session uses goes at once
            FUZZ_ASSERT(rc_sim_network_connect(net_, nullptr, nullptr, &t) == RC_OK && t != nullptr);
            const std::string again = prime_last_error();
            rc_transport_destroy(t);
            FUZZ_ASSERT(again == rc_last_error());
            break;
        }
        }
    }

    // ------------------------------------------------------------ decoding

    peer *pick(std::uint8_t b) {
        for (std::size_t k = 0; k < 3; ++k) {
            peer &p = peers_[(b + k) % 3u];
            if (p.alive()) return &p;
        }
        return nullptr;
    }
    peer *pick_client(std::uint8_t b) {
        for (std::size_t k = 0; k < 2; ++k) {
            peer &p = peers_[1 + (b + k) % 2u];
            if (p.alive()) return &p;
        }
        return nullptr;
    }

    /// The next `now`: advancing, repeated, going backwards, back to the start, or far ahead.
    std::uint64_t next_now(std::uint8_t t) const {
        if (t < 0x80) return now_ + t % 64u;
        if (t < 0xC0) return now_ + std::uint64_t{t - 0x80u} * 64u;
        if (t < 0xE0) {
            const std::uint64_t back = std::uint64_t{t & 0x1Fu} * 16u;
            return now_ > back ? now_ - back : 0;
        }
        if (t < 0xF0) return 0;
        return now_ + 5000u + std::uint64_t{t & 0x0Fu} * 1000u; // every interrupt and disconnect timeout
    }

    /// A frame near @p base, or one beyond retcon's 32-bit frames.
    rc_frame frame_near(rc_frame base) {
        const std::uint8_t b = in_.u8();
        if (b < 0xC0) return base + (b % 32u) - 16u;
        switch (b & 3u) {
        case 0: return 0xFFFFFFFEu;
        case 1: return 0xFFFFFFFFu;
        case 2: return rc_frame{1} << 32;
        default: return in_.u64();
        }
    }

    /// A client's input for an update: right-sized bytes, NULL (the previous one), or wrong.
    input_arg input_for(const peer &p, std::uint8_t u) {
        if (u < 0xC0) {
            for (std::uint32_t i = 0; i < p.input_size; ++i) input_[i] = static_cast<std::uint8_t>(u ^ (i * 37u));
            return {input_, p.input_size};
        }
        if (u < 0xE0) return {};
        if (u < 0xF0) {
            std::size_t size = u & 0x0Fu;
            if (size == p.input_size) ++size;
            return {input_, size};
        }
        return {nullptr, std::size_t{u & 0x0Fu} + 1u};
    }

    /// Rounds of a well-behaved loop: every session completes its requests, updates, steps
    /// every request and reads its events. Gets a match running and rolling back.
    void run_rounds(std::uint32_t rounds, std::uint32_t dt, std::uint8_t seed) {
        for (std::uint32_t r = 0; r < rounds && rounds_left_ > 0; ++r, --rounds_left_) {
            now_ += dt;
            ++round_;
            for (std::size_t i = 0; i < 3; ++i) {
                peer &p = peers_[i];
                if (!p.alive()) continue;
                complete_all(p);
                const std::uint32_t phase = (round_ + static_cast<std::uint32_t>(i) * 3u) / (2u + seed % 5u);
                for (std::uint32_t k = 0; k < p.input_size; ++k)
                    input_[k] = static_cast<std::uint8_t>(phase * 37u + seed + k * 13u);
                do_update(p, now_, {input_, p.input_size});
                complete_all(p);
                drain_events(p);
            }
        }
    }

    void op(std::uint8_t code) {
        static const char *const names[20] = {"run",
                                              "run",
                                              "update",
                                              "next_request",
                                              "request_done",
                                              "request_done wrong",
                                              "request_failed",
                                              "next_event",
                                              "get_info",
                                              "stats",
                                              "is_predicted",
                                              "reconnect_token",
                                              "knows_token",
                                              "end/leave",
                                              "destroy in use",
                                              "plan step",
                                              "plan step",
                                              "complete",
                                              "destroy client",
                                              "NULL handle"};
        trace("op %s\n", names[code % 20u]);
        switch (code % 20u) {
        case 0:
        case 1: run_rounds(1u + in_.u8() % 32u, 1u + in_.u8() % 24u, in_.u8()); break;
        case 2: { // update with a now that moves any way, and any input
            peer *p = pick(in_.u8());
            const std::uint64_t now = next_now(in_.u8());
            const std::uint8_t u = in_.u8();
            if (!p) break;
            now_ = now;
            do_update(*p, now, p->is_server ? input_arg{} : input_for(*p, u));
            break;
        }
        case 3: { // next_request, with bad arguments now and then
            peer *p = pick(in_.u8());
            const std::uint8_t how = in_.u8();
            if (!p) break;
            rc_request r{};
            r.struct_size = how % 8u == 2 ? 4u : sizeof r;
            int has = -1;
            const std::string primed = prime(*p);
            const rc_status st = next_request(*p, how % 8u == 0 ? nullptr : &r, how % 8u == 1 ? nullptr : &has);
            const rc_status expected = how % 8u < 2    ? RC_ERR_NULL
                                       : how % 8u == 2 ? RC_ERR_ARGUMENT
                                       : !p->poll      ? RC_ERR_ARGUMENT
                                                       : RC_OK;
            expect(*p, st, expected, primed);
            if (st == RC_OK) check_same_request(*p, r, has);
            break;
        }
        case 4: { // step the outstanding request and report it done (or, with none, report anyway)
            peer *p = pick(in_.u8());
            if (!p) break;
            if (p->poll && p->outstanding) {
                complete(*p);
                break;
            }
            const std::string primed = prime(*p);
            expect(*p, request_done(*p, frame_near(p->last)), RC_ERR_ARGUMENT, primed);
            break;
        }
        case 5: { // request_done for another frame: refused, nothing changes
            peer *p = pick(in_.u8());
            if (!p) break;
            const rc_frame f = frame_near(p->outstanding ? p->request.inputs.frame + 1u : p->last);
            if (p->poll && p->outstanding && f == p->request.inputs.frame) {
                complete(*p);
                break;
            }
            std::uint64_t before = 0, after = 1;
            FUZZ_ASSERT(rc_world_hash(p->world, &before) == RC_OK);
            const std::string primed = prime(*p);
            trace("  %s request_done frame %llu (wrong)\n", p->name(), static_cast<unsigned long long>(f));
            expect(*p, request_done(*p, f), RC_ERR_ARGUMENT, primed);
            FUZZ_ASSERT(rc_world_hash(p->world, &after) == RC_OK && after == before);
            if (!p->poll) break;
            rc_request r{};
            r.struct_size = sizeof r;
            int has = -1;
            FUZZ_ASSERT(next_request(*p, &r, &has) == RC_OK);
            check_same_request(*p, r, has);
            break;
        }
        case 6: { // request_failed: ends a session with a request outstanding, else refused
            peer *p = pick(in_.u8());
            const std::uint8_t why = in_.u8();
            if (!p) break;
            const std::string primed = prime(*p);
            const rc_status st = request_failed(*p, why & 1u ? nullptr : "the game could not step it");
            trace("  %s request_failed -> %s\n", p->name(), rc_status_name(st));
            if (p->poll && p->outstanding) {
                expect(*p, st, RC_OK, primed);
                p->expect_failure_event = true;
                end_session(*p);
            } else {
                expect(*p, st, RC_ERR_ARGUMENT, primed);
            }
            break;
        }
        case 7: { // events: one, all, or with bad arguments
            peer *p = pick(in_.u8());
            const std::uint8_t how = in_.u8();
            if (!p) break;
            if (how % 4u == 3) {
                drain_events(*p);
                break;
            }
            rc_event e{};
            e.struct_size = how % 4u == 2 ? 4u : sizeof e;
            int has = -1;
            const std::string primed = prime(*p);
            const rc_status st = p->is_server ? rc_server_next_event(p->server, how % 4u == 1 ? nullptr : &e, &has)
                                              : rc_client_next_event(p->client, how % 4u == 1 ? nullptr : &e, &has);
            expect(*p, st, how % 4u == 1 ? RC_ERR_NULL : how % 4u == 2 ? RC_ERR_ARGUMENT : RC_OK, primed);
            if (st == RC_OK && has) observe(*p, e);
            break;
        }
        case 8: {
            peer *p = pick(in_.u8());
            const std::uint8_t how = in_.u8();
            if (p) read_info(*p, how % 4u);
            break;
        }
        case 9: {
            peer *p = pick(in_.u8());
            const std::uint8_t how = in_.u8();
            if (p) read_stats(*p, how);
            break;
        }
        case 10: { // is_predicted with any slot and frame
            peer *p = pick_client(in_.u8());
            const std::uint8_t s = in_.u8();
            const std::uint32_t slot = s < 0xF0 ? s % 4u : in_.u32();
            const rc_frame f = frame_near(p ? p->last : 0);
            if (p) predicted(*p, f, slot);
            break;
        }
        case 11: reconnect_token(); break;
        case 12: knows_token(); break;
        case 13: { // end_match / leave
            peer *p = pick(in_.u8());
            if (p) do_end(*p);
            break;
        }
        case 14: {
            peer *p = pick(in_.u8());
            const std::uint8_t what = in_.u8();
            if (p) destroy_refused(*p, what);
            break;
        }
        case 15:
        case 16: { // what a callback-mode step does later
            peer *p = pick(in_.u8());
            const std::uint8_t countdown = in_.u8(), action = in_.u8(), arg = in_.u8();
            if (!p || p->poll) break;
            p->plan_countdown = 1u + countdown % 16u;
            p->plan_action = action;
            p->plan_arg = arg;
            trace("  %s: in %u steps, action %u arg %u\n", p->name(), p->plan_countdown, action % 12u, arg);
            break;
        }
        case 17: { // complete every request (the game catches up)
            peer *p = pick(in_.u8());
            if (p) complete_all(*p);
            break;
        }
        case 18: destroy_client(in_.u8()); break;
        default: null_handles(in_.u8()); break;
        }
    }

    void reconnect_token() {
        peer *p = pick_client(in_.u8());
        const std::uint8_t how = in_.u8();
        if (!p) return;
        std::uint8_t buffer[32];
        std::memset(buffer, 0xAA, sizeof buffer);
        const std::size_t capacity = how % 33u;
        const bool null_buffer = (how & 0x40u) != 0 && (how & 0x80u) == 0;
        const bool null_needed = (how & 0xC0u) == 0xC0u;
        std::size_t needed = 0;
        const std::string primed = prime(*p);
        const rc_status st = rc_client_reconnect_token(p->client, null_buffer ? nullptr : buffer, capacity,
                                                       null_needed ? nullptr : &needed);
        const rc_status expected = null_needed                          ? RC_ERR_NULL
                                   : capacity < RC_RECONNECT_TOKEN_SIZE ? RC_ERR_BUFFER_TOO_SMALL
                                   : null_buffer                        ? RC_ERR_NULL
                                                                        : RC_OK;
        expect(*p, st, expected, primed);
        if (!null_needed) FUZZ_ASSERT(needed == RC_RECONNECT_TOKEN_SIZE);
        if (st != RC_OK) {
            for (std::size_t i = 0; i < sizeof buffer; ++i) FUZZ_ASSERT(buffer[i] == 0xAA); // nothing copied
            return;
        }
        for (std::size_t i = RC_RECONNECT_TOKEN_SIZE; i < sizeof buffer; ++i) FUZZ_ASSERT(buffer[i] == 0xAA);
        std::memcpy(p->token, buffer, RC_RECONNECT_TOKEN_SIZE);
        p->have_token = true;
    }

    void knows_token() {
        peer &s = peers_[0];
        const std::uint8_t how = in_.u8();
        std::uint8_t token[24] = {};
        const peer *c = pick_client(how);
        if ((how & 0x30u) == 0 && c && c->have_token) std::memcpy(token, c->token, RC_RECONNECT_TOKEN_SIZE);
        else
            for (std::uint8_t &b : token) b = in_.u8();
        const std::size_t size = (how & 0xC0u) == 0xC0u ? how % 24u : RC_RECONNECT_TOKEN_SIZE;
        const bool null_token = (how & 0xC0u) == 0x80u && (how & 1u);
        const bool null_known = (how & 0xC0u) == 0x80u && !(how & 1u);
        int known = -1;
        const std::string primed = prime(s);
        const rc_status st =
            rc_server_knows_token(s.server, null_token ? nullptr : token, size, null_known ? nullptr : &known);
        const rc_status expected = null_token || null_known          ? RC_ERR_NULL
                                   : size != RC_RECONNECT_TOKEN_SIZE ? RC_ERR_SIZE
                                                                     : RC_OK;
        expect(s, st, expected, primed);
        if (st == RC_OK) FUZZ_ASSERT(known == 0 || known == 1);
    }

    /// Destroys client @p p (a request may be outstanding) and its end of the network; from
    /// inside its own step that is refused, the handle kept, and the session ends.
    bool destroy_session(peer &p) {
        trace("  destroy %s%s\n", p.name(), p.in_callback ? " inside its step" : "");
        if (p.in_callback) {
            const std::string primed = prime_last_error();
            if (p.is_server) rc_server_destroy(p.server);
            else
                rc_client_destroy(p.client);
            check_last_error_changed(primed);
            read_info(p, 0); // still there
            ended_by_misuse(p);
            return false;
        }
        ++destroyed_;
        drain_events(p);
        if (p.expect_failure_event) FUZZ_ASSERT(p.failure_event_seen);
        rc_client_destroy(p.client);
        p.client = nullptr;
        const std::string primed = prime_last_error();
        rc_transport_destroy(p.end); // no session uses it now
        FUZZ_ASSERT(primed == rc_last_error());
        p.end = nullptr;
        return true;
    }

    /// A client goes away mid-match, and may come back with its reconnect token.
    void destroy_client(std::uint8_t how) {
        peer *p = pick_client(how);
        if (!p || destroyed_ >= 4 || !destroy_session(*p)) return;
        if (!(how & 0x10u)) return;
        trace("  %s back%s\n", p->name(), (how & 0x20u) ? " with its token" : "");
        // Back on a new end of the network, with its world and maybe its reconnect token.
        const rc_link l = link_from(in_.u8(), in_.u8());
        FUZZ_ASSERT(rc_sim_network_connect(net_, &l, &l, &p->end) == RC_OK);
        const std::size_t i = p == &peers_[1] ? 0 : 1;
        const bool with_token = (how & 0x20u) != 0;
        peer fresh;
        fresh.owner = this;
        fresh.client_zero = p->client_zero;
        fresh.poll = p->poll;
        fresh.world = p->world;
        fresh.end = p->end;
        fresh.input_size = p->input_size;
        std::memcpy(fresh.token, p->token, sizeof fresh.token);
        fresh.have_token = p->have_token;
        *p = std::move(fresh);
        create_client(i, with_token);
    }

    /// Every session call with a NULL handle fails with RC_ERR_NULL and says so in rc_last_error.
    void null_handles(std::uint8_t which) {
        const std::string primed = prime_last_error();
        rc_request r{};
        r.struct_size = sizeof r;
        rc_event e{};
        e.struct_size = sizeof e;
        rc_session_stats s{};
        s.struct_size = sizeof s;
        rc_client_info ci{};
        ci.struct_size = sizeof ci;
        rc_server_info si{};
        si.struct_size = sizeof si;
        int has = 0;
        std::size_t needed = 0;
        std::uint8_t token[RC_RECONNECT_TOKEN_SIZE] = {};
        rc_status st = RC_OK;
        trace("  NULL handle call %u\n", which % 16u);
        switch (which % 16u) {
        case 0: st = rc_server_update(nullptr, now_); break;
        case 1: st = rc_client_update(nullptr, now_, nullptr, 0); break;
        case 2: st = rc_server_next_request(nullptr, &r, &has); break;
        case 3: st = rc_client_next_request(nullptr, &r, &has); break;
        case 4: st = rc_server_request_done(nullptr, 0); break;
        case 5: st = rc_client_request_failed(nullptr, "why"); break;
        case 6: st = rc_server_next_event(nullptr, &e, &has); break;
        case 7: st = rc_client_next_event(nullptr, &e, &has); break;
        case 8: st = rc_server_end_match(nullptr); break;
        case 9: st = rc_client_leave(nullptr); break;
        case 10: st = rc_server_get_info(nullptr, &si); break;
        case 11: st = rc_client_get_info(nullptr, &ci); break;
        case 12: st = rc_client_stats(nullptr, &s); break;
        case 13: st = rc_client_is_predicted(nullptr, 0, 0, &has); break;
        case 14: st = rc_client_reconnect_token(nullptr, token, sizeof token, &needed); break;
        default:
            st = rc_server_knows_token(nullptr, token, sizeof token, &has);
            rc_client_destroy(nullptr); // NULL is nothing to destroy
            rc_server_destroy(nullptr);
            rc_transport_destroy(nullptr);
            rc_sim_network_destroy(nullptr);
            break;
        }
        FUZZ_ASSERT(st == RC_ERR_NULL);
        check_last_error_changed(primed);
    }

    reader &in_;
    bool built_ = false;
    rc_sim_network *net_ = nullptr;
    peer peers_[3]; ///< the server, then the clients (user pointers of the steps: never moved)
    rc_session_config server_config_{};
    rc_session_config client_config_[2] = {};
    bool spectator_[2] = {};
    std::uint64_t now_ = 0;
    std::uint32_t rounds_left_ = 1500; ///< bounds an input's run time
    std::uint32_t round_ = 0;
    std::uint32_t extra_ends_ = 0;
    std::uint32_t destroyed_ = 0;
    std::uint8_t input_[64] = {};
};

int step_trampoline(rc_world *w, const rc_frame_inputs *in, void *user) {
    auto &p = *static_cast<peer *>(user);
    return p.owner->on_step(p, w, in);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    reader in{data, size};
    match m{in};
    m.run();
    return 0;
}
