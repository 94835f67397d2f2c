#include "server_app.hpp"

#include <retcon/net.hpp>
#include <retcon_demo/game.hpp>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>

namespace retcon::demo {

namespace {

std::atomic<bool> stop_requested{false};
extern "C" void on_signal(int) { stop_requested = true; }

std::uint64_t now_ms() {
    using namespace std::chrono;
    return static_cast<std::uint64_t>(duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count());
}

} // namespace

int run_server(const server_settings &s) {
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);

    world w{make_schema()};
    world_options wo;
    wo.seed = s.seed;
    init_world(w, wo);
    game g;
    const auto config = make_config(s.players, s.tick_hz);

    // The ENet peer table holds the players, the spectators and connections mid-handshake, so
    // neither spectators nor half-open connections can take a player's place (docs/net.md).
    auto net = make_enet_server(s.port, enet_options_for_match(s.players, s.max_spectators));
    if (!net) {
        std::fprintf(stderr, "demo_server: %s\n", net.message().c_str());
        return 2;
    }
    server_options so;
    so.max_spectators = s.max_spectators;
    so.forensics_dir = s.forensics_dir;
    so.record_path = s.record; // empty: not recorded
    so.record_settings.metadata = {
        {"game", "retcon demo arena"}, {"seed", std::to_string(s.seed)}, {"players", std::to_string(s.players)}};
    server_session server{config, w, [&g](world &ww, const frame_inputs &in) { g.step(ww, in); }, **net, so};

    std::printf("demo_server: listening on UDP port %u for %u players at %u Hz%s\n", (*net)->local_port(), s.players,
                s.tick_hz,
                s.duration_s > 0 ? (", match lasts " + std::to_string(static_cast<int>(s.duration_s)) + " s").c_str() : "");
    std::fflush(stdout);
    const std::uint64_t start = now_ms();
    std::uint64_t last_report = start;
    std::uint64_t joins = 0;
    bool recorded = !s.record.empty();
    for (;;) {
        const std::uint64_t now = now_ms();
        server.poll(now);
        while (server.should_tick(now)) server.tick();
        for (session_event ev; server.next_event(ev);) {
            if (ev.kind == session_event_kind::player_joined) ++joins;
            if (ev.kind == session_event_kind::recording_failed) recorded = false;
            std::printf("[frame %u] %s slot %d %s\n", ev.frame, to_string(ev.kind), ev.slot, ev.text.c_str());
            std::fflush(stdout);
        }
        const bool time_up = s.duration_s > 0 && static_cast<double>(now - start) >= s.duration_s * 1000.0;
        if (time_up || stop_requested) server.end_match(); // starts the ending; a no-op after
        if (server.finished()) break; // every client acknowledged the goodbye, or the timeout passed
        if (!s.quiet && now - last_report >= 1000) {
            last_report = now;
            std::printf("[frame %u] players %d", server.frame(), server.players());
            for (int slot = 0; slot < s.players; ++slot) {
                const auto st = server.client_stats(slot);
                if (st.current_frame == 0) continue;
                std::printf(" | slot %d: margin %d ms, replaced %llu, %0.1f/%0.1f kB/s in/out", slot, st.margin_ms,
                            static_cast<unsigned long long>(st.replaced_inputs), st.bytes_in_per_s / 1000.0,
                            st.bytes_out_per_s / 1000.0);
            }
            std::printf("\n");
            std::fflush(stdout);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    // desyncs: verified ones only (an uploaded snapshot differed from the server's); unverified:
    // mismatches a client reported that no upload confirmed (docs/net.md, "Desync forensics").
    const auto t = server.totals();
    std::printf("demo_server: match over after %u frames; players joined %llu; desyncs: %llu; unverified desyncs: %llu; "
                "replaced inputs %llu",
                server.frame(), static_cast<unsigned long long>(joins), static_cast<unsigned long long>(t.desyncs),
                static_cast<unsigned long long>(t.unverified_desyncs), static_cast<unsigned long long>(t.replaced_inputs));
    if (recorded) {
        std::error_code ec;
        const auto bytes = std::filesystem::file_size(s.record, ec);
        std::printf("; replay %s (%llu bytes)", s.record.c_str(), static_cast<unsigned long long>(ec ? 0 : bytes));
    }
    std::printf("\n");
    return 0;
}

} // namespace retcon::demo
