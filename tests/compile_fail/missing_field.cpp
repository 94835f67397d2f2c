// Must not compile: a field left out of RETCON_COMPONENT.
#include <retcon/ecs.hpp>

#include <cstdint>
#include <string>

struct missing_field {
    float x, y;
};
RETCON_COMPONENT(missing_field, x);
