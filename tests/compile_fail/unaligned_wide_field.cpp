// Must not compile on any target: a 64-bit field at offset 4. On x86-64 the compiler pads it
// (the tiling check refuses); with packing it stays at 4 everywhere, which the canonical
// alignment check refuses: i686 and x86-64 must lay every declared type out the same way.
#include <retcon/ecs.hpp>

#include <cstdint>

#pragma pack(push, 4)
struct unaligned_wide_field {
    std::uint32_t a;
    std::uint64_t b;
};
#pragma pack(pop)
RETCON_COMPONENT(unaligned_wide_field, a, b);
