// Must not compile where `long` is not the platform's int64_t (i686, Windows, macOS): 4 bytes
// on some targets and 8 on others. On LP64 Linux `long` *is* int64_t and compiles, so this case
// runs in the cross-architecture matrix (scripts/determinism-matrix.sh, i686).
#include <retcon/ecs.hpp>

struct long_field {
    long count;
};
RETCON_COMPONENT(long_field, count);
