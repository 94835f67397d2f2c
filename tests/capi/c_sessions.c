/*
 * Network sessions from pure C11 through retcon.h (docs/c-api.md, "Sessions"): a server and two
 * clients play a match, each with its own world, the step written in C.
 *
 *   c_sessions sim [DIR] - over the simulated network with latency, jitter and loss, once in
 *                        callback mode and once in poll mode: 0 desyncs, rollbacks on the
 *                        clients, every confirmed frame's hash equal on all three, and the
 *                        server's hashes equal in both modes (same seed, same inputs). With DIR,
 *                        the server and client 0 keep traces with a "c step" slice of the
 *                        game's around each step, written there as {callback,poll}_{server,
 *                        client}.json (docs/c-api.md, "Traces"; capi:c_sessions_traces checks them).
 *   c_sessions enet    - poll mode over real ENet sockets on loopback, on the wall clock.
 *   c_sessions reconnect - a client with rc_client_options.reconnect_attempts whose simulated
 *                        link goes dead mid-match reconnects by itself (RC_EVENT_RECONNECTING,
 *                        then RC_EVENT_RECONNECTED) into its slot and plays on in sync.
 *
 * Exits 0 only if every check passes; prints each failed check otherwise.
 */
#define _POSIX_C_SOURCE 200809L // NOLINT(readability-identifier-naming): clock_gettime, nanosleep
#include <retcon.h>

#include "c_checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------ the game */

typedef struct position {
    int32_t x;
    int32_t y;
} position;
typedef struct pilot {
    uint32_t slot;
} pilot;
typedef struct tally {
    uint64_t sum;
    uint32_t frames;
    uint32_t pad;
} tally;
/* One player's input: 4 bytes. */
typedef struct stick {
    int8_t dx;
    int8_t dy;
    uint8_t fire;
    uint8_t pad;
} stick;

enum { players = 2, max_frames = 4096 };

static uint32_t position_id, pilot_id, tally_id;

static rc_schema *make_schema(void) {
    static const rc_field position_fields[] = {RC_FIELD(position, x, RC_I32), RC_FIELD(position, y, RC_I32)};
    static const rc_field pilot_fields[] = {RC_FIELD(pilot, slot, RC_U32)};
    static const rc_field tally_fields[] = {RC_FIELD(tally, sum, RC_U64), RC_FIELD(tally, frames, RC_U32),
                                            RC_FIELD(tally, pad, RC_U32)};
    rc_schema *schema = NULL;
    REQUIRE_CALL(rc_schema_create(&schema), rc_last_error());
    const rc_type_desc p = {sizeof(rc_type_desc), "Position", sizeof(position), position_fields, 2};
    const rc_type_desc s = {sizeof(rc_type_desc), "Pilot", sizeof(pilot), pilot_fields, 1};
    const rc_type_desc t = {sizeof(rc_type_desc), "Tally", sizeof(tally), tally_fields, 3};
    REQUIRE_CALL(rc_schema_component(schema, &p, &position_id), rc_schema_last_error(schema));
    REQUIRE_CALL(rc_schema_component(schema, &s, &pilot_id), rc_schema_last_error(schema));
    REQUIRE_CALL(rc_schema_resource(schema, &t, &tally_id), rc_schema_last_error(schema));
    return schema;
}

static uint64_t stick_layout_hash(void) {
    static const rc_field fields[] = {RC_FIELD(stick, dx, RC_I8), RC_FIELD(stick, dy, RC_I8),
                                      RC_FIELD(stick, fire, RC_U8), RC_FIELD(stick, pad, RC_U8)};
    const rc_type_desc d = {sizeof(rc_type_desc), "Stick", sizeof(stick), fields, 4};
    uint64_t h = 0;
    REQUIRE_CALL(rc_input_layout_hash(&d, &h), rc_last_error());
    return h;
}

/* The server's starting world: one ship per slot. Clients get it in the server's snapshot. */
static void populate(rc_world *w) {
    for (uint32_t s = 0; s < players; ++s) {
        rc_entity e;
        REQUIRE_CALL(rc_entity_create(w, &e), rc_world_last_error(w));
        const position p = {(int32_t)(s * 100), 0};
        const pilot who = {s};
        REQUIRE_CALL(rc_component_add(w, e, position_id, &p, sizeof p), rc_world_last_error(w));
        REQUIRE_CALL(rc_component_add(w, e, pilot_id, &who, sizeof who), rc_world_last_error(w));
    }
    const tally t = {0, 0, 0};
    REQUIRE_CALL(rc_resource_set(w, tally_id, &t, sizeof t), rc_world_last_error(w));
}

/* The sessions' telemetry clock (docs/net.md, "Telemetry"): it moves only in the step, by
 * step_us a frame, so every duration telemetry keeps is exact. */
enum { step_us = 10 };
static uint64_t fake_us = 1;
static uint64_t fake_clock(void *user) { return *(const uint64_t *)user; }

/* The game's step: every present player's ship moves by its stick; the tally folds in every
 * position, so any difference anywhere changes the hash. */
static int step(rc_world *w, const rc_frame_inputs *in) {
    fake_us += step_us;
    const uint32_t include[] = {position_id, pilot_id};
    const rc_query_desc desc = {sizeof(rc_query_desc), include, 2, NULL, 0};
    rc_query *q = NULL;
    if (rc_query_create(w, &desc, &q) != RC_OK) return 1;
    void *res = NULL;
    if (rc_resource_get(w, tally_id, &res) != RC_OK) {
        rc_query_destroy(q);
        return 2;
    }
    tally *t = res;
    rc_chunk c;
    int more = 0;
    while (rc_query_next(q, &c, &more) == RC_OK && more) {
        for (uint32_t i = 0; i < c.count; ++i) {
            position *p = (position *)c.columns[0] + (c.rows ? c.rows[0][i] : i);
            const pilot *who = (const pilot *)c.columns[1] + (c.rows ? c.rows[1][i] : i);
            if (who->slot >= in->players || !(in->flags[who->slot] & 1u)) continue;
            stick s;
            memcpy(&s, in->inputs + (size_t)who->slot * in->input_size, sizeof s);
            p->x += s.dx;
            p->y += s.dy + (s.fire ? 3 : 0);
            t->sum = t->sum * 1099511628211u + (uint64_t)(uint32_t)p->x * 31u + (uint32_t)p->y;
        }
    }
    t->frames += 1;
    rc_query_destroy(q);
    return 0;
}

/* Player @p slot's stick for a frame: changes every few frames, so predictions miss. */
static stick stick_for(uint64_t frame, uint32_t slot) {
    const uint64_t phase = (frame + slot * 5u) / (5u + slot * 2u);
    stick s = {(int8_t)((phase * 7u + slot) % 5u) - 2, (int8_t)((phase * 3u + slot * 2u) % 3u) - 1,
               (uint8_t)(phase % 4u == 0u), 0};
    return s;
}

/* ------------------------------------------------------------------ one peer */

/* The world hash after each frame the peer stepped last (a re-simulation overwrites). */
typedef struct peer {
    const char *name;
    rc_world *world;
    uint64_t hashes[max_frames];
    unsigned char have[max_frames];
    unsigned desyncs;
    unsigned synchronized;
    unsigned failed;
    rc_server *server; /* traced: the session whose trace gets a "c step" slice per step */
    rc_client *client;
    uint32_t slice;  /* the slice's id (rc_*_trace_name) */
    unsigned slices; /* slices ended */
} peer;

static const char *trace_dir = NULL; /* sim's DIR: write the traces there */

/* Opens or closes the game's slice around a step, on a traced peer. */
static void game_slice(peer *p, int open) {
    rc_status s = RC_OK;
    if (p->server) s = open ? rc_server_trace_begin(p->server, p->slice) : rc_server_trace_end(p->server);
    else if (p->client)
        s = open ? rc_client_trace_begin(p->client, p->slice) : rc_client_trace_end(p->client);
    else
        return;
    CHECK(s == RC_OK);
    p->slices += open ? 0u : 1u;
}

static void note_hash(peer *p, rc_frame frame) {
    if (frame >= max_frames) return;
    REQUIRE_CALL(rc_world_hash(p->world, &p->hashes[frame]), rc_world_last_error(p->world));
    p->have[frame] = 1;
}

/* Callback mode: the user pointer is the peer. */
static int step_callback(rc_world *w, const rc_frame_inputs *in, void *user) {
    peer *p = user;
    game_slice(p, 1);
    const int r = step(w, in);
    game_slice(p, 0);
    if (r == 0) note_hash(p, in->frame);
    return r;
}

static void count_event(peer *p, const rc_event *e) {
    if (e->kind == RC_EVENT_DESYNC_DETECTED) {
        ++p->desyncs;
        fprintf(stderr, "%s: desync at frame %llu: %s\n", p->name, (unsigned long long)e->frame, e->text);
    }
    if (e->kind == RC_EVENT_SYNCHRONIZED) ++p->synchronized;
    if (e->kind == RC_EVENT_SESSION_FAILED || e->kind == RC_EVENT_REJECTED) {
        ++p->failed;
        fprintf(stderr, "%s: %s: %s\n", p->name, rc_event_kind_name(e->kind), e->text);
    }
}

/* Poll mode: step every request the update prepared, in order. */
static void run_server_requests(rc_server *s, peer *p) {
    rc_request r = {.struct_size = sizeof(rc_request)};
    int has = 0;
    for (;;) {
        REQUIRE_CALL(rc_server_next_request(s, &r, &has), rc_server_last_error(s));
        if (!has) return;
        CHECK(r.world == p->world);
        CHECK(r.resimulating == 0); /* the server never rolls back */
        game_slice(p, 1);
        CHECK(step(r.world, &r.inputs) == 0);
        game_slice(p, 0);
        note_hash(p, r.inputs.frame);
        REQUIRE_CALL(rc_server_request_done(s, r.inputs.frame), rc_server_last_error(s));
    }
}

static unsigned long long resimulated_requests = 0;

static void run_client_requests(rc_client *c, peer *p) {
    rc_request r = {.struct_size = sizeof(rc_request)};
    int has = 0;
    for (;;) {
        REQUIRE_CALL(rc_client_next_request(c, &r, &has), rc_client_last_error(c));
        if (!has) return;
        CHECK(r.world == p->world);
        CHECK(r.inputs.players == players && r.inputs.input_size == sizeof(stick));
        CHECK(r.inputs.record_size == players * (1u + sizeof(stick)));
        resimulated_requests += (unsigned)r.resimulating;
        game_slice(p, 1);
        CHECK(step(r.world, &r.inputs) == 0);
        game_slice(p, 0);
        note_hash(p, r.inputs.frame);
        REQUIRE_CALL(rc_client_request_done(c, r.inputs.frame), rc_client_last_error(c));
    }
}

static void drain_events(rc_server *s, rc_client *const *clients, peer *server_peer, peer *client_peers) {
    rc_event e = {.struct_size = sizeof(rc_event)};
    int has = 0;
    while (rc_server_next_event(s, &e, &has) == RC_OK && has) count_event(server_peer, &e);
    for (int i = 0; i < players; ++i)
        while (rc_client_next_event(clients[i], &e, &has) == RC_OK && has) count_event(&client_peers[i], &e);
}

/* ------------------------------------------------------------------ a match */

typedef struct match_result {
    unsigned long long rollbacks[players];
    rc_frame confirmed;  /* every frame below is confirmed on both clients */
    uint64_t final_hash; /* the server's after frame `confirmed - 1` */
} match_result;

static peer server_peer, client_peers[players];

/* The telemetry of the match's last frames through the C API: the rings are full, the figures
 * agree with the clock that only the step moves, and misuse is refused. */
enum { telemetry_frames = 600 };
static rc_frame_telemetry frames[telemetry_frames];
static rc_server_frame_telemetry ticks[telemetry_frames];
static rc_server_client_telemetry slot_frames[telemetry_frames];

static void check_telemetry(rc_server *server, rc_client *const *clients) {
    size_t n = 0;
    unsigned long long resimulated = 0;
    for (int i = 0; i < players; ++i) {
        CHECK_CALL(rc_client_telemetry(clients[i], NULL, 0, &n), rc_client_last_error(clients[i]));
        CHECK(n == telemetry_frames); /* the default: 10 s at 60 Hz */
        frames[0].struct_size = sizeof(rc_frame_telemetry);
        CHECK_CALL(rc_client_telemetry(clients[i], frames, telemetry_frames, &n), rc_client_last_error(clients[i]));
        CHECK(n == telemetry_frames);
        rc_client_info info = {.struct_size = sizeof(rc_client_info)};
        CHECK_CALL(rc_client_get_info(clients[i], &info), rc_client_last_error(clients[i]));
        for (size_t k = 0; k < n; ++k) {
            const rc_frame_telemetry *e = &frames[k];
            CHECK(e->struct_size == sizeof(rc_frame_telemetry));
            if (k > 0) CHECK(e->frame == frames[k - 1].frame + 1u);
            CHECK(e->resimulate_us == e->resimulated * step_us);
            CHECK(e->rollback_depth <= e->resimulated);
            if (e->frame < info.current_frame) CHECK(e->step_us == step_us);
            CHECK(e->confirmed == (e->frame < info.confirmed_frame));
            resimulated += e->resimulated;
        }
        CHECK(frames[n - 1].rtt_ms > 0);
        /* Fewer places: the newest frames. */
        rc_frame_telemetry few[4];
        few[0].struct_size = sizeof few[0];
        CHECK_CALL(rc_client_telemetry(clients[i], few, 4, &n), rc_client_last_error(clients[i]));
        CHECK(n == 4 && few[3].frame == frames[telemetry_frames - 1].frame);
        /* Misuse: no struct_size, no array for a capacity, no count. */
        few[0].struct_size = 4;
        CHECK(rc_client_telemetry(clients[i], few, 4, &n) == RC_ERR_ARGUMENT);
        CHECK(rc_client_telemetry(clients[i], NULL, 4, &n) == RC_ERR_NULL);
        CHECK(rc_client_telemetry(clients[i], NULL, 0, NULL) == RC_ERR_NULL);
    }
    CHECK(resimulated > 0); /* the links are lossy: some of the last frames were rolled back */

    ticks[0].struct_size = sizeof(rc_server_frame_telemetry);
    CHECK_CALL(rc_server_telemetry(server, ticks, telemetry_frames, &n), rc_server_last_error(server));
    CHECK(n == telemetry_frames);
    unsigned long long replaced = 0;
    for (size_t k = 0; k < n; ++k) {
        CHECK(ticks[k].step_us == step_us);
        CHECK(ticks[k].tick_us == step_us); /* only the step moves the clock */
        CHECK(ticks[k].players == players);
        replaced += ticks[k].replaced_inputs;
    }
    unsigned long long replaced_by_slot = 0;
    for (uint32_t slot = 0; slot < players; ++slot) {
        slot_frames[0].struct_size = sizeof(rc_server_client_telemetry);
        CHECK_CALL(rc_server_slot_telemetry(server, slot, slot_frames, telemetry_frames, &n),
                   rc_server_last_error(server));
        CHECK(n == telemetry_frames);
        for (size_t k = 0; k < n; ++k) {
            CHECK(slot_frames[k].frame == ticks[k].frame);
            CHECK(slot_frames[k].present == 1);
            replaced_by_slot += (unsigned)slot_frames[k].input_replaced;
        }
    }
    CHECK(replaced == replaced_by_slot);
    CHECK_CALL(rc_server_slot_telemetry(server, players, slot_frames, telemetry_frames, &n),
               rc_server_last_error(server));
    CHECK(n == 0); /* no such slot in this match */
    CHECK(rc_server_slot_telemetry(server, 300, slot_frames, telemetry_frames, &n) == RC_ERR_ARGUMENT);
}

/* Plays a match. @p wall: real time (ENet), else virtual milliseconds. */
static match_result play(int poll_mode, rc_transport *server_end, rc_transport *const *client_ends, int wall,
                         uint64_t duration_ms, rc_schema *schema) {
    match_result result;
    memset(&result, 0, sizeof result);
    memset(&server_peer, 0, sizeof server_peer);
    memset(client_peers, 0, sizeof client_peers);
    server_peer.name = "server";
    client_peers[0].name = "client 0";
    client_peers[1].name = "client 1";

    rc_session_config config = {.struct_size = sizeof(rc_session_config)};
    REQUIRE_CALL(rc_session_config_default(&config), rc_last_error());
    config.max_players = players;
    config.input_size = sizeof(stick);
    config.input_layout_hash = stick_layout_hash();
    config.content_version = 7;
    const uint8_t no_repeat[sizeof(stick)] = {0, 0, 1, 0}; /* fire is never predicted */
    config.no_repeat = no_repeat;
    config.no_repeat_size = sizeof no_repeat;

    REQUIRE_CALL(rc_world_create(schema, &server_peer.world), rc_last_error());
    populate(server_peer.world);
    rc_server_options server_options = {.struct_size = sizeof(rc_server_options)};
    REQUIRE_CALL(rc_server_options_default(&server_options), rc_last_error());
    server_options.telemetry_clock = fake_clock;
    server_options.telemetry_clock_user = &fake_us;
    CHECK(server_options.trace_records == 0); /* off unless asked for */
    if (trace_dir) {
        server_options.trace_records = 1u << 16;
        server_options.trace_process_name = "c_sessions server";
    }
    rc_server *server = NULL;
    REQUIRE_CALL(rc_server_create(&config, server_peer.world, server_end, poll_mode ? NULL : step_callback,
                                  &server_peer, &server_options, &server),
                 rc_last_error());
    if (trace_dir) {
        REQUIRE_CALL(rc_server_trace_name(server, "c step", &server_peer.slice), rc_server_last_error(server));
        server_peer.server = server;
    }
    rc_client *clients[players];
    for (int i = 0; i < players; ++i) {
        REQUIRE_CALL(rc_world_create(schema, &client_peers[i].world), rc_last_error());
        rc_client_options options = {.struct_size = sizeof(rc_client_options)};
        REQUIRE_CALL(rc_client_options_default(&options), rc_last_error());
        options.name = i == 0 ? "ada" : "grace";
        options.telemetry_clock = fake_clock;
        options.telemetry_clock_user = &fake_us;
        if (trace_dir && i == 0) options.trace_records = 1u << 16;
        REQUIRE_CALL(rc_client_create(&config, client_peers[i].world, client_ends[i], poll_mode ? NULL : step_callback,
                                      &client_peers[i], &options, &clients[i]),
                     rc_last_error());
        if (trace_dir && i == 0) {
            REQUIRE_CALL(rc_client_trace_name(clients[i], "c step", &client_peers[i].slice),
                         rc_client_last_error(clients[i]));
            client_peers[i].client = clients[i];
        }
    }

    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (uint64_t now = 1; now <= duration_ms;) {
        REQUIRE_CALL(rc_server_update(server, now), rc_server_last_error(server));
        if (poll_mode) run_server_requests(server, &server_peer);
        for (int i = 0; i < players; ++i) {
            rc_client_info info = {.struct_size = sizeof(rc_client_info)};
            REQUIRE_CALL(rc_client_get_info(clients[i], &info), rc_client_last_error(clients[i]));
            const stick s = stick_for(info.current_frame, info.slot < 0 ? 0u : (uint32_t)info.slot);
            REQUIRE_CALL(rc_client_update(clients[i], now, &s, sizeof s), rc_client_last_error(clients[i]));
            if (poll_mode) run_client_requests(clients[i], &client_peers[i]);
        }
        drain_events(server, clients, &server_peer, client_peers);
        if (wall) {
            const struct timespec pause = {0, 1000000};
            nanosleep(&pause, NULL);
            struct timespec t;
            clock_gettime(CLOCK_MONOTONIC, &t);
            now = 1u + (uint64_t)(t.tv_sec - start.tv_sec) * 1000u + (uint64_t)((t.tv_nsec - start.tv_nsec) / 1000000);
        } else {
            now += 2;
        }
    }

    result.confirmed = max_frames;
    for (int i = 0; i < players; ++i) {
        rc_session_stats st = {.struct_size = sizeof(rc_session_stats)};
        REQUIRE_CALL(rc_client_stats(clients[i], &st), rc_client_last_error(clients[i]));
        result.rollbacks[i] = st.rollbacks;
        rc_client_info info = {.struct_size = sizeof(rc_client_info)};
        REQUIRE_CALL(rc_client_get_info(clients[i], &info), rc_client_last_error(clients[i]));
        CHECK(info.state == RC_CLIENT_RUNNING);
        CHECK(info.slot == i);
        if (info.confirmed_frame < result.confirmed) result.confirmed = info.confirmed_frame;
        CHECK(client_peers[i].synchronized == 1);
        CHECK(client_peers[i].desyncs == 0);
        CHECK(client_peers[i].failed == 0);
    }
    rc_session_stats totals = {.struct_size = sizeof(rc_session_stats)};
    REQUIRE_CALL(rc_server_totals(server, &totals), rc_server_last_error(server));
    CHECK(totals.desyncs == 0);
    CHECK(totals.unverified_desyncs == 0);
    CHECK(server_peer.desyncs == 0 && server_peer.failed == 0);
    if (!wall) check_telemetry(server, clients); /* a real link may not fill the rings in time */

    /* Frames confirmed long enough ago that any correction has run: every peer that stepped
     * them last stepped them with the confirmed inputs, so the hashes must be the server's. */
    const rc_frame settled = result.confirmed > 30u ? result.confirmed - 30u : 0u;
    unsigned compared = 0;
    for (rc_frame f = 0; f < settled && f < max_frames; ++f) {
        if (!server_peer.have[f]) continue;
        for (int i = 0; i < players; ++i) {
            if (!client_peers[i].have[f]) continue;
            ++compared;
            if (client_peers[i].hashes[f] != server_peer.hashes[f]) {
                ++failures;
                fprintf(stderr, "frame %llu: %s's hash differs from the server's\n", (unsigned long long)f,
                        client_peers[i].name);
            }
        }
    }
    CHECK(compared > 100);
    if (settled > 0 && server_peer.have[settled - 1]) result.final_hash = server_peer.hashes[settled - 1];
    printf("%s mode: %llu confirmed frames, %u client frames compared with the server's, rollbacks %llu + %llu\n",
           poll_mode ? "poll" : "callback", (unsigned long long)result.confirmed, compared, result.rollbacks[0],
           result.rollbacks[1]);

    if (trace_dir) {
        char path[1024];
        const char *mode = poll_mode ? "poll" : "callback";
        snprintf(path, sizeof path, "%s/%s_server.json", trace_dir, mode);
        REQUIRE_CALL(rc_server_write_trace(server, path), rc_server_last_error(server));
        snprintf(path, sizeof path, "%s/%s_client.json", trace_dir, mode);
        REQUIRE_CALL(rc_client_write_trace(clients[0], path), rc_client_last_error(clients[0]));
        CHECK(rc_client_write_trace(clients[1], path) == RC_ERR_ARGUMENT); /* client 1 keeps none */
        CHECK(server_peer.slices > 100 && client_peers[0].slices > 100);
        printf("%s mode: traces written to %s, %u and %u game slices\n", mode, trace_dir, server_peer.slices,
               client_peers[0].slices);
    }
    for (int i = 0; i < players; ++i) {
        rc_client_destroy(clients[i]);
        rc_world_destroy(client_peers[i].world);
    }
    rc_server_destroy(server);
    rc_world_destroy(server_peer.world);
    return result;
}

static match_result play_simulated(int poll_mode, rc_schema *schema) {
    rc_sim_network *net = NULL;
    REQUIRE_CALL(rc_sim_network_create(20261126u, &net), rc_last_error());
    rc_transport *server_end = NULL, *client_ends[players];
    REQUIRE_CALL(rc_sim_network_server(net, &server_end), rc_last_error());
    const rc_link link = {sizeof(rc_link), 40, 25, 0.03, 0.01, 0.02};
    for (int i = 0; i < players; ++i)
        REQUIRE_CALL(rc_sim_network_connect(net, &link, &link, &client_ends[i]), rc_last_error());
    const match_result r = play(poll_mode, server_end, client_ends, 0, 12000, schema);
    for (int i = 0; i < players; ++i) rc_transport_destroy(client_ends[i]);
    rc_transport_destroy(server_end);
    rc_sim_network_destroy(net);
    return r;
}

/* One server, one client with automatic reconnection; the client's link is cut for good at 3 s
 * (docs/net.md, "Reconnecting"). */
static void play_reconnecting(rc_schema *schema) {
    rc_sim_network *net = NULL;
    REQUIRE_CALL(rc_sim_network_create(31u, &net), rc_last_error());
    rc_transport *server_end = NULL, *client_end = NULL;
    REQUIRE_CALL(rc_sim_network_server(net, &server_end), rc_last_error());
    const rc_link link = {sizeof(rc_link), 20, 0, 0.0, 0.0, 0.0};
    REQUIRE_CALL(rc_sim_network_connect(net, &link, &link, &client_end), rc_last_error());

    rc_session_config config = {.struct_size = sizeof(rc_session_config)};
    REQUIRE_CALL(rc_session_config_default(&config), rc_last_error());
    config.max_players = players;
    config.input_size = sizeof(stick);
    config.input_layout_hash = stick_layout_hash();
    config.content_version = 7;
    memset(&server_peer, 0, sizeof server_peer);
    memset(client_peers, 0, sizeof client_peers);
    server_peer.name = "server";
    client_peers[0].name = "client";
    REQUIRE_CALL(rc_world_create(schema, &server_peer.world), rc_last_error());
    populate(server_peer.world);
    REQUIRE_CALL(rc_world_create(schema, &client_peers[0].world), rc_last_error());
    rc_server *server = NULL;
    REQUIRE_CALL(rc_server_create(&config, server_peer.world, server_end, step_callback, &server_peer, NULL, &server),
                 rc_last_error());
    rc_client_options options = {.struct_size = sizeof(rc_client_options)};
    REQUIRE_CALL(rc_client_options_default(&options), rc_last_error());
    CHECK(options.reconnect_attempts == 0); /* off unless asked for */
    CHECK(options.reconnect_backoff_ms == 500 && options.reconnect_max_backoff_ms == 4000);
    options.reconnect_attempts = 3;
    rc_client *client = NULL;
    REQUIRE_CALL(rc_client_create(&config, client_peers[0].world, client_end, step_callback, &client_peers[0], &options,
                                  &client),
                 rc_last_error());

    int32_t slot_before = -2;
    unsigned reconnecting = 0, reconnected = 0, disconnected = 0;
    uint64_t first_attempt = 0, taken = 0;
    for (uint64_t now = 1; now <= 12000; ++now) {
        if (now == 3000) {
            rc_client_info info = {.struct_size = sizeof(rc_client_info)};
            REQUIRE_CALL(rc_client_get_info(client, &info), rc_client_last_error(client));
            CHECK(info.state == RC_CLIENT_RUNNING);
            slot_before = info.slot;
            REQUIRE_CALL(rc_sim_network_set_blackout(net, 0, 1), rc_last_error());
        }
        REQUIRE_CALL(rc_server_update(server, now), rc_server_last_error(server));
        const stick s = stick_for(now / 16u, 0);
        REQUIRE_CALL(rc_client_update(client, now, &s, sizeof s), rc_client_last_error(client));
        rc_event e = {.struct_size = sizeof(rc_event)};
        int has = 0;
        while (rc_server_next_event(server, &e, &has) == RC_OK && has) count_event(&server_peer, &e);
        while (rc_client_next_event(client, &e, &has) == RC_OK && has) {
            count_event(&client_peers[0], &e);
            if (e.kind == RC_EVENT_RECONNECTING && reconnecting++ == 0) {
                first_attempt = e.count;
                CHECK(e.cause == RC_DISCONNECT_TIMED_OUT);
            }
            if (e.kind == RC_EVENT_RECONNECTED) {
                ++reconnected;
                taken = e.count;
            }
            if (e.kind == RC_EVENT_DISCONNECTED) ++disconnected;
        }
    }
    CHECK(reconnecting == 1 && first_attempt == 1);
    CHECK(reconnected == 1 && taken == 1);
    CHECK(disconnected == 0);
    CHECK(client_peers[0].desyncs == 0 && client_peers[0].failed == 0);
    rc_client_info info = {.struct_size = sizeof(rc_client_info)};
    REQUIRE_CALL(rc_client_get_info(client, &info), rc_client_last_error(client));
    CHECK(info.state == RC_CLIENT_RUNNING);
    CHECK(info.slot == slot_before);
    /* Frames the client stepped after it was back agree with the server's. */
    unsigned compared = 0;
    const rc_frame settled = info.confirmed_frame > 30u ? info.confirmed_frame - 30u : 0u;
    for (rc_frame f = settled > 120u ? settled - 120u : 0u; f < settled && f < max_frames; ++f) {
        if (!server_peer.have[f] || !client_peers[0].have[f]) continue;
        ++compared;
        CHECK(client_peers[0].hashes[f] == server_peer.hashes[f]);
    }
    CHECK(compared > 60);
    printf("reconnect: back in slot %d after %llu attempt(s), %u frames compared\n", (int)info.slot,
           (unsigned long long)taken, compared);

    /* A link that does not exist is refused by name. */
    CHECK(rc_sim_network_set_blackout(net, 99, 1) == RC_ERR_ARGUMENT);

    rc_client_destroy(client);
    rc_server_destroy(server);
    rc_transport_destroy(client_end);
    rc_transport_destroy(server_end);
    rc_sim_network_destroy(net);
    rc_world_destroy(client_peers[0].world);
    rc_world_destroy(server_peer.world);
}

int main(int argc, char **argv) {
    const char *which = argc > 1 ? argv[1] : "sim";
    rc_schema *schema = make_schema();
    if (strcmp(which, "sim") == 0) {
        trace_dir = argc > 2 ? argv[2] : NULL;
        const match_result callback = play_simulated(0, schema);
        const match_result poll = play_simulated(1, schema);
        CHECK(callback.rollbacks[0] + callback.rollbacks[1] > 0);
        CHECK(poll.rollbacks[0] + poll.rollbacks[1] > 0);
        CHECK(resimulated_requests > 0);
        /* Same seed, same inputs, same virtual clock: the modes differ only in who calls the
         * step, so the matches are the same. */
        CHECK(callback.confirmed == poll.confirmed);
        CHECK(callback.final_hash != 0 && callback.final_hash == poll.final_hash);
        CHECK(callback.rollbacks[0] == poll.rollbacks[0] && callback.rollbacks[1] == poll.rollbacks[1]);
    } else if (strcmp(which, "enet") == 0) {
        rc_transport *server_end = NULL, *client_ends[players];
        REQUIRE_CALL(rc_enet_server_create(0, players, 8, &server_end), rc_last_error());
        uint16_t port = 0;
        REQUIRE_CALL(rc_transport_local_port(server_end, &port), rc_last_error());
        CHECK(port != 0);
        for (int i = 0; i < players; ++i)
            REQUIRE_CALL(rc_enet_client_create("127.0.0.1", port, &client_ends[i]), rc_last_error());
        const match_result r = play(1, server_end, client_ends, 1, 4000, schema);
        CHECK(r.confirmed > 120); /* about 4 s at 60 Hz, minus the handshake */
        for (int i = 0; i < players; ++i) rc_transport_destroy(client_ends[i]);
        rc_transport_destroy(server_end);
    } else if (strcmp(which, "reconnect") == 0) {
        play_reconnecting(schema);
    } else {
        fprintf(stderr, "usage: c_sessions sim|enet|reconnect\n");
        return 2;
    }
    rc_schema_destroy(schema);
    if (failures) fprintf(stderr, "c_sessions %s: %d check(s) failed\n", which, failures);
    return failures ? 1 : 0;
}
