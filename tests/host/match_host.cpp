// The match host over real ENet on loopback (docs/hosting.md): open and token admission,
// isolation of a failing match, drain, results and replays, steady-state allocations on the
// ticking thread, the metrics page and empty matches. The host runs on its own thread; the
// clients are client_sessions polled from the test thread. Iteration counts bound every wait
// (give-up bounds, never timing assertions).
#include <catch2/catch.hpp>

#include <retcon/host.hpp>
#include <retcon/net.hpp>
#include <retcon/snapshot/hash.hpp>
#include <retcon/snapshot/replay.hpp>

#include <common/connect_forger.hpp>
#include <common/counting_allocator.hpp>
#include <common/temp_dir.hpp>
#include <common/trace_checker.hpp>

#include "host_fixture.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace retcon;
using namespace retcon::test;

namespace {

/// A client that connects, sends one hello and records the server's reject (reason and text):
/// the session's rejected event carries only the text.
struct raw_hello final : transport_handler {
    std::unique_ptr<transport> t;
    wire::hello_msg hello;
    bool sent = false;
    std::optional<wire::reject_msg> reject;
    bool welcomed = false;

    raw_hello(std::uint16_t port, std::vector<std::byte> join_token) {
        auto made = make_enet_client("127.0.0.1", port);
        REQUIRE(made.ok());
        t = std::move(*made);
        const auto cfg = counter_config(1);
        hello.schema_hash = counter_schema().hash();
        hello.input_layout_hash = cfg.input_layout_hash;
        hello.content_version = cfg.content_version;
        hello.input_size = cfg.input_size;
        hello.name = "raw";
        hello.join_token = std::move(join_token);
    }
    void on_connect(peer_id) override {
        std::vector<std::byte> out;
        wire::encode(hello, out);
        t->send(0, wire::channel::control, out);
        t->flush();
        sent = true;
    }
    void on_disconnect(peer_id) override {}
    void on_receive(peer_id, wire::channel ch, std::span<const std::byte> data) override {
        if (ch != wire::channel::control) return;
        wire::reject_msg r;
        if (wire::decode(data, r)) reject = r;
        else
            welcomed = true;
    }
    /// Waits (polling the other clients too) for the reject or a welcome.
    bool run(client_list &others) {
        return pump(others, [&] {
            t->poll(wall_ms(), *this);
            t->flush();
            return reject.has_value() || welcomed;
        });
    }
};

} // namespace

// ====================================================================== open mode, drain, results

TEST_CASE(
    "open mode fills the first match before the second, and a drain ends both with verifiable replays and results",
    "[host]") {
    temp_dir dir;
    game_control ctl;
    auto o = local_options();
    o.max_matches = 2;
    o.open_matches = 2;
    o.open_params = params_of(2, 100);
    o.replay_dir = dir.path();
    o.drain_grace_ms = 300;
    host_thread h{o, [&](const match_params &p) { return make_counter_game(p, &ctl); }};
    const auto port = h.host->port();
    REQUIRE(port != 0);
    client_list clients;
    // Open matches open one after another (their keyframes staggered): wait for both.
    REQUIRE(pump(clients, [&] { return h.host->metrics().matches == 2; }));

    // Three players at once: a new player goes to the first match with a free slot, counting
    // the connections still in their handshake, so two share open-1 (seed 100) and whichever
    // came third is alone in open-2 (seed 101).
    for (std::int32_t add = 1; add <= 3; ++add) connect(clients, port, {}, add);
    REQUIRE(pump(clients, [&] {
        return std::all_of(clients.begin(), clients.end(), [](const auto &cl) { return cl->running(); });
    }));
    std::vector<test_client *> in_one, in_two;
    for (auto &cl : clients) {
        INFO(cl->all_events());
        CHECK(cl->s->players() == 2); // the welcome's player count
        (cl->match_seed() == 100 ? in_one : in_two).push_back(cl.get());
    }
    REQUIRE(in_one.size() == 2);
    REQUIRE(in_two.size() == 1);
    auto &a = *in_one[0];
    auto &b = *in_one[1];
    auto &c = *in_two[0];
    CHECK(c.match_seed() == 101);
    CHECK(a.s->slot() != b.s->slot());
    CHECK(c.s->slot() == 0);
    REQUIRE(pump(clients, [&] {
        const auto m = h.host->metrics();
        const auto *one = find_match(m, "open-1");
        const auto *two = find_match(m, "open-2");
        return one && two && one->players == 2 && two->players == 1 && m.players == 3;
    }));
    const auto before = h.host->metrics();
    CHECK(before.matches == 2);
    CHECK(before.matches_opened == 2);
    CHECK(before.admissions == 3);
    // Everyone plays a while.
    REQUIRE(pump(clients, [&] { return a.s->confirmed_frame() > 120 && c.s->confirmed_frame() > 120; }));

    h.host->request_drain();
    REQUIRE(pump(clients, [&] { return h.done.load(); }));
    CHECK(h.join() == 0);
    const auto results = h.results_copy();
    REQUIRE(results.size() == 2);
    for (const auto &r : results) {
        INFO("match " << r.match_id);
        CHECK(r.end_reason == "drain");
        CHECK(r.final_frame > 120);
        check_replay(r);
    }
    const auto one = h.result_of("open-1");
    const auto two = h.result_of("open-2");
    REQUIRE(one);
    REQUIRE(two);
    CHECK(one->joins == 2);
    CHECK(two->joins == 1);
    REQUIRE(one->slots.size() == 2);
    // Present when the drain ended the match (its own goodbyes do not count as leaving).
    CHECK(one->slots[0].present_at_end);
    CHECK(one->slots[1].present_at_end);
    REQUIRE(two->slots.size() == 2);
    CHECK(two->slots[0].present_at_end);
    CHECK_FALSE(two->slots[1].present_at_end); // nobody joined it
    CHECK(one->slots[0].outcome == "counted");
    // The game's report: each slot's sum of its inputs (each client adds its own number a frame).
    for (const auto *cl : {&a, &b}) {
        const auto score = one->slots[static_cast<std::size_t>(cl->s->slot())].score;
        CHECK(score > 0);
        CHECK(score % cl->add == 0);
        CHECK(score <= cl->add * static_cast<std::int64_t>(one->final_frame));
    }
    // Every client saw its match end, and every world hash it confirmed is the replay's.
    for (const auto *cl : {&a, &b, &c}) {
        CHECK(cl->saw(session_event_kind::match_ended));
        const auto &r = cl->match_seed() == 101 ? *two : *one;
        auto reader = replay_reader::open(r.replay_path);
        REQUIRE(reader.ok());
        REQUIRE_FALSE(cl->confirmed_hashes.empty());
        const auto last = cl->confirmed_hashes.rbegin()->first;
        CHECK(last < r.final_frame);
        for (const auto &[f, hsh] : cl->confirmed_hashes)
            if (f >= reader->start_frame() && f < reader->end_frame()) REQUIRE(reader->hash(f) == hsh);
        if (const auto it = cl->confirmed_hashes.find(r.final_frame - 1); it != cl->confirmed_hashes.end())
            CHECK(it->second == r.final_hash);
    }
    // The totals of ended matches stay in the metrics.
    const auto after = h.host->metrics();
    CHECK(after.matches == 0);
    CHECK(after.matches_ended == 2);
    CHECK(after.bytes_in > 0);
}

// ====================================================================== token mode

TEST_CASE("token mode admits only valid, unused tokens into their slot, and refusals leave the match running",
          "[host]") {
    token_issuer lobby;
    game_control ctl;
    auto o = local_options();
    o.max_matches = 4;
    o.token_keys = {public_key_of(lobby.key)};
    o.fleet = lobby.fleet;
    host_thread h{o, [&](const match_params &p) { return make_counter_game(p, &ctl); }};
    const auto port = h.host->port();
    client_list clients;
    const auto params = params_of(3, 5, "map=canyon");
    const auto first_token = lobby.sign(lobby.token("duel-1", 2, 1001, params));

    // No token.
    auto &none = connect(clients, port);
    REQUIRE(pump(clients, [&] { return none.rejected(); }));
    CHECK(none.rejected_for(wire::reject_reason::join_token));
    // Forged: one byte of the body changed after signing (the nonce: the token still decodes).
    {
        auto forged = first_token;
        forged[30] ^= std::byte{0x01};
        client_options opt;
        opt.join_token = forged;
        auto &cl = connect(clients, port, opt);
        REQUIRE(pump(clients, [&] { return cl.rejected(); }));
        CHECK(cl.rejected_for(wire::reject_reason::join_token));
    }
    // Expired.
    {
        auto t = lobby.token("duel-1", 0, 1002, params);
        t.issued_at -= 7200;
        t.expires_at = t.issued_at + 60;
        client_options opt;
        opt.join_token = lobby.sign(t);
        auto &cl = connect(clients, port, opt);
        REQUIRE(pump(clients, [&] { return cl.rejected(); }));
        CHECK(cl.rejected_for(wire::reject_reason::join_token));
    }
    // Another fleet.
    {
        auto t = lobby.token("duel-1", 0, 1002, params);
        t.fleet = "other-fleet";
        client_options opt;
        opt.join_token = lobby.sign(t);
        auto &cl = connect(clients, port, opt);
        REQUIRE(pump(clients, [&] { return cl.rejected(); }));
        CHECK(cl.rejected_for(wire::reject_reason::join_token));
    }
    CHECK(h.host->metrics().matches_opened == 0); // published once a second: 0 is 0 either way

    // A valid token opens the match with its parameters and puts the player in its slot.
    client_options first_opt;
    first_opt.join_token = first_token;
    auto &first = connect(clients, port, first_opt, 7);
    REQUIRE(pump(clients, [&] { return first.running() || first.rejected(); }));
    INFO(first.all_events());
    REQUIRE(first.running());
    CHECK(first.s->players() == 3);
    CHECK(first.s->slot() == 2);
    CHECK(first.match_seed() == 5);
    // A second player with its own token (slot 0) joins the same match.
    client_options second_opt;
    second_opt.join_token = lobby.sign(lobby.token("duel-1", 0, 1002, params));
    auto &second = connect(clients, port, second_opt, 11);
    REQUIRE(pump(clients, [&] { return second.running() || second.rejected(); }));
    INFO(second.all_events());
    REQUIRE(second.running());
    CHECK(second.s->slot() == 0);
    const auto playing_frame = [&] { return std::min(first.s->confirmed_frame(), second.s->confirmed_frame()); };

    // The same token again, without a reconnect token: already used.
    {
        const auto before = playing_frame();
        client_options opt;
        opt.join_token = first_token;
        auto &cl = connect(clients, port, opt);
        REQUIRE(pump(clients, [&] { return cl.rejected() || cl.running(); }));
        CHECK(cl.rejected_for(wire::reject_reason::join_token));
        CHECK(first.running());
        CHECK(first.s->slot() == 2);
        REQUIRE(pump(clients, [&] { return playing_frame() > before + 30; }));
    }
    // Match settings that differ from the running match: refused with reason `match`.
    {
        const auto before = playing_frame();
        raw_hello raw{port, lobby.sign(lobby.token("duel-1", 1, 1003, params_of(3, 6, "map=canyon")))};
        REQUIRE(raw.run(clients));
        REQUIRE(raw.reject);
        CHECK(raw.reject->reason == wire::reject_reason::match);
        CHECK(raw.reject->text.find("settings differ") != std::string::npos);
        // ... and the session route says the same to a real client.
        client_options opt;
        opt.join_token = lobby.sign(lobby.token("duel-1", 1, 1003, params_of(3, 5, "map=desert")));
        auto &cl = connect(clients, port, opt);
        REQUIRE(pump(clients, [&] { return cl.rejected() || cl.running(); }));
        CHECK(cl.rejected_for(wire::reject_reason::match));
        REQUIRE(pump(clients, [&] { return playing_frame() > before + 30; }));
    }
    // A third player takes slot 1 for a while (the result names it).
    {
        client_options opt;
        opt.join_token = lobby.sign(lobby.token("duel-1", 1, 1003, params));
        auto &third = connect(clients, port, opt);
        REQUIRE(pump(clients, [&] { return third.running() || third.rejected(); }));
        INFO(third.all_events());
        CHECK(third.running());
        CHECK(third.s->slot() == 1);
        third.s->leave();
        third.active = false;
    }

    // The first player leaves; it comes back with the same join token and its reconnect token.
    const auto back_token = first.s->reconnect_token();
    REQUIRE_FALSE(back_token.empty());
    first.s->leave();
    first.active = false;
    REQUIRE(pump(clients, [&] {
        const auto metrics = h.host->metrics();
        const auto *m = find_match(metrics, "duel-1");
        return m && m->players == 1;
    }));
    // Its reconnect token with another player's join token (slot 0's) is refused.
    {
        client_options opt;
        opt.join_token = second_opt.join_token;
        opt.reconnect_token = back_token;
        auto &cl = connect(clients, port, opt);
        REQUIRE(pump(clients, [&] { return cl.rejected() || cl.running(); }));
        CHECK(cl.rejected_for(wire::reject_reason::token));
        CHECK(second.running());
    }
    {
        client_options opt;
        opt.join_token = first_token;
        opt.reconnect_token = back_token;
        auto &again = connect(clients, port, opt, 7);
        REQUIRE(pump(clients, [&] { return again.running() || again.rejected(); }));
        INFO(again.all_events());
        REQUIRE(again.running());
        CHECK(again.s->slot() == 2);
        CHECK(again.match_seed() == 5);
    }
    // Through all of it the match went on: the second player's frames never stopped.
    const auto frame_now = second.s->confirmed_frame();
    REQUIRE(pump(clients, [&] { return second.s->confirmed_frame() > frame_now + 30; }));
    CHECK(second.running());
    CHECK_FALSE(second.saw(session_event_kind::match_ended));
    REQUIRE(pump(clients, [&] { return h.host->metrics().refusals >= 7; }));
    // The log, which holds back refusals to one line a second, accounts for every one of them.
    REQUIRE(pump(clients, [&] { return h.logged_refusals() >= h.host->metrics().refusals; }));
    INFO(h.log_text());
    CHECK(h.logged_refusals() == h.host->metrics().refusals);
    const auto m = h.host->metrics();
    CHECK(m.matches == 1);
    CHECK(m.matches_opened == 1);
    CHECK(m.matches_failed == 0);

    h.host->request_drain();
    h.host->request_drain();
    REQUIRE(pump(clients, [&] { return h.done.load(); }));
    CHECK(h.join() == 0);
    const auto r = h.result_of("duel-1");
    REQUIRE(r);
    CHECK(r->end_reason == "drain forced");
    REQUIRE(r->slots.size() == 3);
    CHECK(r->slots[0].player_id == 1002);
    CHECK(r->slots[1].player_id == 1003);
    CHECK(r->slots[2].player_id == 1001);
    CHECK(r->slots[0].present_at_end);
    CHECK_FALSE(r->slots[1].present_at_end); // left before the end
    CHECK(r->slots[2].present_at_end);
}

TEST_CASE("open mode: hellos the session refuses hold no place, players still get in", "[host]") {
    auto o = local_options();
    o.open_matches = 1;
    o.open_params = params_of(2, 3);
    host_thread h{o, counter_game};
    const auto port = h.host->port();
    client_list clients;
    REQUIRE(pump(clients, [&] { return h.host->metrics().matches == 1; }));
    // Hellos of another game build, one after another, well within hello_timeout_ms: each is
    // routed to the match, whose session refuses it.
    for (int i = 0; i < 4; ++i) {
        raw_hello raw{port, {}};
        raw.hello.schema_hash ^= 1;
        REQUIRE(raw.run(clients));
        REQUIRE(raw.reject);
        CHECK(raw.reject->reason == wire::reject_reason::schema);
    }
    auto &a = connect(clients, port);
    auto &b = connect(clients, port);
    REQUIRE(pump(clients, [&] { return (a.running() || a.rejected()) && (b.running() || b.rejected()); }));
    INFO(a.all_events() << b.all_events());
    CHECK(a.running());
    CHECK(b.running());
}

TEST_CASE("token mode: a player whose welcome was lost retries with its join token, a spectator comes back", "[host]") {
    token_issuer lobby;
    auto o = local_options();
    o.token_keys = {public_key_of(lobby.key)};
    o.fleet = lobby.fleet;
    o.session.max_spectators = 2;
    host_thread h{o, counter_game};
    const auto port = h.host->port();
    client_list clients;
    const auto params = params_of(2, 4);
    const auto token = lobby.sign(lobby.token("lost-1", 1, 501, params));
    const auto players_in = [&](std::uint32_t n) {
        const auto metrics = h.host->metrics();
        const auto *m = find_match(metrics, "lost-1");
        return m && m->players == n;
    };
    // The first connection is welcomed, but the welcome never reaches the player: it gives up.
    {
        raw_hello raw{port, token};
        REQUIRE(raw.run(clients));
        REQUIRE(raw.welcomed);
        REQUIRE(pump(clients, [&] { return players_in(1); }));
        raw.t->disconnect(0);
        raw.t->flush();
    }
    REQUIRE(pump(clients, [&] { return players_in(0); }));
    // The player has no reconnect token: it retries with the same join token and gets its slot.
    client_options again;
    again.join_token = token;
    auto &player = connect(clients, port, again);
    REQUIRE(pump(clients, [&] { return player.running() || player.rejected(); }));
    INFO(player.all_events());
    REQUIRE(player.running());
    CHECK(player.s->slot() == 1);
    // A spectator watches, leaves, and comes back with the same token.
    auto st = lobby.token("lost-1", spectator_slot, 502, params);
    st.role = token_role::spectator;
    client_options watch;
    watch.join_token = lobby.sign(st);
    watch.spectator = true;
    auto &first = connect(clients, port, watch);
    REQUIRE(pump(clients, [&] { return first.running() || first.rejected(); }));
    INFO(first.all_events());
    REQUIRE(first.running());
    // While it watches, its token admits nobody else.
    auto &twin = connect(clients, port, watch);
    REQUIRE(pump(clients, [&] { return twin.running() || twin.rejected(); }));
    CHECK(twin.rejected_for(wire::reject_reason::join_token));
    first.s->leave();
    REQUIRE(pump(clients, [&] { return first.s->state() != client_state::running; }));
    first.active = false;
    // It may come back once the server has seen it go (a refusal before that is retried).
    bool back = false;
    for (int attempt = 0; attempt < 50 && !back; ++attempt) {
        auto &again_watch = connect(clients, port, watch);
        REQUIRE(pump(clients, [&] { return again_watch.running() || again_watch.rejected(); }));
        back = again_watch.running();
        again_watch.active = back;
    }
    CHECK(back);
    CHECK(player.running());
}

TEST_CASE("token mode: a match the game refuses, and a draining host, refuse with their own reasons", "[host]") {
    token_issuer lobby;
    auto o = local_options();
    o.max_matches = 1;
    o.token_keys = {public_key_of(lobby.key)};
    o.fleet = lobby.fleet;
    o.drain_grace_ms = 60000;
    host_thread h{o, counter_game};
    const auto port = h.host->port();
    client_list clients;
    {
        raw_hello raw{port, lobby.sign(lobby.token("bad-map", 0, 1, params_of(2, 1, "refuse")))};
        REQUIRE(raw.run(clients));
        REQUIRE(raw.reject);
        CHECK(raw.reject->reason == wire::reject_reason::match);
        CHECK(raw.reject->text.find("no such map") != std::string::npos);
    }
    client_options opt;
    opt.join_token = lobby.sign(lobby.token("m-1", 0, 1, params_of(2, 1)));
    auto &player = connect(clients, port, opt);
    REQUIRE(pump(clients, [&] { return player.running() || player.rejected(); }));
    REQUIRE(player.running());
    // The server is full (one match): another match's token is refused.
    {
        raw_hello raw{port, lobby.sign(lobby.token("m-2", 0, 2, params_of(2, 1)))};
        REQUIRE(raw.run(clients));
        REQUIRE(raw.reject);
        CHECK(raw.reject->reason == wire::reject_reason::match);
        CHECK(raw.reject->text.find("full") != std::string::npos);
    }
    h.host->request_drain();
    REQUIRE(pump(clients, [&] { return h.host->metrics().draining; }));
    {
        raw_hello raw{port, lobby.sign(lobby.token("m-1", 1, 2, params_of(2, 1)))};
        REQUIRE(raw.run(clients));
        REQUIRE(raw.reject);
        CHECK(raw.reject->reason == wire::reject_reason::draining);
    }
    CHECK(player.running());
    h.host->request_drain();
    REQUIRE(pump(clients, [&] { return h.done.load(); }));
    CHECK(h.join() == 0);
    REQUIRE(h.result_count() == 1);
    CHECK(h.results_copy()[0].end_reason == "drain forced");
    CHECK(player.saw(session_event_kind::match_ended));
}

// ====================================================================== ended matches, never overwritten

TEST_CASE("token mode: a restarted host refuses an ended match's tokens and never rewrites its replay",
          "[host][ended]") {
    temp_dir dir;
    token_issuer lobby;
    auto o = local_options();
    o.max_matches = 2;
    o.token_keys = {public_key_of(lobby.key)};
    o.fleet = lobby.fleet;
    o.replay_dir = dir.path();
    o.match_duration_ms = 1000;
    const auto params = params_of(2, 5);
    const auto used = lobby.sign(lobby.token("duel-1", 0, 1001, params));
    const auto replay = dir / "duel-1.rcr";
    std::vector<std::byte> played;
    {
        host_thread h{o, counter_game};
        client_list clients;
        client_options opt;
        opt.join_token = used;
        auto &player = connect(clients, h.host->port(), opt);
        REQUIRE(pump(clients, [&] { return h.result_count() == 1; }));
        CHECK(player.saw(session_event_kind::match_ended));
        h.host->request_drain();
        REQUIRE(pump(clients, [&] { return h.done.load(); }));
        CHECK(h.join() == 0);
        const auto r = h.results_copy()[0];
        check_replay(r);
        CHECK(r.final_frame > 0);
        played = read_bytes(replay);
    }
    // tries the used token and one never presented for the ended match on a new host over the
    // same directory: both refused as ended, nothing opened, the replay byte for byte as it was.
    const auto tries = [&](const std::string &said) {
        host_thread h{o, counter_game};
        client_list clients;
        for (const auto &t : {used, lobby.sign(lobby.token("duel-1", 1, 1002, params))}) {
            raw_hello raw{h.host->port(), t};
            REQUIRE(raw.run(clients));
            REQUIRE(raw.reject);
            CHECK(raw.reject->reason == wire::reject_reason::match);
            CHECK_THAT(raw.reject->text, Catch::Matchers::Contains("has ended") && Catch::Matchers::Contains(said));
        }
        h.host->request_drain();
        REQUIRE(pump(clients, [&] { return h.done.load(); }));
        CHECK(h.join() == 0);
        CHECK(h.result_count() == 0);
        CHECK_FALSE(h.logged("match=duel-1 opened"));
        CHECK(read_bytes(replay) == played);
    };
    tries("'duel-1' has ended"); // the ledger says so
    // Without its ledger the replay file still keeps the match from opening again.
    std::filesystem::remove(dir / "ended-matches.ledger");
    tries("exists (a replay is never overwritten)");
}

TEST_CASE("token mode: a corrupt ended-matches ledger stops the host from starting, saying where", "[host][ended]") {
    temp_dir dir;
    token_issuer lobby;
    auto o = local_options();
    o.token_keys = {public_key_of(lobby.key)};
    o.fleet = lobby.fleet;
    o.replay_dir = dir.path();
    {
        std::ofstream ledger{dir / "ended-matches.ledger", std::ios::binary};
        ledger << "retcon ended matches 1\n1900000000 duel-1\n1900000000 duel 2\n";
    }
    auto made = match_host::create(o, counter_game);
    REQUIRE_FALSE(made.ok());
    CHECK(made.code() == errc::corrupt);
    CHECK_THAT(made.message(), Catch::Matchers::Contains("ended-matches.ledger: line 3"));
}

TEST_CASE("open mode numbers its matches past the replays an earlier run left, and never overwrites one",
          "[host][ended]") {
    temp_dir dir;
    const std::string precious = "an earlier run's replay";
    for (const char *name : {"open-1.rcr", "open-2.rcr"}) std::ofstream{dir / name, std::ios::binary} << precious;
    auto o = local_options();
    o.open_params = params_of(1, 1);
    o.replay_dir = dir.path();
    o.match_duration_ms = 300;
    o.reopen_matches = false;
    host_thread h{o, counter_game};
    client_list clients;
    REQUIRE(pump(clients, [&] { return h.done.load(); }));
    CHECK(h.join() == 0);
    const auto results = h.results_copy();
    REQUIRE(results.size() == 1);
    CHECK(results[0].match_id == "open-3");
    check_replay(results[0]);
    for (const char *name : {"open-1.rcr", "open-2.rcr"}) {
        const auto bytes = read_bytes(dir / name);
        CHECK(std::string(reinterpret_cast<const char *>(bytes.data()), bytes.size()) == precious);
    }
    // demo_server --record names one file: an existing one is refused before anything runs.
    auto single = local_options();
    single.open_params = params_of(1, 1);
    single.single_replay_path = dir / "open-1.rcr";
    auto made = match_host::create(single, counter_game);
    REQUIRE_FALSE(made.ok());
    CHECK_THAT(made.message(), Catch::Matchers::Contains("never overwritten"));
}

// ====================================================================== replay directory

TEST_CASE("a replay directory that does not exist is made at start, in open and token mode, and recorded into",
          "[host][replay_dir]") {
    temp_dir dir;
    auto o = local_options();
    o.open_params = params_of(1, 1);
    o.replay_dir = dir / "new" / "replays";
    o.match_duration_ms = 300;
    o.reopen_matches = false;
    host_thread h{o, counter_game};
    CHECK(std::filesystem::is_directory(o.replay_dir)); // before run: create made it
    client_list clients;
    REQUIRE(pump(clients, [&] { return h.done.load(); }));
    CHECK(h.join() == 0);
    const auto results = h.results_copy();
    REQUIRE(results.size() == 1);
    CHECK(results[0].replay_path == (o.replay_dir / "open-1.rcr").string());
    CHECK_FALSE(results[0].recording_failed);
    CHECK(results[0].recording_error.empty());
    check_replay(results[0]);
    CHECK(h.host->metrics().recordings_failed == 0);
    CHECK_FALSE(h.logged("] recording_failed slot")); // the session's event
    CHECK(h.logged(R"("recording_failed":false,"recording_error":"")"));

    // Token mode keeps its ended-matches ledger there: a missing directory is made too.
    token_issuer issuer;
    auto t = local_options();
    t.token_keys = {public_key_of(issuer.key)};
    t.fleet = issuer.fleet;
    t.replay_dir = dir / "token" / "replays";
    auto made = match_host::create(t, counter_game);
    INFO(made.message());
    CHECK(made.ok());
    CHECK(std::filesystem::is_directory(t.replay_dir));
}

TEST_CASE("trace_dir: each match writes its own trace when it ends, made off the ticking thread", "[host][trace]") {
    temp_dir dir;
    auto o = local_options();
    o.open_params = params_of(1, 1);
    o.max_matches = 2;
    o.open_matches = 2;
    o.trace_dir = dir / "traces"; // missing: made at start
    o.match_duration_ms = 300;
    o.reopen_matches = false;
    host_thread h{o, counter_game};
    CHECK(std::filesystem::is_directory(o.trace_dir));
    client_list clients;
    REQUIRE(pump(clients, [&] { return h.done.load(); }));
    CHECK(h.join() == 0); // run returns once the traces are written
    REQUIRE(h.results_copy().size() == 2);
    CHECK(dir.entries() == std::vector<std::string>{"traces"});
    std::vector<std::string> names;
    for (const auto &e : std::filesystem::directory_iterator{o.trace_dir}) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    REQUIRE(names == std::vector<std::string>{"open-1.trace.json", "open-2.trace.json"});
    for (const auto &n : names) {
        const auto c = test::check_trace_file(o.trace_dir / n);
        INFO(n << ": " << (c.problems.empty() ? std::string{} : c.problems.front()));
        CHECK(c.ok());
        CHECK(c.summary.slices.at("tick") >= 10); // 300 ms of ticks
    }
    CHECK(h.logged("match=open-1 trace queued for"));
    CHECK_FALSE(h.logged("could not write the trace"));
}

TEST_CASE("trace_dir with single_trace_path refuses to start", "[host][trace]") {
    temp_dir dir;
    auto o = local_options();
    o.open_params = params_of(1, 1);
    o.trace_dir = dir.path();
    o.single_trace_path = dir / "one.json";
    auto made = match_host::create(o, counter_game);
    REQUIRE_FALSE(made.ok());
    CHECK(made.message().find("choose one") != std::string::npos);
}

TEST_CASE("a replay directory that is a regular file refuses to start, naming the path", "[host][replay_dir]") {
    temp_dir dir;
    const auto file = dir / "replays";
    std::ofstream{file} << "not a directory";
    for (const bool token_mode : {false, true}) {
        INFO("token mode: " << token_mode);
        token_issuer issuer;
        auto o = local_options();
        o.open_params = params_of(1, 1);
        if (token_mode) {
            o.token_keys = {public_key_of(issuer.key)};
            o.fleet = issuer.fleet;
        }
        o.replay_dir = file;
        auto refused = match_host::create(o, counter_game);
        REQUIRE_FALSE(refused.ok());
        CHECK_THAT(refused.message(), Catch::Matchers::Contains(file.string() + " exists and is not a directory"));
        // Inside it, the file is named as the part that is not a directory.
        o.replay_dir = file / "sub";
        refused = match_host::create(o, counter_game);
        REQUIRE_FALSE(refused.ok());
        CHECK_THAT(refused.message(), Catch::Matchers::Contains("the replay directory " + o.replay_dir.string()));
        CHECK_THAT(refused.message(), Catch::Matchers::Contains(file.string() + " exists and is not a directory"));
    }
    CHECK(std::filesystem::is_regular_file(file)); // left as it was
    // demo_server --record into a directory that is a file: the same refusal.
    auto single = local_options();
    single.open_params = params_of(1, 1);
    single.single_replay_path = file / "match.rcr";
    auto refused = match_host::create(single, counter_game);
    REQUIRE_FALSE(refused.ok());
    CHECK_THAT(refused.message(), Catch::Matchers::Contains(file.string() + " exists and is not a directory"));
}

TEST_CASE("a replay that cannot be written is counted in the metrics and the result, and the exit status is 1",
          "[host][replay_dir]") {
    temp_dir dir;
    auto o = local_options();
    o.open_params = params_of(1, 1);
    o.replay_dir = dir.path();
    o.match_duration_ms = 300;
    o.reopen_matches = false;
    // Between the host's check and the writer's exclusive create, something takes the replay's
    // path (the game's factory runs in between): the recording fails at the match's first frame.
    const auto taken = dir / "open-1.rcr";
    const std::string precious = "someone else's file";
    const game_factory racing = [&](const match_params &p) {
        std::ofstream{taken, std::ios::binary} << precious;
        return counter_game(p);
    };
    host_thread h{o, racing};
    client_list clients;
    REQUIRE(pump(clients, [&] { return h.done.load(); }));
    CHECK(h.join() == 1);
    const auto results = h.results_copy();
    REQUIRE(results.size() == 1);
    const auto &r = results[0];
    CHECK(r.end_reason == "duration");
    CHECK(r.recording_failed);
    CHECK(r.replay_path.empty());
    CHECK_THAT(r.recording_error, Catch::Matchers::StartsWith(taken.string() + ": "));
    CHECK(h.host->metrics().recordings_failed == 1);
    CHECK_THAT(to_prometheus(h.host->metrics()),
               Catch::Matchers::Contains("\nretcon_host_recordings_failed_total 1\n"));
    const auto line = to_json(r);
    CHECK_THAT(line, Catch::Matchers::Contains(R"("recording_failed":true,"recording_error":")"));
    CHECK(h.logged(line));
    CHECK(h.logged("stopped: 1 matches ended, 1 of their replays could not be written (exit status 1)"));
    const auto bytes = read_bytes(taken); // the exclusive create left it as it was
    CHECK(std::string(reinterpret_cast<const char *>(bytes.data()), bytes.size()) == precious);
}

// ====================================================================== isolation

TEST_CASE("a match whose game throws or misuses retcon ends alone while the others keep ticking", "[host]") {
    temp_dir dir;
    game_control ctl;
    auto o = local_options();
    o.max_matches = 3;
    o.open_matches = 3;
    o.open_params = params_of(1, 665); // open-1: 665, open-2: 666 (throws), open-3: 667 (misuse)
    o.reopen_matches = false;
    o.replay_dir = dir.path();
    o.drain_grace_ms = 300;
    host_thread h{o, [&](const match_params &p) { return make_counter_game(p, &ctl); }};
    const auto port = h.host->port();
    client_list clients;
    REQUIRE(pump(clients, [&] { return h.host->metrics().matches == 3; }));
    std::map<std::uint64_t, test_client *> by_seed;
    for (int i = 0; i < 3; ++i) {
        auto &cl = connect(clients, port, {}, i + 1);
        REQUIRE(pump(clients, [&] { return cl.running() || cl.rejected(); }));
        INFO(cl.all_events());
        REQUIRE(cl.running());
        by_seed[cl.match_seed()] = &cl;
    }
    REQUIRE(by_seed.size() == 3);
    REQUIRE(by_seed.count(665) == 1);
    REQUIRE(by_seed.count(666) == 1);
    REQUIRE(by_seed.count(667) == 1);
    auto &healthy = *by_seed[665];
    REQUIRE(pump(clients, [&] { return healthy.s->confirmed_frame() > 60; }));

    ctl.fail_armed = true;
    REQUIRE(pump(clients, [&] {
        return by_seed[666]->saw(session_event_kind::match_ended) && by_seed[667]->saw(session_event_kind::match_ended);
    }));
    // The healthy match goes on after both failures.
    const auto frame_after = healthy.s->confirmed_frame();
    REQUIRE(pump(clients, [&] { return healthy.s->confirmed_frame() > frame_after + 60; }));
    CHECK(healthy.running());
    CHECK_FALSE(healthy.saw(session_event_kind::match_ended));
    REQUIRE(pump(clients, [&] { return h.result_count() == 2 && h.host->metrics().matches_failed == 2; }));
    const auto thrown = h.result_of("open-2");
    const auto misused = h.result_of("open-3");
    REQUIRE(thrown);
    REQUIRE(misused);
    INFO(h.log_text());
    CHECK(thrown->end_reason.rfind("error: ", 0) == 0);
    CHECK(thrown->end_reason.find("the game broke at frame") != std::string::npos);
    CHECK(misused->end_reason.rfind("error: ", 0) == 0);
    CHECK(misused->end_reason.find("entity") != std::string::npos); // the misuse report's text
    // Their players were there when the failure ended the match.
    CHECK(thrown->slots.at(0).present_at_end);
    CHECK(misused->slots.at(0).present_at_end);
    // Their replays are complete up to the frame that failed, and re-simulate to their hashes.
    check_replay(*thrown);
    CHECK(thrown->final_frame == ctl.failed_at.load());
    check_replay(*misused);
    const auto m = h.host->metrics();
    CHECK(m.matches == 1);
    CHECK(m.matches_failed == 2);
    CHECK(find_match(m, "open-1") != nullptr);

    h.host->request_drain();
    REQUIRE(pump(clients, [&] { return h.done.load(); }));
    CHECK(h.join() == 0);
    const auto survivor = h.result_of("open-1");
    REQUIRE(survivor);
    CHECK(survivor->end_reason == "drain");
    check_replay(*survivor);
}

// ====================================================================== allocations

namespace {
/// Two matches of two players, every client playing; the ticking thread's allocations over
/// 600 frames of one match (10 s at 60 Hz), counted in that match's step after a warm-up.
long long steady_state_allocations(const std::filesystem::path &replay_dir) {
    game_control ctl;
    ctl.measure_seed = 200;
    ctl.measure_frames = 600;
    auto o = local_options();
    o.max_matches = 2;
    o.open_matches = 2;
    o.open_params = params_of(2, 200);
    o.replay_dir = replay_dir;
    host_thread h{o, [&](const match_params &p) { return make_counter_game(p, &ctl); }};
    const auto port = h.host->port();
    client_list clients;
    REQUIRE(pump(clients, [&] { return h.host->metrics().matches == 2; }));
    for (int i = 0; i < 4; ++i) connect(clients, port, {}, i % 2 == 0 ? 1 : -1);
    REQUIRE(pump(clients, [&] {
        return std::all_of(clients.begin(), clients.end(), [](const auto &c) { return c->running(); });
    }));
    // Warm up: every buffer reaches its high-water mark (and a replay its first keyframes).
    REQUIRE(pump(clients, [&] {
        return std::all_of(clients.begin(), clients.end(), [](const auto &c) { return c->s->confirmed_frame() > 300; });
    }));
    ctl.measure_requested = true;
    REQUIRE(pump(
        clients, [&] { return ctl.measured_allocations.load() >= 0; }, 60000));
    CHECK(std::all_of(clients.begin(), clients.end(), [](const auto &c) { return c->running(); }));
    const auto m = h.host->metrics();
    CHECK(m.players == 4);
    h.host->request_drain();
    h.host->request_drain();
    REQUIRE(pump(clients, [&] { return h.done.load(); }));
    CHECK(h.join() == 0);
    UNSCOPED_INFO("allocations on the ticking thread from frame " << ctl.measured_from.load() << " over "
                                                                  << ctl.measure_frames << " frames");
    return ctl.measured_allocations.load();
}
} // namespace

TEST_CASE("the ticking thread allocates nothing in steady state", "[host][allocations]") {
    CHECK(steady_state_allocations({}) == 0);
}

// Recording is part of a match's steady state (docs/hosting.md, "Threads"): the tick copies a
// keyframe's image into a pre-sized slot and hands it to the replay encoder, whose thread
// compresses and writes it (and grows the seek index).
TEST_CASE("the ticking thread allocates nothing in steady state while recording replays", "[host][allocations]") {
    temp_dir dir;
    CHECK(steady_state_allocations(dir.path()) == 0);
}

// ====================================================================== metrics page

namespace {
/// GET http://127.0.0.1:@p port @p path with a plain socket; the whole response.
std::string http_get(std::uint16_t port, const std::string &path) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return {};
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::string response;
    if (::connect(fd, reinterpret_cast<const sockaddr *>(&a), sizeof a) == 0) {
        const std::string request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
        if (::send(fd, request.data(), request.size(), 0) == static_cast<ssize_t>(request.size())) {
            char buf[4096];
            for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;)
                response.append(buf, static_cast<std::size_t>(n));
        }
    }
    ::close(fd);
    return response;
}
} // namespace

TEST_CASE("the metrics page serves the host's and each match's figures", "[host][metrics]") {
    auto o = local_options();
    o.open_params = params_of(2, 1);
    o.serve_metrics = true;
    o.metrics_port = 0;
    host_thread h{o, counter_game};
    const auto port = h.host->port();
    REQUIRE(h.host->metrics_port() != 0);
    client_list clients;
    auto &a = connect(clients, port);
    auto &b = connect(clients, port);
    REQUIRE(pump(clients, [&] { return a.running() && b.running(); }));
    REQUIRE(pump(clients, [&] {
        const auto metrics = h.host->metrics();
        const auto *m = find_match(metrics, "open-1");
        return m && m->players == 2 && m->ticks > 0;
    }));
    const auto page = http_get(h.host->metrics_port(), "/metrics");
    INFO(page);
    CHECK(page.rfind("HTTP/1.1 200", 0) == 0);
    CHECK(page.find("text/plain; version=0.0.4") != std::string::npos);
    CHECK(page.find("\nretcon_host_matches 1\n") != std::string::npos);
    CHECK(page.find("\nretcon_host_players 2\n") != std::string::npos);
    CHECK(page.find("\nretcon_match_players{match=\"open-1\"} 2\n") != std::string::npos);
    CHECK(page.find("# TYPE retcon_host_tick_lateness_seconds histogram") != std::string::npos);
    CHECK(page.find("retcon_host_tick_lateness_seconds_bucket{le=\"0.000010\"}") != std::string::npos);
    CHECK(page.find("retcon_host_tick_lateness_seconds_bucket{le=\"+Inf\"}") != std::string::npos);
    CHECK(page.find("retcon_host_tick_lateness_seconds_count ") != std::string::npos);
    CHECK(page.find("\nretcon_host_tick_lateness_seconds_count 0\n") == std::string::npos);
    const auto missing = http_get(h.host->metrics_port(), "/other");
    CHECK(missing.rfind("HTTP/1.1 404", 0) == 0);
    h.host->request_drain();
    h.host->request_drain();
    REQUIRE(pump(clients, [&] { return h.done.load(); }));
    CHECK(h.join() == 0);
}

TEST_CASE("forged CONNECTs take no slot on a match host and are counted in its metrics", "[host][metrics]") {
    // docs/net.md, "Security model": connect cookies. Each honest client is challenged once.
    auto o = local_options();
    o.open_params = params_of(2, 1);
    host_thread h{o, counter_game};
    const auto port = h.host->port();
    client_list clients;
    auto &a = connect(clients, port);
    auto &b = connect(clients, port);
    REQUIRE(pump(clients, [&] { return a.running() && b.running(); }));
    REQUIRE(pump(clients, [&] { return h.host->metrics().connects_challenged >= 2; }));
    const auto before = h.host->metrics();
    connect_forger forger{{"127.0.9.1", "127.0.9.2", "127.0.9.3", "127.0.9.4"}, port, 7};
    REQUIRE(forger.ok());
    forger.send(200);
    REQUIRE(pump(clients, [&] { return h.host->metrics().connects_challenged >= before.connects_challenged + 150; }));
    const auto after = h.host->metrics();
    CHECK(after.connects_challenged <= before.connects_challenged + forger.sent());
    CHECK(after.pending_dropped == before.pending_dropped); // they never held a slot to drop
    CHECK(after.refusals == before.refusals);
    CHECK(after.players == 2);
    CHECK(a.running());
    CHECK(b.running());
    h.host->request_drain();
    h.host->request_drain();
    REQUIRE(pump(clients, [&] { return h.done.load(); }));
    CHECK(h.join() == 0);
}

// ====================================================================== empty matches

TEST_CASE("a match its players left ends after empty_timeout_ms and open mode replaces it", "[host]") {
    auto o = local_options();
    o.open_params = params_of(1, 1);
    o.empty_timeout_ms = 300;
    o.drain_grace_ms = 300;
    host_thread h{o, counter_game};
    const auto port = h.host->port();
    client_list clients;
    auto &a = connect(clients, port);
    REQUIRE(pump(clients, [&] { return a.running(); }));
    REQUIRE(pump(clients, [&] { return a.s->confirmed_frame() > 30; }));
    a.s->leave();
    a.active = false;
    REQUIRE(pump(clients, [&] { return h.result_count() == 1; }));
    const auto r = h.result_of("open-1");
    REQUIRE(r);
    CHECK(r->end_reason == "players left");
    CHECK_FALSE(r->slots.at(0).present_at_end);
    // A fresh match took its place, and a new player is admitted to it.
    REQUIRE(pump(clients, [&] {
        const auto m = h.host->metrics();
        return find_match(m, "open-2") != nullptr && m.matches == 1;
    }));
    auto &b = connect(clients, port);
    REQUIRE(pump(clients, [&] { return b.running() || b.rejected(); }));
    CHECK(b.running());
    CHECK(b.match_seed() == 2);
    CHECK_FALSE(h.done.load());
    h.host->request_drain();
    REQUIRE(pump(clients, [&] { return h.done.load(); }));
    CHECK(h.join() == 0);
}

TEST_CASE("without reopen_matches the host returns once its open matches have ended", "[host]") {
    auto o = local_options();
    o.open_params = params_of(1, 1);
    o.empty_timeout_ms = 300;
    o.reopen_matches = false;
    host_thread h{o, counter_game};
    const auto port = h.host->port();
    client_list clients;
    auto &a = connect(clients, port);
    REQUIRE(pump(clients, [&] { return a.running(); }));
    a.s->leave();
    a.active = false;
    // run() returns on its own: no drain requested.
    REQUIRE(pump(clients, [&] { return h.done.load(); }));
    CHECK(h.join() == 0);
    const auto results = h.results_copy();
    REQUIRE(results.size() == 1);
    CHECK(results[0].match_id == "open-1");
    CHECK(results[0].end_reason == "players left");
    CHECK(h.host->metrics().matches_opened == 1);
    CHECK_FALSE(h.logged("match=open-2"));
}

TEST_CASE("an ended match still saying goodbye delays its replacement instead of draining the host", "[host]") {
    // The ended match holds its place until its clients acknowledge the goodbye (or
    // end_timeout_ms): open mode must wait for that place, not take "the server is full" as a
    // reason to drain.
    auto o = local_options();
    o.open_params = params_of(1, 1);
    o.match_duration_ms = 300;
    o.session.record_settings.keyframe_interval = 12; // matches open 200 ms apart: before open-1 is done
    host_thread h{o, counter_game};
    const auto port = h.host->port();
    client_list clients;
    auto &a = connect(clients, port);
    REQUIRE(pump(clients, [&] { return a.running(); }));
    a.active = false; // never acknowledges the goodbye: open-1 holds its place for end_timeout_ms
    REQUIRE(pump(clients, [&] { return h.result_of("open-1").has_value() || h.done.load(); }));
    REQUIRE(pump(clients, [&] { return h.logged("match=open-2 opened") || h.done.load(); }));
    CHECK_FALSE(h.done.load());
    CHECK_FALSE(h.host->metrics().draining);
    CHECK_FALSE(h.logged("could not open match"));
    h.host->request_drain();
    REQUIRE(pump(clients, [&] { return h.done.load(); }));
    CHECK(h.join() == 0);
}

// ====================================================================== run leaves the process as it found it

namespace {
void sentinel_misuse(const char *) {}
} // namespace

TEST_CASE("run puts the misuse handler back when an exception from the game's step leaves it", "[host]") {
    // Not a std::exception: the host isolates those per match, so this one leaves run.
    struct not_a_std_exception {};
    auto o = local_options();
    o.open_params = params_of(1, 5);
    auto made = match_host::create(o, [](const match_params &p) {
        auto g = counter_game(p);
        if (g) g->step = [](world &, const frame_inputs &) { throw not_a_std_exception{}; };
        return g;
    });
    REQUIRE(made.ok());
    (*made)->on_log([](std::string_view) {});
    const auto before = set_misuse_handler(&sentinel_misuse);
    CHECK_THROWS_AS((*made)->run(), not_a_std_exception);
    const auto after = set_misuse_handler(before);
    CHECK(after == &sentinel_misuse);
}

TEST_CASE("create refuses more matches than one host can run, naming the limit", "[host]") {
    auto o = local_options();
    o.open_params = params_of(1, 5);
    o.max_matches = max_host_matches + 1;
    o.open_matches = 1;
    const auto refused = match_host::create(o, counter_game);
    REQUIRE_FALSE(refused);
    CHECK(refused.code() == errc::invalid_argument);
    CHECK(refused.message() == "match_host: max_matches is 1001, not 1..1000");
    o.max_matches = max_host_matches;
    CHECK(match_host::create(o, counter_game).ok());
}
