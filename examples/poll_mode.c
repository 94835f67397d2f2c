/* A match in poll mode from C (docs/c-api.md, "Poll mode"): a server and two clients on a
 * simulated network with 50 ms of latency, each with its own world. Nobody is called back:
 * after each update the game asks for the frames to step, steps each one and says so. */
#include <retcon.h>

#include <stdio.h>

typedef struct Ship {
    int32_t x, y;
    uint32_t slot;
} Ship;
typedef struct Stick {
    int8_t dx, dy;
    uint8_t fire, pad;
} Stick;

static const rc_field ship_fields[] = {RC_FIELD(Ship, x, RC_I32), RC_FIELD(Ship, y, RC_I32),
                                       RC_FIELD(Ship, slot, RC_U32)};
static const rc_field stick_fields[] = {RC_FIELD(Stick, dx, RC_I8), RC_FIELD(Stick, dy, RC_I8),
                                        RC_FIELD(Stick, fire, RC_U8), RC_FIELD(Stick, pad, RC_U8)};
static uint32_t ship_id;

#define CHECK(call)                                                                                                    \
    do {                                                                                                               \
        rc_status status_ = (call);                                                                                    \
        if (status_ != RC_OK) {                                                                                        \
            fprintf(stderr, "%s: %s (%s)\n", #call, rc_status_name(status_), rc_last_error());                         \
            return 1;                                                                                                  \
        }                                                                                                              \
    } while (0)

/* The game's step: each present player's ship moves by its stick. */
static int step(rc_world *world, const rc_frame_inputs *in) {
    const rc_query_desc desc = {sizeof(rc_query_desc), &ship_id, 1, NULL, 0};
    rc_query *q;
    rc_chunk c;
    int more;
    if (rc_query_create(world, &desc, &q) != RC_OK) return 1;
    while (rc_query_next(q, &c, &more) == RC_OK && more) {
        for (uint32_t i = 0; i < c.count; ++i) {
            Ship *ship = (Ship *)c.columns[0] + (c.rows ? c.rows[0][i] : i);
            if (!(in->flags[ship->slot] & 1u)) continue; /* slot empty this frame */
            const Stick *stick = (const Stick *)(in->inputs + ship->slot * in->input_size);
            ship->x += stick->dx;
            ship->y += stick->dy;
        }
    }
    rc_query_destroy(q);
    return 0;
}

/* Poll mode: step every frame the last update asked for, in order. */
static int step_requests_of_client(rc_client *client) {
    rc_request r = {.struct_size = sizeof(rc_request)};
    int has;
    while (rc_client_next_request(client, &r, &has) == RC_OK && has) {
        if (step(r.world, &r.inputs) != 0) { /* the session ends with RC_EVENT_SESSION_FAILED */
            rc_client_request_failed(client, "query failed");
            return 1;
        }
        CHECK(rc_client_request_done(client, r.inputs.frame));
    }
    return 0;
}
static int step_requests_of_server(rc_server *server) {
    rc_request r = {.struct_size = sizeof(rc_request)};
    int has;
    while (rc_server_next_request(server, &r, &has) == RC_OK && has) {
        if (step(r.world, &r.inputs) != 0) {
            rc_server_request_failed(server, "query failed");
            return 1;
        }
        CHECK(rc_server_request_done(server, r.inputs.frame));
    }
    return 0;
}

int main(void) {
    rc_schema *schema;
    CHECK(rc_schema_create(&schema));
    const rc_type_desc ship = {sizeof(rc_type_desc), "Ship", sizeof(Ship), ship_fields, 3};
    CHECK(rc_schema_component(schema, &ship, &ship_id));
    const rc_type_desc stick = {sizeof(rc_type_desc), "Stick", sizeof(Stick), stick_fields, 4};

    rc_session_config config = {.struct_size = sizeof(rc_session_config)};
    CHECK(rc_session_config_default(&config));
    config.max_players = 2;
    config.input_size = sizeof(Stick);
    CHECK(rc_input_layout_hash(&stick, &config.input_layout_hash));

    rc_sim_network *net;
    rc_transport *server_end, *client_end[2];
    const rc_link link = {sizeof(rc_link), 50, 10, 0.02, 0, 0};
    CHECK(rc_sim_network_create(1, &net));
    CHECK(rc_sim_network_server(net, &server_end));

    rc_world *server_world, *client_world[2];
    CHECK(rc_world_create(schema, &server_world));
    for (uint32_t slot = 0; slot < 2; ++slot) { /* the starting world: clients get it from the server */
        rc_entity e;
        const Ship s = {0, 0, slot};
        CHECK(rc_entity_create(server_world, &e));
        CHECK(rc_component_add(server_world, e, ship_id, &s, sizeof s));
    }
    rc_server *server;
    CHECK(rc_server_create(&config, server_world, server_end, NULL, NULL, NULL, &server)); /* NULL step: poll */
    rc_client *client[2];
    for (int i = 0; i < 2; ++i) {
        CHECK(rc_sim_network_connect(net, &link, &link, &client_end[i]));
        CHECK(rc_world_create(schema, &client_world[i]));
        CHECK(rc_client_create(&config, client_world[i], client_end[i], NULL, NULL, NULL, &client[i]));
    }

    unsigned desyncs = 0;
    for (uint64_t now = 1; now <= 10000; now += 4) { /* 10 s of virtual time */
        CHECK(rc_server_update(server, now));
        if (step_requests_of_server(server) != 0) return 1;
        for (int i = 0; i < 2; ++i) {
            const Stick input = {(int8_t)((now / 300 + (uint64_t)i) % 3) - 1, (int8_t)(i ? 1 : -1), 0, 0};
            CHECK(rc_client_update(client[i], now, &input, sizeof input));
            if (step_requests_of_client(client[i]) != 0) return 1;
            rc_event e = {.struct_size = sizeof(rc_event)};
            int has;
            while (rc_client_next_event(client[i], &e, &has) == RC_OK && has)
                if (e.kind == RC_EVENT_DESYNC_DETECTED) ++desyncs;
        }
    }

    rc_session_stats stats = {.struct_size = sizeof(rc_session_stats)};
    rc_client_info info = {.struct_size = sizeof(rc_client_info)};
    CHECK(rc_client_stats(client[0], &stats));
    CHECK(rc_client_get_info(client[0], &info));
    printf("frames: %llu, rollbacks: %llu, desyncs: %u\n", (unsigned long long)info.confirmed_frame,
           (unsigned long long)stats.rollbacks, desyncs);

    for (int i = 0; i < 2; ++i) { /* sessions before their worlds and transports */
        rc_client_destroy(client[i]);
        rc_transport_destroy(client_end[i]);
        rc_world_destroy(client_world[i]);
    }
    rc_server_destroy(server);
    rc_transport_destroy(server_end);
    rc_world_destroy(server_world);
    rc_sim_network_destroy(net);
    rc_schema_destroy(schema);
    return desyncs == 0 ? 0 : 1;
}
