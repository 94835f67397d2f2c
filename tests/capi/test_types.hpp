#ifndef RETCON_TESTS_CAPI_TEST_TYPES_HPP
#define RETCON_TESTS_CAPI_TEST_TYPES_HPP

// The component and resource types the C API's misuse tests and its fuzzer declare at run time,
// with their field tables (RC_FIELD: offsets and sizes from the compiler, not by hand).
#include <retcon.h>

#include <cstdint>

namespace retcon::capi_test {

struct pos {
    float x;
    float y;
};
struct counter {
    std::uint32_t id;
    std::uint32_t pad;
    std::uint64_t total;
};
struct vel {
    float dx;
    float dy;
};
struct clock_res {
    std::uint64_t ticks;
};

// RC_FIELD in C++ uses static_cast: these tables build under -Wold-style-cast -Werror.
inline const rc_field pos_fields[] = {RC_FIELD(pos, x, RC_F32), RC_FIELD(pos, y, RC_F32)};
inline const rc_field counter_fields[] = {RC_FIELD(counter, id, RC_U32), RC_FIELD(counter, pad, RC_U32),
                                          RC_FIELD(counter, total, RC_U64)};
inline const rc_field vel_fields[] = {RC_FIELD(vel, dx, RC_F32), RC_FIELD(vel, dy, RC_F32)};
inline const rc_field clock_fields[] = {RC_FIELD(clock_res, ticks, RC_U64)};

} // namespace retcon::capi_test

#endif
