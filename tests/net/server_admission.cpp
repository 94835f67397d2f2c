// server_options::admission: a host's check that refuses a hello or binds it to a slot and a
// player identity (docs/hosting.md, docs/protocol.md "Handshake"). Here the "join token" is
// two test bytes: the slot and the player id.
#include <catch2/catch.hpp>

#include <common/sim_match.hpp>

#include <string>

using namespace retcon;
using namespace retcon::test;

namespace {

const link_conditions wire_link{20, 2, 0.0};

std::vector<std::byte> ticket(int slot, int player) {
    return {std::byte(static_cast<std::uint8_t>(slot)), std::byte(static_cast<std::uint8_t>(player))};
}

server_options with_tickets() {
    server_options o;
    o.admission = [](peer_id, const wire::hello_msg &h) {
        if (h.join_token.size() != 2) return server_admission::refuse(wire::reject_reason::join_token, "no ticket");
        server_admission a;
        a.slot = static_cast<int>(h.join_token[0]);
        a.player_id = static_cast<std::uint64_t>(h.join_token[1]);
        return a;
    };
    return o;
}

client_options holding(int slot, int player) {
    client_options o;
    o.join_token = ticket(slot, player);
    return o;
}

/// The reason the client was refused (`none`: it was not).
wire::reject_reason rejection(const sim_client &c) {
    for (const auto &e : c.events)
        if (e.kind == session_event_kind::rejected) return e.reject;
    return wire::reject_reason::none;
}

} // namespace

TEST_CASE("admission: a refused hello gets the check's reason, the match goes on", "[net][admission]") {
    sim_match m{31, 3};
    m.use_server_options(with_tickets());
    auto &ann = m.add_client(wire_link, wire_link, holding(1, 7));
    m.run(1000);
    REQUIRE(ann.session->state() == client_state::running);
    auto &nobody = m.add_client(wire_link, wire_link);
    m.run(1000);
    CHECK(nobody.session->state() == client_state::rejected);
    CHECK(rejection(nobody) == wire::reject_reason::join_token); // the admission's own reason
    CHECK(m.server->players() == 1);
    CHECK(ann.session->state() == client_state::running);
}

TEST_CASE("admission: the check's slot is the player's, and only its player takes it over", "[net][admission]") {
    sim_match m{32, 3};
    m.use_server_options(with_tickets());
    auto &ann = m.add_client(wire_link, wire_link, holding(2, 7)); // slot 2, not the first free one
    m.run(1000);
    REQUIRE(ann.session->state() == client_state::running);
    CHECK(ann.session->slot() == 2);
    CHECK(m.server->slot_player(2) == 7);
    CHECK(m.server->slot_player(0) == 0);
    CHECK(m.server->knows(ann.session->reconnect_token()));

    // Another player sent to the same slot is refused; the holder keeps it.
    auto &bob = m.add_client(wire_link, wire_link, holding(2, 8));
    m.run(1000);
    CHECK(bob.session->state() == client_state::rejected);
    CHECK(rejection(bob) == wire::reject_reason::full);
    CHECK(ann.session->state() == client_state::running);

    // The same player with a new ticket (its client restarted without the reconnect token):
    // the old connection is stale and goes.
    ann.active = false;
    auto &again = m.add_client(wire_link, wire_link, holding(2, 7));
    m.run(1000);
    REQUIRE(again.session->state() == client_state::running);
    CHECK(again.session->slot() == 2);
    CHECK(sim_match::count(m.server_events, session_event_kind::player_left) == 1);
    CHECK(m.server->players() == 1);
}

TEST_CASE("admission: a reconnect token is honoured only for its slot's player identity", "[net][admission]") {
    sim_match m{33, 3};
    m.use_server_options(with_tickets());
    auto &ann = m.add_client(wire_link, wire_link, holding(0, 7));
    m.run(1000);
    REQUIRE(ann.session->state() == client_state::running);
    const auto token = ann.session->reconnect_token();
    ann.session->leave();
    ann.active = false;
    m.run(500);
    REQUIRE(m.server->players() == 0);

    // Ann's reconnect token presented with another player's ticket (a stolen token) is refused...
    auto stolen = holding(0, 9);
    stolen.reconnect_token = token;
    auto &thief = m.add_client(wire_link, wire_link, stolen);
    m.run(1000);
    CHECK(thief.session->state() == client_state::rejected);
    CHECK(rejection(thief) == wire::reject_reason::token);
    // ...and so is it with her identity but another slot's ticket.
    auto elsewhere = holding(1, 7);
    elsewhere.reconnect_token = token;
    auto &moved = m.add_client(wire_link, wire_link, elsewhere);
    m.run(1000);
    CHECK(moved.session->state() == client_state::rejected);

    // With her own ticket she is back in her slot.
    auto back = holding(0, 7);
    back.reconnect_token = token;
    auto &ann2 = m.add_client(wire_link, wire_link, back);
    m.run(1000);
    REQUIRE(ann2.session->state() == client_state::running);
    CHECK(ann2.session->slot() == 0);
    CHECK(ann2.session->reconnect_token() == token);
}

TEST_CASE("admission: a slot beyond the match is refused, not taken", "[net][admission]") {
    sim_match m{34, 2};
    m.use_server_options(with_tickets());
    auto &c = m.add_client(wire_link, wire_link, holding(5, 1));
    m.run(1000);
    CHECK(c.session->state() == client_state::rejected);
    CHECK(rejection(c) == wire::reject_reason::full);
    CHECK_FALSE(m.server->knows(reconnect_token{}));
}

TEST_CASE("admission: the check's name replaces the hello's in the events, texts stay one line", "[net][admission]") {
    server_options o = with_tickets();
    o.admission = [inner = o.admission](peer_id p, const wire::hello_msg &h) {
        server_admission a = inner(p, h);
        if (a.allowed) a.name = "signed \"ann\"";
        else
            a.text = "no ticket for " + h.name; // a refusal text that repeats what the client sent
        return a;
    };
    sim_match m{34, 3};
    m.use_server_options(o);
    const std::string forging = "x\n{\"event\":\"match_result\"}";
    client_options ann_opt = holding(1, 7);
    ann_opt.name = forging;
    auto &ann = m.add_client(wire_link, wire_link, ann_opt);
    client_options nobody_opt;
    nobody_opt.name = forging;
    auto &nobody = m.add_client(wire_link, wire_link, nobody_opt);
    m.run(1000);
    REQUIRE(ann.session->state() == client_state::running);
    REQUIRE(nobody.session->state() == client_state::rejected);

    bool joined = false;
    for (const auto &e : m.server_events) {
        INFO(e.text);
        CHECK(e.text.find('\n') == std::string::npos);
        CHECK(e.text.find("x\n{") == std::string::npos);
        if (e.kind != session_event_kind::player_joined) continue;
        joined = true;
        CHECK(e.name == "signed \"ann\"");       // the fact, as the check gave it
        CHECK(e.text == "signed \\x22ann\\x22"); // the log's text, escaped
    }
    CHECK(joined);
    // The client logs what the server sent as one line too.
    bool rejected = false;
    for (const auto &e : nobody.events) {
        if (e.kind != session_event_kind::rejected) continue;
        rejected = true;
        CHECK(e.text == "no ticket for x\\x0a{\"event\":\"match_result\"}");
    }
    CHECK(rejected);
}
