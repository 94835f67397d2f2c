// Desync bisection (docs/net.md, "Desync forensics"): when a client's hash of a frame differs,
// both sides re-run that frame stage by stage from their own world before it, and the server
// names the first stage whose hash differs, then the entity and field it changed differently.
// The faulty client's step reads a value of its own (test_game.hpp, game_fault), as a build
// on another machine might.
#include <catch2/catch.hpp>

#include <common/misuse.hpp>
#include <common/raw_peer.hpp>
#include <common/sim_match.hpp>
#include <common/temp_dir.hpp>

#include "forensics.hpp"

#include <retcon/snapshot/diff.hpp>
#include <retcon/snapshot/file.hpp>

#include <algorithm>
#include <cstring>
#include <optional>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace retcon;
using namespace retcon::test;

namespace {

constexpr frame_t fault_frame = 300;

/// What both sides said about the faulty client's desync.
struct bisected {
    std::optional<session_event> server;     ///< the server's first desync_detected
    std::optional<session_event> client;     ///< the faulty client's first named desync_detected
    std::vector<std::string> files;          ///< written to forensics_dir
    std::string record;                      ///< the .txt forensic record
    std::optional<snapshot_diff> stage_diff; ///< between the stage images written
    std::size_t unverified = 0, false_claims = 0;
    std::vector<std::string> unverified_texts;
    std::vector<std::string> client_texts; ///< the faulty client's desync_detected texts
    bool bad_running = false;
};

/// Two players over the simulated network, each link with @p link both ways; the second one's
/// step is @p bad_step, its options @p bad_options. The server and the first client step with
/// @p good_step.
bisected run_fault(const step_function &good_step, const step_function &bad_step, bool corrupt = false,
                   const link_conditions &link = {25, 5, 0.0}, const client_options &bad_options = {}) {
    temp_dir dir;
    sim_options o;
    o.server_step = good_step;
    sim_match m{21, 2, game_config(2), o};
    server_options so;
    so.forensics_dir = dir.path();
    m.use_server_options(so);
    m.add_client(link, link, {}, good_step);
    auto &bad = m.add_client(link, link, bad_options, bad_step);
    if (corrupt) { // the world changed between frames, by no stage (client_session::debug_corrupt)
        m.run(3000);
        m.corrupt_ships(bad, 5000);
    } else {
        m.run(8000);
    }
    bisected r;
    for (const auto &e : m.server_events) {
        if (e.kind == session_event_kind::desync_unverified && e.slot == 1) {
            ++r.unverified;
            r.unverified_texts.push_back(e.text);
            if (e.unverified == unverified_reason::unreadable || e.unverified == unverified_reason::no_difference)
                ++r.false_claims;
        }
        if (e.kind == session_event_kind::desync_detected && !r.server) r.server = e;
    }
    for (const auto &e : bad.events) {
        if (e.kind == session_event_kind::desync_detected) r.client_texts.push_back(e.text);
        if (e.kind == session_event_kind::desync_detected && !e.diverging.empty() && !r.client) r.client = e;
    }
    r.files = dir.entries();
    std::string server_stage, client_stage;
    for (const auto &name : r.files) {
        if (name.ends_with(".txt")) {
            std::ifstream in{dir / name};
            std::stringstream ss;
            ss << in.rdbuf();
            r.record = ss.str();
        }
        if (name.find("-stage") != std::string::npos)
            (name.ends_with("-server.rcs") ? server_stage : client_stage) = name;
    }
    if (!server_stage.empty() && !client_stage.empty()) {
        auto a = read_snapshot_file(dir / server_stage);
        auto b = read_snapshot_file(dir / client_stage);
        if (a && b)
            if (auto d = diff(a->image, a->schema, b->image, b->schema); d) r.stage_diff = std::move(*d);
    }
    r.bad_running = bad.session->state() == client_state::running;
    return r;
}

bool has(const std::vector<std::string> &v, const std::string &s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

} // namespace

TEST_CASE("structured_game_step makes the same worlds as step_game", "[net][bisection]") {
    world a{game_schema()}, b{game_schema()};
    init_game(a);
    init_game(b);
    const step_function structured = structured_game_step();
    bot p{7}, q{11};
    std::vector<std::byte> rec(input_record_size(2, sizeof(game_input)));
    for (frame_t f = 0; f < 400; ++f) {
        frame_record r{2, sizeof(game_input), rec.data()};
        r.set_flags(0, slot_flags::present);
        r.set_flags(1, slot_flags::present);
        const game_input i0 = p.next(), i1 = q.next();
        std::memcpy(r.input(0).data(), &i0, sizeof i0);
        std::memcpy(r.input(1).data(), &i1, sizeof i1);
        const frame_inputs in{f, 2, sizeof(game_input), rec.data()};
        step_game(a, in);
        structured(b, in);
        REQUIRE(hash(a) == hash(b));
    }
}

TEST_CASE("a fault in one system is named by the server: the system, the entity and the field", "[net][bisection]") {
    const auto r = run_fault(structured_game_step(), structured_game_step({"bullets", fault_frame, 1000}));
    REQUIRE(r.server);
    INFO(r.server->text);
    CHECK(r.server->frame == fault_frame);
    CHECK(r.server->slot == 1);
    CHECK(r.server->stage == "bullets");
    CHECK(r.server->stage_index == 1);
    CHECK(r.server->stage_count == 3u);
    CHECK(has(r.server->diverging, "ship_pos.x"));
    CHECK(r.server->text.starts_with("desync at frame 300: first diverging system \"bullets\" (stage 1 of 3); "
                                     "ship_pos.x of entity "));
    CHECK(r.server->text.find(" (server, unchanged) vs ") != std::string::npos);
    CHECK(r.server->text.ends_with(" (client)"));
    // The client hears the same stage.
    REQUIRE(r.client);
    CHECK(r.client->stage == "bullets");
    CHECK(r.client->stage_index == 1);
    CHECK(r.client->stage_count == 3u);
    // The forensic record starts with the verdict; the stage images show the field.
    CHECK(r.record.starts_with(r.server->text + "\n"));
    CHECK(std::count_if(r.files.begin(), r.files.end(),
                        [](const std::string &n) { return n.ends_with("-frame301-stage1-server.rcs"); }) == 1);
    REQUIRE(r.stage_diff);
    REQUIRE(r.stage_diff->pools.size() == 1);
    CHECK(r.stage_diff->pools[0].pool == "ship_pos");
    REQUIRE(r.stage_diff->pools[0].entities.size() == 1);
    CHECK(r.stage_diff->pools[0].entities[0].fields.at(0).field == "x");
    // An honest client's desync is no false claim: it is resynchronised and plays on.
    CHECK(r.false_claims == 0);
    CHECK(r.bad_running);
}

TEST_CASE("a fault in one system is named over a 150 ms round trip: the client still holds the frame's images",
          "[net][bisection]") {
    // 75 ms each way: the server's request for frame F arrives some 10 frames after the client
    // kept its image of F - 1. The default forensic_ms (500) keeps 30 at 60 Hz.
    const link_conditions slow{75, 5, 0.0};
    const auto r = run_fault(structured_game_step(), structured_game_step({"bullets", fault_frame, 1000}), false, slow);
    for (const auto &t : r.unverified_texts) UNSCOPED_INFO(t);
    REQUIRE(r.server);
    INFO(r.server->text);
    CHECK(r.server->frame == fault_frame);
    CHECK(r.server->stage == "bullets");
    CHECK(r.server->stage_index == 1);
    CHECK(r.server->text.starts_with("desync at frame 300: first diverging system \"bullets\" (stage 1 of 3); "));
    REQUIRE(r.client);
    CHECK(r.client->stage == "bullets");
    CHECK(r.false_claims == 0);
}

TEST_CASE("client_options::forensic_ms sizes the window: shorter than the round trip, nothing is bisected",
          "[net][bisection]") {
    // 20 ms keeps 2 images at 60 Hz: at a 50 ms round trip (which the default window bisects,
    // as above) the client no longer holds frame 299 or 300 when the server asks, and says so.
    client_options short_window;
    short_window.forensic_ms = 20;
    const auto r = run_fault(structured_game_step(), structured_game_step({"bullets", fault_frame, 1000}), false,
                             {25, 5, 0.0}, short_window);
    CHECK(std::count(r.client_texts.begin(), r.client_texts.end(), "no local snapshot of that frame to compare") >= 1);
    CHECK_FALSE(r.client); // no stage named to the client
    if (r.server) CHECK(r.server->stage.empty());
    CHECK(r.false_claims == 0);
    CHECK(r.bad_running);
}

TEST_CASE("client_options_problem: forensic_ms outside 1..60000 is named, and misuse for a client session",
          "[net][bisection][config]") {
    CHECK(client_options_problem(client_options{}).empty());
    client_options o;
    o.forensic_ms = 0;
    CHECK(client_options_problem(o) == "client_options: forensic_ms 0 is outside 1..60000");
    o.forensic_ms = 60001;
    CHECK(client_options_problem(o) == "client_options: forensic_ms 60001 is outside 1..60000");
    o.forensic_ms = 60000;
    CHECK(client_options_problem(o).empty());
    o.forensic_ms = 0;
    sim_network net{32};
    world w{game_schema()};
    REQUIRE_MISUSE(client_session(game_config(2), w, step_game, net.connect({}, {}), o),
                   "client_options: forensic_ms 0 is outside 1..60000");
}

TEST_CASE("a fault in input application names \"apply inputs\"", "[net][bisection]") {
    const auto r = run_fault(structured_game_step(), structured_game_step({"apply inputs", fault_frame, -5}));
    REQUIRE(r.server);
    INFO(r.server->text);
    CHECK(r.server->stage == "apply inputs");
    CHECK(r.server->stage_index == 0);
    CHECK(r.server->text.starts_with("desync at frame 300: first diverging stage \"apply inputs\" (stage 0 of 3); "));
    CHECK(r.server->text.find("ship_pos.x of entity ") != std::string::npos);
    CHECK(r.server->text.ends_with(" (client)"));
    REQUIRE(r.client);
    CHECK(r.client->stage == "apply inputs");
}

TEST_CASE("an opaque step is bisected to the frame: the stage \"step\", and the fields", "[net][bisection]") {
    const step_function faulty = [](world &w, const frame_inputs &in) {
        step_game(w, in);
        if (in.frame() == fault_frame) w.get<ship_pos>(w.resource<ships>().of[0]).x += 3;
    };
    const auto r = run_fault(step_game, faulty);
    REQUIRE(r.server);
    INFO(r.server->text);
    CHECK(r.server->stage == "step");
    CHECK(r.server->stage_index == 0);
    CHECK(r.server->stage_count == 1u);
    CHECK(r.server->text.starts_with("desync at frame 300: first diverging stage \"step\" (an opaque step"));
    CHECK(r.server->text.find("ship_pos.x of entity ") != std::string::npos);
    CHECK(has(r.server->diverging, "ship_pos.x"));
}

TEST_CASE("a world changed between frames is not blamed on a stage", "[net][bisection]") {
    const auto r = run_fault(structured_game_step(), structured_game_step(), true);
    for (const auto &t : r.unverified_texts) UNSCOPED_INFO(t);
    REQUIRE(r.server);
    INFO(r.server->text);
    // Re-run from its world before the frame, the client's step agrees with the server's at
    // every stage: the verdict is the frame's diff, and the client is not blamed.
    CHECK(r.server->stage.empty());
    CHECK(r.server->stage_index == -1);
    CHECK(r.server->text.find(": not bisected: the client's re-run of the frame agrees with the server's at every "
                              "stage (its world changed outside the step?); ship_pos.y of entity ") !=
          std::string::npos);
    CHECK(has(r.server->diverging, "ship_pos.y"));
    CHECK(r.false_claims == 0);
    CHECK(r.bad_running);
}

TEST_CASE("a client whose step cannot be re-run (poll mode) is verified at the frame, not blamed", "[net][bisection]") {
    // The C API's poll-mode step is requests_only: the client sends no stage report and the
    // server verifies its upload after the frame, saying why it could not bisect.
    const step_function faulty = step_function::requests_only([](world &w, const frame_inputs &in) {
        step_game(w, in);
        if (in.frame() == fault_frame) w.get<ship_pos>(w.resource<ships>().of[0]).x += 3;
    });
    const auto r = run_fault(step_game, faulty);
    REQUIRE(r.server);
    INFO(r.server->text);
    CHECK(r.server->stage.empty());
    CHECK(r.server->text.starts_with("desync at frame 300: not bisected: the client sent no stage report (it cannot "
                                     "re-run the frame); ship_pos.x of entity "));
    CHECK(has(r.server->diverging, "ship_pos.x"));
    CHECK(r.false_claims == 0);
    CHECK(r.bad_running);
}

TEST_CASE("a client that runs another schedule is verified at the frame, not bisected and not blamed",
          "[net][bisection]") {
    // The faulty client's step is opaque, the server's structured: their stage names differ.
    const step_function faulty = [](world &w, const frame_inputs &in) {
        step_game(w, in);
        if (in.frame() == fault_frame) w.get<ship_pos>(w.resource<ships>().of[0]).x += 3;
    };
    const auto r = run_fault(structured_game_step(), faulty);
    REQUIRE(r.server);
    INFO(r.server->text);
    CHECK(r.server->stage.empty());
    CHECK(r.server->stage_index == -1);
    CHECK(r.server->text.starts_with("desync at frame 300: not bisected: the client runs another schedule; "));
    CHECK(has(r.server->diverging, "ship_pos.x"));
    CHECK(r.bad_running);
}

namespace {

/// Two raw peers joined to a server with the structured test game; @p b claimed a wrong hash
/// for a recent frame and was asked for its upload, with the server's stage hashes.
struct asked {
    sim_match m;
    raw_peer a, b;
    frame_t f = no_frame;

    asked() : m{31, 2, game_config(2), options()}, a{m}, b{m} {
        const std::vector<raw_peer *> peers{&a, &b};
        run(200);
        for (auto *p : peers) p->hello(m, false);
        run(1300);
        f = m.server->frame() - 2u;
        b.claim(m, f, 0x0bad);
        run(50);
    }
    static sim_options options() {
        sim_options o;
        o.server_step = structured_game_step();
        o.keep_hashes = true;
        return o;
    }
    void run(std::uint64_t ms) {
        for (std::uint64_t i = 0; i < ms; ++i) {
            if (m.now % 100 == 0)
                for (auto *p : {&a, &b})
                    if (p->welcomed) p->ack(m);
            m.run(1);
            for (auto *p : {&a, &b}) p->t.poll(m.now, *p);
        }
    }
    void report(const wire::stage_report_msg &r, wire::channel ch = wire::channel::snapshots) {
        wire::encode(r, b.out);
        b.t.send(0, ch, b.out);
    }
    /// A report of the server's own hashes, saying its image stands at @p point.
    wire::stage_report_msg echo(std::uint8_t point) const {
        wire::stage_report_msg r;
        r.frame = f;
        r.upload_point = point;
        r.client = b.desyncs.at(0).server;
        return r;
    }
    std::vector<std::byte> some_file() const {
        world w{game_schema()};
        init_game(w);
        w.resource<ships>().score[1] += 1000;
        world_image s;
        save(w, s, f);
        return encode_snapshot_file(s, m.server_world.get_schema(), 1);
    }
    std::size_t false_claims() const {
        return sim_match::count(m.server_events, session_event_kind::desync_unverified, [](const session_event &e) {
            return e.slot == 1 && e.unverified == unverified_reason::unreadable;
        });
    }
};

} // namespace

TEST_CASE("the first notice of a desync carries the server's stage hashes", "[net][bisection]") {
    asked s;
    REQUIRE(s.b.desyncs.size() == 1);
    const auto &d = s.b.desyncs[0];
    CHECK(d.diverging.empty());
    CHECK(d.stage == wire::stage_none);
    CHECK(d.server.after.size() == 3u); // apply inputs, bullets, ttl
    CHECK(d.server.names == internal::stage_names_hash(structured_game_step()));
    CHECK(d.server.after.back() == s.m.server_hashes.at(s.f)); // the frame's own hash, re-run
}

TEST_CASE("a forged stage report counts only against its sender", "[net][bisection][hostile]") {
    SECTION("its image is not where its own hashes first differ") {
        asked s;
        REQUIRE(s.b.desyncs.size() == 1);
        s.report(s.echo(0)); // the server's own hashes, yet an image after stage 0
        s.b.upload(s.f, s.some_file());
        s.run(300);
        CHECK(s.false_claims() == 1);
    }
    SECTION("its image's hash is not the one it reported") {
        asked s;
        REQUIRE(s.b.desyncs.size() == 1);
        auto r = s.echo(wire::stage_start);
        r.client.start ^= 1u; // "the world differed at the start of the frame"
        s.report(r);
        s.b.upload(s.f, s.some_file());
        s.run(300);
        CHECK(s.false_claims() == 1);
    }
}

TEST_CASE("stage reports out of turn drop their sender, the other player plays on", "[net][bisection][hostile]") {
    SECTION("unrequested") {
        asked s;
        auto r = s.echo(wire::stage_none);
        r.frame = s.f + 1u; // no request covers it
        s.report(r);
        s.run(100);
        CHECK(s.b.closed);
        CHECK_FALSE(s.a.closed);
    }
    SECTION("on the control channel") {
        asked s;
        s.report(s.echo(wire::stage_none), wire::channel::control);
        s.run(100);
        CHECK(s.b.closed);
        CHECK_FALSE(s.a.closed);
    }
    SECTION("after the upload began") {
        asked s;
        s.b.upload_chunk(s.f, 5000, 0, 1000);
        s.report(s.echo(wire::stage_none));
        s.run(100);
        CHECK(s.b.closed);
        CHECK_FALSE(s.a.closed);
    }
    SECTION("twice") {
        asked s;
        s.report(s.echo(wire::stage_none));
        s.report(s.echo(wire::stage_none));
        s.run(100);
        CHECK(s.b.closed);
        CHECK_FALSE(s.a.closed);
    }
    SECTION("more stages than a list holds") {
        asked s;
        auto r = s.echo(wire::stage_none);
        r.client.after.assign(200, 1u);
        std::vector<std::byte> bytes;
        wire::encode(r, bytes); // the encoder caps the list at 128: patch the count
        bytes[6] = std::byte{200};
        bytes.resize(6 + 1 + 16 + 200 * 8);
        s.b.t.send(0, wire::channel::snapshots, bytes);
        s.run(100);
        CHECK(s.b.closed);
        CHECK_FALSE(s.a.closed);
    }
}
