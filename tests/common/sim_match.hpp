#ifndef RETCON_TESTS_SIM_MATCH_HPP
#define RETCON_TESTS_SIM_MATCH_HPP

// A whole match in one process: a server and N clients on a seeded simulated network, driven
// by a virtual clock. Records every confirmed-frame hash on every side for comparison.
#include "test_game.hpp"

#include <map>
#include <memory>
#include <vector>

namespace retcon::test {

struct sim_client {
    world w{game_schema()};
    std::unique_ptr<client_session> session;
    bot input{1};
    std::map<std::uint32_t, std::uint64_t> hashes;
    std::vector<session_event> events;
    double clock_scale = 1.0; ///< simulated clock skew (1.0001 = +100 ppm)
    bool active = true;
};

class sim_match {
public:
    sim_match(std::uint64_t seed, std::uint8_t players, session_config cfg = game_config(2))
        : net{seed}, config{std::move(cfg)} {
        config.max_players = players;
        init_game(server_world);
        use_server_options({});
    }

    /// @brief Replaces the server with one using @p options (call before any client joins).
    void use_server_options(server_options options) {
        server = std::make_unique<server_session>(config, server_world, step_game, net.server(), std::move(options));
        server->on_confirmed([this](const frame_inputs &in, const world &, std::uint64_t h) { server_hashes[in.frame()] = h; });
    }

    sim_client &add_client(const link_conditions &up, const link_conditions &down, client_options opt = {}) {
        auto c = std::make_unique<sim_client>();
        init_game(c->w);
        c->input.state = 0x9e3779b97f4a7c15ull * (clients.size() + 1);
        auto &t = net.connect(up, down);
        c->session = std::make_unique<client_session>(config, c->w, step_game, t, opt);
        auto *raw = c.get();
        c->session->on_confirmed_hash([raw](std::uint32_t f, std::uint64_t h) { raw->hashes[f] = h; });
        clients.push_back(std::move(c));
        return *clients.back();
    }

    /// @brief Advances virtual time by @p ms in 1 ms steps.
    void run(std::uint64_t ms) {
        for (std::uint64_t end = now + ms; now < end; ++now) {
            server->poll(now);
            while (server->should_tick(now)) server->tick();
            for (session_event ev; server->next_event(ev);) server_events.push_back(ev);
            for (auto &c : clients) {
                if (!c->active) continue;
                const auto local = static_cast<std::uint64_t>(static_cast<double>(now) * c->clock_scale);
                c->session->poll(local);
                while (c->session->should_tick(local)) c->session->tick(c->input.next());
                for (session_event ev; c->session->next_event(ev);) c->events.push_back(ev);
            }
        }
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

    sim_network net;
    session_config config;
    world server_world{game_schema()};
    std::unique_ptr<server_session> server;
    std::vector<std::unique_ptr<sim_client>> clients;
    std::map<std::uint32_t, std::uint64_t> server_hashes;
    std::vector<session_event> server_events;
    std::uint64_t now = 1;
};

} // namespace retcon::test

#endif
