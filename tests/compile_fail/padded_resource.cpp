// Must not compile: a padded resource.
#include <retcon/ecs.hpp>

#include <cstdint>
#include <string>

struct padded_resource {
    std::uint64_t a;
    std::uint32_t b; // four padding bytes at the end
};
RETCON_RESOURCE(padded_resource, a, b);
