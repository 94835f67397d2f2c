// The README's example: declare components, save a frame in the rollback ring, simulate, roll
// back, and check the world is byte-identical to the saved frame.
#include <retcon/ecs.hpp>
#include <retcon/snapshot.hpp>

#include <cstdint>
#include <cstdio>

struct Position {
    std::int32_t x, y;
};
RETCON_COMPONENT(Position, x, y); // mandatory: field table, padding check, schema hash
struct Velocity {
    std::int32_t dx, dy;
};
RETCON_COMPONENT(Velocity, dx, dy);

int main() {
    retcon::schema schema;
    schema.component<Position>().component<Velocity>().group<Position, Velocity>();
    retcon::world world{schema};
    const auto ship = world.create();
    world.emplace<Position>(ship, 0, 0);
    world.emplace<Velocity>(ship, 1, 2);

    retcon::snapshot_ring ring{17}; // prediction window + 1
    ring.save(world, 0);
    const auto before = retcon::hash(world);
    world.group<Position, Velocity>().each([](Position &p, const Velocity &v) {
        p.x += v.dx;
        p.y += v.dy;
    });
    const auto after = retcon::hash(world); // XXH3 of the whole state
    (void)ring.restore(world, 0);           // roll back: byte-identical to frame 0
    const bool same = retcon::hash(world) == before && after != before;
    std::printf("rolled back: %s\n", same ? "byte-identical to frame 0" : "MISMATCH");
    return same ? 0 : 1;
}
