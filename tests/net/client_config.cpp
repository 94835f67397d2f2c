// A client's config (net/include/retcon/net/client_config.hpp; docs/net.md, "session_config"):
// what a client needs without the match settings its server's welcome brings.
#include <catch2/catch.hpp>

#include <common/misuse.hpp>
#include <common/test_game.hpp>

#include <retcon/net/client_config.hpp>

#include <cstdint>
#include <map>

using namespace retcon;
using namespace retcon::test;

TEST_CASE("make_client_config<Input> gives the input size and layout hash the server's config has", "[net][config]") {
    const client_config client = make_client_config<game_input>();
    const session_config server = make_session_config<game_input>(3, 30);
    CHECK(client.input_size == sizeof(game_input));
    CHECK(client.input_size == server.input_size);
    CHECK(client.input_layout_hash == server.input_layout_hash);
    CHECK(client.input_layout_hash != 0);
    // The local tuning starts where session_config's does.
    CHECK(client.prediction_window == server.prediction_window);
    CHECK(client.checksum_interval == server.checksum_interval);
    CHECK(client.interrupt_ms == server.interrupt_ms);
    CHECK(client.disconnect_ms == server.disconnect_ms);
}

TEST_CASE("make_client_config(session_config) keeps every field a client uses", "[net][config]") {
    session_config match = game_config(4);
    match.content_version = 77;
    match.prediction_window = 9;
    match.checksum_interval = 3;
    match.interrupt_ms = 123;
    match.disconnect_ms = 4567;
    const client_config c = make_client_config(match);
    CHECK(c.input_size == match.input_size);
    CHECK(c.input_layout_hash == match.input_layout_hash);
    CHECK(c.content_version == 77);
    CHECK(c.prediction_window == 9);
    CHECK(c.checksum_interval == 3);
    CHECK(c.interrupt_ms == 123);
    CHECK(c.disconnect_ms == 4567);
    // The prediction rule travels: fire (byte 2) is never repeated, the stick is.
    const std::uint8_t last[] = {5, 6, 1, 0};
    std::uint8_t predicted[4] = {};
    c.prediction.predict(std::as_bytes(std::span{last}), std::as_writable_bytes(std::span{predicted}));
    CHECK(predicted[0] == 5);
    CHECK(predicted[2] == 0);
}

TEST_CASE("a client with a client_config plays the server's match: players and tick rate from the welcome",
          "[net][config]") {
    sim_network net{31};
    world server_world{game_schema()};
    init_game(server_world);
    server_session server{make_session_config<game_input>(3, 30), server_world, step_game, net.server()};
    std::map<frame_t, std::uint64_t> server_hashes, client_hashes;
    server.on_confirmed([&](const frame_inputs &in, const world &, std::uint64_t h) { server_hashes[in.frame()] = h; });

    world client_world{game_schema()};
    init_game(client_world);
    client_session client{make_client_config<game_input>(), client_world, step_game, net.connect({}, {})};
    client.on_confirmed_hash([&](frame_t f, std::uint64_t h) { client_hashes[f] = h; });
    CHECK(client.players() == 0); // nothing is known before the welcome

    bot input{7};
    for (std::uint64_t now = 1; now <= 1500; ++now) {
        server.poll(now);
        while (server.should_tick(now)) server.tick();
        client.poll(now);
        while (client.should_tick(now)) client.tick(input.next());
    }
    REQUIRE(client.state() == client_state::running);
    CHECK(client.players() == 3);
    CHECK(client.tick_hz() == 30);
    CHECK(client.slot() == 0);
    std::size_t compared = 0;
    for (const auto &[f, h] : client_hashes) {
        const auto it = server_hashes.find(f);
        if (it == server_hashes.end()) continue;
        ++compared;
        CHECK(it->second == h);
    }
    CHECK(compared > 20); // 1.5 s at 30 Hz, minus the handshake
}

TEST_CASE("client_config_problem names each rule and a client session reports it as misuse", "[net][config]") {
    const client_config valid = make_client_config<game_input>();
    CHECK(client_config_problem(valid).empty());
    struct rule {
        void (*set)(client_config &);
        const char *message;
    };
    const rule rules[] = {
        {[](client_config &c) { c.input_size = 0; }, "client_config: input_size 0 is outside 1..64"},
        {[](client_config &c) { c.input_size = 65; }, "client_config: input_size 65 is outside 1..64"},
        {[](client_config &c) { c.prediction_window = 0; }, "client_config: prediction_window 0 is outside 1..256"},
        {[](client_config &c) { c.prediction_window = 257; }, "client_config: prediction_window 257 is outside 1..256"},
    };
    for (const rule &r : rules) {
        client_config c = valid;
        r.set(c);
        CHECK(client_config_problem(c) == r.message);
    }
    client_config edges = valid;
    edges.input_size = 64;
    edges.prediction_window = 256;
    CHECK(client_config_problem(edges).empty());

    sim_network net{32};
    world w{game_schema()};
    client_config tiny = valid;
    tiny.prediction_window = 0;
    REQUIRE_MISUSE(client_session(tiny, w, step_game, net.connect({}, {})),
                   "client_config: prediction_window 0 is outside 1..256");
}
