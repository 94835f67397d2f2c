// Must not compile: a group with mutable components on a const world.
#include <retcon/ecs.hpp>

#include <cstdint>
#include <string>

struct position {
    float x, y;
};
RETCON_COMPONENT(position, x, y);
struct velocity {
    float x, y;
};
RETCON_COMPONENT(velocity, x, y);
void f(const retcon::world &w) { (void)w.group<position, const velocity>(); }
