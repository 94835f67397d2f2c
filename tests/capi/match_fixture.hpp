#ifndef RETCON_TESTS_CAPI_MATCH_FIXTURE_HPP
#define RETCON_TESTS_CAPI_MATCH_FIXTURE_HPP

// What the C API's session tests share (docs/c-api.md, "Sessions"): a server world and a client
// world holding one resource the step counts frames in, a perfect simulated link between them,
// and the handles' teardown. Each test creates the sessions its own way.
#include <retcon.h>

#include <catch2/catch.hpp>

#include <cstdint>

#include "misuse_checks.hpp"

namespace retcon::capi_test {

/// The resource the step counts frames in.
struct ticks {
    std::uint64_t count;
};
inline const rc_field ticks_fields[] = {RC_FIELD(ticks, count, RC_U64)};

/// One player's input.
struct pad_input {
    std::uint32_t buttons;
};

/// The worlds and the link of a server and one client; `server` and `client` are the deriving
/// fixture's to create, and are destroyed here, before what they use.
class match_fixture {
public:
    /// The simulated network is seeded with @p seed.
    explicit match_fixture(std::uint64_t seed) {
        REQUIRE(rc_schema_create(&schema) == RC_OK);
        const rc_type_desc d{sizeof(rc_type_desc), "ticks", sizeof(ticks), ticks_fields, 1};
        REQUIRE(rc_schema_resource(schema, &d, &resource) == RC_OK);
        REQUIRE(rc_world_create(schema, &server_world) == RC_OK);
        REQUIRE(rc_world_create(schema, &client_world) == RC_OK);
        const ticks zero{0};
        REQUIRE(rc_resource_set(server_world, resource, &zero, sizeof zero) == RC_OK);
        REQUIRE(rc_sim_network_create(seed, &net) == RC_OK);
        REQUIRE(rc_sim_network_server(net, &server_end) == RC_OK);
        REQUIRE(rc_sim_network_connect(net, nullptr, nullptr, &client_end) == RC_OK);
    }
    ~match_fixture() {
        rc_client_destroy(client);
        rc_server_destroy(server);
        rc_transport_destroy(client_end);
        rc_transport_destroy(server_end);
        rc_sim_network_destroy(net);
        rc_world_destroy(client_world);
        rc_world_destroy(server_world);
        rc_schema_destroy(schema);
    }
    match_fixture(const match_fixture &) = delete;
    match_fixture &operator=(const match_fixture &) = delete;

    /// The defaults for one player sending a pad_input.
    static rc_session_config default_config() {
        rc_session_config c{};
        c.struct_size = sizeof c;
        REQUIRE(rc_session_config_default(&c) == RC_OK);
        c.max_players = 1;
        c.input_size = sizeof(pad_input);
        return c;
    }

    rc_schema *schema = nullptr;
    std::uint32_t resource = 0;
    rc_world *server_world = nullptr, *client_world = nullptr;
    rc_sim_network *net = nullptr;
    rc_transport *server_end = nullptr, *client_end = nullptr;
    rc_server *server = nullptr;
    rc_client *client = nullptr;
};

} // namespace retcon::capi_test

#endif
