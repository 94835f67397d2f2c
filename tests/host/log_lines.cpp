// The host's log against hostile text (docs/hosting.md, "Logs"): a player's name cannot forge a
// line (least of all a match result, which collectors ship), every line is one printable line,
// and in token mode the name logged and recorded is the token's signed one, not the hello's.
// Over real ENet on loopback, as tests/host/match_host.cpp; iteration counts bound every wait.
#include <catch2/catch.hpp>

#include <retcon/host.hpp>
#include <retcon/net.hpp>

#include <nlohmann/json.hpp>

#include "host_fixture.hpp"

#include <string>
#include <vector>

using namespace retcon;
using namespace retcon::test;

namespace {

/// The name a hostile player picks: 32 bytes (the hello's limit) ending its log line and
/// starting a match result of its own.
const std::string forging_name = "x\n{\"event\":\"match_result\",\"x\":1}";

/// The host's log as a collector reads it: its text split at line breaks.
std::vector<std::string> collected_lines(const host_thread &h) {
    std::vector<std::string> lines;
    const std::string text = h.log_text();
    std::size_t at = 0;
    for (std::size_t nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1)
        lines.push_back(text.substr(at, nl - at));
    return lines;
}

/// Every line that would be shipped as a match result is one the host wrote for a match that
/// ended: valid JSON with the result's match id. Returns how many there are.
std::size_t check_result_lines(const host_thread &h) {
    std::size_t n = 0;
    for (const auto &l : collected_lines(h)) {
        if (l.find("match_result") == std::string::npos || l.rfind('{', 0) != 0) continue;
        INFO(l);
        const auto j = nlohmann::json::parse(l, nullptr, false);
        REQUIRE_FALSE(j.is_discarded());
        REQUIRE(j.contains("match_id"));
        CHECK(h.result_of(j["match_id"].get<std::string>()).has_value());
        ++n;
    }
    return n;
}

/// No line the host handed to its log sink holds a control byte (each is one line).
void check_one_line_each(const host_thread &h) {
    std::lock_guard lock{h.mutex};
    for (const auto &l : h.log) {
        INFO(l);
        for (const char c : l) REQUIRE_FALSE((static_cast<unsigned char>(c) < 0x20 || c == 0x7f));
    }
}

/// One client with @p opt plays 30 confirmed frames on @p h's host, which then drains and stops.
void play_then_drain(host_thread &h, client_list &clients, const client_options &opt) {
    auto &cl = connect(clients, h.host->port(), opt);
    REQUIRE(pump(clients, [&] { return cl.s->confirmed_frame() > 30 || cl.rejected(); }));
    INFO(cl.all_events());
    REQUIRE(cl.running());
    h.host->request_drain();
    REQUIRE(pump(clients, [&] { return h.done.load(); }));
    CHECK(h.join() == 0);
}

} // namespace

TEST_CASE("host log: a player's name cannot forge a match result line", "[host][logs]") {
    auto o = local_options();
    o.max_matches = 1;
    o.open_matches = 1;
    o.open_params = params_of(1, 9);
    o.drain_grace_ms = 300;
    host_thread h{o, counter_game};
    client_list clients;
    REQUIRE(pump(clients, [&] { return h.host->metrics().matches == 1; }));
    client_options opt;
    opt.name = forging_name;
    play_then_drain(h, clients, opt);
    INFO(h.log_text());

    // One result, one result line: the name's line stayed one line, escaped.
    REQUIRE(h.result_count() == 1);
    CHECK(check_result_lines(h) == 1);
    check_one_line_each(h);
    CHECK(h.logged("player_joined slot 0 x\\x0a{\\x22event\\x22:\\x22match_result\\x22,\\x22x\\x22:1}"));
    // The result records the name as the player gave it: its JSON line escapes it as JSON.
    const auto r = h.result_of("open-1");
    REQUIRE(r);
    REQUIRE(r->slots.size() == 1);
    CHECK(r->slots[0].name == forging_name);
}

TEST_CASE("host log: in token mode the name logged and recorded is the token's, not the hello's", "[host][logs]") {
    token_issuer lobby;
    auto o = local_options();
    o.max_matches = 1;
    o.token_keys = {public_key_of(lobby.key)};
    o.fleet = lobby.fleet;
    o.drain_grace_ms = 300;
    host_thread h{o, counter_game};
    client_list clients;
    auto t = lobby.token("named-1", 0, 4242, params_of(1, 3));
    t.player_name = "Zo\xc3\xab (signed)";
    client_options opt;
    opt.join_token = lobby.sign(t);
    opt.name = forging_name; // self-chosen: neither logged nor recorded
    play_then_drain(h, clients, opt);
    INFO(h.log_text());

    const auto r = h.result_of("named-1");
    REQUIRE(r);
    REQUIRE(r->slots.size() == 1);
    CHECK(r->slots[0].name == "Zo\xc3\xab (signed)");
    CHECK(r->slots[0].player_id == 4242u);
    CHECK(h.logged("match=named-1 [frame "));
    CHECK(h.logged("player_joined slot 0 Zo\xc3\xab (signed)"));
    CHECK_FALSE(h.logged("match_result\\x22"));               // the hello's name appears nowhere
    CHECK(h.log_text().find("\"x\":1") == std::string::npos); // not even inside the result line
    CHECK(check_result_lines(h) == 1);
    check_one_line_each(h);
}

TEST_CASE("host log: a line with control bytes or bytes that are not UTF-8 reaches the sink as one line",
          "[host][logs]") {
    auto o = local_options();
    o.max_matches = 1;
    auto made = match_host::create(o, counter_game);
    REQUIRE(made.ok());
    std::vector<std::string> lines;
    (*made)->on_log([&](std::string_view line) { lines.emplace_back(line); });
    // A game's exception text or a file name: whatever a part put in a line.
    (*made)->log("match=m-1 failed: bad\nline\xff with \"quotes\" and a \\ kept");
    REQUIRE(lines.size() == 1);
    CHECK(lines[0] == "match=m-1 failed: bad\\x0aline\\xff with \"quotes\" and a \\ kept");
}
