// Must not compile: a view with mutable components on a const world.
#include <retcon/ecs.hpp>

#include <cstdint>
#include <string>

struct position {
    float x, y;
};
RETCON_COMPONENT(position, x, y);
void f(const retcon::world &w) {
    w.view<position>().each([](position &) {});
}
