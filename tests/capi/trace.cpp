// Traces through the C API (docs/c-api.md, "Traces"): the options' trace fields, the game's own
// slices (rc_*_trace_name, rc_*_trace_begin, rc_*_trace_end) and rc_*_write_trace, judged by the
// strict checker (tests/support/trace); callers of the options' older versions; misuse.
#include <retcon.h>

#include <catch2/catch.hpp>

#include <common/counting_allocator.hpp>
#include <common/temp_dir.hpp>
#include <common/trace_checker.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "match_fixture.hpp"
#include "misuse_checks.hpp"

using namespace retcon::capi_test;

namespace {

/// What a step callback adds to the trace: an outer slice with one nested inside it.
struct game_slices {
    rc_server *server = nullptr; ///< the session whose trace it is (one of the two)
    rc_client *client = nullptr;
    std::uint32_t outer = 0, inner = 0;
    std::uint64_t steps = 0;
    bool failed = false; ///< a begin or end returned an error
};

rc_status begin(game_slices &g, std::uint32_t id) {
    return g.server ? rc_server_trace_begin(g.server, id) : rc_client_trace_begin(g.client, id);
}
rc_status end(game_slices &g) { return g.server ? rc_server_trace_end(g.server) : rc_client_trace_end(g.client); }

/// The game's step: counts frames in the world's resource inside two nested slices of its own.
int traced_step(rc_world *w, const rc_frame_inputs *, void *user) {
    auto &g = *static_cast<game_slices *>(user);
    ++g.steps;
    if (begin(g, g.outer) != RC_OK || begin(g, g.inner) != RC_OK) g.failed = true;
    void *p = nullptr;
    if (rc_resource_get(w, 0, &p) != RC_OK) return 1;
    ++static_cast<ticks *>(p)->count;
    if (end(g) != RC_OK || end(g) != RC_OK) g.failed = true;
    return 0;
}

/// A server and one client over a perfect simulated link in callback mode, created with the
/// options given (NULL: the defaults).
class traced_match : public match_fixture {
public:
    traced_match(const rc_server_options *so, const rc_client_options *co) : match_fixture{11} {
        const rc_session_config c = default_config();
        REQUIRE_OK(rc_server_create(&c, server_world, server_end, traced_step, &server_game, so, &server),
                   rc_last_error());
        REQUIRE_OK(rc_client_create(&c, client_world, client_end, traced_step, &client_game, co, &client),
                   rc_last_error());
        server_game.server = server;
        client_game.client = client;
    }

    /// Names the slices, then runs the match until the client has stepped @p frames frames.
    void play(std::uint64_t frames) {
        REQUIRE_OK(rc_server_trace_name(server, "server game", &server_game.outer), rc_server_last_error(server));
        REQUIRE_OK(rc_server_trace_name(server, "physics", &server_game.inner), rc_server_last_error(server));
        REQUIRE_OK(rc_client_trace_name(client, "client game", &client_game.outer), rc_client_last_error(client));
        REQUIRE_OK(rc_client_trace_name(client, "physics", &client_game.inner), rc_client_last_error(client));
        for (int k = 0; k < 5000 && client_game.steps < frames; ++k) {
            now += 2;
            REQUIRE_OK(rc_server_update(server, now), rc_server_last_error(server));
            const pad_input in{static_cast<std::uint32_t>(k / 40)};
            REQUIRE_OK(rc_client_update(client, now, &in, sizeof in), rc_client_last_error(client));
        }
        REQUIRE(client_game.steps >= frames);
        CHECK_FALSE(server_game.failed);
        CHECK_FALSE(client_game.failed);
    }

    game_slices server_game, client_game;
    std::uint64_t now = 0;
};

rc_server_options server_options(std::uint32_t records) {
    rc_server_options o{};
    o.struct_size = sizeof o;
    REQUIRE(rc_server_options_default(&o) == RC_OK);
    o.trace_records = records;
    return o;
}
rc_client_options client_options(std::uint32_t records) {
    rc_client_options o{};
    o.struct_size = sizeof o;
    REQUIRE(rc_client_options_default(&o) == RC_OK);
    o.trace_records = records;
    return o;
}

std::string read_file(const std::filesystem::path &p) {
    const std::vector<std::byte> bytes = retcon::test::read_bytes(p);
    return {reinterpret_cast<const char *>(bytes.data()), bytes.size()};
}

} // namespace

TEST_CASE("capi traces: a match's traces written from C pass the strict checker with the game's slices") {
    handler_guard guard;
    rc_server_options so = server_options(1u << 16);
    so.trace_process_name = "C game server";
    so.trace_pid = 4242;
    rc_client_options co = client_options(1u << 16);
    co.trace_process_name = "C game client";
    traced_match m{&so, &co};
    m.play(200);

    retcon::test::temp_dir dir;
    const auto server_path = dir.path() / "server.json", client_path = dir.path() / "client.json";
    REQUIRE_OK(rc_server_write_trace(m.server, server_path.c_str()), rc_server_last_error(m.server));
    REQUIRE_OK(rc_client_write_trace(m.client, client_path.c_str()), rc_client_last_error(m.client));

    for (const auto &[path, game] : {std::pair{server_path, &m.server_game}, std::pair{client_path, &m.client_game}}) {
        INFO(path);
        const retcon::test::trace_check c = retcon::test::check_trace_file(path);
        INFO((c.ok() ? std::string{} : c.problems.front()));
        REQUIRE(c.ok());
        const std::string outer = game == &m.server_game ? "server game" : "client game";
        // One outer and one inner slice per step the session asked of the game, rollbacks included.
        CHECK(c.summary.slices.at(outer) == game->steps);
        CHECK(c.summary.slices.at("physics") == game->steps);
        CHECK(c.summary.nested_in.at("physics<" + outer) == game->steps);
        CHECK(c.summary.slices.at("tick") > 0);
    }
    const std::string server_json = read_file(server_path), client_json = read_file(client_path);
    CHECK_THAT(server_json, Contains("\"C game server\""));
    CHECK_THAT(server_json, Contains("\"pid\":4242"));
    CHECK_THAT(client_json, Contains("\"C game client\""));
    guard.check();
}

TEST_CASE("capi traces: the options' older versions are read by their size and keep no trace") {
    handler_guard guard;
    // Fields past a caller's struct_size are not the caller's: garbage there must not be read.
    rc_server_options so = server_options(1u << 12);
    so.trace_process_name = reinterpret_cast<const char *>(std::uintptr_t{1});
    so.struct_size = static_cast<std::uint32_t>(RC_SERVER_OPTIONS_SIZE_V2);
    rc_client_options co = client_options(1u << 12);
    co.trace_process_name = reinterpret_cast<const char *>(std::uintptr_t{1});
    co.struct_size = static_cast<std::uint32_t>(RC_CLIENT_OPTIONS_SIZE_V2);

    SECTION("second versions") {
        traced_match m{&so, &co};
        m.play(30);
        CHECK_FAILS(rc_server_write_trace(m.server, "unused.json"), RC_ERR_ARGUMENT, rc_server_last_error(m.server),
                    "no trace is kept (rc_server_options.trace_records is 0)");
        CHECK_FAILS(rc_client_write_trace(m.client, "unused.json"), RC_ERR_ARGUMENT, rc_client_last_error(m.client),
                    "no trace is kept (rc_client_options.trace_records is 0)");
    }
    SECTION("the client's first version") {
        co.struct_size = static_cast<std::uint32_t>(RC_CLIENT_OPTIONS_SIZE_V1);
        traced_match m{&so, &co};
        m.play(30);
        CHECK_FAILS(rc_client_write_trace(m.client, "unused.json"), RC_ERR_ARGUMENT, rc_client_last_error(m.client),
                    "no trace is kept");
    }
    SECTION("rc_*_options_default fills only what the size covers, and the trace off for the whole struct") {
        rc_server_options s{};
        std::memset(&s, 0xAB, sizeof s);
        s.struct_size = static_cast<std::uint32_t>(RC_SERVER_OPTIONS_SIZE_V2);
        REQUIRE(rc_server_options_default(&s) == RC_OK);
        CHECK(s.trace_records == 0xABABABABu); // not the caller's: left alone
        s.struct_size = sizeof s;
        REQUIRE(rc_server_options_default(&s) == RC_OK);
        CHECK(s.trace_records == 0);
        CHECK(s.trace_pid == 0);
        CHECK(s.trace_process_name == nullptr);
        CHECK(s.trace_clock == nullptr);
        CHECK(s.trace_clock_user == nullptr);
        rc_client_options c{};
        std::memset(&c, 0xAB, sizeof c);
        c.struct_size = static_cast<std::uint32_t>(RC_CLIENT_OPTIONS_SIZE_V2);
        REQUIRE(rc_client_options_default(&c) == RC_OK);
        CHECK(c.trace_records == 0xABABABABu);
        c.struct_size = sizeof c;
        REQUIRE(rc_client_options_default(&c) == RC_OK);
        CHECK(c.trace_records == 0);
        CHECK(c.trace_process_name == nullptr);
        CHECK(c.trace_clock == nullptr);
    }
    guard.check();
}

TEST_CASE("capi traces: the trace is timed with the options' clock") {
    handler_guard guard;
    struct fixed_clock {
        static std::uint64_t now(void *user) { return *static_cast<std::uint64_t *>(user) += 1000; } // 1 µs a read
    };
    std::uint64_t server_ns = 0, client_ns = 5'000'000'000'000;
    rc_server_options so = server_options(1u << 14);
    so.trace_clock = &fixed_clock::now;
    so.trace_clock_user = &server_ns;
    rc_client_options co = client_options(1u << 14);
    co.trace_clock = &fixed_clock::now;
    co.trace_clock_user = &client_ns;
    traced_match m{&so, &co};
    m.play(20);
    CHECK(server_ns > 0);
    CHECK(client_ns > 5'000'000'000'000);
    retcon::test::temp_dir dir;
    const auto path = dir.path() / "client.json";
    REQUIRE_OK(rc_client_write_trace(m.client, path.c_str()), rc_client_last_error(m.client));
    const retcon::test::trace_check c = retcon::test::check_trace_file(path);
    REQUIRE(c.ok());
    // Timestamps in µs from the injected clock: 5e9 µs and beyond, never the system's.
    CHECK_THAT(read_file(path), Contains("\"ts\":500000000"));
    guard.check();
}

TEST_CASE("capi traces: misuse of the game's slices and of write_trace is refused with a message") {
    handler_guard guard;
    rc_server_options so = server_options(1u << 12);
    traced_match m{&so, nullptr}; // the client keeps no trace
    retcon::test::temp_dir dir;

    CHECK_FAILS(rc_server_write_trace(nullptr, "x.json"), RC_ERR_NULL, rc_last_error(), "server is NULL");
    CHECK_FAILS(rc_client_write_trace(nullptr, "x.json"), RC_ERR_NULL, rc_last_error(), "client is NULL");
    CHECK_FAILS(rc_server_write_trace(m.server, nullptr), RC_ERR_NULL, rc_server_last_error(m.server), "path is NULL");
    std::uint32_t id = 99;
    CHECK_FAILS(rc_server_trace_name(nullptr, "x", &id), RC_ERR_NULL, rc_last_error(), "server is NULL");
    CHECK_FAILS(rc_client_trace_name(nullptr, "x", &id), RC_ERR_NULL, rc_last_error(), "client is NULL");
    CHECK_FAILS(rc_server_trace_name(m.server, nullptr, &id), RC_ERR_NULL, rc_server_last_error(m.server),
                "name or out_id is NULL");
    CHECK_FAILS(rc_server_trace_name(m.server, "x", nullptr), RC_ERR_NULL, rc_server_last_error(m.server),
                "name or out_id is NULL");
    CHECK_FAILS(rc_server_trace_name(m.server, "", &id), RC_ERR_ARGUMENT, rc_server_last_error(m.server),
                "the name is empty");
    CHECK_FAILS(rc_server_trace_begin(nullptr, 0), RC_ERR_NULL, rc_last_error(), "server is NULL");
    CHECK_FAILS(rc_client_trace_begin(nullptr, 0), RC_ERR_NULL, rc_last_error(), "client is NULL");
    CHECK_FAILS(rc_server_trace_end(nullptr), RC_ERR_NULL, rc_last_error(), "server is NULL");
    CHECK_FAILS(rc_client_trace_end(nullptr), RC_ERR_NULL, rc_last_error(), "client is NULL");

    SECTION("an end without its begin") {
        CHECK_FAILS(rc_server_trace_end(m.server), RC_ERR_ARGUMENT, rc_server_last_error(m.server), "no slice is open");
        CHECK_FAILS(rc_client_trace_end(m.client), RC_ERR_ARGUMENT, rc_client_last_error(m.client), "no slice is open");
    }
    SECTION("an id trace_name did not hand out") {
        CHECK_FAILS(rc_server_trace_begin(m.server, 7), RC_ERR_ARGUMENT, rc_server_last_error(m.server),
                    "7 is not an id");
        CHECK_FAILS(rc_server_trace_begin(m.server, 70000), RC_ERR_ARGUMENT, rc_server_last_error(m.server),
                    "70000 is not an id");
        // With no trace kept the only id is 0, and its slices record nothing.
        REQUIRE(rc_client_trace_name(m.client, "physics", &id) == RC_OK);
        CHECK(id == 0);
        CHECK_FAILS(rc_client_trace_begin(m.client, 3), RC_ERR_ARGUMENT, rc_client_last_error(m.client),
                    "3 is not an id");
        CHECK(rc_client_trace_begin(m.client, 0) == RC_OK);
        CHECK(rc_client_trace_end(m.client) == RC_OK);
        CHECK_FAILS(rc_client_write_trace(m.client, (dir.path() / "c.json").c_str()), RC_ERR_ARGUMENT,
                    rc_client_last_error(m.client), "no trace is kept (rc_client_options.trace_records is 0)");
        CHECK_FALSE(std::filesystem::exists(dir.path() / "c.json"));
    }
    SECTION("nesting deeper than RC_TRACE_MAX_DEPTH, then every open slice ends and the trace is valid") {
        REQUIRE(rc_server_trace_name(m.server, "deep", &id) == RC_OK);
        for (unsigned i = 0; i < RC_TRACE_MAX_DEPTH; ++i) REQUIRE(rc_server_trace_begin(m.server, id) == RC_OK);
        CHECK_FAILS(rc_server_trace_begin(m.server, id), RC_ERR_ARGUMENT, rc_server_last_error(m.server),
                    "at most 32 deep");
        for (unsigned i = 0; i < RC_TRACE_MAX_DEPTH; ++i) REQUIRE(rc_server_trace_end(m.server) == RC_OK);
        CHECK_FAILS(rc_server_trace_end(m.server), RC_ERR_ARGUMENT, rc_server_last_error(m.server), "no slice is open");
        const auto path = dir.path() / "deep.json";
        REQUIRE_OK(rc_server_write_trace(m.server, path.c_str()), rc_server_last_error(m.server));
        const retcon::test::trace_check c = retcon::test::check_trace_file(path);
        INFO((c.ok() ? std::string{} : c.problems.front()));
        REQUIRE(c.ok());
        CHECK(c.summary.slices.at("deep") == RC_TRACE_MAX_DEPTH);
        CHECK(c.summary.nested_in.at("deep<deep") == RC_TRACE_MAX_DEPTH - 1);
    }
    SECTION("a path that cannot be written is an I/O error, and nothing is left there") {
        const auto path = dir.path() / "no such directory" / "t.json";
        CHECK_FAILS(rc_server_write_trace(m.server, path.c_str()), RC_ERR_IO, rc_server_last_error(m.server),
                    "rc_server_write_trace: ");
        CHECK_FALSE(std::filesystem::exists(path));
    }
    guard.check();
}

TEST_CASE("capi traces: the game's slices allocate nothing once their names are interned") {
    handler_guard guard;
    rc_server_options so = server_options(1u << 12);
    traced_match m{&so, nullptr};
    std::uint32_t outer = 0, inner = 0;
    {
        // The library's allocations are counted too: interning a long name is one of them.
        retcon::test::allocation_counter interning;
        REQUIRE(rc_server_trace_name(m.server, "a name longer than any small-string buffer", &outer) == RC_OK);
        CHECK(interning.count() > 0);
    }
    REQUIRE(rc_server_trace_name(m.server, "inner", &inner) == RC_OK);
    retcon::test::allocation_counter slices;
    for (int i = 0; i < 1000; ++i) {
        REQUIRE(rc_server_trace_begin(m.server, outer) == RC_OK);
        REQUIRE(rc_server_trace_begin(m.server, inner) == RC_OK);
        REQUIRE(rc_server_trace_end(m.server) == RC_OK);
        REQUIRE(rc_server_trace_end(m.server) == RC_OK);
    }
    CHECK(slices.count() == 0);
    guard.check();
}
