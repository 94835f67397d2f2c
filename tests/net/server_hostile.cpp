#include <catch2/catch.hpp>

#include <common/misuse.hpp>
#include <common/sim_match.hpp>

#include <array>

using namespace retcon;
using namespace retcon::test;

namespace {

/// Two clients on clean links, running; client 1 then misbehaves through @p attack.
template<class Attack>
void check_offender_dropped(Attack attack, const std::string &reason) {
    sim_match m{3, 2};
    auto &good = m.add_client({20, 2, 0}, {20, 2, 0});
    auto &bad = m.add_client({20, 2, 0}, {20, 2, 0});
    m.run(1500);
    REQUIRE(bad.session->state() == client_state::running);
    const int bad_slot = bad.session->slot();
    attack(m, bad_slot);
    m.run(2000);
    bool dropped = false;
    for (const auto &e : m.server_events)
        if (e.kind == session_event_kind::disconnected && e.slot == bad_slot) {
            INFO("reason: " << e.text << " (the attack: " << reason << ")");
            CHECK(e.cause == disconnect_cause::violation);
            dropped = true;
        }
    CHECK(dropped);
    CHECK(sim_match::count(m.server_events, session_event_kind::player_left) == 1);
    CHECK(m.server->players() == 1);
    CHECK(bad.session->state() == client_state::disconnected);
    // The well-behaved client plays on, in sync.
    const auto before = m.compare(good).compared;
    m.run(2000);
    const auto after = m.compare(good);
    CHECK(good.session->state() == client_state::running);
    CHECK(after.compared > before + 60);
    CHECK(after.mismatched == 0);
}

std::vector<std::byte> input_packet(std::uint8_t slot, std::uint32_t first, std::uint8_t count) {
    wire::input_msg msg;
    msg.slot = slot;
    msg.first_frame = first;
    msg.count = count;
    msg.client_time_ms = 1;
    msg.inputs.assign(std::size_t{count} * 4u, std::byte{1});
    std::vector<std::byte> out;
    wire::encode(msg, 4, {}, out);
    return out;
}

} // namespace

TEST_CASE("server drops a client sending a malformed packet", "[net][hostile]") {
    check_offender_dropped(
        [](sim_match &m, int slot) {
            auto p = input_packet(static_cast<std::uint8_t>(slot), m.server->frame(), 2);
            p.resize(p.size() - 3); // truncated
            m.net.inject_from_client(1, wire::channel::inputs, p, m.now);
        },
        "malformed input packet: ");
}

TEST_CASE("server drops a client sending an oversized packet", "[net][hostile]") {
    check_offender_dropped(
        [](sim_match &m, int) {
            std::vector<std::byte> big(5000, std::byte{4});
            m.net.inject_from_client(1, wire::channel::inputs, big, m.now);
        },
        "oversized");
}

TEST_CASE("server drops a client claiming another player's slot", "[net][hostile]") {
    check_offender_dropped(
        [](sim_match &m, int slot) {
            const auto other = static_cast<std::uint8_t>(slot == 0 ? 1 : 0);
            m.net.inject_from_client(1, wire::channel::inputs, input_packet(other, m.server->frame(), 1), m.now);
        },
        "slot");
}

TEST_CASE("server drops a client sending frames far in the future", "[net][hostile]") {
    check_offender_dropped(
        [](sim_match &m, int slot) {
            m.net.inject_from_client(1, wire::channel::inputs,
                                     input_packet(static_cast<std::uint8_t>(slot), m.server->frame() + 100000, 1),
                                     m.now);
        },
        "far beyond");
}

TEST_CASE("server drops a flooding client", "[net][hostile]") {
    check_offender_dropped(
        [](sim_match &m, int slot) {
            const auto p = input_packet(static_cast<std::uint8_t>(slot), m.server->frame(), 1);
            for (int i = 0; i < 2000; ++i) m.net.inject_from_client(1, wire::channel::inputs, p, m.now);
        },
        "flood");
}

TEST_CASE("server drops a client sending an unexpected message kind", "[net][hostile]") {
    check_offender_dropped(
        [](sim_match &m, int) {
            std::vector<std::byte> out;
            wire::welcome_msg welcome;
            welcome.slot = 0;
            welcome.max_players = 2;
            wire::encode(welcome, out); // a server-only message
            m.net.inject_from_client(1, wire::channel::control, out, m.now);
        },
        "unexpected");
}

TEST_CASE("server drops a client uploading a snapshot nobody asked for", "[net][hostile]") {
    check_offender_dropped(
        [](sim_match &m, int) {
            wire::snapshot_chunk_msg c;
            c.transfer = 1;
            c.frame = 5;
            c.total = 10;
            c.bytes.assign(10, std::byte{1});
            std::vector<std::byte> out;
            wire::encode(c, out);
            m.net.inject_from_client(1, wire::channel::snapshots, out, m.now);
        },
        "unrequested");
}

TEST_CASE("handshake mismatches are refused with a reason the client shows", "[net][hostile]") {
    struct variant {
        const char *what;
        std::function<void(session_config &)> change;
        wire::reject_reason reason;
    };
    const std::vector<variant> cases{
        {"input size", [](session_config &c) { c.input_size = 8; }, wire::reject_reason::input},
        {"input layout", [](session_config &c) { c.input_layout_hash ^= 1u; }, wire::reject_reason::input},
        {"content", [](session_config &c) { c.content_version = 9; }, wire::reject_reason::content},
    }; // player slots and tick rate are the server's: tests/net/handshake.cpp
    for (const auto &v : cases) {
        DYNAMIC_SECTION(v.what) {
            sim_match m{5, 2};
            auto cfg = m.config;
            v.change(cfg);
            world w{game_schema()};
            init_game(w);
            auto &t = m.net.connect({10, 0, 0}, {10, 0, 0});
            client_session c{cfg, w, step_game, t};
            std::vector<session_event> evs;
            for (int i = 0; i < 500; ++i) {
                m.server->poll(m.now);
                while (m.server->should_tick(m.now)) m.server->tick();
                c.poll(m.now);
                for (session_event e; c.next_event(e);) evs.push_back(e);
                ++m.now;
            }
            CHECK(c.state() == client_state::rejected);
            REQUIRE(sim_match::count(evs, session_event_kind::rejected) == 1);
            for (const auto &e : evs)
                if (e.kind == session_event_kind::rejected) CHECK(e.reject == v.reason);
            CHECK(m.server->players() == 0);
        }
    }
}

TEST_CASE("a world with another schema is refused", "[net][hostile]") {
    sim_match m{6, 2};
    schema other = game_schema();
    other.component<marker_for_schema_test>();
    world w{other};
    init_game(w);
    auto &t = m.net.connect({10, 0, 0}, {10, 0, 0});
    client_session c{m.config, w, step_game, t};
    std::vector<session_event> evs;
    for (int i = 0; i < 500; ++i, ++m.now) {
        m.server->poll(m.now);
        while (m.server->should_tick(m.now)) m.server->tick();
        c.poll(m.now);
        for (session_event e; c.next_event(e);) evs.push_back(e);
    }
    CHECK(c.state() == client_state::rejected);
    REQUIRE_FALSE(evs.empty());
    CHECK(evs.back().reject == wire::reject_reason::schema);
}

TEST_CASE("a full match refuses one more player", "[net][hostile]") {
    sim_match m{4, 1};
    m.add_client({10, 0, 0}, {10, 0, 0});
    auto &late = m.add_client({10, 0, 0}, {10, 0, 0});
    m.run(1000);
    CHECK(m.clients[0]->session->state() == client_state::running);
    CHECK(late.session->state() == client_state::rejected);
    REQUIRE(sim_match::count(late.events, session_event_kind::rejected) == 1);
}

TEST_CASE("a client with large inputs and no acknowledgements keeps its packets under the limit", "[net][hostile]") {
    // 64-byte inputs that change every frame, and a downlink that loses every unreliable packet:
    // the client never hears an ack and resends everything it can. Before the sender capped
    // frames per packet, those packets grew past 1,200 bytes and the server dropped the client
    // as hostile ("oversized").
    session_config cfg = game_config(2);
    cfg.input_size = 64;
    cfg.prediction_window = 60;
    // step_game reads game_input (4 bytes): this match steps on the raw 64-byte inputs.
    const auto raw_step = [](world &w, const frame_inputs &in) {
        for (std::size_t p = 0; p < in.players(); ++p)
            if (in.present(p)) w.resource<ships>().score[p] += static_cast<std::uint32_t>(in.input(p)[0]);
    };
    sim_match m{31, 2, cfg};
    m.server = std::make_unique<server_session>(m.config, m.server_world, raw_step, m.net.server());
    auto &c = *m.clients.emplace_back(std::make_unique<sim_client>());
    init_game(c.w);
    c.session = std::make_unique<client_session>(m.config, c.w, raw_step, m.net.connect({10, 0, 0.0}, {10, 0, 0.0}));
    m.run(1000);
    REQUIRE(c.session->state() == client_state::running);
    m.net.set_conditions(0, {10, 0, 0.0}, {10, 0, 1.0});
    std::array<std::byte, 64> input{};
    std::uint8_t n = 0;
    for (int t = 0; t < 1500; ++t, ++m.now) {
        m.server->poll(m.now);
        while (m.server->should_tick(m.now)) m.server->tick();
        for (session_event ev; m.server->next_event(ev);) m.server_events.push_back(ev);
        c.session->poll(m.now);
        while (c.session->should_tick(m.now)) {
            for (auto &b : input) b = static_cast<std::byte>(++n);
            c.session->tick(std::span<const std::byte>(input));
        }
    }
    for (const auto &e : m.server_events) INFO(to_string(e.kind) << ": " << e.text);
    CHECK(sim_match::count(m.server_events, session_event_kind::disconnected) == 0);
    CHECK(m.server->players() == 1);
}

TEST_CASE("session configs the protocol cannot carry are misuse", "[net][hostile]") {
    retcon::test::throwing_misuse_handler handler;
    world w{game_schema()};
    sim_network net{1};
    auto cfg = game_config(2);
    cfg.max_players = 40;
    CHECK_THROWS_WITH(server_session(cfg, w, step_game, net.server()), Catch::Contains("max_players"));
    cfg = game_config(2);
    cfg.input_size = 100;
    CHECK_THROWS_WITH(client_session(cfg, w, step_game, net.connect({}, {})), Catch::Contains("input_size"));
}
