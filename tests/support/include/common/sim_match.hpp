#ifndef RETCON_TESTS_SIM_MATCH_HPP
#define RETCON_TESTS_SIM_MATCH_HPP

// A whole match in one process: a server and N clients on a seeded simulated network, driven
// by a virtual clock. Records every confirmed-frame hash on every side for comparison. The
// netcode benchmarks (bench/net_bench.cpp) drive the same loop, counting the traffic and timing
// single ticks.
#include "counting_transport.hpp"
#include "test_game.hpp"

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <vector>

namespace retcon::test {

struct sim_client {
    world w{game_schema()};
    std::unique_ptr<counting_transport> counted; ///< set when the match counts traffic
    std::unique_ptr<client_session> session;
    bot input{1};
    /// @brief If set, the client's inputs instead of the bot's.
    std::function<game_input()> script;
    std::map<std::uint32_t, std::uint64_t> hashes;
    std::vector<session_event> events;
    double clock_scale = 1.0; ///< simulated clock skew (1.0001 = +100 ppm)
    bool active = true;

    /// @brief The input of the client's next tick.
    game_input next_input() { return script ? script() : input.next(); }
};

/// @brief What a sim_match records besides the sessions' own state.
struct sim_options {
    /// Confirmed-frame hashes of the server and every client (sim_match::server_hashes,
    /// sim_client::hashes), through the sessions' callbacks.
    bool keep_hashes = true;
    /// Packets and bytes sent per peer and channel (sim_match::server_counted,
    /// sim_client::counted): every session's transport is wrapped in a counting_transport.
    bool count_traffic = false;
    /// The server's step (empty: `step_game`).
    step_function server_step{};
};

class sim_match {
public:
    sim_match(std::uint64_t seed, std::uint8_t players, session_config cfg = game_config(2), sim_options opt = {})
        : net{seed}, config{std::move(cfg)}, options_{opt} {
        config.max_players = players;
        init_game(server_world);
        if (options_.count_traffic) server_counted = std::make_unique<counting_transport>(net.server());
        use_server_options({});
    }

    /// @brief Replaces the server with one using @p options (call before any client joins).
    void use_server_options(server_options options) {
        transport &t = server_counted ? static_cast<transport &>(*server_counted) : net.server();
        server = std::make_unique<server_session>(
            config, server_world, options_.server_step ? options_.server_step : step_function{step_game}, t,
            std::move(options));
        if (options_.keep_hashes)
            server->on_confirmed(
                [this](const frame_inputs &in, const world &, std::uint64_t h) { server_hashes[in.frame()] = h; });
    }

    /// @brief A client on links @p up and @p down, stepping with @p step (empty: `step_game`).
    sim_client &add_client(const link_conditions &up, const link_conditions &down, client_options opt = {},
                           step_function step = {}) {
        auto c = std::make_unique<sim_client>();
        init_game(c->w);
        c->input.state = 0x9e3779b97f4a7c15ull * (clients.size() + 1);
        transport *t = &net.connect(up, down);
        if (options_.count_traffic) {
            c->counted = std::make_unique<counting_transport>(*t);
            t = c->counted.get();
        }
        c->session =
            std::make_unique<client_session>(config, c->w, step ? std::move(step) : step_function{step_game}, *t, opt);
        if (options_.keep_hashes) {
            auto *raw = c.get();
            c->session->on_confirmed_hash([raw](std::uint32_t f, std::uint64_t h) { raw->hashes[f] = h; });
        }
        clients.push_back(std::move(c));
        return *clients.back();
    }

    /// @brief The desync tests' players (docs/net.md, "Desync forensics"): two on 25 ms links, the
    /// second with @p second. Returns the second, the one corrupt_ships makes diverge.
    sim_client &add_two_players(client_options second = {}) {
        const link_conditions link{25, 5, 0.0};
        add_client(link, link);
        return add_client(link, link, std::move(second));
    }

    /// @brief Moves @p c's ships behind the server's back (client_session::debug_corrupt), so its
    /// ship_pos.y diverges, then runs @p ms: time for the server to see the desync.
    void corrupt_ships(sim_client &c, std::uint64_t ms = 3000) {
        c.session->debug_corrupt(
            [](world &w) { w.view<ship_pos>(exclude<bullet>).each([](ship_pos &p) { p.y += 7; }); });
        run(ms);
    }

    /**
     * @brief One millisecond of virtual time: the server polls and makes every tick that is due,
     * then each active client does, on its own clock (clock_scale); events are collected.
     * @p tick_server(server_session &) makes one server tick; @p tick_client(std::size_t index,
     * client_session &, const game_input &) makes one client tick and returns false to leave that
     * client's other due ticks to the next millisecond. (A benchmark times single ticks here.)
     */
    template<class TickServer, class TickClient>
    void step(TickServer &&tick_server, TickClient &&tick_client) {
        server->poll(now);
        while (server->should_tick(now)) tick_server(*server);
        for (session_event ev; server->next_event(ev);) server_events.push_back(ev);
        for (std::size_t i = 0; i < clients.size(); ++i) {
            auto &c = *clients[i];
            if (!c.active) continue;
            const auto local = static_cast<std::uint64_t>(static_cast<double>(now) * c.clock_scale);
            c.session->poll(local);
            while (c.session->should_tick(local))
                if (!tick_client(i, *c.session, c.next_input())) break;
            for (session_event ev; c.session->next_event(ev);) c.events.push_back(ev);
        }
        ++now;
    }

    /// @brief One millisecond of virtual time, every due tick made.
    void step() {
        step([](server_session &s) { s.tick(); },
             [](std::size_t, client_session &s, const game_input &in) {
                 s.tick(in);
                 return true;
             });
    }

    /// @brief Advances virtual time by @p ms in 1 ms steps.
    void run(std::uint64_t ms) {
        for (std::uint64_t i = 0; i < ms; ++i) step();
    }

    /// @brief Frames whose hash a client reported, and how many of them differ from the server's.
    struct comparison {
        std::size_t compared = 0;
        std::size_t mismatched = 0;
    };
    comparison compare(const sim_client &c) const {
        comparison r;
        for (const auto &[f, h] : c.hashes) {
            const auto it = server_hashes.find(f);
            if (it == server_hashes.end()) continue;
            ++r.compared;
            if (it->second != h) ++r.mismatched;
        }
        return r;
    }

    static std::size_t count(const std::vector<session_event> &evs, session_event_kind k) {
        std::size_t n = 0;
        for (const auto &e : evs) n += e.kind == k ? 1u : 0u;
        return n;
    }
    /// @brief Events of kind @p k for which @p pred holds (decide on fields, never on text).
    template<class Pred>
    static std::size_t count(const std::vector<session_event> &evs, session_event_kind k, Pred &&pred) {
        std::size_t n = 0;
        for (const auto &e : evs) n += e.kind == k && pred(e) ? 1u : 0u;
        return n;
    }

    sim_network net;
    session_config config;
    world server_world{game_schema()};
    std::unique_ptr<counting_transport> server_counted; ///< set when the match counts traffic
    std::unique_ptr<server_session> server;
    std::vector<std::unique_ptr<sim_client>> clients;
    std::map<std::uint32_t, std::uint64_t> server_hashes;
    std::vector<session_event> server_events;
    std::uint64_t now = 1;

private:
    sim_options options_;
};

} // namespace retcon::test

#endif
