// Must not compile on i686 (scripts/determinism-matrix.sh): `long` is 4 bytes there and 8 on
// LP64 Linux, where it *is* int64_t and compiles, which is why this case is not in
// tests/compile_fail. Expected: "a component field is a wchar_t, long or unsigned long".
#include <retcon/ecs.hpp>

struct long_field {
    long count;
};
RETCON_COMPONENT(long_field, count);
