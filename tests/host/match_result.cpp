// A match's result as one JSON line (docs/hosting.md, "Match results").
#include <catch2/catch.hpp>

#include <retcon/host/match_result.hpp>

#include <nlohmann/json.hpp>

using namespace retcon;

TEST_CASE("match result: one line of JSON in the documented order, readable whatever bytes a player's name holds",
          "[host][result]") {
    match_result r;
    r.match_id = "m-1";
    r.end_reason = "drain";
    r.final_frame = 1200;
    r.final_hash = 0x00c0ffee12345678ull;
    r.duration_s = 20.004123;
    r.replay_hash = 0xfedcba9876543210ull;
    r.recording_failed = true;
    r.recording_error = "replays/m-1.rcr: No space left on device";
    slot_result s;
    s.slot = 1;
    s.player_id = 42;
    s.name = std::string{"ev\"il\\\x01\xff\xfe"}; // a quote, a backslash, a control byte, not UTF-8
    s.score = -3;
    s.outcome = "lost";
    s.present_at_end = true;
    r.slots = {s};

    const auto line = to_json(r);
    INFO(line);
    CHECK(line.find('\n') == std::string::npos);
    CHECK(line.rfind(R"({"event":"match_result","match_id":"m-1","end_reason":"drain","final_frame":1200,)", 0) == 0);
    const auto j = nlohmann::json::parse(line, nullptr, false); // strict: UTF-8 only
    REQUIRE_FALSE(j.is_discarded());
    CHECK(j["final_hash"] == "00c0ffee12345678");
    CHECK(j["replay_hash"] == "fedcba9876543210");
    // Whether the replay was written, right after what it would have been.
    CHECK(line.find(R"("replay_hash":"fedcba9876543210","recording_failed":true,)"
                    R"("recording_error":"replays/m-1.rcr: No space left on device","desyncs_verified":0,)") !=
          std::string::npos);
    CHECK(j["duration_s"].get<double>() == Approx(20.004).margin(1e-9));
    REQUIRE(j["slots"].size() == 1);
    CHECK(j["slots"][0]["name"] == "ev\"il\\\x01\xEF\xBF\xBD\xEF\xBF\xBD"); // each stray byte became U+FFFD
    CHECK(j["slots"][0]["score"] == -3);
    CHECK(j["slots"][0]["present_at_end"] == true);
}
