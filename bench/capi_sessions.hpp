#ifndef RETCON_BENCH_CAPI_SESSIONS_HPP
#define RETCON_BENCH_CAPI_SESSIONS_HPP

// One seeded match — a server and two clients on the simulated network, 40 ms ± 25 ms one way
// with loss, duplicates and reordering (tests/capi/c_sessions.c's link) — played in four ways
// with the same trivial step, the same world and the same inputs (docs/benchmarks.md, "C API",
// "Sessions: poll mode against the C++ session"):
//   cpp_tick           client_session / server_session with a step_function: poll, then tick()
//                      while a frame is due
//   cpp_tick_requests  the same sessions through tick_requests(), the caller stepping each request
//   c_callback         rc_client / rc_server with an rc_step_fn
//   c_poll             rc_client / rc_server in poll mode: update, then next_request / step /
//                      request_done until none
// Each side's calls per update (server, or both clients) are one virtual call, so a benchmark or
// a callgrind probe can time or count exactly one side. Used by bench/capi_bench.cpp and
// bench/session_probe.cpp.
#include <retcon.h>

#include <retcon/ecs.hpp>
#include <retcon/net.hpp>
#include <retcon/snapshot.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>

namespace bench::sessions {

// ---------------------------------------------------------------- the game

/// A ship's position (the world's entities; the step leaves them alone).
struct position {
    std::int32_t x, y;
};
RETCON_COMPONENT(position, x, y);
/// The slot a ship belongs to.
struct pilot {
    std::uint32_t slot;
};
RETCON_COMPONENT(pilot, slot);
/// What the step changes: a running fold of every input.
struct tally {
    std::uint64_t sum;
    std::uint32_t frames, pad;
};
RETCON_COMPONENT(tally, sum, frames, pad);
/// One player's input: 4 bytes.
struct stick {
    std::int8_t dx, dy;
    std::uint8_t fire, pad;
};
RETCON_COMPONENT(stick, dx, dy, fire, pad);

constexpr std::uint8_t players = 2;
constexpr std::uint64_t seed = 20261126;
constexpr std::uint64_t content_version = 7;
/// Virtual milliseconds between two updates of every session (as tests/capi/c_sessions.c).
constexpr std::uint64_t update_ms = 2;
/// Long enough to connect, load and synchronise: measuring starts after it.
constexpr std::uint64_t warmup_ms = 2'000;

/// Player @p slot's input at @p now_ms: changes every few frames, so predictions miss.
inline stick stick_at(std::uint64_t now_ms, std::uint32_t slot) {
    const std::uint64_t phase = (now_ms / 17u + slot * 5u) / (5u + slot * 2u);
    return {static_cast<std::int8_t>(static_cast<int>((phase * 7u + slot) % 5u) - 2),
            static_cast<std::int8_t>(static_cast<int>((phase * 3u + slot * 2u) % 3u) - 1),
            static_cast<std::uint8_t>(phase % 4u == 0u), 0};
}

/// The step both languages share: folds every present slot's input into the tally.
inline void fold(tally &t, const std::uint8_t *flags, const std::uint8_t *inputs, std::uint32_t slots,
                 std::uint32_t input_size) {
    for (std::uint32_t s = 0; s < slots; ++s) {
        if ((flags[s] & 1u) == 0) continue;
        stick in;
        std::memcpy(&in, inputs + static_cast<std::size_t>(s) * input_size, sizeof in);
        t.sum = t.sum * 1099511628211u + static_cast<std::uint64_t>(static_cast<std::uint8_t>(in.dx)) * 31u +
                static_cast<std::uint8_t>(in.dy) * 7u + in.fire;
    }
    t.frames += 1;
}

/// The C++ step (not inlined: every mode calls the step as a function).
[[gnu::noinline]] inline void cpp_step(retcon::world &w, const retcon::frame_inputs &in) {
    const auto *record = reinterpret_cast<const std::uint8_t *>(in.record().data());
    fold(w.resource<tally>(), record, record + in.players(), static_cast<std::uint32_t>(in.players()),
         static_cast<std::uint32_t>(in.input_size()));
}

/// The C step: the user pointer is the tally's resource id.
[[gnu::noinline]] inline int c_step(rc_world *w, const rc_frame_inputs *in, void *user) {
    void *t = nullptr;
    if (rc_resource_get(w, *static_cast<const std::uint32_t *>(user), &t) != RC_OK) return 1;
    fold(*static_cast<tally *>(t), in->flags, in->inputs, in->players, in->input_size);
    return 0;
}

// ---------------------------------------------------------------- a match

/// What a match reports after it is played (the same in every mode if the modes play the same
/// match).
struct summary {
    std::uint64_t server_frame = 0;
    std::array<std::uint64_t, players> client_frame{};
    std::array<std::uint64_t, players> rollbacks{};
    std::array<std::uint64_t, players> resimulated{};
    std::uint64_t desyncs = 0;
    bool running = false;
    std::uint64_t server_hash = 0; ///< the server world's hash
};

/// One match in one of the four modes.
class match {
public:
    match() = default;
    virtual ~match() = default;
    match(const match &) = delete;
    match &operator=(const match &) = delete;

    /// Everything the server does in one update: receive, run the frames due, drain events.
    virtual void server_update(std::uint64_t now_ms) = 0;
    /// The same for both clients, each with its input for @p now_ms.
    virtual void clients_update(std::uint64_t now_ms) = 0;
    [[nodiscard]] virtual summary report() const = 0;
};

enum class mode : std::uint8_t { cpp_tick, cpp_tick_requests, c_callback, c_poll };

inline std::string_view name(mode m) {
    switch (m) {
    case mode::cpp_tick: return "cpp_tick";
    case mode::cpp_tick_requests: return "cpp_tick_requests";
    case mode::c_callback: return "c_callback";
    case mode::c_poll: return "c_poll";
    }
    return "?";
}

/// The link of every client, both ways (tests/capi/c_sessions.c).
constexpr retcon::link_conditions wan_link{40, 25, 0.03, 0.01, 0.02};

/// The C++ sessions. @p Requests: driven through tick_requests.
template<bool Requests>
class cpp_match final : public match {
public:
    cpp_match() : net_{seed} {
        server_world_.set_resource<tally>(0u, 0u, 0u);
        for (std::uint32_t s = 0; s < players; ++s) {
            const auto e = server_world_.create();
            server_world_.emplace<position>(e, static_cast<std::int32_t>(s * 100), 0);
            server_world_.emplace<pilot>(e, s);
        }
        // An image of every checksum frame, as the C API's server keeps (capi/src/server.cpp),
        // so both servers do the same work.
        retcon::server_options options;
        options.forensic_interval = 1;
        server_ = std::make_unique<retcon::server_session>(config(), server_world_, cpp_step, net_.server(), options);
        for (std::size_t i = 0; i < players; ++i) {
            auto &t = net_.connect(wan_link, wan_link);
            clients_[i] = std::make_unique<retcon::client_session>(config(), client_worlds_[i], cpp_step, t);
        }
    }

    void server_update(std::uint64_t now_ms) override {
        server_->poll(now_ms);
        while (server_->should_tick(now_ms)) {
            if constexpr (Requests) {
                auto requests = server_->tick_requests();
                while (const retcon::step_request *r = requests.next()) cpp_step(*r->target, r->inputs);
                if (!requests.result()) break;
            } else {
                server_->tick();
            }
        }
        for (retcon::session_event e; server_->next_event(e);) {}
    }

    void clients_update(std::uint64_t now_ms) override {
        for (std::size_t i = 0; i < players; ++i) {
            auto &c = *clients_[i];
            const stick in = stick_at(now_ms, static_cast<std::uint32_t>(i));
            const std::span<const std::byte> bytes{reinterpret_cast<const std::byte *>(&in), sizeof in};
            c.poll(now_ms);
            while (c.should_tick(now_ms)) {
                if constexpr (Requests) {
                    auto requests = c.tick_requests(bytes);
                    while (const retcon::step_request *r = requests.next()) cpp_step(*r->target, r->inputs);
                    if (!requests.result()) break;
                } else if (!c.tick(bytes)) {
                    break; // stalled: nothing changes before the next poll (as the C API's update)
                }
            }
            for (retcon::session_event e; c.next_event(e);) {}
        }
    }

    [[nodiscard]] summary report() const override {
        summary s;
        s.server_frame = server_->frame();
        s.desyncs = server_->totals().desyncs + server_->totals().unverified_desyncs;
        s.running = true;
        for (std::size_t i = 0; i < players; ++i) {
            const auto &st = clients_[i]->stats();
            s.client_frame[i] = clients_[i]->current_frame();
            s.rollbacks[i] = st.rollbacks;
            s.resimulated[i] = st.resimulated;
            s.desyncs += st.desyncs + st.unverified_desyncs;
            s.running = s.running && clients_[i]->state() == retcon::client_state::running;
        }
        s.server_hash = retcon::hash(server_world_);
        return s;
    }

private:
    static retcon::schema make_schema() {
        retcon::schema s;
        s.component<position>().component<pilot>().resource<tally>();
        return s;
    }
    static retcon::session_config config() {
        auto c = retcon::make_session_config<stick>(players);
        c.content_version = content_version;
        c.prediction.no_repeat<stick>("fire");
        return c;
    }

    retcon::schema schema_ = make_schema();
    retcon::world server_world_{schema_};
    std::array<retcon::world, players> client_worlds_{retcon::world{schema_}, retcon::world{schema_}};
    retcon::sim_network net_;
    std::unique_ptr<retcon::server_session> server_;
    std::array<std::unique_ptr<retcon::client_session>, players> clients_;
};

/// The same sessions through retcon.h. @p Poll: poll mode, else callback mode.
template<bool Poll>
class c_match final : public match {
public:
    c_match() {
        must(rc_schema_create(&schema_));
        const rc_field position_fields[] = {RC_FIELD(position, x, RC_I32), RC_FIELD(position, y, RC_I32)};
        const rc_field pilot_fields[] = {RC_FIELD(pilot, slot, RC_U32)};
        const rc_field tally_fields[] = {RC_FIELD(tally, sum, RC_U64), RC_FIELD(tally, frames, RC_U32),
                                         RC_FIELD(tally, pad, RC_U32)};
        const rc_type_desc p{sizeof(rc_type_desc), "position", sizeof(position), position_fields, 2};
        const rc_type_desc s{sizeof(rc_type_desc), "pilot", sizeof(pilot), pilot_fields, 1};
        const rc_type_desc t{sizeof(rc_type_desc), "tally", sizeof(tally), tally_fields, 3};
        std::uint32_t position_id = 0, pilot_id = 0;
        must(rc_schema_component(schema_, &p, &position_id));
        must(rc_schema_component(schema_, &s, &pilot_id));
        must(rc_schema_resource(schema_, &t, &tally_id_));

        must(rc_world_create(schema_, &server_world_));
        const tally zero{0, 0, 0};
        must(rc_resource_set(server_world_, tally_id_, &zero, sizeof zero));
        for (std::uint32_t slot = 0; slot < players; ++slot) {
            rc_entity e{};
            must(rc_entity_create(server_world_, &e));
            const position at{static_cast<std::int32_t>(slot * 100), 0};
            const pilot who{slot};
            must(rc_component_add(server_world_, e, position_id, &at, sizeof at));
            must(rc_component_add(server_world_, e, pilot_id, &who, sizeof who));
        }

        rc_session_config cfg{};
        cfg.struct_size = sizeof cfg;
        must(rc_session_config_default(&cfg));
        cfg.max_players = players;
        cfg.input_size = sizeof(stick);
        const rc_field stick_fields[] = {RC_FIELD(stick, dx, RC_I8), RC_FIELD(stick, dy, RC_I8),
                                         RC_FIELD(stick, fire, RC_U8), RC_FIELD(stick, pad, RC_U8)};
        const rc_type_desc d{sizeof(rc_type_desc), "stick", sizeof(stick), stick_fields, 4};
        must(rc_input_layout_hash(&d, &cfg.input_layout_hash));
        cfg.content_version = content_version;
        static constexpr std::uint8_t no_repeat[sizeof(stick)] = {0, 0, 1, 0}; // fire is never predicted
        cfg.no_repeat = no_repeat;
        cfg.no_repeat_size = sizeof no_repeat;

        const rc_step_fn step = Poll ? nullptr : c_step;
        must(rc_sim_network_create(seed, &net_));
        must(rc_sim_network_server(net_, &server_end_));
        must(rc_server_create(&cfg, server_world_, server_end_, step, &tally_id_, nullptr, &server_));
        const rc_link l{sizeof(rc_link), wan_link.latency_ms, wan_link.jitter_ms,
                        wan_link.loss,   wan_link.duplicate,  wan_link.reorder};
        for (std::size_t i = 0; i < players; ++i) {
            must(rc_world_create(schema_, &client_worlds_[i]));
            must(rc_sim_network_connect(net_, &l, &l, &client_ends_[i]));
            must(rc_client_create(&cfg, client_worlds_[i], client_ends_[i], step, &tally_id_, nullptr, &clients_[i]));
        }
    }

    ~c_match() override {
        for (std::size_t i = 0; i < players; ++i) {
            rc_client_destroy(clients_[i]);
            rc_transport_destroy(client_ends_[i]);
            rc_world_destroy(client_worlds_[i]);
        }
        rc_server_destroy(server_);
        rc_transport_destroy(server_end_);
        rc_sim_network_destroy(net_);
        rc_world_destroy(server_world_);
        rc_schema_destroy(schema_);
    }
    c_match(const c_match &) = delete;
    c_match &operator=(const c_match &) = delete;

    void server_update(std::uint64_t now_ms) override {
        must(rc_server_update(server_, now_ms));
        if constexpr (Poll) {
            rc_request r{};
            r.struct_size = sizeof r;
            int has = 0;
            for (;;) {
                must(rc_server_next_request(server_, &r, &has));
                if (!has) break;
                if (c_step(r.world, &r.inputs, &tally_id_) != 0) std::abort();
                must(rc_server_request_done(server_, r.inputs.frame));
            }
        }
        rc_event e{};
        e.struct_size = sizeof e;
        int has = 0;
        while (rc_server_next_event(server_, &e, &has) == RC_OK && has) {}
    }

    void clients_update(std::uint64_t now_ms) override {
        for (std::size_t i = 0; i < players; ++i) {
            rc_client *c = clients_[i];
            const stick in = stick_at(now_ms, static_cast<std::uint32_t>(i));
            must(rc_client_update(c, now_ms, &in, sizeof in));
            if constexpr (Poll) {
                rc_request r{};
                r.struct_size = sizeof r;
                int has = 0;
                for (;;) {
                    must(rc_client_next_request(c, &r, &has));
                    if (!has) break;
                    if (c_step(r.world, &r.inputs, &tally_id_) != 0) std::abort();
                    must(rc_client_request_done(c, r.inputs.frame));
                }
            }
            rc_event e{};
            e.struct_size = sizeof e;
            int has = 0;
            while (rc_client_next_event(c, &e, &has) == RC_OK && has) {}
        }
    }

    [[nodiscard]] summary report() const override {
        summary s;
        rc_server_info info{};
        info.struct_size = sizeof info;
        must(rc_server_get_info(server_, &info));
        s.server_frame = info.frame;
        rc_session_stats st{};
        st.struct_size = sizeof st;
        must(rc_server_totals(server_, &st));
        s.desyncs = st.desyncs + st.unverified_desyncs;
        s.running = true;
        for (std::size_t i = 0; i < players; ++i) {
            must(rc_client_stats(clients_[i], &st));
            rc_client_info ci{};
            ci.struct_size = sizeof ci;
            must(rc_client_get_info(clients_[i], &ci));
            s.client_frame[i] = ci.current_frame;
            s.rollbacks[i] = st.rollbacks;
            s.resimulated[i] = st.resimulated;
            s.desyncs += st.desyncs + st.unverified_desyncs;
            s.running = s.running && ci.state == RC_CLIENT_RUNNING;
        }
        must(rc_world_hash(server_world_, &s.server_hash));
        return s;
    }

private:
    static void must(rc_status s) {
        if (s != RC_OK) std::abort(); // a benchmark of a failing session would measure nothing
    }

    rc_schema *schema_ = nullptr;
    std::uint32_t tally_id_ = 0;
    rc_world *server_world_ = nullptr;
    std::array<rc_world *, players> client_worlds_{};
    rc_sim_network *net_ = nullptr;
    rc_transport *server_end_ = nullptr;
    std::array<rc_transport *, players> client_ends_{};
    rc_server *server_ = nullptr;
    std::array<rc_client *, players> clients_{};
};

/// A new match in mode @p m.
inline std::unique_ptr<match> make_match(mode m) {
    switch (m) {
    case mode::cpp_tick: return std::make_unique<cpp_match<false>>();
    case mode::cpp_tick_requests: return std::make_unique<cpp_match<true>>();
    case mode::c_callback: return std::make_unique<c_match<false>>();
    case mode::c_poll: return std::make_unique<c_match<true>>();
    }
    return nullptr;
}

} // namespace bench::sessions

#endif
