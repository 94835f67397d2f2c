// Must not compile on i686 (scripts/determinism-matrix.sh): the i686 ABI aligns a uint64_t
// member to 4, so `b` sits at offset 4 with no padding and the fields tile the struct; on
// x86-64 the same struct has 4 padding bytes and is refused by the tiling check instead.
// Either way the declaration is refused on every target, so no target can accept a layout
// another lays out differently. Expected: "is not at a multiple of its width".
#include <retcon/ecs.hpp>

#include <cstdint>

struct wide_after_narrow {
    std::uint32_t a;
    std::uint64_t b;
};
RETCON_COMPONENT(wide_after_narrow, a, b);
