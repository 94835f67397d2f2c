/*
 * A pure C11 program using retcon through retcon.h only (docs/c-api.md): a schema with every
 * kind of declaration, a small deterministic simulation run through queries, rollback through
 * an rc_ring, images, snapshot files, a replay recorded and verified with a C step, and query
 * iteration over aligned and churned pool layouts.
 *
 *   c_program <scratch directory>
 *
 * Exits 0 only if every check passes; prints each failed check otherwise.
 */
#include <retcon.h>

#include "c_checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ the schema */

/* Padding-free, 4-byte fields only. */
typedef struct body {
    float x;
    float y;
    float vx;
    float vy;
    int32_t hp;
} body;

/* A u64 after an explicit pad: the field at offset 8 is at a multiple of its width. */
typedef struct counter {
    uint32_t id;
    uint32_t pad;
    uint64_t total;
} counter;

/* A nested record. */
typedef struct vec2 {
    float x;
    float y;
} vec2;

typedef struct target {
    vec2 goal;
    int32_t weight;
} target;

/* Text and an entity field (a 4-byte retcon handle, RC_ENTITY). */
typedef struct named_link {
    uint32_t other;
    char name[12];
} named_link;

/* The resource. */
typedef struct config {
    uint32_t seed;
    float drag;
    uint64_t ticks;
} config;

typedef struct ids {
    uint32_t body, counter, target, link, frozen;
    uint32_t config;
} ids;

static ids id;
static uint64_t schema_hash_value;

static rc_schema *make_schema(void) {
    static const rc_field body_fields[] = {
        RC_FIELD(body, x, RC_F32),  RC_FIELD(body, y, RC_F32),  RC_FIELD(body, vx, RC_F32),
        RC_FIELD(body, vy, RC_F32), RC_FIELD(body, hp, RC_I32),
    };
    static const rc_field counter_fields[] = {
        RC_FIELD(counter, id, RC_U32),
        RC_FIELD(counter, pad, RC_U32),
        RC_FIELD(counter, total, RC_U64),
    };
    static const rc_field vec2_fields[] = {RC_FIELD(vec2, x, RC_F32), RC_FIELD(vec2, y, RC_F32)};
    static const rc_field link_fields[] = {RC_FIELD(named_link, other, RC_ENTITY), RC_FIELD(named_link, name, RC_TEXT)};
    static const rc_field config_fields[] = {
        RC_FIELD(config, seed, RC_U32),
        RC_FIELD(config, drag, RC_F32),
        RC_FIELD(config, ticks, RC_U64),
    };
    rc_schema *schema = NULL;
    uint32_t vec2_record = 0;
    CHECK_CALL(rc_schema_create(&schema), rc_last_error());
    if (schema == NULL) return NULL;

    {
        const rc_type_desc d = {sizeof(rc_type_desc), "vec2", sizeof(vec2), vec2_fields, 2};
        CHECK_CALL(rc_schema_record(schema, &d, &vec2_record), rc_schema_last_error(schema));
    }
    {
        const rc_type_desc d = {sizeof(rc_type_desc), "body", sizeof(body), body_fields, 5};
        CHECK_CALL(rc_schema_component(schema, &d, &id.body), rc_schema_last_error(schema));
    }
    {
        const rc_type_desc d = {sizeof(rc_type_desc), "counter", sizeof(counter), counter_fields, 3};
        CHECK_CALL(rc_schema_component(schema, &d, &id.counter), rc_schema_last_error(schema));
    }
    {
        const rc_field target_fields[] = {RC_FIELD_RECORD(target, goal, vec2_record), RC_FIELD(target, weight, RC_I32)};
        const rc_type_desc d = {sizeof(rc_type_desc), "target", sizeof(target), target_fields, 2};
        CHECK_CALL(rc_schema_component(schema, &d, &id.target), rc_schema_last_error(schema));
    }
    {
        const rc_type_desc d = {sizeof(rc_type_desc), "link", sizeof(named_link), link_fields, 2};
        CHECK_CALL(rc_schema_component(schema, &d, &id.link), rc_schema_last_error(schema));
    }
    {
        const rc_type_desc d = {sizeof(rc_type_desc), "frozen", 0, NULL, 0};
        CHECK_CALL(rc_schema_component(schema, &d, &id.frozen), rc_schema_last_error(schema));
    }
    {
        const rc_type_desc d = {sizeof(rc_type_desc), "config", sizeof(config), config_fields, 3};
        CHECK_CALL(rc_schema_resource(schema, &d, &id.config), rc_schema_last_error(schema));
    }
    {
        const uint32_t grouped[] = {id.body, id.target};
        CHECK_CALL(rc_schema_group(schema, grouped, 2), rc_schema_last_error(schema));
    }
    /* Ids are declaration order. */
    CHECK(id.body == 0 && id.counter == 1 && id.target == 2 && id.link == 3 && id.frozen == 4);
    CHECK(id.config == 0);
    CHECK_CALL(rc_schema_hash(schema, &schema_hash_value), rc_schema_last_error(schema));
    CHECK(schema_hash_value != 0);
    return schema;
}

/* ------------------------------------------------------------------ queries */

/* Element i of column c of a chunk, in either layout. */
static void *element(const rc_chunk *chunk, uint32_t column, uint32_t i, size_t size) {
    const uint32_t row = chunk->rows != NULL ? chunk->rows[column][i] : i;
    return (char *)chunk->columns[column] + (size_t)row * size;
}

typedef struct layout_count {
    unsigned aligned;          /* chunks with rows == NULL */
    unsigned indexed;          /* chunks with rows != NULL */
    unsigned elements;         /* elements visited */
    unsigned aligned_elements; /* of which in chunks with rows == NULL */
} layout_count;

static rc_query *make_query(rc_world *world, const uint32_t *include, uint32_t include_count, const uint32_t *exclude,
                            uint32_t exclude_count) {
    rc_query *query = NULL;
    const rc_query_desc desc = {sizeof(rc_query_desc), include, include_count, exclude, exclude_count};
    CHECK_CALL(rc_query_create(world, &desc, &query), rc_world_last_error(world));
    return query;
}

/* ------------------------------------------------------------------ the simulation */

#define PLAYERS 2u
#define INPUT_SIZE 4u
#define RECORD_SIZE (PLAYERS * (1u + INPUT_SIZE))
#define FRAMES 300u

/* The inputs of frame f: player 0 always present, player 1 absent on every fourth frame. */
static void make_record(rc_frame frame, unsigned char record[RECORD_SIZE]) {
    int32_t input[PLAYERS];
    memset(record, 0, RECORD_SIZE);
    input[0] = (int32_t)((frame * 2654435761u) % 17u) - 8;
    input[1] = (int32_t)((frame * 40503u) % 11u) - 5;
    record[0] = 1;
    record[1] = (frame % 4u) != 3u;
    memcpy(record + PLAYERS, &input[0], INPUT_SIZE);
    if (record[1]) memcpy(record + PLAYERS + INPUT_SIZE, &input[1], INPUT_SIZE);
}

static layout_count step_layouts; /* over every step of the program (zero-initialised) */

static void name_unit(char name[12], uint32_t n) {
    memset(name, 0, 12);
    snprintf(name, 12, "unit-%u", (unsigned)(n % 100000u));
}

/* Spawns unit n; adds components in an order that depends on n, so pools are not aligned. */
static rc_entity spawn(rc_world *world, uint32_t n, rc_entity previous) {
    rc_entity e = RC_NULL_ENTITY;
    body b;
    target t;
    counter c;
    named_link l;
    CHECK_CALL(rc_entity_create(world, &e), rc_world_last_error(world));
    b.x = (float)n;
    b.y = (float)(n % 5u);
    b.vx = 0.0f;
    b.vy = 0.0f;
    b.hp = 100 + (int32_t)(n % 13u);
    t.goal.x = (float)(n * 3u % 40u);
    t.goal.y = -(float)(n * 2u % 30u);
    t.weight = (int32_t)n;
    c.id = n;
    c.pad = 0;
    c.total = 0;
    l.other = (uint32_t)previous;
    name_unit(l.name, n);
    if (n % 2u == 0u) {
        CHECK_CALL(rc_component_add(world, e, id.counter, &c, sizeof c), rc_world_last_error(world));
        CHECK_CALL(rc_component_add(world, e, id.body, &b, sizeof b), rc_world_last_error(world));
        if (n % 3u != 0u) CHECK_CALL(rc_component_add(world, e, id.link, &l, sizeof l), rc_world_last_error(world));
        CHECK_CALL(rc_component_add(world, e, id.target, &t, sizeof t), rc_world_last_error(world));
    } else {
        CHECK_CALL(rc_component_add(world, e, id.link, &l, sizeof l), rc_world_last_error(world));
        CHECK_CALL(rc_component_add(world, e, id.target, &t, sizeof t), rc_world_last_error(world));
        CHECK_CALL(rc_component_add(world, e, id.body, &b, sizeof b), rc_world_last_error(world));
        CHECK_CALL(rc_component_add(world, e, id.counter, &c, sizeof c), rc_world_last_error(world));
    }
    if (n % 5u == 0u) CHECK_CALL(rc_component_add(world, e, id.frozen, NULL, 0), rc_world_last_error(world));
    return e;
}

static rc_world *make_world(const rc_schema *schema, int populate) {
    rc_world *world = NULL;
    CHECK_CALL(rc_world_create(schema, &world), rc_last_error());
    if (world == NULL) return NULL;
    if (populate) {
        config cfg;
        rc_entity previous = RC_NULL_ENTITY;
        uint32_t n;
        cfg.seed = 12345u;
        cfg.drag = 0.875f;
        cfg.ticks = 0;
        CHECK_CALL(rc_resource_set(world, id.config, &cfg, sizeof cfg), rc_world_last_error(world));
        for (n = 0; n < 24u; ++n) previous = spawn(world, n, previous);
    }
    return world;
}

typedef struct step_user {
    rc_frame tamper_frame; /* the step changes the result of this frame (RC_NULL_ENTITY: never) */
    int errors;
} step_user;

/* One frame of the game, the rc_step_fn that replay verification calls as sessions do.
 * Structural changes happen after the queries are done. */
static int step(rc_world *world, const rc_frame_inputs *in, void *user_data) {
    step_user *user = (step_user *)user_data;
    const rc_frame frame = in->frame;
    const int before = failures;
    int32_t push = 0;
    config *cfg = NULL;
    void *resource = NULL;
    rc_entity doomed = RC_NULL_ENTITY;
    rc_entity toggled = RC_NULL_ENTITY;
    uint64_t n_counter = 0;
    rc_chunk chunk;
    int has = 0;
    uint32_t s, i;

    CHECK(in->players == PLAYERS && in->input_size == INPUT_SIZE && in->record_size == RECORD_SIZE);
    if (in->players != PLAYERS || in->input_size != INPUT_SIZE || in->record_size != RECORD_SIZE) return 1;
    /* flags and inputs are views into the record (docs/frames.md) */
    CHECK((const void *)in->flags == in->record);
    CHECK(in->inputs == in->flags + PLAYERS);
    for (s = 0; s < PLAYERS; ++s) {
        int32_t input;
        if (!in->flags[s]) continue;
        memcpy(&input, in->inputs + s * INPUT_SIZE, INPUT_SIZE);
        push += input;
    }

    CHECK_CALL(rc_resource_get(world, id.config, &resource), rc_world_last_error(world));
    if (resource == NULL) return 1;
    cfg = (config *)resource;
    cfg->ticks += 1;
    cfg->seed = cfg->seed * 1103515245u + 12345u;
    if (user != NULL && frame == user->tamper_frame) cfg->ticks += 1;

    { /* bodies move toward their targets (the group, and every unit is in it: aligned pools) */
        const uint32_t include[] = {id.body, id.target};
        rc_query *q = make_query(world, include, 2, NULL, 0);
        if (q == NULL) return 1;
        for (;;) {
            CHECK_CALL(rc_query_next(q, &chunk, &has), rc_query_last_error(q));
            if (!has) break;
            CHECK(chunk.rows == NULL);
            if (chunk.rows == NULL) ++step_layouts.aligned;
            else
                ++step_layouts.indexed;
            for (i = 0; i < chunk.count; ++i) {
                body *b = (body *)element(&chunk, 0, i, sizeof(body));
                const target *t = (const target *)element(&chunk, 1, i, sizeof(target));
                b->vx = (b->vx + (t->goal.x - b->x) * 0.0625f + (float)push * 0.001f) * cfg->drag;
                b->vy = (b->vy + (t->goal.y - b->y) * 0.0625f) * cfg->drag;
                b->x += b->vx;
                b->y += b->vy;
                if ((frame + (rc_frame)t->weight) % 7u == 0u) b->hp -= 1 + (int32_t)(cfg->seed % 3u);
                if (b->hp < 90 && doomed == RC_NULL_ENTITY) doomed = chunk.entities[i];
                ++step_layouts.elements;
            }
        }
        rc_query_destroy(q);
    }
    { /* counters that are not frozen accumulate */
        const uint32_t include[] = {id.counter};
        const uint32_t exclude[] = {id.frozen};
        rc_query *q = make_query(world, include, 1, exclude, 1);
        if (q == NULL) return 1;
        for (;;) {
            CHECK_CALL(rc_query_next(q, &chunk, &has), rc_query_last_error(q));
            if (!has) break;
            if (chunk.rows == NULL) ++step_layouts.aligned;
            else
                ++step_layouts.indexed;
            for (i = 0; i < chunk.count; ++i) {
                counter *c = (counter *)element(&chunk, 0, i, sizeof(counter));
                c->total += (uint64_t)c->id * frame + (uint64_t)(uint32_t)push;
                if (n_counter == (frame / 5u) % 16u) toggled = chunk.entities[i];
                ++n_counter;
                ++step_layouts.elements;
            }
        }
        rc_query_destroy(q);
    }
    { /* counters with a link (pools filled in different orders: row-indexed chunks) */
        const uint32_t include[] = {id.counter, id.link};
        rc_query *q = make_query(world, include, 2, NULL, 0);
        if (q == NULL) return 1;
        for (;;) {
            CHECK_CALL(rc_query_next(q, &chunk, &has), rc_query_last_error(q));
            if (!has) break;
            if (chunk.rows == NULL) ++step_layouts.aligned;
            else
                ++step_layouts.indexed;
            for (i = 0; i < chunk.count; ++i) {
                counter *c = (counter *)element(&chunk, 0, i, sizeof(counter));
                named_link *l = (named_link *)element(&chunk, 1, i, sizeof(named_link));
                c->total ^= (uint64_t)(unsigned char)l->name[5];
                l->name[11] = (char)('a' + (char)(frame % 26u));
                ++step_layouts.elements;
            }
        }
        rc_query_destroy(q);
    }

    /* Structural changes: every 5th frame the frozen tag of one counter flips, every 17th a weak
     * unit dies (perhaps the one just toggled), every 11th a unit is born. */
    if (frame % 5u == 0u && toggled != RC_NULL_ENTITY) {
        int frozen = 0;
        CHECK_CALL(rc_component_has(world, toggled, id.frozen, &frozen), rc_world_last_error(world));
        if (frozen) CHECK_CALL(rc_component_remove(world, toggled, id.frozen), rc_world_last_error(world));
        else
            CHECK_CALL(rc_component_add(world, toggled, id.frozen, NULL, 0), rc_world_last_error(world));
    }
    if (frame % 17u == 0u && doomed != RC_NULL_ENTITY)
        CHECK_CALL(rc_entity_destroy(world, doomed), rc_world_last_error(world));
    if (frame % 11u == 0u) (void)spawn(world, 100u + (uint32_t)frame, RC_NULL_ENTITY);
    if (failures != before) {
        if (user != NULL) ++user->errors;
        return 1;
    }
    return 0;
}

static uint64_t world_hash(const rc_world *world) {
    uint64_t h = 0;
    CHECK_CALL(rc_world_hash(world, &h), rc_world_last_error(world));
    return h;
}

/* The C view of frame @p f's @p record, as retcon hands it to a step. */
static rc_frame_inputs inputs_of(rc_frame f, const unsigned char *record) {
    rc_frame_inputs in;
    in.frame = f;
    in.players = PLAYERS;
    in.input_size = INPUT_SIZE;
    in.flags = record;
    in.inputs = record + PLAYERS;
    in.record = record;
    in.record_size = RECORD_SIZE;
    return in;
}

/* Steps frames [first, last] with the canonical inputs, saving each into @p ring if any. */
static void run(rc_world *world, rc_ring *ring, rc_frame first, rc_frame last, uint64_t *hashes) {
    unsigned char record[RECORD_SIZE];
    rc_frame_inputs in;
    rc_frame f;
    for (f = first; f <= last; ++f) {
        make_record(f, record);
        in = inputs_of(f, record);
        CHECK(step(world, &in, NULL) == 0);
        if (ring != NULL) CHECK_CALL(rc_ring_save(ring, world, f), rc_ring_last_error(ring));
        if (hashes != NULL) hashes[f] = world_hash(world);
    }
}

/* ------------------------------------------------------------------ the parts */

static uint64_t straight[FRAMES];

static void test_rollback(const rc_schema *schema) {
    rc_world *world = make_world(schema, 1);
    rc_ring *ring = NULL;
    uint64_t again[FRAMES];
    uint64_t alive = 0;
    rc_status status;
    if (world == NULL) return;
    CHECK_CALL(rc_ring_create(32, &ring), rc_last_error());
    if (ring == NULL) return;

    run(world, ring, 0, FRAMES - 1, straight);
    CHECK_CALL(rc_world_alive(world, &alive), rc_world_last_error(world));
    CHECK(alive > 10 && alive < 60);
    CHECK(step_layouts.aligned > 0);
    CHECK(step_layouts.indexed > 0);
    CHECK(straight[FRAMES - 1] != straight[FRAMES - 2]);

    /* Roll back 25 frames and re-simulate: the same states, frame by frame. */
    CHECK_CALL(rc_ring_restore(ring, world, FRAMES - 26), rc_ring_last_error(ring));
    CHECK(world_hash(world) == straight[FRAMES - 26]);
    run(world, ring, FRAMES - 25, FRAMES - 1, again);
    CHECK(memcmp(again + (FRAMES - 25), straight + (FRAMES - 25), 25 * sizeof(uint64_t)) == 0);
    CHECK(world_hash(world) == straight[FRAMES - 1]);

    /* A frame the ring no longer holds. */
    status = rc_ring_restore(ring, world, 10);
    CHECK(status == RC_ERR_NOT_FOUND);
    CHECK(strlen(rc_ring_last_error(ring)) > 0);
    CHECK(world_hash(world) == straight[FRAMES - 1]);

    rc_ring_destroy(ring);
    rc_world_destroy(world);
}

static void test_image(const rc_schema *schema) {
    rc_world *world = make_world(schema, 1);
    rc_world *fresh = make_world(schema, 0);
    size_t needed = 0, written = 0;
    rc_frame frame = 0;
    void *buffer;
    rc_status status;
    if (world == NULL || fresh == NULL) return;
    run(world, NULL, 0, 99, NULL);
    CHECK(world_hash(world) == straight[99]);

    status = rc_world_save_image(world, 99, NULL, 0, &needed);
    CHECK(status == RC_OK || status == RC_ERR_BUFFER_TOO_SMALL);
    CHECK(needed > 64);
    buffer = malloc(needed);
    if (buffer == NULL) return;
    status = rc_world_save_image(world, 99, buffer, needed - 1, &written);
    CHECK(status == RC_ERR_BUFFER_TOO_SMALL);
    CHECK(written == needed);
    CHECK_CALL(rc_world_save_image(world, 99, buffer, needed, &written), rc_world_last_error(world));
    CHECK(written == needed);

    CHECK_CALL(rc_world_load_image(fresh, buffer, written, &frame), rc_world_last_error(fresh));
    CHECK(frame == 99);
    CHECK(world_hash(fresh) == straight[99]);
    /* The restored world continues exactly like the original (free list included). */
    run(fresh, NULL, 100, 149, NULL);
    CHECK(world_hash(fresh) == straight[149]);
    free(buffer);
    rc_world_destroy(fresh);
    rc_world_destroy(world);
}

static void test_snapshot_file(const rc_schema *schema, const char *dir) {
    char path_a[1024], path_b[1024];
    rc_world *world = make_world(schema, 1);
    rc_world *fresh = make_world(schema, 0);
    rc_frame frame = 0;
    rc_diff *diff = NULL;
    if (world == NULL || fresh == NULL) return;
    snprintf(path_a, sizeof path_a, "%s/c_program_a.rcs", dir);
    snprintf(path_b, sizeof path_b, "%s/c_program_b.rcs", dir);
    run(world, NULL, 0, 199, NULL);
    CHECK_CALL(rc_snapshot_file_write(world, path_a, 199, 3), rc_world_last_error(world));
    CHECK_CALL(rc_snapshot_file_check(path_a), rc_last_error());
    CHECK_CALL(rc_snapshot_file_load(fresh, path_a, &frame), rc_world_last_error(fresh));
    CHECK(frame == 199);
    CHECK(world_hash(fresh) == straight[199]);
    run(fresh, NULL, 200, 219, NULL);
    CHECK(world_hash(fresh) == straight[219]);
    CHECK_CALL(rc_snapshot_file_write(fresh, path_b, 219, 1), rc_world_last_error(fresh));

    /* Diffs: a file against itself, and against 20 frames later. */
    CHECK_CALL(rc_diff_files(path_a, path_a, &diff), rc_last_error());
    if (diff != NULL) {
        rc_diff_summary summary;
        memset(&summary, 0, sizeof summary);
        summary.struct_size = sizeof summary;
        CHECK_CALL(rc_diff_get_summary(diff, &summary), rc_last_error());
        CHECK(summary.identical == 1);
        CHECK(summary.frame_a == 199 && summary.frame_b == 199);
        rc_diff_destroy(diff);
        diff = NULL;
    }
    CHECK_CALL(rc_diff_files(path_a, path_b, &diff), rc_last_error());
    if (diff != NULL) {
        rc_diff_summary summary;
        size_t needed = 0;
        char *json;
        memset(&summary, 0, sizeof summary);
        summary.struct_size = sizeof summary;
        CHECK_CALL(rc_diff_get_summary(diff, &summary), rc_last_error());
        CHECK(summary.identical == 0);
        CHECK(summary.schemas_differ == 0);
        CHECK(summary.pools_differing > 0);
        CHECK(summary.frame_a == 199 && summary.frame_b == 219);
        (void)rc_diff_json(diff, NULL, 0, &needed);
        CHECK(needed > 2);
        json = (char *)malloc(needed);
        if (json != NULL) {
            CHECK_CALL(rc_diff_json(diff, json, needed, &needed), rc_last_error());
            CHECK(json[0] == '{');
            CHECK(strlen(json) + 1 == needed);
            CHECK(strstr(json, "counter") != NULL);
            free(json);
        }
        rc_diff_destroy(diff);
    }
    rc_world_destroy(fresh);
    rc_world_destroy(world);
}

static void test_replay(const rc_schema *schema, const char *dir) {
    char path[1024];
    rc_world *world = make_world(schema, 1);
    rc_replay_settings settings;
    rc_replay_writer *writer = NULL;
    rc_replay *replay = NULL;
    rc_replay_info info;
    rc_verify_report report;
    unsigned char record[RECORD_SIZE];
    rc_frame_inputs in;
    rc_frame f;
    if (world == NULL) return;
    snprintf(path, sizeof path, "%s/c_program.rcr", dir);
    remove(path); /* a replay is never overwritten: the last run's goes first */

    memset(&settings, 0, sizeof settings);
    settings.struct_size = sizeof settings;
    CHECK_CALL(rc_replay_settings_default(&settings), rc_last_error());
    CHECK(settings.struct_size == sizeof settings);
    settings.players = PLAYERS;
    settings.input_size = INPUT_SIZE;
    settings.keyframe_interval = 50;
    settings.frames_per_chunk = 16;
    CHECK_CALL(rc_replay_writer_create(path, world, 0, &settings, &writer), rc_last_error());
    if (writer == NULL) return;
    for (f = 0; f < FRAMES; ++f) {
        make_record(f, record);
        in = inputs_of(f, record);
        CHECK(step(world, &in, NULL) == 0);
        CHECK_CALL(rc_replay_writer_add_frame(writer, record, sizeof record, world),
                   rc_replay_writer_last_error(writer));
    }
    CHECK(world_hash(world) == straight[FRAMES - 1]);
    CHECK_CALL(rc_replay_writer_finish(writer), rc_replay_writer_last_error(writer));
    rc_replay_writer_destroy(writer);
    rc_world_destroy(world);

    CHECK_CALL(rc_replay_open(path, &replay), rc_last_error());
    if (replay == NULL) return;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    CHECK_CALL(rc_replay_get_info(replay, &info), rc_replay_last_error(replay));
    CHECK(info.players == PLAYERS);
    CHECK(info.input_size == INPUT_SIZE);
    CHECK(info.start_frame == 0);
    CHECK(info.end_frame == FRAMES);
    CHECK(info.complete == 1);
    CHECK(info.schema_hash == schema_hash_value);
    CHECK(info.keyframes >= FRAMES / 50);
    {
        const void *recorded = NULL;
        size_t recorded_size = 0;
        uint64_t h = 0;
        make_record(123, record);
        CHECK_CALL(rc_replay_inputs(replay, 123, &recorded, &recorded_size), rc_replay_last_error(replay));
        CHECK(recorded_size == RECORD_SIZE);
        CHECK(recorded != NULL && memcmp(recorded, record, RECORD_SIZE) == 0);
        CHECK_CALL(rc_replay_hash(replay, 123, &h), rc_replay_last_error(replay));
        CHECK(h == straight[123]);
    }
    { /* seek: the latest keyframe at or before 123 */
        rc_world *seeker = make_world(schema, 0);
        rc_frame keyframe = RC_NULL_ENTITY;
        if (seeker != NULL) {
            CHECK_CALL(rc_replay_seek(replay, seeker, 123, &keyframe), rc_replay_last_error(replay));
            /* Keyframes every 50 frames: the state before frame 100 is stepped. */
            CHECK(keyframe == 100);
            CHECK(world_hash(seeker) == straight[99]);
            run(seeker, NULL, 100, 123, NULL);
            CHECK(world_hash(seeker) == straight[123]);
            rc_world_destroy(seeker);
        }
    }
    { /* the honest step: every frame matches */
        rc_world *fresh = make_world(schema, 0);
        step_user user = {RC_NULL_ENTITY, 0};
        if (fresh != NULL) {
            memset(&report, 0, sizeof report);
            report.struct_size = sizeof report;
            CHECK_CALL(rc_replay_verify(replay, fresh, step, &user, &report), rc_replay_last_error(replay));
            CHECK(report.ok == 1);
            CHECK(report.frames_checked == FRAMES);
            CHECK(user.errors == 0);
            CHECK(world_hash(fresh) == straight[FRAMES - 1]);
            rc_world_destroy(fresh);
        }
    }
    { /* a step that changes frame 123's result: reported at 123 */
        rc_world *fresh = make_world(schema, 0);
        step_user user = {123, 0};
        if (fresh != NULL) {
            memset(&report, 0, sizeof report);
            report.struct_size = sizeof report;
            CHECK_CALL(rc_replay_verify(replay, fresh, step, &user, &report), rc_replay_last_error(replay));
            CHECK(report.ok == 0);
            CHECK(report.first_mismatch == 123);
            CHECK(report.expected == straight[123]);
            CHECK(report.actual != report.expected);
            rc_world_destroy(fresh);
        }
    }
    rc_replay_close(replay);
}

/* Sums a two-component query's values and counts its chunk layouts. For {body, target} the value
 * is hp + weight; for {counter, link} it is the counter's total, and the link's name must be the
 * one of the counter's id. Every element's address must be the one rc_component_get gives for
 * the chunk's entity. */
static int64_t sum_query(rc_world *world, uint32_t first, uint32_t second, layout_count *layouts) {
    const uint32_t include[2] = {first, second};
    const size_t size0 = first == id.body ? sizeof(body) : sizeof(counter);
    const size_t size1 = first == id.body ? sizeof(target) : sizeof(named_link);
    rc_query *q = make_query(world, include, 2, NULL, 0);
    rc_chunk chunk;
    int has = 0;
    int64_t sum = 0;
    uint32_t i;
    if (q == NULL) return -1;
    for (;;) {
        CHECK_CALL(rc_query_next(q, &chunk, &has), rc_query_last_error(q));
        if (!has) break;
        if (chunk.rows == NULL) {
            ++layouts->aligned;
            layouts->aligned_elements += chunk.count;
        } else {
            ++layouts->indexed;
        }
        for (i = 0; i < chunk.count; ++i) {
            const rc_entity e = chunk.entities[i];
            void *p0 = element(&chunk, 0, i, size0);
            void *p1 = element(&chunk, 1, i, size1);
            void *got0 = NULL, *got1 = NULL;
            CHECK_CALL(rc_component_get(world, e, first, &got0), rc_world_last_error(world));
            CHECK_CALL(rc_component_get(world, e, second, &got1), rc_world_last_error(world));
            CHECK(got0 == p0);
            CHECK(got1 == p1);
            if (first == id.body) {
                sum += ((const body *)p0)->hp + ((const target *)p1)->weight;
            } else {
                const counter *c = (const counter *)p0;
                char name[12];
                name_unit(name, c->id);
                CHECK(memcmp(((const named_link *)p1)->name, name, sizeof name) == 0);
                sum += (int64_t)c->total;
            }
            ++layouts->elements;
        }
    }
    rc_query_destroy(q);
    return sum;
}

static void add_counter(rc_world *world, rc_entity e, uint32_t n, uint64_t total) {
    counter c;
    c.id = n;
    c.pad = 0;
    c.total = total;
    CHECK_CALL(rc_component_add(world, e, id.counter, &c, sizeof c), rc_world_last_error(world));
}

static void add_link(rc_world *world, rc_entity e, uint32_t n) {
    named_link l;
    l.other = 0;
    name_unit(l.name, n);
    CHECK_CALL(rc_component_add(world, e, id.link, &l, sizeof l), rc_world_last_error(world));
}

/* Three layouts: a group (whatever order components were added in), pools filled in the same
 * order, and pools churned by adds and removes in different orders. The query must visit every
 * value once in each, through rows == NULL chunks in the first two and row-indexed chunks in the
 * third. */
static void test_layouts(const rc_schema *schema) {
    enum { entity_count = 40 };
    rc_world *grouped = make_world(schema, 0);
    rc_world *aligned = make_world(schema, 0);
    rc_world *churned = make_world(schema, 0);
    rc_entity e[entity_count];
    int64_t expected = 0;
    layout_count lg = {0, 0, 0, 0}, la = {0, 0, 0, 0}, lc = {0, 0, 0, 0};
    uint32_t i;
    if (grouped == NULL || aligned == NULL || churned == NULL) return;

    /* The group {body, target}: bodies forward, targets backward, some entities with one only. */
    for (i = 0; i < entity_count; ++i) CHECK_CALL(rc_entity_create(grouped, &e[i]), rc_world_last_error(grouped));
    for (i = 0; i < entity_count; ++i) {
        body b = {0.0f, 0.0f, 0.0f, 0.0f, (int32_t)i};
        if (i % 7u == 3u) continue;
        CHECK_CALL(rc_component_add(grouped, e[i], id.body, &b, sizeof b), rc_world_last_error(grouped));
    }
    for (i = entity_count; i-- > 0;) {
        target t = {{0.0f, 0.0f}, (int32_t)(i * 100u)};
        if (i % 4u == 1u) continue;
        CHECK_CALL(rc_component_add(grouped, e[i], id.target, &t, sizeof t), rc_world_last_error(grouped));
    }
    for (i = 0; i < entity_count; ++i)
        if (i % 7u != 3u && i % 4u != 1u) expected += (int64_t)i + (int64_t)i * 100;
    CHECK(sum_query(grouped, id.body, id.target, &lg) == expected);
    CHECK(lg.elements == 25u);
    /* The 25 group members sit at the front of both pools in the same order: the header
     * promises them as rows == NULL chunks, whatever the pools hold past the group. */
    CHECK(lg.aligned_elements == 25u);

    /* Same order: counter then link, entity by entity. */
    expected = 0;
    for (i = 0; i < entity_count; ++i) {
        CHECK_CALL(rc_entity_create(aligned, &e[i]), rc_world_last_error(aligned));
        add_counter(aligned, e[i], i, (uint64_t)i * 1000u);
        add_link(aligned, e[i], i);
        expected += (int64_t)i * 1000;
    }
    CHECK(sum_query(aligned, id.counter, id.link, &la) == expected);
    CHECK(la.elements == entity_count);
    CHECK(la.aligned > 0 && la.indexed == 0);

    /* Churned: links in reverse, counters forward, then every third entity loses and regains its
     * counter and every fifth loses its link. */
    expected = 0;
    for (i = 0; i < entity_count; ++i) CHECK_CALL(rc_entity_create(churned, &e[i]), rc_world_last_error(churned));
    for (i = entity_count; i-- > 0;) add_link(churned, e[i], i);
    for (i = 0; i < entity_count; ++i) add_counter(churned, e[i], i, (uint64_t)i * 1000u);
    for (i = 0; i < entity_count; i += 3) {
        CHECK_CALL(rc_component_remove(churned, e[i], id.counter), rc_world_last_error(churned));
        add_counter(churned, e[i], i, (uint64_t)i * 7u);
    }
    for (i = 0; i < entity_count; i += 5)
        CHECK_CALL(rc_component_remove(churned, e[i], id.link), rc_world_last_error(churned));
    for (i = 0; i < entity_count; ++i)
        if (i % 5u != 0u) expected += (int64_t)(i % 3u == 0u ? (uint64_t)i * 7u : (uint64_t)i * 1000u);
    CHECK(sum_query(churned, id.counter, id.link, &lc) == expected);
    CHECK(lc.elements == entity_count - entity_count / 5);
    CHECK(lc.indexed > 0);

    /* Writes through row-indexed chunks land in the pools: add 1 to every total, read back. */
    {
        const uint32_t include[2] = {id.counter, id.link};
        rc_query *q = make_query(churned, include, 2, NULL, 0);
        rc_chunk chunk;
        int has = 0;
        if (q != NULL) {
            for (;;) {
                CHECK_CALL(rc_query_next(q, &chunk, &has), rc_query_last_error(q));
                if (!has) break;
                for (i = 0; i < chunk.count; ++i) ((counter *)element(&chunk, 0, i, sizeof(counter)))->total += 1;
            }
            rc_query_destroy(q);
        }
        for (i = 0; i < entity_count; ++i) {
            void *got = NULL;
            const uint64_t base = i % 3u == 0u ? (uint64_t)i * 7u : (uint64_t)i * 1000u;
            CHECK_CALL(rc_component_get(churned, e[i], id.counter, &got), rc_world_last_error(churned));
            CHECK(got != NULL && ((counter *)got)->total == base + (i % 5u != 0u ? 1u : 0u));
        }
    }
    rc_world_destroy(churned);
    rc_world_destroy(aligned);
    rc_world_destroy(grouped);
}

/* A nested record, text and an entity field survive an image round trip byte for byte. */
static void test_fields(const rc_schema *schema) {
    rc_world *world = make_world(schema, 0);
    rc_world *copy = make_world(schema, 0);
    rc_entity e = RC_NULL_ENTITY;
    named_link l;
    target t = {{1.5f, -2.25f}, 7};
    void *got = NULL;
    unsigned char image[4096];
    size_t needed = 0;
    rc_frame frame = 0;
    if (world == NULL || copy == NULL) return;
    memset(&l, 0, sizeof l);
    strcpy(l.name, "hello");
    CHECK_CALL(rc_entity_create(world, &e), rc_world_last_error(world));
    l.other = (uint32_t)e;
    CHECK_CALL(rc_component_add(world, e, id.link, &l, sizeof l), rc_world_last_error(world));
    CHECK_CALL(rc_component_add(world, e, id.target, &t, sizeof t), rc_world_last_error(world));
    CHECK_CALL(rc_world_save_image(world, 5, image, sizeof image, &needed), rc_world_last_error(world));
    CHECK_CALL(rc_world_load_image(copy, image, needed, &frame), rc_world_last_error(copy));
    CHECK(rc_entity_valid(copy, e) == 1);
    CHECK_CALL(rc_component_get(copy, e, id.link, &got), rc_world_last_error(copy));
    CHECK(got != NULL && memcmp(got, &l, sizeof l) == 0);
    CHECK_CALL(rc_component_get(copy, e, id.target, &got), rc_world_last_error(copy));
    /* Bit for bit on purpose: the copy holds the same bytes. */
    CHECK(got != NULL && memcmp(got, &t, sizeof t) == 0); /* NOLINT(bugprone-suspicious-memory-comparison) */
    rc_world_destroy(copy);
    rc_world_destroy(world);
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    rc_schema *schema;
    CHECK(rc_abi_version() == RC_ABI_VERSION);
    schema = make_schema();
    if (schema == NULL || failures != 0) {
        fprintf(stderr, "c_program: the schema failed, %d of %d checks\n", failures, checks);
        return 1;
    }
    test_rollback(schema);
    test_image(schema);
    test_snapshot_file(schema, dir);
    test_replay(schema, dir);
    test_layouts(schema);
    test_fields(schema);
    rc_schema_destroy(schema);
    if (failures != 0) {
        fprintf(stderr, "c_program: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("c_program: all %d checks passed\n", checks);
    return 0;
}
