// Must not compile on any target: a 64-bit field at offset 4. Packing keeps the fields tiling
// the struct (12 bytes, no padding), so only the canonical alignment check can refuse it; it
// is the layout the i686 ABI gives an unpacked struct (tests/cross/i686_refused).
#include <retcon/ecs.hpp>

#include <cstdint>

#pragma pack(push, 4)
struct unaligned_wide_field {
    std::uint32_t a;
    std::uint64_t b;
};
#pragma pack(pop)
RETCON_COMPONENT(unaligned_wide_field, a, b);
