// The C API's answers to misuse (docs/c-api.md): every case returns its status code, leaves a
// message that says what was wrong in the right place (the handle's, or rc_last_error() when
// there is no handle), and leaves the state as it was. None of it may reach retcon's
// process-wide misuse handler, which belongs to the game: each case installs a counting handler
// first and checks at the end that it was never called and is still the one installed.
#include <retcon.h>
#include <retcon/config.hpp>

#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "common/temp_dir.hpp"
#include "misuse_checks.hpp"
#include "test_types.hpp"

using Catch::Matchers::Contains;

namespace {

// ------------------------------------------------------------------ the schema used throughout

using namespace retcon::capi_test;

struct other_res {
    std::int32_t value;
};

const rc_field other_fields[] = {RC_FIELD(other_res, value, RC_I32)};

rc_type_desc desc(const char *name, std::uint32_t size, const rc_field *fields, std::uint32_t count) {
    return rc_type_desc{sizeof(rc_type_desc), name, size, fields, count};
}

std::uint32_t declare_component(rc_schema *s, const rc_type_desc &d) {
    std::uint32_t id = 0xFFFFFFFFu;
    const rc_status st = rc_schema_component(s, &d, &id);
    INFO(rc_schema_last_error(s));
    REQUIRE(st == RC_OK);
    return id;
}

std::uint32_t declare_resource(rc_schema *s, const rc_type_desc &d) {
    std::uint32_t id = 0xFFFFFFFFu;
    const rc_status st = rc_schema_resource(s, &d, &id);
    INFO(rc_schema_last_error(s));
    REQUIRE(st == RC_OK);
    return id;
}

std::uint64_t schema_hash(const rc_schema *s) {
    std::uint64_t h = 0;
    REQUIRE(rc_schema_hash(s, &h) == RC_OK);
    return h;
}

/// Everything a failed call must leave as it was.
struct world_state {
    std::uint64_t hash = 0;
    std::uint64_t alive = 0;
    std::vector<std::uint64_t> sections;
    bool operator==(const world_state &) const = default;
};

/// A world of schema {pos, counter, frozen (tag), vel; group {pos, vel}; resources clock, other}
/// with three live entities, one destroyed, the clock set and `other` unset.
class fixture {
public:
    fixture() {
        REQUIRE(rc_schema_create(&schema) == RC_OK);
        c_pos = declare_component(schema, desc("pos", sizeof(pos), pos_fields, 2));
        c_counter = declare_component(schema, desc("counter", sizeof(counter), counter_fields, 3));
        c_frozen = declare_component(schema, desc("frozen", 0, nullptr, 0));
        c_vel = declare_component(schema, desc("vel", sizeof(vel), vel_fields, 2));
        const std::uint32_t grouped[] = {c_pos, c_vel};
        REQUIRE(rc_schema_group(schema, grouped, 2) == RC_OK);
        r_clock = declare_resource(schema, desc("clock", sizeof(clock_res), clock_fields, 1));
        r_other = declare_resource(schema, desc("other", sizeof(other_res), other_fields, 1));
        world = make_world();
        for (auto &e : live) REQUIRE(rc_entity_create(world, &e) == RC_OK);
        REQUIRE(rc_entity_create(world, &dead) == RC_OK);
        REQUIRE(rc_entity_destroy(world, dead) == RC_OK);
        const pos p{1.5f, -2.0f};
        const counter c{7, 0, 1234};
        const vel v{0.25f, 0.5f};
        REQUIRE(rc_component_add(world, live[0], c_pos, &p, sizeof p) == RC_OK);
        REQUIRE(rc_component_add(world, live[0], c_counter, &c, sizeof c) == RC_OK);
        REQUIRE(rc_component_add(world, live[0], c_vel, &v, sizeof v) == RC_OK);
        REQUIRE(rc_component_add(world, live[1], c_pos, &p, sizeof p) == RC_OK);
        REQUIRE(rc_component_add(world, live[1], c_frozen, nullptr, 0) == RC_OK);
        REQUIRE(rc_component_add(world, live[2], c_counter, &c, sizeof c) == RC_OK);
        const clock_res clk{99};
        REQUIRE(rc_resource_set(world, r_clock, &clk, sizeof clk) == RC_OK);
    }
    ~fixture() {
        rc_world_destroy(world);
        rc_schema_destroy(schema);
    }
    fixture(const fixture &) = delete;
    fixture &operator=(const fixture &) = delete;

    rc_world *make_world() const {
        rc_world *w = nullptr;
        REQUIRE(rc_world_create(schema, &w) == RC_OK);
        REQUIRE(w != nullptr);
        return w;
    }

    [[nodiscard]] world_state state() const { return state_of(world); }
    static world_state state_of(const rc_world *w) {
        world_state s;
        REQUIRE(rc_world_hash(w, &s.hash) == RC_OK);
        REQUIRE(rc_world_alive(w, &s.alive) == RC_OK);
        std::size_t needed = 0;
        (void)rc_world_section_hashes(w, nullptr, 0, &needed);
        s.sections.resize(needed);
        REQUIRE(rc_world_section_hashes(w, s.sections.data(), s.sections.size(), &needed) == RC_OK);
        return s;
    }

    std::vector<unsigned char> image(rc_frame frame) const {
        std::size_t needed = 0;
        (void)rc_world_save_image(world, frame, nullptr, 0, &needed);
        std::vector<unsigned char> bytes(needed);
        REQUIRE(rc_world_save_image(world, frame, bytes.data(), bytes.size(), &needed) == RC_OK);
        REQUIRE(needed == bytes.size());
        return bytes;
    }

    handler_guard handler; // first: installed before any C call
    rc_schema *schema = nullptr;
    rc_world *world = nullptr;
    std::uint32_t c_pos = 0, c_counter = 0, c_frozen = 0, c_vel = 0;
    std::uint32_t r_clock = 0, r_other = 0;
    rc_entity live[3] = {RC_NULL_ENTITY, RC_NULL_ENTITY, RC_NULL_ENTITY};
    rc_entity dead = RC_NULL_ENTITY;
};

/// A schema that differs from the fixture's (one component, another name).
rc_schema *other_schema() {
    rc_schema *s = nullptr;
    REQUIRE(rc_schema_create(&s) == RC_OK);
    (void)declare_component(s, desc("elsewhere", sizeof(vel), vel_fields, 2));
    return s;
}

std::vector<char> read_file(const std::filesystem::path &path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const std::filesystem::path &path, const std::vector<char> &bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    REQUIRE(out.good());
}

constexpr std::size_t players = 2;
constexpr std::size_t input_size = 4;
constexpr std::size_t record_size = players * (1 + input_size);

rc_replay_settings replay_settings() {
    rc_replay_settings s{};
    s.struct_size = sizeof s;
    REQUIRE(rc_replay_settings_default(&s) == RC_OK);
    s.players = players;
    s.input_size = input_size;
    s.keyframe_interval = 4;
    s.frames_per_chunk = 4;
    return s;
}

/// The step used for replays here: adds the present inputs to the clock.
int clock_step(rc_world *w, const rc_frame_inputs *inputs, void *user) {
    const auto clock = *static_cast<const std::uint32_t *>(user);
    if (inputs->record_size != record_size || inputs->players != players || inputs->input_size != input_size) return 1;
    void *p = nullptr;
    if (rc_resource_get(w, clock, &p) != RC_OK) return 1;
    for (std::size_t s = 0; s < players; ++s) {
        if (!inputs->flags[s]) continue;
        std::int32_t in = 0;
        std::memcpy(&in, inputs->inputs + s * input_size, input_size);
        static_cast<clock_res *>(p)->ticks += static_cast<std::uint64_t>(in) + 1u;
    }
    return 0;
}

int failing_step(rc_world *, const rc_frame_inputs *inputs, void *) { return inputs->frame >= 3 ? 7 : 0; }

/// The C view of frame @p f's @p record, as retcon hands it to a step.
rc_frame_inputs inputs_of(rc_frame f, const std::vector<unsigned char> &record) {
    return {f,
            static_cast<std::uint32_t>(players),
            static_cast<std::uint32_t>(input_size),
            record.data(),
            record.data() + players,
            record.data(),
            record.size()};
}

std::vector<unsigned char> record_for(rc_frame f) {
    std::vector<unsigned char> r(record_size, 0);
    r[0] = 1;
    r[1] = f % 2 == 0 ? 1 : 0;
    const std::int32_t a = static_cast<std::int32_t>(f) * 3;
    const std::int32_t b = 5;
    std::memcpy(r.data() + players, &a, input_size);
    if (r[1]) std::memcpy(r.data() + players + input_size, &b, input_size);
    return r;
}

/// Records a replay of @p f's world over @p frames frames into @p path.
void record_replay(fixture &f, const std::filesystem::path &path, rc_frame frames) {
    const rc_replay_settings settings = replay_settings();
    rc_replay_writer *writer = nullptr;
    REQUIRE_OK(rc_replay_writer_create(path.c_str(), f.world, 0, &settings, &writer), rc_last_error());
    for (rc_frame fr = 0; fr < frames; ++fr) {
        const auto record = record_for(fr);
        const rc_frame_inputs inputs = inputs_of(fr, record);
        REQUIRE(clock_step(f.world, &inputs, &f.r_clock) == 0);
        REQUIRE_OK(rc_replay_writer_add_frame(writer, record.data(), record.size(), f.world),
                   rc_replay_writer_last_error(writer));
    }
    REQUIRE_OK(rc_replay_writer_finish(writer), rc_replay_writer_last_error(writer));
    rc_replay_writer_destroy(writer);
}

} // namespace

// =================================================================== NULL handles

TEST_CASE("capi misuse: a NULL schema is refused by every schema call", "[capi][misuse]") {
    handler_guard handler;
    const rc_type_desc d = desc("pos", sizeof(pos), pos_fields, 2);
    std::uint32_t id = 77;
    std::uint64_t h = 0;
    std::size_t needed = 0;
    const std::uint32_t ids[] = {0, 1};
    rc_schema *real = other_schema();
    REQUIRE_FAILS(rc_schema_record(nullptr, &d, &id), RC_ERR_NULL, rc_last_error(), "schema is NULL");
    REQUIRE_FAILS(rc_schema_component(nullptr, &d, &id), RC_ERR_NULL, rc_last_error(), "schema is NULL");
    REQUIRE_FAILS(rc_schema_resource(nullptr, &d, &id), RC_ERR_NULL, rc_last_error(), "schema is NULL");
    REQUIRE_FAILS(rc_schema_group(nullptr, ids, 2), RC_ERR_NULL, rc_last_error(), "schema is NULL");
    REQUIRE_FAILS(rc_schema_hash(nullptr, &h), RC_ERR_NULL, rc_last_error(), "schema is NULL");
    REQUIRE_FAILS(rc_schema_differences(nullptr, real, nullptr, 0, &needed), RC_ERR_NULL, rc_last_error(), "NULL");
    REQUIRE_FAILS(rc_schema_differences(real, nullptr, nullptr, 0, &needed), RC_ERR_NULL, rc_last_error(), "NULL");
    rc_world *w = nullptr;
    REQUIRE_FAILS(rc_world_create(nullptr, &w), RC_ERR_NULL, rc_last_error(), "schema is NULL");
    CHECK(w == nullptr);
    CHECK(id == 77);
    CHECK(h == 0);
    CHECK(std::strlen(rc_schema_last_error(nullptr)) > 0);
    rc_schema_destroy(nullptr); // a no-op
    rc_schema_destroy(real);
    handler.check();
}

TEST_CASE("capi misuse: a NULL world is refused by every world call", "[capi][misuse]") {
    handler_guard handler;
    rc_entity e = 5;
    std::uint64_t n = 3;
    void *p = &n;
    int has = 4;
    const pos v{1, 2};
    std::size_t needed = 9;
    unsigned char buffer[64];
    rc_frame frame = 11;
    const std::uint32_t include[] = {0};
    const rc_query_desc qd{sizeof(rc_query_desc), include, 1, nullptr, 0};
    rc_query *q = nullptr;
    REQUIRE_FAILS(rc_entity_create(nullptr, &e), RC_ERR_NULL, rc_last_error(), "world is NULL");
    REQUIRE_FAILS(rc_entity_destroy(nullptr, 0), RC_ERR_NULL, rc_last_error(), "world is NULL");
    CHECK(rc_entity_valid(nullptr, 0) == 0);
    REQUIRE_FAILS(rc_world_alive(nullptr, &n), RC_ERR_NULL, rc_last_error(), "world is NULL");
    REQUIRE_FAILS(rc_component_add(nullptr, 0, 0, &v, sizeof v), RC_ERR_NULL, rc_last_error(), "world is NULL");
    REQUIRE_FAILS(rc_component_get(nullptr, 0, 0, &p), RC_ERR_NULL, rc_last_error(), "world is NULL");
    REQUIRE_FAILS(rc_component_remove(nullptr, 0, 0), RC_ERR_NULL, rc_last_error(), "world is NULL");
    REQUIRE_FAILS(rc_component_has(nullptr, 0, 0, &has), RC_ERR_NULL, rc_last_error(), "world is NULL");
    REQUIRE_FAILS(rc_resource_set(nullptr, 0, &v, sizeof v), RC_ERR_NULL, rc_last_error(), "world is NULL");
    REQUIRE_FAILS(rc_resource_get(nullptr, 0, &p), RC_ERR_NULL, rc_last_error(), "world is NULL");
    REQUIRE_FAILS(rc_resource_unset(nullptr, 0), RC_ERR_NULL, rc_last_error(), "world is NULL");
    REQUIRE_FAILS(rc_query_create(nullptr, &qd, &q), RC_ERR_NULL, rc_last_error(), "world is NULL");
    REQUIRE_FAILS(rc_world_hash(nullptr, &n), RC_ERR_NULL, rc_last_error(), "world is NULL");
    REQUIRE_FAILS(rc_world_section_hashes(nullptr, &n, 1, &needed), RC_ERR_NULL, rc_last_error(), "world is NULL");
    REQUIRE_FAILS(rc_world_save_image(nullptr, 0, buffer, sizeof buffer, &needed), RC_ERR_NULL, rc_last_error(),
                  "world is NULL");
    REQUIRE_FAILS(rc_world_load_image(nullptr, buffer, sizeof buffer, &frame), RC_ERR_NULL, rc_last_error(),
                  "world is NULL");
    REQUIRE_FAILS(rc_snapshot_file_write(nullptr, "unused.rcs", 0, 1), RC_ERR_NULL, rc_last_error(), "world is NULL");
    REQUIRE_FAILS(rc_snapshot_file_load(nullptr, "unused.rcs", &frame), RC_ERR_NULL, rc_last_error(), "world is NULL");
    CHECK(e == 5);
    CHECK(n == 3);
    CHECK(has == 4);
    CHECK(needed == 9);
    CHECK(frame == 11);
    CHECK(q == nullptr);
    CHECK(std::strlen(rc_world_last_error(nullptr)) > 0);
    rc_world_destroy(nullptr);
    handler.check();
}

TEST_CASE("capi misuse: a NULL query is refused", "[capi][misuse]") {
    handler_guard handler;
    rc_chunk chunk{};
    int has = 3;
    REQUIRE_FAILS(rc_query_next(nullptr, &chunk, &has), RC_ERR_NULL, rc_last_error(), "query is NULL");
    CHECK(has == 3);
    CHECK(std::strlen(rc_query_last_error(nullptr)) > 0);
    rc_query_destroy(nullptr);
    handler.check();
}

TEST_CASE("capi misuse: a NULL ring is refused, and so is a NULL world given to a ring", "[capi][misuse]") {
    fixture f;
    const world_state before = f.state();
    REQUIRE_FAILS(rc_ring_save(nullptr, f.world, 1), RC_ERR_NULL, rc_last_error(), "ring is NULL");
    REQUIRE_FAILS(rc_ring_restore(nullptr, f.world, 1), RC_ERR_NULL, rc_last_error(), "ring is NULL");
    rc_ring *ring = nullptr;
    REQUIRE(rc_ring_create(4, &ring) == RC_OK);
    REQUIRE_OK(rc_ring_save(ring, f.world, 1), rc_ring_last_error(ring));
    REQUIRE_FAILS(rc_ring_save(ring, nullptr, 2), RC_ERR_NULL, rc_ring_last_error(ring), "world is NULL");
    REQUIRE_FAILS(rc_ring_restore(ring, nullptr, 1), RC_ERR_NULL, rc_ring_last_error(ring), "world is NULL");
    CHECK(std::strlen(rc_ring_last_error(nullptr)) > 0);
    rc_ring_destroy(nullptr);
    rc_ring_destroy(ring);
    CHECK(f.state() == before);
    f.handler.check();
}

TEST_CASE("capi misuse: a NULL replay is refused by every replay call", "[capi][misuse]") {
    fixture f;
    const world_state before = f.state();
    rc_replay_info info{};
    info.struct_size = sizeof info;
    const void *record = nullptr;
    std::size_t size = 0;
    std::uint64_t h = 0;
    rc_frame frame = 0;
    rc_verify_report report{};
    report.struct_size = sizeof report;
    REQUIRE_FAILS(rc_replay_get_info(nullptr, &info), RC_ERR_NULL, rc_last_error(), "replay is NULL");
    REQUIRE_FAILS(rc_replay_inputs(nullptr, 0, &record, &size), RC_ERR_NULL, rc_last_error(), "replay is NULL");
    REQUIRE_FAILS(rc_replay_hash(nullptr, 0, &h), RC_ERR_NULL, rc_last_error(), "replay is NULL");
    REQUIRE_FAILS(rc_replay_keyframe_frame(nullptr, 0, &frame), RC_ERR_NULL, rc_last_error(), "replay is NULL");
    REQUIRE_FAILS(rc_replay_seek(nullptr, f.world, 0, &frame), RC_ERR_NULL, rc_last_error(), "replay is NULL");
    REQUIRE_FAILS(rc_replay_verify(nullptr, f.world, clock_step, &f.r_clock, &report), RC_ERR_NULL, rc_last_error(),
                  "replay is NULL");
    CHECK(std::strlen(rc_replay_last_error(nullptr)) > 0);
    rc_replay_close(nullptr);
    CHECK(record == nullptr);
    CHECK(f.state() == before);
    f.handler.check();
}

TEST_CASE("capi misuse: a NULL replay writer is refused", "[capi][misuse]") {
    fixture f;
    const world_state before = f.state();
    const auto record = record_for(0);
    REQUIRE_FAILS(rc_replay_writer_add_frame(nullptr, record.data(), record.size(), f.world), RC_ERR_NULL,
                  rc_last_error(), "writer is NULL");
    REQUIRE_FAILS(rc_replay_writer_finish(nullptr), RC_ERR_NULL, rc_last_error(), "writer is NULL");
    CHECK(std::strlen(rc_replay_writer_last_error(nullptr)) > 0);
    rc_replay_writer_destroy(nullptr);
    CHECK(f.state() == before);
    f.handler.check();
}

TEST_CASE("capi misuse: a NULL diff is refused", "[capi][misuse]") {
    handler_guard handler;
    rc_diff_summary summary{};
    summary.struct_size = sizeof summary;
    rc_pool_diff pool{};
    pool.struct_size = sizeof pool;
    std::size_t needed = 0;
    // One message covers both pointers ("diff or out is NULL"): it must name the diff.
    REQUIRE_FAILS(rc_diff_get_summary(nullptr, &summary), RC_ERR_NULL, rc_last_error(), "NULL");
    CHECK_THAT(text_of(rc_last_error()), Contains("diff"));
    REQUIRE_FAILS(rc_diff_pool(nullptr, 0, &pool), RC_ERR_NULL, rc_last_error(), "NULL");
    CHECK_THAT(text_of(rc_last_error()), Contains("diff"));
    REQUIRE_FAILS(rc_diff_json(nullptr, nullptr, 0, &needed), RC_ERR_NULL, rc_last_error(), "diff is NULL");
    rc_diff_destroy(nullptr);
    handler.check();
}

// =================================================================== NULL out pointers and arguments

TEST_CASE("capi misuse: NULL out pointers are refused and change nothing", "[capi][misuse]") {
    fixture f;
    const world_state before = f.state();
    const pos v{1, 2};
    REQUIRE_FAILS(rc_schema_create(nullptr), RC_ERR_NULL, rc_last_error(), "out is NULL");
    REQUIRE_FAILS(rc_world_create(f.schema, nullptr), RC_ERR_NULL, rc_last_error(), "out is NULL");
    REQUIRE_FAILS(rc_ring_create(4, nullptr), RC_ERR_NULL, rc_last_error(), "NULL");
    REQUIRE_FAILS(rc_entity_create(f.world, nullptr), RC_ERR_NULL, rc_world_last_error(f.world), "out is NULL");
    REQUIRE_FAILS(rc_world_alive(f.world, nullptr), RC_ERR_NULL, rc_world_last_error(f.world), "NULL");
    REQUIRE_FAILS(rc_component_get(f.world, f.live[0], f.c_pos, nullptr), RC_ERR_NULL, rc_world_last_error(f.world),
                  "out is NULL");
    REQUIRE_FAILS(rc_component_has(f.world, f.live[0], f.c_pos, nullptr), RC_ERR_NULL, rc_world_last_error(f.world),
                  "out is NULL");
    REQUIRE_FAILS(rc_resource_get(f.world, f.r_clock, nullptr), RC_ERR_NULL, rc_world_last_error(f.world),
                  "out is NULL");
    REQUIRE_FAILS(rc_world_hash(f.world, nullptr), RC_ERR_NULL, rc_world_last_error(f.world), "NULL");
    REQUIRE_FAILS(rc_world_section_hashes(f.world, nullptr, 0, nullptr), RC_ERR_NULL, rc_world_last_error(f.world),
                  "needed is NULL");
    REQUIRE_FAILS(rc_world_save_image(f.world, 0, nullptr, 0, nullptr), RC_ERR_NULL, rc_world_last_error(f.world),
                  "needed is NULL");
    const std::uint32_t include[] = {f.c_pos};
    const rc_query_desc qd{sizeof(rc_query_desc), include, 1, nullptr, 0};
    REQUIRE_FAILS(rc_query_create(f.world, &qd, nullptr), RC_ERR_NULL, rc_world_last_error(f.world), "NULL");
    REQUIRE_FAILS(rc_query_create(f.world, nullptr, nullptr), RC_ERR_NULL, rc_world_last_error(f.world), "NULL");
    rc_query *q = nullptr;
    REQUIRE(rc_query_create(f.world, &qd, &q) == RC_OK);
    rc_chunk chunk{};
    int has = 0;
    REQUIRE_FAILS(rc_query_next(q, nullptr, &has), RC_ERR_NULL, rc_query_last_error(q), "NULL");
    REQUIRE_FAILS(rc_query_next(q, &chunk, nullptr), RC_ERR_NULL, rc_query_last_error(q), "NULL");
    rc_query_destroy(q);
    std::uint32_t id = 0;
    const rc_type_desc d = desc("fresh", sizeof(vel), vel_fields, 2);
    const std::uint64_t hash_before = schema_hash(f.schema);
    REQUIRE_FAILS(rc_schema_component(f.schema, &d, nullptr), RC_ERR_NULL, rc_schema_last_error(f.schema), "NULL");
    REQUIRE_FAILS(rc_schema_component(f.schema, nullptr, &id), RC_ERR_NULL, rc_schema_last_error(f.schema), "NULL");
    REQUIRE_FAILS(rc_schema_resource(f.schema, &d, nullptr), RC_ERR_NULL, rc_schema_last_error(f.schema), "NULL");
    REQUIRE_FAILS(rc_schema_record(f.schema, &d, nullptr), RC_ERR_NULL, rc_schema_last_error(f.schema), "NULL");
    REQUIRE_FAILS(rc_schema_group(f.schema, nullptr, 2), RC_ERR_NULL, rc_schema_last_error(f.schema), "NULL");
    REQUIRE_FAILS(rc_schema_hash(f.schema, nullptr), RC_ERR_NULL, rc_schema_last_error(f.schema), "NULL");
    CHECK(schema_hash(f.schema) == hash_before);
    // A NULL value with the declared size, and a NULL path.
    REQUIRE_FAILS(rc_component_add(f.world, f.live[2], f.c_pos, nullptr, sizeof v), RC_ERR_NULL,
                  rc_world_last_error(f.world), "value is NULL");
    REQUIRE_FAILS(rc_resource_set(f.world, f.r_other, nullptr, sizeof(other_res)), RC_ERR_NULL,
                  rc_world_last_error(f.world), "value is NULL");
    rc_frame frame = 0;
    REQUIRE_FAILS(rc_snapshot_file_write(f.world, nullptr, 0, 1), RC_ERR_NULL, rc_world_last_error(f.world), "path");
    REQUIRE_FAILS(rc_snapshot_file_load(f.world, nullptr, &frame), RC_ERR_NULL, rc_world_last_error(f.world), "path");
    REQUIRE_FAILS(rc_snapshot_file_check(nullptr), RC_ERR_NULL, rc_last_error(), "path");
    rc_replay *replay = nullptr;
    REQUIRE_FAILS(rc_replay_open(nullptr, &replay), RC_ERR_NULL, rc_last_error(), "path");
    rc_diff *diff = nullptr;
    REQUIRE_FAILS(rc_diff_files(nullptr, "b.rcs", &diff), RC_ERR_NULL, rc_last_error(), "NULL");
    REQUIRE_FAILS(rc_replay_settings_default(nullptr), RC_ERR_NULL, rc_last_error(), "NULL");
    CHECK(replay == nullptr);
    CHECK(diff == nullptr);
    CHECK(f.state() == before);
    f.handler.check();
}

// =================================================================== ids out of range

TEST_CASE("capi misuse: a component id at or past the count is refused", "[capi][misuse]") {
    fixture f;
    const world_state before = f.state();
    const pos v{1, 2};
    void *p = nullptr;
    int has = 0;
    for (const std::uint32_t bad : {4u, 5u, 0xFFFFFFFFu}) {
        INFO("component id " << bad);
        REQUIRE_FAILS(rc_component_add(f.world, f.live[2], bad, &v, sizeof v), RC_ERR_ARGUMENT,
                      rc_world_last_error(f.world), "component id");
        REQUIRE_FAILS(rc_component_get(f.world, f.live[0], bad, &p), RC_ERR_ARGUMENT, rc_world_last_error(f.world),
                      "component id");
        REQUIRE_FAILS(rc_component_remove(f.world, f.live[0], bad), RC_ERR_ARGUMENT, rc_world_last_error(f.world),
                      "component id");
        REQUIRE_FAILS(rc_component_has(f.world, f.live[0], bad, &has), RC_ERR_ARGUMENT, rc_world_last_error(f.world),
                      "component id");
        const std::uint32_t include[] = {f.c_pos, bad};
        const rc_query_desc in{sizeof(rc_query_desc), include, 2, nullptr, 0};
        rc_query *q = nullptr;
        REQUIRE_FAILS(rc_query_create(f.world, &in, &q), RC_ERR_ARGUMENT, rc_world_last_error(f.world), "component");
        CHECK(q == nullptr);
        const std::uint32_t exclude[] = {bad};
        const rc_query_desc ex{sizeof(rc_query_desc), include, 1, exclude, 1};
        REQUIRE_FAILS(rc_query_create(f.world, &ex, &q), RC_ERR_ARGUMENT, rc_world_last_error(f.world), "component");
        CHECK(q == nullptr);
    }
    CHECK(p == nullptr);
    CHECK(f.state() == before);
    f.handler.check();
}

TEST_CASE("capi misuse: a resource id at or past the count is refused", "[capi][misuse]") {
    fixture f;
    const world_state before = f.state();
    const clock_res v{5};
    void *p = nullptr;
    for (const std::uint32_t bad : {2u, 3u, 0xFFFFFFFFu}) {
        INFO("resource id " << bad);
        REQUIRE_FAILS(rc_resource_set(f.world, bad, &v, sizeof v), RC_ERR_ARGUMENT, rc_world_last_error(f.world),
                      "resource id");
        REQUIRE_FAILS(rc_resource_get(f.world, bad, &p), RC_ERR_ARGUMENT, rc_world_last_error(f.world), "resource id");
        REQUIRE_FAILS(rc_resource_unset(f.world, bad), RC_ERR_ARGUMENT, rc_world_last_error(f.world), "resource id");
    }
    CHECK(p == nullptr);
    CHECK(f.state() == before);
    f.handler.check();
}

TEST_CASE("capi misuse: query descriptions with bad counts or struct_size are refused", "[capi][misuse]") {
    fixture f;
    const world_state before = f.state();
    std::uint32_t many[17];
    for (auto &m : many) m = f.c_pos;
    rc_query *q = nullptr;
    const rc_query_desc none{sizeof(rc_query_desc), many, 0, nullptr, 0};
    REQUIRE_FAILS(rc_query_create(f.world, &none, &q), RC_ERR_ARGUMENT, rc_world_last_error(f.world), "include");
    const rc_query_desc too_many{sizeof(rc_query_desc), many, 17, nullptr, 0};
    REQUIRE_FAILS(rc_query_create(f.world, &too_many, &q), RC_ERR_ARGUMENT, rc_world_last_error(f.world), "include");
    const rc_query_desc too_many_ex{sizeof(rc_query_desc), many, 1, many, 17};
    REQUIRE_FAILS(rc_query_create(f.world, &too_many_ex, &q), RC_ERR_ARGUMENT, rc_world_last_error(f.world), "exclude");
    const rc_query_desc null_include{sizeof(rc_query_desc), nullptr, 1, nullptr, 0};
    REQUIRE_FAILS(rc_query_create(f.world, &null_include, &q), RC_ERR_NULL, rc_world_last_error(f.world), "include");
    const rc_query_desc null_exclude{sizeof(rc_query_desc), many, 1, nullptr, 1};
    REQUIRE_FAILS(rc_query_create(f.world, &null_exclude, &q), RC_ERR_NULL, rc_world_last_error(f.world), "exclude");
    for (const std::uint32_t size : {0u, 4u, static_cast<std::uint32_t>(sizeof(rc_query_desc) - 1)}) {
        const rc_query_desc small{size, many, 1, nullptr, 0};
        REQUIRE_FAILS(rc_query_create(f.world, &small, &q), RC_ERR_ARGUMENT, rc_world_last_error(f.world),
                      "struct_size");
    }
    CHECK(q == nullptr);
    CHECK(f.state() == before);
    f.handler.check();
}

// =================================================================== sizes

TEST_CASE("capi misuse: rc_component_add with a size other than the declared one", "[capi][misuse]") {
    fixture f;
    const world_state before = f.state();
    const unsigned char bytes[64] = {};
    for (const std::size_t size : {std::size_t{0}, sizeof(pos) - 1, sizeof(pos) + 1, sizeof bytes}) {
        INFO("size " << size);
        REQUIRE_FAILS(rc_component_add(f.world, f.live[2], f.c_pos, bytes, size), RC_ERR_SIZE,
                      rc_world_last_error(f.world), "pos");
        CHECK_THAT(text_of(rc_world_last_error(f.world)), Contains(std::to_string(sizeof(pos))));
    }
    int has = 1;
    REQUIRE(rc_component_has(f.world, f.live[2], f.c_pos, &has) == RC_OK);
    CHECK(has == 0);
    CHECK(f.state() == before);
    f.handler.check();
}

TEST_CASE("capi misuse: a non-zero size for a tag", "[capi][misuse]") {
    fixture f;
    const world_state before = f.state();
    const unsigned char byte = 1;
    REQUIRE_FAILS(rc_component_add(f.world, f.live[0], f.c_frozen, &byte, 1), RC_ERR_SIZE, rc_world_last_error(f.world),
                  "frozen");
    int has = 1;
    REQUIRE(rc_component_has(f.world, f.live[0], f.c_frozen, &has) == RC_OK);
    CHECK(has == 0);
    CHECK(f.state() == before);
    f.handler.check();
}

TEST_CASE("capi misuse: rc_resource_set with a size other than the declared one", "[capi][misuse]") {
    fixture f;
    const world_state before = f.state();
    const unsigned char bytes[16] = {1, 2, 3};
    REQUIRE_FAILS(rc_resource_set(f.world, f.r_clock, bytes, 4), RC_ERR_SIZE, rc_world_last_error(f.world), "clock");
    REQUIRE_FAILS(rc_resource_set(f.world, f.r_other, bytes, 0), RC_ERR_SIZE, rc_world_last_error(f.world), "other");
    void *p = nullptr;
    REQUIRE(rc_resource_get(f.world, f.r_other, &p) == RC_ERR_NO_COMPONENT);
    CHECK(f.state() == before);
    f.handler.check();
}

// =================================================================== entities

TEST_CASE("capi misuse: stale entity handles are refused by every entity call", "[capi][misuse]") {
    fixture f;
    // Another world with more entities: its fifth is not live here.
    rc_world *other = f.make_world();
    rc_entity foreign = RC_NULL_ENTITY;
    for (int i = 0; i < 5; ++i) REQUIRE(rc_entity_create(other, &foreign) == RC_OK);
    // A destroyed handle whose slot was reused: the old handle stays stale.
    rc_entity reused_old = RC_NULL_ENTITY, reused_new = RC_NULL_ENTITY;
    REQUIRE(rc_entity_create(f.world, &reused_old) == RC_OK);
    REQUIRE(rc_entity_destroy(f.world, reused_old) == RC_OK);
    REQUIRE(rc_entity_create(f.world, &reused_new) == RC_OK);
    REQUIRE(rc_entity_valid(f.world, reused_new) == 1);
    const world_state before = f.state();

    const pos v{1, 2};
    void *p = nullptr;
    int has = 7;
    struct named {
        const char *what;
        rc_entity e;
    };
    const named cases[] = {
        {"destroyed", f.dead},
        {"destroyed, slot reused", reused_old},
        {"never created", rc_entity{1000}},
        {"RC_NULL_ENTITY", RC_NULL_ENTITY},
        {"from another world", foreign},
        {"above 32 bits", (rc_entity{1} << 32) | f.live[0]},
    };
    for (const auto &c : cases) {
        INFO(c.what << " (" << c.e << ")");
        CHECK(rc_entity_valid(f.world, c.e) == 0);
        REQUIRE_FAILS(rc_entity_destroy(f.world, c.e), RC_ERR_STALE_ENTITY, rc_world_last_error(f.world), "not live");
        REQUIRE_FAILS(rc_component_add(f.world, c.e, f.c_pos, &v, sizeof v), RC_ERR_STALE_ENTITY,
                      rc_world_last_error(f.world), "not live");
        REQUIRE_FAILS(rc_component_get(f.world, c.e, f.c_pos, &p), RC_ERR_STALE_ENTITY, rc_world_last_error(f.world),
                      "not live");
        REQUIRE_FAILS(rc_component_remove(f.world, c.e, f.c_pos), RC_ERR_STALE_ENTITY, rc_world_last_error(f.world),
                      "not live");
        REQUIRE_FAILS(rc_component_has(f.world, c.e, f.c_pos, &has), RC_ERR_STALE_ENTITY, rc_world_last_error(f.world),
                      "not live");
        REQUIRE_FAILS(rc_component_add(f.world, c.e, f.c_frozen, nullptr, 0), RC_ERR_STALE_ENTITY,
                      rc_world_last_error(f.world), "not live");
    }
    CHECK(p == nullptr);
    CHECK(has == 7);
    CHECK(rc_entity_valid(other, foreign) == 1);
    CHECK(f.state() == before);
    rc_world_destroy(other);
    f.handler.check();
}

TEST_CASE("capi misuse: adding a component twice", "[capi][misuse]") {
    fixture f;
    const world_state before = f.state();
    const pos v{9, 9};
    REQUIRE_FAILS(rc_component_add(f.world, f.live[0], f.c_pos, &v, sizeof v), RC_ERR_ALREADY_PRESENT,
                  rc_world_last_error(f.world), "already has pos");
    REQUIRE_FAILS(rc_component_add(f.world, f.live[1], f.c_frozen, nullptr, 0), RC_ERR_ALREADY_PRESENT,
                  rc_world_last_error(f.world), "already has frozen");
    void *p = nullptr;
    REQUIRE(rc_component_get(f.world, f.live[0], f.c_pos, &p) == RC_OK);
    CHECK(static_cast<pos *>(p)->x == 1.5f); // not overwritten
    CHECK(f.state() == before);
    f.handler.check();
}

TEST_CASE("capi misuse: get and remove of a component the entity does not have", "[capi][misuse]") {
    fixture f;
    const world_state before = f.state();
    void *p = nullptr;
    REQUIRE_FAILS(rc_component_get(f.world, f.live[2], f.c_pos, &p), RC_ERR_NO_COMPONENT, rc_world_last_error(f.world),
                  "has no pos");
    REQUIRE_FAILS(rc_component_remove(f.world, f.live[2], f.c_pos), RC_ERR_NO_COMPONENT, rc_world_last_error(f.world),
                  "has no pos");
    REQUIRE_FAILS(rc_component_remove(f.world, f.live[0], f.c_frozen), RC_ERR_NO_COMPONENT,
                  rc_world_last_error(f.world), "has no frozen");
    CHECK(p == nullptr);
    CHECK(f.state() == before);
    f.handler.check();
}

TEST_CASE("capi misuse: get of a tag's value", "[capi][misuse]") {
    fixture f;
    const world_state before = f.state();
    void *p = nullptr;
    REQUIRE_FAILS(rc_component_get(f.world, f.live[1], f.c_frozen, &p), RC_ERR_ARGUMENT, rc_world_last_error(f.world),
                  "tag");
    CHECK_THAT(text_of(rc_world_last_error(f.world)), Contains("frozen"));
    CHECK(p == nullptr);
    CHECK(f.state() == before);
    f.handler.check();
}

TEST_CASE("capi misuse: rc_resource_get of an unset resource", "[capi][misuse]") {
    fixture f;
    const world_state before = f.state();
    void *p = nullptr;
    REQUIRE_FAILS(rc_resource_get(f.world, f.r_other, &p), RC_ERR_NO_COMPONENT, rc_world_last_error(f.world),
                  "other is not set");
    CHECK(p == nullptr);
    CHECK(f.state() == before);
    // Unset it again (it is not set): allowed, nothing changes.
    REQUIRE_OK(rc_resource_unset(f.world, f.r_other), rc_world_last_error(f.world));
    CHECK(f.state() == before);
    // And after an unset of a set resource, get fails the same way.
    REQUIRE_OK(rc_resource_unset(f.world, f.r_clock), rc_world_last_error(f.world));
    REQUIRE_FAILS(rc_resource_get(f.world, f.r_clock, &p), RC_ERR_NO_COMPONENT, rc_world_last_error(f.world),
                  "clock is not set");
    f.handler.check();
}

TEST_CASE("capi: rc_component_add copies a value that lives in the world's own pool", "[capi][misuse]") {
    // The value pointer comes from rc_component_get on the same pool; the add grows that pool.
    fixture f;
    std::vector<rc_entity> fresh(40);
    for (auto &e : fresh) {
        REQUIRE(rc_entity_create(f.world, &e) == RC_OK);
        void *source = nullptr;
        REQUIRE(rc_component_get(f.world, f.live[0], f.c_counter, &source) == RC_OK);
        REQUIRE_OK(rc_component_add(f.world, e, f.c_counter, source, sizeof(counter)), rc_world_last_error(f.world));
    }
    for (const auto e : fresh) {
        void *got = nullptr;
        REQUIRE(rc_component_get(f.world, e, f.c_counter, &got) == RC_OK);
        const auto *c = static_cast<const counter *>(got);
        CHECK(c->id == 7);
        CHECK(c->pad == 0);
        CHECK(c->total == 1234);
    }
    f.handler.check();
}

// =================================================================== buffers too small

TEST_CASE("capi misuse: section hashes into a buffer too small", "[capi][misuse]") {
    fixture f;
    const world_state before = f.state();
    const std::size_t expected = 2 + 4 + 1; // entities, 4 pools, groups, resources
    std::size_t needed = 0;
    std::vector<std::uint64_t> hashes(expected, 0xABABABABABABABABull);
    REQUIRE_FAILS(rc_world_section_hashes(f.world, hashes.data(), expected - 1, &needed), RC_ERR_BUFFER_TOO_SMALL,
                  rc_world_last_error(f.world), "needed");
    CHECK(needed == expected);
    for (const auto h : hashes) CHECK(h == 0xABABABABABABABABull); // nothing written
    needed = 0;
    REQUIRE_FAILS(rc_world_section_hashes(f.world, nullptr, 0, &needed), RC_ERR_BUFFER_TOO_SMALL,
                  rc_world_last_error(f.world), "needed");
    CHECK(needed == expected);
    REQUIRE_OK(rc_world_section_hashes(f.world, hashes.data(), hashes.size(), &needed), rc_world_last_error(f.world));
    CHECK(hashes == before.sections);
    CHECK(f.state() == before);
    f.handler.check();
}

TEST_CASE("capi misuse: an image into a buffer too small", "[capi][misuse]") {
    fixture f;
    const world_state before = f.state();
    const auto image = f.image(3);
    std::vector<unsigned char> small(image.size() - 1, 0xCD);
    std::size_t needed = 0;
    REQUIRE_FAILS(rc_world_save_image(f.world, 3, small.data(), small.size(), &needed), RC_ERR_BUFFER_TOO_SMALL,
                  rc_world_last_error(f.world), "needed");
    CHECK(needed == image.size());
    for (const auto b : small) CHECK(b == 0xCD);
    needed = 0;
    REQUIRE_FAILS(rc_world_save_image(f.world, 3, nullptr, 0, &needed), RC_ERR_BUFFER_TOO_SMALL,
                  rc_world_last_error(f.world), "needed");
    CHECK(needed == image.size());
    REQUIRE_FAILS(rc_world_save_image(f.world, 3, nullptr, image.size(), &needed), RC_ERR_NULL,
                  rc_world_last_error(f.world), "buffer is NULL");
    CHECK(f.state() == before);
    f.handler.check();
}

TEST_CASE("capi misuse: schema differences into a buffer too small", "[capi][misuse]") {
    handler_guard handler;
    fixture f;
    rc_schema *other = other_schema();
    std::size_t needed = 0;
    REQUIRE_FAILS(rc_schema_differences(f.schema, other, nullptr, 0, &needed), RC_ERR_BUFFER_TOO_SMALL,
                  rc_schema_last_error(f.schema), "needed");
    REQUIRE(needed > 1);
    std::vector<char> text(needed - 1, 'x');
    std::size_t again = 0;
    REQUIRE_FAILS(rc_schema_differences(f.schema, other, text.data(), text.size(), &again), RC_ERR_BUFFER_TOO_SMALL,
                  rc_schema_last_error(f.schema), "needed");
    CHECK(again == needed);
    for (const char c : text) CHECK(c == 'x');
    text.resize(needed);
    REQUIRE_OK(rc_schema_differences(f.schema, other, text.data(), text.size(), &again),
               rc_schema_last_error(f.schema));
    CHECK(std::strlen(text.data()) + 1 == needed);
    CHECK_THAT(std::string(text.data()), Contains("elsewhere"));
    // Equal schemas: "" (one byte).
    REQUIRE_OK(rc_schema_differences(f.schema, f.schema, text.data(), text.size(), &again),
               rc_schema_last_error(f.schema));
    CHECK(again == 1);
    CHECK(text[0] == '\0');
    REQUIRE_FAILS(rc_schema_differences(f.schema, other, text.data(), text.size(), nullptr), RC_ERR_NULL,
                  rc_schema_last_error(f.schema), "needed is NULL");
    rc_schema_destroy(other);
    handler.check();
}

TEST_CASE("capi misuse: diff JSON into a buffer too small, and a pool index out of range", "[capi][misuse]") {
    fixture f;
    retcon::test::temp_dir dir;
    const auto a = dir / "a.rcs";
    const auto b = dir / "b.rcs";
    REQUIRE_OK(rc_snapshot_file_write(f.world, a.c_str(), 1, 1), rc_world_last_error(f.world));
    const pos v{3, 4};
    REQUIRE(rc_component_add(f.world, f.live[2], f.c_pos, &v, sizeof v) == RC_OK);
    REQUIRE_OK(rc_snapshot_file_write(f.world, b.c_str(), 2, 1), rc_world_last_error(f.world));
    rc_diff *diff = nullptr;
    REQUIRE_OK(rc_diff_files(a.c_str(), b.c_str(), &diff), rc_last_error());
    REQUIRE(diff != nullptr);
    std::size_t needed = 0;
    REQUIRE_FAILS(rc_diff_json(diff, nullptr, 0, &needed), RC_ERR_BUFFER_TOO_SMALL, rc_last_error(), "needed");
    REQUIRE(needed > 2);
    std::vector<char> json(needed - 1, 'x');
    std::size_t again = 0;
    REQUIRE_FAILS(rc_diff_json(diff, json.data(), json.size(), &again), RC_ERR_BUFFER_TOO_SMALL, rc_last_error(),
                  "needed");
    CHECK(again == needed);
    for (const char c : json) CHECK(c == 'x');
    json.resize(needed);
    REQUIRE_OK(rc_diff_json(diff, json.data(), json.size(), &again), rc_last_error());
    CHECK(json[0] == '{');
    CHECK(std::strlen(json.data()) + 1 == needed);

    rc_diff_summary summary{};
    summary.struct_size = sizeof summary;
    REQUIRE_OK(rc_diff_get_summary(diff, &summary), rc_last_error());
    CHECK(summary.identical == 0);
    rc_pool_diff pool{};
    pool.struct_size = sizeof pool;
    // Pools are indexed among those that differ: only pos here.
    REQUIRE_FAILS(rc_diff_pool(diff, 1, &pool), RC_ERR_ARGUMENT, rc_last_error(), "index 1");
    REQUIRE_FAILS(rc_diff_pool(diff, 0xFFFFFFFFu, &pool), RC_ERR_ARGUMENT, rc_last_error(), "index 4294967295");
    CHECK(pool.pool == nullptr);
    REQUIRE_OK(rc_diff_pool(diff, 0, &pool), rc_last_error());
    CHECK_THAT(std::string(pool.pool), Contains("pos"));
    REQUIRE_FAILS(rc_diff_get_summary(diff, nullptr), RC_ERR_NULL, rc_last_error(), "NULL");
    REQUIRE_FAILS(rc_diff_pool(diff, 0, nullptr), RC_ERR_NULL, rc_last_error(), "NULL");
    rc_diff_destroy(diff);
    f.handler.check();
}

// =================================================================== schema declarations

TEST_CASE("capi misuse: duplicate type names", "[capi][misuse]") {
    fixture f;
    const std::uint64_t before = schema_hash(f.schema);
    std::uint32_t id = 77;
    const rc_type_desc again = desc("pos", sizeof(vel), vel_fields, 2);
    REQUIRE_FAILS(rc_schema_component(f.schema, &again, &id), RC_ERR_ALREADY_PRESENT, rc_schema_last_error(f.schema),
                  "pos is already declared");
    REQUIRE_FAILS(rc_schema_resource(f.schema, &again, &id), RC_ERR_ALREADY_PRESENT, rc_schema_last_error(f.schema),
                  "pos is already declared");
    const rc_type_desc clock_again = desc("clock", sizeof(clock_res), clock_fields, 1);
    REQUIRE_FAILS(rc_schema_component(f.schema, &clock_again, &id), RC_ERR_ALREADY_PRESENT,
                  rc_schema_last_error(f.schema), "clock is already declared");
    std::uint32_t record = 0;
    const rc_type_desc rec = desc("vec", sizeof(vel), vel_fields, 2);
    REQUIRE_OK(rc_schema_record(f.schema, &rec, &record), rc_schema_last_error(f.schema));
    REQUIRE_FAILS(rc_schema_record(f.schema, &rec, &id), RC_ERR_ALREADY_PRESENT, rc_schema_last_error(f.schema),
                  "vec is already declared");
    CHECK(id == 77);
    CHECK(schema_hash(f.schema) == before);
    // No id was used up: the next component gets id 4.
    const rc_type_desc next = desc("next", sizeof(vel), vel_fields, 2);
    REQUIRE_OK(rc_schema_component(f.schema, &next, &id), rc_schema_last_error(f.schema));
    CHECK(id == 4);
    f.handler.check();
}

namespace {

/// Declares @p d as a component, expecting @p status with @p text; checks the schema is unchanged.
void refuse_component(rc_schema *s, const rc_type_desc &d, rc_status status, const char *text) {
    const std::uint64_t before = schema_hash(s);
    std::uint32_t id = 77;
    REQUIRE_FAILS(rc_schema_component(s, &d, &id), status, rc_schema_last_error(s), text);
    CHECK(id == 77);
    CHECK(schema_hash(s) == before);
}

/// A 12-byte type of three u32 fields a, b, c (at 0, 4, 8), declared by hand below.
constexpr std::uint32_t three_u32_size = 12;

} // namespace

TEST_CASE("capi misuse: fields that do not tile the size", "[capi][misuse]") {
    fixture f;
    SECTION("a gap") {
        const rc_field fields[] = {{"a", 0, 4, RC_U32, 0}, {"c", 8, 4, RC_U32, 0}};
        refuse_component(f.schema, desc("gap", three_u32_size, fields, 2), RC_ERR_ARGUMENT, "gap");
    }
    SECTION("the end not covered") {
        const rc_field fields[] = {{"a", 0, 4, RC_U32, 0}, {"b", 4, 4, RC_U32, 0}};
        refuse_component(f.schema, desc("short", three_u32_size, fields, 2), RC_ERR_ARGUMENT, "cover");
    }
    SECTION("overlapping fields") {
        const rc_field fields[] = {
            {"a", 0, 4, RC_U32, 0}, {"b", 4, 4, RC_U32, 0}, {"b2", 4, 4, RC_U32, 0}, {"c", 8, 4, RC_U32, 0}};
        refuse_component(f.schema, desc("overlap", three_u32_size, fields, 4), RC_ERR_ARGUMENT, "overlap");
    }
    SECTION("a field past the end") {
        const rc_field fields[] = {{"a", 0, 4, RC_U32, 0}, {"b", 4, 4, RC_U32, 0}, {"c", 8, 8, RC_U32, 0}};
        refuse_component(f.schema, desc("past", three_u32_size, fields, 3), RC_ERR_ARGUMENT, "past");
    }
    SECTION("no fields for a non-zero size") {
        refuse_component(f.schema, desc("empty", 8, nullptr, 0), RC_ERR_ARGUMENT, "no fields");
    }
    SECTION("a tag with fields") {
        const rc_field fields[] = {{"a", 0, 4, RC_U32, 0}};
        refuse_component(f.schema, desc("tagged", 0, fields, 1), RC_ERR_ARGUMENT, "tag");
    }
    SECTION("a field size that is not whole elements") {
        const rc_field fields[] = {{"a", 0, 6, RC_U32, 0}, {"b", 6, 6, RC_U16, 0}};
        refuse_component(f.schema, desc("ragged", 12, fields, 2), RC_ERR_SIZE, "not a whole number");
    }
    SECTION("a field of size 0") {
        const rc_field fields[] = {
            {"a", 0, 4, RC_U32, 0}, {"z", 4, 0, RC_U32, 0}, {"b", 4, 4, RC_U32, 0}, {"c", 8, 4, RC_U32, 0}};
        refuse_component(f.schema, desc("zero", three_u32_size, fields, 4), RC_ERR_SIZE, "'z'");
    }
    SECTION("fields NULL with a count") {
        refuse_component(f.schema, desc("nofields", 8, nullptr, 2), RC_ERR_NULL, "fields is NULL");
    }
    SECTION("a field without a name") {
        const rc_field fields[] = {{nullptr, 0, 4, RC_U32, 0}};
        refuse_component(f.schema, desc("anon", 4, fields, 1), RC_ERR_NULL, "NULL name");
    }
    SECTION("a field declared twice") {
        const rc_field fields[] = {{"a", 0, 4, RC_U32, 0}, {"a", 4, 4, RC_U32, 0}};
        refuse_component(f.schema, desc("twice", 8, fields, 2), RC_ERR_ARGUMENT, "declared twice");
    }
    SECTION("a type without a name, or an empty one") {
        const rc_field fields[] = {{"a", 0, 4, RC_U32, 0}};
        refuse_component(f.schema, desc(nullptr, 4, fields, 1), RC_ERR_NULL, "name is NULL");
        refuse_component(f.schema, desc("", 4, fields, 1), RC_ERR_ARGUMENT, "name");
    }
    SECTION("a name longer than 255 characters") {
        const std::string long_name(300, 'n');
        const rc_field fields[] = {{"a", 0, 4, RC_U32, 0}};
        refuse_component(f.schema, desc(long_name.c_str(), 4, fields, 1), RC_ERR_ARGUMENT, "255");
        const rc_field long_field[] = {{long_name.c_str(), 0, 4, RC_U32, 0}};
        refuse_component(f.schema, desc("longfield", 4, long_field, 1), RC_ERR_ARGUMENT, "255");
    }
    f.handler.check();
}

TEST_CASE("capi misuse: a field at an offset that is not a multiple of its width", "[capi][misuse]") {
    fixture f;
    // A u64 after one u32: the C ABI of 32-bit x86 puts it at 4; canonical alignment says 8.
    const rc_field u64_at_4[] = {{"a", 0, 4, RC_U32, 0}, {"b", 4, 8, RC_U64, 0}};
    refuse_component(f.schema, desc("packed64", 12, u64_at_4, 2), RC_ERR_ARGUMENT, "not at a multiple");
    const rc_field u32_at_2[] = {{"a", 0, 2, RC_U16, 0}, {"b", 2, 4, RC_U32, 0}, {"c", 6, 2, RC_U16, 0}};
    refuse_component(f.schema, desc("packed32", 8, u32_at_2, 3), RC_ERR_ARGUMENT, "not at a multiple");
    // A record whose alignment is 8 (it holds a u64) at offset 4.
    std::uint32_t record = 0;
    const rc_field inner[] = {{"v", 0, 8, RC_U64, 0}};
    const rc_type_desc inner_desc = desc("wide", 8, inner, 1);
    REQUIRE_OK(rc_schema_record(f.schema, &inner_desc, &record), rc_schema_last_error(f.schema));
    const rc_field record_at_4[] = {{"a", 0, 4, RC_U32, 0}, {"w", 4, 8, RC_RECORD, record}, {"p", 12, 4, RC_U32, 0}};
    refuse_component(f.schema, desc("packedrec", 16, record_at_4, 3), RC_ERR_ARGUMENT, "not at a multiple");
    // The same, padded: accepted.
    const rc_field padded[] = {{"a", 0, 4, RC_U32, 0}, {"pad", 4, 4, RC_U32, 0}, {"w", 8, 8, RC_RECORD, record}};
    const rc_type_desc ok = desc("paddedrec", 16, padded, 3);
    std::uint32_t id = 0;
    REQUIRE_OK(rc_schema_component(f.schema, &ok, &id), rc_schema_last_error(f.schema));
    f.handler.check();
}

TEST_CASE("capi misuse: unknown field kinds", "[capi][misuse]") {
    fixture f;
    for (const std::uint32_t kind : {0u, 15u, 99u, 0xFFFFFFFFu}) {
        INFO("kind " << kind);
        const rc_field fields[] = {{"a", 0, 4, kind, 0}};
        refuse_component(f.schema, desc("strange", 4, fields, 1), RC_ERR_ARGUMENT, "unknown kind");
    }
    f.handler.check();
}

TEST_CASE("capi misuse: RC_RECORD with an unknown record id", "[capi][misuse]") {
    fixture f;
    const rc_field fields[] = {{"r", 0, 8, RC_RECORD, 0}};
    refuse_component(f.schema, desc("norecord", 8, fields, 1), RC_ERR_ARGUMENT, "record 0");
    std::uint32_t record = 0;
    const rc_type_desc rec = desc("vec", sizeof(vel), vel_fields, 2);
    REQUIRE_OK(rc_schema_record(f.schema, &rec, &record), rc_schema_last_error(f.schema));
    const rc_field next[] = {{"r", 0, 8, RC_RECORD, record + 1}};
    refuse_component(f.schema, desc("norecord", 8, next, 1), RC_ERR_ARGUMENT, "record 1");
    // An array of records must be whole records.
    const rc_field ragged[] = {{"r", 0, 12, RC_RECORD, record}};
    refuse_component(f.schema, desc("raggedrec", 12, ragged, 1), RC_ERR_SIZE, "not a whole number");
    f.handler.check();
}

TEST_CASE("capi misuse: a record, resource or component that cannot be declared", "[capi][misuse]") {
    fixture f;
    const std::uint64_t before = schema_hash(f.schema);
    std::uint32_t id = 77;
    const rc_type_desc empty = desc("nothing", 0, nullptr, 0);
    REQUIRE_FAILS(rc_schema_record(f.schema, &empty, &id), RC_ERR_ARGUMENT, rc_schema_last_error(f.schema),
                  "record needs fields");
    REQUIRE_FAILS(rc_schema_resource(f.schema, &empty, &id), RC_ERR_ARGUMENT, rc_schema_last_error(f.schema),
                  "resource needs fields");
    CHECK(id == 77);
    CHECK(schema_hash(f.schema) == before);
    f.handler.check();
}

TEST_CASE("capi misuse: groups with fewer than two ids, an id twice, an unknown id or an owned one", "[capi][misuse]") {
    fixture f;
    const std::uint64_t before = schema_hash(f.schema);
    const rc_type_desc a = desc("ga", sizeof(vel), vel_fields, 2);
    const rc_type_desc b = desc("gb", sizeof(vel), vel_fields, 2);
    const std::uint32_t ga = declare_component(f.schema, a);
    const std::uint32_t gb = declare_component(f.schema, b);
    const std::uint64_t declared = schema_hash(f.schema);
    CHECK(declared != before);
    const std::uint32_t one[] = {ga};
    REQUIRE_FAILS(rc_schema_group(f.schema, one, 0), RC_ERR_ARGUMENT, rc_schema_last_error(f.schema), "at least two");
    REQUIRE_FAILS(rc_schema_group(f.schema, one, 1), RC_ERR_ARGUMENT, rc_schema_last_error(f.schema), "at least two");
    const std::uint32_t twice[] = {ga, gb, ga};
    REQUIRE_FAILS(rc_schema_group(f.schema, twice, 3), RC_ERR_ARGUMENT, rc_schema_last_error(f.schema), "twice");
    const std::uint32_t unknown[] = {ga, 99};
    REQUIRE_FAILS(rc_schema_group(f.schema, unknown, 2), RC_ERR_ARGUMENT, rc_schema_last_error(f.schema),
                  "component id 99");
    const std::uint32_t owned[] = {ga, f.c_vel}; // vel is in the fixture's group
    REQUIRE_FAILS(rc_schema_group(f.schema, owned, 2), RC_ERR_ALREADY_PRESENT, rc_schema_last_error(f.schema),
                  "vel is already owned");
    CHECK(schema_hash(f.schema) == declared);
    // The refused groups left nothing half-declared: {ga, gb} is still free.
    const std::uint32_t good[] = {ga, gb};
    REQUIRE_OK(rc_schema_group(f.schema, good, 2), rc_schema_last_error(f.schema));
    CHECK(schema_hash(f.schema) != declared);
    f.handler.check();
}

TEST_CASE("capi: a group that owns a tag", "[capi][misuse]") {
    // Either the declaration is refused with a message naming the tag, or a world over the
    // schema works end to end (the tag filters; its column is NULL). Neither may reach retcon's
    // misuse handler.
    fixture f;
    const rc_type_desc a = desc("ga", sizeof(vel), vel_fields, 2);
    const rc_type_desc t = desc("gt", 0, nullptr, 0);
    const std::uint32_t ga = declare_component(f.schema, a);
    const std::uint32_t gt = declare_component(f.schema, t);
    const std::uint32_t ids[] = {ga, gt};
    const rc_status status = rc_schema_group(f.schema, ids, 2);
    if (status != RC_OK) {
        CHECK(status == RC_ERR_ARGUMENT);
        CHECK_THAT(text_of(rc_schema_last_error(f.schema)), Contains("tag"));
    } else {
        rc_world *w = f.make_world();
        std::vector<rc_entity> es(6);
        const vel v{1, 1};
        for (std::size_t i = 0; i < es.size(); ++i) {
            REQUIRE(rc_entity_create(w, &es[i]) == RC_OK);
            if (i % 2 == 0) REQUIRE(rc_component_add(w, es[i], gt, nullptr, 0) == RC_OK);
            REQUIRE(rc_component_add(w, es[i], ga, &v, sizeof v) == RC_OK);
            if (i % 2 == 1) REQUIRE(rc_component_add(w, es[i], gt, nullptr, 0) == RC_OK);
        }
        REQUIRE(rc_component_remove(w, es[2], gt) == RC_OK);
        const rc_query_desc qd{sizeof(rc_query_desc), ids, 2, nullptr, 0};
        rc_query *q = nullptr;
        REQUIRE(rc_query_create(w, &qd, &q) == RC_OK);
        rc_chunk chunk{};
        int has = 0;
        std::size_t visited = 0;
        for (;;) {
            REQUIRE(rc_query_next(q, &chunk, &has) == RC_OK);
            if (!has) break;
            CHECK(chunk.columns[1] == nullptr);
            visited += chunk.count;
        }
        CHECK(visited == 5);
        rc_query_destroy(q);
        rc_world_destroy(w);
    }
    f.handler.check();
}

TEST_CASE("capi misuse: struct_size too small in option structs", "[capi][misuse]") {
    fixture f;
    const std::uint64_t schema_before = schema_hash(f.schema);
    retcon::test::temp_dir dir;
    std::uint32_t id = 77;
    for (const std::uint32_t size : {0u, 4u, static_cast<std::uint32_t>(sizeof(rc_type_desc) - 1)}) {
        INFO("struct_size " << size);
        const rc_type_desc d{size, "fresh", sizeof(vel), vel_fields, 2};
        REQUIRE_FAILS(rc_schema_component(f.schema, &d, &id), RC_ERR_ARGUMENT, rc_schema_last_error(f.schema),
                      "struct_size");
        REQUIRE_FAILS(rc_schema_resource(f.schema, &d, &id), RC_ERR_ARGUMENT, rc_schema_last_error(f.schema),
                      "struct_size");
        REQUIRE_FAILS(rc_schema_record(f.schema, &d, &id), RC_ERR_ARGUMENT, rc_schema_last_error(f.schema),
                      "struct_size");
    }
    CHECK(id == 77);
    CHECK(schema_hash(f.schema) == schema_before);

    rc_replay_settings settings{};
    settings.struct_size = sizeof settings - 1;
    REQUIRE_FAILS(rc_replay_settings_default(&settings), RC_ERR_ARGUMENT, rc_last_error(), "struct_size");
    settings = replay_settings();
    settings.struct_size = 4;
    rc_replay_writer *writer = nullptr;
    const auto path = dir / "small.rcr";
    REQUIRE_FAILS(rc_replay_writer_create(path.c_str(), f.world, 0, &settings, &writer), RC_ERR_ARGUMENT,
                  rc_last_error(), "struct_size");
    CHECK(writer == nullptr);
    CHECK_FALSE(std::filesystem::exists(path));

    // Output structs: a replay's info, a verify report, a diff summary and pool.
    const auto replay_path = dir / "ok.rcr";
    record_replay(f, replay_path, 6);
    const world_state recorded = f.state();
    rc_replay *replay = nullptr;
    REQUIRE_OK(rc_replay_open(replay_path.c_str(), &replay), rc_last_error());
    rc_replay_info info{};
    info.struct_size = sizeof info - 1;
    REQUIRE_FAILS(rc_replay_get_info(replay, &info), RC_ERR_ARGUMENT, rc_replay_last_error(replay), "struct_size");
    CHECK(info.players == 0);
    rc_verify_report report{};
    report.struct_size = 8;
    rc_world *fresh = f.make_world();
    REQUIRE_FAILS(rc_replay_verify(replay, fresh, clock_step, &f.r_clock, &report), RC_ERR_ARGUMENT,
                  rc_replay_last_error(replay), "struct_size");
    CHECK(report.frames_checked == 0);
    rc_world_destroy(fresh);
    rc_replay_close(replay);

    const auto snap = dir / "a.rcs";
    REQUIRE_OK(rc_snapshot_file_write(f.world, snap.c_str(), 1, 1), rc_world_last_error(f.world));
    rc_diff *diff = nullptr;
    REQUIRE_OK(rc_diff_files(snap.c_str(), snap.c_str(), &diff), rc_last_error());
    rc_diff_summary summary{};
    summary.struct_size = sizeof summary - 1;
    REQUIRE_FAILS(rc_diff_get_summary(diff, &summary), RC_ERR_ARGUMENT, rc_last_error(), "struct_size");
    CHECK(summary.identical == 0);
    rc_pool_diff pool{};
    pool.struct_size = 4;
    REQUIRE_FAILS(rc_diff_pool(diff, 0, &pool), RC_ERR_ARGUMENT, rc_last_error(), "struct_size");
    CHECK(pool.pool == nullptr);
    rc_diff_destroy(diff);
    CHECK(f.state() == recorded);
    f.handler.check();
}

// =================================================================== frames

TEST_CASE("capi misuse: frame numbers past retcon's 32-bit frames", "[capi][misuse]") {
    fixture f;
    const world_state before = f.state();
    retcon::test::temp_dir dir;
    const rc_frame bad_frames[] = {rc_frame{0xFFFFFFFFu}, rc_frame{1} << 32, ~rc_frame{0}};
    std::vector<unsigned char> buffer(1 << 16);
    rc_ring *ring = nullptr;
    REQUIRE(rc_ring_create(4, &ring) == RC_OK);
    REQUIRE_OK(rc_ring_save(ring, f.world, 1), rc_ring_last_error(ring));
    const auto path = dir / "frame.rcs";
    const auto replay_path = dir / "frame.rcr";
    record_replay(f, replay_path, 6);
    const world_state recorded = f.state();
    rc_replay *replay = nullptr;
    REQUIRE_OK(rc_replay_open(replay_path.c_str(), &replay), rc_last_error());
    for (const rc_frame bad : bad_frames) {
        INFO("frame " << bad);
        std::size_t needed = 0;
        CHECK_FAILS(rc_world_save_image(f.world, bad, buffer.data(), buffer.size(), &needed), RC_ERR_ARGUMENT,
                    rc_world_last_error(f.world), "frame");
        CHECK_FAILS(rc_ring_save(ring, f.world, bad), RC_ERR_ARGUMENT, rc_ring_last_error(ring), "frame");
        CHECK_FAILS(rc_ring_restore(ring, f.world, bad), RC_ERR_ARGUMENT, rc_ring_last_error(ring), "frame");
        CHECK_FAILS(rc_snapshot_file_write(f.world, path.c_str(), bad, 1), RC_ERR_ARGUMENT,
                    rc_world_last_error(f.world), "frame");
        CHECK_FALSE(std::filesystem::exists(path));
        rc_replay_writer *writer = nullptr;
        const rc_replay_settings settings = replay_settings();
        CHECK_FAILS(rc_replay_writer_create((dir / "w.rcr").c_str(), f.world, bad, &settings, &writer), RC_ERR_ARGUMENT,
                    rc_last_error(), "frame");
        CHECK(writer == nullptr);
        const void *record = nullptr;
        std::size_t size = 0;
        std::uint64_t h = 0;
        rc_frame out = 0;
        // A replay lookup past its frames is "not there", however far past.
        CHECK_FAILS(rc_replay_inputs(replay, bad, &record, &size), RC_ERR_NOT_FOUND, rc_replay_last_error(replay),
                    "frame");
        CHECK_FAILS(rc_replay_hash(replay, bad, &h), RC_ERR_NOT_FOUND, rc_replay_last_error(replay), "frame");
        CHECK_FAILS(rc_replay_seek(replay, f.world, bad, &out), RC_ERR_ARGUMENT, rc_replay_last_error(replay), "frame");
    }
    // The ring still holds frame 1 and the world is as it was.
    CHECK(f.state() == recorded);
    REQUIRE_OK(rc_ring_restore(ring, f.world, 1), rc_ring_last_error(ring));
    CHECK(f.state() == before);
    rc_replay_close(replay);
    rc_ring_destroy(ring);
    f.handler.check();
}

TEST_CASE("capi misuse: ring frames that are not held, a zero capacity, another schema", "[capi][misuse]") {
    fixture f;
    rc_ring *ring = nullptr;
    REQUIRE_FAILS(rc_ring_create(0, &ring), RC_ERR_ARGUMENT, rc_last_error(), "capacity");
    CHECK(ring == nullptr);
    REQUIRE(rc_ring_create(2, &ring) == RC_OK);
    REQUIRE_OK(rc_ring_save(ring, f.world, 10), rc_ring_last_error(ring));
    const world_state at10 = f.state();
    const clock_res clk{1};
    REQUIRE(rc_resource_set(f.world, f.r_clock, &clk, sizeof clk) == RC_OK);
    const world_state changed = f.state();
    REQUIRE_FAILS(rc_ring_restore(ring, f.world, 9), RC_ERR_NOT_FOUND, rc_ring_last_error(ring), "9");
    REQUIRE_FAILS(rc_ring_restore(ring, f.world, 11), RC_ERR_NOT_FOUND, rc_ring_last_error(ring), "11");
    CHECK(f.state() == changed);
    // A world of another schema: refused, neither world changes.
    rc_schema *os = other_schema();
    rc_world *ow = nullptr;
    REQUIRE(rc_world_create(os, &ow) == RC_OK);
    const world_state other_before = fixture::state_of(ow);
    REQUIRE_FAILS(rc_ring_restore(ring, ow, 10), RC_ERR_SCHEMA_MISMATCH, rc_ring_last_error(ring), "schema");
    CHECK(fixture::state_of(ow) == other_before);
    REQUIRE_OK(rc_ring_restore(ring, f.world, 10), rc_ring_last_error(ring));
    CHECK(f.state() == at10);
    rc_world_destroy(ow);
    rc_schema_destroy(os);
    rc_ring_destroy(ring);
    f.handler.check();
}

// =================================================================== images and files

TEST_CASE("capi misuse: a corrupt image to rc_world_load_image leaves the world unchanged", "[capi][misuse]") {
    fixture f;
    const auto image = f.image(42);
    // Change the world after taking the image, so a partial load would show.
    const pos v{8, 8};
    REQUIRE(rc_component_add(f.world, f.live[2], f.c_pos, &v, sizeof v) == RC_OK);
    const world_state before = f.state();
    rc_frame frame = 5;

    SECTION("truncated") {
        for (const std::size_t size :
             {std::size_t{0}, std::size_t{1}, std::size_t{16}, image.size() / 2, image.size() - 1}) {
            INFO("size " << size);
            REQUIRE_FAILS(rc_world_load_image(f.world, image.data(), size, &frame), RC_ERR_CORRUPT,
                          rc_world_last_error(f.world), "");
            CHECK(std::strlen(rc_world_last_error(f.world)) > 0);
        }
    }
    SECTION("not an image") {
        const std::vector<unsigned char> noise(image.size(), 0x5A);
        REQUIRE_FAILS(rc_world_load_image(f.world, noise.data(), noise.size(), &frame), RC_ERR_CORRUPT,
                      rc_world_last_error(f.world), "");
        CHECK(std::strlen(rc_world_last_error(f.world)) > 0);
    }
    SECTION("a damaged header") {
        auto bad = image;
        bad[0] ^= 0xFF;
        REQUIRE_FAILS(rc_world_load_image(f.world, bad.data(), bad.size(), &frame), RC_ERR_CORRUPT,
                      rc_world_last_error(f.world), "");
        CHECK(std::strlen(rc_world_last_error(f.world)) > 0);
    }
    SECTION("every single byte flipped in turn: refused or loaded, never half-loaded") {
        for (std::size_t i = 0; i < image.size(); ++i) {
            auto bad = image;
            bad[i] ^= 0x80;
            const rc_status st = rc_world_load_image(f.world, bad.data(), bad.size(), &frame);
            if (st == RC_OK) {
                // Accepted (a value byte): load the real image back over it.
                REQUIRE(rc_world_load_image(f.world, image.data(), image.size(), &frame) == RC_OK);
                REQUIRE(rc_component_add(f.world, f.live[2], f.c_pos, &v, sizeof v) == RC_OK);
                frame = 5;
            } else {
                INFO("byte " << i << ": " << rc_status_name(st));
                CHECK((st == RC_ERR_CORRUPT || st == RC_ERR_SCHEMA_MISMATCH));
                CHECK(std::strlen(rc_world_last_error(f.world)) > 0);
            }
            REQUIRE(f.state() == before);
        }
    }
    SECTION("a frame past retcon's 32-bit frames in the header") {
        // The header's u64 frame at offset 16 (docs/file-format.md, "World image"); frames above
        // max_frame are corrupt wherever they are read (docs/frames.md).
        for (const std::uint64_t bad : {std::uint64_t{0xFFFFFFFFu}, std::uint64_t{1} << 32, ~std::uint64_t{0}}) {
            INFO("frame " << bad);
            auto forged = image;
            std::memcpy(forged.data() + 16, &bad, sizeof bad);
            CHECK_FAILS(rc_world_load_image(f.world, forged.data(), forged.size(), &frame), RC_ERR_CORRUPT,
                        rc_world_last_error(f.world), "frame");
        }
    }
    SECTION("an image of another schema") {
        rc_schema *os = other_schema();
        rc_world *ow = nullptr;
        REQUIRE(rc_world_create(os, &ow) == RC_OK);
        std::size_t needed = 0;
        (void)rc_world_save_image(ow, 1, nullptr, 0, &needed);
        std::vector<unsigned char> other(needed);
        REQUIRE(rc_world_save_image(ow, 1, other.data(), other.size(), &needed) == RC_OK);
        REQUIRE_FAILS(rc_world_load_image(f.world, other.data(), other.size(), &frame), RC_ERR_SCHEMA_MISMATCH,
                      rc_world_last_error(f.world), "schema");
        rc_world_destroy(ow);
        rc_schema_destroy(os);
    }
    SECTION("NULL bytes") {
        REQUIRE_FAILS(rc_world_load_image(f.world, nullptr, image.size(), &frame), RC_ERR_NULL,
                      rc_world_last_error(f.world), "NULL");
        // No bytes at all: an empty image, not a NULL-pointer copy.
        REQUIRE_FAILS(rc_world_load_image(f.world, nullptr, 0, &frame), RC_ERR_CORRUPT, rc_world_last_error(f.world),
                      "");
        CHECK(std::strlen(rc_world_last_error(f.world)) > 0);
    }
    CHECK(frame == 5);
    CHECK(f.state() == before);
    // The good image still loads.
    REQUIRE_OK(rc_world_load_image(f.world, image.data(), image.size(), &frame), rc_world_last_error(f.world));
    CHECK(frame == 42);
    f.handler.check();
}

TEST_CASE("capi misuse: missing files and unwritable paths", "[capi][misuse]") {
    fixture f;
    const world_state before = f.state();
    retcon::test::temp_dir dir;
    const auto missing = dir / "missing.rcs";
    const auto nowhere = dir / "no" / "such" / "dir" / "x.rcs";
    rc_frame frame = 5;
    REQUIRE_FAILS(rc_snapshot_file_load(f.world, missing.c_str(), &frame), RC_ERR_IO, rc_world_last_error(f.world),
                  "missing.rcs");
    REQUIRE_FAILS(rc_snapshot_file_check(missing.c_str()), RC_ERR_IO, rc_last_error(), "missing.rcs");
    rc_diff *diff = nullptr;
    REQUIRE_FAILS(rc_diff_files(missing.c_str(), missing.c_str(), &diff), RC_ERR_IO, rc_last_error(), "missing.rcs");
    CHECK(diff == nullptr);
    rc_replay *replay = nullptr;
    REQUIRE_FAILS(rc_replay_open((dir / "missing.rcr").c_str(), &replay), RC_ERR_IO, rc_last_error(), "missing.rcr");
    CHECK(replay == nullptr);
    REQUIRE_FAILS(rc_snapshot_file_write(f.world, nowhere.c_str(), 1, 1), RC_ERR_IO, rc_world_last_error(f.world),
                  "x.rcs");
    rc_replay_writer *writer = nullptr;
    const rc_replay_settings settings = replay_settings();
    REQUIRE_FAILS(rc_replay_writer_create((dir / "no" / "x.rcr").c_str(), f.world, 0, &settings, &writer), RC_ERR_IO,
                  rc_last_error(), "x.rcr");
    CHECK(writer == nullptr);
    CHECK(frame == 5);
    CHECK(f.state() == before);
    f.handler.check();
}

TEST_CASE("capi misuse: corrupt and truncated snapshot files leave the world unchanged", "[capi][misuse]") {
    fixture f;
    retcon::test::temp_dir dir;
    const auto good = dir / "good.rcs";
    REQUIRE_OK(rc_snapshot_file_write(f.world, good.c_str(), 12, 3), rc_world_last_error(f.world));
    const pos v{8, 8};
    REQUIRE(rc_component_add(f.world, f.live[2], f.c_pos, &v, sizeof v) == RC_OK);
    const world_state before = f.state();
    const auto bytes = read_file(good);
    REQUIRE(bytes.size() > 64);
    rc_frame frame = 5;

    const auto bad = dir / "bad.rcs";
    for (const std::size_t size :
         {std::size_t{0}, std::size_t{10}, std::size_t{60}, bytes.size() / 2, bytes.size() - 1}) {
        INFO("truncated to " << size);
        write_file(bad, std::vector<char>(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(size)));
        REQUIRE_FAILS(rc_snapshot_file_load(f.world, bad.c_str(), &frame), RC_ERR_CORRUPT, rc_world_last_error(f.world),
                      "");
        CHECK(std::strlen(rc_world_last_error(f.world)) > 0);
        REQUIRE_FAILS(rc_snapshot_file_check(bad.c_str()), RC_ERR_CORRUPT, rc_last_error(), "");
        CHECK(std::strlen(rc_last_error()) > 0);
    }
    for (const std::size_t at : {std::size_t{0}, std::size_t{20}, bytes.size() / 2, bytes.size() - 1}) {
        INFO("byte " << at << " flipped");
        auto flipped = bytes;
        flipped[at] = static_cast<char>(flipped[at] ^ 0x41);
        write_file(bad, flipped);
        REQUIRE_FAILS(rc_snapshot_file_load(f.world, bad.c_str(), &frame), RC_ERR_CORRUPT, rc_world_last_error(f.world),
                      "");
        CHECK(std::strlen(rc_world_last_error(f.world)) > 0);
    }
    // The project's corrupt corpus (docs/file-format.md).
    for (const char *name : {"bad_magic.rcs", "bad_version.rcs", "header_bitflip.rcs", "image_checksum.rcs",
                             "truncated_header.rcs", "truncated_image.rcs", "trailing_garbage.rcs", "bomb.rcs"}) {
        INFO(name);
        const std::string path = (std::filesystem::path{RETCON_TEST_DATA_DIR} / "corrupt" / name).string();
        REQUIRE_FAILS(rc_snapshot_file_load(f.world, path.c_str(), &frame), RC_ERR_CORRUPT,
                      rc_world_last_error(f.world), "");
        CHECK(std::strlen(rc_world_last_error(f.world)) > 0);
    }
    // A good file of another schema.
    const std::string golden = (std::filesystem::path{RETCON_TEST_DATA_DIR} / "golden_v1.rcs").string();
#if RETCON_ENTITY_64 // the golden file has 32-bit handles: refused by the layout its schema block records
    REQUIRE_FAILS(rc_snapshot_file_check(golden.c_str()), RC_ERR_CORRUPT, rc_last_error(), "entity layout 20+12");
    REQUIRE_FAILS(rc_snapshot_file_load(f.world, golden.c_str(), &frame), RC_ERR_CORRUPT, rc_world_last_error(f.world),
                  "entity layout 20+12");
#else
    REQUIRE_OK(rc_snapshot_file_check(golden.c_str()), rc_last_error());
    REQUIRE_FAILS(rc_snapshot_file_load(f.world, golden.c_str(), &frame), RC_ERR_SCHEMA_MISMATCH,
                  rc_world_last_error(f.world), "schema");
#endif
    CHECK(frame == 5);
    CHECK(f.state() == before);
    REQUIRE_OK(rc_snapshot_file_load(f.world, good.c_str(), &frame), rc_world_last_error(f.world));
    CHECK(frame == 12);
    f.handler.check();
}

// =================================================================== replays

TEST_CASE("capi misuse: a replay verified or sought with a world of the wrong schema", "[capi][misuse]") {
    fixture f;
    retcon::test::temp_dir dir;
    const auto path = dir / "r.rcr";
    record_replay(f, path, 10);
    rc_replay *replay = nullptr;
    REQUIRE_OK(rc_replay_open(path.c_str(), &replay), rc_last_error());
    rc_schema *os = other_schema();
    rc_world *ow = nullptr;
    REQUIRE(rc_world_create(os, &ow) == RC_OK);
    const world_state before = fixture::state_of(ow);
    rc_verify_report report{};
    report.struct_size = sizeof report;
    REQUIRE_FAILS(rc_replay_verify(replay, ow, clock_step, &f.r_clock, &report), RC_ERR_SCHEMA_MISMATCH,
                  rc_replay_last_error(replay), "schema");
    CHECK(report.frames_checked == 0);
    rc_frame frame = 77;
    REQUIRE_FAILS(rc_replay_seek(replay, ow, 5, &frame), RC_ERR_SCHEMA_MISMATCH, rc_replay_last_error(replay),
                  "schema");
    CHECK(frame == 77);
    CHECK(fixture::state_of(ow) == before);
    // The right schema verifies.
    rc_world *fresh = f.make_world();
    REQUIRE_OK(rc_replay_verify(replay, fresh, clock_step, &f.r_clock, &report), rc_replay_last_error(replay));
    CHECK(report.ok == 1);
    CHECK(report.frames_checked == 10);
    rc_world_destroy(fresh);
    rc_world_destroy(ow);
    rc_schema_destroy(os);
    rc_replay_close(replay);
    f.handler.check();
}

TEST_CASE("capi misuse: files of another simulation semantics are refused by name", "[capi][misuse]") {
    // docs/determinism.md, "Simulation semantics": the status is the schema mismatch it always
    // was; the text says why, before any frame is stepped or state restored.
    fixture f;
    const std::filesystem::path data{RETCON_TEST_DATA_DIR};
    const std::string named = "recorded with simulation semantics 1 (retcon's iteration order before forward blocks "
                              "of 4096); this build simulates with semantics";
    const world_state before = fixture::state_of(f.world);
    rc_frame frame = 77;
    const std::string snapshot = (data / "golden_semantics1.rcs").string();
    REQUIRE_OK(rc_snapshot_file_check(snapshot.c_str()), rc_last_error()); // reading is not simulating
    REQUIRE_FAILS(rc_snapshot_file_load(f.world, snapshot.c_str(), &frame), RC_ERR_SCHEMA_MISMATCH,
                  rc_world_last_error(f.world), named);
    rc_replay *replay = nullptr;
    REQUIRE_OK(rc_replay_open((data / "golden_semantics1.rcr").c_str(), &replay), rc_last_error());
    rc_verify_report report{};
    report.struct_size = sizeof report;
    REQUIRE_FAILS(rc_replay_verify(replay, f.world, clock_step, &f.r_clock, &report), RC_ERR_SCHEMA_MISMATCH,
                  rc_replay_last_error(replay), "rc_replay_verify: " + named);
    CHECK(report.frames_checked == 0);
    REQUIRE_FAILS(rc_replay_seek(replay, f.world, 5, &frame), RC_ERR_SCHEMA_MISMATCH, rc_replay_last_error(replay),
                  "rc_replay_seek: " + named);
    CHECK(frame == 77);
    CHECK(fixture::state_of(f.world) == before);
    rc_replay_close(replay);
    f.handler.check();
}

TEST_CASE("capi misuse: replay lookups out of range, a NULL step, a failing step", "[capi][misuse]") {
    fixture f;
    retcon::test::temp_dir dir;
    const auto path = dir / "r.rcr";
    record_replay(f, path, 10);
    rc_replay *replay = nullptr;
    REQUIRE_OK(rc_replay_open(path.c_str(), &replay), rc_last_error());
    const void *record = nullptr;
    std::size_t size = 0;
    std::uint64_t h = 0;
    rc_frame frame = 77;
    REQUIRE_FAILS(rc_replay_inputs(replay, 10, &record, &size), RC_ERR_NOT_FOUND, rc_replay_last_error(replay), "10");
    REQUIRE_FAILS(rc_replay_hash(replay, 10, &h), RC_ERR_NOT_FOUND, rc_replay_last_error(replay), "10");
    REQUIRE_FAILS(rc_replay_hash(replay, 1000, &h), RC_ERR_NOT_FOUND, rc_replay_last_error(replay), "1000");
    REQUIRE_FAILS(rc_replay_keyframe_frame(replay, 1000, &frame), RC_ERR_NOT_FOUND, rc_replay_last_error(replay),
                  "keyframe");
    CHECK(record == nullptr);
    CHECK(frame == 77);
    REQUIRE_FAILS(rc_replay_inputs(replay, 0, nullptr, &size), RC_ERR_NULL, rc_replay_last_error(replay), "NULL");
    REQUIRE_FAILS(rc_replay_hash(replay, 0, nullptr), RC_ERR_NULL, rc_replay_last_error(replay), "NULL");

    rc_world *fresh = f.make_world();
    const world_state before = fixture::state_of(fresh);
    rc_verify_report report{};
    report.struct_size = sizeof report;
    REQUIRE_FAILS(rc_replay_verify(replay, fresh, nullptr, nullptr, &report), RC_ERR_NULL, rc_replay_last_error(replay),
                  "step");
    REQUIRE_FAILS(rc_replay_verify(replay, fresh, clock_step, &f.r_clock, nullptr), RC_ERR_NULL,
                  rc_replay_last_error(replay), "NULL");
    CHECK(fixture::state_of(fresh) == before);
    // A step that fails at frame 3 stops verification with an error naming the frame.
    const rc_status st = rc_replay_verify(replay, fresh, failing_step, nullptr, &report);
    CHECK(st != RC_OK);
    CHECK_THAT(text_of(rc_replay_last_error(replay)), Contains("step") && Contains("3"));
    rc_world_destroy(fresh);
    rc_replay_close(replay);
    f.handler.check();
}

TEST_CASE("capi misuse: replay writer records of the wrong size or with unknown flags", "[capi][misuse]") {
    fixture f;
    retcon::test::temp_dir dir;
    const auto path = dir / "w.rcr";
    rc_replay_settings settings = replay_settings();
    rc_replay_writer *writer = nullptr;
    settings.players = 0;
    REQUIRE_FAILS(rc_replay_writer_create(path.c_str(), f.world, 0, &settings, &writer), RC_ERR_ARGUMENT,
                  rc_last_error(), "players");
    CHECK(writer == nullptr);
    settings = replay_settings();
    REQUIRE_OK(rc_replay_writer_create(path.c_str(), f.world, 0, &settings, &writer), rc_last_error());
    auto record = record_for(0);
    REQUIRE_FAILS(rc_replay_writer_add_frame(writer, record.data(), record.size() - 1, f.world), RC_ERR_SIZE,
                  rc_replay_writer_last_error(writer), std::to_string(record_size));
    REQUIRE_FAILS(rc_replay_writer_add_frame(writer, nullptr, record.size(), f.world), RC_ERR_NULL,
                  rc_replay_writer_last_error(writer), "NULL");
    REQUIRE_FAILS(rc_replay_writer_add_frame(writer, record.data(), record.size(), nullptr), RC_ERR_NULL,
                  rc_replay_writer_last_error(writer), "world is NULL");
    auto flagged = record;
    flagged[1] = 0x80; // no version defines this flag (docs/frames.md, slot_flags)
    REQUIRE_FAILS(rc_replay_writer_add_frame(writer, flagged.data(), flagged.size(), f.world), RC_ERR_ARGUMENT,
                  rc_replay_writer_last_error(writer), "flag");
    rc_schema *os = other_schema();
    rc_world *ow = nullptr;
    REQUIRE(rc_world_create(os, &ow) == RC_OK);
    REQUIRE_FAILS(rc_replay_writer_add_frame(writer, record.data(), record.size(), ow), RC_ERR_SCHEMA_MISMATCH,
                  rc_replay_writer_last_error(writer), "schema");
    // None of the refused frames was written: the replay holds exactly the good ones.
    REQUIRE_OK(rc_replay_writer_add_frame(writer, record.data(), record.size(), f.world),
               rc_replay_writer_last_error(writer));
    REQUIRE_OK(rc_replay_writer_finish(writer), rc_replay_writer_last_error(writer));
    rc_replay_writer_destroy(writer);
    rc_world_destroy(ow);
    rc_schema_destroy(os);
    rc_replay *replay = nullptr;
    REQUIRE_OK(rc_replay_open(path.c_str(), &replay), rc_last_error());
    rc_replay_info info{};
    info.struct_size = sizeof info;
    REQUIRE_OK(rc_replay_get_info(replay, &info), rc_replay_last_error(replay));
    CHECK(info.start_frame == 0);
    CHECK(info.end_frame == 1);
    CHECK(info.complete == 1);
    rc_replay_close(replay);
    f.handler.check();
}

TEST_CASE("capi misuse: a replay writer used after finish", "[capi][misuse]") {
    fixture f;
    retcon::test::temp_dir dir;
    const auto path = dir / "w.rcr";
    const rc_replay_settings settings = replay_settings();
    rc_replay_writer *writer = nullptr;
    REQUIRE_OK(rc_replay_writer_create(path.c_str(), f.world, 0, &settings, &writer), rc_last_error());
    const auto record = record_for(0);
    REQUIRE_OK(rc_replay_writer_add_frame(writer, record.data(), record.size(), f.world),
               rc_replay_writer_last_error(writer));
    REQUIRE_OK(rc_replay_writer_finish(writer), rc_replay_writer_last_error(writer));
    const auto bytes = read_file(path);
    REQUIRE_FAILS(rc_replay_writer_add_frame(writer, record.data(), record.size(), f.world), RC_ERR_ARGUMENT,
                  rc_replay_writer_last_error(writer), "finish");
    // A second finish may succeed (finishing is idempotent) or be refused; it writes nothing.
    const rc_status again = rc_replay_writer_finish(writer);
    CHECK((again == RC_OK || again == RC_ERR_ARGUMENT));
    rc_replay_writer_destroy(writer);
    CHECK(read_file(path) == bytes);
    f.handler.check();
}

// =================================================================== odds and ends

TEST_CASE("capi misuse: status names for values outside the enum", "[capi][misuse]") {
    handler_guard handler;
    CHECK(std::string(rc_status_name(RC_ERR_SIZE)) == "RC_ERR_SIZE");
    CHECK(std::strlen(rc_status_name(static_cast<rc_status>(13))) > 0);
    CHECK(std::strlen(rc_status_name(static_cast<rc_status>(15))) > 0);
    CHECK(rc_abi_version() == RC_ABI_VERSION);
    handler.check();
}

TEST_CASE("capi misuse: a failed call's message stays until the next call on the handle", "[capi][misuse]") {
    fixture f;
    void *p = nullptr;
    REQUIRE(rc_component_get(f.world, f.live[2], f.c_pos, &p) == RC_ERR_NO_COMPONENT);
    const std::string message = rc_world_last_error(f.world);
    CHECK_THAT(message, Contains("has no pos"));
    // Another handle's failure does not touch it.
    rc_ring *ring = nullptr;
    REQUIRE(rc_ring_create(1, &ring) == RC_OK);
    REQUIRE(rc_ring_restore(ring, f.world, 3) == RC_ERR_NOT_FOUND);
    CHECK(std::string(rc_world_last_error(f.world)) == message);
    rc_ring_destroy(ring);
    // A successful call on the handle clears it.
    REQUIRE(rc_component_get(f.world, f.live[0], f.c_pos, &p) == RC_OK);
    CHECK(std::string(rc_world_last_error(f.world)).empty());
    f.handler.check();
}

TEST_CASE("capi misuse: the misuse handler is untouched by a run of every misuse", "[capi][misuse]") {
    // A counting handler installed before any C call: after all of this it was never called and
    // set_misuse_handler returns it, so the C layer neither reached nor replaced it.
    retcon::misuse_handler previous = retcon::set_misuse_handler(&count_misuse);
    misuse_calls = 0;
    {
        rc_schema *s = nullptr;
        REQUIRE(rc_schema_create(&s) == RC_OK);
        std::uint32_t id = 0;
        const rc_type_desc p = desc("pos", sizeof(pos), pos_fields, 2);
        CHECK(rc_schema_component(s, &p, &id) == RC_OK);
        CHECK(rc_schema_component(s, &p, &id) == RC_ERR_ALREADY_PRESENT);
        const std::uint32_t bad_group[] = {0, 0};
        CHECK(rc_schema_group(s, bad_group, 2) == RC_ERR_ARGUMENT);
        rc_world *w = nullptr;
        REQUIRE(rc_world_create(s, &w) == RC_OK);
        rc_entity e = RC_NULL_ENTITY;
        REQUIRE(rc_entity_create(w, &e) == RC_OK);
        const pos v{1, 1};
        CHECK(rc_component_add(w, e, 0, &v, 3) == RC_ERR_SIZE);
        CHECK(rc_component_add(w, e, 5, &v, sizeof v) == RC_ERR_ARGUMENT);
        CHECK(rc_component_add(w, RC_NULL_ENTITY, 0, &v, sizeof v) == RC_ERR_STALE_ENTITY);
        CHECK(rc_component_add(w, e, 0, &v, sizeof v) == RC_OK);
        CHECK(rc_component_add(w, e, 0, &v, sizeof v) == RC_ERR_ALREADY_PRESENT);
        void *out = nullptr;
        CHECK(rc_resource_get(w, 0, &out) == RC_ERR_ARGUMENT);
        CHECK(rc_entity_destroy(w, e) == RC_OK);
        CHECK(rc_entity_destroy(w, e) == RC_ERR_STALE_ENTITY);
        CHECK(rc_component_get(w, e, 0, &out) == RC_ERR_STALE_ENTITY);
        const unsigned char junk[32] = {1, 2, 3};
        rc_frame frame = 0;
        CHECK(rc_world_load_image(w, junk, sizeof junk, &frame) == RC_ERR_CORRUPT);
        rc_ring *ring = nullptr;
        REQUIRE(rc_ring_create(2, &ring) == RC_OK);
        CHECK(rc_ring_restore(ring, w, 1) == RC_ERR_NOT_FOUND);
        CHECK(rc_ring_save(ring, w, ~rc_frame{0}) == RC_ERR_ARGUMENT);
        rc_ring_destroy(ring);
        rc_world_destroy(w);
        rc_schema_destroy(s);
    }
    CHECK(misuse_calls == 0);
    CHECK(retcon::set_misuse_handler(previous) == &count_misuse);
}

TEST_CASE("capi misuse: a structural change during a query pass makes the next call fail", "[capi][misuse]") {
    fixture f;
    // Enough pos entities for several chunks, so the pass is still going after the first.
    std::vector<rc_entity> es(3000);
    const pos p{1, 2};
    for (auto &e : es) {
        REQUIRE(rc_entity_create(f.world, &e) == RC_OK);
        REQUIRE(rc_component_add(f.world, e, f.c_pos, &p, sizeof p) == RC_OK);
    }
    const rc_query_desc qd{sizeof(rc_query_desc), &f.c_pos, 1, nullptr, 0};
    rc_query *q = nullptr;
    REQUIRE(rc_query_create(f.world, &qd, &q) == RC_OK);
    rc_chunk chunk{};
    int has = 0;
    REQUIRE(rc_query_next(q, &chunk, &has) == RC_OK);
    REQUIRE(has == 1);
    REQUIRE(chunk.count < es.size());
    REQUIRE(rc_entity_destroy(f.world, es[0]) == RC_OK); // the chunk's memory may now be stale
    REQUIRE_FAILS(rc_query_next(q, &chunk, &has), RC_ERR_ARGUMENT, rc_query_last_error(q),
                  "changed structurally during this pass");
    CHECK(has == 0);
    // The next call starts a new pass over the changed world and sees every pos once.
    std::size_t visited = 0;
    for (;;) {
        REQUIRE(rc_query_next(q, &chunk, &has) == RC_OK);
        if (!has) break;
        visited += chunk.count;
    }
    CHECK(visited == es.size() - 1 + 2); // the fixture's two pos entities too
    // Values written through a pass, with no structural change, are not a change.
    REQUIRE(rc_query_next(q, &chunk, &has) == RC_OK);
    static_cast<pos *>(chunk.columns[0])[0].x = 5;
    const clock_res clk{1};
    REQUIRE(rc_resource_set(f.world, f.r_clock, &clk, sizeof clk) == RC_OK);
    REQUIRE(rc_query_next(q, &chunk, &has) == RC_OK);
    rc_query_destroy(q);
    f.handler.check();
}

TEST_CASE("capi: an RC_ENTITY field stores rc_entity_size() bytes of the handle", "[capi]") {
    // 4 bytes (the low half of an rc_entity), or the whole rc_entity with RETCON_ENTITY_64.
    const std::uint32_t n = rc_entity_size();
    CHECK(n == (RETCON_ENTITY_64 ? 8u : 4u));
    rc_schema *s = nullptr;
    REQUIRE(rc_schema_create(&s) == RC_OK);
    const rc_field link_fields[] = {{"who", 0, n, RC_ENTITY, 0}};
    const std::uint32_t c_link = declare_component(s, desc("link", n, link_fields, 1));
    rc_world *w = nullptr;
    REQUIRE(rc_world_create(s, &w) == RC_OK);
    rc_entity from = RC_NULL_ENTITY;
    rc_entity to = RC_NULL_ENTITY;
    REQUIRE(rc_entity_create(w, &from) == RC_OK);
    REQUIRE(rc_entity_create(w, &to) == RC_OK);
#if RETCON_ENTITY_64
    // Drive `to`'s version past 12 bits: the C side sees and hands back all of it.
    for (int i = 0; i < 5000; ++i) {
        REQUIRE(rc_entity_destroy(w, to) == RC_OK);
        REQUIRE(rc_entity_create(w, &to) == RC_OK);
    }
    CHECK(to >> 32 == 5000u);
    CHECK(rc_entity_valid(w, to) == 1);
    CHECK(rc_entity_valid(w, (to & 0xFFFFFFFFu) | (rc_entity{5000u & 0xFFFu} << 32)) == 0);
#endif
    unsigned char stored[8] = {};
    std::memcpy(stored, &to, n); // little-endian: the low n bytes of the rc_entity
    REQUIRE_OK(rc_component_add(w, from, c_link, stored, n), rc_world_last_error(w));
    void *got = nullptr;
    REQUIRE_OK(rc_component_get(w, from, c_link, &got), rc_world_last_error(w));
    rc_entity back = 0;
    std::memcpy(&back, got, n);
    CHECK(back == to);
    rc_world_destroy(w);
    rc_schema_destroy(s);
}
