// server_hello (net/src/server_hello.hpp): what the server decides about a hello, without a
// transport (docs/protocol.md, "Handshake"; docs/net.md, "Spectators, late join, reconnect").
#include <catch2/catch.hpp>

#include <common/test_game.hpp>

#include <retcon/net/protocol.hpp>
#include <retcon/net/server_session.hpp>

#include <string>

#include "server_hello.hpp"
#include "slot_table.hpp"

using namespace retcon;
using namespace retcon::test;
using internal::judge_hello;
using internal::slot_table;

namespace {

constexpr std::uint64_t schema_hash = 0x5c4e;

/// A hello that matches game_config(2) and a world of schema_hash.
wire::hello_msg good_hello(const session_config &cfg) {
    wire::hello_msg h;
    h.schema_hash = schema_hash;
    h.input_size = cfg.input_size;
    h.input_layout_hash = cfg.input_layout_hash;
    h.content_version = cfg.content_version;
    h.name = "ann";
    return h;
}

} // namespace

TEST_CASE("server_hello: an incompatible client is refused with the reason of the first difference", "[net][parts]") {
    const session_config cfg = game_config(2);
    const server_options so;
    slot_table slots;
    slots.reset(2);
    wire::hello_msg h = good_hello(cfg);
    REQUIRE(judge_hello(1, h, schema_hash, cfg, so, 0, slots).admitted);

    h.content_version = cfg.content_version + 1;
    auto v = judge_hello(1, h, schema_hash, cfg, so, 0, slots);
    CHECK_FALSE(v.admitted);
    CHECK(v.reason == wire::reject_reason::content);
    CHECK(v.text == "content version " + std::to_string(h.content_version) + ", server has " +
                        std::to_string(cfg.content_version));
    h.input_size = static_cast<std::uint16_t>(cfg.input_size + 1);
    CHECK(judge_hello(1, h, schema_hash, cfg, so, 0, slots).reason == wire::reject_reason::input);
    v = judge_hello(1, h, schema_hash + 1, cfg, so, 0, slots);
    CHECK(v.reason == wire::reject_reason::schema);
    CHECK(v.text == "world schema differs from the server's (different game build?)");
    // The handle size and simulation semantics come before the hash, which covers them, so the
    // refusal says which differs (docs/protocol.md, "Handshake").
    h.semantics = simulation_semantics - 1;
    v = judge_hello(1, h, schema_hash + 1, cfg, so, 0, slots);
    CHECK(v.reason == wire::reject_reason::schema);
    CHECK(v.text == "the client simulates with semantics " + std::to_string(simulation_semantics - 1) +
                        ", this server " + std::to_string(simulation_semantics));
    if (simulation_semantics == 2) CHECK(v.text == "the client simulates with semantics 1, this server 2");
    const int other_bits = wire::entity_handle_bits == 32 ? 64 : 32;
    h.entity_bits = static_cast<std::uint8_t>(other_bits);
    v = judge_hello(1, h, schema_hash + 1, cfg, so, 0, slots);
    CHECK(v.reason == wire::reject_reason::schema);
    CHECK(v.text == "the client uses " + std::to_string(other_bits) + "-bit entity handles, this server " +
                        std::to_string(wire::entity_handle_bits) + "-bit");
    if (wire::entity_handle_bits == 32) CHECK(v.text == "the client uses 64-bit entity handles, this server 32-bit");
    h.big_endian = true; // byte order first: nothing else can be compared
    v = judge_hello(1, h, schema_hash + 1, cfg, so, 0, slots);
    CHECK(v.reason == wire::reject_reason::protocol);
    CHECK(v.text == "the client is big-endian; retcon peers are little-endian only");
}

TEST_CASE("server_hello: the host's admission refuses, or binds the slot and the player", "[net][parts]") {
    const session_config cfg = game_config(2);
    server_options so;
    slot_table slots;
    slots.reset(2);
    const wire::hello_msg h = good_hello(cfg);
    peer_id asked = no_peer;
    so.admission = [&](peer_id peer, const wire::hello_msg &) {
        asked = peer;
        return server_admission::refuse(wire::reject_reason::join_token, "token expired");
    };
    auto v = judge_hello(9, h, schema_hash, cfg, so, 0, slots);
    CHECK(asked == 9u);
    CHECK_FALSE(v.admitted);
    CHECK(v.reason == wire::reject_reason::join_token);
    CHECK(v.text == "token expired");

    so.admission = [](peer_id, const wire::hello_msg &) {
        server_admission a;
        a.slot = 1;
        a.player_id = 77;
        return a;
    };
    v = judge_hello(9, h, schema_hash, cfg, so, 0, slots);
    REQUIRE(v.admitted);
    CHECK(v.slot == 1);
    CHECK(v.player_id == 77u);
    CHECK(v.replaces == no_peer);

    so.admission = [](peer_id, const wire::hello_msg &) {
        server_admission a;
        a.slot = 2; // a 2-player match has slots 0 and 1
        return a;
    };
    v = judge_hello(9, h, schema_hash, cfg, so, 0, slots);
    CHECK(v.reason == wire::reject_reason::full);
    CHECK(v.text == "no slot 2 in this match");
}

TEST_CASE("server_hello: spectator places and player slots run out", "[net][parts]") {
    const session_config cfg = game_config(1);
    server_options so;
    so.max_spectators = 2;
    slot_table slots;
    slots.reset(1);
    wire::hello_msg h = good_hello(cfg);
    h.spectator = true;
    auto v = judge_hello(3, h, schema_hash, cfg, so, 1, slots);
    REQUIRE(v.admitted);
    CHECK(v.slot == -1);
    v = judge_hello(3, h, schema_hash, cfg, so, 2, slots);
    CHECK(v.reason == wire::reject_reason::spectators);
    CHECK(v.text == "no free spectator place (the server allows 2)");

    h.spectator = false;
    v = judge_hello(3, h, schema_hash, cfg, so, 0, slots);
    REQUIRE(v.admitted);
    CHECK(v.slot == 0);
    (void)slots.take(0, 3, false, 0); // judging changes nothing: the session takes the slot
    v = judge_hello(4, h, schema_hash, cfg, so, 0, slots);
    CHECK(v.reason == wire::reject_reason::full);
}

TEST_CASE("server_hello: the welcome carries the server's settings, spectators report checksums only when verified",
          "[net][parts]") {
    session_config cfg = game_config(3);
    cfg.input_delay = 2;
    cfg.max_input_delay = 1; // below the delay: the delay is fixed
    const auto m = internal::make_welcome(cfg, 420, 1, false);
    CHECK(m.max_players == 3u);
    CHECK(m.tick_hz == cfg.tick_hz);
    CHECK(m.input_delay == 2u);
    CHECK(m.max_input_delay == 2u);
    CHECK(m.server_frame == 420u);
    CHECK(m.report_checksums);
    CHECK_FALSE(internal::make_welcome(cfg, 420, -1, false).report_checksums);
    CHECK(internal::make_welcome(cfg, 420, -1, true).report_checksums);
}
