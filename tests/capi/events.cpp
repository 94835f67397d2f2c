// rc_event's typed fields (docs/c-api.md, "Events"): the C enums mirror the C++ tables, the
// fields arrive from a real match, and a caller of the first struct version gets only its fields.
#include <retcon.h>
#include <retcon/net/events.hpp>
#include <retcon/net/protocol.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct ticks {
    std::uint64_t count;
};
const rc_field ticks_fields[] = {RC_FIELD(ticks, count, RC_U64)};

int count_frames(rc_world *, const rc_frame_inputs *, void *) { return 0; }

/// A one-slot server and two clients on a perfect simulated link, in callback mode.
struct full_match {
    full_match() {
        REQUIRE(rc_schema_create(&schema) == RC_OK);
        const rc_type_desc d{sizeof(rc_type_desc), "ticks", sizeof(ticks), ticks_fields, 1};
        std::uint32_t id = 0;
        REQUIRE(rc_schema_resource(schema, &d, &id) == RC_OK);
        for (auto *&w : worlds) REQUIRE(rc_world_create(schema, &w) == RC_OK);
        REQUIRE(rc_sim_network_create(3, &net) == RC_OK);
        REQUIRE(rc_sim_network_server(net, &server_end) == RC_OK);
        rc_session_config c{};
        c.struct_size = sizeof c;
        REQUIRE(rc_session_config_default(&c) == RC_OK);
        c.max_players = 1;
        c.input_size = 4;
        REQUIRE(rc_server_create(&c, worlds[0], server_end, &count_frames, nullptr, nullptr, &server) == RC_OK);
        for (int k = 0; k < 2; ++k) {
            REQUIRE(rc_sim_network_connect(net, nullptr, nullptr, &client_ends[k]) == RC_OK);
            REQUIRE(rc_client_create(&c, worlds[k + 1], client_ends[k], &count_frames, nullptr, nullptr, &clients[k]) ==
                    RC_OK);
            run(1000); // the first takes the slot before the second asks
        }
    }
    ~full_match() {
        for (auto *c : clients) rc_client_destroy(c);
        rc_server_destroy(server);
        for (auto *t : client_ends) rc_transport_destroy(t);
        rc_transport_destroy(server_end);
        rc_sim_network_destroy(net);
        for (auto *w : worlds) rc_world_destroy(w);
        rc_schema_destroy(schema);
    }
    full_match(const full_match &) = delete;
    full_match &operator=(const full_match &) = delete;

    void run(std::uint64_t ms) {
        const std::uint32_t input = 0;
        for (std::uint64_t end = now + ms; now < end;) {
            now += 2;
            REQUIRE(rc_server_update(server, now) == RC_OK);
            for (auto *c : clients)
                if (c) REQUIRE(rc_client_update(c, now, &input, sizeof input) == RC_OK);
        }
    }

    rc_schema *schema = nullptr;
    rc_world *worlds[3] = {};
    rc_sim_network *net = nullptr;
    rc_transport *server_end = nullptr, *client_ends[2] = {};
    rc_server *server = nullptr;
    rc_client *clients[2] = {};
    std::uint64_t now = 0;
};

} // namespace

TEST_CASE("the C event enums mirror the C++ tables", "[capi][events]") {
    CHECK(RC_EVENT_RECONNECTED == static_cast<int>(retcon::last_session_event_kind));
    for (std::uint32_t k = 0; k <= RC_EVENT_RECONNECTED; ++k)
        CHECK(std::string{rc_event_kind_name(k)} == retcon::to_string(static_cast<retcon::session_event_kind>(k)));

    const rc_disconnect_cause causes[] = {
        RC_DISCONNECT_NONE,           RC_DISCONNECT_CLOSED,      RC_DISCONNECT_TIMED_OUT, RC_DISCONNECT_LEFT,
        RC_DISCONNECT_MATCH_ENDED,    RC_DISCONNECT_REJECTED,    RC_DISCONNECT_REPLACED,  RC_DISCONNECT_VIOLATION,
        RC_DISCONNECT_CONNECT_FAILED, RC_DISCONNECT_BAD_SNAPSHOT};
    REQUIRE(std::size(causes) == static_cast<std::size_t>(retcon::disconnect_cause::bad_snapshot) + 1u);
    for (std::size_t i = 0; i < std::size(causes); ++i) {
        CHECK(static_cast<std::size_t>(causes[i]) == i);
        CHECK(std::string{rc_disconnect_cause_name(causes[i])} ==
              retcon::to_string(static_cast<retcon::disconnect_cause>(i)));
    }

    const rc_reject_reason reasons[] = {
        RC_REJECT_PROTOCOL, RC_REJECT_SCHEMA,     RC_REJECT_INPUT,      RC_REJECT_CONTENT, RC_REJECT_FULL,
        RC_REJECT_TOKEN,    RC_REJECT_SPECTATORS, RC_REJECT_JOIN_TOKEN, RC_REJECT_MATCH,   RC_REJECT_DRAINING};
    REQUIRE(std::size(reasons) == std::size(retcon::wire::reject_reasons));
    for (std::size_t i = 0; i < std::size(reasons); ++i) {
        CHECK(static_cast<int>(reasons[i]) == static_cast<int>(retcon::wire::reject_reasons[i].reason));
        CHECK(std::string{rc_reject_reason_name(reasons[i])} == retcon::wire::reject_reasons[i].name);
    }
    CHECK(std::string{rc_reject_reason_name(RC_REJECT_NONE)} == "none");
    CHECK(std::string{rc_reject_reason_name(5)} == "unknown"); // retired, never sent
    CHECK(std::string{rc_reject_reason_name(100000)} == "unknown");

    const rc_unverified_reason unverified[] = {RC_UNVERIFIED_NONE,
                                               RC_UNVERIFIED_QUOTA,
                                               RC_UNVERIFIED_SNAPSHOT_GONE,
                                               RC_UNVERIFIED_BUDGET,
                                               RC_UNVERIFIED_UPLOAD_TIMED_OUT,
                                               RC_UNVERIFIED_UNREADABLE,
                                               RC_UNVERIFIED_NO_DIFFERENCE,
                                               RC_UNVERIFIED_REBUILD_FAILED,
                                               RC_UNVERIFIED_UPLOAD_IN_PROGRESS};
    REQUIRE(std::size(unverified) == static_cast<std::size_t>(retcon::unverified_reason::upload_in_progress) + 1u);
    for (std::size_t i = 0; i < std::size(unverified); ++i) {
        CHECK(static_cast<std::size_t>(unverified[i]) == i);
        CHECK(std::string{rc_unverified_reason_name(unverified[i])} ==
              retcon::to_string(static_cast<retcon::unverified_reason>(i)));
    }
}

TEST_CASE("a refused client's event says why in its fields", "[capi][events]") {
    full_match m;
    m.run(500);
    rc_event e{};
    e.struct_size = sizeof e;
    int has = 0;
    bool rejected = false;
    while (rc_client_next_event(m.clients[1], &e, &has) == RC_OK && has) {
        if (e.kind != RC_EVENT_REJECTED) continue;
        rejected = true;
        CHECK(e.reject == RC_REJECT_FULL);
        CHECK(e.cause == RC_DISCONNECT_NONE);
        CHECK(e.unverified == RC_UNVERIFIED_NONE);
        CHECK(std::string{e.address}.empty());
        CHECK(e.diverging_count == 0);
        CHECK(std::string{e.diverging}.empty());
        CHECK(std::strlen(e.text) > 0);
    }
    CHECK(rejected);
}

TEST_CASE("a caller of rc_event's second version gets those fields and nothing past them", "[capi][events]") {
    // The third version added desync bisection's stage, stage_index and stage_count.
    full_match m;
    m.run(500);
    struct {
        rc_event e;
        unsigned char guard[8];
    } buf;
    std::memset(&buf, 0xCD, sizeof buf);
    buf.e.struct_size = static_cast<std::uint32_t>(RC_EVENT_SIZE_V2);
    int has = 0;
    bool rejected = false;
    while (rc_client_next_event(m.clients[1], &buf.e, &has) == RC_OK && has) {
        if (buf.e.kind == RC_EVENT_REJECTED) {
            rejected = true;
            CHECK(buf.e.reject == RC_REJECT_FULL); // a second-version field is written
        }
        const auto *tail = reinterpret_cast<const unsigned char *>(&buf.e) + RC_EVENT_SIZE_V2;
        for (std::size_t i = 0; i < sizeof buf - RC_EVENT_SIZE_V2; ++i) CHECK(tail[i] == 0xCD);
    }
    CHECK(rejected);
    // A full struct gets the third version's fields: none named for an event that is no desync.
    rc_event e{};
    e.struct_size = sizeof e;
    e.stage_index = 7;
    std::size_t seen = 0; // client 0 joined: it has events (connected, synchronized...) to check
    while (rc_client_next_event(m.clients[0], &e, &has) == RC_OK && has) {
        ++seen;
        CHECK(std::string{e.stage}.empty());
        CHECK(e.stage_index == -1);
        CHECK(e.stage_count == 0u);
        e.stage_index = 7;
    }
    CHECK(seen > 0);
}

TEST_CASE("a caller of rc_event's first version gets those fields and nothing past them", "[capi][events]") {
    full_match m;
    m.run(500);
    // A first-version struct followed by bytes the library must not write.
    struct {
        rc_event e;
        unsigned char guard[8];
    } buf;
    std::memset(&buf, 0xCD, sizeof buf);
    buf.e.struct_size = static_cast<std::uint32_t>(RC_EVENT_SIZE_V1);
    int has = 0;
    std::vector<std::uint32_t> kinds;
    while (rc_client_next_event(m.clients[1], &buf.e, &has) == RC_OK && has) {
        kinds.push_back(buf.e.kind);
        const auto *tail = reinterpret_cast<const unsigned char *>(&buf.e) + RC_EVENT_SIZE_V1;
        for (std::size_t i = 0; i < sizeof buf - RC_EVENT_SIZE_V1; ++i) CHECK(tail[i] == 0xCD);
    }
    CHECK(std::find(kinds.begin(), kinds.end(), static_cast<std::uint32_t>(RC_EVENT_REJECTED)) != kinds.end());
    buf.e.struct_size = static_cast<std::uint32_t>(RC_EVENT_SIZE_V1 - 1u);
    CHECK(rc_client_next_event(m.clients[0], &buf.e, &has) == RC_ERR_ARGUMENT);
}
