// Must not compile: a long double field (its 16 bytes include 6 padding bytes on x86-64, so
// the field table would tile the struct while garbage bytes reach snapshots and hashes).
#include <retcon/ecs.hpp>

struct long_double_field {
    long double value;
};
RETCON_COMPONENT(long_double_field, value);
