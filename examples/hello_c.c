/* The smallest retcon program in C (docs/c-api.md): declare components with their field
 * tables, build a world, move what moves through a query, and hash the world. */
#include <retcon.h>

#include <stdio.h>

typedef struct Position {
    int32_t x, y;
} Position;

typedef struct Velocity {
    int32_t dx, dy;
} Velocity;

static const rc_field position_fields[] = {RC_FIELD(Position, x, RC_I32), RC_FIELD(Position, y, RC_I32)};
static const rc_field velocity_fields[] = {RC_FIELD(Velocity, dx, RC_I32), RC_FIELD(Velocity, dy, RC_I32)};

#define CHECK(call)                                                                                                    \
    do {                                                                                                               \
        rc_status status_ = (call);                                                                                    \
        if (status_ != RC_OK) {                                                                                        \
            fprintf(stderr, "%s: %s\n", #call, rc_status_name(status_));                                               \
            return 1;                                                                                                  \
        }                                                                                                              \
    } while (0)

int main(void) {
    rc_schema *schema = NULL;
    CHECK(rc_schema_create(&schema));
    const rc_type_desc position_desc = {sizeof(rc_type_desc), "Position", sizeof(Position), position_fields, 2};
    const rc_type_desc velocity_desc = {sizeof(rc_type_desc), "Velocity", sizeof(Velocity), velocity_fields, 2};
    const rc_type_desc frozen_desc = {sizeof(rc_type_desc), "Frozen", 0, NULL, 0}; /* a tag */
    uint32_t position, velocity, frozen;
    CHECK(rc_schema_component(schema, &position_desc, &position));
    CHECK(rc_schema_component(schema, &velocity_desc, &velocity));
    CHECK(rc_schema_component(schema, &frozen_desc, &frozen));

    rc_world *world = NULL;
    CHECK(rc_world_create(schema, &world));
    for (int32_t i = 0; i < 4; ++i) {
        rc_entity e;
        const Position p = {i, 0};
        const Velocity v = {1, i};
        CHECK(rc_entity_create(world, &e));
        CHECK(rc_component_add(world, e, position, &p, sizeof p));
        CHECK(rc_component_add(world, e, velocity, &v, sizeof v));
        if (i == 2) CHECK(rc_component_add(world, e, frozen, NULL, 0));
    }

    /* Everything with a position and a velocity that is not frozen moves, ten frames. */
    const uint32_t include[] = {position, velocity};
    const uint32_t exclude[] = {frozen};
    const rc_query_desc movers = {sizeof(rc_query_desc), include, 2, exclude, 1};
    rc_query *query = NULL;
    CHECK(rc_query_create(world, &movers, &query));
    for (int frame = 0; frame < 10; ++frame) {
        rc_chunk chunk;
        int more = 0;
        for (;;) {
            CHECK(rc_query_next(query, &chunk, &more));
            if (!more) break;
            Position *ps = chunk.columns[0];
            const Velocity *vs = chunk.columns[1];
            for (uint32_t i = 0; i < chunk.count; ++i) {
                Position *p = &ps[chunk.rows ? chunk.rows[0][i] : i];
                const Velocity *v = &vs[chunk.rows ? chunk.rows[1][i] : i];
                p->x += v->dx;
                p->y += v->dy;
            }
        }
    }
    uint64_t hash = 0;
    CHECK(rc_world_hash(world, &hash));
    printf("frames: 10, world hash %016llx\n", (unsigned long long)hash);
    rc_query_destroy(query);
    rc_world_destroy(world);
    rc_schema_destroy(schema);
    return 0;
}
