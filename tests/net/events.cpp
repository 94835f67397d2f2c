// The typed fields of session events (net/include/retcon/net/events.hpp, docs/net.md "Events")
// and the one table of reject reasons (protocol.hpp) that the decoder, the names, the C enum and
// docs/protocol.md follow.
#include <catch2/catch.hpp>

#include <common/sim_match.hpp>

#include <retcon/net/events.hpp>
#include <retcon/net/protocol.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "forensics.hpp"

using namespace retcon;
using namespace retcon::test;

namespace {

std::string read_doc(const char *name) {
    std::ifstream in{std::filesystem::path{RETCON_DOCS_DIR} / name};
    REQUIRE(in);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace

TEST_CASE("every event kind, disconnect cause and unverified reason has its own name", "[net][events]") {
    std::set<std::string> kinds;
    for (unsigned k = 0; k <= static_cast<unsigned>(last_session_event_kind); ++k)
        kinds.insert(to_string(static_cast<session_event_kind>(k)));
    CHECK(kinds.size() == static_cast<std::size_t>(last_session_event_kind) + 1u);
    CHECK(kinds.count("unknown") == 0);
    CHECK(std::string{to_string(static_cast<session_event_kind>(200))} == "unknown");

    std::set<std::string> causes;
    for (unsigned c = 0; c <= static_cast<unsigned>(disconnect_cause::bad_snapshot); ++c)
        causes.insert(to_string(static_cast<disconnect_cause>(c)));
    CHECK(causes.size() == static_cast<std::size_t>(disconnect_cause::bad_snapshot) + 1u);
    CHECK(std::string{to_string(disconnect_cause::timed_out)} == "timed_out");
    CHECK(std::string{to_string(static_cast<disconnect_cause>(99))} == "unknown");

    std::set<std::string> reasons;
    for (unsigned r = 0; r <= static_cast<unsigned>(unverified_reason::rebuild_failed); ++r)
        reasons.insert(to_string(static_cast<unverified_reason>(r)));
    CHECK(reasons.size() == static_cast<std::size_t>(unverified_reason::rebuild_failed) + 1u);
    CHECK(std::string{to_string(unverified_reason::quota)} == "quota");
}

TEST_CASE("the reject reason table is what the decoder accepts, in value order, named once",
          "[net][events][protocol]") {
    std::set<std::string> names;
    int last = 0;
    for (const auto &row : wire::reject_reasons) {
        CHECK(static_cast<int>(row.reason) > last);
        last = static_cast<int>(row.reason);
        CHECK(names.insert(row.name).second);
        CHECK(std::string{wire::to_string(row.reason)} == row.name);
        CHECK(std::string{row.meaning}.size() > 10);
    }
    CHECK(std::string{wire::to_string(wire::reject_reason::none)} == "none");
    // Every byte value: the decoder accepts exactly the table's reasons (0 = none never travels).
    for (unsigned v = 0; v < 256; ++v) {
        const auto reason = static_cast<wire::reject_reason>(v);
        std::vector<std::byte> bytes;
        wire::encode(wire::reject_msg{reason, "why"}, bytes);
        wire::reject_msg back;
        const bool known = wire::describe(reason) != nullptr;
        INFO("reason byte " << v);
        CHECK(static_cast<bool>(wire::decode(bytes, back)) == known);
        if (known) CHECK(back.reason == reason);
    }
}

TEST_CASE("docs/protocol.md lists the reject reasons of the table with their values", "[net][events][protocol]") {
    const std::string doc = read_doc("protocol.md");
    std::set<std::pair<std::string, int>> documented;
    const std::regex row{R"(\n\| `([a-z_]+)` \| (\d+) \|)"};
    const auto reject = doc.find("### 3 `reject`");
    REQUIRE(reject != std::string::npos);
    const std::string section = doc.substr(reject, doc.find("\n### ", reject + 1) - reject);
    for (auto it = std::sregex_iterator(section.begin(), section.end(), row); it != std::sregex_iterator(); ++it)
        documented.emplace((*it)[1].str(), std::stoi((*it)[2].str()));
    std::set<std::pair<std::string, int>> table;
    for (const auto &r : wire::reject_reasons) table.emplace(r.name, static_cast<int>(r.reason));
    CHECK(documented == table);
}

TEST_CASE("docs/net.md's events table names every event kind", "[net][events]") {
    const std::string doc = read_doc("net.md");
    const auto at = doc.find("\n## Events\n");
    REQUIRE(at != std::string::npos);
    const std::string section = doc.substr(at, doc.find("\n## ", at + 1) - at);
    for (unsigned k = 0; k <= static_cast<unsigned>(last_session_event_kind); ++k) {
        const std::string name = to_string(static_cast<session_event_kind>(k));
        INFO(name);
        CHECK(section.find("`" + name + "`") != std::string::npos);
    }
}

TEST_CASE("a desync summary splits into the names a divergence gives", "[net][events][forensics]") {
    CHECK(internal::split_diverging("") == std::vector<std::string>{});
    CHECK(internal::split_diverging("ship_pos.y") == std::vector<std::string>{"ship_pos.y"});
    CHECK(internal::split_diverging("ship_pos.y, entities, resources") ==
          std::vector<std::string>{"ship_pos.y", "entities", "resources"});
}

TEST_CASE("a client's events carry their facts: rejection reason, disconnect cause, frames to wait", "[net][events]") {
    sim_match m{77, 1};
    auto &first = m.add_client({10, 1, 0.0}, {10, 1, 0.0});
    m.run(1500);
    REQUIRE(first.session->state() == client_state::running);
    auto &second = m.add_client({10, 1, 0.0}, {10, 1, 0.0});
    m.run(1500);
    REQUIRE(sim_match::count(second.events, session_event_kind::rejected) == 1);
    for (const auto &e : second.events)
        if (e.kind == session_event_kind::rejected) CHECK(e.reject == wire::reject_reason::full);

    SECTION("the server falls silent: timed_out, after wait_recommended with a frame count") {
        m.net.set_blackout(0, true); // nothing delivered either way
        m.run(6000);
        bool waited = false, timed_out = false;
        for (const auto &e : first.events) {
            if (e.kind == session_event_kind::wait_recommended) {
                waited = true;
                CHECK(e.count >= 1u);
            }
            if (e.kind == session_event_kind::disconnected) {
                timed_out = e.cause == disconnect_cause::timed_out;
                CHECK(e.reject == wire::reject_reason::none);
            }
        }
        CHECK(waited);
        CHECK(timed_out);
    }
}

TEST_CASE("a hello of another protocol version is refused in one wording by the server and the host",
          "[net][events][protocol]") {
    CHECK(wire::version_refusal(3) == "protocol version 3, server speaks " + std::to_string(wire::protocol_version));
}
