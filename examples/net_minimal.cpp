// The smallest complete networked game: a 3-player tank arena with a server and three headless
// bot clients over real ENet on loopback, the match recorded by the server and the recording
// verified with the game's own step afterwards. The README links here; the test suite runs it.
//
//   net_minimal [seconds]        (default 3)
#include <retcon/ecs.hpp>
#include <retcon/net.hpp>
#include <retcon/snapshot.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <thread>
#include <vector>

// ---------------------------------------------------------------- the game (deterministic)
struct Tank {
    std::int32_t x, y;
    std::int32_t hp;
    std::uint32_t shots;
};
RETCON_COMPONENT(Tank, x, y, hp, shots);

struct Tanks { // which entity drives each player slot
    retcon::entity of[3];
};
RETCON_RESOURCE(Tanks, of);

struct Input {
    std::int8_t dx, dy;
    std::uint8_t fire; // edge-triggered: never repeated by prediction
    std::uint8_t pad;
};
RETCON_COMPONENT(Input, dx, dy, fire, pad);

retcon::schema arena_schema() {
    retcon::schema s;
    s.component<Tank>().resource<Tanks>();
    return s;
}

void init_arena(retcon::world &w) {
    Tanks t{};
    for (auto &e : t.of) e = retcon::null_entity;
    w.set_resource<Tanks>(t);
}

// One frame: a tank appears when its player joins and leaves with them; inputs move it; fire
// damages every other tank.
void step(retcon::world &w, const retcon::frame_inputs &in) {
    auto &tanks = w.resource<Tanks>();
    for (std::size_t p = 0; p < in.players(); ++p) {
        retcon::entity &me = tanks.of[p];
        if (!in.present(p)) {
            if (me != retcon::null_entity) w.destroy(me);
            me = retcon::null_entity;
            continue;
        }
        if (me == retcon::null_entity) {
            me = w.create();
            w.emplace<Tank>(me, static_cast<std::int32_t>(p) * 100, 0, 100, 0u);
        }
        const auto input = in.get<Input>(p);
        auto &tank = w.get<Tank>(me);
        tank.x += input.dx;
        tank.y += input.dy;
        if (input.fire == 0) continue;
        ++tank.shots;
        w.view<Tank>().each([me](retcon::entity e, Tank &other) {
            if (e != me) other.hp -= 1;
        });
    }
}

// ---------------------------------------------------------------- the program
std::uint64_t now_ms() {
    using namespace std::chrono;
    return static_cast<std::uint64_t>(duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count());
}

struct player {
    retcon::world world{arena_schema()};
    std::unique_ptr<retcon::transport> link;
    std::unique_ptr<retcon::client_session> session;
    std::uint32_t seed = 0;
    bool ended = false;
};

int main(int argc, char **argv) {
    const double seconds = argc > 1 ? std::atof(argv[1]) : 3.0;
    const auto replay = std::filesystem::temp_directory_path() / "retcon_net_minimal.rcr";
    std::filesystem::remove(replay); // a replay is never overwritten: a run cut short left its own

    // Server: port 0 asks the system for a free port; the transport reports which.
    auto config = retcon::make_session_config<Input>(3);
    config.prediction.no_repeat<Input>("fire");
    retcon::world server_world{arena_schema()};
    init_arena(server_world);
    auto server_link = retcon::make_enet_server(0, {}, "127.0.0.1");
    if (!server_link) return std::fprintf(stderr, "server: %s\n", server_link.message().c_str()), 1;
    const std::uint16_t port = (*server_link)->local_port();
    retcon::server_options options;
    options.record_path = replay; // the server records the match: one line
    retcon::server_session server{config, server_world, step, **server_link, options};

    // Clients: only the address and the input type; players, tick rate and delays come from the welcome.
    auto client_config = retcon::make_client_config<Input>();
    client_config.prediction.no_repeat<Input>("fire");
    std::vector<std::unique_ptr<player>> players;
    for (std::uint32_t i = 0; i < 3; ++i) {
        auto p = std::make_unique<player>();
        init_arena(p->world);
        auto link = retcon::make_enet_client("127.0.0.1", port);
        if (!link) return std::fprintf(stderr, "client: %s\n", link.message().c_str()), 1;
        p->link = std::move(*link);
        retcon::client_options bot;
        bot.name = "bot";
        p->session = std::make_unique<retcon::client_session>(client_config, p->world, step, *p->link, bot);
        p->seed = 0x9E3779B9u * (i + 1u);
        players.push_back(std::move(p));
    }

    // One loop drives everything (a real game has one process per player).
    const std::uint64_t start = now_ms();
    bool ending = false;
    while (!server.finished()) {
        const std::uint64_t now = now_ms();
        server.poll(now);
        while (server.should_tick(now)) server.tick();
        for (retcon::session_event ev; server.next_event(ev);)
            if (ev.kind == retcon::session_event_kind::recording_failed) std::printf("server: %s\n", ev.text.c_str());
        if (!ending && now - start > static_cast<std::uint64_t>(seconds * 1000.0)) {
            server.end_match(); // never blocks: poll() keeps servicing until finished()
            ending = true;
        }
        for (auto &p : players) {
            p->session->poll(now);
            while (p->session->should_tick(now)) {
                p->seed = p->seed * 1664525u + 1013904223u; // a bot: a deterministic pseudo-random walk
                const Input input{static_cast<std::int8_t>(static_cast<int>(p->seed >> 29) - 4),
                                  static_cast<std::int8_t>(static_cast<int>((p->seed >> 26) & 7u) - 4),
                                  static_cast<std::uint8_t>((p->seed >> 20) % 16u == 0u), 0};
                p->session->tick(input);
            }
            for (retcon::session_event ev; p->session->next_event(ev);)
                if (ev.kind == retcon::session_event_kind::match_ended) p->ended = true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }

    // Verify the recording: re-simulate it with the same step and compare every frame's hash.
    auto reader = retcon::replay_reader::open(replay);
    if (!reader) return std::fprintf(stderr, "replay: %s\n", reader.message().c_str()), 1;
    retcon::world check{arena_schema()};
    auto report = retcon::verify(*reader, check, step);
    if (!report) return std::fprintf(stderr, "verify: %s\n", report.message().c_str()), 1;

    std::size_t ended = 0;
    for (const auto &p : players) ended += p->ended ? 1u : 0u;
    std::printf("players: %zu (welcome said %zu), frames: %u, match_ended seen by %zu of 3, desyncs: %llu\n",
                players.size(), players[0]->session->players(), server.frame(), ended,
                static_cast<unsigned long long>(server.totals().desyncs));
    std::printf("replay: %llu frames verified: %s\n", static_cast<unsigned long long>(report->frames_checked),
                report->ok() ? "ok" : "MISMATCH");
    std::filesystem::remove(replay);
    return report->ok() && ended == 3 && server.totals().desyncs == 0 ? 0 : 1;
}
