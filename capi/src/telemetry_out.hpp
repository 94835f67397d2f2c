// Session telemetry into a caller's array of C structs (rc_client_telemetry, rc_server_telemetry,
// rc_server_client_telemetry; docs/c-api.md, "Sessions"). Private to capi/src.
#ifndef RETCON_CAPI_TELEMETRY_OUT_HPP
#define RETCON_CAPI_TELEMETRY_OUT_HPP

#include "handles.hpp"

#include <retcon/net/telemetry.hpp>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace retcon::capi {

/**
 * @brief Copies what @p read(span) reads from a session's ring into @p out: @p capacity C
 * structs of out[0].struct_size bytes each (at least sizeof(CEntry)), each converted by
 * @p convert(entry, c). @p scratch holds as many C++ entries as the ring keeps (allocated with
 * the handle): nothing is allocated here. @p out NULL with @p capacity 0 asks for the ring's
 * size (`scratch.size()`).
 */
template<class CEntry, class Entry, class Read, class Convert>
rc_status telemetry_out(std::string &err, std::vector<Entry> &scratch, CEntry *out, std::size_t capacity,
                        std::size_t *count, const char *what, Read &&read, Convert &&convert) noexcept {
    if (!count) return fail(err, RC_ERR_NULL, "%s: count is NULL", what);
    if (!out) {
        if (capacity != 0) return fail(err, RC_ERR_NULL, "%s: out is NULL but capacity is %zu", what, capacity);
        *count = scratch.size();
        return RC_OK;
    }
    *count = 0;
    if (capacity == 0) return RC_OK;
    const std::uint32_t stride = out->struct_size;
    if (auto s = check_struct_size(err, stride, sizeof(CEntry), what, "out[0]"); s != RC_OK) return s;
    const std::size_t n = read(std::span<Entry>{scratch.data(), std::min(capacity, scratch.size())});
    auto *bytes = reinterpret_cast<unsigned char *>(out);
    for (std::size_t i = 0; i < n; ++i) {
        CEntry c{};
        c.struct_size = stride;
        convert(scratch[i], c);
        std::memcpy(bytes + i * stride, &c, sizeof c);
    }
    *count = n;
    return RC_OK;
}

} // namespace retcon::capi

#endif
