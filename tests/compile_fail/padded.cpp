// Must not compile: a struct with padding between its fields.
#include <retcon/ecs.hpp>

#include <cstdint>
#include <string>

struct padded {
    std::uint8_t a;
    std::uint32_t b; // three padding bytes before b
};
RETCON_COMPONENT(padded, a, b);
