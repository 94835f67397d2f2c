// The smallest retcon program: declare components, build a world, run a deterministic step.
#include <retcon/ecs.hpp>

#include <cstdint>
#include <cstdio>

struct Position {
    std::int32_t x, y;
};
RETCON_COMPONENT(Position, x, y);

struct Velocity {
    std::int32_t dx, dy;
};
RETCON_COMPONENT(Velocity, dx, dy);

struct Frozen {};
RETCON_TAG(Frozen);

struct Tick {
    std::uint64_t frame;
};
RETCON_RESOURCE(Tick, frame);

int main() {
    retcon::schema schema;
    schema.component<Position>().component<Velocity>().component<Frozen>().resource<Tick>();

    retcon::world world{schema};
    world.set_resource<Tick>(0u);
    for (std::int32_t i = 0; i < 4; ++i) {
        const auto e = world.create();
        world.emplace<Position>(e, i, 0);
        world.emplace<Velocity>(e, 1, i);
        if (i == 2) world.emplace<Frozen>(e);
    }

    retcon::schedule step;
    step.add<Position, const Velocity>("movement",
                                       [](retcon::entity, Position &p, const Velocity &v) {
                                           p.x += v.dx;
                                           p.y += v.dy;
                                       })
        .add("clock", [](retcon::world &w) { ++w.resource<Tick>().frame; });

    for (int frame = 0; frame < 10; ++frame) step.run(world);

    world.view<const Position>(retcon::exclude<Frozen>).each([](retcon::entity e, const Position &p) {
        std::printf("entity %u at (%d, %d)\n", retcon::to_index(e), p.x, p.y);
    });
    std::printf("frames: %llu, schema hash: %016llx\n", static_cast<unsigned long long>(world.resource<Tick>().frame),
                static_cast<unsigned long long>(schema.hash()));
    return 0;
}
