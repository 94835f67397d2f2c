// Must not compile: an inline_vector whose count would be followed by padding.
#include <retcon/ecs.hpp>

#include <cstdint>
#include <string>

struct alignas(16) quad {
    float a, b, c, d;
};
RETCON_COMPONENT(quad, a, b, c, d);
struct padded_inline_vector {
    retcon::inline_vector<quad, 2> quads;
};
RETCON_COMPONENT(padded_inline_vector, quads);
