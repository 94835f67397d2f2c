// Must not compile: a nested struct that is not declared itself.
#include <retcon/ecs.hpp>

#include <cstdint>
#include <string>

struct inner {
    std::uint32_t a;
};
struct undeclared_nested {
    inner i;
};
RETCON_COMPONENT(undeclared_nested, i);
