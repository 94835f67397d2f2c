#include "schema_probe.hpp"

#include <common/components.hpp>

#include <cstdint>
#include <cstdio>
#include <span>

namespace {
using namespace retcon;
using namespace retcon::test;

void print_hex(const char *label, std::span<const std::byte> bytes) {
    std::printf("%s (%zu bytes):", label, bytes.size());
    for (std::size_t i = 0; i < bytes.size(); ++i)
        std::printf("%s%02x", i % 32 == 0 ? "\n  " : "", static_cast<unsigned>(bytes[i]));
    std::printf("\n");
}

template<class T>
std::span<const std::byte> as_bytes(std::span<const T> s) {
    return std::as_bytes(s);
}
} // namespace

int run_schema_probe() {
    schema s = grouped_schema();
    std::printf("schema hash %016llx\n", static_cast<unsigned long long>(s.hash()));
    print_hex("schema", s.serialize());
    for (std::size_t id = 0; id < s.components().size(); ++id)
        std::printf("component %zu = %s\n", id, s.components()[id].name.c_str());

    world w{s};
    w.set_resource<rng_state>(0x9e3779b97f4a7c15ull);
    w.set_resource<game_clock>(0u, 60u);
    std::uint64_t rng = 0x243f6a8885a308d3ull;
    auto next = [&rng] {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
    };
    std::vector<entity> live;
    for (int frame = 0; frame < 300; ++frame) {
        for (int k = 0; k < 8; ++k) {
            const auto e = w.create();
            live.push_back(e);
            w.emplace<position>(e, static_cast<float>(next() % 1000) * 0.25f, static_cast<float>(next() % 1000) * 0.5f);
            if (next() % 2) w.emplace<velocity>(e, 0.1f * static_cast<float>(next() % 7), -0.3f);
            if (next() % 3 == 0) w.emplace<health>(e, 100, std::uint16_t{5}, std::uint8_t{1}, std::uint8_t{0});
            if (next() % 5 == 0) w.emplace<frozen>(e);
            if (next() % 4 == 0) w.emplace<name_tag>(e, fixed_string<16>{"probe"});
        }
        w.view<position, const velocity>(exclude<frozen>).each([](position &p, const velocity &v) {
            p.x = p.x + v.dx;
            p.y = p.y * 0.999f + v.dy;
        });
        for (int k = 0; k < 6 && !live.empty(); ++k) {
            const std::size_t i = next() % live.size();
            if (w.valid(live[i])) w.destroy(live[i]);
            live[i] = live.back();
            live.pop_back();
        }
        if (frame % 50 == 0) w.sort<health>([](const health &a, const health &b) { return a.hp < b.hp; });
        ++w.resource<game_clock>().frame;
    }

    std::printf("alive %u head %u tail %u\n", w.alive(), w.free_list().head, w.free_list().tail);
    print_hex("entities", as_bytes(w.entity_table()));
    for (std::size_t id = 0; id < w.pool_count(); ++id) {
        const pool &p = w.pool_at(id);
        std::printf("pool %zu %.*s size %u\n", id, static_cast<int>(p.info().name.size()), p.info().name.data(),
                    p.size());
        print_hex("owners", std::as_bytes(std::span<const entity>(p.owners().data(), p.size())));
        print_hex("payload", std::span<const std::byte>(p.payload(), p.payload_bytes()));
    }
    print_hex("groups", as_bytes(w.group_lengths()));
    print_hex("resources", w.resource_bytes());
    return 0;
}
