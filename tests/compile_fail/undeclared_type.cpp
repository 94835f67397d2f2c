// Must not compile: a component type with no RETCON_COMPONENT at all.
#include <retcon/ecs.hpp>

#include <cstdint>
#include <string>

struct plain {
    std::uint32_t v;
};
void f(retcon::schema &s) { s.component<plain>(); }
