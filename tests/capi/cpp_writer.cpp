// The C++ side of the C API's interoperability tests (docs/c-api.md): the layout below is
// declared here with RETCON_COMPONENT / RETCON_RESOURCE / RETCON_TAG, in C by
// tests/capi/c_schema_probe.c and in Python by tests/capi/test_python.py, independently. The
// three must produce the same schema hash, which is what lets a snapshot written by one be
// loaded by another.
//
//   cpp_writer --hash           prints "schema hash <16 hex>" and the schema's canonical bytes
//   cpp_writer --write <path>   writes a snapshot file (.rcs) of a small world at frame 77 and
//                               prints a JSON object with the values it holds and its hash
//
// Keep the layout in step with c_schema_probe.c and test_python.py: same names, same field
// order, same kinds. Text is a plain char array (kind text; fixed_string<N> would be a record),
// an entity field is a retcon::entity (a uint32_t with RC_ENTITY in C).
#include <retcon/ecs.hpp>
#include <retcon/snapshot.hpp>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

namespace interop {

struct stat_pair { // a nested record
    std::int16_t hp;
    std::uint16_t armor;
};
RETCON_COMPONENT(stat_pair, hp, armor);

struct body {
    float x, y;
    float vx, vy;
    std::uint32_t flags;
    std::uint8_t pad[4]; // explicit padding: ticks is 8-aligned
    std::uint64_t ticks;
};
RETCON_COMPONENT(body, x, y, vx, vy, flags, pad, ticks);

struct spin {
    float angle;
    float rate;
};
RETCON_COMPONENT(spin, angle, rate);

struct label {
    char text[12];
    retcon::entity owner;
    bool visible;
    std::uint8_t pad[3];
};
RETCON_COMPONENT(label, text, owner, visible, pad);

struct fighter {
    stat_pair base;
    stat_pair boosts[2];
    std::int32_t level;
};
RETCON_COMPONENT(fighter, base, boosts, level);

struct frozen {};
RETCON_TAG(frozen);

struct game_clock {
    std::uint64_t frame;
    double time;
    std::uint32_t tick_hz;
    std::uint32_t seed;
};
RETCON_RESOURCE(game_clock, frame, time, tick_hz, seed);

struct rng {
    std::uint64_t state;
};
RETCON_RESOURCE(rng, state);

retcon::schema make_schema() {
    retcon::schema s;
    s.component<body>()
        .component<spin>()
        .component<label>()
        .component<fighter>()
        .component<frozen>()
        .resource<game_clock>()
        .resource<rng>()
        .group<body, spin>();
    return s;
}

} // namespace interop

namespace {

using namespace interop;

int print_hash() {
    const retcon::schema s = make_schema();
    std::printf("schema hash %016" PRIx64 "\n", s.hash());
    const auto bytes = s.serialize();
    std::printf("schema bytes %zu:", bytes.size());
    for (std::size_t i = 0; i < bytes.size(); ++i)
        std::printf("%s%02x", i % 32 == 0 ? "\n  " : "", static_cast<unsigned>(bytes[i]));
    std::printf("\n");
    for (std::size_t i = 0; i < s.components().size(); ++i) {
        const auto &t = s.components()[i];
        std::printf("component %zu %s size %u align %u fields %zu\n", i, t.name.c_str(), t.size, t.align,
                    t.fields.size());
    }
    for (std::size_t i = 0; i < s.resources().size(); ++i) {
        const auto &t = s.resources()[i];
        std::printf("resource %zu %s size %u align %u fields %zu\n", i, t.name.c_str(), t.size, t.align,
                    t.fields.size());
    }
    return 0;
}

void set_text(char (&dst)[12], std::string_view text) {
    std::memset(dst, 0, sizeof dst);
    std::memcpy(dst, text.data(), text.size() < sizeof dst ? text.size() : sizeof dst);
}

std::string text_of(const char (&t)[12]) { return std::string(t, strnlen(t, sizeof t)); }

int write_file(const char *path) {
    const retcon::schema s = make_schema();
    retcon::world w{s};
    const retcon::entity a = w.create();
    const retcon::entity b = w.create();
    const retcon::entity gone = w.create();
    const retcon::entity c = w.create();
    w.destroy(gone); // a hole in the entity table and a free list

    body ba{};
    ba.x = 1.5f;
    ba.y = -2.25f;
    ba.vx = 0.5f;
    ba.vy = 0.25f;
    ba.flags = 7;
    ba.ticks = 1234567890123ull;
    w.emplace<body>(a, ba);
    w.emplace<spin>(a, spin{0.5f, 0.125f});
    label la{};
    set_text(la.text, "writer");
    la.owner = b;
    la.visible = true;
    w.emplace<label>(a, la);

    body bb{};
    bb.x = -8.0f;
    bb.y = 16.0f;
    bb.vx = 0.0f;
    bb.vy = -1.0f;
    bb.flags = 1;
    bb.ticks = 99;
    w.emplace<body>(b, bb);
    w.emplace<frozen>(b);
    w.emplace<fighter>(b, fighter{stat_pair{100, 5}, {stat_pair{1, 2}, stat_pair{3, 4}}, 9});

    label lc{};
    set_text(lc.text, "third");
    lc.owner = retcon::null_entity;
    lc.visible = false;
    w.emplace<label>(c, lc);

    w.set_resource<game_clock>(game_clock{77, 1.25, 60, 42});
    w.set_resource<rng>(rng{0x9e3779b97f4a7c15ull});

    if (auto r = retcon::write_snapshot_file(path, w, 77); !r) {
        std::fprintf(stderr, "cpp_writer: %s\n", r.message().c_str());
        return 1;
    }
    // What a reader must find: bodies in pool order, labels with their text, the resources.
    std::printf("{\"frame\": 77, \"schema_hash\": \"%016" PRIx64 "\", \"world_hash\": \"%016" PRIx64 "\",\n", s.hash(),
                retcon::hash(w));
    std::printf(" \"alive\": %u,\n", w.alive());
    std::printf(" \"bodies\": [[%.9g, %.9g, %.9g, %.9g, %u, %" PRIu64 "], [%.9g, %.9g, %.9g, %.9g, %u, %" PRIu64
                "]],\n",
                double(ba.x), double(ba.y), double(ba.vx), double(ba.vy), ba.flags, ba.ticks, double(bb.x),
                double(bb.y), double(bb.vx), double(bb.vy), bb.flags, bb.ticks);
    std::printf(" \"labels\": [[\"%s\", %d], [\"%s\", %d]],\n", text_of(la.text).c_str(), la.visible ? 1 : 0,
                text_of(lc.text).c_str(), lc.visible ? 1 : 0);
    std::printf(" \"fighter\": [100, 5, 1, 2, 3, 4, 9],\n");
    std::printf(" \"game_clock\": [77, 1.25, 60, 42], \"rng\": %" PRIu64 "}\n", std::uint64_t{0x9e3779b97f4a7c15ull});
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    const std::string_view mode = argc > 1 ? argv[1] : "";
    if (argc == 2 && mode == "--hash") return print_hash();
    if (argc == 3 && mode == "--write") return write_file(argv[2]);
    std::fprintf(stderr, "usage: cpp_writer --hash | --write <path.rcs>\n");
    return 2;
}
