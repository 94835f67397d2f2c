// A float simulation for the cross-architecture matrix (docs/determinism.md#the-cross-architecture-matrix).
//
// The demo game is fixed-point; this world is the other half of the proof. Its systems are made
// of exactly the operations where CPUs and compilers part ways: `a * b + c` (fused into one FMA
// on aarch64 and x86-64-v3 unless -ffp-contract=off), sqrt and division (exact in IEEE single
// precision, but computed in 80-bit x87 registers on i686 unless SSE maths is chosen). The
// bodies attract each other, so one differently rounded bit spreads to every body within
// frames. Built with retcon's flags it must print the same hashes on every target; built
// without them (float_world_control) it must not, or the matrix is not testing anything.
//
// Prints one line per 100 frames: "frame F hash H" (retcon's world hash, XXH3 over the pools).
#include <retcon/ecs.hpp>
#include <retcon/snapshot/hash.hpp>

#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

struct body {
    float x, y;
    float vx, vy;
    float mass;
    float drag;
};
RETCON_COMPONENT(body, x, y, vx, vy, mass, drag);

constexpr int bodies = 48;
constexpr int frames = 1'000;
constexpr float dt = 1.0f / 60.0f;

/// Integer-only start state (no float parsing or libm): the same bits everywhere.
void populate(retcon::world &w) {
    std::uint32_t s = 2026u;
    auto next = [&s] { return s = s * 1664525u + 1013904223u; };
    for (int i = 0; i < bodies; ++i) {
        // One statement per draw: the order in which function arguments are evaluated is
        // unspecified (GCC takes them right to left on x86-64, left to right on aarch64).
        body b{};
        b.x = static_cast<float>(next() % 2000u) * 0.05f;
        b.y = static_cast<float>(next() % 2000u) * 0.05f;
        b.vx = static_cast<float>(next() % 200u) * 0.01f - 1.0f;
        b.vy = static_cast<float>(next() % 200u) * 0.01f - 1.0f;
        b.mass = 1.0f + static_cast<float>(next() % 100u) * 0.03f;
        b.drag = 0.999f - static_cast<float>(next() % 10u) * 0.0001f;
        w.emplace<body>(w.create(), b);
    }
}

void step(retcon::world &w, std::vector<retcon::entity> &all) {
    all.clear();
    w.view<const body>().each([&all](retcon::entity e, const body &) { all.push_back(e); });
    for (const auto a : all) {
        body &p = w.get<body>(a);
        float ax = 0.0f, ay = 0.0f;
        for (const auto b : all) {
            if (a == b) continue;
            const body &q = w.get<body>(b);
            const float dx = q.x - p.x, dy = q.y - p.y;
            const float d2 = dx * dx + dy * dy + 0.25f; // contracted to fma(dx, dx, dy * dy) without the flags
            const float inv = 1.0f / std::sqrt(d2);
            const float f = q.mass * inv * inv * inv;
            ax = dx * f + ax; // a * b + c
            ay = dy * f + ay;
        }
        p.vx = p.vx * p.drag + ax * dt;
        p.vy = p.vy * p.drag + ay * dt;
    }
    w.view<body>().each([](retcon::entity, body &p) {
        p.x = p.vx * dt + p.x;
        p.y = p.vy * dt + p.y;
    });
}

} // namespace

int main() {
    retcon::schema s;
    s.component<body>();
    retcon::world w{s};
    populate(w);
    std::vector<retcon::entity> all;
    for (int f = 1; f <= frames; ++f) {
        step(w, all);
        if (f % 100 == 0) std::printf("frame %d hash %016" PRIx64 "\n", f, retcon::hash(w));
    }
    return 0;
}
