// The C API sessions' answers to misuse (docs/c-api.md, "Sessions"): bad configs and options,
// handles destroyed while sessions use them, and misuse inside a step, which ends the session
// with RC_EVENT_SESSION_FAILED, never the process.
#include <retcon.h>

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "match_fixture.hpp"
#include "misuse_checks.hpp"

using namespace retcon::capi_test;

namespace {

/// A server and one client over a perfect simulated link, their worlds holding one resource the
/// step counts frames in. Both sessions in the same mode.
class match : public match_fixture {
public:
    explicit match(rc_step_fn step, void *user = nullptr) : match_fixture{7} {
        config = default_config();
        REQUIRE_OK(rc_server_create(&config, server_world, server_end, step, user, nullptr, &server), rc_last_error());
        REQUIRE_OK(rc_client_create(&config, client_world, client_end, step, user, nullptr, &client), rc_last_error());
    }

    /// Steps every poll-mode request of both sessions until @p until says stop (or 5 s pass).
    template<class Until>
    void run_poll(Until &&until) {
        for (int k = 0; k < 2500 && !until(); ++k) {
            now += 2;
            REQUIRE_OK(rc_server_update(server, now), rc_server_last_error(server));
            step_all_server();
            const pad_input in{static_cast<std::uint32_t>(k)};
            REQUIRE_OK(rc_client_update(client, now, &in, sizeof in), rc_client_last_error(client));
            if (until()) return;
            step_all_client();
        }
    }
    void step_all_server() {
        rc_request r{};
        r.struct_size = sizeof r;
        int has = 0;
        while (rc_server_next_request(server, &r, &has) == RC_OK && has) {
            count_frame(r.world);
            REQUIRE(rc_server_request_done(server, r.inputs.frame) == RC_OK);
        }
    }
    void step_all_client() {
        rc_request r{};
        r.struct_size = sizeof r;
        int has = 0;
        while (rc_client_next_request(client, &r, &has) == RC_OK && has) {
            count_frame(r.world);
            REQUIRE(rc_client_request_done(client, r.inputs.frame) == RC_OK);
        }
    }
    /// The poll-mode client's outstanding request, if any.
    bool client_request(rc_request &r) {
        r = rc_request{};
        r.struct_size = sizeof r;
        int has = 0;
        REQUIRE(rc_client_next_request(client, &r, &has) == RC_OK);
        return has != 0;
    }
    void count_frame(rc_world *w) const {
        void *p = nullptr;
        REQUIRE(rc_resource_get(w, resource, &p) == RC_OK);
        ++static_cast<ticks *>(p)->count;
    }
    std::vector<rc_event> client_events(std::vector<std::string> &texts) {
        std::vector<rc_event> out;
        rc_event e{};
        e.struct_size = sizeof e;
        int has = 0;
        while (rc_client_next_event(client, &e, &has) == RC_OK && has) {
            out.push_back(e);
            texts.emplace_back(e.text);
        }
        return out;
    }
    std::uint32_t client_state() const {
        rc_client_info info{};
        info.struct_size = sizeof info;
        REQUIRE(rc_client_get_info(client, &info) == RC_OK);
        return info.state;
    }

    rc_session_config config{};
    std::uint64_t now = 0;
};

/// Finds an event of @p kind whose text contains @p text.
bool has_event(const std::vector<rc_event> &events, const std::vector<std::string> &texts, rc_event_kind kind,
               const std::string &text) {
    for (std::size_t i = 0; i < events.size(); ++i)
        if (events[i].kind == static_cast<std::uint32_t>(kind) && texts[i].find(text) != std::string::npos) return true;
    return false;
}

} // namespace

TEST_CASE("capi sessions: a bad config or options is refused with what is wrong and no handle") {
    handler_guard guard;
    match m{nullptr};
    rc_server *s = nullptr;
    rc_client *c = nullptr;
    rc_session_config cfg = match::default_config();

    CHECK_FAILS(rc_server_create(nullptr, m.server_world, m.server_end, nullptr, nullptr, nullptr, &s), RC_ERR_NULL,
                rc_last_error(), "config is NULL");
    cfg.struct_size = 8;
    CHECK_FAILS(rc_server_create(&cfg, m.server_world, m.server_end, nullptr, nullptr, nullptr, &s), RC_ERR_ARGUMENT,
                rc_last_error(), "struct_size is 8");
    cfg = match::default_config();
    cfg.max_players = 0;
    CHECK_FAILS(rc_server_create(&cfg, m.server_world, m.server_end, nullptr, nullptr, nullptr, &s), RC_ERR_ARGUMENT,
                rc_last_error(), "max_players 0 is outside");
    cfg = match::default_config();
    cfg.tick_hz = 70000;
    CHECK_FAILS(rc_server_create(&cfg, m.server_world, m.server_end, nullptr, nullptr, nullptr, &s), RC_ERR_ARGUMENT,
                rc_last_error(), "tick_hz 70000 exceeds");
    cfg = match::default_config();
    cfg.input_size = 0;
    CHECK_FAILS(rc_client_create(&cfg, m.client_world, m.client_end, nullptr, nullptr, nullptr, &c), RC_ERR_ARGUMENT,
                rc_last_error(), "input_size 0 is outside");
    cfg = match::default_config();
    cfg.no_repeat_size = 2;
    CHECK_FAILS(rc_client_create(&cfg, m.client_world, m.client_end, nullptr, nullptr, nullptr, &c), RC_ERR_NULL,
                rc_last_error(), "no_repeat is NULL");
    const std::uint8_t mask[8] = {};
    cfg.no_repeat = mask;
    cfg.no_repeat_size = 8;
    CHECK_FAILS(rc_client_create(&cfg, m.client_world, m.client_end, nullptr, nullptr, nullptr, &c), RC_ERR_ARGUMENT,
                rc_last_error(), "no_repeat_size 8 exceeds 4");

    cfg = match::default_config();
    rc_server_options so{};
    so.struct_size = sizeof so;
    REQUIRE(rc_server_options_default(&so) == RC_OK);
    so.hello_timeout_ms = 0;
    CHECK_FAILS(rc_server_create(&cfg, m.server_world, m.server_end, nullptr, nullptr, &so, &s), RC_ERR_ARGUMENT,
                rc_last_error(), "hello_timeout_ms must be positive");

    rc_client_options co{};
    co.struct_size = sizeof co;
    REQUIRE(rc_client_options_default(&co) == RC_OK);
    const std::string long_name(40, 'x');
    co.name = long_name.c_str();
    CHECK_FAILS(rc_client_create(&cfg, m.client_world, m.client_end, nullptr, nullptr, &co, &c), RC_ERR_ARGUMENT,
                rc_last_error(), "name is 40 bytes");
    co.name = nullptr;
    const std::uint8_t token[8] = {1};
    co.reconnect_token = token;
    co.reconnect_token_size = sizeof token;
    CHECK_FAILS(rc_client_create(&cfg, m.client_world, m.client_end, nullptr, nullptr, &co, &c), RC_ERR_ARGUMENT,
                rc_last_error(), "reconnect token is 16 bytes");
    co.reconnect_token_size = 0;
    const std::vector<std::uint8_t> join(600, 1);
    co.join_token = join.data();
    co.join_token_size = join.size();
    CHECK_FAILS(rc_client_create(&cfg, m.client_world, m.client_end, nullptr, nullptr, &co, &c), RC_ERR_ARGUMENT,
                rc_last_error(), "join token is 600 bytes");
    CHECK(s == nullptr);
    CHECK(c == nullptr);

    rc_transport *t = nullptr;
    CHECK_FAILS(rc_enet_client_create("127.0.0.1", 0, &t), RC_ERR_ARGUMENT, rc_last_error(), "port 0");
    CHECK_FAILS(rc_enet_server_create(0, 0, 8, &t), RC_ERR_ARGUMENT, rc_last_error(), "max_players 0");
    CHECK_FAILS(rc_sim_network_server(m.net, &t), RC_ERR_ALREADY_PRESENT, rc_last_error(), "server end is taken");
    rc_link bad{};
    bad.struct_size = sizeof bad;
    bad.loss = 1.5;
    CHECK_FAILS(rc_sim_network_connect(m.net, &bad, nullptr, &t), RC_ERR_ARGUMENT, rc_last_error(),
                "probability 1.5 is outside");
    CHECK(t == nullptr);
    guard.check();
}

TEST_CASE("capi sessions: a world, transport or network in use is kept when destroyed, with a message") {
    handler_guard guard;
    match m{nullptr};
    rc_world_destroy(m.client_world);
    CHECK_THAT(text_of(rc_last_error()), Contains("1 session(s) still use this world"));
    std::uint64_t alive = 0;
    CHECK(rc_world_alive(m.client_world, &alive) == RC_OK); // still there
    rc_transport_destroy(m.client_end);
    CHECK_THAT(text_of(rc_last_error()), Contains("still use this transport"));
    rc_sim_network_destroy(m.net);
    CHECK_THAT(text_of(rc_last_error()), Contains("2 transport(s) of this network are alive"));
    m.run_poll([&] { return m.client_state() == RC_CLIENT_RUNNING; }); // everything still works
    CHECK(m.client_state() == RC_CLIENT_RUNNING);
    guard.check();
}

TEST_CASE("capi sessions: poll-mode calls out of order are refused, an update inside a step ends the session") {
    handler_guard guard;
    match m{nullptr};
    rc_request r{};
    m.run_poll([&] { return m.client_request(r); });
    REQUIRE(m.client_request(r));
    const rc_frame frame = r.inputs.frame;

    SECTION("request_done for another frame is refused and changes nothing") {
        CHECK_FAILS(rc_client_request_done(m.client, frame + 1), RC_ERR_ARGUMENT, rc_client_last_error(m.client),
                    "the outstanding request is for frame");
        rc_request again{};
        REQUIRE(m.client_request(again));
        CHECK(again.inputs.frame == frame);
        CHECK(rc_client_request_done(m.client, frame) == RC_OK); // the right one still works
        CHECK(m.client_state() == RC_CLIENT_RUNNING);
    }
    SECTION("update before the requests are done ends the session with an event") {
        const pad_input in{1};
        CHECK_FAILS(rc_client_update(m.client, m.now + 2, &in, sizeof in), RC_ERR_ARGUMENT,
                    rc_client_last_error(m.client), "before the request for frame");
        CHECK(m.client_state() == RC_CLIENT_DISCONNECTED);
        std::vector<std::string> texts;
        const auto events = m.client_events(texts);
        CHECK(has_event(events, texts, RC_EVENT_SESSION_FAILED, "rc_client_update was called before the request"));
        rc_request none{};
        CHECK_FALSE(m.client_request(none)); // the requests were abandoned
        // The server sees the client leave.
        bool left = false;
        for (int k = 0; k < 50 && !left; ++k) {
            REQUIRE(rc_server_update(m.server, m.now += 2) == RC_OK);
            m.step_all_server();
            rc_event e{};
            e.struct_size = sizeof e;
            int has = 0;
            while (rc_server_next_event(m.server, &e, &has) == RC_OK && has)
                left = left || e.kind == RC_EVENT_PLAYER_LEFT || e.kind == RC_EVENT_DISCONNECTED;
        }
        CHECK(left);
    }
    SECTION("request_failed ends the session with the game's reason") {
        CHECK(rc_client_request_failed(m.client, "out of bullets") == RC_OK);
        std::vector<std::string> texts;
        const auto events = m.client_events(texts);
        CHECK(has_event(events, texts, RC_EVENT_SESSION_FAILED, "failed: out of bullets"));
        CHECK_FAILS(rc_client_request_done(m.client, frame), RC_ERR_ARGUMENT, rc_client_last_error(m.client),
                    "no request is outstanding");
    }
    guard.check();
}

namespace {

struct reentry {
    rc_client *client = nullptr;
    rc_world *client_world = nullptr; ///< the server's steps (any other world) always succeed
    rc_status inner = RC_OK;
    std::string inner_message;
    int result = 0; ///< what the step returns
    bool reenter = false;
    bool destroy = false; ///< the step destroys its own session
    bool throws = false;  ///< the step throws (a C++ or a binding's step can)
    std::string destroy_message;
};

int reentrant_step(rc_world *w, const rc_frame_inputs *, void *user) {
    auto &r = *static_cast<reentry *>(user);
    void *p = nullptr;
    if (rc_resource_get(w, 0, &p) == RC_OK) ++static_cast<ticks *>(p)->count;
    if (w != r.client_world) return 0;
    if (r.throws) throw std::runtime_error{"managed exception"};
    if (r.destroy) {
        rc_client_destroy(r.client); // refused: its frame is on the stack
        r.destroy_message = text_of(rc_last_error());
    }
    if (r.reenter) {
        const pad_input in{0};
        r.inner = rc_client_update(r.client, 1, &in, sizeof in);
        r.inner_message = text_of(rc_client_last_error(r.client));
    }
    return r.result;
}

} // namespace

TEST_CASE("capi sessions: in callback mode a failed step or a call from inside it ends the session") {
    handler_guard guard;
    reentry how;
    match m{&reentrant_step, &how};
    // Play until the client runs, with well-behaved steps.
    for (int k = 0; k < 500 && m.client_state() != RC_CLIENT_RUNNING; ++k) {
        REQUIRE(rc_server_update(m.server, m.now += 2) == RC_OK);
        const pad_input in{0};
        REQUIRE(rc_client_update(m.client, m.now, &in, sizeof in) == RC_OK);
    }
    REQUIRE(m.client_state() == RC_CLIENT_RUNNING);
    how.client = m.client;
    how.client_world = m.client_world;

    SECTION("a step that returns non-zero") {
        how.result = 7;
        const pad_input in{0};
        for (int k = 0; k < 50 && m.client_state() == RC_CLIENT_RUNNING; ++k) {
            REQUIRE(rc_server_update(m.server, m.now += 2) == RC_OK);
            CHECK(rc_client_update(m.client, m.now, &in, sizeof in) == RC_OK);
        }
        CHECK(m.client_state() == RC_CLIENT_DISCONNECTED);
        std::vector<std::string> texts;
        const auto events = m.client_events(texts);
        CHECK(has_event(events, texts, RC_EVENT_SESSION_FAILED, "returned 7"));
    }
    SECTION("a step that destroys its own session: kept, and the session ends") {
        how.destroy = true;
        const pad_input in{0};
        rc_status outer = RC_OK;
        for (int k = 0; k < 50 && m.client_state() == RC_CLIENT_RUNNING; ++k) {
            REQUIRE(rc_server_update(m.server, m.now += 2) == RC_OK);
            outer = rc_client_update(m.client, m.now, &in, sizeof in);
        }
        // Before the fix the handle was freed under the update that called the step.
        CHECK_THAT(how.destroy_message, Contains("rc_client_destroy: called inside the step of frame"));
        CHECK(std::string{rc_status_name(outer)} == "RC_ERR_ARGUMENT");
        CHECK(m.client_state() == RC_CLIENT_DISCONNECTED);
        std::vector<std::string> texts;
        const auto events = m.client_events(texts);
        CHECK(has_event(events, texts, RC_EVENT_SESSION_FAILED, "rc_client_destroy was called inside the step"));
    }
    SECTION("a step that throws: the update reports it and the session ends") {
        how.throws = true;
        const pad_input in{0};
        rc_status outer = RC_OK;
        for (int k = 0; k < 50 && outer == RC_OK; ++k) {
            REQUIRE(rc_server_update(m.server, m.now += 2) == RC_OK);
            outer = rc_client_update(m.client, m.now, &in, sizeof in);
        }
        CHECK(std::string{rc_status_name(outer)} == "RC_ERR_INTERNAL");
        CHECK_THAT(text_of(rc_client_last_error(m.client)), Contains("managed exception"));
        // Before the fix the session stayed inside the step: every later update was refused.
        CHECK(m.client_state() == RC_CLIENT_DISCONNECTED);
        std::vector<std::string> texts;
        const auto events = m.client_events(texts);
        CHECK(has_event(events, texts, RC_EVENT_SESSION_FAILED, "threw an exception"));
        how.throws = false;
        CHECK(rc_client_update(m.client, m.now + 2, &in, sizeof in) == RC_OK);
    }
    SECTION("a step that calls rc_client_update") {
        how.reenter = true;
        const pad_input in{0};
        rc_status outer = RC_OK;
        for (int k = 0; k < 50 && m.client_state() == RC_CLIENT_RUNNING; ++k) {
            REQUIRE(rc_server_update(m.server, m.now += 2) == RC_OK);
            outer = rc_client_update(m.client, m.now, &in, sizeof in);
        }
        CHECK(std::string{rc_status_name(how.inner)} == "RC_ERR_ARGUMENT");
        CHECK_THAT(how.inner_message, Contains("rc_client_update was called inside the step of frame"));
        CHECK(std::string{rc_status_name(outer)} == "RC_ERR_ARGUMENT");
        CHECK_THAT(text_of(rc_client_last_error(m.client)), Contains("the step misused the session"));
        CHECK(m.client_state() == RC_CLIENT_DISCONNECTED);
        std::vector<std::string> texts;
        const auto events = m.client_events(texts);
        CHECK(has_event(events, texts, RC_EVENT_SESSION_FAILED, "inside the step"));
        rc_request r{};
        r.struct_size = sizeof r;
        int has = 0;
        CHECK_FAILS(rc_client_next_request(m.client, &r, &has), RC_ERR_ARGUMENT, rc_client_last_error(m.client),
                    "callback mode");
    }
    guard.check();
}

TEST_CASE("capi sessions: tokens and slots are checked") {
    handler_guard guard;
    match m{nullptr};
    m.run_poll([&] { return m.client_state() == RC_CLIENT_RUNNING; });
    m.step_all_client(); // nothing outstanding: an update now is not misuse
    std::uint8_t token[RC_RECONNECT_TOKEN_SIZE] = {};
    std::size_t needed = 0;
    CHECK_FAILS(rc_client_reconnect_token(m.client, token, 4, &needed), RC_ERR_BUFFER_TOO_SMALL,
                rc_client_last_error(m.client), "16 are needed");
    CHECK(needed == RC_RECONNECT_TOKEN_SIZE);
    REQUIRE(rc_client_reconnect_token(m.client, token, sizeof token, &needed) == RC_OK);
    int known = 0;
    REQUIRE(rc_server_knows_token(m.server, token, sizeof token, &known) == RC_OK);
    CHECK(known == 1);
    token[0] ^= 1u;
    REQUIRE(rc_server_knows_token(m.server, token, sizeof token, &known) == RC_OK);
    CHECK(known == 0);
    std::uint64_t player = 1;
    REQUIRE(rc_server_slot_player(m.server, 0, &player) == RC_OK);
    CHECK(player == 0); // no admission: no identity
    CHECK_FAILS(rc_server_slot_player(m.server, 300, &player), RC_ERR_ARGUMENT, rc_server_last_error(m.server),
                "slot 300 is not a player slot");
    CHECK_FAILS(rc_server_knows_token(m.server, token, 8, &known), RC_ERR_SIZE, rc_server_last_error(m.server),
                "16 bytes");
    int predicted = 0;
    CHECK_FAILS(rc_client_is_predicted(m.client, 0, 3, &predicted), RC_ERR_ARGUMENT, rc_client_last_error(m.client),
                "slot 3 is outside");
    const std::uint8_t big[8] = {};
    CHECK_FAILS(rc_client_update(m.client, m.now, big, sizeof big), RC_ERR_SIZE, rc_client_last_error(m.client),
                "the input is 8 bytes");
    guard.check();
}
