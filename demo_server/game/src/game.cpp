#include <retcon_demo/game.hpp>

namespace retcon::demo {

namespace {

constexpr std::uint16_t respawn_frames = 120;
constexpr std::uint16_t invulnerable_frames = 90;
constexpr std::uint16_t fire_cooldown = 8;
constexpr std::uint16_t bullet_ttl = 70;
constexpr std::uint16_t debris_ttl = 40;
constexpr std::uint8_t turn_rate = 5;
constexpr fixed ship_radius = fixed::ratio(3, 2);
constexpr fixed thrust = fixed::ratio(1, 40);
constexpr fixed drag = fixed::ratio(99, 100);
constexpr fixed bullet_speed = fixed::ratio(3, 2);

fixed random_fixed(world &w, std::int32_t lo, std::int32_t hi) { // in [lo, hi)
    const auto span = static_cast<std::uint64_t>(hi - lo) << 16;
    return fixed::from_raw(static_cast<std::int32_t>(next_random(w) % span) + (lo << 16));
}

fixed radius_of(std::uint8_t size) { return fixed::from_int(size == 3 ? 8 : size == 2 ? 5 : 3); }

void spawn_asteroid(world &w, position at, std::uint8_t size) {
    const auto e = w.create();
    const auto dir = static_cast<std::uint8_t>(next_random(w));
    const fixed speed = fixed::ratio(static_cast<std::int32_t>(next_random(w) % 30u) + 10, 100 * size);
    w.emplace<position>(e, at);
    w.emplace<velocity>(e, cos256(dir) * speed, sin256(dir) * speed);
    w.emplace<asteroid>(e, asteroid{radius_of(size), size, {}});
}

void spawn_debris(world &w, position at, std::uint32_t count) {
    for (std::uint32_t i = 0; i < count; ++i) {
        const auto e = w.create();
        const auto dir = static_cast<std::uint8_t>(next_random(w));
        const fixed speed = fixed::ratio(static_cast<std::int32_t>(next_random(w) % 50u) + 20, 100);
        w.emplace<position>(e, at);
        w.emplace<velocity>(e, cos256(dir) * speed, sin256(dir) * speed);
        w.emplace<particle>(e, static_cast<std::uint16_t>(debris_ttl + next_random(w) % 20u), std::uint8_t{1},
                            std::uint8_t{0});
    }
}

void spawn_ship(world &w, std::size_t slot) {
    auto &m = w.resource<match_state>();
    const auto &a = w.resource<arena_settings>();
    const auto e = w.create();
    const auto col = static_cast<std::int32_t>(slot % 4);
    const auto row = static_cast<std::int32_t>(slot / 4);
    w.emplace<position>(e, a.width * fixed::ratio(col * 2 + 1, 8), a.height * fixed::ratio(row * 2 + 1, 4));
    w.emplace<velocity>(e, fixed{0}, fixed{0});
    w.emplace<ship>(e, static_cast<std::uint8_t>(slot), std::uint8_t{192}, std::uint16_t{0}, invulnerable_frames,
                    std::uint16_t{0});
    m.ship_of[slot] = e;
}

void players_system(world &w) {
    auto &m = w.resource<match_state>();
    for (std::size_t s = 0; s < max_players; ++s) {
        entity &e = m.ship_of[s];
        if (!m.present[s]) { // left the match: the ship goes with the player
            if (e != null_entity && w.valid(e)) w.destroy(e);
            e = null_entity;
            m.respawn[s] = 0;
            continue;
        }
        if (e == null_entity) {
            if (m.respawn[s] > 0) --m.respawn[s];
            if (m.respawn[s] == 0) spawn_ship(w, s);
            continue;
        }
        const player_input in = m.input[s];
        auto [sh, v, p] = w.get<ship, velocity, position>(e);
        if (in.turn == 1) sh.angle = static_cast<std::uint8_t>(sh.angle - turn_rate);
        if (in.turn == 2) sh.angle = static_cast<std::uint8_t>(sh.angle + turn_rate);
        if (in.thrust) {
            v.vx += cos256(sh.angle) * thrust;
            v.vy += sin256(sh.angle) * thrust;
        }
        v.vx *= drag;
        v.vy *= drag;
        if (sh.cooldown > 0) --sh.cooldown;
        if (sh.invulnerable > 0) --sh.invulnerable;
        if (in.fire && sh.cooldown == 0) {
            sh.cooldown = fire_cooldown;
            const position at = p;
            const velocity bv{v.vx + cos256(sh.angle) * bullet_speed, v.vy + sin256(sh.angle) * bullet_speed};
            const auto b = w.create();
            w.emplace<position>(b, at);
            w.emplace<velocity>(b, bv);
            w.emplace<bullet>(b, bullet_ttl, static_cast<std::uint8_t>(s), std::uint8_t{0});
        }
    }
}

void movement_system(world &w) {
    const auto &a = w.resource<arena_settings>();
    const fixed width = a.width, height = a.height;
    w.group<position, velocity>().each([&](position &p, const velocity &v) {
        p.x = wrap(p.x + v.vx, width);
        p.y = wrap(p.y + v.vy, height);
    });
}

void lifetime_system(world &w) {
    w.view<bullet>().each([&](entity e, bullet &b) {
        if (--b.ttl == 0) w.destroy(e); // destroying the visited entity is allowed
    });
    w.view<particle>().each([&](entity e, particle &p) {
        if (--p.ttl == 0) w.destroy(e);
    });
}

void spawner_system(world &w) {
    const auto a = w.resource<arena_settings>();
    std::uint32_t big = 0;
    w.view<const asteroid>().each([&](const asteroid &x) { big += x.size == 3 ? 1u : 0u; });
    for (; big < a.asteroids; ++big) { // new big asteroids drift in from the left edge
        spawn_asteroid(w, position{fixed{0}, random_fixed(w, 0, a.height.to_int())}, 3);
    }
    const std::uint32_t dust = w.size<particle>();
    for (std::uint32_t i = dust; i < a.dust && i < dust + 60u; ++i) { // churn: dozens per frame
        const auto e = w.create();
        // One RNG draw per statement: the order in which a call's arguments are evaluated is
        // unspecified (GCC and Clang differ), and the sequence of draws is simulation state.
        const fixed x = random_fixed(w, 0, a.width.to_int());
        const fixed y = random_fixed(w, 0, a.height.to_int());
        const fixed vx = fixed::ratio(static_cast<std::int32_t>(next_random(w) % 21u) - 10, 100);
        const fixed vy = fixed::ratio(static_cast<std::int32_t>(next_random(w) % 21u) - 10, 100);
        w.emplace<position>(e, x, y);
        w.emplace<velocity>(e, vx, vy);
        w.emplace<particle>(e, static_cast<std::uint16_t>(60u + next_random(w) % 180u), std::uint8_t{0},
                            std::uint8_t{0});
    }
    ++w.resource<match_state>().frame;
}

} // namespace

std::uint64_t next_random(world &w) {
    auto &r = w.resource<rng_state>();
    r.s ^= r.s >> 12;
    r.s ^= r.s << 25;
    r.s ^= r.s >> 27;
    return r.s * 0x2545F4914F6CDD1Dull;
}

schema make_schema() {
    schema s;
    s.component<position>()
        .component<velocity>()
        .component<ship>()
        .component<asteroid>()
        .component<bullet>()
        .component<particle>()
        .resource<match_state>()
        .resource<rng_state>()
        .resource<arena_settings>()
        .group<position, velocity>();
    return s;
}

session_config make_config(std::uint8_t players, std::uint16_t tick_hz) {
    auto c = make_session_config<player_input>(players, tick_hz);
    c.prediction = prediction_rule::repeat_last().no_repeat<player_input>("fire"); // fire is edge-triggered
    c.content_version = 2; // bump whenever the rules change: old and new builds then refuse each other at the handshake
    c.max_input_delay = 6; // the server's setting, sent in the welcome: each client's delay adapts between 2 and 6
    return c;
}

client_config make_client_config() {
    // The server's config with its match settings dropped: one place says the prediction rule
    // and content version, so the two sides cannot drift apart.
    return retcon::make_client_config(make_config(1));
}

void init_world(world &w, const world_options &o) {
    match_state m{};
    for (auto &e : m.ship_of) e = null_entity;
    w.set_resource<match_state>(m);
    w.set_resource<rng_state>(o.seed * 0x9E3779B97F4A7C15ull | 1u);
    w.set_resource<arena_settings>(fixed::from_int(o.width), fixed::from_int(o.height), o.asteroids, o.dust);
}

game::game() {
    systems_.add("players", players_system)
        .add("movement", [this](world &w) { movement(w); })
        .add("lifetimes", lifetime_system)
        .add("collisions", [this](world &w) { collide(w); })
        .add("spawner", spawner_system);
}

step_function game::structured(std::shared_ptr<game> g) {
    const schedule &systems = g->systems();
    return step_function{[g](world &w, const frame_inputs &in) { g->apply_inputs(w, in); }, systems};
}

void game::movement(world &w) const {
    movement_system(w);
    if (fault_frame_ < 0 || w.resource<match_state>().frame != static_cast<std::uint64_t>(fault_frame_)) return;
    w.view<position, const asteroid>().each([](position &p, const asteroid &) { p.x += fixed::from_int(1); });
}

void game::apply_inputs(world &w, const frame_inputs &in) {
    auto &m = w.resource<match_state>();
    for (std::size_t s = 0; s < max_players; ++s) {
        const bool here = s < in.players() && in.present(s);
        m.present[s] = here ? 1 : 0;
        m.input[s] = here ? in.get<player_input>(s) : player_input{};
    }
}

void game::step(world &w, const frame_inputs &in) {
    apply_inputs(w, in);
    systems_.run(w);
}

void game::collide(world &w) {
    targets_.clear();
    hits_.clear();
    w.view<const position, const asteroid>().each([&](entity e, const position &p, const asteroid &a) {
        targets_.push_back(target{e, p, a.radius, a.size, true});
    });
    const auto &arena = w.resource<arena_settings>();
    auto touching = [&](const position &p, const target &t, fixed extra) {
        // Shortest distance on the torus.
        fixed dx = p.x - t.at.x, dy = p.y - t.at.y;
        const fixed hw = arena.width * fixed::ratio(1, 2), hh = arena.height * fixed::ratio(1, 2);
        if (dx > hw) dx -= arena.width;
        if (dx < -hw) dx += arena.width;
        if (dy > hh) dy -= arena.height;
        if (dy < -hh) dy += arena.height;
        const fixed r = t.radius + extra;
        return length_sq_raw(dx, dy) < static_cast<std::int64_t>(r.raw) * r.raw;
    };
    w.view<const position, bullet>().each([&](entity e, const position &p, bullet &b) {
        for (std::size_t i = 0; i < targets_.size(); ++i) {
            if (!targets_[i].alive || !touching(p, targets_[i], fixed{0})) continue;
            targets_[i].alive = false;
            hits_.push_back(hit{i, b.owner});
            w.destroy(e); // the visited entity
            return;
        }
    });
    auto &m = w.resource<match_state>();
    for (const hit &h : hits_) {
        const target &t = targets_[h.target];
        w.destroy(t.who);
        m.score[h.owner % max_players] += 4u - t.size;
        ++m.asteroids_destroyed;
        spawn_debris(w, t.at, 6u * t.size);
        if (t.size > 1) {
            spawn_asteroid(w, t.at, static_cast<std::uint8_t>(t.size - 1));
            spawn_asteroid(w, t.at, static_cast<std::uint8_t>(t.size - 1));
        }
    }
    // Ships against the asteroids that survived.
    for (std::size_t s = 0; s < max_players; ++s) {
        const entity e = m.ship_of[s];
        if (e == null_entity) continue;
        const auto &sh = w.get<ship>(e);
        if (sh.invulnerable > 0) continue;
        const position p = w.get<position>(e);
        for (const target &t : targets_) {
            if (!t.alive || !touching(p, t, ship_radius)) continue;
            spawn_debris(w, p, 16);
            w.destroy(e);
            m.ship_of[s] = null_entity;
            m.respawn[s] = respawn_frames;
            break;
        }
    }
}

player_input bot::decide(const world &w, int slot) {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    const auto &m = w.resource<match_state>();
    if (slot < 0 || static_cast<std::size_t>(slot) >= max_players || m.ship_of[slot] == null_entity ||
        !w.valid(m.ship_of[slot]))
        return player_input{};
    if (hold_ > 0) {
        --hold_;
        current_.fire = (state_ % 7 == 0) ? 1 : 0;
        return current_;
    }
    // Aim at the nearest asteroid: turn toward it, thrust sometimes, fire when roughly aligned.
    const entity me = m.ship_of[slot];
    const position p = w.get<const position>(me);
    const std::uint8_t angle = w.get<const ship>(me).angle;
    std::int64_t best = -1;
    position aim{};
    w.view<const position, const asteroid>().each([&](const position &q, const asteroid &) {
        const std::int64_t d = length_sq_raw(q.x - p.x, q.y - p.y);
        if (best < 0 || d < best) {
            best = d;
            aim = q;
        }
    });
    current_ = player_input{};
    if (best >= 0) {
        // Cross product of heading and target direction decides the turn.
        const std::int64_t cross = (static_cast<std::int64_t>(cos256(angle).raw) * (aim.y - p.y).raw -
                                    static_cast<std::int64_t>(sin256(angle).raw) * (aim.x - p.x).raw) >>
                                   16;
        const std::int64_t dot = (static_cast<std::int64_t>(cos256(angle).raw) * (aim.x - p.x).raw +
                                  static_cast<std::int64_t>(sin256(angle).raw) * (aim.y - p.y).raw) >>
                                 16;
        current_.turn = cross > 0 ? 2 : 1;
        const bool aligned = dot > 0 && (cross < 0 ? -cross : cross) < dot / 4;
        if (aligned) current_.turn = 0;
        current_.fire = aligned ? 1 : 0;
        current_.thrust = (state_ % 5 == 0) ? 1 : 0;
    }
    hold_ = static_cast<std::uint32_t>(state_ % 4u);
    return current_;
}

} // namespace retcon::demo
