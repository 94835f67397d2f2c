// Control for the compile-fail tests: the same constructs done right must compile.
#include <retcon/ecs.hpp>

#include <cstdint>

namespace compile_fail {
struct packed {
    std::uint32_t b;
    std::uint8_t a;
    std::uint8_t pad[3];
};
RETCON_COMPONENT(packed, b, a, pad);

struct inner {
    std::uint16_t a, b;
};
RETCON_COMPONENT(inner, a, b);

struct outer {
    inner i;
    retcon::entity link;
    retcon::fixed_string<8> name;
    retcon::inline_vector<std::uint16_t, 3> list;
};
RETCON_COMPONENT(outer, i, link, name, list);

struct marker {};
RETCON_TAG(marker);

struct clock {
    std::uint64_t frame;
};
RETCON_RESOURCE(clock, frame);

inline int use() {
    retcon::schema s;
    s.component<packed>().component<outer>().component<marker>().resource<clock>().group<packed, outer>();
    retcon::world w{s};
    const auto e = w.create();
    w.emplace<marker>(e);
    const retcon::world &cw = w;
    int n = 0;
    cw.view<const packed>().each([&](const packed &) { ++n; });
    cw.group<const packed, const outer>().each([&](const packed &, const outer &) { ++n; });
    return n + static_cast<int>(cw.all_of<marker>(e));
}
} // namespace compile_fail

int compile_fail_control() { return compile_fail::use(); }
