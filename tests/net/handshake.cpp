#include <catch2/catch.hpp>

#include <common/misuse.hpp>
#include <common/sim_match.hpp>

#include <cstdlib>

using namespace retcon;
using namespace retcon::test;

namespace {

/// Adds a client built from @p cfg instead of the match's config (sim_match::add_client uses the
/// server's), so the test can give it wrong match settings.
sim_client &add_client_with(sim_match &m, const session_config &cfg, std::uint64_t seed) {
    auto c = std::make_unique<sim_client>();
    init_game(c->w);
    c->input.state = seed;
    auto &t = m.net.connect({20, 2, 0.0}, {20, 2, 0.0});
    c->session = std::make_unique<client_session>(cfg, c->w, step_game, t);
    auto *raw = c.get();
    c->session->on_confirmed_hash([raw](frame_t f, std::uint64_t h) { raw->hashes[f] = h; });
    m.clients.push_back(std::move(c));
    return *m.clients.back();
}

} // namespace

TEST_CASE("a client adopts the server's player slots, tick rate and input delay", "[net][handshake]") {
    // The server runs 3 slots at 60 Hz with an input delay adapting between 1 and 4; the
    // client's config says 2 slots at 30 Hz, delay 5 fixed. In protocol version 1 the server
    // rejected it ("player slots"); now it joins, adopts the server's settings and plays in
    // lock-step.
    session_config server_cfg = game_config(3);
    server_cfg.tick_hz = 60;
    server_cfg.input_delay = 1;
    server_cfg.max_input_delay = 4;
    sim_match m{41, 3, server_cfg};
    auto &regular = m.add_client({20, 2, 0.0}, {20, 2, 0.0});
    session_config client_cfg = game_config(2);
    client_cfg.tick_hz = 30;
    client_cfg.input_delay = 5;
    client_cfg.max_input_delay = 0;
    auto &odd = add_client_with(m, client_cfg, 0x1234567u);
    CHECK(odd.session->players() == 0); // nothing known before the welcome
    CHECK(odd.session->tick_hz() == 0);
    m.run(6000);

    REQUIRE(odd.session->state() == client_state::running);
    CHECK(sim_match::count(odd.events, session_event_kind::rejected) == 0);
    CHECK(odd.session->players() == 3);
    CHECK(odd.session->tick_hz() == 60);
    const auto delay = odd.session->stats().input_delay;
    CHECK(delay >= 1);
    CHECK(delay <= 4);
    CHECK(m.server->players() == 2);
    // Lock-step at the server's rate: both clients stay within a few frames of the server
    // (at 30 Hz the odd one would be ~180 frames behind after 6 s) and agree with it.
    for (auto *c : {&regular, &odd}) {
        const auto cmp = m.compare(*c);
        INFO("compared " << cmp.compared << " frames; client at " << c->session->current_frame() << ", server at "
                         << m.server->frame());
        CHECK(cmp.compared > 250);
        CHECK(cmp.mismatched == 0);
        CHECK(std::abs(static_cast<long>(c->session->current_frame()) - static_cast<long>(m.server->frame())) < 15);
    }
}

TEST_CASE("is_predicted says which inputs a frame was simulated with are not yet confirmed", "[net][handshake]") {
    sim_match m{42, 2};
    auto &a = m.add_client({40, 0, 0.0}, {40, 0, 0.0});
    m.add_client({40, 0, 0.0}, {40, 0, 0.0});
    m.run(3000);
    const client_session &s = *a.session;
    REQUIRE(s.state() == client_state::running);
    REQUIRE(s.current_frame() > s.confirmed_frame()); // 80 ms round trip: the client predicts
    for (std::size_t slot = 0; slot < 2; ++slot) {
        CHECK_FALSE(s.is_predicted(s.confirmed_frame() - 1u, slot));
        CHECK(s.is_predicted(s.current_frame() - 1u, slot));
        CHECK(s.is_predicted(s.current_frame() + 10u, slot));
    }
    retcon::test::throwing_misuse_handler handler;
    CHECK_THROWS_WITH((void)s.is_predicted(s.current_frame(), 2), Catch::Contains("slot 2"));
}

TEST_CASE("a hello of an older protocol version is rejected by name, not dropped as hostile", "[net][handshake]") {
    // Version 1 carried tick rate and player slots (42 bytes with an empty name); version 2 an
    // 8-byte reconnect token (39 bytes).
    const auto [old_version, size] = GENERATE(table<std::uint8_t, std::size_t>({{1, 42}, {2, 39}}));
    sim_match m{43, 2};
    auto &c = m.add_client({10, 0, 0.0}, {10, 0, 0.0});
    m.run(1000);
    REQUIRE(c.session->state() == client_state::running);
    std::vector<std::byte> hello(size, std::byte{0});
    hello[0] = std::byte{1};
    hello[1] = std::byte{old_version};
    struct ignore_all final : transport_handler {
        void on_connect(peer_id) override {}
        void on_disconnect(peer_id) override {}
        void on_receive(peer_id, wire::channel, std::span<const std::byte>) override {}
    } ignore;
    auto &t = m.net.connect({10, 0, 0.0}, {10, 0, 0.0});
    t.poll(m.now, ignore); // the connection exists once the client side polled
    m.run(100);
    m.net.inject_from_client(1, wire::channel::control, hello, m.now);
    m.run(200);
    bool rejected = false;
    for (const auto &e : m.server_events)
        if (e.kind == session_event_kind::disconnected && e.cause == disconnect_cause::rejected &&
            e.reject == wire::reject_reason::protocol)
            rejected = true;
    CHECK(rejected);
    CHECK(c.session->state() == client_state::running);
}

TEST_CASE("a hello from a big-endian client is rejected by name and changes nothing else", "[net][handshake]") {
    // Retcon peers are little-endian only (docs/protocol.md, "1 hello"): a hello with flags
    // bit 1 gets `reject protocol` saying so, even when everything else matches.
    sim_match m{45, 2};
    auto &c = m.add_client({10, 0, 0.0}, {10, 0, 0.0});
    m.run(1000);
    REQUIRE(c.session->state() == client_state::running);
    REQUIRE(m.server->players() == 1);

    struct recorder final : transport_handler {
        std::vector<std::vector<std::byte>> control;
        bool closed = false;
        void on_connect(peer_id) override {}
        void on_disconnect(peer_id) override { closed = true; }
        void on_receive(peer_id, wire::channel ch, std::span<const std::byte> data) override {
            if (ch == wire::channel::control) control.emplace_back(data.begin(), data.end());
        }
    };
    wire::hello_msg h;
    h.schema_hash = m.server_world.schema_hash();
    h.input_layout_hash = m.config.input_layout_hash;
    h.content_version = m.config.content_version;
    h.input_size = m.config.input_size;
    h.name = "be";
    h.big_endian = true;
    std::vector<std::byte> hello;
    wire::encode(h, hello);

    recorder big;
    auto &t = m.net.connect({10, 0, 0.0}, {10, 0, 0.0});
    t.poll(m.now, big); // the connection exists once the client side polled
    m.run(100);
    const auto joined_before = sim_match::count(m.server_events, session_event_kind::player_joined);
    const auto frame_before = m.server->frame();
    t.send(0, wire::channel::control, hello);
    m.run(200);
    t.poll(m.now, big);

    REQUIRE(big.control.size() == 1);
    REQUIRE(wire::peek_kind(big.control[0]) == static_cast<std::uint8_t>(wire::message_kind::reject));
    wire::reject_msg rej;
    REQUIRE(wire::decode(big.control[0], rej));
    CHECK(rej.reason == wire::reject_reason::protocol);
    CHECK(rej.text == "the client is big-endian; retcon peers are little-endian only");
    CHECK(big.closed);
    bool rejected = false;
    for (const auto &e : m.server_events)
        if (e.kind == session_event_kind::disconnected && e.cause == disconnect_cause::rejected &&
            e.reject == wire::reject_reason::protocol && e.name == "be")
            rejected = true; // the event names whom it refused (docs/net.md, "Security model")
    CHECK(rejected);
    // Nothing else changed: no slot taken, the match goes on, the other client plays on.
    CHECK(m.server->players() == 1);
    CHECK(sim_match::count(m.server_events, session_event_kind::player_joined) == joined_before);
    CHECK(m.server->frame() > frame_before);
    CHECK(c.session->state() == client_state::running);
    CHECK(m.compare(c).mismatched == 0);

    // The same hello without the bit is welcome: byte order was the only reason.
    recorder little;
    auto &t2 = m.net.connect({10, 0, 0.0}, {10, 0, 0.0});
    t2.poll(m.now, little);
    m.run(100);
    h.big_endian = false;
    wire::encode(h, hello);
    t2.send(0, wire::channel::control, hello);
    m.run(200);
    t2.poll(m.now, little);
    REQUIRE_FALSE(little.control.empty());
    CHECK(wire::peek_kind(little.control[0]) == static_cast<std::uint8_t>(wire::message_kind::welcome));
    CHECK(m.server->players() == 2);
}

TEST_CASE("a hello of another simulation semantics or protocol version is refused by name", "[net][handshake]") {
    // A peer that would simulate differently (docs/protocol.md, "Changes in version 7") and a
    // version 6 peer, whose hello has no such fields: each gets one reject with its reason.
    sim_match m{46, 2};
    struct recorder final : transport_handler {
        std::vector<std::vector<std::byte>> control;
        void on_connect(peer_id) override {}
        void on_disconnect(peer_id) override {}
        void on_receive(peer_id, wire::channel ch, std::span<const std::byte> data) override {
            if (ch == wire::channel::control) control.emplace_back(data.begin(), data.end());
        }
    };
    auto refusal = [&m](const std::vector<std::byte> &hello) {
        recorder r;
        auto &t = m.net.connect({10, 0, 0.0}, {10, 0, 0.0});
        t.poll(m.now, r);
        m.run(100);
        t.send(0, wire::channel::control, hello);
        m.run(200);
        t.poll(m.now, r);
        wire::reject_msg rej;
        REQUIRE(r.control.size() == 1);
        REQUIRE(wire::decode(r.control[0], rej));
        return rej;
    };
    wire::hello_msg h;
    h.schema_hash = m.server_world.schema_hash();
    h.input_layout_hash = m.config.input_layout_hash;
    h.content_version = m.config.content_version;
    h.input_size = m.config.input_size;
    h.name = "old";
    h.semantics = 1;
    std::vector<std::byte> hello;
    wire::encode(h, hello);
    auto rej = refusal(hello);
    CHECK(rej.reason == wire::reject_reason::schema);
    CHECK(rej.text == "the client simulates with semantics 1, this server " + std::to_string(simulation_semantics));

    h.semantics = simulation_semantics;
    wire::encode(h, hello);
    hello.erase(hello.begin() + 11, hello.begin() + 14); // the version 6 layout
    hello[1] = std::byte{6};
    rej = refusal(hello);
    CHECK(rej.reason == wire::reject_reason::protocol);
    CHECK(rej.text == "protocol version 6, server speaks " + std::to_string(wire::protocol_version));
    CHECK(m.server->players() == 0);
}

TEST_CASE("a client whose server never answers gives up after connect_timeout_ms", "[net][handshake]") {
    // A transport that connects but a server session that is never polled: nobody answers the
    // hello. The simulated network has no addresses, so the text says "the server".
    sim_network net{44};
    world w{game_schema()};
    init_game(w);
    client_options opt;
    opt.connect_timeout_ms = 300;
    client_session c{game_config(2), w, step_game, net.connect({10, 0, 0.0}, {10, 0, 0.0}), opt};
    std::vector<session_event> evs;
    std::uint64_t now = 1;
    for (; now < 2000 && c.state() == client_state::connecting; now += 10) {
        c.poll(now);
        for (session_event e; c.next_event(e);) evs.push_back(e);
    }
    REQUIRE(c.state() == client_state::disconnected);
    CHECK(now >= 300); // virtual time: the timeout, not the first poll, ended it
    REQUIRE(sim_match::count(evs, session_event_kind::disconnected) == 1);
    CHECK(evs.back().kind == session_event_kind::disconnected);
    CHECK(evs.back().cause == disconnect_cause::connect_failed);
}

TEST_CASE("a client reports its configured input delay in its stats before the welcome", "[net][handshake]") {
    sim_network net{45};
    world w{game_schema()};
    init_game(w);
    session_config cfg = game_config(2);
    cfg.input_delay = 3;
    client_session c{cfg, w, step_game, net.connect({10, 0, 0.0}, {10, 0, 0.0})};
    CHECK(c.stats().input_delay == 3);
    c.poll(1);
    CHECK(c.stats().input_delay == 3); // still connecting: the match's delay comes with the welcome
}
