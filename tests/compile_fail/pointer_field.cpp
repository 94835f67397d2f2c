// Must not compile: a pointer field.
#include <retcon/ecs.hpp>

#include <cstdint>
#include <string>

struct pointer_field {
    std::uint32_t *target;
};
RETCON_COMPONENT(pointer_field, target);
